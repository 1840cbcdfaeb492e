#!/usr/bin/python3
"""End-to-end checks of `streamsolve flow` on the lid-driven cavity (meshes/cavity.msh, 5 steps of
dt = 0.01 unless said otherwise). One scenario per call, so each is its own ctest entry:

  outputs   CPU backend: flow.vtu (cell velocity/pressure/divergence/vorticity, point velocity/pressure) read
            back by meshio, flow_NNNNNN.vtu + .state every `every` steps and at the end, flow.pvd
            listing them, flow.png, flow.json keys with sane values, no temporaries left.
  restart   CPU: 8 steps straight vs 4 steps, then --restart with the 8-step case file: the final
            checkpoints (fluxes, pressures, time) equal to 1e-12 of their scale — the restarted run
            computes the same arithmetic as the straight one.
  kill      CPU: a run killed with SIGKILL after its second checkpoint leaves only complete files
            under final names; --restart finishes it and matches the straight run to 1e-12.
  errors    one-line errors naming the case line: an unknown group, a boundary group without a
            condition, --restart without a checkpoint; a diverging run (CFL blow-up) exits non-zero
            without flow.vtu / flow.json / flow.png and leaves no temporaries; a steady march that
            stops at max_steps exits 1 with one line saying so, after writing flow.json (its stop
            reason) and its last checkpoint.
  forces    CPU: [[force]] on the lid (with reference values) and the walls: forces.csv rows at steps
            0, 4, 8 per group, flow.json's forces and the stdout lines; the lid is dragged against its
            motion (fx < 0), the walls along it; after the last checkpoint is removed, --restart
            rewrites the rows from step 4 on: the same file as the straight run's.
  probes    CPU, --no-vtu: probes/<name>.csv header and a row per output step (the lid point reads the
            lid velocity), flow.json's final values; a --restart keeps the CSV equal to the straight run's;
            a point outside the mesh is one error naming the line, probe and point.
  memory    CPU, the cavity refined twice (319,616 cells), one step: flow.json's peak host memory per
            cell is its peak over its cells and within a bound set from the measured value.
  compare   --backend gpu --compare (GL: llvmpipe in CI), 20 steps: max_velocity_diff <= 1e-4 (the
            float32 GPU run against the double CPU reference) and the JSON's
            compare object.
Usage: check_flow_command.py STREAMSOLVE SOURCE_DIR WORK_DIR SCENARIO ; exit status 0 when all pass."""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from output_files import check_output_file, read_state  # noqa: E402

