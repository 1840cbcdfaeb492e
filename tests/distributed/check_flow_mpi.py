#!/usr/bin/env python3
"""Parallel flow vs serial: `streamsolve flow CASE` once serially, then under `mpiexec -n N` for each N
(through the MPI path, --distributed, also for N = 1), and checks after the case's steps that
  - the final fields and every snapshot equal the serial run's: every cell velocity and node velocity
    to <= TOL of the serial max speed, every cell pressure to <= TOL of the serial pressure range,
    every vorticity to <= TOL of the serial max vorticity (cells matched by their corners, nodes by
    their coordinates);
  - every rank count but the last writes the fields as pieces: flow.pvtu and each snapshot's .pvtu
    list one piece per rank, each piece's `rank` cells say its rank, the pieces' cells are the serial
    mesh's once each, and a node in several pieces has the same velocity in each; the last rank
    count gathers one VTU (--single-vtu);
  - the momentum and pressure iterations of every step (mean, max, last) and the pipelined solves'
    fall-backs to single-sync CG are within +-2, and so are the
    streamfunction iterations of the exact method; with the
    pressure multigrid and --refine >= 1 every rank reports a multigrid of at least two levels (the
    refinement's families, as the serial V-cycle's),
  - flow.json says the rank count, the serial run's mesh counts, and the pressure preconditioner is
    the same as the serial run's; each rank overlapped at least one halo round trip per pressure CG
    iteration with the operator's own pass, and at most all of them (with the pressure multigrid
    over the ranks, whose CG products make no round trip: at least one halo round trip a step);
    on 2 ranks or more every pressure CG iteration's reduction rode inside a halo update (p·Ap in
    its product's, or with the multigrid over the ranks r·z in the V-cycle's last), and so did
    every momentum CG iteration's with Jacobi (pipelined CG's defer theirs instead);
  - with [[force]] groups, every forces.csv value is the serial one to <= TOL of the largest |F|;
  - with [heat]: every node and cell temperature to <= TOL of the serial temperature range, every
    heat.csv value (and flow.json's heat groups) to <= TOL of the largest |heat| (heat, heat flux,
    Nusselt) or of the group's area, and the temperature iterations (total and max) within +-2 a step;
  - with [[probe]]s, every probes/<name>.csv has the serial run's header and times (to TOL relative),
    and its values
    (and flow.json's `probes`) are the serial ones to <= TOL of the serial max speed (velocity
    columns), pressure range (pressure columns) or temperature range (temperature columns);
  - the first rank count draws flow.png (on the base mesh).
Then a restart across rank counts: the last rank count's output without its final checkpoint,
continued with --restart on 2 ranks (pieces), ends on the uninterrupted run's fields, probe
files and heat.csv (same tolerance), and the gathered flow.vtu of the run it continued is gone. Checkpoints of the other kind
are refused with one line, the folder left as it was: a serial --restart of an MPI run's, an MPI
--restart of a serial run's, a --restart (serial or MPI) of a checkpoint of another --refine; so is a
case with an unknown group under mpiexec (the serial error), and one with a probe point outside the mesh.

With --momentum-iterations-ratio R
(the block Jacobi or the Chebyshev preconditioner, whose blocks are each rank's own): on N > 1 ranks the momentum
iterations are between 1/R and R times the serial ones.

With --max-allreduces-per-iteration X: each rank's MPI_Allreduce calls over the run per CG iteration
(flow.json's per_rank allreduces over steps x (momentum + pressure mean iterations)) are at most X.
With --max-round-trips-per-step X: each rank's halo round trips over the run (flow.json's per_rank
halo_exchanges plus pressure_multigrid_coarser_halo_exchanges) per step are at most X (the latency
a step pays over the ranks: a change that adds round trips fails).

usage: check_flow_mpi.py STREAMSOLVE MPIEXEC CASE OUTDIR --backend gpu|cpu --ranks 1,2,3,4 --tol 1e-5 [--refine K]
                         [--max-allreduces-per-iteration X] [--max-round-trips-per-step X]
Reads the VTU files and pieces with meshio (Debian's python3-meshio: run with /usr/bin/python3)."""
import argparse, glob, json, os, shutil, subprocess, sys, tomllib
import xml.etree.ElementTree as ET

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


