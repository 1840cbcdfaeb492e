#!/usr/bin/python3
"""tools/rank_share.py on made-up scaling.sh runs with known answers (no streamsolve run):

  the whole mesh's run: 0.6 s a step after the first, components momentum 0.4 + pressure 0.2 +
  convection 0.15 + diagnostics 0.05 s (so a scale of 0.75), 40 momentum and 10 pressure iterations:
  7.5 and 15 ms an iteration, 0.15 s of rest; a quarter share: 0.2 s after the first, 0.1 + 0.1 +
  0.05 s (scale 0.8), 20 and 10 iterations: 4 and 8 ms, 0.04 s of rest. At the whole mesh's
  iterations the 4-GPU ceiling is 40·4 + 10·8 ms + 0.04 s = 0.28 s (2.143×); at 50 and 12 iterations
  over the ranks (--iterations) 0.336 s (1.786×). A share run on two ranks, a log without two
  progress lines and a malformed N=PATH are one error line each and a non-zero exit.
Usage: check_rank_share.py SOURCE_DIR WORK_DIR ; exit status 0 when all pass."""
import json
import os
import shutil
import subprocess
import sys

source, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
tool = os.path.join(source, "tools", "rank_share.py")
failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run_dir(name, ranks, cells, components, iterations, after_first, steps=21):
    """A scaling.sh output directory: DIR/flow_<ranks>/flow.json and DIR/flow_<ranks>.log."""
    folder = os.path.join(work, name)
    os.makedirs(os.path.join(folder, f"flow_{ranks}"))
    parts = dict(components, output=1.0, total=sum(components.values()))
    flow = {"ranks": ranks, "mesh": {"cells": cells}, "seconds_per_step": parts,
            "iterations": {solve: {"mean": n} for solve, n in iterations.items()}}
    with open(os.path.join(folder, f"flow_{ranks}", "flow.json"), "w") as f:
        json.dump(flow, f)
    with open(os.path.join(folder, f"flow_{ranks}.log"), "w") as f:
        if after_first is not None:
            f.write(f"streamsolve: flow: gpu step 1/{steps}, t = 0.002, iterations momentum 9, 3.0 s\n")
            f.write(f"streamsolve: flow: gpu step {steps}/{steps}, t = 0.042, iterations momentum 9, "
                    f"{3.0 + (steps - 1) * after_first:.6f} s\n")
    return folder


def tool_run(*args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)


full = run_dir("full", 1, 8000, {"momentum": 0.4, "pressure": 0.2, "convection": 0.15, "diagnostics": 0.05},
               {"momentum": 40, "pressure": 10}, 0.6)
quarter = run_dir("quarter", 1, 2000, {"momentum": 0.1, "pressure": 0.1, "convection": 0.05},
                  {"momentum": 20, "pressure": 10}, 0.2)
over_four = run_dir("over_four", 4, 8000, {"momentum": 0.1, "pressure": 0.1}, {"momentum": 50, "pressure": 12}, 0.2)

out = os.path.join(work, "figures.json")
done = tool_run(full, f"4={quarter}", "--json", out)
check("runs on the made-up runs", done.returncode == 0)
figures = json.load(open(out)) if done.returncode == 0 else {"full": {}, "shares": [{}]}
whole, share = figures["full"], figures["shares"][0]
near = lambda a, b: a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))
check("the whole run: 7.5 ms a momentum iteration", near(whole.get("momentum_seconds_per_iteration"), 7.5e-3))
check("the whole run: 15 ms a pressure iteration", near(whole.get("pressure_seconds_per_iteration"), 15e-3))
check("the whole run: 0.15 s of rest", near(whole.get("rest_seconds"), 0.15))
check("the quarter: 4 and 8 ms an iteration",
      near(share.get("share", {}).get("momentum_seconds_per_iteration"), 4e-3)
      and near(share.get("share", {}).get("pressure_seconds_per_iteration"), 8e-3))
check("the 4-GPU ceiling at the whole run's iterations: 0.28 s", near(share.get("ceiling_seconds_per_step"), 0.28))
check("its speed-up 0.6 / 0.28", near(share.get("ceiling_speed_up"), 0.6 / 0.28))

done = tool_run(full, f"4={quarter}", "--iterations", f"4={over_four}", "--json", out)
share = json.load(open(out))["shares"][0] if done.returncode == 0 else {}
check("at the iterations over 4 ranks: 0.336 s", near(share.get("ceiling_seconds_per_step"), 0.336))

two_ranks = run_dir("two_ranks", 2, 4000, {"momentum": 0.1, "pressure": 0.1}, {"momentum": 20, "pressure": 10}, 0.2)
silent = run_dir("silent", 1, 2000, {"momentum": 0.1, "pressure": 0.1}, {"momentum": 20, "pressure": 10}, None)
for what, args, words in [
    ("a share run on two ranks", [full, f"2={os.path.join(two_ranks, 'flow_2', 'flow.json')}"], "not on one"),
    ("a log without progress lines", [full, f"4={silent}"], "progress lines"),
    ("a malformed N=PATH", [full, quarter], "expected N=PATH"),
]:
    done = tool_run(*args)
    lines = done.stderr.strip().splitlines()
    check(f"{what}: one error line naming it, exit 2",
          done.returncode == 2 and len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
