#!/usr/bin/python3
"""DFG 3D-3Z (meshes/dfg_3d3z_flow.toml) against FeatFlow's finest-level drag and lift series.

  tools/dfg_unsteady.py OUT_DIR [--reference CSV] [--group cylinder] [--json OUT.json] [--png OUT.png]
                        [--also OUT_DIR2 ...] [--labels A,B,...]

OUT_DIR is a `streamsolve flow` output folder with forces.csv (the [[force]] group's cx, cy per output
step) and probes/dp.csv (the pressures at the cylinder's front and back). The reference is
../shared/validation/unsteady/dfg3d_3z_featflow_L4_drag_lift.csv beside the repository, read in place.

Prints JSON: for ours and the reference, c_D max and its time, c_L max and min and their times (each
peak refined by the parabola through the sample and its two neighbours); ours against the reference:
the relative difference of c_D max, the time differences, and the RMS of c_D(t) − c_D,ref(t) over the
reference's times inside our run; and our Δp(t) = p(front) − p(back) maximum and its time (the
reference file has no Δp). --png draws c_D(t), c_L(t) and Δp(t) over the reference (needs
python3-matplotlib); --also adds further runs' c_D, c_L and Δp to the plot (--labels names every run
in order, default the folders' names).
"""
import argparse
import csv
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "..", "shared", "validation", "unsteady", "dfg3d_3z_featflow_L4_drag_lift.csv")


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def peak(times, values, sign=1.0):
    """(value, time) of the largest sign·value, refined by the parabola through it and its neighbours."""
    k = max(range(len(values)), key=lambda i: sign * values[i])
    if 0 < k < len(values) - 1:
        (t0, t1, t2), (v0, v1, v2) = times[k - 1:k + 2], values[k - 1:k + 2]
        denominator = (t0 - t1) * (t0 - t2) * (t1 - t2)
        a = (t2 * (v1 - v0) + t1 * (v0 - v2) + t0 * (v2 - v1)) / denominator
        b = (t2 * t2 * (v0 - v1) + t1 * t1 * (v2 - v0) + t0 * t0 * (v1 - v2)) / denominator
        if a * sign < 0:
            t = -b / (2 * a)
            if t0 <= t <= t2:
                c = v1 - a * t1 * t1 - b * t1
                return a * t * t + b * t + c, t
    return values[k], times[k]


def interpolate(times, values, t):
    lo, hi = 0, len(times) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if times[mid] <= t:
            lo = mid
        else:
            hi = mid
    w = (t - times[lo]) / (times[hi] - times[lo])
    return (1 - w) * values[lo] + w * values[hi]


def extremes(times, drag, lift):
    d, td = peak(times, drag)
    lmax, tlmax = peak(times, lift)
    lmin, tlmin = peak(times, lift, -1.0)
    return {"c_D_max": d, "t_c_D_max": td, "c_L_max": lmax, "t_c_L_max": tlmax, "c_L_min": lmin, "t_c_L_min": tlmin}


