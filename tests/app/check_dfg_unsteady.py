#!/usr/bin/python3
"""tools/dfg_unsteady.py on made-up series with known answers (no streamsolve run, no external data):

  a reference c_D = 3.2978 sin²(πt/8), c_L = 0.01 sin(πt/4) every 0.005 over [0, 8], and "ours" every
  0.02 with c_D 5 % larger and both 0.03 later, as forces.csv rows of group cylinder beside a
  probes/dp.csv: the tool reports c_D max +5 % (to 1e-3), its time 0.03 late (to 2e-3), c_L max and
  min with the reference's signs, a positive c_D RMS difference and Δp's maximum at t = 4;
  a folder without forces.csv is one error line and a non-zero exit.
Usage: check_dfg_unsteady.py SOURCE_DIR WORK_DIR ; exit status 0 when all pass."""
import json
import math
import os
import shutil
import subprocess
import sys

source, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "run", "probes"))
tool = os.path.join(source, "tools", "dfg_unsteady.py")
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def drag(t):
    return 3.2978 * math.sin(math.pi * t / 8) ** 2


def lift(t):
    return 0.01 * math.sin(math.pi * t / 4)


reference = os.path.join(work, "reference.csv")
with open(reference, "w") as f:
    f.write("# made up by check_dfg_unsteady.py\nt,c_D,c_L,c_Z\n")
    for k in range(1601):
        t = 0.005 * k
        f.write(f"{t!r},{drag(t)!r},{lift(t)!r},0.0\n")
header = "step,time,group,fx,fy,fz,fx_pressure,fy_pressure,fz_pressure,fx_viscous,fy_viscous,fz_viscous,cx,cy,cz"
with open(os.path.join(work, "run", "forces.csv"), "w") as forces, \
        open(os.path.join(work, "run", "probes", "dp.csv"), "w") as probe:
    forces.write(header + "\n")
    probe.write("time,pressure@0,pressure@1\n")
    for k in range(401):
        t = 0.02 * k
        cx, cy = 1.05 * drag(t - 0.03), lift(t - 0.03)
        forces.write(f"{k},{t!r},cylinder,0,0,0,0,0,0,0,0,0,{cx!r},{cy!r},0\n")
        probe.write(f"{t!r},{drag(t)!r},0.0\n")

result = subprocess.run(["/usr/bin/python3", tool, os.path.join(work, "run"), "--reference", reference],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(f"the tool exits 0 ({result.stderr.strip()[-300:]})", result.returncode == 0)
if result.returncode == 0:
    r = json.loads(result.stdout)
    check(f"c_D max +5 % ({r['c_D_max_relative_difference']:+.5f})", abs(r["c_D_max_relative_difference"] - 0.05) < 1e-3)
    check(f"its time 0.03 late ({r['t_c_D_max_difference']:+.4f})", abs(r["t_c_D_max_difference"] - 0.03) < 2e-3)
    check(f"the reference's c_D max 3.2978 at t = 4 ({r['reference']['c_D_max']:.5f}, {r['reference']['t_c_D_max']:.4f})",
          abs(r["reference"]["c_D_max"] - 3.2978) < 1e-4 and abs(r["reference"]["t_c_D_max"] - 4) < 1e-3)
    check(f"c_L max > 0 and min < 0 as the reference's ({r['ours']['c_L_max']:.4f}, {r['ours']['c_L_min']:.4f})",
          r["ours"]["c_L_max"] > 0 > r["ours"]["c_L_min"] and abs(r["t_c_L_max_difference"] - 0.03) < 2e-3)
    check(f"c_D RMS difference > 0 ({r['c_D_rms_difference']:.4f})", r["c_D_rms_difference"] > 0.01)
    check(f"Δp max 3.2978 at t = 4 ({r['delta_p_max']:.5f}, {r['t_delta_p_max']:.4f})",
          abs(r["delta_p_max"] - 3.2978) < 1e-3 and abs(r["t_delta_p_max"] - 4) < 2e-3)

empty = os.path.join(work, "empty")
os.makedirs(empty)
bad = subprocess.run(["/usr/bin/python3", tool, empty, "--reference", reference],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(f"no forces.csv: one error line, exit != 0 ({bad.stderr.strip()})",
      bad.returncode != 0 and "forces.csv" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