def refused(cmd, message, failures):
    """`cmd` must fail with `message` on stderr."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 0 or message not in p.stderr:
        failures.append(f"expected exit != 0 with '{message}': {' '.join(cmd)} exited {p.returncode}: {p.stderr[-400:]}")


def read_forces(path):
    """forces.csv as {(step, group): [fx, ..., cz]}."""
    rows = {}
    with open(path) as f:
        next(f)
        for line in f:
            cols = line.strip().split(",")
            rows[(int(cols[0]), cols[2])] = [float(v) if v else 0.0 for v in cols[3:]]
    return rows


def compare_forces(name, path, serial_path, tol, failures):
    if not os.path.exists(serial_path):
        return
    if not os.path.exists(path):
        failures.append(f"{name}: {path} is missing")
        return
    got, want = read_forces(path), read_forces(serial_path)
    if set(got) != set(want):
        failures.append(f"{name}: forces.csv rows {sorted(got)} != serial {sorted(want)}")
        return
    scale = max(max(abs(v) for v in row[:3]) for row in want.values()) or 1.0
    diff = max(abs(a - b) for k in want for a, b in zip(got[k][:9], want[k][:9])) / scale
    print(f"{name}: forces.csv differs from the serial run by {diff:.2e} of the largest |F|")
    if diff > tol:
        failures.append(f"{name}: forces differ from the serial run by {diff:.2e} > {tol}")


def read_heat(path):
    """heat.csv as {(step, group): [heat, area, heat_flux, nusselt]}."""
    rows = {}
    with open(path) as f:
        next(f)
        for line in f:
            cols = line.strip().split(",")
            rows[(int(cols[0]), cols[2])] = [float(v) if v else 0.0 for v in cols[3:7]]
    return rows


def compare_heat(name, out, serial_out, serial, tol, failures):
    """heat.csv, flow.json's heat groups and temperature iterations against the serial run's."""
    if "heat" not in serial:
        return
    path, serial_path = os.path.join(out, "heat.csv"), os.path.join(serial_out, "heat.csv")
    if not os.path.exists(path):
        failures.append(f"{name}: {path} is missing")
        return
    got, want = read_heat(path), read_heat(serial_path)
    if set(got) != set(want):
        failures.append(f"{name}: heat.csv rows {sorted(got)} != serial {sorted(want)}")
        return
    # heat, heat flux and Nusselt to the largest of each column; the area to the group's.
    scales = [max(max(abs(r[c]) for r in want.values()), 1e-300) for c in range(4)]
    diff = max(abs(got[k][c] - want[k][c]) / (abs(want[k][1]) if c == 1 else scales[c])
               for k in want for c in range(4))
    whole = json.load(open(os.path.join(out, "flow.json")))
    j, j0 = whole["heat"], serial["heat"]
    groups = {g["group"]: g for g in j["groups"]}
    for g0 in j0["groups"]:
        g = groups.get(g0["group"])
        if g is None:
            failures.append(f"{name}: flow.json heat lacks group {g0['group']}")
            continue
        for c, key in enumerate(("heat", "area", "heat_flux", "nusselt")):
            if key in g0:
                diff = max(diff, abs(g.get(key, 1e300) - g0[key]) / (abs(g0[key]) if c == 1 else scales[c]))
    print(f"{name}: heat.csv and flow.json heat differ from the serial run by {diff:.2e}")
    if diff > tol:
        failures.append(f"{name}: heat differs from the serial run by {diff:.2e} > {tol}")
    steps = serial["steps"]
    if "temperature_iterations" in j0 and whole["steps_this_run"] == steps:  # not a restart's
        if abs(j["temperature_iterations"] - j0["temperature_iterations"]) > 2 * steps or \
                abs(j["max_temperature_iterations"] - j0["max_temperature_iterations"]) > 2:
            failures.append(f"{name}: temperature iterations {j['temperature_iterations']} (max "
                            f"{j['max_temperature_iterations']}) vs serial {j0['temperature_iterations']} (max "
                            f"{j0['max_temperature_iterations']})")


def folder_contents(folder):
    """{path relative to folder: bytes} of every file under it (probes/ included)."""
    return {os.path.relpath(os.path.join(d, f), folder): open(os.path.join(d, f), "rb").read()
            for d, _, files in os.walk(folder) for f in files}


def read_probe(path):
    """probes/<name>.csv as (header, rows as an array)."""
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    return header, np.array(rows)


def compare_probes(name, out, serial_out, serial, tol, failures):
    """Every probe file of the serial run and flow.json's `probes` against the serial run's."""
    files = sorted(glob.glob(os.path.join(serial_out, "probes", "*.csv")))
    if not files:
        return
    speed, prange = max(serial["max_speed"], 1e-300), max(serial["pressure_range"], 1e-300)
    trange = max(temperature_range(serial), 1e-300)
    scales = lambda columns: np.array([prange if c.startswith("pressure") else
                                       trange if c.startswith("temperature") else speed for c in columns])
    worst = 0.0
    for f in files:
        path = os.path.join(out, "probes", os.path.basename(f))
        if not os.path.exists(path):
            failures.append(f"{name}: {path} is missing")
            continue
        (h0, v0), (h, v) = read_probe(f), read_probe(path)
        if h != h0 or v.shape != v0.shape:
            failures.append(f"{name}: {path}: header {h} and {v.shape} values, serial {h0} and {v0.shape}")
            continue
        # to TOL relative: a steady march's pseudo-time follows its residuals, which the partition
        # moves in the last digits (the block Jacobi preconditioner's blocks are each rank's own)
        if np.abs(v[:, 0] - v0[:, 0]).max() > tol * max(1.0, np.abs(v0[:, 0]).max()):
            failures.append(f"{name}: {path}: times {v[:, 0]}, serial {v0[:, 0]}")
        worst = max(worst, (np.abs(v[:, 1:] - v0[:, 1:]) / scales(h0[1:])).max())
    got = json.load(open(os.path.join(out, "flow.json"))).get("probes", {})
    for probe, want in serial["probes"].items():
        values = got.get(probe, {}).get("values", {})
        if set(values) != set(want["values"]) or got[probe]["file"] != want["file"]:
            failures.append(f"{name}: flow.json probes[{probe}] {got.get(probe)}, serial {want}")
            continue
        columns = sorted(want["values"])
        diff = np.abs(np.array([values[c] for c in columns]) - np.array([want["values"][c] for c in columns]))
        worst = max(worst, (diff / scales(columns)).max())
    print(f"{name}: probes differ from the serial run's by {worst:.2e} of the max speed / pressure range")
    if worst > tol:
        failures.append(f"{name}: probes differ from the serial run's by {worst:.2e} > {tol}")


def temperature_range(serial):
    """The serial run's final node temperature range (0 without [heat])."""
    heat = serial.get("heat")
    return heat["temperature_max"] - heat["temperature_min"] if heat else 0.0


