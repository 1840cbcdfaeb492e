#!/usr/bin/env python3
"""Parallel flow vs serial: `streamsolve flow CASE` once serially, then under `mpiexec -n N` for each N
(through the MPI path, --distributed, also for N = 1), and checks after the case's steps that
  - every cell velocity of flow.vtu equals the serial one to <= TOL of the serial max speed, and
    every cell pressure to <= TOL of the serial pressure range,
  - the momentum and pressure iterations of every step (mean, max, last) are within +-2,
  - flow.json says the rank count, and the pressure preconditioner is the same as the serial run's.
Then a restart across rank counts: the last rank count's output without its final checkpoint,
continued with --restart on 2 ranks, ends on the uninterrupted run's field (same tolerance).

usage: check_flow_mpi.py STREAMSOLVE MPIEXEC CASE OUTDIR --backend gpu|cpu --ranks 1,2,3,4 --tol 1e-5
Reads flow.vtu with meshio (Debian's python3-meshio: run with /usr/bin/python3)."""
import argparse, glob, json, os, shutil, subprocess, sys

import meshio
import numpy as np


def mpiexec_prefix(mpiexec, n):
    cmd = [mpiexec, "-n", str(n), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"FAILED: exit {p.returncode}: {' '.join(cmd)}")
    return p


def fields(out):
    m = meshio.read(os.path.join(out, "flow.vtu"))
    u = np.concatenate([b for b in m.cell_data["velocity"]])
    p = np.concatenate([b for b in m.cell_data["pressure"]]).ravel()
    return u, p


def compare(name, out, reference, tol, failures):
    u0, p0 = reference
    u, p = fields(out)
    speed = np.linalg.norm(u0, axis=1).max()
    du = np.linalg.norm(u - u0, axis=1).max() / speed
    dp = np.abs(p - p0).max() / max(p0.max() - p0.min(), 1e-300)
    print(f"{name}: max |u - u_serial| = {du:.2e} of the max speed, max |p - p_serial| = {dp:.2e} of the range")
    if not (du <= tol and dp <= tol):
        failures.append(f"{name}: fields differ from the serial run ({du:.2e}, {dp:.2e} > {tol})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("streamsolve"), ap.add_argument("mpiexec"), ap.add_argument("case"), ap.add_argument("outdir")
    ap.add_argument("--backend", default="cpu"), ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--tol", type=float, default=1e-5)
    a = ap.parse_args()
    shutil.rmtree(a.outdir, ignore_errors=True)
    common = ["flow", a.case, "--backend", a.backend, "--no-png"]
    serial_out = os.path.join(a.outdir, "serial")
    run([a.streamsolve] + common + ["--out", serial_out])
    serial = json.load(open(os.path.join(serial_out, "flow.json")))
    reference = fields(serial_out)
    failures = []
    ranks = [int(n) for n in a.ranks.split(",")]
    for n in ranks:
        out = os.path.join(a.outdir, f"ranks{n}")
        run(mpiexec_prefix(a.mpiexec, n) + [a.streamsolve] + common + ["--distributed", "--out", out])
        j = json.load(open(os.path.join(out, "flow.json")))
        if j.get("ranks") != n or len(j.get("per_rank", [])) != n:
            failures.append(f"{n} ranks: flow.json says ranks {j.get('ranks')}")
        elif not all(r["setup_seconds"] > 0 and r["peak_host_memory_bytes"] > (1 << 20) for r in j["per_rank"]):
            failures.append(f"{n} ranks: per-rank setup_seconds / peak_host_memory_bytes missing or not positive")
        if j["solver"]["pressure"] != serial["solver"]["pressure"]:
            failures.append(f"{n} ranks: pressure solver {j['solver']['pressure']} != serial {serial['solver']['pressure']}")
        for solve in ("momentum", "pressure"):
            for key in ("mean", "max", "last"):
                got, want = j["iterations"][solve][key], serial["iterations"][solve][key]
                if abs(got - want) > 2:
                    failures.append(f"{n} ranks: {solve} iterations ({key}) {got} vs serial {want}")
        compare(f"{n} ranks", out, reference, a.tol, failures)

    # Restart across rank counts: drop the last checkpoint of the last run, continue on 2 ranks.
    last = os.path.join(a.outdir, f"ranks{ranks[-1]}")
    restart = os.path.join(a.outdir, "restart")
    shutil.copytree(last, restart)
    states = sorted(glob.glob(os.path.join(restart, "flow_*.state")))
    if len(states) < 2:
        failures.append(f"{last}: {len(states)} checkpoints; the case must write at least two")
    else:
        os.remove(states[-1])
        run(mpiexec_prefix(a.mpiexec, 2) + [a.streamsolve] + common + ["--restart", "--out", restart])
        j = json.load(open(os.path.join(restart, "flow.json")))
        if j["steps"] != serial["steps"] or j["restarted_from"] is None:
            failures.append(f"restart: {j['steps']} steps from {j['restarted_from']}; serial {serial['steps']}")
        compare("restart on 2 ranks", restart, reference, a.tol, failures)
    if failures:
        sys.exit("FAILED:\n  " + "\n  ".join(failures))
    print("OK")


if __name__ == "__main__":
    main()
