#!/usr/bin/python3
"""The lid-driven cubic cavity at Re 100 on the GPU path (llvmpipe in CI) against the published
centre-line table (tests/data/cavity/re100_u_vs_z.csv, Wong & Baker 2002) through
tools/plot_cavity.py --check: meshes/cavity_flow.toml taken to its steady state in steady mode (its
[time] end, CFL and step limit dropped, [steady] added with the defaults), the VTU's node velocity
(wall-exact: the lid point reads 1) sampled along x = y = 0.5.

Usage: check_cavity_published.py STREAMSOLVE SOURCE_DIR WORK_DIR MAXDIFF ; exit 0 when the max
|u_x − u_published| / U over the published points is <= MAXDIFF."""
import json
import os
import shutil
import subprocess
import sys

exe, source, work, maxdiff = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
text = open(os.path.join(source, "meshes", "cavity_flow.toml")).read()
text = text.replace('file = "cavity.msh"', f'file = "{os.path.join(source, "meshes", "cavity.msh")}"')
lines = text.splitlines()
kept = [line for line in lines if not line.startswith(("end_time =", "cfl =", "max_dt ="))]
if len(kept) != len(lines) - 3:
    sys.exit("check_cavity_published: meshes/cavity_flow.toml's [time] changed; update this script")
text = "\n".join(kept) + "\n\n[steady]\n"
text = text.replace('directory = "../out/cavity_flow"', 'directory = "out"').replace("every = 50", "every = 100000")
if 'directory = "out"' not in text:
    sys.exit("check_cavity_published: meshes/cavity_flow.toml changed; update this script")
case = os.path.join(work, "cavity_re100.toml")
with open(case, "w") as f:
    f.write(text)
r = subprocess.run([exe, "flow", case, "--backend", "gpu", "--no-png"], capture_output=True, text=True, timeout=1500)
if r.returncode != 0:
    sys.exit(f"streamsolve flow failed ({r.returncode}): {r.stderr.strip()[-600:]}")
out = os.path.join(work, "out")
r = subprocess.run(["/usr/bin/python3", os.path.join(source, "tools", "plot_cavity.py"), "--ours",
                    os.path.join(out, "flow.vtu"), "--re", "100", "--check", maxdiff,
                    "--json", os.path.join(work, "cavity_re100.json")], capture_output=True, text=True)
print(r.stdout)
print(r.stderr, file=sys.stderr)
if r.returncode == 0:
    d = json.load(open(os.path.join(work, "cavity_re100.json")))["curves"]["ours"]["u_vs_z"]
    print(f"Re 100 u_x(z) against Wong & Baker: max {d['max_abs_diff']:.4f}, rms {d.get('rms_diff', float('nan')):.4f} "
          f"(<= {maxdiff})")
sys.exit(r.returncode)
