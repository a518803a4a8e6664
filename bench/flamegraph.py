#!/usr/bin/env python3
"""Draw a flame graph (SVG) from folded stacks, as `record --format
folded` writes them: "outer;inner;leaf COUNT" per line, the root first.

    bench/flamegraph.py [--title T] [--width PX] FOLDED > graph.svg

The picture in the README is made this way from a recording of the demo
target.  Each box is a frame; its width is the share of samples whose
stack passes through it, callers below their callees; colours are a hash
of the name, so a function keeps its colour across graphs."""
import argparse
import html
import sys
import zlib

ROW = 17            # pixels per stack level
FONT = 11           # font size
CHAR = 6.6          # average width of a character at FONT
MARGIN = 10
TOP = 34            # room for the title


class Node:
    __slots__ = ("name", "count", "children")

    def __init__(self, name):
        self.name = name
        self.count = 0
        self.children = {}


def parse(lines):
    root = Node("all")
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, sep, count = line.rpartition(" ")
        if not sep or not count.isdigit():
            sys.exit("flamegraph.py: line %d is not 'frame;frame;... count'" % n)
        c = int(count)
        root.count += c
        node = root
        for frame in stack.split(";"):
            node = node.children.setdefault(frame, Node(frame))
            node.count += c
    return root


def depth(node):
    return 1 + max((depth(c) for c in node.children.values()), default=0)


def colour(name):
    h = zlib.crc32(name.encode("utf-8", "replace"))
    return "rgb(%d,%d,%d)" % (205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 55)


def boxes(node, x, level, scale, out):
    """Yield (x, level, width, node) for NODE and its children, sorted by
    name as flamegraph.pl does (the order of the samples means nothing)."""
    out.append((x, level, node.count * scale, node))
    for name in sorted(node.children):
        child = node.children[name]
        boxes(child, x, level + 1, scale, out)
        x += child.count * scale


def svg(root, title, width):
    levels = depth(root)
    height = TOP + levels * ROW + MARGIN
    scale = (width - 2 * MARGIN) / max(root.count, 1)
    out = []
    boxes(root, MARGIN, 0, scale, out)
    parts = ['<?xml version="1.0" standalone="no"?>',
             '<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="Verdana, sans-serif" font-size="%d">' % (width, height, FONT),
             '<rect x="0" y="0" width="100%" height="100%" fill="#f8f8f0"/>',
             '<text x="%d" y="22" text-anchor="middle" font-size="16">%s</text>'
             % (width // 2, html.escape(title))]
    for x, level, bw, node in out:
        if bw < 0.5:
            continue
        y = height - MARGIN - (level + 1) * ROW
        pct = 100.0 * node.count / max(root.count, 1)
        tip = "%s (%d samples, %.1f%%)" % (node.name, node.count, pct)
        parts.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                     'rx="2" fill="%s"/>' % (html.escape(tip), x, y, bw, ROW - 1,
                                              "#c8c8c8" if level == 0 else colour(node.name)))
        fits = int((bw - 6) / CHAR)
        if fits >= 3:
            label = node.name if len(node.name) <= fits else node.name[:fits - 2] + ".."
            parts.append('<text x="%.1f" y="%d">%s</text>' % (x + 3, y + ROW - 5,
                                                              html.escape(label)))
        parts.append('</g>')
    parts.append('</svg>')
    return "\n".join(parts) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--title", default="Flame graph")
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("folded")
    a = ap.parse_args()
    with open(a.folded, encoding="utf-8", errors="replace") as f:
        root = parse(f)
    if not root.count:
        sys.exit("flamegraph.py: %s has no samples" % a.folded)
    sys.stdout.write(svg(root, a.title, a.width))


if __name__ == "__main__":
    main()
