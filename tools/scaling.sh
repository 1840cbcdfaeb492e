#!/usr/bin/env bash
# Strong and weak scaling of the parallel heat CG (`mpiexec -n N streamsolve heat`, one GPU per rank).
#   tools/scaling.sh [--ranks "1 2 4"] [--strong-refine 5] [--weak-target 1000000] [--backend gpu|cpu]
#                    [--launch auto|fragment|compute] [--build build] [--out /tmp/scaling] [--tolerance 1e-6]
#                    [--skip-weak] [--preconditioner jacobi|multigrid] [--transient STEPS]
#                    [--flow-refine K [--flow-mesh FILE | --flow-weak-meshes "FILE ..."] [--flow-steps 3]
#                     [--flow-dt DT] [--flow-cg-variant V | --flow-momentum-variant V [--flow-replacement-period P]]
#                     [--flow-pressure-guess extrapolated|zero] [--flow-pressure-smoother-degree K]
#                     [--flow-momentum-preconditioner P [--flow-chebyshev-degree K]]
#                     [--skip-heat]]
# Case: tests/distributed/crank.toml (crankshaft, two journals fixed, flux into the pin; Jacobi), or
# with --preconditioner multigrid tests/distributed/crank_multigrid.toml (the multigrid over the ranks).
# --transient STEPS makes it transient (rho c = 3.6e3, dt = 5, STEPS backward-Euler steps): a
# multigrid solve of the steady case takes 7 iterations, well under a second, and runs partly while
# the GPU's clocks ramp up from idle after the set-up; STEPS solves keep the GPU busy.
# Strong: the crankshaft refined --strong-refine times (5: about 8.8M nodes; 4: about 1.1M) on every rank count; efficiency t1 / (N tN)
#   per CG iteration.
# Weak: for each N the refinement level whose nodes per rank is closest to --weak-target (one level
#   is 8x the nodes, so nodes per rank only approximates the target: read that column); efficiency is
#   the per-rank throughput (nodes x iterations per second per rank) against the 1-rank run's.
# Both tables print ms per CG iteration and the share of CG time spent in communication (halo not
# hidden behind the interior pass + allreduces), the halo's components per iteration (waiting for
# the read-back, MPI posting + waiting, upload of the received halo term) and the allreduces, from
# each run's JSON (kept under --out). --skip-weak leaves out the weak table. --tolerance sets the CG's
# relative tolerance (default: the case's 1e-6): the figures are per iteration, so a looser one makes
# the large fragment-path runs affordable.
# Flow (--flow-refine K): the lid-driven cavity of tests/distributed/cavity_flow.toml (classical method, θ-scheme,
# Jacobi pressure, or with --preconditioner multigrid the pressure multigrid over the ranks) on
# --flow-mesh (default meshes/cavity.msh; refine 3: 2.56M cells) refined K times,
# with the case's Δt 0.01 or --flow-dt, --flow-steps fixed steps on every rank count: seconds per step (momentum, pressure), speed-up and
# efficiency against the first row (efficiency: cells per rank per second against the first row's,
# so strong and weak alike; both from the steps after the first, whose first use of each kernel
# and halo includes one-time set-up: rank 0's progress lines), halo round trips per step (all, and those overlapped with their
# operator's pass) and the halo's components per step (read-back wait, MPI, upload), each the
# slowest rank's. --flow-weak-meshes gives one mesh per rank count, in --ranks order (weak scaling:
# meshes whose cells grow with the ranks, e.g. gmsh's lc divided by the cube root of the ranks).
# --flow-cg-variant sets both flow solves' CG variant ([solver.*] variant: textbook (the pressure's default),
# single_sync (the momentum's default) or pipelined), --flow-momentum-variant the momentum solve's only (with pipelined,
# --flow-replacement-period its residual replacement period). --flow-pressure-guess: where each
# step's pressure correction starts ([solver.pressure] initial_guess; default: the case's, whose default is extrapolated).
# --flow-pressure-smoother-degree: with multigrid, [solver.pressure] smoother_degree (default 2, over ranks 3).
# --flow-momentum-preconditioner: [solver.momentum] preconditioner (jacobi, chebyshev; default: the
# case's automatic, which is jacobi here); --flow-chebyshev-degree: with chebyshev, [solver.momentum]
# chebyshev_degree (odd; default 3).
# --skip-heat runs the flow table only.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ranks="1 2 4"; strong_refine=5; weak_target=1000000; backend=gpu; launch=auto; build="$here/build"; out=/tmp/scaling; skip_weak=0
preconditioner=jacobi; transient=""; tolerance=""; flow_refine=""; flow_mesh="$here/meshes/cavity.msh"; flow_steps=3; flow_dt=""; skip_heat=0
flow_weak_meshes=""; flow_cg_variant=""; flow_momentum_variant=""; flow_replacement_period=""; flow_pressure_guess=""; flow_pressure_smoother_degree=""; flow_momentum_preconditioner=""; flow_chebyshev_degree=""

