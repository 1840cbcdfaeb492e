#!/usr/bin/env bash
# simpleFoam peer for the STEADY lid-driven cubic cavity: runs OpenFOAM's steady laminar SIMPLE solver on the
# SAME tetrahedral mesh streamsolve uses until its residuals meet --tolerance, and writes the centre lines.
#
#   tools/cavity_simplefoam.sh [--mesh meshes/cavity.msh] [--refine K] [--nu 0.001] [--tolerance 1e-4]
#                              [--max-iterations 2000] [--out DIR]
#
#   --mesh            gmsh mesh with physical surfaces "lid" (z = 1, moves with (1 0 0)) and "walls" (no slip)
#   --refine          split every tetrahedron into 8, K times (gmsh -refine), before the conversion (default 1:
#                     39,952 cells from meshes/cavity.msh)
#   --nu              kinematic viscosity; Re = 1/nu for the unit cube and lid speed 1 (default 0.001: Re 1000)
#   --tolerance       residualControl for p and U: stop when, in one iteration, the initial residuals of the
#                     p equation and of every U component are all below it (default 1e-4). Chosen from a run to
#                     1e-8 (refine 1, Re 1000): the centre lines stay within about the U residual of the fully
#                     converged ones at every level, 8.6e-5 U when 1e-4 is met, far below any difference to the
#                     published data; a tighter tolerance only costs iterations (about 50 per decade).
#   --max-iterations  SIMPLE iterations before giving up (default 2000)
#   --out             output folder (default out/cavity_simplefoam); the OpenFOAM case is DIR/case
#
# Solver (system/fvSolution, fvSchemes): SIMPLEC (`consistent yes`, U relaxed 0.9, p not relaxed). At refine 1,
# Re 1000 it took half the iterations of classic SIMPLE (U 0.7, p 0.3: 169 against 338, and SIMPLE stopped
# 0.002 U away on the lines); it converged at Re 100 (refine 0), 400 (refine 1) and 1000 (refine 0 and 1).
# p: GAMG (GaussSeidel); U: smoothSolver symGaussSeidel; linear solves to relTol 0.05 (p) / 0.1 (U) and an
# absolute tolerance 100x below --tolerance. div(phi,U) bounded Gauss linearUpwind grad(U); Gauss linear +
# corrected elsewhere, as the icoFoam peer. No non-orthogonal corrector: in a steady run the explicit
# correction is carried by the outer iterations anyway (with 1 corrector the converged lines differ by
# 2e-5 U, at the same iteration count and one more pressure solve per iteration).
#
# Writes
#   DIR/simplefoam_u_vs_z.csv  z,u_x   on x = y = 0.5 (101 points, OpenFOAM sample, cellPoint interpolation)
#   DIR/simplefoam_w_vs_x.csv  x,u_z   on y = z = 0.5
#   DIR/simplefoam.vtu         the last iteration as a VTU with point data `velocity` and `pressure`
#                              (foamToVTK's cell-to-point interpolation), the same layout streamsolve writes
#   DIR/simplefoam.json        cells, iterations, converged (residualControl met) or not, wall seconds,
#                              seconds per iteration, nu, and the last iteration's initial residuals of U, p
#
# Exit status: 0 converged; 1 a tool or step failed (one line on stderr); 2 bad arguments; 3 not converged
# within --max-iterations (the outputs and the JSON, with "converged": false, are still written).
# Needs Debian's `openfoam` (v1912: binaries in /usr/bin, environment /usr/share/openfoam/etc/bashrc),
# `gmsh` (MSH 4.1 -> 2.2 ASCII for gmshToFoam) and python3-numpy + python3-meshio. Single process, single thread.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

mesh="$root/meshes/cavity.msh" refine=1 nu=0.001 tolerance=1e-4 max_iter=2000 out="$root/out/cavity_simplefoam"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mesh) mesh="$(realpath "$2")"; shift 2 ;;
    --refine) refine="$2"; shift 2 ;;
    --nu) nu="$2"; shift 2 ;;
    --tolerance) tolerance="$2"; shift 2 ;;
    --max-iterations) max_iter="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "cavity_simplefoam.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
