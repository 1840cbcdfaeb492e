#!/usr/bin/env python3
"""`heat --finest-level gpu` (level K made on the GPU from level K - 1) against `--finest-level host`.

usage: check_heat_gpu_finest.py STREAMSOLVE SOURCE_DIR OUTDIR

- Steady crankshaft (journals at 20 and 100, CG to 1e-8 with Jacobi and with multigrid) and the
  transient cube (theta = 1/2, 5 steps, multigrid), each at refine 1: the same VTU cells and points,
  temperatures within 1e-6 of their range, heat flux within 1e-4 of its largest; heat.json
  with "finest_level": "gpu", the same node and tet counts, converged, the GPU stage timed; a PNG;
  for the transient run the PVD series; with multigrid the host path's level list and CG iterations (±1 per step).
- The default (auto): the GPU's level for a refined GPU run; the host's at refine 0, with --compare
  and with --backend cpu.
- --launch auto (the default) and --launch compute: heat.json's "launch" and "launch_choice" and the
  -v line; a --launch list is one error line for heat.
- One-line errors, exit 1, nothing written: --finest-level gpu with --compare, with --backend cpu,
  at refine 0.
"""
import json
import os
import shutil
import subprocess
import sys

import meshio
import numpy as np

exe, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    # The launch cache (written only where a run probes: not on llvmpipe) under the test's folder
    # (Mesa keeps its shader cache there too).
    env = dict(os.environ, OMP_NUM_THREADS="1", XDG_CACHE_HOME=os.path.join(work, "cache"))
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=600)


crank = os.path.join(work, "crank_jacobi.toml")
with open(crank, "w") as f:
    f.write(f'''[mesh]
file = "{src}/meshes/crank.msh"
refine = 1
[material]
conductivity = 50.0
[[boundary]]
group = "journal_left"
type = "dirichlet"
value = 20.0
[[boundary]]
group = "journal_right"
type = "dirichlet"
value = 100.0
[solver]
preconditioner = "jacobi"
tolerance = 1e-8
''')
crank_mg = os.path.join(work, "crank_multigrid.toml")
with open(crank, "r") as f, open(crank_mg, "w") as g:
    g.write(f.read().replace('preconditioner = "jacobi"', 'preconditioner = "multigrid"'))
cube_mg = os.path.join(src, "tests", "distributed", "cube_transient_multigrid.toml")


def multigrid_levels(stderr):
    return [line.split("levels ")[1].split(",")[0] for line in stderr.splitlines() if "multigrid levels" in line]


for name, case, field in [("crank", crank, "heat.vtu"), ("crank_multigrid", crank_mg, "heat.vtu"),
                          ("cube_transient_multigrid", cube_mg, "heat_final.vtu")]:
    gpu_out, host_out = os.path.join(work, name + "_gpu_finest"), os.path.join(work, name + "_host")
    r = run("heat", case, "--refine", "1", "--finest-level", "gpu", "--out", gpu_out)
    check(f"{name}: --finest-level gpu runs: {r.stderr.strip()[-400:]}", r.returncode == 0)
    h = run("heat", case, "--refine", "1", "--finest-level", "host", "--out", host_out)
    check(f"{name}: the host path runs: {h.stderr.strip()[-400:]}", h.returncode == 0)
    if r.returncode != 0 or h.returncode != 0:
        continue
    a, b = meshio.read(os.path.join(gpu_out, field)), meshio.read(os.path.join(host_out, field))
    check(f"{name}: the same cells", np.array_equal(a.cells[0].data, b.cells[0].data))
    check(f"{name}: the same points (refined on the host for the VTU)", np.array_equal(a.points, b.points))
    ta, tb = a.point_data["temperature"], b.point_data["temperature"]
    dt = np.abs(ta - tb).max() / (tb.max() - tb.min())
    check(f"{name}: temperatures within 1e-6 of the range ({dt:.2e})", dt <= 1e-6)
    qa, qb = a.cell_data["heat_flux"][0], b.cell_data["heat_flux"][0]
    dq = np.abs(qa - qb).max() / np.abs(qb).max()
    check(f"{name}: heat flux within 1e-4 of its largest ({dq:.2e})", dq <= 1e-4)
    ja, jb = (json.load(open(os.path.join(d, "heat.json"))) for d in (gpu_out, host_out))
    check(f"{name}: heat.json says finest_level gpu (host), converged, the host's counts",
          ja.get("finest_level") == "gpu" and jb.get("finest_level") == "host" and ja["converged"] and ja["mesh"]["nodes"] == jb["mesh"]["nodes"] and
          ja["mesh"]["tets"] == jb["mesh"]["tets"] and ja["true_relative_residual"] <= 1e-8)
    check(f"{name}: the GPU stage timed, no host assembly",
          ja["timings"].get("gpu_finest_level", 0) > 0 and "assemble" not in ja["timings"])
    with open(os.path.join(gpu_out, "heat.png"), "rb") as f:
        check(f"{name}: heat.png is a PNG", f.read(8) == b"\x89PNG\r\n\x1a\n")
    if name.endswith("multigrid"):
        la, lb = multigrid_levels(r.stderr), multigrid_levels(h.stderr)
        check(f"{name}: the host path's levels ({la} and {lb})", len(la) == 1 and la == lb)
        check(f"{name}: the host path's CG iterations ({ja['iterations']} and {jb['iterations']})",
              abs(ja["iterations"] - jb["iterations"]) <= max(1, ja["steps"]))
    if name.startswith("cube_transient"):
        check(f"{name}: the PVD series", os.path.exists(os.path.join(gpu_out, "heat.pvd")) and
              os.path.exists(os.path.join(gpu_out, "heat_000005.vtu")))

