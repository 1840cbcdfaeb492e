#!/usr/bin/python3
"""Centre-line profiles of the lid-driven cubic cavity: streamsolve vs published data vs icoFoam.

  tools/plot_cavity.py --ours FLOW.vtu [--icofoam DIR] --re 100 --out docs/cavity_re100.png
                       [--check MAXDIFF] [--json OUT.json] [--data DIR] [--lid-speed 1]
  tools/plot_cavity.py --self-test [MESH.msh]     (sampler check: a linear field must come out exact)

Convention (as in meshes/cavity.geo): unit cube, lid z = 1 moving +x.  Two lines on the mid-plane y = 0.5:
  u_x(z) on x = 0.5 (vertical centre line),  u_z(x) on z = 0.5 (horizontal centre line).

--ours     a VTU with point data `velocity` (3-vector) on tetrahedra (cell data is ignored); the lines are
           sampled by locating each point in its tetrahedron and interpolating linearly (barycentric).
--icofoam  a folder written by tools/cavity_icofoam.sh (icofoam_u_vs_z.csv, icofoam_w_vs_x.csv).
--data     published tables, default tests/data/cavity: re{RE}_u_vs_z.csv and re{RE}_w_vs_x.csv are the
           references the differences are measured against; re{RE}_u_vs_z_*.csv etc. are plotted as
           secondary sources.  A '# label:' comment line names the source in
           the legend; the other comment lines state the exact source.

Prints JSON: for each curve (ours, icofoam) and line, the max |difference| to the reference at the
published points, divided by the lid speed.  --check MAXDIFF exits with 1 when a difference of `ours`
(or of icofoam when --ours is absent) exceeds MAXDIFF, and with 2 when there is nothing to check against.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINES = {
    # name: (axis index along the line, fixed point, velocity component, coordinate label, value label)
    "u_vs_z": (2, (0.5, 0.5, 0.5), 0, "z", "u_x"),
    "w_vs_x": (0, (0.5, 0.5, 0.5), 2, "x", "u_z"),
}


# --------------------------------------------------------------------------------------------------
# Point location and barycentric interpolation on a tetrahedral mesh
# --------------------------------------------------------------------------------------------------
class TetSampler:
    """Locates points in a tetrahedral mesh and interpolates point data linearly.

    Robust for points on shared faces, edges and the boundary (tolerance on the barycentric
    coordinates); points outside the mesh give NaN.  Memory and time stay small for large meshes
    because only tetrahedra whose bounding box meets the sampled segment are considered.
    """

    def __init__(self, points: np.ndarray, tets: np.ndarray):
        self.points = np.asarray(points, dtype=float)
        self.tets = np.asarray(tets, dtype=np.int64)
        corners = self.points[self.tets]                     # (n, 4, 3)
        self.lo = corners.min(axis=1)
        self.hi = corners.max(axis=1)
        extent = float(np.max(self.points.max(axis=0) - self.points.min(axis=0)))
        self.tol = 1e-9 * max(extent, 1e-300)

    def _segment_candidates(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Tetrahedra whose (slightly grown) bounding box intersects segment a-b (slab test)."""
        lo, hi = self.lo - self.tol, self.hi + self.tol
        d = b - a
        t0 = np.zeros(len(lo))
        t1 = np.ones(len(lo))
        for k in range(3):
            if abs(d[k]) < 1e-300:
                inside = (a[k] >= lo[:, k]) & (a[k] <= hi[:, k])
                t1 = np.where(inside, t1, -1.0)
                continue
            ta = (lo[:, k] - a[k]) / d[k]
            tb = (hi[:, k] - a[k]) / d[k]
            t0 = np.maximum(t0, np.minimum(ta, tb))
            t1 = np.minimum(t1, np.maximum(ta, tb))
        return np.nonzero(t0 <= t1)[0]

    def sample_segment(self, a, b, s: np.ndarray, values: np.ndarray) -> np.ndarray:
        """values (n_points, ...) interpolated at a + s (b - a) for each s in [0, 1]."""
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        q = a[None, :] + np.asarray(s, dtype=float)[:, None] * (b - a)[None, :]
        cand = self._segment_candidates(a, b)
        values = np.asarray(values, dtype=float)
        out = np.full((len(q),) + values.shape[1:], np.nan)
        if len(cand) == 0:
            return out
        corners = self.points[self.tets[cand]]               # (m, 4, 3)
        mat = (corners[:, 1:, :] - corners[:, :1, :]).transpose(0, 2, 1)   # columns: edges from vertex 0
        det = np.linalg.det(mat)
        ok = np.abs(det) > 1e-30 * np.max(np.abs(det))
        inv = np.zeros_like(mat)
        inv[ok] = np.linalg.inv(mat[ok])
        lo, hi = self.lo[cand] - self.tol, self.hi[cand] + self.tol
        for i, p in enumerate(q):
            near = np.nonzero(ok & np.all((p >= lo) & (p <= hi), axis=1))[0]
            if len(near) == 0:
                continue
            lam123 = np.einsum("nij,nj->ni", inv[near], p[None, :] - corners[near, 0, :])
            lam = np.column_stack([1.0 - lam123.sum(axis=1), lam123])
            worst = lam.min(axis=1)
            j = int(np.argmax(worst))                        # the tetrahedron that contains p best
            if worst[j] < -1e-7:
                continue                                     # outside the mesh
            w = np.clip(lam[j], 0.0, None)
            w /= w.sum()
            out[i] = np.tensordot(w, values[self.tets[cand[near[j]]]], axes=(0, 0))
        return out


