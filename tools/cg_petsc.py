#!/usr/bin/python3
"""PETSc CG + Jacobi (or GAMG, hypre BoomerAMG) on a system exported by `streamsolve bench cg --export-matrix FILE.mtx`.

Usage:  tools/cg_petsc.py FILE.mtx [--pc jacobi|gamg|hypre] [--tolerance 1e-6] [--max-iterations 20000] [--json OUT.json]
        mpiexec -n 16 tools/cg_petsc.py FILE.mtx ...

The same problem streamsolve solves: K̃ from FILE.mtx (symmetric, lower triangle), b̃ from
FILE.mtx.rhs.mtx, x0 = b̃ on the identity rows (fixed nodes) and 0 elsewhere, CG with the Jacobi
preconditioner, stopping when the recursive ||r|| / ||b|| <= tolerance. PETSc's CG tests the
preconditioned residual by default; the norm type is set to UNPRECONDITIONED so that the test is
streamsolve's, and KSPConvergedDefault then compares with rtol·||b|| (not ||r0||), also
streamsolve's. PETSc works in double; one process per rank, no threads.

With more than one rank, rank 0 converts the Matrix Market file once into PETSc's binary format
(FILE.mtx.petsc, reused while newer than FILE.mtx) and every rank loads its rows from it.
Prints one JSON object on stdout (rank 0): iterations, seconds (KSPSolve only), seconds per
iteration, the recursive and the true relative residual (||b − A x|| / ||b|| in double), and
setup_seconds (KSPSetUp: the AMG hierarchy for gamg/hypre, PETSc defaults otherwise).
Needs petsc4py (Debian: python3-petsc4py, see tools/install_deps.sh --tools) and numpy.
"""
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtx_io  # noqa: E402


def import_petsc():
    try:
        import petsc4py
    except ImportError:
        # Debian's petsc4py.pth looks under /usr/lib/petsc, a link only petsc-dev installs; take
        # the real-number build directly.
        found = sorted(glob.glob("/usr/lib/petscdir/petsc*/x86_64-linux-gnu-real/lib/python3/dist-packages"))
        if not found:
            sys.exit("cg_petsc.py: error: petsc4py is not installed (Debian: apt-get install python3-petsc4py, "
                     "or tools/install_deps.sh --tools)")
        sys.path.append(found[-1])
        import petsc4py
    petsc4py.init([sys.argv[0]])  # our options are ours, not PETSc's
    from petsc4py import PETSc
    return PETSc