py=/usr/bin/python3
$py -c "
import sys
k, it, nu, tol = sys.argv[1:]
assert k.isdigit() and it.isdigit() and int(it) > 0 and float(nu) > 0 and 0 < float(tol) < 1" \
  "$refine" "$max_iter" "$nu" "$tolerance" 2>/dev/null \
  || { echo "cavity_simplefoam.sh: --refine K >= 0, --max-iterations N > 0, --nu > 0, 0 < --tolerance < 1" >&2; exit 2; }
[[ -f "$mesh" ]] || { echo "cavity_simplefoam.sh: mesh $mesh not found" >&2; exit 2; }

# shellcheck source=tools/foam_cavity_common.sh
source "$root/tools/foam_cavity_common.sh"
foam_cavity_setup cavity_simplefoam.sh simpleFoam

mkdir -p "$out"
out="$(realpath "$out")"
case_dir="$out/case"
rm -rf "$case_dir"
mkdir -p "$case_dir/system" "$case_dir/constant" "$case_dir/0"
log="$out/logs"
mkdir -p "$log"
rm -f "$out"/simplefoam_u_vs_z.csv "$out"/simplefoam_w_vs_x.csv "$out"/simplefoam.vtu "$out"/simplefoam.json

# ---- mesh: MSH 4.1 binary -> (refined) MSH 2.2 ASCII -> polyMesh ----
foam_cavity_msh22 cavity_simplefoam.sh "$mesh" "$refine" "$out" "$log"

# Linear solves stop 100x below the convergence tolerance (relTol aside), so they never hold it up.
lin_tol=$($py -c "print('%g' % (float('$tolerance') * 0.01))")

# Only the last iteration is written: simpleFoam writes the time at which residualControl is met, or
# endTime = --max-iterations.
cat > "$case_dir/system/controlDict" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object controlDict; }
application     simpleFoam;
startFrom       startTime;
startTime       0;
stopAt          endTime;
endTime         $max_iter;
deltaT          1;
writeControl    timeStep;
writeInterval   $max_iter;
purgeWrite      0;
writeFormat     ascii;
writePrecision  10;
writeCompression off;
timeFormat      general;
timePrecision   8;
runTimeModifiable false;
EOF

cat > "$case_dir/system/fvSchemes" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object fvSchemes; }
ddtSchemes      { default steadyState; }
gradSchemes     { default Gauss linear; }
divSchemes
{
    default         none;
    div(phi,U)      bounded Gauss linearUpwind grad(U);
    div((nuEff*dev2(T(grad(U))))) Gauss linear;
}
laplacianSchemes { default Gauss linear corrected; }
interpolationSchemes { default linear; }
snGradSchemes   { default corrected; }
EOF

cat > "$case_dir/system/fvSolution" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }
solvers
{
    p { solver GAMG; smoother GaussSeidel; tolerance $lin_tol; relTol 0.05; }
    U { solver smoothSolver; smoother symGaussSeidel; tolerance $lin_tol; relTol 0.1; }
}
SIMPLE
{
    consistent      yes;
    // Steady: the non-orthogonal correction converges with the outer iterations (see the header).
    nNonOrthogonalCorrectors 0;
    pRefCell        0;
    pRefValue       0;
    residualControl { p $tolerance; U $tolerance; }
}
relaxationFactors
{
    equations { U 0.9; }
}
EOF

foam_cavity_sample_lines "$case_dir"

cat > "$case_dir/constant/transportProperties" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object transportProperties; }
transportModel  Newtonian;
nu              $nu;
EOF

cat > "$case_dir/constant/turbulenceProperties" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object turbulenceProperties; }
simulationType  laminar;
EOF

foam_cavity_initial_fields "$case_dir"

foam_cavity_polymesh cavity_simplefoam.sh "$case_dir" "$out" "$log"

# ---- run ----
t0=$(date +%s.%N)
status=0
(cd "$case_dir" && simpleFoam > "$log/simpleFoam.log" 2>&1) || status=$?
t1=$(date +%s.%N)
if [[ $status -ne 0 ]]; then
  tail -30 "$log/simpleFoam.log" >&2
  echo "cavity_simplefoam.sh: simpleFoam failed (exit $status, log $log/simpleFoam.log)" >&2
  exit 1
fi

# ---- sample the last iteration ----
last=$(cd "$case_dir" && foamListTimes -latestTime 2>/dev/null | tail -1)
[[ -n "$last" ]] || { echo "cavity_simplefoam.sh: simpleFoam wrote no time directory" >&2; exit 1; }
(cd "$case_dir" && postProcess -func sampleLines -time "$last" > "$log/sample.log" 2>&1) \
  || { tail -20 "$log/sample.log" >&2; exit 1; }
