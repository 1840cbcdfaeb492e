#!/usr/bin/env bash
# CG + Jacobi on one steady heat system, streamsolve against its peers, in one table.
#   tools/compare_cg.sh MESH REFINE OUTDIR
# 1. streamsolve bench cg (GPU fragment path and CPU reference) with --export-matrix OUTDIR/system.mtx
# 2. tools/cg_petsc.py on the exported system with 1 rank and with $(nproc) ranks (PETSC_RANKS)
#    when petsc4py is there (Debian: tools/install_deps.sh --tools)
# 3. tools/cg_cupy.py when some python has CuPy (the GPU machine)
# 4. one table: unknowns, iterations, s/iteration, total s, true residual — on stdout and as
#    Markdown in OUTDIR/table.md; every tool's JSON stays in OUTDIR.
# Environment: STREAMSOLVE (default build/streamsolve), SS_GLOBAL_ARGS (global options before
# `bench`, e.g. "--gpu 1" or "--launch fragment,compute": one GPU row per launch path), TOLERANCE (1e-6), PETSC_RANKS ("1 $(nproc)"), PYTHON (/usr/bin/python3
# for PETSc and the table), CUPY_PYTHON (the first of python3, /usr/bin/python3 with cupy).
set -uo pipefail
if [ $# -ne 3 ]; then
  echo "usage: tools/compare_cg.sh MESH REFINE OUTDIR" >&2
  exit 2
fi
mesh=$1 refine=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${STREAMSOLVE:-$root/build/streamsolve}
tol=${TOLERANCE:-1e-6}
py=${PYTHON:-/usr/bin/python3}
ranks_list=${PETSC_RANKS:-"1 $(nproc)"}
[ -x "$exe" ] || { echo "compare_cg.sh: no streamsolve at $exe (build it, or set STREAMSOLVE)" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out"/streamsolve.json "$out"/petsc_*.json "$out"/cupy.json "$out"/table.md
status=0

echo "== streamsolve bench cg ($mesh refine $refine)" >&2
# Jacobi, float32, textbook CG: the algorithm the peers run (bench cg's default is the multigrid).
# shellcheck disable=SC2086
if ! "$exe" ${SS_GLOBAL_ARGS:-} bench cg --mesh "$mesh" --refine "$refine" --tolerance "$tol" \
    --preconditioner jacobi --precisions float --variants textbook \
    --export-matrix "$out/system.mtx" --json "$out/streamsolve.json" >"$out/streamsolve.txt"; then
  echo "compare_cg.sh: streamsolve bench cg failed (its JSON, if written, is in the table)" >&2
  status=1
fi
[ -f "$out/system.mtx" ] || { echo "compare_cg.sh: no exported system; stopping" >&2; exit 1; }

if "$py" -c "import sys; sys.path.insert(0, '$root/tools'); from cg_petsc import import_petsc; import_petsc()" 2>/dev/null; then
  mpi_root=()
  [ "$(id -u)" -eq 0 ] && mpi_root=(--allow-run-as-root)
  for ranks in $(echo $ranks_list | tr ' ' '\n' | awk '!seen[$0]++'); do
    echo "== PETSc CG + Jacobi, $ranks rank(s)" >&2
    if [ "$ranks" -eq 1 ]; then
      cmd=("$py" "$root/tools/cg_petsc.py")
    else
      command -v mpiexec >/dev/null || { echo "compare_cg.sh: no mpiexec; PETSc with $ranks ranks skipped" >&2; continue; }
      cmd=(mpiexec "${mpi_root[@]}" -n "$ranks" --bind-to core "$py" "$root/tools/cg_petsc.py")
    fi
    "${cmd[@]}" "$out/system.mtx" --tolerance "$tol" --json "$out/petsc_$ranks.json" >/dev/null ||
      echo "compare_cg.sh: PETSc with $ranks rank(s) failed" >&2
  done
else
  echo "compare_cg.sh: petsc4py not found (tools/install_deps.sh --tools); PETSc skipped" >&2
fi

cupy_py=${CUPY_PYTHON:-}
if [ -z "$cupy_py" ]; then
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import cupy, numpy" 2>/dev/null; then cupy_py=$candidate; break; fi
  done
fi
if [ -n "$cupy_py" ]; then
  echo "== CuPy CG + Jacobi (float32)" >&2
  "$cupy_py" "$root/tools/cg_cupy.py" "$out/system.mtx" --tolerance "$tol" --json "$out/cupy.json" >/dev/null ||
    echo "compare_cg.sh: CuPy failed" >&2
else
  echo "compare_cg.sh: CuPy not found (GPU machine only); skipped" >&2
fi

"$py" - "$out" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
rows = []
def add(label, r, unknowns):
    rows.append((label, unknowns, r["iterations"], r["seconds_per_iteration"], r["seconds"],
                 r["true_relative_residual"], "" if r.get("converged", True) else "not converged", r.get("device", "")))
path = os.path.join(out, "streamsolve.json")
if os.path.exists(path):
    s = json.load(open(path))
    for r in s["results"]:
        label = f"streamsolve GPU ({r.get('launch') or 'fragment'})" if r["backend"] == "gpu" else "streamsolve CPU"
        add(label, r, s["unknowns"])
for path in sorted(glob.glob(os.path.join(out, "petsc_*.json")), key=lambda p: int(p.rsplit("_", 1)[1][:-5])):
    r = json.load(open(path))
    add(f"PETSc CPU ({r['ranks']} rank{'s' if r['ranks'] > 1 else ''})", r, r["unknowns"])
path = os.path.join(out, "cupy.json")
if os.path.exists(path):
    r = json.load(open(path))
    add("CuPy GPU (cuSPARSE, fp32)", r, r["unknowns"])
head = ("solver", "unknowns", "iterations", "s/iteration", "total s", "true residual", "note", "device")
fmt = lambda row: (row[0], str(row[1]), str(row[2]), f"{row[3]:.3e}", f"{row[4]:.3f}", f"{row[5]:.2e}", row[6], row[7])
cells = [head] + [fmt(r) for r in rows]
widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
for c in cells:
    print("  ".join(c[i].ljust(widths[i]) if i == 0 else c[i].rjust(widths[i]) for i in range(len(head) - 1)) + "  " + c[-1])
with open(os.path.join(out, "table.md"), "w") as f:
    f.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
    for c in cells[1:]:
        f.write("| " + " | ".join(c) + " |\n")
EOF
exit $status
