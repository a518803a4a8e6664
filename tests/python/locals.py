# -*- coding: utf-8 -*-
# Fixture for py-locals in tests/run-python.sh.
#
# Usage: python locals.py FIFO OUTFILE
#
# values() holds one local of each kind, writes OUTFILE (JSON) with
# Python's own repr of each (the oracle), writes "ready" into FIFO, and
# blocks in time.sleep, a C function: values() is the innermost Python frame
# (frame 0) and outer() frame 1.
#
# OUTFILE: {"pid", "version", "frame": {function, file, line} of values(),
# "locals": {name: repr}, "outer_locals": {name:
# repr}, "truncated": {name: repr with at most LIMIT elements per
# container}, "limit": LIMIT}.  The truncated form puts ", ..." after the
# first LIMIT elements of a list (or items of a dict) that has more.
#
# Runs unchanged on CPython 2.7 and 3.6+.  Text literals are u"" so that
# they are unicode on 2.7 too; their repr there is Python 2's (u'\xe9').
from __future__ import print_function

import json
import os
import sys
import time

FOREVER = 100000
LIMIT = 200


class Thing(object):
    def __init__(self):
        self.attr = 1


def a_function():
    return 42


def truncated_repr(value, limit):
    if isinstance(value, list) and len(value) > limit:
        return "[" + ", ".join(repr(v) for v in value[:limit]) + ", ...]"
    if isinstance(value, dict) and len(value) > limit:
        items = list(value.items())[:limit]
        return "{" + ", ".join("%r: %r" % kv for kv in items) + ", ...}"
    return None


def frame_record(f):
    code = f.f_code
    return {"function": getattr(code, "co_qualname", code.co_name),
            "file": code.co_filename, "line": f.f_lineno}


def publish(fifo, outfile, values_locals, outer_locals):
    out = {
        "pid": os.getpid(),
        "version": "%d.%d.%d" % sys.version_info[:3],
        "abiflags": getattr(sys, "abiflags", ""),
        "limit": LIMIT,
        "frame": frame_record(sys._getframe(1)),
        "locals": dict((k, repr(v)) for k, v in values_locals.items()),
        "outer_locals": dict((k, repr(v)) for k, v in outer_locals.items()),
        "truncated": {},
    }
    for k, v in values_locals.items():
        t = truncated_repr(v, LIMIT)
        if t is not None:
            out["truncated"][k] = t
    tmp = outfile + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    os.rename(tmp, outfile)
    with open(fifo, "w") as f:
        f.write("ready\n")
    return None


def values(fifo, outfile, outer_locals):
    v_none = None
    v_true = True
    v_false = False
    v_small = 42
    v_negative = -7
    v_zero = 0
    v_big = 2 ** 100
    v_big_negative = -(3 ** 80)
    v_digit_edge = 2 ** 30
    v_float = 1.5
    v_negzero = -0.0
    v_float_huge = 1e300
    v_float_small = 1e-300
    v_float_third = 1.0 / 3
    v_inf = float("inf")
    v_ninf = float("-inf")
    v_nan = float("nan")
    v_str = "hello, world"
    v_str_quotes = u"it's \"quoted\"\n\ttab\\"
    v_str_latin1 = u"\u00e9"
    v_str_bmp = u"\u00fc\u20ac"
    v_str_astral = u"\U0001d11e"
    v_str_mixed = u"a\u00e9\u20ac\U0001d11e\x00\x7f"
    v_str_empty = u""
    v_str_long = u"ab" * 5000
    v_bytes = b"a\x00\x01\x7f\xff'\"\\\n"
    v_bytes_empty = b""
    v_list = [1, u"two", 3.0, None, [4, (5,)]]
    v_list_empty = []
    v_tuple_empty = ()
    v_tuple_one = (1,)
    v_tuple_nested = ((1, 2), (u"x", (None,)), [])
    v_dict = {u"a": 1, 2: u"b", u"c": [3]}
    v_dict_empty = {}
    v_dict_big = dict((i, i * i) for i in range(1000))
    v_set = set([1, 2, 3])
    v_frozenset = frozenset([u"x"])
    v_set_empty = set()
    v_list_long = list(range(10000))
    v_list_self = []
    v_list_self.append(v_list_self)
    v_dict_self = {}
    v_dict_self[u"self"] = v_dict_self
    v_instance = Thing()
    v_function = a_function
    v_module = os
    time.sleep(publish(fifo, outfile, locals(), outer_locals) or FOREVER)


def outer(fifo, outfile):
    marker = u"outer frame"
    count = 3
    values(fifo, outfile, locals())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: locals.py FIFO OUTFILE")
    outer(sys.argv[1], sys.argv[2])
