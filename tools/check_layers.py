#!/usr/bin/env python3
"""Checks the layering of src/ (docs/architecture.md): a file of layer L includes only headers of L
or of a layer below it, and no chain of includes leads back to the file it starts from.

Usage: check_layers.py [REPO]   (default: the repository this script is in)
Prints one line per violation, `FILE:LINE: <what>`, and exits 1; exits 0 silently when clean."""
import os
import re
import sys

# Lowest first. A layer may include its own headers and those of every layer listed before it.
LAYERS = ["util", "mesh", "gl", "field", "kernels", "cpu", "operators", "solver", "multigrid", "render",
          "parallel", "cases", "problems", "physics", "postprocess", "distributed", "run", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def project_includes(path):
    """(line number, included path) of every quoted include of `path`."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    src = os.path.join(repo, "src")
    rank = {name: i for i, name in enumerate(LAYERS)}
    problems = []
    graph = {}  # file (relative to src) -> included files (relative to src) that exist
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in rank:
            problems.append(f"src/{layer}: a folder that is no layer of check_layers.py's LAYERS")
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".hpp", ".cpp", ".h")):
                continue
            here = f"{layer}/{name}"
            graph[here] = []
            for number, target in project_includes(os.path.join(folder, name)):
                if "/" not in target:
                    continue  # a generated header beside the build (e.g. embedded shaders)
                if not os.path.isfile(os.path.join(src, target)):
                    continue  # not a source header (generated ones live in the build folder)
                graph[here].append((number, target))
                other = target.split("/", 1)[0]
                if other not in rank:
                    problems.append(f"src/{here}:{number}: includes {target} from no known layer")
                elif rank[other] > rank[layer]:
                    problems.append(f"src/{here}:{number}: {layer} includes {target} of the higher layer {other}")
    # Include cycles: depth-first search, a back edge closes a cycle.
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for number, target in graph.get(node, []):
            if state.get(target) == "open":
                cycle = stack[stack.index(target):] + [target]
                problems.append(f"src/{node}:{number}: include cycle " + " -> ".join(cycle))
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in state:
            visit(node)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
