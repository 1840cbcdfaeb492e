#!/usr/bin/python3
"""Reads VTU files written by Vtu.LargeArraysRoundTrip with meshio and checks their arrays against the
formulas the test used, and their points and cells against the first file's (written another way).
Usage: check_vtu_arrays.py FILE... ; prints "ok" and exits 0 when all match."""
import sys

import meshio
import numpy as np


def noise(n):
    """52 pseudo-random mantissa bits per value, exact in double: the test's incompressible array."""
    i = np.arange(n, dtype=np.uint64)
    a = (i * np.uint64(2654435761)) % np.uint64(1 << 32)
    b = ((i + np.uint64(1)) * np.uint64(2246822519)) % np.uint64(1 << 32)
    return (a * np.uint64(1 << 20) + (b >> np.uint64(12))).astype(np.float64) / float(1 << 52)


failures = []
first = None
for path in sys.argv[1:]:
    m = meshio.read(path)
    if first is None:
        first = m
    elif not np.array_equal(m.points, first.points) or len(m.cells) != len(first.cells) or any(
            a.type != b.type or not np.array_equal(a.data, b.data) for a, b in zip(m.cells, first.cells)):
        failures.append(f"{path}: points or cells differ from {sys.argv[1]}'s")
    cells = sum(len(c.data) for c in m.cells)
    expected_x = m.points[:, 0] + 2 * m.points[:, 1]
    if not np.array_equal(m.point_data["smooth"], expected_x):
        failures.append(f"{path}: point array 'smooth'")
    if not np.array_equal(np.concatenate(m.cell_data["noise"]), noise(cells)):
        failures.append(f"{path}: cell array 'noise'")
print("\n".join(failures) if failures else "ok")
sys.exit(1 if failures else 0)
