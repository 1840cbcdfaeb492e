#!/usr/bin/python3
"""Flow against exact solutions: runs `streamsolve flow` on refined project meshes, by each method, and
tables the cell-velocity error that flow.json reports from the case's [exact] table.

Cases:
  ethier-steinman  Ethier & Steinman's unsteady 3D Navier-Stokes solution (1994), a = pi/4, d = pi/2, nu = 1 (--viscosity),
                   on meshes/cube.msh; the exact velocity on every boundary face and at t = 0, to t = 0.1 with
                   dt = dt0 / 2^refine (dt ~ h).
  duct             Developed laminar flow in the rectangular duct meshes/duct.msh (4 x 1 x 0.5) between two
                   pressures (gradient 1, nu = 1), from rest to its steady state (t = 0.4, dt = 0.02: the slowest
                   transient has decayed to 1e-6); exact: the series of White, Viscous Fluid Flow, 3-48.

  tools/flow_convergence.py --case ethier-steinman|duct [--refine 0,1,2] [--methods classical,exact]
                            [--exe build/streamsolve] [--backend gpu|cpu] [--launch compute|fragment]
                            [--end-time T] [--tolerance TOL] [--streamfunction-tolerance TOL] [--time-level K]
                            [--time-stepping crank_nicolson|theta] [--theta THETA] [--viscosity NU] [--out DIR] [--json FILE]

Prints one line per run and the observed rates log2(e_k / e_k+1) per method, and writes JSON. With
--time-level K (Ethier-Steinman) it also runs refine K with dt0 / 2^k, k = 0..3: the error left when only
dt shrinks (the spatial floor shows), and the order in time on that fixed mesh from the final face
fluxes of successive runs, log2(|U_k - U_k+1| / |U_k+1 - U_k+2|) (each run has the same spatial error).
--time-stepping picks [scheme] time_stepping (default crank_nicolson); theta runs the theta-scheme with
--theta (default 0.5: Crank-Nicolson viscosity, forward-Euler convection).
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from output_files import read_state  # noqa: E402  (the flow state file's reader, shared with the tests)


def vector(components):
    return "[%s]" % ", ".join(f'"{c}"' for c in components)


# ---- Ethier-Steinman: u = -a [e^{ax} sin(ay + dz) + e^{az} cos(ax + dy)] e^{-nu d^2 t}, v and w by cycling.
ES_A, ES_D = math.pi / 4, math.pi / 2


def es_component(p, q, r, nu):
    a, d = repr(ES_A), repr(ES_D)
    return (f"-{a}*(exp({a}*{p})*sin({a}*{q}+{d}*{r})+exp({a}*{r})*cos({a}*{p}+{d}*{q}))"
            f"*exp(-{nu * ES_D * ES_D!r}*t)")


def scheme_keys(args):
    if args.time_stepping == "theta":
        return f'time_stepping = "theta"\ntheta = {args.theta!r}\n'
    return 'time_stepping = "crank_nicolson"\n'


def ethier_steinman_case(refine, dt, end_time, method, out, scheme, nu):
    velocity = vector([es_component("x", "y", "z", nu), es_component("y", "z", "x", nu), es_component("z", "x", "y", nu)])
    boundaries = "".join(f'[[boundary]]\ngroup = "{g}"\ntype = "velocity"\nvelocity = {velocity}\n\n'
                         for g in ("left", "right", "front", "back", "bottom", "top"))
    return f"""# Ethier-Steinman (written by tools/flow_convergence.py)
[mesh]
file = "{ROOT}/meshes/cube.msh"
refine = {refine}

[fluid]
viscosity = {nu}

{boundaries}[initial]
velocity = {velocity}

[exact]
velocity = {velocity}

[time]
dt = {dt}
end_time = {end_time}

[scheme]
{scheme}method = "{method}"

