#!/usr/bin/python3
"""End-to-end checks of `streamsolve bench cg` (label gl: it opens a GL context).

1. bench cg on meshes/cube.msh refine 1, both backends, tolerance 1e-6, --export-matrix and
   --write-solution: the JSON keys of the issue, both backends converged, the exported matrix's
   Matrix Market header, sizes and symmetry convention, and the CPU run's true residual
   recomputed here from the exported K̃, b̃ and the written solution.
2. bench cg --backends cpu --tolerance 1e-12 --write-solution: the exported system solved here
   directly (scipy's sparse LU when SciPy is there, dense numpy.linalg.solve otherwise; 2072
   unknowns) agrees with streamsolve's CPU solution to 1e-8 relative (2-norm). Why 1e-8: CG stops
   at ||r|| <= 1e-12 ||b||, so the relative error is at most cond(K̃)·1e-12; cond(K̃) of this mesh is
   below 1e4 (h ≈ 0.05, identity rows), so the error is ≤ 1e-8 with room, while a wrong entry,
   a transposed triangle or a wrong b̃ shows up at O(1).
3. tools/cg_petsc.py on the exported system when petsc4py is installed: the same iteration count
   as streamsolve's CPU run (±1: same algorithm, same x0, same stopping test) and a true
   residual <= the tolerance.
4. One-line errors: --backends wrong, a transient case, no mesh.
Usage: check_bench_cg.py STREAMSOLVE SOURCE_DIR WORK_DIR ; exit status 0 when all pass."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

exe, source, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(source, "tools"))
import mtx_io  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
mesh = os.path.join(source, "meshes", "cube.msh")
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)


def one_error_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith("streamsolve: bench cg: ")]
    return r.returncode != 0 and len(lines) == 1 and lines[0].startswith("streamsolve: error: ")


# 1. Both backends, default tolerance, Jacobi (the PETSc peer below runs CG + Jacobi on the same system).
out, mtx, sol = f"{work}/cg.json", f"{work}/system.mtx", f"{work}/solution.mtx"
r = run("bench", "cg", "--mesh", mesh, "--refine", "1", "--preconditioner", "jacobi", "--json", out, "--export-matrix",
        mtx, "--write-solution", sol)
check(f"bench cg exit {r.returncode} {r.stderr.strip()[-300:]}", r.returncode == 0)
report = json.load(open(out))
for key in ["device", "mesh", "unknowns", "results"]:
    check(f"JSON has {key}", key in report)
check("mesh nodes and tets", report["mesh"]["nodes"] == report["unknowns"] and report["mesh"]["tets"] > 0)
check("default problem: left at 0, right at 1",
      [(b["group"], b["value"]) for b in report["problem"]["boundary"]] == [("left", 0.0), ("right", 1.0)])
results = {x["backend"]: x for x in report["results"]}
check("results for gpu and cpu", sorted(results) == ["cpu", "gpu"])
for backend, x in results.items():
    for key in ["iterations", "seconds", "seconds_per_iteration", "seconds_per_iteration_per_unknown",
                "relative_residual", "true_relative_residual"]:
        check(f"{backend} {key} present and positive", isinstance(x.get(key), (int, float)) and x[key] > 0)
    check(f"{backend} converged", x["converged"] and x["relative_residual"] <= 1e-6)
    spi = x["seconds"] / x["iterations"]
    check(f"{backend} seconds_per_iteration consistent", abs(x["seconds_per_iteration"] - spi) <= 1e-12 + 1e-9 * spi)
# The CPU (double) true residual is its recursive one up to rounding; the GPU (float32) one may sit
# above it by float rounding of K̃ and x: 1e-5 bounds it on this mesh (measured ~1.0e-6).
check("cpu true residual <= 1.01e-6", results["cpu"]["true_relative_residual"] <= 1.01e-6)
check("gpu true residual <= 1e-5", results["gpu"]["true_relative_residual"] <= 1e-5)

header = open(mtx, "rb").readline().decode()
check(f"matrix header symmetric coordinate: {header.strip()}",
      header.strip() == "%%MatrixMarket matrix coordinate real symmetric")
n, rows, cols, values, symmetric = mtx_io.read_coordinate(mtx)
check("matrix is n x n with n = unknowns", n == report["unknowns"])
check("lower triangle only", bool(np.all(rows >= cols)))
check("nnz_lower in JSON", report["matrix"]["nnz_lower"] == values.size)
n, indptr, indices, data, b = mtx_io.read_system(mtx)
fixed = report["problem"]["fixed_nodes"]
x0 = mtx_io.initial_guess(indptr, indices, data, b)
identity_rows = int(np.sum((np.diff(indptr) == 1) & (data[indptr[:-1]] == 1.0) & (indices[indptr[:-1]] == np.arange(n))))
check(f"{fixed} identity rows (fixed nodes): found {identity_rows}", identity_rows == fixed)
x = mtx_io.read_array(sol)
residual = np.linalg.norm(b - mtx_io.csr_multiply(indptr, indices, data, x)) / np.linalg.norm(b)
reported = results["cpu"]["true_relative_residual"]
check(f"true residual from the files {residual:.6e} = reported {reported:.6e}", abs(residual - reported) <= 1e-6 * reported)

# 2. Tight CPU solve against a direct solve of the exported system.
mtx2, sol2 = f"{work}/tight.mtx", f"{work}/tight_solution.mtx"
r = run("bench", "cg", "--mesh", mesh, "--refine", "1", "--backends", "cpu", "--tolerance", "1e-12",
        "--export-matrix", mtx2, "--write-solution", sol2, "--json", f"{work}/tight.json")
check(f"bench cg --backends cpu --tolerance 1e-12 exit {r.returncode}", r.returncode == 0)
tight = json.load(open(f"{work}/tight.json"))["results"][0]
check(f"default preconditioner is multigrid: {tight['preconditioner']}", tight["preconditioner"] == "multigrid")
n, indptr, indices, data, b = mtx_io.read_system(mtx2)
try:
    import scipy.sparse
    import scipy.sparse.linalg
    A = scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))
    direct = scipy.sparse.linalg.spsolve(A.tocsc(), b)
    how = "scipy spsolve"
except ImportError:
    dense = np.zeros((n, n))
    dense[np.repeat(np.arange(n), np.diff(indptr)), indices] = data
    direct = np.linalg.solve(dense, b)
    how = "numpy dense solve"
x = mtx_io.read_array(sol2)
error = np.linalg.norm(x - direct) / np.linalg.norm(direct)
check(f"CPU CG solution = {how} of the exported system: relative error {error:.2e} <= 1e-8", error <= 1e-8)

# 3. PETSc on the same system (optional peer).
petsc_check = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                              "from cg_petsc import import_petsc; import_petsc()", os.path.join(source, "tools")],
                             capture_output=True)
if petsc_check.returncode == 0:
    r = subprocess.run([sys.executable, os.path.join(source, "tools", "cg_petsc.py"), mtx, "--json", f"{work}/petsc.json"],
                       capture_output=True, text=True, timeout=600)
    check(f"cg_petsc.py exit {r.returncode} {r.stderr.strip()[-300:]}", r.returncode == 0)
    if r.returncode == 0:
        p = json.load(open(f"{work}/petsc.json"))
        check(f"PETSc iterations {p['iterations']} = streamsolve CPU {results['cpu']['iterations']} (±1)",
              abs(p["iterations"] - results["cpu"]["iterations"]) <= 1)
        check(f"PETSc true residual {p['true_relative_residual']:.2e} <= 1.01e-6", p["true_relative_residual"] <= 1.01e-6)
else:
    print("skip  tools/cg_petsc.py (no petsc4py)")

# 4. Errors.
r = run("bench", "cg", "--mesh", mesh, "--backends", "gpu,opencl")
check(f"--backends opencl is one clear error: {r.stderr.strip()}", one_error_line(r) and "opencl" in r.stderr)
case = f"{work}/transient.toml"
with open(case, "w") as f:
    f.write(f'[mesh]\nfile = "{mesh}"\n[material]\nconductivity = 1.0\n[[boundary]]\ngroup = "left"\n'
            'type = "dirichlet"\nvalue = 0.0\n[time]\ndt = 0.1\nsteps = 2\n')
r = run("bench", "cg", "--case", case)
check(f"transient case is one clear error: {r.stderr.strip()}", one_error_line(r) and "steady" in r.stderr)
r = run("bench", "cg", "--backends", "cpu")
check(f"no mesh is one clear error: {r.stderr.strip()}", one_error_line(r) and "--mesh" in r.stderr)
leftovers = [f for f in os.listdir(work) if ".tmp." in f]
check(f"no temporary files left: {leftovers}", not leftovers)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