def read_vtu(path: str):
    import meshio

    m = meshio.read(path)
    tets = [c.data for c in m.cells if c.type == "tetra"]
    if not tets:
        raise SystemExit(f"plot_cavity: {path} has no tetrahedra")
    for name in ("velocity", "U"):
        if name in m.point_data:
            vel = np.asarray(m.point_data[name], dtype=float)
            break
    else:
        raise SystemExit(f"plot_cavity: {path} has no point data 'velocity' (has {list(m.point_data)})")
    if vel.ndim != 2 or vel.shape[1] < 3:
        raise SystemExit(f"plot_cavity: point data 'velocity' in {path} is not a 3-vector")
    return np.asarray(m.points[:, :3], dtype=float), np.vstack(tets), vel[:, :3]


def sample_lines(sampler: TetSampler, vel: np.ndarray, coords: dict[str, np.ndarray]) -> dict:
    """For each line, the velocity component sampled at the given coordinates along it."""
    out = {}
    for name, (axis, fixed, comp, _, _) in LINES.items():
        a = np.array(fixed, dtype=float)
        b = a.copy()
        a[axis], b[axis] = 0.0, 1.0
        s = np.asarray(coords[name], dtype=float)
        out[name] = sampler.sample_segment(a, b, s, vel[:, comp])
    return out


# --------------------------------------------------------------------------------------------------
# Published data and icoFoam output
# --------------------------------------------------------------------------------------------------
def read_table(path: str):
    """(coordinate, value, label) from a CSV with '#' comment lines and a 2-column header."""
    label = os.path.splitext(os.path.basename(path))[0]
    with open(path) as f:
        for line in f:
            if line.startswith("# label:"):
                label = line.split(":", 1)[1].strip()
                break
    rows = []
    with open(path) as f:
        body = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    for ln in body[1:]:                                   # body[0] is the column header
        rows.append([float(x) for x in ln.split(",")[:2]])
    data = np.asarray(rows, dtype=float).reshape(-1, 2)
    return data[:, 0], data[:, 1], label


def published(data_dir: str, re_number: int):
    """{line: {"ref": (c, v, label, file) or None, "extra": [(c, v, label, file), ...]}}"""
    out = {}
    for name in LINES:
        ref_path = os.path.join(data_dir, f"re{re_number}_{name}.csv")
        ref = None
        if os.path.exists(ref_path):
            c, v, label = read_table(ref_path)
            ref = (c, v, label, os.path.relpath(ref_path, ROOT))
        extra = []
        for p in sorted(glob.glob(os.path.join(data_dir, f"re{re_number}_{name}_*.csv"))):
            c, v, label = read_table(p)
            extra.append((c, v, label, os.path.relpath(p, ROOT)))
        out[name] = {"ref": ref, "extra": extra}
    return out


