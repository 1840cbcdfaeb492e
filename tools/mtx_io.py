"""Fast reading of the Matrix Market files `streamsolve bench cg --export-matrix` writes.

  FILE.mtx      "%%MatrixMarket matrix coordinate real symmetric" (lower triangle, 1-based) or
                "... coordinate real general"
  FILE.rhs.mtx  "%%MatrixMarket matrix array real general", n x 1

The numbers are parsed by numpy in C (np.fromfile with a whitespace separator), which is one to
two orders of magnitude faster than scipy.io.mmread's reader in Debian 12's SciPy 1.10 for the
multi-million-entry systems of refined meshes. Only numpy is needed; scipy is optional.
"""
import argparse

import numpy as np


def _header(f):
    """Reads the banner, comments and size line; returns (banner fields, size line ints)."""
    banner = f.readline().decode("ascii", "replace").split()
    if len(banner) < 5 or banner[0].lower() != "%%matrixmarket":
        raise ValueError(f"{f.name}: not a Matrix Market file (banner {' '.join(banner)!r})")
    while True:
        line = f.readline()
        if not line:
            raise ValueError(f"{f.name}: no size line")
        s = line.strip()
        if s and not s.startswith(b"%"):
            return [w.lower() for w in banner[1:]], [int(v) for v in s.split()]


def read_coordinate(path):
    """Returns (n, rows, cols, values, symmetric): 0-based int64 indices, float64 values, as
    stored (for a symmetric file the lower triangle only)."""
    with open(path, "rb") as f:
        banner, size = _header(f)
        if banner[:3] != ["matrix", "coordinate", "real"] or banner[3] not in ("symmetric", "general"):
            raise ValueError(f"{path}: expected 'matrix coordinate real symmetric|general', got {' '.join(banner)}")
        nrows, ncols, nnz = size
        if nrows != ncols:
            raise ValueError(f"{path}: matrix is {nrows} x {ncols}, not square")
        data = np.fromfile(f, dtype=np.float64, sep=" ")
    if data.size != 3 * nnz:
        raise ValueError(f"{path}: expected {nnz} entries, read {data.size / 3:g}")
    data = data.reshape(nnz, 3)
    rows = data[:, 0].astype(np.int64) - 1
    cols = data[:, 1].astype(np.int64) - 1
    return nrows, rows, cols, data[:, 2].copy(), banner[3] == "symmetric"


def read_array(path):
    """A dense n x 1 Matrix Market array as a float64 vector."""
    with open(path, "rb") as f:
        banner, size = _header(f)
        if banner[:3] != ["matrix", "array", "real"]:
            raise ValueError(f"{path}: expected 'matrix array real', got {' '.join(banner)}")
        n, m = size
        if m != 1:
            raise ValueError(f"{path}: expected one column, got {m}")
        values = np.fromfile(f, dtype=np.float64, sep=" ")
    if values.size != n:
        raise ValueError(f"{path}: expected {n} values, read {values.size}")
    return values


def full_csr_arrays(n, rows, cols, values, symmetric):
    """The full matrix (both triangles) in CSR: (indptr, indices, data), rows sorted by column."""
    if symmetric:
        off = rows != cols
        rows, cols, values = (np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]]),
                              np.concatenate([values, values[off]]))
    # A stable sort by row (radix sort for integers: linear time) keeps the file's column order
    # within each row; streamsolve's files then come out with ascending columns (lower part, then
    # the transposed upper part). Other files fall back to a full (row, column) sort.
    order = np.argsort(rows, kind="stable")
    rows, cols, values = rows[order], cols[order], values[order]
    unsorted = (rows[1:] == rows[:-1]) & (cols[1:] <= cols[:-1])
    if unsorted.any():
        order = np.lexsort((cols, rows))
        rows, cols, values = rows[order], cols[order], values[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, cols, values


def read_system(path):
    """Reads FILE.mtx and FILE.mtx.rhs.mtx: returns (n, indptr, indices, data, b), the matrix in
    full CSR (float64, int64 indices)."""
    n, rows, cols, values, symmetric = read_coordinate(path)
    indptr, indices, data = full_csr_arrays(n, rows, cols, values, symmetric)
    b = read_array(path + ".rhs.mtx")
    if b.size != n:
        raise ValueError(f"{path}.rhs.mtx: {b.size} values for a {n} x {n} matrix")
    return n, indptr, indices, data, b


def initial_guess(indptr, indices, data, b):
    """x0 as streamsolve starts: b on identity rows (a single entry, 1 on the diagonal: the fixed
    nodes), 0 elsewhere."""
    counts = np.diff(indptr)
    first = indptr[:-1]
    single = counts == 1
    rows = np.arange(counts.size)
    identity = np.zeros(counts.size, dtype=bool)
    identity[single] = (indices[first[single]] == rows[single]) & (data[first[single]] == 1.0)
    return np.where(identity, b, 0.0)


def csr_multiply(indptr, indices, data, x):
    """y = A x in float64 with numpy only (for the true residual where scipy is absent)."""
    products = data * x[indices]
    sums = np.add.reduceat(products, indptr[:-1]) if products.size else np.zeros(0)
    empty = np.diff(indptr) == 0
    sums[empty] = 0.0
    return sums


def peer_arguments(doc, extra=None):
    """The command line every peer solver script takes: the exported matrix and the stopping rule
    (`extra(parser)` adds a script's own options)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    if extra:
        extra(parser)
    parser.add_argument("matrix", help="FILE.mtx from streamsolve bench cg --export-matrix (b in FILE.mtx.rhs.mtx)")
    parser.add_argument("--tolerance", type=float, default=1e-6, help="stop when ||r|| / ||b|| <= this")
    parser.add_argument("--max-iterations", type=int, default=20000)
    parser.add_argument("--json", help="also write the JSON here")
    return parser.parse_args()
