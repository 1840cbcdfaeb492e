#!/usr/bin/python3
"""The Taylor–Green vortex at Re 1600 (meshes/taylor_green_flow.toml) against the 512³ spectral reference.

  tools/taylor_green.py OUT_DIR [--reference CSV] [--volume V] [--json OUT.json] [--png OUT.png]
                        [--also OUT_DIR2 ...] [--labels A,B,...]

OUT_DIR is a `streamsolve flow` output folder with energy.csv (the kinetic energy after every step).
E = ½ Σ_c V_c |u_c|² / V (the cell velocities' energy: ∫ |u|²/2 of the discretely divergence-free
field; V = (2π)³, the box [−π, π]³), the dissipation rate ε = −dE/dt by central differences on the
steps' times (one-sided at the ends). --energy faces takes the scheme's ½ Σ H_f U_f² instead (its
diagonal face mass H overweights the energy by the tets' shape: 11 % on the sample mesh). The reference is
../shared/validation/unsteady/tgv_re1600_spectral512_reference.csv beside the repository, read in place.

Prints JSON: ours and the reference's peak ε and its time (refined by the parabola through the sample
and its neighbours), the relative difference of the peak and the time difference, E at the first
step, the RMS of ε(t) − ε_ref(t) over the reference's times inside our run, and our run's last time.
--png draws E(t) and ε(t) over the reference (needs python3-matplotlib); --also adds further runs to
the plot (--labels names every run in order, default the folders' names).
"""
import argparse
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dfg_unsteady import interpolate, peak  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "..", "shared", "validation", "unsteady", "tgv_re1600_spectral512_reference.csv")


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def dissipation(times, energy):
    """−dE/dt at every sample: central differences on uneven steps, one-sided at the ends."""
    n = len(times)
    rate = []
    for k in range(n):
        lo, hi = max(k - 1, 0), min(k + 1, n - 1)
        rate.append(-(energy[hi] - energy[lo]) / (times[hi] - times[lo]))
    return rate


def read_run(folder, volume, column):
    path = os.path.join(folder, "energy.csv")
    if not os.path.isfile(path):
        sys.exit(f"taylor_green.py: {path} not found (a streamsolve flow output folder has energy.csv)")
    rows = read_rows(path)
    if len(rows) < 3:
        sys.exit(f"taylor_green.py: {path} has {len(rows)} steps; at least 3 are needed for −dE/dt")
    times = [float(r["time"]) for r in rows]
    energy = [float(r[column]) / volume for r in rows]
    return times, energy, dissipation(times, energy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the flow run's output folder")
    parser.add_argument("--reference", default=REFERENCE)
    parser.add_argument("--volume", type=float, default=(2 * math.pi) ** 3, help="the domain's volume (default (2π)³)")
    parser.add_argument("--energy", choices=["cells", "faces"], default="cells",
                        help="cells: ½ Σ V_c |u_c|² (default); faces: the scheme's ½ Σ H_f U_f²")
    parser.add_argument("--json", default=None)
    parser.add_argument("--png", default=None)
    parser.add_argument("--also", nargs="*", default=[], help="further output folders, plotted only")
    parser.add_argument("--labels", default=None, help="comma-separated legend labels of OUT_DIR and --also")
    args = parser.parse_args()
    if not os.path.isfile(args.reference):
        sys.exit(f"taylor_green.py: reference {args.reference} not found")
    ref = read_rows(args.reference)
    ref_t = [float(r["t"]) for r in ref]
    ref_e = [float(r["E"]) for r in ref]
    ref_eps = [float(r["eps_minus_dEdt"]) for r in ref]
    column = "cell_kinetic_energy" if args.energy == "cells" else "kinetic_energy"
    runs = [(folder, *read_run(folder, args.volume, column)) for folder in [args.out] + args.also]
    _, times, energy, eps = runs[0]
    ours_peak, ours_time = peak(times, eps)
    ref_peak, ref_time = peak(ref_t, ref_eps)
    inside = [k for k, t in enumerate(ref_t) if times[0] <= t <= times[-1]]
    rms = math.sqrt(sum((interpolate(times, eps, ref_t[k]) - ref_eps[k]) ** 2 for k in inside) / len(inside)) if inside else None
    result = {
        "ours": {"peak_dissipation": ours_peak, "peak_time": ours_time, "first_energy": energy[0],
                 "first_time": times[0], "last_time": times[-1], "steps": len(times)},
        "reference": {"peak_dissipation": ref_peak, "peak_time": ref_time, "energy_at_0": ref_e[0]},
        "peak_dissipation_relative_difference": ours_peak / ref_peak - 1,
        "peak_time_difference": ours_time - ref_time,
        "dissipation_rms_difference": rms,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    if args.png:
        plot(args, runs, ref_t, ref_e, ref_eps)


def plot(args, runs, ref_t, ref_e, ref_eps):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = args.labels.split(",") if args.labels else [os.path.basename(os.path.normpath(r[0])) for r in runs]
    if len(labels) != len(runs):
        sys.exit(f"taylor_green.py: --labels names {len(labels)} runs, there are {len(runs)}")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    top.plot(ref_t, ref_e, "k-", lw=2, label="spectral 512³ (reference)")
    bottom.plot(ref_t, ref_eps, "k-", lw=2, label="spectral 512³ (reference)")
    for (folder, times, energy, eps), label in zip(runs, labels):
        top.plot(times, energy, label=label)
        bottom.plot(times, eps, label=label)
    top.set_ylabel("E = (1/|Ω|) ∫ |u|²/2")
    bottom.set_ylabel("ε = −dE/dt")
    bottom.set_xlabel("t")
    top.set_title("Taylor–Green vortex, Re 1600")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    last = max(r[1][-1] for r in runs)
    bottom.set_xlim(0, max(last, 1.0))
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)


if __name__ == "__main__":
    main()