# The default: the GPU's level for a refined run on the GPU alone, else the host's.
for what, args, level in [("refine 1", ["--refine", "1"], "gpu"), ("refine 0", ["--refine", "0"], "host"),
                          ("--compare", ["--refine", "1", "--compare"], "host"),
                          ("--backend cpu", ["--refine", "1", "--backend", "cpu"], "host")]:
    out = os.path.join(work, "default_" + what.replace(" ", "_").strip("-"))
    r = run("heat", crank, *args, "--no-vtu", "--no-png", "--out", out)
    j = json.load(open(os.path.join(out, "heat.json"))) if r.returncode == 0 else {}
    check(f"default, {what}: finest_level {level} ({j.get('finest_level')})", j.get("finest_level") == level)

# --launch: auto (the default) resolved on the device (llvmpipe: fragment, by the renderer), its path
# and reason in heat.json and in one -v line; a forced path taken as it is; a list refused.
for what, args, launch, requested, source in [("default", [], "fragment", "auto", "renderer"),
                                              ("auto", ["--launch", "auto"], "fragment", "auto", "renderer"),
                                              ("compute", ["--launch", "compute"], "compute", "compute", "option")]:
    out = os.path.join(work, "launch_" + what)
    r = run("-v", *args, "heat", crank, "--refine", "1", "--no-vtu", "--no-png", "--out", out)
    j = json.load(open(os.path.join(out, "heat.json"))) if r.returncode == 0 else {}
    c = j.get("launch_choice", {})
    check(f"launch {what}: heat.json launch {j.get('launch')}, launch_choice {c}",
          j.get("launch") == launch and c.get("requested") == requested and c.get("source") == source and
          c.get("reason", "") != "" and j.get("converged") is True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("streamsolve: launch: ")]
    check(f"launch {what}: one -v line: {lines}",
          len(lines) == 1 and lines[0] == f"streamsolve: launch: {launch} ({requested}: {c.get('reason')})")
check("launch: nothing probed or cached on llvmpipe", not os.path.exists(os.path.join(work, "cache", "streamsolve")))
for value in ["fragment,compute", "auto,compute"]:
    r = run("--launch", value, "heat", crank, "--refine", "1", "--out", os.path.join(work, "launch_list"))
    lines = r.stderr.strip().splitlines()
    check(f"--launch {value} heat: one error line: {r.stderr.strip()}", r.returncode == 1 and len(lines) == 1 and
          lines[0].startswith("streamsolve: error: this command runs one launch path"))

# Refusals: one line naming what is missing, exit 1, no output folder.
for what, args, needle in [("--compare", ["--compare"], "--compare"), ("--backend cpu", ["--backend", "cpu"], "GPU alone"),
                           ("refine 0", ["--refine", "0"], "refine >= 1")]:
    out = os.path.join(work, "refused_" + what.replace(" ", "_").strip("-"))
    r = run("heat", crank, "--finest-level", "gpu", *args, "--out", out)
    lines = r.stderr.strip().splitlines()
    check(f"{what}: one error line naming it: {r.stderr.strip()}", r.returncode == 1 and len(lines) == 1 and needle in lines[0])
    check(f"{what}: nothing written", not os.path.exists(os.path.join(out, "heat.json")))

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