def read_icofoam(folder: str):
    out = {}
    for name in LINES:
        path = os.path.join(folder, f"icofoam_{name}.csv")
        if not os.path.exists(path):
            raise SystemExit(f"plot_cavity: {path} missing (run tools/cavity_icofoam.sh --out {folder})")
        c, v, _ = read_table(path)
        out[name] = (c, v)
    info = {}
    jpath = os.path.join(folder, "icofoam.json")
    if os.path.exists(jpath):
        with open(jpath) as f:
            info = json.load(f)
    return out, info


# --------------------------------------------------------------------------------------------------
def max_diff(c_ref, v_ref, v_model, lid_speed):
    d = np.abs(np.asarray(v_model) - v_ref) / lid_speed
    if np.all(np.isnan(d)):
        return {"max_abs_diff": None, "note": "no sample inside the mesh"}
    i = int(np.nanargmax(d))
    return {"max_abs_diff": round(float(d[i]), 5), "at": round(float(c_ref[i]), 4),
            "rms_diff": round(float(np.sqrt(np.nanmean(d ** 2))), 5), "points": int(np.sum(~np.isnan(d))),
            "missing_points": int(np.sum(np.isnan(d)))}


def self_test(mesh_path: str) -> int:
    """The sampler must reproduce a linear field exactly on the lines (end points included) and give
    NaN outside the mesh."""
    import meshio

    m = meshio.read(mesh_path)
    tets = np.vstack([c.data for c in m.cells if c.type == "tetra"])
    p = np.asarray(m.points, dtype=float)
    vel = np.column_stack([1 + 2 * p[:, 0] - p[:, 2], 3 * p[:, 1] + 0.5 * p[:, 2], -p[:, 0] + 4 * p[:, 2]])
    s = np.linspace(0.0, 1.0, 1001)
    got = sample_lines(TetSampler(p, tets), vel, {name: s for name in LINES})
    err_u = float(np.max(np.abs(got["u_vs_z"] - (2.0 - s))))        # u_x = 1 + 2(0.5) - z
    err_w = float(np.max(np.abs(got["w_vs_x"] - (2.0 - s))))        # u_z = -x + 4(0.5)
    outside = TetSampler(p, tets).sample_segment([0.5, 0.5, 1.0], [0.5, 0.5, 2.0], np.array([0.5]), vel[:, 0])
    ok = err_u < 1e-10 and err_w < 1e-10 and bool(np.isnan(outside[0]))
    print(json.dumps({"self_test": "passed" if ok else "FAILED", "mesh": mesh_path, "tets": int(len(tets)),
                      "linear_field_max_error": max(err_u, err_w), "outside_is_nan": bool(np.isnan(outside[0]))}))
    return 0 if ok else 1


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--self-test":
        return self_test(argv[1] if len(argv) > 1 else os.path.join(ROOT, "meshes", "cavity.msh"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", help="streamsolve result VTU (point data `velocity`)")
    ap.add_argument("--ours-label", default="streamsolve")
    ap.add_argument("--icofoam", help="folder written by tools/cavity_icofoam.sh")
    ap.add_argument("--re", type=int, required=True, help="Reynolds number of the published tables")
    ap.add_argument("--out", help="figure (PNG/PDF); omitted: no figure")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data", "cavity"))
    ap.add_argument("--lid-speed", type=float, default=1.0)
    ap.add_argument("--check", type=float, metavar="MAXDIFF",
                    help="exit 1 if a max difference (relative to the lid speed) exceeds MAXDIFF")
    ap.add_argument("--json", help="also write the JSON here")
    args = ap.parse_args(argv)
    if not args.ours and not args.icofoam:
        ap.error("give --ours and/or --icofoam")

    pub = published(args.data, args.re)
    dense = {name: np.linspace(0.0, 1.0, 201) for name in LINES}
    curves = {}        # label -> {line: (coords, values)}
    diffs = {}
    result = {"re": args.re, "lid_speed": args.lid_speed, "references": {}, "curves": {}}
    for name in LINES:
        ref = pub[name]["ref"]
        result["references"][name] = ref[3] if ref else None

    if args.ours:
        points, tets, vel = read_vtu(args.ours)
        sampler = TetSampler(points, tets)
        s_dense = sample_lines(sampler, vel, dense)
        ours = {name: (dense[name], s_dense[name]) for name in LINES}
        curves[args.ours_label] = ours
        at_ref = sample_lines(sampler, vel, {n: (pub[n]["ref"][0] if pub[n]["ref"] else np.zeros(0)) for n in LINES})
        d = {}
        for name in LINES:
            ref = pub[name]["ref"]
            d[name] = max_diff(ref[0], ref[1], at_ref[name], args.lid_speed) if ref else None
        diffs["ours"] = d
        result["curves"]["ours"] = {"file": args.ours, "vertices": int(len(points)), "tets": int(len(tets)), **d}

    if args.icofoam:
        ico, info = read_icofoam(args.icofoam)
        curves["icoFoam"] = ico
        d = {}
        for name in LINES:
            ref = pub[name]["ref"]
            d[name] = max_diff(ref[0], ref[1], np.interp(ref[0], *ico[name]), args.lid_speed) if ref else None
        diffs["icofoam"] = d
        result["curves"]["icofoam"] = {"folder": args.icofoam, **d,
                                       **{k: info[k] for k in ("cells", "end_time", "seconds_per_step",
                                                               "max_profile_change_last_0.5") if k in info}}

    if args.out:
        plot(args, pub, curves)
        result["figure"] = args.out

    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")

    if args.check is not None:
        key = "ours" if args.ours else "icofoam"
        checked = [(n, v["max_abs_diff"]) for n, v in diffs[key].items() if v is not None]
        if not checked:
            print(f"plot_cavity: --check: no published data for Re = {args.re} in {args.data}", file=sys.stderr)
            return 2
        bad = [(n, v) for n, v in checked if v is None or v > args.check]
        if bad:
            print(f"plot_cavity: --check {args.check}: FAILED {bad}", file=sys.stderr)
            return 1
        print(f"plot_cavity: --check {args.check}: passed {checked}", file=sys.stderr)
    return 0


def plot(args, pub, curves):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2))
    styles = {"icoFoam": dict(color="tab:orange", ls="--", lw=1.6)}
    sources = []
    for ax, name in zip(axes, LINES):
        axis, _, _, coord, value = LINES[name]
        vertical = name == "u_vs_z"
        def draw(c, v, **kw):
            if vertical:
                ax.plot(v, c, **kw)
            else:
                ax.plot(c, v, **kw)
        for label, data in curves.items():
            c, v = data[name]
            draw(c, v, label=label, **styles.get(label, dict(color="tab:blue", lw=2)))
        ref = pub[name]["ref"]
        if ref:
            draw(ref[0], ref[1], ls="none", marker="o", ms=4.5, mfc="none", color="k", label=ref[2] + " (reference)")
            sources.append(ref[2])
        for c, v, label, _ in pub[name]["extra"]:
            draw(c, v, ls="none", marker="x", ms=5, color="tab:green", label=label)
            sources.append(label)
        if not ref:
            ax.text(0.5, 0.04, f"no published 3D table at Re = {args.re}", transform=ax.transAxes,
                    ha="center", fontsize=9, color="0.35")
        if vertical:
            ax.set_xlabel(f"${value[0]}_{value[2]}$ / U  (x = y = 0.5)")
            ax.set_ylabel("z")
        else:
            ax.set_xlabel("x")
            ax.set_ylabel(f"${value[0]}_{value[2]}$ / U  (y = z = 0.5)")
        ax.axhline(0, color="0.8", lw=0.8, zorder=0)
        ax.axvline(0, color="0.8", lw=0.8, zorder=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    axes[0].set_title("vertical centre line")
    axes[1].set_title("horizontal centre line")
    src = "; ".join(dict.fromkeys(sources)) or "none"
    fig.suptitle(f"Lid-driven cubic cavity, Re = {args.re} (lid z = 1 moving +x, mid-plane y = 0.5)\n"
                 f"published 3D data: {src}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    fig.savefig(args.out, dpi=130)


if __name__ == "__main__":
    sys.exit(main())
