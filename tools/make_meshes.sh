#!/usr/bin/env bash
# Regenerates the project's meshes from their .geo files with gmsh (single-threaded, so the
# output is reproducible for a given gmsh version).
#   tools/make_meshes.sh                 meshes/*.msh (MSH 4.1 binary) and the reader test data
#                                        tests/data/encodings/cube_{v22,v41}_{ascii,bin}.msh
#                                        and cube_v41_part3_{ascii,bin}.msh (3 partitions)
#   tools/make_meshes.sh --large N DIR   DIR/cube_large.msh: the unit cube with about N tetrahedra
#                                        (MSH 4.1 binary; e.g. N = 1000000 for reader timings)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v gmsh >/dev/null || { echo "make_meshes.sh: gmsh not found (apt install gmsh)" >&2; exit 1; }

mesh() {  # mesh <geo> <out> [gmsh options...]
  local geo="$1" out="$2"
  shift 2
  gmsh -3 -nt 1 "$geo" "$@" -o "$out" > "$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }
  rm -f "$out.log"
  echo "wrote $out ($(stat -c %s "$out") bytes)"
}

if [[ "${1:-}" == "--large" ]]; then
  [[ $# -eq 3 ]] || { echo "usage: $0 --large N DIR" >&2; exit 2; }
  n="$2" dir="$3"
  mkdir -p "$dir"
  # cube.geo at lc = 0.1 gives about 5000 tets; tets grow like lc^-3.
  lc=$(python3 -c "print(0.1 * (5000.0 / $n) ** (1.0 / 3.0))")
  mesh "$root/meshes/cube.geo" "$dir/cube_large.msh" -setnumber lc "$lc" -format msh41 -bin
  exit 0
fi

for geo in cube duct cavity crank dfg_cylinder; do
  mesh "$root/meshes/$geo.geo" "$root/meshes/$geo.msh" -format msh41 -bin
done
# Boxes with matching opposite faces ([[mesh.periodic]]): the unit box, and the Taylor–Green vortex's
# [−π, π]³ (16 cells across; its case refines it).
mesh "$root/meshes/periodic_box.geo" "$root/meshes/periodic_box.msh" -setnumber lc 0.2 -format msh41 -bin
mesh "$root/meshes/periodic_box.geo" "$root/meshes/taylor_green.msh" -setnumber L 6.283185307179586 \
  -setnumber x0 -3.141592653589793 -setnumber lc 0.39269908169872414 -format msh41 -bin

# The same cube in the four encodings the reader must agree on.
enc="$root/tests/data/encodings"
mkdir -p "$enc"
mesh "$root/meshes/cube.geo" "$enc/cube_v22_ascii.msh" -format msh22
mesh "$root/meshes/cube.geo" "$enc/cube_v22_bin.msh" -format msh22 -bin
mesh "$root/meshes/cube.geo" "$enc/cube_v41_ascii.msh" -format msh41
mesh "$root/meshes/cube.geo" "$enc/cube_v41_bin.msh" -format msh41 -bin
# ... and split into 3 partitions ($PartitionedEntities, interface surfaces between partitions).
mesh "$root/meshes/cube.geo" "$enc/cube_v41_part3_ascii.msh" -format msh41 -part 3
mesh "$root/meshes/cube.geo" "$enc/cube_v41_part3_bin.msh" -format msh41 -bin -part 3
