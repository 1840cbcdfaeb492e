#!/usr/bin/python3
"""Ethier & Steinman's exact unsteady 3D Navier-Stokes flow (1994) on meshes/cube.msh: convergence rates.

Runs `streamsolve flow` on the unit cube with the exact velocity on every boundary face and as the
initial field (a = pi/4, d = pi/2, nu = 1, Crank-Nicolson viscous term), to t = 0.1, and reads the cell
velocity error against the exact solution from flow.json (`exact.velocity_l2_error`, from the case's
[exact] table). Two sweeps:
  space: refine 0..R with dt halved with h  (the combined rate in h with dt ~ h)
  time:  one mesh (--time-level) with dt = dt0/2^k, k = 0..3  (the error left when dt shrinks: the spatial floor shows)
and prints a table, the observed rates log2(e_k / e_k+1), and writes JSON.

  tools/ethier_steinman.py [--exe build/streamsolve] [--levels 2] [--backend gpu|cpu]
                           [--launch compute] [--out DIR] [--json FILE]
"""
import argparse
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
A, D, NU = math.pi / 4, math.pi / 2, 1.0


def component(p, q, r):
    """One velocity component of the exact solution, as a muParser expression in x, y, z, t."""
    return (f"-{A!r}*(exp({A!r}*{p})*sin({A!r}*{q}+{D!r}*{r})+exp({A!r}*{r})*cos({A!r}*{p}+{D!r}*{q}))"
            f"*exp(-{NU * D * D!r}*t)")


VELOCITY = "[\"%s\", \"%s\", \"%s\"]" % (component("x", "y", "z"), component("y", "z", "x"), component("z", "x", "y"))


def case_text(refine, dt, end_time, out):
    boundaries = "".join(f"[[boundary]]\ngroup = \"{g}\"\ntype = \"velocity\"\nvelocity = {VELOCITY}\n\n"
                         for g in ("left", "right", "front", "back", "bottom", "top"))
    return f"""# Ethier-Steinman (written by tools/ethier_steinman.py)
[mesh]
file = "{ROOT}/meshes/cube.msh"
refine = {refine}

[fluid]
viscosity = {NU}

{boundaries}[initial]
velocity = {VELOCITY}

[exact]
velocity = {VELOCITY}

[time]
dt = {dt}
end_time = {end_time}

[scheme]
theta = 0.5

[output]
directory = "{out}"
every = 100000
"""


def run(args, refine, dt):
    name = f"r{refine}_dt{dt:g}"
    folder = os.path.join(args.out, name)
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.toml")
    with open(case, "w") as f:
        f.write(case_text(refine, dt, 0.1, os.path.join(folder, "out")))
    summary = os.path.join(folder, "flow.json")
    command = [args.exe, "flow", case, "--backend", args.backend, "--no-png", "--json", summary]
    if args.backend == "gpu":
        command += ["--launch", args.launch]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"ethier_steinman.py: {name} failed:\n{result.stderr[-2000:]}")
    with open(summary) as f:
        s = json.load(f)
    row = {"refine": refine, "cells": s["mesh"]["cells"], "dt": dt, "steps": s["steps"],
           "l2_error": s["exact"]["velocity_l2_error"], "max_error": s["exact"]["velocity_max_error"],
           "seconds_per_step": s["seconds_per_step"]["total"],
           "momentum_iterations": s["iterations"]["momentum"]["mean"],
           "pressure_iterations": s["iterations"]["pressure"]["mean"]}
    print(f"  refine {refine} ({row['cells']:>8} cells) dt {dt:<9g} L2 {row['l2_error']:.4e}  max {row['max_error']:.4e}"
          f"  {row['seconds_per_step']:.4f} s/step", flush=True)
    return row


def rates(rows):
    return [math.log2(a["l2_error"] / b["l2_error"]) for a, b in zip(rows, rows[1:])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "streamsolve"))
    parser.add_argument("--levels", type=int, default=2, help="finest refine level (default 2)")
    parser.add_argument("--dt0", type=float, default=0.02, help="dt on refine 0 (default 0.02)")
    parser.add_argument("--time-level", type=int, default=None,
                        help="refine level of the time sweep (default: the finest, at most 2; explicit convection "
                             "needs dt0 * |u| / h < 1 there)")
    parser.add_argument("--backend", default="gpu", choices=["gpu", "cpu"])
    parser.add_argument("--launch", default="compute", choices=["fragment", "compute"])
    parser.add_argument("--out", default="ethier_steinman_runs")
    parser.add_argument("--json", default="ethier_steinman.json")
    args = parser.parse_args()

    print("space (dt halved with h):")
    space = [run(args, r, args.dt0 / 2 ** r) for r in range(args.levels + 1)]
    print("  rates:", " ".join(f"{x:.2f}" for x in rates(space)))
    level = min(args.levels, 2) if args.time_level is None else args.time_level
    print(f"time (refine {level}):")
    time = [run(args, level, args.dt0 / 2 ** k) for k in range(0, 4)]
    print("  rates:", " ".join(f"{x:.2f}" for x in rates(time)))
    report = {"problem": "Ethier-Steinman, a = pi/4, d = pi/2, nu = 1, unit cube, t = 0.1, theta = 0.5",
              "backend": args.backend, "launch": args.launch if args.backend == "gpu" else None,
              "space": space, "space_rates": rates(space), "time": time, "time_rates": rates(time)}
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    print("wrote", args.json)


if __name__ == "__main__":
    main()