while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --strong-refine) strong_refine="$2"; shift 2 ;;
    --weak-target) weak_target="$2"; shift 2 ;;
    --backend) backend="$2"; shift 2 ;;
    --launch) launch="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --skip-weak) skip_weak=1; shift ;;
    --tolerance) tolerance="$2"; shift 2 ;;
    --preconditioner) preconditioner="$2"; shift 2 ;;
    --transient) transient="$2"; shift 2 ;;
    --flow-refine) flow_refine="$2"; shift 2 ;;
    --flow-mesh) flow_mesh="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --flow-weak-meshes) flow_weak_meshes="$2"; shift 2 ;;
    --flow-steps) flow_steps="$2"; shift 2 ;;
    --flow-dt) flow_dt="$2"; shift 2 ;;
    --flow-cg-variant) flow_cg_variant="$2"; shift 2 ;;
    --flow-momentum-variant) flow_momentum_variant="$2"; shift 2 ;;
    --flow-replacement-period) flow_replacement_period="$2"; shift 2 ;;
    --flow-pressure-guess) flow_pressure_guess="$2"; shift 2 ;;
    --flow-pressure-smoother-degree) flow_pressure_smoother_degree="$2"; shift 2 ;;
    --flow-momentum-preconditioner) flow_momentum_preconditioner="$2"; shift 2 ;;
    --flow-chebyshev-degree) flow_chebyshev_degree="$2"; shift 2 ;;
    --skip-heat) skip_heat=1; shift ;;
    *) echo "scaling.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
exe="$build/streamsolve"
mpi=(mpiexec --oversubscribe --bind-to none)
[ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
mkdir -p "$out"
launch_opt=()
[ "$backend" = gpu ] && launch_opt=(--launch "$launch")

run() {  # run NAME RANKS CASE REFINE [PHYSICS]
  local name="$1" n="$2" case="$3" refine="$4" physics="${5:-heat}"
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} "${mpi[@]}" -n "$n" "$exe" "$physics" "$case" --refine "$refine" --backend "$backend" \
    "${launch_opt[@]}" --distributed --no-png --no-vtu --out "$out/$name" >"$out/$name.log" 2>&1 ||
    { echo "scaling.sh: run $name failed, see $out/$name.log" >&2; tail -5 "$out/$name.log" >&2; exit 1; }
}

