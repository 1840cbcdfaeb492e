"""What tools/scaling.sh's flow runs left behind (DIR/flow_N/flow.json and its log DIR/flow_N.log),
read the same way by scaling.sh's flow table and tools/rank_share.py."""
import os
import re


def after_first(json_file):
    """Seconds a step after the first, from rank 0's progress lines ("step k/N, ..., T s", T since the
    run's start) in the run's log: (T_last - T_first) / (k_last - k_first); the first step's first
    use of each kernel and halo is left out. NaN with fewer than two lines."""
    lines = []
    with open(os.path.dirname(json_file) + ".log") as log:
        for line in log:
            m = re.search(r"step (\d+)/\d+,.* ([0-9.]+) s$", line.strip())
            if m:
                lines.append((int(m.group(1)), float(m.group(2))))
    if len(lines) < 2 or lines[-1][0] == lines[0][0]:
        return float("nan")
    return (lines[-1][1] - lines[0][1]) / (lines[-1][0] - lines[0][0])