def read_run(folder, group):
    """(times, c_D, c_L, Δp times, Δp) of one output folder (Δp empty without probes/dp.csv)."""
    forces_path = os.path.join(folder, "forces.csv")
    if not os.path.exists(forces_path):
        sys.exit(f"dfg_unsteady.py: {forces_path} does not exist (a run with the [[force]] group '{group}')")
    rows = [r for r in read_rows(forces_path) if r["group"] == group and r["cx"] != ""]
    if len(rows) < 3:
        sys.exit(f"dfg_unsteady.py: {forces_path} has {len(rows)} rows of group '{group}' with coefficients")
    times = [float(r["time"]) for r in rows]
    drag, lift = [float(r["cx"]) for r in rows], [float(r["cy"]) for r in rows]
    probe_path = os.path.join(folder, "probes", "dp.csv")
    dp_t, dp = [], []
    if os.path.exists(probe_path):
        probe = read_rows(probe_path)
        front, back = (next(k for k in probe[0] if k.startswith(f"pressure@{i}")) for i in (0, 1))
        dp_t = [float(r["time"]) for r in probe]
        dp = [float(r[front]) - float(r[back]) for r in probe]
    return times, drag, lift, dp_t, dp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the flow run's output folder")
    parser.add_argument("--reference", default=REFERENCE)
    parser.add_argument("--group", default="cylinder")
    parser.add_argument("--json", default=None)
    parser.add_argument("--png", default=None)
    parser.add_argument("--also", nargs="*", default=[], help="further output folders, plotted only")
    parser.add_argument("--labels", default=None, help="comma-separated legend labels of OUT_DIR and --also")
    args = parser.parse_args()

    if not os.path.exists(args.reference):
        sys.exit(f"dfg_unsteady.py: the reference {args.reference} does not exist")
    runs = [read_run(folder, args.group) for folder in [args.out] + args.also]
    times, drag, lift, dp_t, dp = runs[0]
    reference = read_rows(args.reference)
    ref_t = [float(r["t"]) for r in reference]
    ref_d, ref_l = [float(r["c_D"]) for r in reference], [float(r["c_L"]) for r in reference]

    ours, ref = extremes(times, drag, lift), extremes(ref_t, ref_d, ref_l)
    inside = [k for k, t in enumerate(ref_t) if times[0] <= t <= times[-1]]
    rms = math.sqrt(sum((interpolate(times, drag, ref_t[k]) - ref_d[k]) ** 2 for k in inside) / max(len(inside), 1))
    report = {"ours": ours, "reference": ref, "end_time": times[-1],
              "c_D_max_relative_difference": ours["c_D_max"] / ref["c_D_max"] - 1,
              "t_c_D_max_difference": ours["t_c_D_max"] - ref["t_c_D_max"],
              "t_c_L_max_difference": ours["t_c_L_max"] - ref["t_c_L_max"],
              "t_c_L_min_difference": ours["t_c_L_min"] - ref["t_c_L_min"],
              "c_D_rms_difference": rms}
    if dp:
        value, t = peak(dp_t, dp)
        report["delta_p_max"], report["t_delta_p_max"] = value, t
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    if args.png:
        plot(args, runs, ref_t, ref_d, ref_l, ours, ref)


def plot(args, runs, ref_t, ref_d, ref_l, ours, ref):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    folders = [args.out] + args.also
    labels = args.labels.split(",") if args.labels else [os.path.basename(os.path.normpath(f)) for f in folders]
    if len(labels) != len(folders):
        sys.exit(f"dfg_unsteady.py: --labels names {len(labels)} runs, there are {len(folders)}")
    with_dp = any(run[4] for run in runs)
    fig, axes = plt.subplots(3 if with_dp else 2, 1, figsize=(7, 7.8 if with_dp else 5.2), sharex=True)
    axes[0].plot(ref_t, ref_d, "k-", lw=1.2, label="FeatFlow level 4 (Bayraktar et al. 2012)")
    axes[1].plot(ref_t, ref_l, "k-", lw=1.2)
    for k, ((times, drag, lift, dp_t, dp), label) in enumerate(zip(runs, labels)):
        style = dict(color=f"C{3 + k}", ls="--", lw=1.2)
        axes[0].plot(times, drag, label=label, **style)
        axes[1].plot(times, lift, **style)
        if with_dp and dp:
            axes[2].plot(dp_t, dp, **style)
    for ax, name in zip(axes, ("c_D", "c_L", "Δp (no reference)")):
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", fontsize=8)
    axes[-1].set_xlabel("t")
    fig.suptitle("DFG 3D-3Z, %s:\nc_D max %.4f (ref %.4f) at t = %.2f (ref %.2f)"
                 % (labels[0], ours["c_D_max"], ref["c_D_max"], ours["t_c_D_max"], ref["t_c_D_max"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