table() {  # table KIND json...
  python3 - "$@" <<'PY'
import json, sys
nan = float("nan")  # components a JSON lacks (builds before they were reported)
kind, files = sys.argv[1], sys.argv[2:]
rows = [json.load(open(f)) for f in files]
base = rows[0]
t1 = base["seconds_per_iteration"]
print(f"\n{kind} scaling ({base['backend']}, {base['device']})")
print(f"preconditioner {base.get('preconditioner', '?')}; CG s: time in CG (all steps)")
print(f"{'ranks':>5} {'nodes':>10} {'nodes/rank':>10} {'iters':>6} {'CG s':>8} {'ms/iter':>8} {'efficiency':>10} {'comm':>6} {'halo ms/it':>10} "
      f"{'read-back':>9} {'MPI':>6} {'upload':>6} {'allred ms/it':>12}")
for r in rows:
    n, t, it = r["ranks"], r["seconds_per_iteration"], max(r["iterations"], 1)
    if kind == "strong":
        eff = t1 * base["ranks"] / (n * t)
    else:  # per-rank throughput against the first row's
        eff = (r["mesh"]["nodes"] / n / t) / (base["mesh"]["nodes"] / base["ranks"] / t1)
    print(f"{n:>5} {r['mesh']['nodes']:>10} {r['mesh']['nodes'] // n:>10} {r['iterations']:>6} {r['solve_seconds']:>8.3f} {1e3 * t:>8.3f} "
          f"{100 * eff:>9.1f}% {100 * r['communication_share']:>5.1f}% {1e3 * r['halo_seconds'] / it:>10.3f} "
          f"{1e3 * r.get('halo_readback_seconds', nan) / it:>9.3f} {1e3 * r.get('halo_mpi_seconds', nan) / it:>6.3f} "
          f"{1e3 * r.get('halo_upload_seconds', nan) / it:>6.3f} {1e3 * r['allreduce_seconds'] / it:>12.3f}")
PY
}

flow_table() {  # flow_table json...
  python3 - "$here/tools" "$@" <<'PY'
import json, sys
sys.path.insert(0, sys.argv.pop(1))
from flow_runs import after_first

rows = [json.load(open(f)) for f in sys.argv[1:]]
warm = [after_first(f) for f in sys.argv[1:]]
base = rows[0]
print(f"\nflow ({base['backend']}, {base['device']}): {base['mesh']['cells']} cells on the first row, {base['steps_this_run']} steps")
print("s/step: a step without the outputs (flow.json seconds_per_step.total); after 1st: the steps after the first")
print("(speed-up and efficiency from it); output: the final state's gather and write, per step")
per_rank_rate = lambda r, t: r["mesh"]["cells"] / r["ranks"] / t
print(f"{'ranks':>5} {'cells/rank':>10} {'s/step':>8} {'after 1st':>9} {'output':>8} {'momentum':>8} {'pressure':>8} {'p it':>6} {'speed-up':>8} {'efficiency':>10} {'trips/step':>10} "
      f"{'overlapped':>10} {'halo s/step':>11} {'read-back':>9} {'MPI':>6} {'upload':>6}")
for r, w in zip(rows, warm):
    n, s, steps = r["ranks"], r["seconds_per_step"], max(r["steps_this_run"], 1)
    slowest = max(r["per_rank"], key=lambda p: p["halo_seconds"])
    part = lambda k: slowest.get(k, float("nan")) / steps
    print(f"{n:>5} {r['mesh']['cells'] // n:>10} {s['total']:>8.3f} {w:>9.3f} {s.get('output', float('nan')):>8.3f} {s['momentum']:>8.3f} {s['pressure']:>8.3f} {r['iterations']['pressure']['mean']:>6.1f} {warm[0] / w:>8.2f} "
          f"{100 * per_rank_rate(r, w) / per_rank_rate(base, warm[0]):>9.1f}% {slowest['halo_exchanges'] / steps:>10.0f} "
          f"{part('halo_overlapped_exchanges'):>10.0f} {part('halo_seconds'):>11.3f} {part('halo_readback_seconds'):>9.3f} {part('halo_mpi_seconds'):>6.3f} "
          f"{part('halo_upload_seconds'):>6.3f}")
PY
}