(cd "$case_dir" && foamToVTK -latestTime > "$log/foamToVTK.log" 2>&1) || { tail -20 "$log/foamToVTK.log" >&2; exit 1; }

FOAM_CAVITY_TOOLS="$root/tools" $py - "$case_dir" "$out" "$last" "$cells" "$t0" "$t1" "$nu" "$tolerance" "$max_iter" "$refine" "$mesh" \
      "$log/simpleFoam.log" <<'EOF'
import glob, json, os, re, socket, sys
import numpy as np
import meshio

sys.path.insert(0, os.environ["FOAM_CAVITY_TOOLS"])  # tools/foam_cavity_vtu.py
from foam_cavity_vtu import write_cavity_vtu  # noqa: E402

case, out, last, cells, t0, t1, nu, tol, max_iter, refine, mesh, log = sys.argv[1:]
wall = float(t1) - float(t0)

# The log: "Time = N" opens iteration N; its first solve of each field carries the initial residual that
# residualControl compares (p is solved 1 + nNonOrthogonalCorrectors times); "SIMPLE solution converged
# in N iterations" when residualControl is met.
iterations, converged, res = 0, False, {}
first = {}
solve = re.compile(r"Solving for (\w+), Initial residual = ([-+0-9.eE]+)")
with open(log) as f:
    for line in f:
        m = re.match(r"^Time = (\d+)\s*$", line)
        if m:
            iterations, first = int(m.group(1)), {}
            continue
        m = solve.search(line)
        if m and m.group(1) not in first:
            first[m.group(1)] = float(m.group(2))
            res = dict(first)
        if "solution converged in" in line:
            converged = True
res_u = max((v for k, v in res.items() if k in ("Ux", "Uy", "Uz")), default=None)
res_p = res.get("p")

def read_set(name):
    """OpenFOAM csv set: header 'z,U_0,U_1,U_2' (v1912)."""
    cands = glob.glob(os.path.join(case, "postProcessing", "sampleLines", last, name + "*.csv"))
    if not cands:
        raise SystemExit(f"cavity_simplefoam.sh: no sample output for {name} at iteration {last}")
    data = np.genfromtxt(cands[0], delimiter=",", names=True)
    return np.column_stack([data[c] for c in data.dtype.names])

def write_csv(path, header, cols):
    np.savetxt(path, np.column_stack(cols), delimiter=",", header=header, comments="", fmt="%.6f")

uz, wx = read_set("u_vs_z"), read_set("w_vs_x")
write_csv(os.path.join(out, "simplefoam_u_vs_z.csv"), "z,u_x", [uz[:, 0], uz[:, 1]])
write_csv(os.path.join(out, "simplefoam_w_vs_x.csv"), "x,u_z", [wx[:, 0], wx[:, 3]])

write_cavity_vtu(case, os.path.join(out, "simplefoam.vtu"), "cavity_simplefoam.sh")

info = {
    "solver": "simpleFoam (OpenFOAM v1912, Debian), laminar, SIMPLEC (consistent, U relaxed 0.9), no "
              "non-orthogonal corrector, bounded Gauss linearUpwind grad(U), GAMG p, smoothSolver U",
    "mesh": os.path.relpath(mesh), "refine": int(refine), "cells": int(cells) if cells else None,
    "nu": float(nu), "re": 1.0 / float(nu), "tolerance": float(tol), "max_iterations": int(max_iter),
    "iterations": iterations, "converged": converged,
    "wall_seconds": round(wall, 3), "seconds_per_iteration": round(wall / max(iterations, 1), 6),
    "initial_residual_U": res_u, "initial_residual_p": res_p,
    "host": socket.gethostname(), "cpus_used": 1,
}
with open(os.path.join(out, "simplefoam.json"), "w") as f:
    json.dump(info, f, indent=2)
print(json.dumps(info, indent=2))
EOF

converged=$($py -c "import json, sys; print(json.load(open(sys.argv[1]))['converged'])" "$out/simplefoam.json")
if [[ "$converged" != True ]]; then
  echo "cavity_simplefoam.sh: not converged within $max_iter iterations (residualControl $tolerance; see $out/simplefoam.json)" >&2
  exit 3
fi
