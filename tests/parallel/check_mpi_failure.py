#!/usr/bin/env python3
"""A parallel run that cannot start must stop every rank with one clear error, quickly, never hang.
usage: check_mpi_failure.py MPIEXEC N SECONDS EXPECTED_TEXT -- STREAMSOLVE ARGS...
Passes when the job exits non-zero within SECONDS and stderr contains EXPECTED_TEXT."""
import os, subprocess, sys, time

mpiexec, n, seconds, expected = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
command = sys.argv[sys.argv.index("--") + 1:]
prefix = [mpiexec, "-n", n, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
t0 = time.time()
try:
    p = subprocess.run(prefix + command, capture_output=True, text=True, timeout=seconds)
except subprocess.TimeoutExpired:
    sys.exit(f"FAILED: still running after {seconds} s (a rank hangs)")
took = time.time() - t0
errors = [line for line in p.stderr.splitlines() if line.startswith("streamsolve: error:")]
print(f"exit {p.returncode} after {took:.1f} s; " + (errors[0] if errors else "no streamsolve error line"))
if p.returncode == 0:
    sys.exit("FAILED: exit status 0")
if not any(expected in line for line in errors):
    sys.stderr.write(p.stderr)
    sys.exit(f"FAILED: no 'streamsolve: error:' line containing '{expected}'")