if [ -n "$flow_refine" ]; then
  flow_case="$out/cavity_scaling.toml"
  # The θ-scheme (θ = 1) that docs/performance.md's flow-over-ranks figures were measured with.
  sed -e "s#^file = .*#file = \"$flow_mesh\"#" -e "s#^steps = .*#steps = $flow_steps#" -e "s#^every = .*#every = 1000000#" \
    -e "s#^time_stepping = .*#time_stepping = \"theta\"#" "$here/tests/distributed/cavity_flow.toml" >"$flow_case"
  [ -z "$flow_dt" ] || sed -i "s#^dt = .*#dt = $flow_dt#" "$flow_case"
  sed -i "s#^preconditioner = .*#preconditioner = \"$preconditioner\"#" "$flow_case"
  [ -z "$flow_cg_variant" ] || [ -z "$flow_momentum_variant" ] ||
    { echo "scaling.sh: --flow-cg-variant and --flow-momentum-variant exclude each other" >&2; exit 2; }
  [ -z "$flow_cg_variant" ] || sed -i "s#^tolerance = .*#&\nvariant = \"$flow_cg_variant\"#" "$flow_case"
  [ -z "$flow_momentum_variant" ] || sed -i "s#^\[solver.momentum\]#&\nvariant = \"$flow_momentum_variant\"#" "$flow_case"
  [ -z "$flow_replacement_period" ] ||
    sed -i "s#^\[solver.momentum\]#&\nreplacement_period = $flow_replacement_period#" "$flow_case"
  [ -z "$flow_pressure_guess" ] || sed -i "s#^\[solver.pressure\]#&\ninitial_guess = \"$flow_pressure_guess\"#" "$flow_case"
  [ -z "$flow_pressure_smoother_degree" ] ||
    sed -i "s#^\[solver.pressure\]#&\nsmoother_degree = $flow_pressure_smoother_degree#" "$flow_case"
  [ -z "$flow_momentum_preconditioner" ] ||
    sed -i "s#^\[solver.momentum\]#&\npreconditioner = \"$flow_momentum_preconditioner\"#" "$flow_case"
  [ -z "$flow_chebyshev_degree" ] || sed -i "s#^\[solver.momentum\]#&\nchebyshev_degree = $flow_chebyshev_degree#" "$flow_case"
  flow=()
  read -r -a weak_meshes <<<"$flow_weak_meshes"
  k=0
  for n in $ranks; do
    case_n="$flow_case"
    if [ -n "$flow_weak_meshes" ]; then
      [ "$k" -lt "${#weak_meshes[@]}" ] || { echo "scaling.sh: --flow-weak-meshes has fewer meshes than --ranks" >&2; exit 2; }
      mesh="$(cd "$(dirname "${weak_meshes[$k]}")" && pwd)/$(basename "${weak_meshes[$k]}")"
      case_n="$out/cavity_scaling_$n.toml"
      sed "s#^file = .*#file = \"$mesh\"#" "$flow_case" >"$case_n"
    fi
    run "flow_$n" "$n" "$case_n" "$flow_refine" flow
    flow+=("$out/flow_$n/flow.json")
    k=$((k + 1))
  done
  flow_table "${flow[@]}"
fi
[ "$skip_heat" = 1 ] && exit 0

strong_case="$out/crank_scaling.toml"
case_file="$here/tests/distributed/crank.toml"
[ "$preconditioner" = multigrid ] && case_file="$here/tests/distributed/crank_multigrid.toml"
sed "s#\.\./\.\./meshes/#$here/meshes/#" "$case_file" >"$strong_case"
[ -z "$tolerance" ] || sed -i "s#^tolerance = .*#tolerance = $tolerance#" "$strong_case"
if [ -n "$transient" ]; then
  sed -i "s#^conductivity = .*#&\nheat_capacity = 3.6e3#" "$strong_case"
  printf '[time]\ndt = 5.0\nsteps = %s\ntheta = 1.0\n[output]\nevery = 1000000\n' "$transient" >>"$strong_case"
fi

strong=()
for n in $ranks; do
  run "strong_$n" "$n" "$strong_case" "$strong_refine"
  strong+=("$out/strong_$n/heat.json")
done
table strong "${strong[@]}"

[ "$skip_weak" = 1 ] && exit 0
# Weak: the level per N from the strong run's node count (x8 per level).
strong_nodes=$(python3 -c "import json; print(json.load(open('${strong[0]}'))['mesh']['nodes'])")
weak=()
for n in $ranks; do
  level=$(python3 -c "
import math
best = min(range(0, 7), key=lambda L: abs(math.log($strong_nodes * 8 ** (L - $strong_refine) / $n / $weak_target)))
print(best)")
  run "weak_${n}_$level" "$n" "$strong_case" "$level"
  weak+=("$out/weak_${n}_$level/heat.json")
done
table weak "${weak[@]}"
