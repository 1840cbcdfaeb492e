#!/usr/bin/python3
"""End-to-end checks of the `streamsolve` command's GL side: --version/--help, `bench kernels` and
`bench layout` JSON shapes, and clear one-line errors (bad --gpu, GL too old, unwritable output)
with a non-zero exit and no output file left behind.
Usage: check_bench_commands.py STREAMSOLVE WORK_DIR ; exit status 0 when all pass."""
import json
import os
import shutil
import subprocess
import sys

exe, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(*args, env=None):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=600)


def one_error_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return r.returncode == 1 and len(lines) == 1 and lines[0].startswith("streamsolve: error: ")


r = run("--version")
check("--version", r.returncode == 0 and r.stdout.startswith("streamsolve "))
r = run("--help")
check("--help lists bench", r.returncode == 0 and "bench" in r.stdout)

# bench kernels: the JSON shape the issue asks for, GPU and CPU figures for every op.
out = f"{work}/kernels.json"
r = run("-v", "bench", "kernels", "--sizes", "1000,4099", "--min-seconds", "0.01", "--json", out)
check(f"bench kernels exit {r.returncode} {r.stderr.strip()}", r.returncode == 0)
report = json.load(open(out))
check("device named", isinstance(report.get("device"), str) and report["device"] != "")
ops = {(x["op"], x["n"], x["format"]) for x in report["results"]}
for op in ["copy", "axpy", "dot", "sum"]:
    for n in [1000, 4099]:
        for fmt in ["R32F", "RGBA32F"]:
            check(f"result {op} {n} {fmt}", (op, n, fmt) in ops)
for x in report["results"]:
    for key in ["gpu_seconds", "gpu_gbps", "cpu_seconds", "cpu_gbps"]:
        check(f"{x['op']} {x['n']} {key} > 0", x[key] > 0)
check("-v prints the renderer", "streamsolve: GL " in r.stderr)
check("default launch auto is fragment on llvmpipe", report.get("launch") == ["fragment"] and
      all(x.get("launch") == "fragment" for x in report["results"]))
choices = report.get("launch_choices", [{}])
check(f"launch_choices: auto, decided by the renderer: {choices}", len(choices) == 1 and
      choices[0].get("requested") == "auto" and choices[0].get("source") == "renderer" and "llvmpipe" in choices[0].get("reason", ""))
check("-v prints the launch path and why", "streamsolve: launch: fragment (auto: renderer 'llvmpipe" in r.stderr)

# --launch fragment,compute: both launch paths of every kernel side by side in one run.
out = f"{work}/kernels_both.json"
r = run("--launch", "fragment,compute", "bench", "kernels", "--sizes", "4099", "--min-seconds", "0.01", "--json", out)
check(f"bench kernels --launch fragment,compute exit {r.returncode} {r.stderr.strip()}", r.returncode == 0)
if r.returncode == 0:
    report = json.load(open(out))
    check("launch list recorded", report.get("launch") == ["fragment", "compute"])
    rows = {(x["op"], x["format"], x["launch"]): x for x in report["results"]}
    for op in ["copy", "axpy", "dot", "sum"]:
        for fmt in ["R32F", "RGBA32F"]:
            check(f"result {op} {fmt} fragment", (op, fmt, "fragment") in rows)
            x = rows.get((op, fmt, "compute"))
            check(f"result {op} {fmt} compute beside fragment",
                  x is not None and x["gpu_gbps"] > 0 and x.get("speedup_over_fragment", 0) > 0)
    check("forced paths recorded as such", [c.get("source") for c in report.get("launch_choices", [])] == ["option", "option"])
# auto in a list resolves to one path; a path met again runs once.
out = f"{work}/kernels_auto_list.json"
r = run("--launch", "auto,fragment,compute", "bench", "kernels", "--sizes", "4099", "--formats", "R32F",
        "--min-seconds", "0.01", "--json", out)
check(f"bench kernels --launch auto,fragment,compute exit {r.returncode} {r.stderr.strip()}", r.returncode == 0)
if r.returncode == 0:
    report = json.load(open(out))
    check(f"auto (fragment here) then compute: {report.get('launch')}", report.get("launch") == ["fragment", "compute"] and
          [c.get("requested") for c in report.get("launch_choices", [])] == ["auto", "compute"])
    check("each path's rows once", sorted(x["launch"] for x in report["results"] if x["op"] == "axpy") == ["compute", "fragment"])
