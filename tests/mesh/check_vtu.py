#!/usr/bin/python3
"""Reads VTU files written by test_vtu with meshio and compares them with the reference text files
the test wrote next to them. Usage: check_vtu.py DIR NAME... ; exit status 0 when all match."""
import sys

import meshio
import numpy as np

d = sys.argv[1]
points = np.loadtxt(f"{d}/ref_points.txt").reshape(-1, 3)
tets = np.loadtxt(f"{d}/ref_tets.txt", dtype=np.int64).reshape(-1, 4)
tris = np.loadtxt(f"{d}/ref_tris.txt", dtype=np.int64).reshape(-1, 3)
groups = np.loadtxt(f"{d}/ref_groups.txt", dtype=np.int64).reshape(-1)
failures = []
for name in sys.argv[2:]:
    m = meshio.read(f"{d}/{name}.vtu")
    def check(what, ok):
        if not ok:
            failures.append(f"{name}: {what}")
    check("points", np.array_equal(m.points, points))
    blocks = {c.type: c.data for c in m.cells}
    check("tetra", np.array_equal(blocks.get("tetra"), tets))
    check("triangle", np.array_equal(blocks.get("triangle"), tris))
    check("f", np.array_equal(m.point_data["f"], points[:, 0] + 2 * points[:, 1] + 3 * points[:, 2]))
    check("position", np.array_equal(m.point_data["position"], points))
    # Float32 on file: the doubles rounded to nearest float (ascii: 9 significant digits round-trip)
    check("position32 dtype", m.point_data["position32"].dtype == np.float32)
    check("position32", np.array_equal(m.point_data["position32"], points.astype(np.float32)))
    cell_types = [c.type for c in m.cells]
    g = dict(zip(cell_types, m.cell_data["group"]))
    check("group dtype", g["tetra"].dtype == np.int32)
    check("group", np.array_equal(np.concatenate([g["tetra"], g["triangle"]]), groups))
    ids = dict(zip(cell_types, m.cell_data["cell_id"]))
    check("cell_id", np.array_equal(np.concatenate([ids["tetra"], ids["triangle"]]),
                                    np.arange(len(tets) + len(tris), dtype=np.float64)))
print("\n".join(failures) if failures else "ok")
sys.exit(1 if failures else 0)