def main():
    args = mtx_io.peer_arguments(__doc__, lambda p: p.add_argument(
        "--pc", choices=["jacobi", "gamg", "hypre"], default="jacobi",
        help="preconditioner: jacobi, gamg (smoothed aggregation), hypre (BoomerAMG)"))

    PETSc = import_petsc()
    comm = PETSc.COMM_WORLD
    rank, size = comm.getRank(), comm.getSize()

    t_read = time.perf_counter()
    if size == 1:
        n, indptr, indices, data, b_np = mtx_io.read_system(args.matrix)
        x0_np = mtx_io.initial_guess(indptr, indices, data, b_np)
        ityp = PETSc.IntType
        A = PETSc.Mat().createAIJ(size=(n, n), csr=(indptr.astype(ityp), indices.astype(ityp), data), comm=comm)
        A.assemble()
        b = PETSc.Vec().createWithArray(b_np, comm=comm)
        x0 = PETSc.Vec().createWithArray(x0_np, comm=comm)
    else:
        cache = args.matrix + ".petsc"
        if rank == 0 and (not os.path.exists(cache) or os.path.getmtime(cache) < os.path.getmtime(args.matrix)
                          or os.path.getmtime(cache) < os.path.getmtime(args.matrix + ".rhs.mtx")):
            n, indptr, indices, data, b_np = mtx_io.read_system(args.matrix)
            x0_np = mtx_io.initial_guess(indptr, indices, data, b_np)
            ityp = PETSc.IntType
            self_comm = PETSc.COMM_SELF
            A0 = PETSc.Mat().createAIJ(size=(n, n), csr=(indptr.astype(ityp), indices.astype(ityp), data),
                                       comm=self_comm)
            A0.assemble()
            tmp = f"{cache}.tmp.{os.getpid()}"
            viewer = PETSc.Viewer().createBinary(tmp, "w", comm=self_comm)
            A0.view(viewer)
            PETSc.Vec().createWithArray(b_np, comm=self_comm).view(viewer)
            PETSc.Vec().createWithArray(x0_np, comm=self_comm).view(viewer)
            viewer.destroy()
            for extra in [tmp + ".info"]:
                if os.path.exists(extra):
                    os.replace(extra, cache + ".info")
            os.replace(tmp, cache)
            del A0, indptr, indices, data
        comm.barrier()
        viewer = PETSc.Viewer().createBinary(cache, "r", comm=comm)
        A = PETSc.Mat().create(comm=comm)
        A.setType(PETSc.Mat.Type.AIJ)
        A.load(viewer)
        b = PETSc.Vec().create(comm=comm)
        b.load(viewer)
        x0 = PETSc.Vec().create(comm=comm)
        x0.load(viewer)
        viewer.destroy()
        n = A.getSize()[0]
    read_seconds = time.perf_counter() - t_read

    ksp = PETSc.KSP().create(comm=comm)
    ksp.setOperators(A)
    ksp.setType(PETSc.KSP.Type.CG)
    pc = ksp.getPC()
    if args.pc == "jacobi":
        pc.setType(PETSc.PC.Type.JACOBI)
    elif args.pc == "gamg":
        pc.setType(PETSc.PC.Type.GAMG)
    else:
        pc.setType(PETSc.PC.Type.HYPRE)
        pc.setHYPREType("boomeramg")
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setInitialGuessNonzero(True)
    ksp.setFromOptions()
    comm.barrier()
    t_setup = time.perf_counter()
    ksp.setUp()
    comm.barrier()
    setup_seconds = time.perf_counter() - t_setup

    # Warm-up (first-touch of the work vectors, MPI buffers), not timed.
    x = x0.duplicate()
    x0.copy(x)
    ksp.setTolerances(rtol=args.tolerance, atol=0.0, max_it=3)
    ksp.solve(b, x)

    ksp.setTolerances(rtol=args.tolerance, atol=0.0, divtol=1e12, max_it=args.max_iterations)
    x0.copy(x)
    comm.barrier()
    t0 = time.perf_counter()
    ksp.solve(b, x)
    comm.barrier()
    seconds = time.perf_counter() - t0
    iterations = ksp.getIterationNumber()
    reason = ksp.getConvergedReason()

    b_norm = b.norm()
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)  # r = b − A x
    true_residual = r.norm() / b_norm

    reasons = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    result = {
        "backend": "petsc",
        "preconditioner": args.pc,
        "setup_seconds": setup_seconds,
        "device": f"PETSc {'.'.join(map(str, PETSc.Sys.getVersion()))} CPU (double, {size} MPI rank{'s' if size > 1 else ''})",
        "ranks": size,
        "matrix": args.matrix,
        "unknowns": n,
        "tolerance": args.tolerance,
        "converged": reason > 0,
        "stop_reason": reasons.get(reason, str(reason)),
        "iterations": iterations,
        "seconds": seconds,
        "seconds_per_iteration": seconds / iterations if iterations else 0.0,
        "seconds_per_iteration_per_unknown": seconds / iterations / n if iterations else 0.0,
        "relative_residual": ksp.getResidualNorm() / b_norm,
        "true_relative_residual": true_residual,
        "read_seconds": read_seconds,
    }
    if rank == 0:
        text = json.dumps(result, indent=2)
        print(text)
        if args.json:
            tmp = f"{args.json}.tmp.{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(text + "\n")
            os.replace(tmp, args.json)
    return 0 if reason > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