r = run("--launch", "vertex", "bench", "kernels", "--sizes", "10")
check(f"--launch vertex is refused: {r.stderr.strip()}", r.returncode != 0 and "launch" in r.stderr)

# bench layout: small range so it is quick; thesis R_min 32 keys present.
out = f"{work}/layout.json"
r = run("bench", "layout", "--n-min", "1024", "--n-max", "20000", "--json", out)
check(f"bench layout exit {r.returncode}", r.returncode == 0)
rows = json.load(open(out))["layout"]
check("layout rows", [(x["policy"], x["rmin"]) for x in rows] ==
      [("tight", None), ("thesis", 32), ("thesis", 64), ("thesis", 128)])
check("tight padding <= 0.1 %", rows[0]["max_padding_percent"] <= 0.1)

# Errors: one line, exit 1, no file written.
r = run("--gpu", "99", "bench", "kernels", "--sizes", "10", "--json", f"{work}/never.json")
check(f"--gpu 99 is one clear error: {r.stderr.strip()}", one_error_line(r) and "--gpu 99" in r.stderr)
check("--gpu 99 wrote nothing", not os.path.exists(f"{work}/never.json"))

env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3", MESA_GLSL_VERSION_OVERRIDE="330")
r = run("bench", "kernels", "--sizes", "10", "--json", f"{work}/never.json", env=env)
if "llvmpipe" in report["device"] or "Mesa" in report.get("gl_version", ""):
    # Mesa honours the override: the driver now offers GL 3.3 only.
    check(f"GL 3.3 driver is one clear error: {r.stderr.strip()}", one_error_line(r) and "4.3" in r.stderr)
    check("GL 3.3 wrote nothing", not os.path.exists(f"{work}/never.json"))

r = run("bench", "kernels", "--sizes", "10", "--min-seconds", "0.001", "--json", f"{work}/no/such/dir/k.json")
check(f"unwritable --json is one clear error: {r.stderr.strip()}", one_error_line(r) and "no/such/dir" in r.stderr)
leftovers = [f for f in os.listdir(work) if ".tmp." in f]
check(f"no temporary files left: {leftovers}", not leftovers)

# bench operators: the JSON shape on a small project mesh, both formats.
cube = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meshes", "cube.msh")
out = f"{work}/operators.json"
r = run("bench", "operators", "--mesh", cube, "--min-seconds", "0.01", "--json", out)
check(f"bench operators exit {r.returncode} {r.stderr.strip()}", r.returncode == 0)
if r.returncode == 0:
    report = json.load(open(out))
    check("operators: device named", isinstance(report.get("device"), str) and report["device"] != "")
    check("operators: mesh counts", all(report["mesh"].get(k, 0) > 0 for k in ["nodes", "tets", "faces", "edges"]))
    check("operators: copy ceiling", report.get("copy_ceiling_gbps", 0) > 0)
    rows = {(x["name"], x["format"]): x for x in report["operators"]}
    for name in ["gradient", "divergence", "curl", "rotation", "interpolation", "integration", "edge_mass",
                 "curl_curl_K"]:
        for fmt in ["R32F", "RGBA32F"]:
            x = rows.get((name, fmt))
            check(f"operators: row {name} {fmt}", x is not None)
            if x:
                check(f"operators: {name} {fmt} figures", x["unknowns"] > 0 and x["gpu_seconds"] > 0 and
                      x["cpu_seconds"] > 0 and x["gpu_gbps"] > 0 and x["gpu_over_cpu"] > 0)
                check(f"operators: {name} {fmt} max_rel_diff {x['max_rel_diff']:.2e} <= 1e-5", x["max_rel_diff"] <= 1e-5)

# bench operators on the compute launch path: same rows, same accuracy.
out = f"{work}/operators_compute.json"
r = run("--launch", "compute", "bench", "operators", "--mesh", cube, "--formats", "RGBA32F", "--min-seconds", "0.01",
        "--json", out)