[output]
directory = "{out}"
every = 100000
"""


# ---- Duct 0 < y < W, 0 < z < H, kinematic pressure gradient G = -dp/dx; half-widths b = W/2 >= a = H/2,
# centred eta = y - b, zeta = z - a:
#   u = 16 a^2 G/(nu pi^3) sum_{i odd} (-1)^((i-1)/2) [1 - cosh(i pi eta/2a)/cosh(i pi b/2a)] cos(i pi zeta/2a) / i^3
DUCT_L, DUCT_W, DUCT_H, DUCT_G, DUCT_NU = 4.0, 1.0, 0.5, 1.0, 1.0
DUCT_TERMS = 30  # i = 1, 3, ..., 59: the tail is below 2e-4 of the centre velocity, far below the errors measured


def duct_velocity():
    a, b = DUCT_H / 2, DUCT_W / 2
    terms = []
    for i in range(1, 2 * DUCT_TERMS, 2):
        k = i * math.pi / (2 * a)
        sign = "-" if (i // 2) % 2 else "+"
        terms.append(f"{sign}(1-cosh({k!r}*(y-{b!r}))/{math.cosh(k * b)!r})*cos({k!r}*(z-{a!r}))/{i ** 3}")
    scale = 16 * a * a * DUCT_G / (DUCT_NU * math.pi ** 3)
    return f"{scale!r}*({''.join(terms)})"


def duct_case(refine, dt, end_time, method, out, scheme, nu):
    return f"""# Pressure-driven rectangular duct (written by tools/flow_convergence.py)
[mesh]
file = "{ROOT}/meshes/duct.msh"
refine = {refine}

[fluid]
viscosity = {DUCT_NU}

[[boundary]]
group = "inlet"
type = "pressure"
pressure = {DUCT_G * DUCT_L}

[[boundary]]
group = "outlet"
type = "pressure"
pressure = 0

[[boundary]]
group = "walls"
type = "wall"

[exact]
velocity = {vector([duct_velocity(), 0, 0])}

[time]
dt = {dt}
end_time = {end_time}

[scheme]
{scheme}method = "{method}"

