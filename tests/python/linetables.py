# Dump the line tables of many code objects with the lines CPython itself
# gives for each instruction, for tests/unit/test-linetable.c: the
# plugin's decoders against the interpreter's own answers.
#
# python linetables.py > dump; lines:
#   C FIRSTLINENO HEX     a code object's table (co_lnotab up to 3.9,
#                         co_linetable from 3.10)
#   P POSITION LINE       an instruction and its line (0: none); POSITION
#                         is what a frame holds: the byte offset up to 3.9,
#                         code units from 3.10
from __future__ import print_function
import dis
import os
import sys
import types

V = sys.version_info[:2]


def codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            for n in codes(c):
                yield n


def hexof(b):
    return "".join("%02x" % (x if isinstance(x, int) else ord(x)) for x in b) or "-"


def dump(code):
    if V >= (3, 10):
        table = code.co_linetable
        print("C", code.co_firstlineno, hexof(table))
        for start, end, line in code.co_lines():
            for byte in range(start, end, 2):
                print("P", byte // 2, line or 0)
    else:
        print("C", code.co_firstlineno, hexof(code.co_lnotab))
        starts = list(dis.findlinestarts(code))
        line = code.co_firstlineno
        k = 0
        for off in range(0, len(code.co_code), 2 if V >= (3, 6) else 1):
            while k < len(starts) and starts[k][0] <= off:
                line = starts[k][1]
                k += 1
            print("P", off, line)


here = os.path.dirname(os.path.abspath(__file__))
sources = [os.path.join(here, f) for f in ("stacks.py", "locals.py", "hostile.py")]
import threading, json.decoder, argparse
for mod in (threading, json.decoder, argparse):
    sources.append(mod.__file__.replace(".pyc", ".py"))
for path in sources:
    with open(path, "rb") as f:
        src = f.read()
    try:
        top = compile(src, path, "exec")
    except SyntaxError:
        continue	# stacks3.py-style syntax of newer versions
    for c in codes(top):
        dump(c)
