#!/usr/bin/env python3
"""A parallel run that cannot start, or whose rank fails, must stop every rank with one clear error,
quickly, never hang.
usage: check_mpi_failure.py MPIEXEC N SECONDS EXPECTED_TEXT [--last-rank-memory-kb KB --out DIR] -- STREAMSOLVE ARGS...
Passes when the job exits non-zero within SECONDS and stderr contains EXPECTED_TEXT.
--last-rank-memory-kb: the last rank alone runs under `ulimit -v KB` (MPMD launch), so it runs out of
memory while the others go on; --out: the run's output folder, which must hold no field, checkpoint
or summary afterwards (no half-written output)."""
import os, subprocess, sys, time

mpiexec, n, seconds, expected = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
options = sys.argv[5:sys.argv.index("--")]
command = sys.argv[sys.argv.index("--") + 1:]
memory_kb = options[options.index("--last-rank-memory-kb") + 1] if "--last-rank-memory-kb" in options else None
out = options[options.index("--out") + 1] if "--out" in options else None
base = [mpiexec, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
if memory_kb:
    limited = ["bash", "-c", f"ulimit -v {memory_kb}; exec \"$@\"", "limited"] + command
    full = base + ["-n", str(n - 1)] + command + [":", "-n", "1"] + limited
else:
    full = base + ["-n", str(n)] + command
t0 = time.time()
try:
    p = subprocess.run(full, capture_output=True, text=True, timeout=seconds)
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
if len(errors) != 1:
    sys.stderr.write(p.stderr)
    sys.exit(f"FAILED: {len(errors)} error lines, want one")
if out and os.path.isdir(out):
    left = [f for f in os.listdir(out) if f.endswith((".vtu", ".pvtu", ".json", ".state", ".png", ".pvd"))]
    if left:
        sys.exit(f"FAILED: the failed run left {left} in {out}")
