#!/usr/bin/env bash
# Steady flow with the defaults against the momentum preconditioner's alternatives and the plain
# march: each case run as
#   defaults        cfl_max = 100, grad_div = 5 (and its pressure), the automatic preconditioner
#                   (Jacobi, block Jacobi once Jacobi's solves are slow)
#   block_jacobi    the same with [solver.momentum] preconditioner = "block_jacobi" throughout
#   jacobi          the same with [solver.momentum] preconditioner = "jacobi"
#   plain           grad_div = 0 (no grad-div term, no pressure of it), cfl_max = 10, Jacobi
# whole runs from the mesh file, one JSON line per run (steps, run seconds, seconds per step, mean
# momentum and pressure iterations, block Jacobi builds and their seconds, forces, point probes, the
# hot wall's Nusselt number of a [heat] case).
#   tools/bench_steady.sh [--build build] [--out /tmp/bench_steady] [--launch compute] [CASE[:REFINE] ...]
# Default cases: the DFG cylinder refined once and the Re 1000 cavity refined once. Another build's
# binary (--build) runs the same cases: a release before the grad-div pressure runs `plain` as its
# defaults and `defaults` with a pressure that falls behind the velocity.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build out=/tmp/bench_steady launch=compute cases=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --launch) launch=$2; shift 2 ;;
    -*) echo "bench_steady.sh: unknown option $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
[ ${#cases[@]} -gt 0 ] || cases=(meshes/dfg_cylinder_steady_flow.toml:1 meshes/cavity_re1000_steady_flow.toml:1)
mkdir -p "$out"
variant=
trap 'rm -f "$variant"' EXIT  # the case variant written beside its case, also when stopped
for entry in "${cases[@]}"; do
  case_file=${entry%%:*} refine=0
  [ "$entry" != "$case_file" ] && refine=${entry##*:}
  [ -f "$case_file" ] || { echo "bench_steady.sh: no case file $case_file" >&2; exit 2; }
  for run in defaults block_jacobi jacobi plain; do
    name=$(basename "$case_file" .toml)_r${refine}_$run
    variant=$(dirname "$case_file")/.bench_steady_$name.toml  # beside the case: its mesh path resolves
    cfl=100 grad_div=5 preconditioner=automatic
    case $run in
      block_jacobi) preconditioner=block_jacobi ;;
      jacobi) preconditioner=jacobi ;;
      plain) cfl=10 grad_div=0 preconditioner=jacobi ;;
    esac
    # The case with cfl_max and grad_div set in [steady] and a [solver.momentum] preconditioner
    # appended (the sample cases have none of these otherwise).
    grep -v -e '^cfl_max' -e '^grad_div' "$case_file" |
      sed "s/^\[steady\]/[steady]\ncfl_max = $cfl\ngrad_div = $grad_div/" > "$variant"
    printf '\n[solver.momentum]\npreconditioner = "%s"\n' "$preconditioner" >> "$variant"
    "$build/streamsolve" --launch "$launch" flow "$variant" --refine "$refine" --no-png --no-vtu \
      --out "$out/$name" --json "$out/$name.json" 2> "$out/$name.log" || echo "bench_steady.sh: $name stopped (see $out/$name.log)" >&2
    rm -f "$variant"
    /usr/bin/python3 - "$out/$name.json" "$name" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print(json.dumps({"run": sys.argv[2], "device": j["device"], "cells": j["mesh"]["cells"], "steps": j["steps"],
                  "stop_reason": j["steady"]["stop_reason"], "run_seconds": round(j["run_seconds"], 2),
                  "seconds_per_step": round(j["seconds_per_step"]["total"], 4),
                  "momentum_iterations_mean": round(j["iterations"]["momentum"]["mean"], 1),
                  "pressure_iterations_mean": round(j["iterations"]["pressure"]["mean"], 1),
                  "momentum_preconditioner": j["solver"]["momentum"]["preconditioner"],
                  "block_jacobi_builds": j.get("momentum_preconditioner", {}).get("setups", 0),
                  "block_jacobi_seconds": round(j.get("momentum_preconditioner", {}).get("setup_seconds", 0), 2),
                  "force_coefficients": [f["coefficients"] for f in j.get("forces", [])],
                  "probes": {k: v["values"] for k, v in j.get("probes", {}).items() if len(v["values"]) <= 4},
                  "nusselt": [g["nusselt"] for g in j.get("heat", {}).get("groups", []) if "nusselt" in g][:1]}))
EOF
  done
done
