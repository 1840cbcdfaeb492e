#!/usr/bin/env python3
"""Parallel heat vs serial: `streamsolve heat CASE` once serially, then under `mpiexec -n N` for each
N (through the MPI path, --distributed, also for N = 1), and checks that every N-rank temperature
equals the serial one to <= 1e-4 of the range of T, the CG iteration count is within +-2 and the
true residual (summed over the ranks' owned rows) is near the serial one. The ranks refine their own
base pieces (partition, then refine); each reports its set-up time and peak memory.

usage: check_heat_mpi.py STREAMSOLVE MPIEXEC CASE OUTDIR --backend gpu|cpu --ranks 1,2,3,4 [--vtu heat.vtu]
                         [--preconditioner jacobi|multigrid]
--preconditioner: what every N-rank heat.json must report (the case's; multigrid over the ranks when
the case asks for it and refines the base mesh).
The VTU files and the pieces of a .pvtu are read with meshio. Every rank count but the last writes
pieces; the last gathers one VTU (--single-vtu)."""
import argparse, json, os, shutil, subprocess, sys, time


def mpiexec_prefix(mpiexec, n):
    cmd = [mpiexec, "-n", str(n), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def read_point_array(path, name):
    import meshio
    data = meshio.read(path).point_data
    if name not in data:
        sys.exit(f"{path}: no point array {name}")
    return list(data[name])


def read_pieces(pvtu, ranks, serial_vtu):
    """The temperature per serial node from the pieces a .pvtu lists (read with meshio), matched by
    coordinates; returns (values, failure). Checks: one piece per rank, each piece's `rank` cells say
    its rank, the pieces' tets add up to the serial mesh's, every serial node appears, and a node in
    several pieces has the same value in each."""
    import xml.etree.ElementTree as ET
    import meshio
    if not os.path.exists(pvtu):
        return None, f"{pvtu} is missing"
    sources = [p.get("Source") for p in ET.parse(pvtu).getroot().iter("Piece")]
    if len(sources) != ranks:
        return None, f"{len(sources)} pieces listed for {ranks} ranks"
    serial = meshio.read(serial_vtu)
    index = {tuple(p): i for i, p in enumerate(serial.points)}
    serial_tets = sum(len(c.data) for c in serial.cells if c.type == "tetra")
    values = [None] * len(serial.points)
    tets = 0
    for q, source in enumerate(sources):
        piece = meshio.read(os.path.join(os.path.dirname(pvtu), source))
        tets += sum(len(c.data) for c in piece.cells if c.type == "tetra")
        ranks_seen = set(int(r) for block in piece.cell_data["rank"] for r in block)
        if ranks_seen != {q}:
            return None, f"piece {source} has rank values {sorted(ranks_seen)}, expected {q}"
        for p, v in zip(piece.points, piece.point_data["temperature"]):
            i = index.get(tuple(p))
            if i is None:
                return None, f"piece {source} has a node {tuple(p)} the serial mesh lacks"
            if values[i] is not None and values[i] != v:
                return None, f"node {i} has {values[i]} in one piece and {v} in {source}"
            values[i] = v
    if tets != serial_tets:
        return None, f"the pieces hold {tets} tets, the serial mesh {serial_tets}"
    missing = sum(v is None for v in values)
    if missing:
        return None, f"{missing} serial nodes are in no piece"
    return values, None


def run(cmd, timeout):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}")
    return time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("streamsolve"), ap.add_argument("mpiexec"), ap.add_argument("case"), ap.add_argument("outdir")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--vtu", default="heat.vtu")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--preconditioner", default="jacobi")
    a = ap.parse_args()
    shutil.rmtree(a.outdir, ignore_errors=True)
    common = ["heat", a.case, "--backend", a.backend, "--no-png"]
    serial_dir = os.path.join(a.outdir, "serial")
    # The serial run on the host's finest level, as every rank makes its piece's.
    t = run([a.streamsolve] + common + ["--finest-level", "host", "--out", serial_dir], a.timeout)
    serial = json.load(open(os.path.join(serial_dir, "heat.json")))
    T0 = read_point_array(os.path.join(serial_dir, a.vtu), "temperature")
    span = max(T0) - min(T0)
    # A periodic mesh's VTU has a seam's nodes on each side: its points outnumber the mesh's nodes.
    print(f"serial: {serial['iterations']} iterations, {serial['mesh']['nodes']} nodes, {len(T0)} points, T range {span:.6g} ({t:.1f} s)")
    failures = []
    # Where the serial run's time went: every stage, none negative, adding up to at most the total.
    timings = serial.get("timings", {})
    stages = ["read", "validate", "refine", "renumber", "topology", "geometry", "problem", "assemble", "upload",
              "solve", "download", "true_residual", "write"] + (["gl_context"] if a.backend == "gpu" else [])
    listed = sum(v for k, v in timings.items() if k != "total")
    timed = all(k in timings and timings[k] >= 0 for k in stages + ["total"]) and listed <= timings["total"] * 1.001 \
        and serial.get("peak_host_memory_bytes", 0) > (1 << 20)
    print(f"serial timings {timings}, peak host memory {serial.get('peak_host_memory_bytes')}: {'ok' if timed else 'FAIL'}")
    if not timed:
        failures.append("serial timings")
    # --no-vtu: the same solve, no VTU at all (JSON still); transient runs: --every 2 writes steps 0, 2, 4 and the last.
    quiet_dir = os.path.join(a.outdir, "no_vtu")
    run([a.streamsolve] + common + ["--no-vtu", "--out", quiet_dir], a.timeout)
    quiet = json.load(open(os.path.join(quiet_dir, "heat.json")))
    vtus = sorted(f for f in os.listdir(quiet_dir) if f.endswith(".vtu"))
    ok = quiet["converged"] and quiet["iterations"] == serial["iterations"] and not vtus
    print(f"--no-vtu: {quiet['iterations']} iterations, VTU files {vtus}: {'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append("--no-vtu")
    if serial.get("steps", 0) > 1:
        every_dir = os.path.join(a.outdir, "every2")
        run([a.streamsolve] + common + ["--every", "2", "--out", every_dir], a.timeout)
        steps = serial["steps"]
        expected = sorted({f"heat_{k:06d}.vtu" for k in list(range(0, steps + 1, 2)) + [steps]} | {"heat_final.vtu"})
        vtus = sorted(f for f in os.listdir(every_dir) if f.endswith(".vtu"))
        ok = vtus == expected
        print(f"--every 2: {vtus}: {'ok' if ok else 'FAIL (expected ' + str(expected) + ')'}")
        if not ok:
            failures.append("--every")
    rank_counts = [int(x) for x in a.ranks.split(",")]
    for n in rank_counts:
        out = os.path.join(a.outdir, f"ranks{n}")
        # The last rank count gathers one VTU (--single-vtu); the others write a piece per rank + .pvtu.
        single = n == rank_counts[-1]
        t = run(mpiexec_prefix(a.mpiexec, n) + [a.streamsolve] + common + ["--distributed", "--out", out] +
                (["--single-vtu"] if single else []), a.timeout)
        summary = json.load(open(os.path.join(out, "heat.json")))
        if single:
            T = read_point_array(os.path.join(out, a.vtu), "temperature")
            # Rank 0 refined the whole mesh in the serial order: the same cells, the same heat flux.
            import meshio, numpy
            mine, theirs = meshio.read(os.path.join(out, a.vtu)), meshio.read(os.path.join(serial_dir, a.vtu))
            same_cells = all(numpy.array_equal(x.data, y.data) for x, y in zip(mine.cells, theirs.cells))
            q, q0 = mine.cell_data["heat_flux"][0], theirs.cell_data["heat_flux"][0]
            flux_diff = float(numpy.abs(q - q0).max() / max(float(numpy.abs(q0).max()), 1e-30))
            print(f"{n} ranks, one VTU: cells {'as serial' if same_cells else 'DIFFER'}, heat flux within {flux_diff:.2e}")
            if not same_cells or flux_diff > 1e-4:
                failures.append(f"{n} single VTU")
        else:
            T, piece_failure = read_pieces(os.path.join(out, a.vtu.replace(".vtu", ".pvtu")), n,
                                           os.path.join(serial_dir, a.vtu))
            pvd = os.path.join(out, "heat.pvd")
            if not piece_failure and os.path.exists(pvd):  # transient: every snapshot a .pvtu over n pieces
                import xml.etree.ElementTree as ET
                snapshots = [d.get("file") for d in ET.parse(pvd).getroot().iter("DataSet")]
                if not snapshots or not all(f.endswith(".pvtu") for f in snapshots):
                    piece_failure = f"heat.pvd lists {snapshots}, expected .pvtu snapshots"
                for f in snapshots:
                    _, failure = read_pieces(os.path.join(out, f), n, os.path.join(serial_dir, a.vtu))
                    piece_failure = piece_failure or failure
            if piece_failure:
                print(f"{n} ranks, pieces: FAIL ({piece_failure})")
                failures.append(f"{n} pieces")
                continue
        diff = max(abs(x - y) for x, y in zip(T, T0)) / (span if span > 0 else 1.0)
        di = summary["iterations"] - serial["iterations"]
        # One MPI_Allreduce per CG iteration (single-sync CG), plus a few per solve and per correction.
        extra = max(r["allreduces"] for r in summary["per_rank"]) - summary["iterations"]
        allowed = 5 * (summary["outer_corrections"] + summary.get("steps", 0) + 1)
        if extra > allowed:
            print(f"{n} ranks: {summary['iterations']} iterations but {extra} more allreduces (allowed {allowed}): FAIL")
            failures.append(f"{n} allreduces")
        # GPU ranks: each chose the launch path for its own device (--launch auto, the default); the
        # summary's is rank 0's.
        if a.backend == "gpu":
            paths = [r.get("launch") for r in summary["per_rank"]]
            choice = summary.get("launch_choice", {})
            if not all(p in ("fragment", "compute") for p in paths) or summary.get("launch") != paths[0] or \
                    choice.get("requested") != "auto" or not choice.get("reason"):
                print(f"{n} ranks: launch {summary.get('launch')}, per rank {paths}, launch_choice {choice}: FAIL")
                failures.append(f"{n} launch")
        elif "launch" in summary or any("launch" in r for r in summary["per_rank"]):
            print(f"{n} ranks: a CPU run records a launch path: FAIL")
            failures.append(f"{n} launch")
        ok = len(T) == len(T0) and diff <= 1e-4 and abs(di) <= 2 and summary["ranks"] == n and \
            summary["preconditioner"] == a.preconditioner and \
            0 <= summary["communication_share"] <= 1 and \
            summary.get("peak_host_memory_bytes", 0) > (1 << 20) and \
            all(r["setup_seconds"] > 0 and r["refine_seconds"] >= 0 and r["prepare_seconds"] > 0 and
                r["peak_host_memory_bytes"] > (1 << 20) for r in summary["per_rank"]) and \
            summary["mesh"]["nodes"] == serial["mesh"]["nodes"] and \
            summary["true_relative_residual"] <= 10 * max(serial["true_relative_residual"], 1e-7) and \
            len(summary["owned_nodes"]) == n and sum(summary["owned_nodes"]) == serial["mesh"]["nodes"]
        print(f"{n} ranks: {summary['iterations']} iterations ({di:+d}), max |T - T_serial| = {diff:.2e} of the range, "
              f"owned nodes {summary['owned_nodes']}, {summary['preconditioner']}, communication {100 * summary['communication_share']:.0f}% "
              f"({t:.1f} s) {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(n)
    # A serial run into a folder of pieces removes them (and their .pvtu), so no stale piece stays.
    piece_runs = [n for n in rank_counts[:-1]]
    if piece_runs:
        out = os.path.join(a.outdir, f"ranks{piece_runs[0]}")
        run([a.streamsolve] + common + ["--out", out], a.timeout)
        left = sorted(f for f in os.listdir(out) if "_piece_" in f or f.endswith(".pvtu"))
        print(f"serial run over the pieces of {piece_runs[0]} ranks: left {left}: {'ok' if not left else 'FAIL'}")
        if left:
            failures.append("stale pieces")
    if failures:
        sys.exit(f"FAILED for ranks {failures}")


if __name__ == "__main__":
    main()
