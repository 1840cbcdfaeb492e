#!/usr/bin/python3
"""tools/flow_convergence.py end to end on the CPU reference (the cases it writes are the ones
docs/validation.md's GPU tables, *Ethier–Steinman* and *The duct on the GPU*, come from, so their exact solutions must be right):

  duct             refine 0, both methods: the steady L2 error of u_x against the series is that of a
                   first-order cell velocity (< 0.2; a wrong series or sign gives ~1), the two methods
                   agree to 10 %, the exact method's max |D U| is round-off (<= 1e-12).
  ethier-steinman  refine 0 and 1 (dt halved with h), both methods: L2 < 0.05 on refine 0, observed rate
                   >= 0.8, the exact method's max |D U| <= 1e-12.
  errors           --methods other than classical/exact is a one-line error and a non-zero exit.
Usage: check_flow_convergence.py STREAMSOLVE SOURCE_DIR WORK_DIR ; exit status 0 when all pass."""
import json
import os
import shutil
import subprocess
import sys

exe, source, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
tool = os.path.join(source, "tools", "flow_convergence.py")
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def sweep(case, refine):
    report = os.path.join(work, case + ".json")
    result = subprocess.run(["/usr/bin/python3", tool, "--case", case, "--refine", refine, "--backend", "cpu",
                             "--exe", exe, "--out", os.path.join(work, case), "--json", report],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(result.stdout, end="")
    check(f"{case}: the tool exits 0 ({result.stderr.strip()[-300:]})", result.returncode == 0)
    if result.returncode != 0:
        return None
    with open(report) as f:
        return json.load(f)


duct = sweep("duct", "0")
if duct:
    classical, exact = (duct["space"][m]["runs"][0] for m in ("classical", "exact"))
    for row in (classical, exact):
        check(f"duct {row['method']}: steady (t = {row['time']:g} = 0.4) L2 {row['l2_error']:.3g} < 0.2",
              abs(row["time"] - 0.4) < 1e-9 and row["l2_error"] < 0.2)
    check(f"duct: the methods agree (L2 {classical['l2_error']:.4g} vs {exact['l2_error']:.4g})",
          abs(classical["l2_error"] / exact["l2_error"] - 1) < 0.1)
    check(f"duct exact: max |D U| {exact['max_divergence']:.2g} <= 1e-12", exact["max_divergence"] <= 1e-12)

es = sweep("ethier-steinman", "0,1")
if es:
    for method in ("classical", "exact"):
        runs, rates = es["space"][method]["runs"], es["space"][method]["rates"]
        check(f"ethier-steinman {method}: dt halves with h ({runs[0]['dt']:g}, {runs[1]['dt']:g})",
              runs[1]["dt"] == runs[0]["dt"] / 2 and runs[1]["cells"] == 8 * runs[0]["cells"])
        check(f"ethier-steinman {method}: refine 0 L2 {runs[0]['l2_error']:.3g} < 0.05", runs[0]["l2_error"] < 0.05)
        check(f"ethier-steinman {method}: rate {rates[0]:.2f} >= 0.8", rates[0] >= 0.8)
    check("ethier-steinman exact: max |D U| <= 1e-12",
          all(r["max_divergence"] <= 1e-12 for r in es["space"]["exact"]["runs"]))

bad = subprocess.run(["/usr/bin/python3", tool, "--case", "duct", "--methods", "classic", "--exe", exe,
                      "--out", os.path.join(work, "bad"), "--json", os.path.join(work, "bad.json")],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(f"errors: an unknown method is one line and exit != 0 ({bad.stderr.strip()})",
      bad.returncode != 0 and "classic" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
      and not os.path.exists(os.path.join(work, "bad.json")))

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