check(f"bench operators --launch compute exit {r.returncode} {r.stderr.strip()}", r.returncode == 0)
if r.returncode == 0:
    report = json.load(open(out))
    rows = report["operators"]
    check("operators compute: rows", len(rows) >= 6 and all(x["launch"] == "compute" for x in rows))
    for x in rows:
        check(f"operators compute: {x['name']} max_rel_diff {x['max_rel_diff']:.2e} <= 1e-5", x["max_rel_diff"] <= 1e-5)
    check("operators compute: copy by launch", report["copy_gbps_by_launch"]["compute"]["RGBA32F"] > 0)

# The GLFW path: a hidden window on a display (Xvfb here), and a clear error without one.
no_display = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
r = run("--glfw", "bench", "kernels", "--sizes", "10", env=no_display)
check(f"--glfw without a display is one clear error: {r.stderr.strip()}", one_error_line(r) and "GLFW" in r.stderr)
xvfb = shutil.which("xvfb-run")
check("xvfb-run installed (tools/install_deps.sh --test)", xvfb is not None)
if xvfb:
    r = subprocess.run([xvfb, "-a", exe, "--glfw", "-v", "bench", "kernels", "--sizes", "1000", "--min-seconds", "0.01"],
                       capture_output=True, text=True, env=no_display, timeout=600)
    check(f"--glfw under Xvfb runs: {r.stderr.strip()[-300:]}", r.returncode == 0 and "GLFW hidden window" in r.stderr)

# bench refine: the finest level's refinement and heat tables on the GPU against the host's.
out = f"{work}/refine.json"
r = run("--launch", "fragment,compute", "bench", "refine", "--mesh", cube, "--refine", "1", "--formats", "RGBA32F",
        "--json", out)
check(f"bench refine runs: {r.stderr.strip()[-300:]}", r.returncode == 0 and os.path.exists(out))
if os.path.exists(out):
    j = json.load(open(out))
    check("bench refine: host seconds", all(j["cpu"][k] > 0 for k in ["seconds", "heat_tables_seconds"]))
    check("bench refine: both launch paths", sorted(x["launch"] for x in j["gpu"]) == ["compute", "fragment"])
    for x in j["gpu"]:
        h = x["heat_tables"]
        check(f"bench refine {x['launch']}: identical connectivity and edges, values within 1e-6",
              x["wrong_corners"] == 0 and h["wrong_edges"] == 0 and x["volumes_max_rel_diff"] <= 1e-6 and
              h["coefficients_max_rel_diff"] <= 1e-6 and h["mass_max_rel_diff"] <= 1e-6 and h["seconds"] > 0)

# bench flow: per-step split of the classical method (both momentum systems) and the exact method on
# both launch paths and the CPU reference from one developed state.
cavity = os.path.join(os.path.dirname(cube), "cavity.msh")
out = f"{work}/flow.json"
r = run("bench", "flow", "--mesh", cavity, "--steps", "1", "--warmup-steps", "1", "--cpu-steps", "1",
        "--launch", "fragment,compute", "--json", out)
check("bench flow runs", r.returncode == 0 and os.path.exists(out))
if os.path.exists(out):
    j = json.load(open(out))
    names = ("classical", "classical-flux", "exact")
    every = {(x["run"], x["backend"], x.get("launch")): x for x in j["runs"]}
    check("bench flow: gpu fragment, gpu compute and cpu rows of every method",
          set(every) == {(m, b, l) for m in names for b, l in (("gpu", "fragment"), ("gpu", "compute"), ("cpu", None))})
    classical = [x for k, x in every.items() if k[0] != "exact"]
    exact = [x for k, x in every.items() if k[0] == "exact"]
    check("bench flow: the classical rows solve the momentum on the edge vorticity, classical-flux on the faces",
          all(x["momentum_system"] == ("flux" if x["run"] == "classical-flux" else "vorticity") for x in classical))
    parts = ["convection", "momentum", "pressure", "projection", "diagnostics", "total"]
    check("bench flow: every classical row has its seconds per step split and iterations",
          all(all(x["seconds_per_step"][k] > 0 for k in parts) and x["iterations"]["momentum"] > 0 and
              x["iterations"]["pressure"] > 0 for x in classical))
    check("bench flow: every exact row has streamfunction seconds and iterations, no momentum or pressure solve",
          all(x["seconds_per_step"]["streamfunction"] > 0 and x["iterations"]["streamfunction"] > 0 and
              x["iterations"]["momentum"] == 0 and x["iterations"]["pressure"] == 0 for x in exact))
    check("bench flow: the parts add up to at most the total",
          all(sum(x["seconds_per_step"][k] for k in parts[:-1] + ["streamfunction"]) <= 1.05 * x["seconds_per_step"]["total"]
              for x in every.values()))
    check("bench flow: speed-ups and mesh size", j["mesh"]["cells"] == 4994 and
          all(set(j["gpu_over_cpu_speedup"][m]) == {"fragment", "compute"} and j["compute_over_fragment_speedup"][m] > 0
              for m in names))
    check("bench flow: every classical run continues from the same state to the same time step",
          len({round(x["last"]["dt"], 12) for x in classical if x["backend"] == "gpu"}) == 1)