exe, source, work, scenario = sys.argv[1:5]
work = os.path.join(work, scenario)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
mesh = os.path.join(source, "meshes", "cavity.msh")
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def case(name, steps=5, dt=0.01, every=2, boundaries=None, extra=""):
    if boundaries is None:
        boundaries = [("lid", 'type = "wall"\nvelocity = [1.0, 0.0, 0.0]'), ("walls", 'type = "wall"')]
    text = f'[mesh]\nfile = "{mesh}"\n\n[fluid]\nviscosity = 0.01\n\n'
    for group, body in boundaries:
        text += f'[[boundary]]\ngroup = "{group}"\n{body}\n\n'
    text += f"[time]\ndt = {dt}\nsteps = {steps}\n\n[output]\ndirectory = \"out_{name}\"\nevery = {every}\n{extra}"
    path = os.path.join(work, name + ".toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args, timeout=300):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)


def ran(r, what):
    check(f"{what}: exit {r.returncode} {r.stderr.strip()[-400:] if r.returncode else ''}", r.returncode == 0)


def error_line(r):
    """The one error line of a failed run ('' when it did not fail so)."""
    lines = [l for l in r.stderr.splitlines() if l.startswith("streamsolve: error: ")]
    return lines[0] if r.returncode != 0 and len(lines) == 1 else ""


def relative_difference(a, b):
    scale = max(max(abs(x) for x in a), 1e-300)
    return max(abs(x - y) for x, y in zip(a, b)) / scale


def temporaries(folder):
    return [n for n in os.listdir(folder) if ".tmp." in n]


def final_states_match(straight, other, what):
    a, b = read_state(straight), read_state(other)
    check(f"{what}: same step and time ({a['step']}, {a['time']} vs {b['step']}, {b['time']})",
          a["step"] == b["step"] and abs(a["time"] - b["time"]) <= 1e-12 * abs(a["time"]))
    du, dp = relative_difference(a["flux"], b["flux"]), relative_difference(a["pressure"], b["pressure"])
    check(f"{what}: fluxes differ by {du:.2e}, pressures by {dp:.2e} of their scale (<= 1e-12)",
          du <= 1e-12 and dp <= 1e-12)
    dv = relative_difference(a["previous_flux"], b["previous_flux"])
    check(f"{what}: previous fluxes (the next step's extrapolation) differ by {dv:.2e} (<= 1e-12)",
          len(a["previous_flux"]) == len(a["flux"]) and dv <= 1e-12)


def scenario_outputs():
    import meshio
    c = case("outputs", steps=5, every=2, extra="slice_origin = [0.5, 0.5, 0.5]\nslice_normal = [0, 1, 0]\n")
    out = os.path.join(work, "out_outputs")
    r = run("flow", c, "--backend", "cpu")
    ran(r, "flow --backend cpu")
    progress = [l for l in r.stderr.splitlines() if " step " in l and "CFL" in l]
    check(f"progress lines on stderr ({len(progress)})", len(progress) >= 2 and "kinetic energy" in progress[-1]
          and "pressure" in progress[-1] and "max div" in progress[-1])
    names = sorted(os.listdir(out))
    expected = ["energy.csv", "flow.json", "flow.png", "flow.pvd", "flow.vtu"] + \
        [f"flow_{s:06d}.{e}" for s in (0, 2, 4, 5) for e in ("state", "vtu")]
    check(f"files {names}", names == sorted(expected))
    check("PNG signature", open(os.path.join(out, "flow.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n")
    pvd = open(os.path.join(out, "flow.pvd")).read()
    check("flow.pvd lists the 4 snapshots", all(f'file="flow_{s:06d}.vtu"' in pvd for s in (0, 2, 4, 5)))
    j = json.load(open(os.path.join(out, "flow.json")))
    for key in ["problem", "mesh", "backend", "device", "steps", "time", "dt", "kinetic_energy", "max_divergence",
                "iterations", "seconds_per_step"]:
        check(f"JSON has {key}", key in j)
    check("problem, backend, device", j["problem"] == "flow" and j["backend"] == "cpu" and "CPU" in j["device"])
    check(f"steps {j['steps']}, time {j['time']}", j["steps"] == 5 and abs(j["time"] - 0.05) < 1e-12)
    check(f"kinetic energy {j['kinetic_energy']} in (0, 0.5)", 0 < j["kinetic_energy"] < 0.5)
    check(f"max divergence {j['max_divergence']:.2e} <= 1e-5 (pressure tolerance 1e-6)", j["max_divergence"] <= 1e-5)
    solvers = {k: v["preconditioner"] for k, v in j["solver"].items()}
    check(f"default preconditioners {solvers}", solvers == {"momentum": "jacobi", "pressure": "multigrid",
                                                                "streamfunction": "ams"})
    check(f"default pressure smoother degree {j['solver']['pressure'].get('smoother_degree')}",
          j["solver"]["pressure"].get("smoother_degree") == 2)
    check(f"default momentum system {j['solver']['momentum'].get('system')}",
          j["solver"]["momentum"].get("system") == "vorticity")
    for solve in ("momentum", "pressure"):
        it = j["iterations"][solve]
        check(f"{solve} iterations {it}", it["last"] > 0 and 0 < it["mean"] <= it["max"])
    timings = j.get("timings", {})
    stages = ["read", "validate", "refine", "renumber", "topology", "geometry", "problem", "assemble", "upload",
              "solve", "fields", "write", "total"]
    listed = sum(v for k, v in timings.items() if k != "total")
    check(f"timings {sorted(timings)}: each >= 0, they add up to at most the total ({listed:.3f} <= {timings.get('total')})",
          all(k in timings and timings[k] >= 0 for k in stages) and listed <= 1.001 * timings["total"])
    check(f"peak host memory {j.get('peak_host_memory_bytes')} bytes > 1 MB", j.get("peak_host_memory_bytes", 0) > 1 << 20)
    sps = j["seconds_per_step"]
    check(f"seconds per step {sps}", all(sps[k] >= 0 for k in ("convection", "momentum", "pressure"))
          and sps["total"] >= sps["momentum"] + sps["pressure"])
    m = meshio.read(os.path.join(out, "flow.vtu"))
    cells = len(m.cells_dict["tetra"])
    check("mesh sizes in the JSON", j["mesh"]["nodes"] == len(m.points) and j["mesh"]["cells"] == cells
          and j["mesh"]["faces"] > cells)
    for name, width in [("velocity", 3), ("pressure", 1), ("divergence", 1), ("vorticity", 3)]:
        a = m.cell_data[name][0]
        check(f"cell {name}: {a.shape}, finite", a.shape[0] == cells and (a.ndim == 1 or a.shape[1] == width)
              and bool((abs(a) < 1e30).all()))
    u = m.point_data["velocity"]
    speed = max(math.sqrt(x * x + y * y + z * z) for x, y, z in u)
    check(f"point velocity {u.shape}, max speed {speed:.3f} in (0, 1.5)", u.shape == (len(m.points), 3) and 0 < speed < 1.5)
    # Wall-exact node values: the lid's nodes off its rim read the lid velocity exactly, every other
    # boundary node (the lid's rim too: a wall at rest wins) 0.
    on_lid = [tuple(v) for v, p in zip(u, m.points) if p[2] == 1 and 0 < p[0] < 1 and 0 < p[1] < 1]
    walls = [tuple(v) for v, p in zip(u, m.points) if min(p[0], p[1], p[2]) == 0 or max(p[0], p[1]) == 1]
    check(f"lid nodes read (1, 0, 0) ({len(on_lid)} nodes)", on_lid and all(v == (1, 0, 0) for v in on_lid))
    check(f"wall nodes read 0 ({len(walls)} nodes)", walls and all(v == (0, 0, 0) for v in walls))
    pn = m.point_data["pressure"]
    check(f"point pressure {pn.shape}, finite", pn.shape[0] == len(m.points) and bool((abs(pn) < 1e30).all()))
    # The lid drags the fluid along +x right below it.
    top = [vx for (vx, vy, vz), p in zip(u, m.points) if p[2] > 0.9 and 0.2 < p[0] < 0.8]
    check(f"fluid under the lid moves along +x (mean {sum(top) / len(top):.3f} > 0.05)", sum(top) / len(top) > 0.05)
    check("no temporaries", temporaries(out) == [])
    # [solver.pressure] smoother_degree reaches the V-cycle: degree 4 takes fewer pressure
    # iterations than the default 2, for the same flow to the solves' tolerance.
    c4 = case("degree4", steps=5, every=5, extra="\n[solver.pressure]\nsmoother_degree = 4\n")
    ran(run("flow", c4, "--backend", "cpu", "--no-png", "--no-vtu"), "flow --backend cpu, smoother_degree = 4")
    j4 = json.load(open(os.path.join(work, "out_degree4", "flow.json")))
    p2, p4 = j["iterations"]["pressure"]["mean"], j4["iterations"]["pressure"]["mean"]
    de = abs(j4["kinetic_energy"] - j["kinetic_energy"]) / j["kinetic_energy"]
    check(f"smoother degree 4: {j4['solver']['pressure'].get('smoother_degree')} in flow.json, pressure iterations "
          f"{p4:.2f} < {p2:.2f} (degree 2), kinetic energy within {de:.1e} (<= 1e-5)",
          j4["solver"]["pressure"].get("smoother_degree") == 4 and p4 < p2 and de <= 1e-5)


def scenario_restart():
    straight = case("straight", steps=8, every=4)
    ran(run("flow", straight, "--backend", "cpu", "--no-png"), "8 steps straight")
    half = case("restarted", steps=4, every=4)
    ran(run("flow", half, "--backend", "cpu", "--no-png"), "first 4 steps")
    full = case("restarted", steps=8, every=4)
    r = run("flow", full, "--backend", "cpu", "--no-png", "--restart")
    ran(r, "--restart to 8 steps")
    out = os.path.join(work, "out_restarted")
    j = json.load(open(os.path.join(out, "flow.json")))
    check(f"restarted_from {j['restarted_from']}, steps {j['steps']}, this run {j['steps_this_run']}",
          j["restarted_from"] == 4 and j["steps"] == 8 and j["steps_this_run"] == 4)
    pvd = open(os.path.join(out, "flow.pvd")).read()
    check("flow.pvd continues the series", all(f'file="flow_{s:06d}.vtu"' in pvd for s in (0, 4, 8)))
    final_states_match(os.path.join(work, "out_straight", "flow_000008.state"), os.path.join(out, "flow_000008.state"),
                       "4 + restart + 4 vs 8")
    # The exact method: the checkpoint carries the streamfunction (the next solve's start).
    exact = '[scheme]\nmethod = "exact"\n'
    ran(run("flow", case("exact_straight", steps=6, every=3, extra=exact), "--backend", "cpu", "--no-png"),
        "exact method, 6 steps straight")
    ran(run("flow", case("exact_restarted", steps=3, every=3, extra=exact), "--backend", "cpu", "--no-png"),
        "exact method, first 3 steps")
    r = run("flow", case("exact_restarted", steps=6, every=3, extra=exact), "--backend", "cpu", "--no-png", "--restart")
    ran(r, "exact method, --restart to 6 steps")
    a = read_state(os.path.join(work, "out_exact_straight", "flow_000006.state"))
    check(f"exact checkpoint holds the streamfunction ({len(a['streamfunction'])} edges)", len(a["streamfunction"]) > 0)
    j = json.load(open(os.path.join(work, "out_exact_restarted", "flow.json")))
    check(f"exact JSON: method {j['scheme']['method']}, streamfunction iterations {j['iterations']['streamfunction']}",
          j["scheme"]["method"] == "exact" and j["iterations"]["streamfunction"]["max"] > 0)
    final_states_match(os.path.join(work, "out_exact_straight", "flow_000006.state"),
                       os.path.join(work, "out_exact_restarted", "flow_000006.state"), "exact: 3 + restart + 3 vs 6")
    # --no-vtu --every 2: checkpoints at 2, 4, 6, 8 (restartable), no VTU; the same final state.
    quiet = case("quiet", steps=8, every=4)
    ran(run("flow", quiet, "--backend", "cpu", "--no-png", "--no-vtu", "--every", "2"), "--no-vtu --every 2")
    out = os.path.join(work, "out_quiet")
    files = sorted(os.listdir(out))
    check(f"--no-vtu --every 2 wrote {files}", not any(f.endswith(".vtu") for f in files) and
          all(f"flow_{s:06d}.state" in files for s in (2, 4, 6, 8)) and "flow.json" in files)
    final_states_match(os.path.join(work, "out_straight", "flow_000008.state"), os.path.join(out, "flow_000008.state"),
                       "--no-vtu vs straight")


def complete_files(folder):
    """Every final-named file is complete: read back by its reader (tests/support/output_files.py)."""
    try:
        for name in os.listdir(folder):
            check_output_file(os.path.join(folder, name))
    except Exception as e:  # noqa: BLE001 (any reader's failure is the finding)
        print(f"damaged output: {e}")
        return False
    return True


def scenario_kill():
    steps = 20  # the kill comes at step 4: 16 more steps (seconds) leave it time to land
    straight = case("straight", steps=steps, every=2)
    ran(run("flow", straight, "--backend", "cpu", "--no-png"), f"{steps} steps straight")
    killed = case("killed", steps=steps, every=2)
    out = os.path.join(work, "out_killed")
    p = subprocess.Popen([exe, "flow", killed, "--backend", "cpu", "--no-png"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None and not os.path.exists(os.path.join(out, "flow_000004.state")):
        time.sleep(0.005)
    p.send_signal(signal.SIGKILL)
    p.wait()
    check(f"killed before the end (exit {p.returncode})", p.returncode == -signal.SIGKILL
          and not os.path.exists(os.path.join(out, "flow.json")))
    check("only complete files under final names", complete_files(out))
    r = run("flow", killed, "--backend", "cpu", "--no-png", "--restart")
    ran(r, "--restart after SIGKILL")
    j = json.load(open(os.path.join(out, "flow.json")))
    check(f"restarted from step {j['restarted_from']} >= 4", j["restarted_from"] is not None and j["restarted_from"] >= 4)
    check("no temporaries after the restart", temporaries(out) == [])
    final_states_match(os.path.join(work, "out_straight", f"flow_{steps:06d}.state"),
                       os.path.join(out, f"flow_{steps:06d}.state"), "killed + restart vs straight")


def scenario_errors():
    c = case("unknown", boundaries=[("lid", 'type = "wall"\nvelocity = [1, 0, 0]'), ("walls", 'type = "wall"'),
                                    ("inlet", 'type = "velocity"\nvelocity = [1, 0, 0]')])
    r = run("flow", c, "--backend", "cpu", "--no-png")
    line = error_line(r)
    table_line = open(c).read().splitlines().index('group = "inlet"')  # 0-based index of the key = 1-based line of its table
    check(f"unknown group: {line}", f"unknown.toml:{table_line}: unknown boundary group 'inlet'" in line
          and "lid (1)" in line)
    c = case("open", boundaries=[("lid", 'type = "wall"\nvelocity = [1, 0, 0]')])
    r = run("flow", c, "--backend", "cpu", "--no-png")
    line = error_line(r)
    check(f"boundary group without a condition: {line}",
          "open.toml" in line and "'walls'" in line and "no [[boundary]] condition" in line)
    c = case("norestart")
    r = run("flow", c, "--backend", "cpu", "--no-png", "--restart")
    check(f"--restart without a checkpoint: {error_line(r)}", "no checkpoint" in error_line(r))
    # dt = 2 on h ~ 0.1 with a unit lid speed: CFL ~ 20 after the first step.
    c = case("diverging", steps=5, dt=2.0, every=1)
    r = run("flow", c, "--backend", "cpu")
    line = error_line(r)
    check(f"diverging run: {line}", "CFL" in line and "stopped" in line)
    out = os.path.join(work, "out_diverging")
    left = sorted(os.listdir(out))
    check(f"no final outputs, no temporaries: {left}",
          not any(n in left for n in ("flow.vtu", "flow.json", "flow.png")) and temporaries(out) == [])
    check("only complete files", complete_files(out))
    # A steady march stopped by max_steps: exit 1 with one line that says why, after writing its
    # outputs, the JSON's stop reason and the last checkpoint (--restart continues it).
    c = case("unconverged", every=100, extra="\n[steady]\ntolerance = 1e-8\nmax_steps = 3\n")
    text = open(c).read().replace("steps = 5\n", "", 1)
    with open(c, "w") as f:
        f.write(text)
    r = run("flow", c, "--backend", "cpu", "--no-png")
    line = error_line(r)
    check(f"steady run at max_steps: {line}", "steady mode did not converge: max_steps after 3 steps" in line
          and "--restart" in line)
    out = os.path.join(work, "out_unconverged")
    summary = json.load(open(os.path.join(out, "flow.json"))) if os.path.exists(os.path.join(out, "flow.json")) else {}
    check(f"its flow.json says why: {summary.get('steady', {}).get('stop_reason')}",
          summary.get("steady", {}).get("stop_reason") == "max_steps")
    check("its last checkpoint is kept", os.path.exists(os.path.join(out, "flow_000003.state")))


def scenario_compare():
    c = case("compare", steps=20, every=10)
    r = run("flow", c, "--backend", "gpu", "--compare", "--no-png")
    ran(r, "flow --backend gpu --compare")
    j = json.load(open(os.path.join(work, "out_compare", "flow.json")))
    cmp = j.get("compare", {})
    check(f"compare keys {sorted(cmp)}", {"backend", "max_velocity_diff", "max_pressure_diff", "runs"} <= set(cmp))
    check(f"backend gpu vs {cmp.get('backend')}, launch {j.get('launch')}", j["backend"] == "gpu"
          and cmp.get("backend") == "cpu" and j.get("launch") == "fragment")
    choice = j.get("launch_choice", {})
    check(f"launch auto (the default) resolved by the renderer on llvmpipe: {choice}",
          choice.get("requested") == "auto" and choice.get("source") == "renderer" and "llvmpipe" in choice.get("reason", ""))
    check(f"max_velocity_diff {cmp.get('max_velocity_diff', 1):.2e} <= 1e-4", cmp.get("max_velocity_diff", 1) <= 1e-4)
    check(f"max_pressure_diff {cmp.get('max_pressure_diff', 1):.2e} <= 1e-3", cmp.get("max_pressure_diff", 1) <= 1e-3)
    runs = cmp.get("runs", {})
    check("both runs side by side", set(runs) == {"gpu", "cpu"} and runs["gpu"]["steps"] == runs["cpu"]["steps"] == 20)


def scenario_forces():
    forces = ('[[force]]\ngroup = "lid"\nreference_velocity = 1.0\nreference_area = 1.0\n\n'
              '[[force]]\ngroup = "walls"\n')
    c = case("forces", steps=8, every=4, extra="\n" + forces)
    r = run("flow", c, "--backend", "cpu", "--no-png", "--no-vtu")
    ran(r, "cavity with two [[force]] groups")
    out = os.path.join(work, "out_forces")
    straight = open(os.path.join(out, "forces.csv")).read()
    rows = straight.splitlines()
    check(f"forces.csv header {rows[0][:40]}...", rows[0].startswith("step,time,group,fx,fy,fz,fx_pressure"))
    body = [row.split(",") for row in rows[1:]]
    check(f"forces.csv rows {[(b[0], b[2]) for b in body]}",
          [(b[0], b[2]) for b in body] == [(s, g) for s in ("0", "4", "8") for g in ("lid", "walls")])
    lid, walls = body[-2], body[-1]
    check(f"lid fx {lid[3]} < 0, walls fx {walls[3]} > 0", float(lid[3]) < 0 < float(walls[3]))
    check(f"lid coefficient cx {lid[12]} = 2 fx, walls without", math.isclose(float(lid[12]), 2 * float(lid[3]),
                                                                               rel_tol=1e-6) and walls[12] == "")
    j = json.load(open(os.path.join(out, "flow.json")))
    jf = j.get("forces", [])
    check(f"flow.json forces for {[f['group'] for f in jf]}", [f["group"] for f in jf] == ["lid", "walls"] and
          "coefficients" in jf[0] and "coefficients" not in jf[1] and
          math.isclose(jf[0]["force"][0], float(lid[3]), rel_tol=1e-6))
    check("stdout names both forces", "force on lid:" in r.stdout and "force on walls:" in r.stdout)
    os.remove(os.path.join(out, "flow_000008.state"))
    ran(run("flow", c, "--backend", "cpu", "--no-png", "--no-vtu", "--restart"), "--restart from step 4")
    check("the restarted forces.csv equals the straight one",
          open(os.path.join(out, "forces.csv")).read() == straight)


def scenario_probes():
    probes = ('[[probe]]\nname = "centre"\npoints = [[0.5, 0.5, 0.5], [0.5, 0.5, 1.0]]\n\n'
              '[[probe]]\nname = "axis"\nline = {from = [0.5, 0.5, 0.0], to = [0.5, 0.5, 1.0], samples = 3}\n'
              'fields = ["velocity"]\n')
    c = case("probes", steps=8, every=4, extra=probes)
    ran(run("flow", c, "--backend", "cpu", "--no-png", "--no-vtu"), "8 steps with two probes, --no-vtu")
    out = os.path.join(work, "out_probes")
    centre_path = os.path.join(out, "probes", "centre.csv")
    rows = [l.split(",") for l in open(centre_path).read().splitlines()]
    head = ["time"] + [f"{n}@{k}" for k in (0, 1) for n in ("velocity_x", "velocity_y", "velocity_z", "pressure")]
    check(f"centre.csv header {rows[0]}", rows[0] == head)
    times = [float(r[0]) for r in rows[1:]]
    check(f"centre.csv rows at the output steps {times} (the end is the last one)",
          len(times) == 3 and abs(times[1] - 0.04) < 1e-12 and abs(times[2] - 0.08) < 1e-12 and times[0] == 0)
    check("the lid point reads the lid velocity", all(r[5:8] == ["1.000000000e+00", "0.000000000e+00",
                                                                 "0.000000000e+00"] for r in rows[1:]))
    axis = [l.split(",") for l in open(os.path.join(out, "probes", "axis.csv")).read().splitlines()]
    check(f"axis.csv: 1 + 9 columns, 3 rows", len(axis) == 4 and all(len(r) == 10 for r in axis)
          and axis[0][1:4] == ["velocity_x@0", "velocity_y@0", "velocity_z@0"])
    j = json.load(open(os.path.join(out, "flow.json")))
    jp = j.get("probes", {})
    final = dict(zip(head[1:], (float(v) for v in rows[-1][1:])))
    check(f"flow.json probes {sorted(jp)} with the final row's values",
          sorted(jp) == ["axis", "centre"] and jp["centre"]["file"] == "probes/centre.csv"
          and jp["centre"]["points"] == [[0.5, 0.5, 0.5], [0.5, 0.5, 1.0]]
          and all(math.isclose(jp["centre"]["values"][k], v, rel_tol=1e-8, abs_tol=1e-15) for k, v in final.items()))
    check("no temporaries", temporaries(out) == [] and temporaries(os.path.join(out, "probes")) == [])
    # A restart from step 4 (the step 8 checkpoint gone, its row still in the file): the rows after
    # the checkpoint go, the continued run writes them again, the same as the straight run's.
    straight = open(centre_path).read()
    os.remove(os.path.join(out, "flow_000008.state"))
    ran(run("flow", c, "--backend", "cpu", "--no-png", "--no-vtu", "--restart"), "--restart from step 4")
    check("the restarted centre.csv equals the straight one", open(centre_path).read() == straight)
    # A point outside the mesh: one error naming the case file's line, the probe and the point.
    far = case("far", steps=2, extra='[[probe]]\nname = "far"\npoints = [[0.5, 0.5, 0.5], [2, 0.5, 0.5]]\n')
    r = run("flow", far, "--backend", "cpu", "--no-png")
    line = error_line(r)
    check(f"outside point: {line}", "far.toml:23: probe 'far': point 1 (2, 0.5, 0.5) is outside the mesh" in line)


def scenario_memory():
    c = case("memory", steps=1, every=1)
    r = run("flow", c, "--backend", "cpu", "--no-png", "--no-vtu", "--refine", "2")
    ran(r, "refine 2, one step")
    j = json.load(open(os.path.join(work, "out_memory", "flow.json")))
    cells, peak, per_cell = j["mesh"]["cells"], j["peak_host_memory_bytes"], j["peak_host_memory_bytes_per_cell"]
    check(f"{cells} cells, peak {peak} bytes, {per_cell:.0f} bytes a cell",
          cells == 319616 and abs(per_cell - peak / cells) <= 1e-9 * per_cell)
    # Measured 3,368 bytes a cell (dev, CPU backend, 1.08 GB): the double fields, the operator
    # tables, the viscous operator's factors and the pressure multigrid; the bound is 12 % above it.
    check(f"peak host memory {per_cell:.0f} bytes a cell <= 3,770", per_cell <= 3770)


{"outputs": scenario_outputs, "memory": scenario_memory, "restart": scenario_restart, "kill": scenario_kill, "errors": scenario_errors,
 "forces": scenario_forces, "compare": scenario_compare, "probes": scenario_probes}[scenario]()
if failures:
    print(f"{len(failures)} FAILED")
    sys.exit(1)
print("all passed")
