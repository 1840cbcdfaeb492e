#!/usr/bin/env bash
# Time and peak memory of reading a large tetrahedral mesh: `streamsolve mesh-info` (read +
# validation + topology + geometry) vs gmsh (read, then exit) vs meshio (read only).
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
  [[ -f "$mesh" ]] || "$root/tools/make_meshes.sh" --large 1000000 "$work"
fi
[[ -x "$exe" ]] || { echo "bench_mesh_read.sh: $exe not found (build the streamsolve target)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench_mesh_read.sh: /usr/bin/time not found (apt install time)" >&2; exit 1; }

# measure NAME CMD...: runs CMD under /usr/bin/time -v, prints wall seconds and peak RSS.
measure() {
  local name="$1" log="$work/time_$1.log"
  shift
  /usr/bin/time -v "$@" > "$work/out_$name.log" 2> "$log" || { cat "$work/out_$name.log" "$log" >&2; exit 1; }
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
  printf "%-34s %8.2f s %8s MiB\n" "$name" "$wall" "$rss"
}

tets=$("$exe" mesh-info "$mesh" --json "$work/info.json" | awk '/^tets/ {print $2}')
echo "mesh: $mesh ($(stat -c %s "$mesh") bytes, $tets tets), $(nproc) cores"
printf "%-34s %10s %12s\n" "tool" "wall" "peak RSS"
measure "streamsolve mesh-info" "$exe" mesh-info "$mesh"
measure "gmsh (read, -0)" gmsh "$mesh" -0 -o "$work/gmsh_out.geo_unrolled"
measure "meshio.read" /usr/bin/python3 -c 'import sys, meshio; meshio.read(sys.argv[1])' "$mesh"
echo "streamsolve phases: $(grep '^time' "$work/out_streamsolve mesh-info.log" | sed 's/^time *//')"
