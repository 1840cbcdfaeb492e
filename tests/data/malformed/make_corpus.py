#!/usr/bin/env python3
"""Writes the malformed-mesh corpus used by tests/mesh/test_readers.cpp.

Every file is a small variation of one valid mesh (the unit cube cut into 6 tetrahedra) with one
defect. The expected error substring of each file lives in the test's table, next to the file
name. Run from anywhere: python3 tests/data/malformed/make_corpus.py
"""
import itertools
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the valid base mesh --------------------------------------------------------------------
NODES = [(i + 1, float(x), float(y), float(z)) for i, (z, y, x) in
         enumerate(itertools.product((0, 1), repeat=3))]  # tag = 1 + x + 2y + 4z


def _vol(t):
    p = [NODES[i - 1][1:] for i in t]
    u, v, w = ([p[k][j] - p[0][j] for j in range(3)] for k in (1, 2, 3))
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
            + u[2] * (v[0] * w[1] - v[1] * w[0]))


def _kuhn():
    tets = []
    for perm in itertools.permutations(range(3)):
        c, path = [0, 0, 0], [1]
        for a in perm:
            c[a] = 1
            path.append(1 + c[0] + 2 * c[1] + 4 * c[2])
        tets.append(path if _vol(path) > 0 else [path[1], path[0]] + path[2:])
    return tets


TETS = _kuhn()
TRIS = sorted(f for f, n in __import__("collections").Counter(
    tuple(sorted(f)) for t in TETS for f in itertools.combinations(t, 3)).items() if n == 1)
NAMES = [(2, 1, "boundary"), (3, 10, "domain")]


# ---- writers ----------------------------------------------------------------------------------
def v22_ascii(nodes=NODES, tets=TETS, tris=TRIS, names=NAMES, node_count=None, elem_count=None,
              extra_elements=(), version="2.2"):
    elems = [(2, [1, 1], list(f)) for f in tris] + [(4, [10, 1], list(t)) for t in tets]
    elems += list(extra_elements)
    out = ["$MeshFormat", f"{version} 0 8", "$EndMeshFormat"]
    if names:
        out += ["$PhysicalNames", str(len(names))] + [f'{d} {t} "{n}"' for d, t, n in names]
        out += ["$EndPhysicalNames"]
    out += ["$Nodes", str(len(nodes) if node_count is None else node_count)]
    out += [" ".join(map(str, n)) for n in nodes]
    out += ["$EndNodes", "$Elements", str(len(elems) if elem_count is None else elem_count)]
    for i, (typ, tags, ns) in enumerate(elems):
        out.append(" ".join(map(str, [i + 1, typ, len(tags)] + tags + ns)))
    out += ["$EndElements"]
    return "\n".join(out) + "\n"


ENTITIES41 = ["$Entities", "0 0 1 1", "1 0 0 0 1 1 1 1 1 0", "1 0 0 0 1 1 1 1 10 1 1", "$EndEntities"]


def v41_ascii(nodes=NODES, tets=TETS, tris=TRIS, names=NAMES, tet_type=4, node_header=None,
              elem_header=None, tet_lines=None):
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat"]
    out += ["$PhysicalNames", str(len(names))] + [f'{d} {t} "{n}"' for d, t, n in names]
    out += ["$EndPhysicalNames"] + ENTITIES41
    tags = [n[0] for n in nodes]
    out += ["$Nodes", node_header or f"1 {len(nodes)} {min(tags)} {max(tags)}", f"3 1 0 {len(nodes)}"]
    out += [str(t) for t in tags] + [f"{x} {y} {z}" for _, x, y, z in nodes] + ["$EndNodes"]
    n_el = len(tris) + len(tets)
    out += ["$Elements", elem_header or f"2 {n_el} 1 {n_el}", f"2 1 2 {len(tris)}"]
    out += [" ".join(map(str, [i + 1] + list(f))) for i, f in enumerate(tris)]
    out += [f"3 1 {tet_type} {len(tets)}"]
    out += tet_lines or [" ".join(map(str, [len(tris) + i + 1] + list(t))) for i, t in enumerate(tets)]
    out += ["$EndElements"]
    return "\n".join(out) + "\n"


