#!/usr/bin/env python3
"""What N GPUs could reach if their messages cost nothing: one GPU running a rank's share of the cells.

  tools/rank_share.py FULL N=SHARE... [--iterations N=RUN ...] [--json FILE]

FULL and each SHARE are one-rank runs of tools/scaling.sh (`--ranks 1 --out DIR`; give DIR): FULL on
the whole mesh, SHARE on a mesh of about 1/N of its cells (docs/performance.md, "One GPU at a rank's
share", names the meshes). For each run an iteration's time is its solve's share of flow.json's
`seconds_per_step` (all steps) applied to the step after the first (the progress lines' clock):

    ms a momentum iteration = t_after_first * (momentum s / components s) / momentum iterations

and likewise a pressure iteration; "rest" is the other components (convection, projection,
diagnostics, streamfunction). The ceiling of N GPUs is the SHARE run's step at the iterations the
whole mesh takes over N ranks — `--iterations N=RUN` (a flow.json, or a scaling.sh run directory
with flow_N/) gives them, else FULL's own:

    t_N = m_N * ms_momentum + p_N * ms_pressure + rest,      speed-up = t_FULL / t_N

Prints a table and writes the figures as JSON (--json).
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flow_runs import after_first  # noqa: E402

SOLVES = ("momentum", "pressure")


def fail(message):
    print(f"rank_share.py: {message}", file=sys.stderr)
    sys.exit(2)


def flow_json(path, ranks):
    """A flow.json given itself or as the scaling.sh directory that holds flow_<ranks>/flow.json."""
    candidate = os.path.join(path, f"flow_{ranks}", "flow.json") if os.path.isdir(path) else path
    if not os.path.isfile(candidate):
        fail(f"{candidate}: no such flow.json")
    try:
        with open(candidate) as f:
            return candidate, json.load(f)
    except json.JSONDecodeError as e:
        fail(f"{candidate}: not JSON ({e})")


def iteration_costs(path):
    """Seconds a step after the first, and what a momentum and a pressure iteration and the rest cost."""
    file, run = flow_json(path, 1)
    if run.get("ranks") != 1:
        fail(f"{file}: a run on {run.get('ranks')} ranks, not on one")
    step = after_first(file)
    if not math.isfinite(step):
        fail(f"{os.path.dirname(file)}.log: fewer than two progress lines")
    parts = run["seconds_per_step"]
    components = {k: v for k, v in parts.items() if k not in ("total", "output")}
    scale = step / sum(components.values())
    costs = {"cells": run["mesh"]["cells"], "seconds_per_step": step, "rest_seconds": 0.0}
    for solve in SOLVES:
        iterations = run["iterations"][solve]["mean"]
        if iterations <= 0:
            fail(f"{file}: no {solve} iterations")
        costs[f"{solve}_iterations"] = iterations
        costs[f"{solve}_seconds_per_iteration"] = scale * components[solve] / iterations
    costs["rest_seconds"] = scale * sum(v for k, v in components.items() if k not in SOLVES)
    return costs


def ranks_and_path(text, flag):
    ranks, sep, path = text.partition("=")
    if not sep or not ranks.isdigit() or int(ranks) < 2:
        fail(f"{flag} '{text}': expected N=PATH with N >= 2")
    return int(ranks), path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("full", help="scaling.sh --ranks 1 output directory (or flow.json) of the whole mesh")
    parser.add_argument("shares", nargs="+", metavar="N=SHARE", help="one-rank run at about 1/N of the cells")
    parser.add_argument("--iterations", action="append", default=[], metavar="N=RUN",
                        help="the whole mesh's run over N ranks, whose iterations a step the ceiling takes")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    full = iteration_costs(args.full)
    over_ranks = {}
    for text in args.iterations:
        n, path = ranks_and_path(text, "--iterations")
        file, run = flow_json(path, n)
        if run.get("ranks") != n:
            fail(f"{file}: a run on {run.get('ranks')} ranks, not on {n}")
        over_ranks[n] = {solve: run["iterations"][solve]["mean"] for solve in SOLVES}
    rows = []
    for text in args.shares:
        n, path = ranks_and_path(text, "share")
        share = iteration_costs(path)
        iterations = over_ranks.get(n, {solve: full[f"{solve}_iterations"] for solve in SOLVES})
        ceiling = share["rest_seconds"] + sum(iterations[s] * share[f"{s}_seconds_per_iteration"] for s in SOLVES)
        rows.append({"gpus": n, "share": share, "iterations": iterations, "ceiling_seconds_per_step": ceiling,
                     "ceiling_speed_up": full["seconds_per_step"] / ceiling})

    print(f"{'GPUs':>4} {'cells':>10} {'s/step':>7} {'ms/mom it':>9} {'ms/p it':>8} {'rest ms':>8} "
          f"{'mom it':>7} {'p it':>6} {'ceiling s':>9} {'speed-up':>8}")
    r = full
    print(f"{1:>4} {r['cells']:>10} {r['seconds_per_step']:>7.3f} {1e3 * r['momentum_seconds_per_iteration']:>9.2f} "
          f"{1e3 * r['pressure_seconds_per_iteration']:>8.2f} {1e3 * r['rest_seconds']:>8.1f} {r['momentum_iterations']:>7.1f} "
          f"{r['pressure_iterations']:>6.2f} {r['seconds_per_step']:>9.3f} {1:>8.2f}")
    for row in rows:
        r, it = row["share"], row["iterations"]
        print(f"{row['gpus']:>4} {r['cells']:>10} {r['seconds_per_step']:>7.3f} {1e3 * r['momentum_seconds_per_iteration']:>9.2f} "
              f"{1e3 * r['pressure_seconds_per_iteration']:>8.2f} {1e3 * r['rest_seconds']:>8.1f} {it['momentum']:>7.1f} "
              f"{it['pressure']:>6.2f} {row['ceiling_seconds_per_step']:>9.3f} {row['ceiling_speed_up']:>8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"full": full, "shares": rows}, f, indent=1)


if __name__ == "__main__":
    main()