def cell_key(points, cell):
    return tuple(sorted(tuple(points[i]) for i in cell))


def read_fields(files):
    """Fields of one or more VTU files (a whole mesh, or the pieces of one): per cell (keyed by its
    sorted corners) velocity, pressure, vorticity, rank and temperature (nan without); per node (keyed
    by its coordinates) the node velocity and temperature (nan without) of the nodes of the cells.
    Returns (cells, nodes, failure)."""
    cells, nodes = {}, {}
    for f in files:
        m = meshio.read(f)
        tets = np.concatenate([c.data for c in m.cells if c.type == "tetra"])
        data = {name: np.concatenate(blocks) for name, blocks in m.cell_data.items()}
        rank = data.get("rank", np.full(len(tets), -1))
        Tc = data.get("temperature", np.full(len(tets), np.nan)).reshape(-1)
        for c, tet in enumerate(tets):
            key = cell_key(m.points, tet)
            if key in cells:
                return None, None, f"{f}: cell {c} is in another piece too"
            cells[key] = (data["velocity"][c], data["pressure"][c].item(), data["vorticity"][c], int(rank[c]),
                          float(Tc[c]))
        u = m.point_data["velocity"]
        Tn = m.point_data.get("temperature", np.full(len(m.points), np.nan)).reshape(-1)
        for i in np.unique(tets):
            key = tuple(m.points[i])
            value = np.append(u[i], Tn[i])
            if key in nodes and not np.array_equal(nodes[key], value, equal_nan=True):
                return None, None, f"{f}: node {key} has velocity, T {value} here and {nodes[key]} in another piece"
            nodes[key] = value
    return cells, nodes, None


