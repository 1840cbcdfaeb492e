#!/usr/bin/env python3
"""Checks that the measured figures of the user pages are the figure tables' own.

Usage: check_figures.py [REPO]   (default: the repository this script is in)

Figures live in the tables of docs/performance.md and docs/validation.md, each with the command that
reproduces it; README.md, docs/user-guide.md and docs/gpu-machine.md link to them. A figure one of
those pages quotes must be written as its table writes it, so that a table that changes and a page
that was not changed with it (or a figure typed in by hand) fail here.

A figure is, outside fenced code blocks, `code spans` and link targets:
  - a number or a range of numbers (a–b, with an en dash) followed by a unit: s, ms, µs, min,
    minutes, GB, GiB, MB, MiB, kB, GB/s, TB/s, %, ×   (e.g. `0.43 s`, `1.95–2.17×`, `89 %`);
  - a number written with thousands separators (e.g. `1,625`);
  - any other number with a decimal point (e.g. `2.535`, `4.383`).
Not figures: a machine name such as 4×H200, a number glued to a letter (a mesh size such as 7.2M, a
mantissa such as 4.05e-5), a number next to a slash (versions such as 2.2/4.1).

The rule: the figure's number (the range as a whole) must occur as a number in docs/performance.md
or docs/validation.md, written the same way (0.43 does not match 0.430). Where the figure's Markdown
block (a paragraph, a list item or a table row) links to sections of those two pages
(`performance.md#anchor`), it must occur in one of the linked sections (a section runs to the next
heading of its level or above); where it links to a page without an anchor, anywhere in that page.

ALLOWED lists the few figures that are not measurements, each with its reason.

Prints one line per figure not found, `FILE:LINE: ...`, and exits 1; exits 0 silently when clean.
The ctest docs_figures (label unit) runs it.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_links import ATX, FENCE, slug  # noqa: E402  (the same heading slugs as the link check)

CHECKED = ["README.md", "docs/user-guide.md", "docs/gpu-machine.md"]
SOURCES = ["docs/performance.md", "docs/validation.md"]

# (page, figure as written, why it is no measurement).
ALLOWED = [
    ("README.md", "2 minutes", "the quick start's rough build time, not a result of streamsolve"),
    ("README.md", "30 s", "the time run_tests.sh gives each fuzz target, a setting"),
    ("README.md", "357,913,941", "the largest mesh 32-bit ids allow, computed, not measured"),
    ("docs/user-guide.md", "357,913,941", "the largest mesh 32-bit ids allow, computed, not measured"),
    ("docs/user-guide.md", "1%", "flow.png's rule for drawing an arrow, a setting"),
    ("docs/user-guide.md", "20 %", "the VTU writer's threshold for storing a block uncompressed, a setting"),
    ("docs/user-guide.md", "0.8", "flow.png's arrow length (of the grid spacing), a setting"),
    ("README.md", "4.3", "the OpenGL version"),
    ("docs/user-guide.md", "4.3", "the OpenGL version"),
    ("docs/user-guide.md", "2.35", "the glibc version"),
    ("docs/gpu-machine.md", "2.35", "the glibc version"),
]

NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
UNIT = r"(?:minutes|min|ms|µs|s|GB/s|TB/s|GiB|GB|MiB|MB|kB)(?![\w/])|%|×(?!\s?H\d)"
FIGURE = re.compile(rf"(?<![\w.,^/])({NUM}(?:\s?–\s?{NUM})?)[ \u00a0\u2009]?(?:{UNIT})")
SEPARATED = re.compile(r"(?<![\w.,^/])(\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?![\w,/])")
DECIMAL = re.compile(r"(?<![\w.,^/])(\d+\.\d+)(?![\w/]|\.\d)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
LINK_TARGET = re.compile(r"\]\(([^)\s]*)[^)]*\)")
SOURCE_LINK = re.compile(r"(?:^|/)(performance|validation)\.md(?:#([^)\s]*))?$")
BLOCK_START = re.compile(r"^\s{0,3}(?:[-*+]\s|\d+\.\s|\||#)")


def blocks(text):
    """(first line number, block text) of each paragraph, list item, table row or heading outside
    fenced code blocks."""
    fence, current, first = None, [], 0
    for number, line in enumerate(text.splitlines(), start=1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)[0] * len(m.group(1))
        if m or not line.strip() or BLOCK_START.match(line) or (current and current[-1].lstrip().startswith("|")):
            if current:
                yield first, "\n".join(current)
            current = []
            if m or not line.strip():
                continue
        if not current:
            first = number
        current.append(line)
    if current:
        yield first, "\n".join(current)


def blank(m):
    """The match with every character but newlines turned into a space (offsets and lines kept)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def sections(text):
    """{anchor: section text} of a page: each heading's slug (GitHub's, -1, -2 for repeats) to its
    text up to the next heading of its level or above."""
    lines = text.splitlines()
    heads, seen, fence = [], {}, None
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        h = ATX.match(line)
        if h:
            base = slug(h.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            heads.append((i, len(h.group(1)), base if n == 0 else f"{base}-{n}"))
    found = {}
    for k, (i, level, anchor) in enumerate(heads):
        end = next((j for j, lv, _ in heads[k + 1:] if lv <= level), len(lines))
        found[anchor] = "\n".join(lines[i:end])
    return found


def occurs(number, text):
    """Whether `number` occurs in `text` as a whole number (not inside a longer one)."""
    return re.search(rf"(?<![\w.,]){re.escape(number)}(?!\w|[.,]\d)", text) is not None


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    source_text, source_sections = {}, {}
    for rel in SOURCES:
        if not os.path.isfile(os.path.join(repo, rel)):
            print(f"{rel}:0: page missing")
            return 1
        with open(os.path.join(repo, rel), encoding="utf-8") as f:
            text = f.read()
        page = os.path.basename(rel)[:-3]
        source_text[page] = text
        source_sections[page] = sections(text)
    problems = []
    for rel in CHECKED:
        path = os.path.join(repo, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}:0: page missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        allowed = {figure for page, figure, _ in ALLOWED if page == rel}
        for first, block in blocks(text):
            # Where the block points: (page, anchor or None) of its links into the figure pages.
            targets = []
            for target in LINK_TARGET.findall(block):
                m = SOURCE_LINK.search(target)
                if m:
                    targets.append((m.group(1), m.group(2)))
            plain = CODE_SPAN.sub(blank, block)
            plain = LINK_TARGET.sub(blank, plain)
            found = [(m.start(), m.group(0).strip(), m.group(1)) for m in FIGURE.finditer(plain)]
            for pattern in (SEPARATED, DECIMAL):
                found += [(m.start(), m.group(0), m.group(1)) for m in pattern.finditer(plain)
                          if not any(s <= m.start() < s + len(f) for s, f, _ in found)]
            for start, figure, number in sorted(found):
                if figure in allowed or number in allowed:
                    continue
                line = first + plain.count("\n", 0, start)
                if targets:
                    places = []
                    for page, anchor in targets:
                        if anchor is None:
                            places.append((f"docs/{page}.md", source_text[page]))
                        elif anchor in source_sections[page]:
                            places.append((f"docs/{page}.md#{anchor}", source_sections[page][anchor]))
                        else:
                            places.append((f"docs/{page}.md#{anchor}", ""))
                else:
                    places = [(f"docs/{page}.md", source_text[page]) for page in source_text]
                if not any(occurs(number, body) for _, body in places):
                    where = ", ".join(sorted({name for name, _ in places}))
                    problems.append(f"{rel}:{line}: figure '{figure}' is not written so in {where} "
                                    "(quote the table's figure, or link to the table instead)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
