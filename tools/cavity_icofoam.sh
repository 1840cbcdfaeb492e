#!/usr/bin/env bash
# icoFoam peer for the lid-driven cubic cavity: runs OpenFOAM's transient laminar PISO solver on the SAME
# tetrahedral mesh streamsolve uses and writes the two standard centre-line profiles.
#
#   tools/cavity_icofoam.sh [--mesh meshes/cavity.msh] [--refine K] [--nu 0.01] [--dt 0.005]
#                           [--end 2.0] [--out DIR] [--keep]
#
#   --mesh    gmsh mesh with physical surfaces "lid" (z = 1, moves with (1 0 0)) and "walls" (no slip)
#   --refine  split every tetrahedron into 8, K times (gmsh -refine), before the conversion (default 0)
#   --nu      kinematic viscosity; Re = 1/nu for the unit cube and lid speed 1 (default 0.01: Re 100)
#   --dt      time step (default 0.005);  --end  end time (default 2.0)
#   --out     output folder (default out/cavity_icofoam); the OpenFOAM case is DIR/case
#   --keep    keep every written time directory (default: the case is kept, nothing is deleted anyway)
#
# Writes
#   DIR/icofoam_u_vs_z.csv   z,u_x   on x = y = 0.5 (101 points, OpenFOAM sample, cellPoint interpolation)
#   DIR/icofoam_w_vs_x.csv   x,u_z   on y = z = 0.5
#   DIR/icofoam.vtu          the last time step as a VTU with point data `velocity` and `pressure`
#                            (foamToVTK's cell-to-point interpolation), the same layout streamsolve writes
#   DIR/icofoam.json         cells, steps, wall seconds, seconds per step, nu, dt, end time, and the
#                            steadiness measure: max |profile(end) - profile(end - 0.5)| over both lines
#
# Needs Debian's `openfoam` (v1912: binaries in /usr/bin, environment /usr/share/openfoam/etc/bashrc),
# `gmsh` (MSH 4.1 -> 2.2 ASCII for gmshToFoam) and python3-numpy + python3-meshio.
# Single process, single thread.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

mesh="$root/meshes/cavity.msh" refine=0 nu=0.01 dt=0.005 end=2.0 out="$root/out/cavity_icofoam"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mesh) mesh="$(realpath "$2")"; shift 2 ;;
    --refine) refine="$2"; shift 2 ;;
    --nu) nu="$2"; shift 2 ;;
    --dt) dt="$2"; shift 2 ;;
    --end) end="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep) shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "cavity_icofoam.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# shellcheck source=tools/foam_cavity_common.sh
source "$root/tools/foam_cavity_common.sh"
foam_cavity_setup cavity_icofoam.sh icoFoam
py=/usr/bin/python3

mkdir -p "$out"
out="$(realpath "$out")"
case_dir="$out/case"
rm -rf "$case_dir"
mkdir -p "$case_dir/system" "$case_dir/constant" "$case_dir/0"
log="$out/logs"
mkdir -p "$log"

# ---- mesh: MSH 4.1 binary -> (refined) MSH 2.2 ASCII -> polyMesh ----
foam_cavity_msh22 cavity_icofoam.sh "$mesh" "$refine" "$out" "$log"

# Time directories are written every 0.5 time units (and at the end), so the steadiness check can compare
# the last profile with the one 0.5 earlier.
write_interval=0.5
read -r n_steps half_steps <<< "$($py -c "
e, d, w = float('$end'), float('$dt'), $write_interval
n = round(e / d); assert abs(n * d - e) < 1e-9 * max(1, e), 'end time must be a multiple of dt'
print(n, round(w / d))")"

cat > "$case_dir/system/controlDict" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object controlDict; }
application     icoFoam;
startFrom       startTime;
startTime       0;
stopAt          endTime;
endTime         $end;
deltaT          $dt;
writeControl    timeStep;
writeInterval   $half_steps;
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
ddtSchemes      { default Euler; }
gradSchemes     { default Gauss linear; }
divSchemes      { default none; div(phi,U) Gauss linear; }
laplacianSchemes { default Gauss linear corrected; }
interpolationSchemes { default linear; }
snGradSchemes   { default corrected; }
EOF

