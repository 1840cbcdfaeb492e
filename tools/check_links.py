#!/usr/bin/env python3
"""Checks the relative links and images of README.md and docs/*.md.

    tools/check_links.py [REPO_ROOT]

Every inline link or image, [text](target) or ![alt](target), whose target is not http(s):// or
mailto: must name an existing file or folder, relative to the Markdown file that holds it. A
#anchor into a Markdown file (or into the file itself: (#anchor)) must name one of its headings,
slugged as GitHub does: lowercase, punctuation other than '-' and '_' dropped, spaces turned into
'-', a repeated heading suffixed -1, -2, ... Links inside code (fenced blocks, `spans`) are not links.

Prints one line per broken link, FILE:LINE: broken link TARGET, and exits 1; exits 0 silently when
every link resolves. The ctest docs_links (label unit) runs it.
"""
import os
import re
import sys
from urllib.parse import unquote

# [text](target "title") or ![alt](<target>); the text may hold one level of brackets.
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:"[^"]*"|\'[^\']*\'))?\s*\)')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
FENCE = re.compile(r'^\s*(`{3,}|~{3,})')
ATX = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
SETEXT = re.compile(r'^\s{0,3}(=+|-+)\s*$')
HTML_ANCHOR = re.compile(r'<a\s+(?:name|id)="([^"]+)"', re.IGNORECASE)
SKIP = ('http://', 'https://', 'mailto:')


def lines_outside_code(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * len(m.group(1))
                continue
            yield number, line
        elif m and m.group(1).startswith(fence):
            fence = None


def heading_text(raw):
    """The rendered text of a heading: code spans kept as text, links as their text, no emphasis."""
    text = CODE_SPAN.sub(lambda m: m.group(2), raw)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'<[^>]+>', '', text)
    return re.sub(r'(\*+|(?<!\w)_+|_+(?!\w))', '', text)


def slug(text):
    """GitHub's heading id: lowercase, drop punctuation except '-' and '_', spaces become '-'."""
    text = heading_text(text).strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in '-_ ')
    return text.replace(' ', '-')


def anchors(path, cache={}):
    """The anchors a Markdown file defines (its headings' slugs and <a name/id> tags)."""
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding='utf-8') as f:
            lines = list(lines_outside_code(f.read()))
        previous = ''
        for _, line in lines:
            title = None
            m = ATX.match(line)
            if m:
                title = m.group(2)
            elif SETEXT.match(line) and previous.strip() and not previous.lstrip().startswith(('|', '-', '*', '>')):
                title = previous.strip()
            if title is not None:
                base = slug(title)
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f'{base}-{n}')
            found.update(a for a in HTML_ANCHOR.findall(line))
            previous = line
        cache[path] = found
    return cache[path]


def check(md, root):
    """Broken links of one Markdown file: (line, target)."""
    broken = []
    with open(md, encoding='utf-8') as f:
        text = f.read()
    for number, line in lines_outside_code(text):
        line = CODE_SPAN.sub(lambda m: ' ' * len(m.group(0)), line)
        for m in LINK.finditer(line):
            target = m.group(1)
            if target.startswith('<') and target.endswith('>'):
                target = target[1:-1]
            if not target or target.startswith(SKIP):
                continue
            path, _, anchor = target.partition('#')
            file = os.path.normpath(os.path.join(os.path.dirname(md), unquote(path))) if path else md
            if not os.path.exists(file):
                broken.append((number, target))
            elif anchor and file.endswith('.md') and os.path.isfile(file) and unquote(anchor).lower() not in anchors(file):
                broken.append((number, target))
    return broken


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
    docs = os.path.join(root, 'docs')
    files = [os.path.join(root, 'README.md')]
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith('.md'))
    status = 0
    for md in files:
        if not os.path.isfile(md):
            print(f'{os.path.relpath(md, root)}:0: broken link (file missing)')
            status = 1
            continue
        for number, target in check(md, root):
            print(f'{os.path.relpath(md, root)}:{number}: broken link {target}')
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
