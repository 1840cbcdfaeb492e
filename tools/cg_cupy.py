#!/usr/bin/env python3
"""CuPy CG + Jacobi (cuSPARSE SpMV, float32) on a system exported by `streamsolve bench cg
--export-matrix FILE.mtx` — the GPU peer of streamsolve's fragment-shader CG.

Usage:  tools/cg_cupy.py FILE.mtx [--tolerance 1e-6] [--max-iterations 20000] [--json OUT.json]

Same problem as streamsolve: K̃ (FILE.mtx, symmetric lower triangle, expanded to full CSR), b̃
(FILE.mtx.rhs.mtx), x0 = b̃ on the identity rows (fixed nodes), 0 elsewhere; float32 like
streamsolve's GPU path; Jacobi as a LinearOperator M(r) = r / diag(K̃).

Stopping test: cupyx.scipy.sparse.linalg.cg stops when the recursive ||r|| <= max(rtol·||b||,
atol) (SciPy semantics; the relative tolerance is called `tol` before CuPy 13 and `rtol` from
then on — this script passes whichever the installed version takes) with atol = 0: streamsolve's
||r|| / ||b|| <= tolerance. CuPy does not return its recursive residual; `relative_residual`
below is the explicit ||b − A x|| / ||b|| in float32 on the GPU, `true_relative_residual` the
same in float64 against the double system.

Timing: one untimed warm-up solve of 3 iterations (cuSPARSE buffers, kernel compilation), then
the solve between two device synchronisations. CuPy's cg compares the residual norm with the
tolerance on the host every iteration (one device→host sync per iteration, as streamsolve's
CG does for its norm).
Needs CuPy (on the GPU machine); without it, exits 2 with one clear error line.
"""
import inspect
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtx_io  # noqa: E402


def main():
    args = mtx_io.peer_arguments(__doc__)

    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        from cupyx.scipy.sparse.linalg import LinearOperator, cg
    except ImportError as e:
        print(f"cg_cupy.py: error: CuPy is not available ({e}); run this on the GPU machine", file=sys.stderr)
        return 2
    import numpy as np

    t_read = time.perf_counter()
    n, indptr, indices, data, b64 = mtx_io.read_system(args.matrix)
    x0_64 = mtx_io.initial_guess(indptr, indices, data, b64)
    diagonal = np.zeros(n)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    on_diagonal = rows == indices
    diagonal[rows[on_diagonal]] = data[on_diagonal]
    if np.any(diagonal <= 0):
        print(f"cg_cupy.py: error: {args.matrix}: diagonal not positive in {int(np.sum(diagonal <= 0))} rows",
              file=sys.stderr)
        return 1
    read_seconds = time.perf_counter() - t_read

    index = np.int32 if data.size < 2**31 else np.int64
    A32 = csp.csr_matrix((cp.asarray(data, dtype=cp.float32), cp.asarray(indices, dtype=index),
                          cp.asarray(indptr, dtype=index)), shape=(n, n))
    b32 = cp.asarray(b64, dtype=cp.float32)
    x0_32 = cp.asarray(x0_64, dtype=cp.float32)
    inverse_diagonal = cp.asarray(1.0 / diagonal, dtype=cp.float32)
    M = LinearOperator((n, n), matvec=lambda r: inverse_diagonal * r, dtype=cp.float32)

    parameters = inspect.signature(cg).parameters
    tolerance_name = "rtol" if "rtol" in parameters else "tol"
    iterations = 0

    def count(_):
        nonlocal iterations
        iterations += 1

    def solve(max_iterations, callback):
        kwargs = {tolerance_name: args.tolerance, "atol": 0.0, "maxiter": max_iterations, "M": M,
                  "callback": callback, "x0": x0_32}
        return cg(A32, b32, **kwargs)

    solve(3, None)  # warm-up
    device = cp.cuda.Device()
    device.synchronize()
    t0 = time.perf_counter()
    x, info = solve(args.max_iterations, count)
    device.synchronize()
    seconds = time.perf_counter() - t0

    b32_norm = float(cp.linalg.norm(b32))
    residual32 = float(cp.linalg.norm(b32 - A32 @ x)) / b32_norm
    A64 = csp.csr_matrix((cp.asarray(data), cp.asarray(indices, dtype=index), cp.asarray(indptr, dtype=index)),
                         shape=(n, n))
    b64_gpu = cp.asarray(b64)
    true_residual = float(cp.linalg.norm(b64_gpu - A64 @ x.astype(cp.float64)) / cp.linalg.norm(b64_gpu))

    props = cp.cuda.runtime.getDeviceProperties(device.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    result = {
        "backend": "cupy",
        "device": f"{name} (CuPy {cp.__version__}, cuSPARSE, float32)",
        "matrix": args.matrix,
        "unknowns": n,
        "tolerance": args.tolerance,
        "tolerance_keyword": tolerance_name,
        "converged": info == 0,
        "stop_reason": "converged" if info == 0 else (f"max_iterations ({info})" if info > 0 else f"breakdown ({info})"),
        "iterations": iterations,
        "seconds": seconds,
        "seconds_per_iteration": seconds / iterations if iterations else 0.0,
        "seconds_per_iteration_per_unknown": seconds / iterations / n if iterations else 0.0,
        "relative_residual": residual32,
        "true_relative_residual": true_residual,
        "read_seconds": read_seconds,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        tmp = f"{args.json}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.json)
    return 0 if info == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
