#!/usr/bin/env python3
"""Writes the generated seeds of the fuzz targets into tests/fuzz/seeds/<target>/: the valid 6-tet
unit cube of tests/data/malformed/make_corpus.py in every Gmsh encoding and as Netgen, each also
gzip-compressed for the gzip target. (Seeds taken as they are from meshes/ and tests/data/ are
listed in seeds.txt instead of copied; the case-file seeds are written by hand.)
Run from anywhere: python3 tests/fuzz/make_seeds.py
"""
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "data", "malformed"))
import make_corpus as mc  # noqa: E402


def write(target, name, data):
    os.makedirs(os.path.join(HERE, "seeds", target), exist_ok=True)
    with open(os.path.join(HERE, "seeds", target, name), "wb") as f:
        f.write(data)


def main():
    meshes = {
        "gmsh22_ascii": ("cube6.msh", mc.v22_ascii().encode()),
        "gmsh22_binary": ("cube6.msh", mc.v22_binary()),
        "gmsh41_ascii": ("cube6.msh", mc.v41_ascii().encode()),
        "gmsh41_binary": ("cube6.msh", mc.v41_binary()),
        "netgen": ("cube6_written.vol", mc.netgen().encode()),
    }
    for target, (name, data) in meshes.items():
        write(target, name, data)
        # mtime=0: the same bytes on every run
        write("gzip", f"{target}_{name}.gz", gzip.compress(data, mtime=0))
    print(f"wrote {2 * len(meshes)} seeds under {os.path.join(HERE, 'seeds')}")


if __name__ == "__main__":
    main()