cat > "$case_dir/system/fvSolution" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }
solvers
{
    p     { solver PCG; preconditioner DIC; tolerance 1e-07; relTol 0.05; }
    pFinal { $p; relTol 0; }
    U     { solver smoothSolver; smoother symGaussSeidel; tolerance 1e-07; relTol 0; }
}
PISO
{
    nCorrectors     2;
    // Tetrahedra are far from orthogonal: one extra pass of the explicit correction.
    nNonOrthogonalCorrectors 1;
    pRefCell        0;
    pRefValue       0;
}
EOF

foam_cavity_sample_lines "$case_dir"

cat > "$case_dir/constant/transportProperties" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object transportProperties; }
nu              $nu;
EOF

foam_cavity_initial_fields "$case_dir"

foam_cavity_polymesh cavity_icofoam.sh "$case_dir" "$out" "$log"

# ---- run ----
t0=$(date +%s.%N)
(cd "$case_dir" && icoFoam > "$log/icoFoam.log" 2>&1) || { tail -30 "$log/icoFoam.log" >&2; exit 1; }
t1=$(date +%s.%N)

# ---- sample: last time and 0.5 earlier ----
last=$(cd "$case_dir" && foamListTimes -latestTime 2>/dev/null | tail -1)
prev=$($py -c "print('%g' % (float('$end') - $write_interval))")
(cd "$case_dir" && postProcess -func sampleLines -time "$prev,$last" > "$log/sample.log" 2>&1) \
  || { tail -20 "$log/sample.log" >&2; exit 1; }
(cd "$case_dir" && foamToVTK -latestTime > "$log/foamToVTK.log" 2>&1) || { tail -20 "$log/foamToVTK.log" >&2; exit 1; }

FOAM_CAVITY_TOOLS="$root/tools" $py - "$case_dir" "$out" "$last" "$prev" "$cells" "$n_steps" "$t0" "$t1" "$nu" "$dt" "$end" "$refine" "$mesh" <<'EOF'
import glob, json, os, socket, sys
import numpy as np
import meshio

sys.path.insert(0, os.environ["FOAM_CAVITY_TOOLS"])  # tools/foam_cavity_vtu.py
from foam_cavity_vtu import write_cavity_vtu  # noqa: E402

case, out, last, prev, cells, steps, t0, t1, nu, dt, end, refine, mesh = sys.argv[1:]
steps = int(steps)
wall = float(t1) - float(t0)

def read_set(time, name):
    """OpenFOAM csv set: header 'z,U_0,U_1,U_2' (v1912)."""
    cands = glob.glob(os.path.join(case, "postProcessing", "sampleLines", time, name + "*.csv"))
    if not cands:
        raise SystemExit(f"cavity_icofoam.sh: no sample output for {name} at t = {time}")
    data = np.genfromtxt(cands[0], delimiter=",", names=True)
    cols = data.dtype.names
    return np.column_stack([data[c] for c in cols])

def write_csv(path, header, cols):
    np.savetxt(path, np.column_stack(cols), delimiter=",", header=header, comments="", fmt="%.6f")

uz_last, uz_prev = read_set(last, "u_vs_z"), read_set(prev, "u_vs_z")
wx_last, wx_prev = read_set(last, "w_vs_x"), read_set(prev, "w_vs_x")
write_csv(os.path.join(out, "icofoam_u_vs_z.csv"), "z,u_x", [uz_last[:, 0], uz_last[:, 1]])
write_csv(os.path.join(out, "icofoam_w_vs_x.csv"), "x,u_z", [wx_last[:, 0], wx_last[:, 3]])
change = max(float(np.max(np.abs(uz_last[:, 1] - uz_prev[:, 1]))),
             float(np.max(np.abs(wx_last[:, 3] - wx_prev[:, 3]))))

write_cavity_vtu(case, os.path.join(out, "icofoam.vtu"), "cavity_icofoam.sh")

info = {
    "solver": "icoFoam (OpenFOAM v1912, Debian), PISO 2 correctors + 1 non-orthogonal, Euler, Gauss linear",
    "mesh": os.path.relpath(mesh), "refine": int(refine), "cells": int(cells) if cells else None,
    "nu": float(nu), "re": 1.0 / float(nu), "dt": float(dt), "end_time": float(end), "steps": steps,
    "wall_seconds": round(wall, 3), "seconds_per_step": round(wall / steps, 6),
    "max_profile_change_last_0.5": round(change, 6),
    "host": socket.gethostname(), "cpus_used": 1,
}
with open(os.path.join(out, "icofoam.json"), "w") as f:
    json.dump(info, f, indent=2)
print(json.dumps(info, indent=2))
EOF
