#!/usr/bin/env bash
# Time and peak memory of reading a large tetrahedral mesh: `streamsolve mesh-info` (read +
# validation + renumbering + topology + geometry) vs gmsh (read, then exit) vs meshio (read only).
# Each tool runs 3 times; the table shows medians.
#   tools/bench_mesh_read.sh [MESH] [STREAMSOLVE]
# Without MESH, makes a ~1M-tet MSH 4.1 binary cube with tools/make_meshes.sh --large in
# ${BENCH_DIR:-/tmp/streamsolve-bench}. STREAMSOLVE defaults to build/streamsolve.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mesh="${1:-}"
exe="${2:-$root/build/streamsolve}"
work="${BENCH_DIR:-/tmp/streamsolve-bench}"
mkdir -p "$work"
if [[ -z "$mesh" ]]; then
  mesh="$work/cube_large.msh"
  [[ -f "$mesh" ]] || "$root/tools/make_meshes.sh" --large 1100000 "$work"
fi
[[ -x "$exe" ]] || { echo "bench_mesh_read.sh: $exe not found (build the streamsolve target)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench_mesh_read.sh: /usr/bin/time not found (apt install time)" >&2; exit 1; }

# measure NAME CMD...: runs CMD 3x under /usr/bin/time -v, prints the median wall seconds and the
# median peak RSS (each over the 3 runs), and user + system CPU seconds of the median-wall run.
measure() {
  local name="$1" log="$work/time.log" runs=()
  shift
  for i in 1 2 3; do
    /usr/bin/time -v "$@" > "$work/out_$name.log" 2> "$log" || { cat "$work/out_$name.log" "$log" >&2; exit 1; }
    runs+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s}
                        /Maximum resident set size/ {r = $2 / 1024} /User time/ {u = $2} /System time/ {y = $2}
                        END {printf "%.2f %.0f %.2f", w, r, u + y}' "$log")")
  done
  local rss
  rss=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | sort -n | sed -n 2p)
  printf '%s\n' "${runs[@]}" | sort -n | awk -v name="$name" -v rss="$rss" \
    'NR == 2 {printf "%-34s %8.2f s %8.0f MiB %8.2f s\n", name, $1, rss, $3}'
}

tets=$("$exe" mesh-info "$mesh" --json "$work/info.json" | awk '/^tets/ {print $2}')
echo "mesh: $mesh ($(stat -c %s "$mesh") bytes, $tets tets), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-34s %10s %12s %10s\n" "tool (median of 3)" "wall" "peak RSS" "CPU"
measure "streamsolve mesh-info" "$exe" mesh-info "$mesh"
measure "streamsolve mesh-info --no-renumber" "$exe" mesh-info "$mesh" --no-renumber
measure "gmsh (read, -0)" gmsh "$mesh" -0 -o "$work/gmsh_out.geo_unrolled"
measure "meshio.read" /usr/bin/python3 -c 'import sys, meshio; meshio.read(sys.argv[1])' "$mesh"
"$exe" mesh-info "$mesh" > "$work/out_phases.log"
echo "streamsolve phases: $(grep '^time' "$work/out_phases.log" | sed 's/^time *//')"