def v41_binary(endian_check=1):
    b = b"$MeshFormat\n4.1 1 8\n" + struct.pack("<i", endian_check) + b"\n$EndMeshFormat\n"
    b += b"$Entities\n" + struct.pack("<4Q", 0, 0, 1, 1)
    for phys in (1, 10):
        b += struct.pack("<i6dQiQi", 1, 0, 0, 0, 1, 1, 1, 1, phys, 1, 1)
    b += b"\n$EndEntities\n$Nodes\n" + struct.pack("<4Q", 1, len(NODES), 1, len(NODES))
    b += struct.pack("<3iQ", 3, 1, 0, len(NODES)) + struct.pack(f"<{len(NODES)}Q", *[n[0] for n in NODES])
    b += struct.pack(f"<{3 * len(NODES)}d", *[c for n in NODES for c in n[1:]]) + b"\n$EndNodes\n"
    n_el = len(TRIS) + len(TETS)
    b += b"$Elements\n" + struct.pack("<4Q", 2, n_el, 1, n_el)
    b += struct.pack("<3iQ", 2, 1, 2, len(TRIS))
    for i, f in enumerate(TRIS):
        b += struct.pack("<4Q", i + 1, *f)
    b += struct.pack("<3iQ", 3, 1, 4, len(TETS))
    for i, t in enumerate(TETS):
        b += struct.pack("<5Q", len(TRIS) + i + 1, *t)
    return b + b"\n$EndElements\n"


def v22_binary():
    b = b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n"
    b += b"$Nodes\n%d\n" % len(NODES)
    for t, x, y, z in NODES:
        b += struct.pack("<i3d", t, x, y, z)
    b += b"\n$EndNodes\n$Elements\n%d\n" % (len(TRIS) + len(TETS))
    b += struct.pack("<3i", 2, len(TRIS), 2)
    for i, f in enumerate(TRIS):
        b += struct.pack("<6i", i + 1, 1, 1, *f)
    b += struct.pack("<3i", 4, len(TETS), 2)
    for i, t in enumerate(TETS):
        b += struct.pack("<7i", len(TRIS) + i + 1, 10, 1, *t)
    return b + b"\n$EndElements\n"


def netgen(points=None, vol_lines=None, np_declared=None, end=True):
    pts = points if points is not None else [n[1:] for n in NODES]
    out = ["mesh3d", "dimension", "3", "geomtype", "0", "", "surfaceelements", str(len(TRIS))]
    out += [f" 1 1 1 0 3 {f[0]} {f[1]} {f[2]}" for f in TRIS]
    vol = vol_lines or [f"1 4 {t[1]} {t[0]} {t[2]} {t[3]}" for t in TETS]
    out += ["", "volumeelements", str(len(vol))] + vol
    out += ["", "points", str(len(pts) if np_declared is None else np_declared)]
    out += [f"  {x}  {y}  {z}" for x, y, z in pts]
    if end:
        out += ["", "endmesh"]
    return "\n".join(out) + "\n"


def cut(text, marker, keep_after=0):
    """`text` cut just after the first `marker` plus `keep_after` more characters (truncation)."""
    at = text.index(marker) + len(marker) + keep_after
    return text[:at]