# bench flow --real: each run from the case's start as `flow` runs it; the CPU classical row ends
# where `flow` does after the same steps, the GPU rows within float rounding of it.
case = f"{work}/cavity_real.toml"
with open(case, "w") as f:
    f.write(f"[mesh]\nfile = '{cavity}'\n[fluid]\nviscosity = 0.01\n"
            "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\n"
            "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n"
            "[time]\ndt = 0.005\nsteps = 3\ncfl = 0.5\nmax_dt = 0.02\n"
            f"[output]\ndirectory = '{work}/out_real'\nevery = 1000\n")
r = run("flow", case, "--backend", "cpu", "--no-png", "--no-vtu", "--json", f"{work}/flow_real.json")
check("flow of the --real case runs", r.returncode == 0)
out = f"{work}/flow_real_bench.json"
r = run("bench", "flow", "--case", case, "--real", "--steps", "3", "--cpu-steps", "3", "--methods", "classical,exact",
        "--launch", "compute", "--json", out)
check("bench flow --real runs", r.returncode == 0 and os.path.exists(out))
if r.returncode == 0 and os.path.exists(out) and os.path.exists(f"{work}/flow_real.json"):
    j, f = json.load(open(out)), json.load(open(f"{work}/flow_real.json"))
    rows = {(x["run"], x["backend"]): x for x in j["runs"]}
    check("bench flow --real: real rows of both methods on the GPU and the CPU, from the case's first step",
          j["mode"] == "real" and j["warmup_steps"] == 0 and set(rows) == {(m, b) for m in ("classical", "exact")
                                                                          for b in ("gpu", "cpu")} and
          all(x["mode"] == "real" and x["steps"] == 3 and x["setup_seconds"] > 0 and
              x["run_seconds"] > x["setup_seconds"] for x in rows.values()))
    cpu, gpu = rows[("classical", "cpu")]["last"], rows[("classical", "gpu")]["last"]
    check(f"bench flow --real: the CPU classical run ends at flow's t and kinetic energy ({cpu['kinetic_energy']:.9e}, "
          f"flow {f['kinetic_energy']:.9e})",
          abs(cpu["time"] - f["time"]) <= 1e-12 and abs(cpu["kinetic_energy"] - f["kinetic_energy"]) <= 1e-12 * f["kinetic_energy"])
    check(f"bench flow --real: the GPU classical run within 1e-4 of it ({gpu['kinetic_energy']:.9e})",
          abs(gpu["time"] - f["time"]) <= 1e-6 and abs(gpu["kinetic_energy"] - f["kinetic_energy"]) <= 1e-4 * f["kinetic_energy"])
    exact = rows[("exact", "gpu")]
    check("bench flow --real: the exact run's start holds its initial projection (and its first set-up)",
          exact["start_parts"]["initial_projection"] > 0 and exact["start_parts"]["exact_method"] > 0 and
          rows[("classical", "gpu")]["start_parts"]["momentum_operator"] > 0)
r = run("bench", "flow", "--mesh", cube)
check("bench flow without lid/walls groups: one error line naming the group", one_error_line(r) and "lid" in r.stderr)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
