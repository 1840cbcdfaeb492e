#!/usr/bin/env bash
# Steady flow with the defaults (local pseudo-time steps, the grad–div term) against the march
# without both (one Δt, `grad_div = 0`): each case run both ways, whole runs from the mesh file, one
# JSON line per run (steps, run seconds, seconds per step, mean momentum and pressure iterations,
# forces, point probes).
#   tools/bench_steady.sh [--build build] [--out /tmp/bench_steady] [--launch compute] [CASE[:REFINE] ...]
# Default cases: the DFG cylinder refined once and the Re 1000 cavity refined once.
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
  for run in defaults one_dt; do
    name=$(basename "$case_file" .toml)_r${refine}_$run
    variant=$(dirname "$case_file")/.bench_steady_$name.toml  # beside the case: its mesh path resolves
    settings="local_time_steps = true\ngrad_div = 1"
    [ $run = one_dt ] && settings="local_time_steps = false\ngrad_div = 0"
    # The case with the two keys set (replaced where the case has them, else added to [steady]).
    grep -v -e '^local_time_steps' -e '^grad_div' "$case_file" | sed "s/^\[steady\]/[steady]\n$settings/" > "$variant"
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
                  "force_coefficients": [f["coefficients"] for f in j.get("forces", [])],
                  "probes": {k: v["values"] for k, v in j.get("probes", {}).items() if len(v["values"]) <= 4}}))
EOF
  done
done