def replace_once(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


# ---- the corpus -----------------------------------------------------------------------------
def corpus():
    ok22, ok41 = v22_ascii(), v41_ascii()
    nodes_nan = list(NODES)
    nodes_nan[4] = (5, 0.0, "nan", 1.0)
    nodes_inf = list(NODES)
    nodes_inf[6] = (7, 0.0, 1.0, "inf")
    nodes_dup = list(NODES) + [(3, 0.5, 0.5, 0.5)]
    nodes_bad = list(NODES)
    nodes_bad[2] = (3, 0.0, "1.0x", 0.0)
    nodes_neg = list(NODES)
    nodes_neg[0] = (-1, 0.0, 0.0, 0.0)
    big41 = v41_ascii(nodes=NODES[:-1] + [(77, 1.0, 1.0, 1.0)], node_header="1 8 1 8")
    hex_line = [(5, [10, 1], [1, 2, 4, 3, 5, 6, 8, 7])]
    prism_line = [(6, [10, 1], [1, 2, 3, 5, 6, 7])]
    tet10_lines = [" ".join(map(str, [100 + i] + list(t) + [1, 2, 3, 4, 5, 6]))
                   for i, t in enumerate(TETS)]
    bin41, bin22 = v41_binary(), v22_binary()
    files = {
        "unknown_format.msh": "solid cube\n  facet normal 0 0 1\nendsolid\n",
        "empty_file.msh": "",
        "msh1_format.msh": "$NOD\n1\n1 0 0 0\n$ENDNOD\n",
        "unsupported_version.msh": ok22.replace("2.2 0 8", "3.0 0 8"),
        "no_tetrahedra.msh": v22_ascii(tets=[]),
        "truncated_in_nodes.msh": cut(ok22, "$Nodes\n8\n", 30),
        "truncated_in_elements.msh": cut(ok41, "3 1 4 6\n", 9),
        "truncated_in_entities.msh": cut(ok41, "$Entities\n0 0 1 1\n"),
        "truncated_in_physical_names.msh": cut(ok22, '"boundary"'),
        "missing_endnodes.msh": ok22.replace("$EndNodes\n", ""),
        "node_count_too_large.msh": v22_ascii(node_count=9),
        "node_count_too_small.msh": v22_ascii(node_count=7),
        "element_count_mismatch.msh": v41_ascii(elem_header="2 20 1 20"),
        "node_id_out_of_range.msh": big41,
        "duplicate_node_id.msh": v22_ascii(nodes=nodes_dup),
        "unknown_node.msh": v22_ascii(tets=TETS[:-1] + [[1, 2, 42, 8]]),
        "nan_coordinate.msh": v22_ascii(nodes=nodes_nan),
        "inf_coordinate.msh": v41_ascii(nodes=nodes_inf),
        "garbage_number.msh": v22_ascii(nodes=nodes_bad),
        "negative_node_id.msh": v22_ascii(nodes=nodes_neg, tets=[[2, 4, 3, 8]], tris=[]),
        "hexahedra.msh": v22_ascii(extra_elements=hex_line * 2),
        "prisms.msh": v22_ascii(extra_elements=prism_line),
        "tet10.msh": v41_ascii(tet_type=11, tet_lines=tet10_lines),
        "unknown_element_type.msh": v22_ascii(extra_elements=[(99, [0, 1], [1, 2])]),
        "element_missing_node.msh": v41_ascii(tet_lines=["13 1 2 3"] + [
            " ".join(map(str, [14 + i] + t)) for i, t in enumerate(TETS[1:])]),
        "elements_before_nodes.msh": ok22[:ok22.index("$Nodes")] + ok22[ok22.index("$Elements"):],
        "binary_truncated_v41.msh": bin41[:len(bin41) - 60],
        "binary_truncated_v22.msh": bin22[:bin22.index(b"$Nodes\n8\n") + 9 + 3 * 28 + 5],
        "binary_bad_endianness.msh": v41_binary(endian_check=7),
        "netgen_truncated.vol": cut(netgen(), "points\n8\n", 20),
        "netgen_point_out_of_range.vol": netgen(vol_lines=["1 4 2 1 3 9"]),
        "netgen_prisms.vol": netgen(vol_lines=["1 6 1 2 3 5 6 7", "1 4 2 1 4 8"]),
        "netgen_point_count_mismatch.vol": netgen(np_declared=10),
        # Parse fine; rejected by load_mesh's geometry/topology checks (M2).
        "repeated_node_in_tet.msh": v22_ascii(tets=TETS[:-1] + [[1, 2, 2, 8]]),
        "zero_volume_tet.msh": v22_ascii(nodes=NODES[:4], tets=[[1, 2, 4, 3]], tris=[]),
        "face_shared_by_three_tets.msh": v22_ascii(
            nodes=[(1, 0., 0., 0.), (2, 1., 0., 0.), (3, 0., 1., 0.), (4, .2, .2, 1.),
                   (5, .2, .2, -1.), (6, .3, .3, 2.)],
            tets=[[1, 2, 3, 4], [1, 3, 2, 5], [1, 2, 3, 6]], tris=[]),
    }
    return files


def main():
    for name, content in corpus().items():
        data = content if isinstance(content, bytes) else content.encode()
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(corpus())} files to {HERE}")


if __name__ == "__main__":
    main()
