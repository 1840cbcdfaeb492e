# shellcheck shell=bash
# Sourced (not run) by tools/cavity_icofoam.sh and tools/cavity_simplefoam.sh: the steps both OpenFOAM
# cavity peers share. Each function takes the calling script's name first (it heads every error line) and
# exits the script with a one-line message on stderr when a step fails.
#
#   foam_cavity_setup NAME SOLVER                 gmsh, SOLVER, gmshToFoam, foamToVTK and postProcess must be
#                                                 on PATH; sources /usr/share/openfoam/etc/bashrc
#   foam_cavity_msh22 NAME MESH REFINE OUT LOG    MESH (any gmsh format) -> OUT/mesh22.msh, MSH 2.2 ASCII,
#                                                 each tetrahedron split into 8 REFINE times (gmsh -refine)
#   foam_cavity_polymesh NAME CASE OUT LOG        gmshToFoam OUT/mesh22.msh into CASE (needs CASE/system/
#                                                 controlDict), lid and walls as wall patches, checkMesh
#                                                 into LOG/checkMesh.log; sets `cells` (empty if unknown)
#   foam_cavity_initial_fields CASE               CASE/0/U and CASE/0/p: the fluid at rest, the lid moving
#                                                 with (1 0 0), no slip on the walls, zero-gradient pressure
#   foam_cavity_sample_lines CASE                 CASE/system/sampleLines: U on the two centre lines
#                                                 (x = y = 0.5 and y = z = 0.5, 101 points, cellPoint)

foam_cavity_setup() {
  local name=$1 solver=$2 tool
  for tool in gmsh "$solver" gmshToFoam foamToVTK postProcess; do
    command -v "$tool" >/dev/null || { echo "$name: $tool not found (apt install openfoam gmsh)" >&2; exit 1; }
  done
  local foam_env=/usr/share/openfoam/etc/bashrc
  [[ -f "$foam_env" ]] || { echo "$name: $foam_env missing (Debian openfoam package)" >&2; exit 1; }
  # The OpenFOAM bashrc reads unset variables; source it outside `set -u`.
  set +u
  # shellcheck disable=SC1090
  source "$foam_env" >/dev/null 2>&1 || true
  set -u
}

# ---- mesh: MSH 4.1 binary -> (refined) MSH 2.2 ASCII ----
# gmsh -refine splits each tetrahedron into 8 once per call (a repeated flag does not refine again).
foam_cavity_msh22() {
  local name=$1 mesh=$2 refine=$3 out=$4 log=$5 i
  cp "$mesh" "$out/mesh_in.msh"
  for ((i = 0; i < refine; i++)); do
    gmsh "$out/mesh_in.msh" -refine -format msh22 -o "$out/mesh_ref.msh" > "$log/gmsh_refine$i.log" 2>&1 \
      || { cat "$log/gmsh_refine$i.log" >&2; exit 1; }
    mv "$out/mesh_ref.msh" "$out/mesh_in.msh"
  done
  gmsh "$out/mesh_in.msh" -format msh22 -save -o "$out/mesh22.msh" > "$log/gmsh.log" 2>&1 \
    || { cat "$log/gmsh.log" >&2; exit 1; }
  rm -f "$out/mesh_in.msh"
}

# ---- MSH 2.2 -> polyMesh ----
foam_cavity_polymesh() {
  local name=$1 case_dir=$2 out=$3 log=$4
  (cd "$case_dir" && gmshToFoam "$out/mesh22.msh" > "$log/gmshToFoam.log" 2>&1) \
    || { cat "$log/gmshToFoam.log" >&2; exit 1; }
  # gmshToFoam makes generic patches; lid and walls are walls.
  sed -i -e 's/^\(\s*type\s*\)patch;/\1wall;/' -e '/physicalType/d' "$case_dir/constant/polyMesh/boundary"
  grep -q '^\s*lid$' "$case_dir/constant/polyMesh/boundary" && grep -q '^\s*walls$' "$case_dir/constant/polyMesh/boundary" \
    || { echo "$name: mesh lacks the physical surfaces lid/walls" >&2; exit 1; }
  (cd "$case_dir" && checkMesh > "$log/checkMesh.log" 2>&1) || true
  # shellcheck disable=SC2034  # read by the calling script
  cells=$(sed -n 's/^\s*cells:\s*\([0-9]*\).*/\1/p' "$log/checkMesh.log" | head -1)
}

# ---- the cavity's initial and boundary fields ----
foam_cavity_initial_fields() {
  cat > "$1/0/U" <<'EOF'
FoamFile { version 2.0; format ascii; class volVectorField; object U; }
dimensions      [0 1 -1 0 0 0 0];
internalField   uniform (0 0 0);
boundaryField
{
    lid   { type fixedValue; value uniform (1 0 0); }
    walls { type noSlip; }
}
EOF

  cat > "$1/0/p" <<'EOF'
FoamFile { version 2.0; format ascii; class volScalarField; object p; }
dimensions      [0 2 -2 0 0 0 0];
internalField   uniform 0;
boundaryField
{
    lid   { type zeroGradient; }
    walls { type zeroGradient; }
}
EOF
}

# ---- the centre lines the peers sample (postProcess -func sampleLines) ----
foam_cavity_sample_lines() {
  cat > "$1/system/sampleLines" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object sampleLines; }
type            sets;
libs            ("libsampling.so");
interpolationScheme cellPoint;
setFormat       csv;
fields          (U);
sets
(
    u_vs_z { type uniform; axis z; start (0.5 0.5 0); end (0.5 0.5 1); nPoints 101; }
    w_vs_x { type uniform; axis x; start (0 0.5 0.5); end (1 0.5 0.5); nPoints 101; }
);
EOF
}