[output]
directory = "{out}"
every = 100000
"""


CASES = {
    # name: (case text, dt on refine 0, dt halves with h, end time)
    "ethier-steinman": (ethier_steinman_case, 0.02, True, 0.1),
    "duct": (duct_case, 0.02, False, 0.4),
}


def run(args, method, refine, dt, end_time):
    name = f"{method}_r{refine}_dt{dt:g}"
    folder = os.path.join(args.out, name)
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.toml")
    with open(case, "w") as f:
        f.write(CASES[args.case][0](refine, dt, end_time, method, os.path.join(folder, "out"), scheme_keys(args),
                                    args.viscosity))
        tolerances = {s: args.tolerance for s in ("momentum", "pressure", "streamfunction")}
        if args.streamfunction_tolerance is not None:
            tolerances["streamfunction"] = args.streamfunction_tolerance
        f.write("".join(f"\n[solver.{s}]\ntolerance = {t!r}\n" for s, t in tolerances.items() if t is not None))
    summary = os.path.join(folder, "flow.json")
    command = [args.exe, "flow", case, "--backend", args.backend, "--no-png", "--no-vtu", "--json", summary]
    if args.backend == "gpu":
        command[1:1] = ["--launch", args.launch]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"flow_convergence.py: {name} failed:\n{result.stderr[-2000:]}")
    with open(summary) as f:
        s = json.load(f)
    iterations = s["iterations"]
    row = {"method": method, "refine": refine, "cells": s["mesh"]["cells"], "dt": dt, "steps": s["steps"],
           "time": s["time"], "l2_error": s["exact"]["velocity_l2_error"],
           "max_error": s["exact"]["velocity_max_error"], "max_divergence": s["max_divergence"],
           "seconds_per_step": s["seconds_per_step"]["total"],
           "momentum_iterations": iterations["momentum"]["mean"],
           "pressure_iterations": iterations["pressure"]["mean"],
           "streamfunction_iterations": iterations["streamfunction"]["mean"],
           "setup_seconds": s["start_seconds"],
           "state": max(glob.glob(os.path.join(folder, "out", "flow_*.state")))}
    solves = (f"stream {row['streamfunction_iterations']:.0f}" if method == "exact" else
              f"mom {row['momentum_iterations']:.0f} + p {row['pressure_iterations']:.0f}")
    print(f"  {method:9} refine {refine} ({row['cells']:>8} cells) dt {dt:<9g} L2 {row['l2_error']:.4e}"
          f"  max {row['max_error']:.4e}  div {row['max_divergence']:.1e}  {row['seconds_per_step']:.4f} s/step"
          f"  ({solves} it.)", flush=True)
    return row


def rates(rows):
    return [math.log2(a["l2_error"] / b["l2_error"]) for a, b in zip(rows, rows[1:])]


def time_orders(rows):
    """log2(|U_k - U_k+1| / |U_k+1 - U_k+2|) from the runs' final face fluxes (the same mesh)."""
    fluxes = [read_state(row["state"])["flux"] for row in rows]
    gaps = [math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b))) for a, b in zip(fluxes, fluxes[1:])]
    return [math.log2(a / b) for a, b in zip(gaps, gaps[1:])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--refine", default="0,1,2", help="refine levels, comma-separated (default 0,1,2)")
    parser.add_argument("--methods", default="classical,exact", help="classical, exact or both (default both)")
    parser.add_argument("--exe", default=os.path.join(ROOT, "build", "streamsolve"))
    parser.add_argument("--dt0", type=float, default=None, help="dt on refine 0 (default: the case's)")
    parser.add_argument("--end-time", type=float, default=None, help="end time (default: the case's)")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="CG tolerance of every solve (default: the case file's, 1e-6)")
    parser.add_argument("--streamfunction-tolerance", type=float, default=None,
                        help="the exact method's streamfunction tolerance alone (overrides --tolerance there)")
    parser.add_argument("--time-level", type=int, default=None,
                        help="also sweep dt0/2^k, k = 0..3, on this refine level (explicit convection needs "
                             "dt0 * |u| / h < 1 there)")
    parser.add_argument("--viscosity", type=float, default=1.0,
                        help="Ethier-Steinman's nu (default 1; the duct's is 1 always)")
    parser.add_argument("--time-stepping", default="crank_nicolson", choices=["crank_nicolson", "theta"])
    parser.add_argument("--theta", type=float, default=0.5, help="theta of --time-stepping theta (default 0.5)")
    parser.add_argument("--backend", default="gpu", choices=["gpu", "cpu"])
    parser.add_argument("--launch", default="compute", choices=["fragment", "compute"])
    parser.add_argument("--out", default="flow_convergence_runs")
    parser.add_argument("--json", default="flow_convergence.json")
    args = parser.parse_args()
    methods = args.methods.split(",")
    if any(m not in ("classical", "exact") for m in methods):
        sys.exit(f"flow_convergence.py: --methods takes classical and/or exact, not '{args.methods}'")
    levels = [int(r) for r in args.refine.split(",")]
    _, default_dt0, dt_follows_h, default_end = CASES[args.case]
    dt0 = args.dt0 if args.dt0 is not None else default_dt0
    end_time = args.end_time if args.end_time is not None else default_end

    report = {"case": args.case, "backend": args.backend, "time_stepping": args.time_stepping, "viscosity": args.viscosity, "end_time": end_time, "tolerance": args.tolerance, "streamfunction_tolerance": args.streamfunction_tolerance,
              "launch": args.launch if args.backend == "gpu" else None, "space": {}, "time": {}}
    for method in methods:
        print(f"{args.case}, {method}: space" + (" (dt halved with h)" if dt_follows_h else ""))
        rows = [run(args, method, r, dt0 / 2 ** r if dt_follows_h else dt0, end_time) for r in levels]
        print("  rates:", " ".join(f"{x:.2f}" for x in rates(rows)))
        report["space"][method] = {"runs": rows, "rates": rates(rows)}
        if args.time_level is not None:
            print(f"{args.case}, {method}: time (refine {args.time_level})")
            rows = [run(args, method, args.time_level, dt0 / 2 ** k, end_time) for k in range(4)]
            print("  rates:", " ".join(f"{x:.2f}" for x in rates(rows)))
            orders = time_orders(rows)
            print("  order in time (successive runs' fluxes):", " ".join(f"{x:.2f}" for x in orders))
            report["time"][method] = {"runs": rows, "rates": rates(rows), "orders": orders}
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    print("wrote", args.json)


if __name__ == "__main__":
    main()
