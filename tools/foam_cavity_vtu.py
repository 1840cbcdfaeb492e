"""Imported by the OpenFOAM cavity peers (tools/cavity_icofoam.sh, tools/cavity_simplefoam.sh): the
case's last foamToVTK output as a VTU with the layout streamsolve writes (tetrahedra; point data
`velocity`, `pressure`; cell data `velocity`)."""
import glob
import os

import meshio
import numpy as np


def write_cavity_vtu(case, path, script):
    """Writes `path` from CASE/VTK; `script` names the caller in the error when foamToVTK wrote nothing."""
    vtus = sorted(glob.glob(os.path.join(case, "VTK", "**", "internal.vtu"), recursive=True)) or \
        sorted(glob.glob(os.path.join(case, "VTK", "*.vtk")))
    if not vtus:
        raise SystemExit(f"{script}: foamToVTK wrote nothing")
    m = meshio.read(vtus[-1])
    tets = [c for c in m.cells if c.type == "tetra"]
    point_data = {"velocity": np.asarray(m.point_data["U"], dtype=float)}
    if "p" in m.point_data:
        point_data["pressure"] = np.asarray(m.point_data["p"], dtype=float)
    cell_data = {}
    if "U" in m.cell_data:
        cell_data["velocity"] = [np.asarray(a, dtype=float) for a, c in zip(m.cell_data["U"], m.cells)
                                 if c.type == "tetra"]
    meshio.write(path, meshio.Mesh(m.points, tets, point_data=point_data, cell_data=cell_data))