def read_pieces(pvtu, ranks):
    """read_fields of the pieces a .pvtu lists, checking one piece per rank with its rank's cells."""
    if not os.path.exists(pvtu):
        return None, None, f"{pvtu} is missing"
    sources = [p.get("Source") for p in ET.parse(pvtu).getroot().iter("Piece")]
    if len(sources) != ranks:
        return None, None, f"{pvtu}: {len(sources)} pieces listed for {ranks} ranks"
    for q, source in enumerate(sources):
        m = meshio.read(os.path.join(os.path.dirname(pvtu), source))
        seen = set(int(r) for block in m.cell_data["rank"] for r in block)
        if seen != {q}:
            return None, None, f"piece {source} has rank values {sorted(seen)}, expected {q}"
    return read_fields([os.path.join(os.path.dirname(pvtu), s) for s in sources])


def compare(name, got, reference, tol, failures):
    """got, reference: (cells, nodes) of read_fields."""
    (cells, nodes), (cells0, nodes0) = got, reference
    if set(cells) != set(cells0):
        failures.append(f"{name}: {len(cells)} cells, {len(set(cells) - set(cells0))} not in the serial mesh "
                        f"({len(cells0)} cells)")
        return
    if not set(nodes0) <= set(nodes):
        failures.append(f"{name}: {len(set(nodes0) - set(nodes))} serial nodes missing")
        return
    u0 = np.array([cells0[k][0] for k in cells0]); u = np.array([cells[k][0] for k in cells0])
    p0 = np.array([cells0[k][1] for k in cells0]); p = np.array([cells[k][1] for k in cells0])
    w0 = np.array([cells0[k][2] for k in cells0]); w = np.array([cells[k][2] for k in cells0])
    n0 = np.array([nodes0[k][:3] for k in nodes0]); n = np.array([nodes[k][:3] for k in nodes0])
    speed = max(np.linalg.norm(u0, axis=1).max(), 1e-300)  # 0 at the start: then |u - u0| must be 0
    du = np.linalg.norm(u - u0, axis=1).max() / speed
    dn = np.linalg.norm(n - n0, axis=1).max() / speed
    # [heat]: node and cell temperatures to the serial node temperature range.
    T0 = np.array([nodes0[k][3] for k in nodes0]); T = np.array([nodes[k][3] for k in nodes0])
    Tc0 = np.array([cells0[k][4] for k in cells0]); Tc = np.array([cells[k][4] for k in cells0])
    if not np.isnan(T0).all():
        trange = max(T0.max() - T0.min(), 1e-300)
        dT = max(np.abs(T - T0).max(), np.abs(Tc - Tc0).max()) / trange  # nan (a missing T) fails below
        print(f"{name}: max |T - T_serial| = {dT:.2e} of the serial temperature range (nodes and cells)")
        if not dT <= tol:
            failures.append(f"{name}: temperatures differ from the serial run by {dT:.2e} > {tol}")
    dw = np.linalg.norm(w - w0, axis=1).max() / max(np.linalg.norm(w0, axis=1).max(), 1e-300)
    dp = np.abs(p - p0).max() / max(p0.max() - p0.min(), 1e-300)
    print(f"{name}: max |u - u_serial| = {du:.2e} (cells), {dn:.2e} (nodes) of the max speed, "
          f"|p - p_serial| = {dp:.2e} of the range, |w - w_serial| = {dw:.2e} of the max vorticity")
    if not (du <= tol and dn <= tol and dp <= tol and dw <= tol):
        failures.append(f"{name}: fields differ from the serial run ({du:.2e}, {dn:.2e}, {dp:.2e}, {dw:.2e} > {tol})")


