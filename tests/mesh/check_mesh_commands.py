#!/usr/bin/python3
"""End-to-end check of `streamsolve mesh-info` and `streamsolve convert`.
Usage: check_mesh_commands.py STREAMSOLVE SOURCE_DIR WORK_DIR ; exit status 0 when all pass."""
import json
import os
import subprocess
import sys

import meshio
import numpy as np

exe, src, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


# mesh-info on the project's cube: counts, Euler characteristic, volume, named groups.
cube = f"{src}/meshes/cube.msh"
js = f"{work}/cube.json"
r = run("mesh-info", cube, "--json", js)
check(f"mesh-info exit {r.returncode}: {r.stderr}", r.returncode == 0)
info = json.load(open(js))
for key in ["nodes", "tets", "faces", "edges", "boundary_faces", "euler_characteristic", "volume", "groups",
            "reoriented_tets"]:
    check(f"json key {key}", key in info)
check("euler", info["euler_characteristic"] == 1)
check("V-E+F-C", info["nodes"] - info["edges"] + info["faces"] - info["tets"] == 1)
check("volume", abs(info["volume"] - 1.0) < 1e-12)
check("4C = 2F - Fb", 4 * info["tets"] == 2 * info["faces"] - info["boundary_faces"])
names = sorted(g["name"] for g in info["groups"])
check(f"group names {names}", names == sorted(["left", "right", "front", "back", "bottom", "top"]))
check("group faces", sum(g["faces"] for g in info["groups"]) == info["boundary_faces"])
# volume groups apart from surface groups (separate id spaces)
check(f"volume groups {info.get('volume_groups')}",
      [(g["name"], g["id"], g["tets"]) for g in info["volume_groups"]] == [("domain", 10, info["tets"])])
check("stdout", "euler characteristic 1" in r.stdout)

# --refine 1: x8 tets, x4 boundary faces, same volume.
r = run("mesh-info", cube, "--refine", "1", "--json", f"{work}/cube1.json")
fine = json.load(open(f"{work}/cube1.json"))
check("refine tets", fine["tets"] == 8 * info["tets"])
check("refine boundary", fine["boundary_faces"] == 4 * info["boundary_faces"])
check("refine volume", abs(fine["volume"] - 1.0) < 1e-12)
check("refine euler", fine["euler_characteristic"] == 1)

# Renumbering (default on) is a permutation: --no-renumber gives the same counts, volume and groups;
# the file's mesh is renumbered (its bandwidth shrinks) and refined in that order, so the refined
# mesh's bandwidth is smaller than with the plain refinement of the file's numbering.
r = run("mesh-info", cube, "--refine", "1", "--no-renumber", "--json", f"{work}/cube1_plain.json")
check(f"--no-renumber exit {r.returncode}: {r.stderr}", r.returncode == 0)
plain = json.load(open(f"{work}/cube1_plain.json"))
check("renumbered flag", fine["renumbered"] and not plain["renumbered"] and "before" not in plain["node_bandwidth"])
for key in ["nodes", "tets", "faces", "edges", "boundary_faces", "groups", "volume_groups"]:
    check(f"--no-renumber {key}", plain[key] == fine[key])
check("--no-renumber volume", abs(plain["volume"] - fine["volume"]) < 1e-12)
bw = fine["node_bandwidth"]
check(f"bandwidth {bw}", 0 < bw["after"] < bw["before"] and bw["profile_after"] < bw["profile_before"])
pbw = plain["node_bandwidth"]
check(f"refined bandwidth {bw} vs plain {pbw}", 0 < bw["final"] < pbw["final"] and bw["profile_final"] < pbw["profile_final"])

# convert: tets + boundary triangles with their groups, read back with meshio.
vtu = f"{work}/cube.vtu"
r = run("convert", cube, vtu, "--encoding", "binary")
check(f"convert exit {r.returncode}: {r.stderr}", r.returncode == 0)
m = meshio.read(vtu)
blocks = {c.type: c.data for c in m.cells}
check("vtu tets", len(blocks["tetra"]) == info["tets"])
check("vtu triangles", len(blocks["triangle"]) == info["boundary_faces"])
check("vtu points", len(m.points) == info["nodes"])
groups = dict(zip([c.type for c in m.cells], m.cell_data["group"]))
check("vtu tet groups", set(groups["tetra"].tolist()) == {10})
ids = {g["name"]: g["id"] for g in info["groups"]}
tri = blocks["triangle"]
p = m.points
for name, axis, side in [("left", 0, 0.0), ("right", 0, 1.0), ("top", 2, 1.0)]:
    sel = groups["triangle"] == ids[name]
    check(f"vtu group {name} on its side", sel.sum() == info["groups"][0]["faces"] and
          np.allclose(p[tri[sel]][:, :, axis], side))
    # triangles are oriented outward
    a, b, c = p[tri[sel][:, 0]], p[tri[sel][:, 1]], p[tri[sel][:, 2]]
    n = np.cross(b - a, c - a)[:, axis]
    check(f"vtu {name} outward", np.all(n * (1 if side else -1) > 0))

# Geometric errors name the file and the tet by the file's own element and node tags; the exit
# status is non-zero.
head = ("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n7\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0 0 -1\n"
        "6 1 1 1\n7 0.3 0.3 0\n$EndNodes\n")
cases = {
    "repeated.msh": ("1 4 2 10 1 1 2 3 4\n2 4 2 10 1 1 2 3 3\n3 4 2 10 1 2 3 5 6\n",
                     "repeated.msh: tet 2 (nodes 1 2 3 3) has a repeated node"),
    "flat.msh": ("1 4 2 10 1 1 2 3 7\n", "flat.msh: tet 1 (nodes 1 2 3 7) has zero volume"),
    "three.msh": ("1 4 2 10 1 1 2 3 4\n2 4 2 10 1 1 2 3 5\n3 4 2 10 1 1 2 3 6\n",
                  "three.msh: face (nodes 1 2 3) is shared by more than two tets (tets 1, 2, 3)"),
}
for name, (elements, expected) in cases.items():
    path = f"{work}/{name}"
    count = elements.count("\n")
    with open(path, "w") as f:
        f.write(head + f"$Elements\n{count}\n{elements}$EndElements\n")
    r = run("mesh-info", path)
    check(f"{name}: exit {r.returncode}", r.returncode != 0)
    check(f"{name}: message {r.stderr!r}", "streamsolve: error: " + f"{work}/{expected}" in r.stderr)

print("\n".join(failures) if failures else "ok")
sys.exit(1 if failures else 0)