def check_output(name, out, serial_out, ranks, pieces, tol, failures):
    """The final fields and every snapshot of `out` against the serial run's."""
    final = os.path.join(out, "flow.pvtu" if pieces else "flow.vtu")
    other = os.path.join(out, "flow.vtu" if pieces else "flow.pvtu")
    if os.path.exists(other):
        failures.append(f"{name}: {other} written beside {final}")
    snapshots = [d.get("file") for d in ET.parse(os.path.join(out, "flow.pvd")).getroot().iter("DataSet")]
    want = [d.get("file") for d in ET.parse(os.path.join(serial_out, "flow.pvd")).getroot().iter("DataSet")]
    if [os.path.splitext(f)[0] for f in snapshots] != [os.path.splitext(f)[0] for f in want]:
        failures.append(f"{name}: flow.pvd lists {snapshots}, the serial run {want}")
        return
    for label, f, serial_file in [("final", final, "flow.vtu")] + [(s, os.path.join(out, s), w) for s, w in zip(snapshots, want)]:
        if f.endswith(".pvtu"):
            cells, nodes, failure = read_pieces(f, ranks)
        elif pieces and label != "final":
            failure = f"{f}: a gathered snapshot, expected pieces"
        else:
            cells, nodes, failure = read_fields([f])
        if failure:
            failures.append(f"{name}, {label}: {failure}")
            continue
        cells0, nodes0, _ = read_fields([os.path.join(serial_out, serial_file)])
        compare(f"{name}, {label}", (cells, nodes), (cells0, nodes0), tol, failures)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("streamsolve"), ap.add_argument("mpiexec"), ap.add_argument("case"), ap.add_argument("outdir")
    ap.add_argument("--backend", default="cpu"), ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--launch", help="the GPU launch path of every run (fragment, compute)")
    ap.add_argument("--tol", type=float, default=1e-5), ap.add_argument("--refine", type=int)
    # The MPI_Allreduce calls of each rank over the run, per CG iteration (momentum and pressure):
    # the single-sync CG makes one a iteration, plus a few a solve and a step.
    ap.add_argument("--max-allreduces-per-iteration", type=float)
    ap.add_argument("--max-round-trips-per-step", type=float)
    ap.add_argument("--momentum-iterations-ratio", type=float)
    a = ap.parse_args()
    exe = [a.streamsolve] + (["--launch", a.launch] if a.launch else [])
    shutil.rmtree(a.outdir, ignore_errors=True)
    common = ["flow", a.case, "--backend", a.backend] + ([] if a.refine is None else ["--refine", str(a.refine)])
    other_refine = ["flow", a.case, "--backend", a.backend, "--refine", str((a.refine or 0) + 1)]
    serial_out = os.path.join(a.outdir, "serial")
    run(exe + common + ["--no-png", "--out", serial_out])
    serial = json.load(open(os.path.join(serial_out, "flow.json")))
    failures = []
    ranks = [int(n) for n in a.ranks.split(",")]
    for n in ranks:
        out = os.path.join(a.outdir, f"ranks{n}")
        pieces = n != ranks[-1]  # the last rank count gathers one VTU; the others write pieces
        png = n == ranks[0]
        run(mpiexec_prefix(a.mpiexec, n) + exe + common + ["--distributed", "--out", out] +
            ([] if pieces else ["--single-vtu"]) + ([] if png else ["--no-png"]))
        j = json.load(open(os.path.join(out, "flow.json")))
        if png and open(os.path.join(out, "flow.png"), "rb").read(8) != b"\x89PNG\r\n\x1a\n":
            failures.append(f"{n} ranks: flow.png is not a PNG")
        for key in ("nodes", "cells", "faces", "boundary_faces"):
            if j["mesh"][key] != serial["mesh"][key]:
                failures.append(f"{n} ranks: flow.json mesh {key} {j['mesh'][key]}, serial {serial['mesh'][key]}")
        compare_forces(f"{n} ranks", os.path.join(out, "forces.csv"), os.path.join(serial_out, "forces.csv"), a.tol,
                       failures)
        compare_probes(f"{n} ranks", out, serial_out, serial, a.tol, failures)
        compare_heat(f"{n} ranks", out, serial_out, serial, a.tol, failures)
        if j.get("ranks") != n or len(j.get("per_rank", [])) != n:
            failures.append(f"{n} ranks: flow.json says ranks {j.get('ranks')}")
        elif not all(r["setup_seconds"] > 0 and r["peak_host_memory_bytes"] > (1 << 20) for r in j["per_rank"]):
            failures.append(f"{n} ranks: per-rank setup_seconds / peak_host_memory_bytes missing or not positive")
        elif [r["rank"] for r in j["per_rank"]] != list(range(n)) or not all(r["device"] for r in j["per_rank"]):
            failures.append(f"{n} ranks: per_rank lacks a rank or a device: {j['per_rank']}")
        elif sum(r["owned_cells"] for r in j["per_rank"]) != serial["mesh"]["cells"]:
            failures.append(f"{n} ranks: the ranks own {sum(r['owned_cells'] for r in j['per_rank'])} cells, "
                            f"the mesh has {serial['mesh']['cells']}")
        # Every pressure CG iteration's operator overlaps its halo exchange with its own pass
        # (DistributedBackend::overlapped_update), and so do the curl–curl term's matrices. With the
        # pressure multigrid over the ranks the CG's products make no exchange (the V-cycle gives
        # their inputs' ghosts: PressureProjection::owned_products); the other operators still overlap.
        multigrid_over_ranks = serial["solver"]["pressure"].get("preconditioner") == "multigrid" and (a.refine or 0) >= 1
        overlapped_at_least = j["steps_this_run"] * (1 if multigrid_over_ranks else j["iterations"]["pressure"]["mean"])
        # The pressure smoother's degree over the ranks: the case's, else 3 (2 serially).
        if multigrid_over_ranks:
            with open(a.case, "rb") as f:
                case_degree = tomllib.load(f).get("solver", {}).get("pressure", {}).get("smoother_degree")
            expected_degree = case_degree or 3
            if j["solver"]["pressure"].get("smoother_degree") != expected_degree:
                failures.append(f"{n} ranks: pressure smoother_degree {j['solver']['pressure'].get('smoother_degree')}, "
                                f"expected {expected_degree}")
        for r in j.get("per_rank", []):
            overlapped, trips = r.get("halo_overlapped_exchanges", -1), r.get("halo_exchanges", 0)
            if not overlapped_at_least <= overlapped <= trips:
                failures.append(f"{n} ranks: rank {r['rank']} overlapped {overlapped} of {trips} halo round trips "
                                f"(at least {overlapped_at_least:.0f}: "
                                f"{'one a step' if multigrid_over_ranks else 'the pressure operator applications'})")
        if j.get("per_rank"):
            r = j["per_rank"][0]
            print(f"{n} ranks: {r.get('halo_overlapped_exchanges')} of {r.get('halo_exchanges')} halo round trips "
                  f"overlapped with their operator's pass")
        # A reduction that rides inside a halo update waits with it (solver/cg.hpp's halo_last): the
        # pressure CG's every iteration, the momentum CG's with Jacobi (its product's halo); not
        # pipelined CG's (deferred instead), nor on one rank, whose operators may skip the exchange.
        def rides(solve):
            return j["solver"][solve].get("variant") in ("textbook", "single_sync")
        momentum_rides = rides("momentum") and j["solver"]["momentum"].get("preconditioner") == "jacobi"
        riding_at_least = 0 if n < 2 else j["steps_this_run"] * (
            (j["iterations"]["pressure"]["mean"] if rides("pressure") else 0) +
            (j["iterations"]["momentum"]["mean"] if momentum_rides else 0))
        if j.get("per_rank"):
            print(f"{n} ranks: {j['per_rank'][0].get('reductions_in_halo_updates')} reductions rode inside halo updates "
                  f"(at least {riding_at_least:.0f})")
        for r in j.get("per_rank", []):
            riding = r.get("reductions_in_halo_updates", -1)
            if riding < riding_at_least - 1e-6:
                failures.append(f"{n} ranks: rank {r['rank']} queued {riding} reductions inside halo updates "
                                f"(at least {riding_at_least:.0f}: every pressure CG iteration's"
                                f"{' and momentum CG iteration' + chr(39) + 's' if momentum_rides else ''})")
        if a.max_allreduces_per_iteration:
            iterations = j["steps"] * (j["iterations"]["momentum"]["mean"] + j["iterations"]["pressure"]["mean"])
            per_iteration = max(r["allreduces"] for r in j["per_rank"]) / iterations
            print(f"{n} ranks: {per_iteration:.3f} MPI_Allreduce calls per CG iteration")
            if per_iteration > a.max_allreduces_per_iteration:
                failures.append(f"{n} ranks: {per_iteration:.3f} MPI_Allreduce calls per CG iteration "
                                f"(> {a.max_allreduces_per_iteration})")
        if a.max_round_trips_per_step:
            per_step = max(r["halo_exchanges"] + r.get("pressure_multigrid_coarser_halo_exchanges", 0)
                           for r in j["per_rank"]) / max(j["steps_this_run"], 1)
            print(f"{n} ranks: {per_step:.1f} halo round trips per step")
            if per_step > a.max_round_trips_per_step:
                failures.append(f"{n} ranks: {per_step:.1f} halo round trips per step (> {a.max_round_trips_per_step})")
        without_degree = lambda solver: {k: v for k, v in solver.items() if k != "smoother_degree"}  # checked above
        if without_degree(j["solver"]["pressure"]) != without_degree(serial["solver"]["pressure"]):
            failures.append(f"{n} ranks: pressure solver {j['solver']['pressure']} != serial {serial['solver']['pressure']}")
        for solve in [k for k in ("momentum", "pressure", "streamfunction") if k in serial["iterations"]]:
            for key in ("mean", "max", "last", "fall_backs"):
                got, want = j["iterations"][solve][key], serial["iterations"][solve][key]
                if solve == "momentum" and a.momentum_iterations_ratio and n > 1:
                    if not want / a.momentum_iterations_ratio <= got <= a.momentum_iterations_ratio * want:
                        failures.append(f"{n} ranks: {solve} iterations ({key}) {got}, outside [1/R, R] x serial {want} "
                                        f"(R = {a.momentum_iterations_ratio})")
                elif abs(got - want) > 2:
                    failures.append(f"{n} ranks: {solve} iterations ({key}) {got} vs serial {want}")
        if serial["solver"]["pressure"].get("preconditioner") == "multigrid" and (a.refine or 0) >= 1:
            levels = [r.get("pressure_multigrid_levels", 0) for r in j["per_rank"]]
            print(f"{n} ranks: pressure iterations {j['iterations']['pressure']}, multigrid levels {levels}")
            if min(levels) < 2:
                failures.append(f"{n} ranks: pressure multigrid levels per rank {levels} (at least 2 expected)")
        check_output(f"{n} ranks", out, serial_out, n, pieces, a.tol, failures)

    # Restart across rank counts: drop the last checkpoint of the last run, continue on 2 ranks.
    last = os.path.join(a.outdir, f"ranks{ranks[-1]}")
    restart = os.path.join(a.outdir, "restart")
    shutil.copytree(last, restart)
    states = sorted(glob.glob(os.path.join(restart, "flow_*.state")))
    if len(states) < 2:
        failures.append(f"{last}: {len(states)} checkpoints; the case must write at least two")
    else:
        os.remove(states[-1])
        run(mpiexec_prefix(a.mpiexec, 2) + exe + common + ["--no-png", "--restart", "--out", restart])
        j = json.load(open(os.path.join(restart, "flow.json")))
        if j["steps"] != serial["steps"] or j["restarted_from"] is None:
            failures.append(f"restart: {j['steps']} steps from {j['restarted_from']}; serial {serial['steps']}")
        if os.path.exists(os.path.join(restart, "flow.vtu")):
            failures.append("restart: the continued run's flow.vtu is still there beside the new flow.pvtu")
        cells, nodes, failure = read_pieces(os.path.join(restart, "flow.pvtu"), 2)
        if failure:
            failures.append(f"restart: {failure}")
        else:
            compare("restart on 2 ranks", (cells, nodes), read_fields([os.path.join(serial_out, "flow.vtu")])[:2],
                    a.tol, failures)
        compare_forces("restart on 2 ranks", os.path.join(restart, "forces.csv"), os.path.join(serial_out, "forces.csv"),
                       a.tol, failures)
        compare_probes("restart on 2 ranks", restart, serial_out, serial, a.tol, failures)
        compare_heat("restart on 2 ranks", restart, serial_out, serial, a.tol, failures)

    # A case mistake under mpiexec is the serial error, and the previous run's folder stays as it was.
    bad_case = os.path.join(a.outdir, "unknown_group.toml")
    case_dir = os.path.dirname(os.path.abspath(a.case))
    text = open(a.case).read().replace('group = "', 'group = "no_such_group_', 1)
    open(bad_case, "w").write(text.replace('file = "../../', 'file = "' + os.path.join(case_dir, "../../")))
    bad_probe = os.path.join(a.outdir, "probe_outside.toml")
    text = open(a.case).read().replace('file = "../../', 'file = "' + os.path.join(case_dir, "../../"))
    open(bad_probe, "w").write(text + '\n[[probe]]\nname = "outside"\npoints = [[1000.0, 0.5, 0.5]]\n')
    # The ids of a checkpoint: a serial run's mesh, or an MPI run's pieces; the other kind is refused.
    for kind, source, cmd, message in [
            ("bad case", last, mpiexec_prefix(a.mpiexec, 2) + exe + ["flow", bad_case, "--backend", a.backend],
             "unknown boundary group"),
            ("bad probe", last, mpiexec_prefix(a.mpiexec, 2) + exe + ["flow", bad_probe, "--backend", a.backend],
             "probe 'outside': point 0 (1000, 0.5, 0.5) is outside the mesh"),
            ("mpi", last, exe + common + ["--restart"], "written by a run over MPI ranks"),
            ("serial", serial_out, mpiexec_prefix(a.mpiexec, 2) + exe + common + ["--restart"],
             "written by a serial run"),
            # A checkpoint of another refinement level: refused before the folder changes, both ways.
            ("serial other refine", serial_out, exe + other_refine + ["--restart"],
             "(another mesh or --refine?)"),
            ("mpi other refine", last, mpiexec_prefix(a.mpiexec, 2) + exe + other_refine + ["--restart"],
             "(another mesh or --refine?)")]:
        other = os.path.join(a.outdir, f"refused_{kind.replace(' ', '_')}")
        shutil.copytree(source, other)
        before = folder_contents(other)
        refused(cmd + ["--no-png", "--out", other], message, failures)
        after = folder_contents(other)
        if after != before:
            failures.append(f"the refused run ({kind}) changed the folder it was given: "
                            f"{sorted(set(before) ^ set(after)) or 'contents'}")
    if failures:
        sys.exit("FAILED:\n  " + "\n  ".join(failures))
    print("OK")


if __name__ == "__main__":
    main()
