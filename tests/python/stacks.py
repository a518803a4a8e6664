# -*- coding: utf-8 -*-
# Fixture for tests/run-python.sh: threads whose Python stacks are known.
#
# Usage: python stacks.py FIFO OUTFILE
#
# Every thread records its own stack at the line where it blocks, with a
# call made on that line itself (time.sleep(record("sleeper") or N)), then
# blocks there.  Once every thread has recorded, the main thread writes
# OUTFILE (JSON: pid, version, threads with ident, native_id, name, role and
# frames innermost first), writes "ready" into FIFO and blocks too.
#
# Runs unchanged on CPython 2.7 and 3.6+: no syntax newer than 2.7 here; the
# async code is in stacks3.py and the non-ASCII identifiers in
# pÿthön/mod_ünï.py, both imported on 3 only.
from __future__ import print_function

import ctypes
import ctypes.util
import functools
import json
import os
import select
import sys
import threading
import time

try:
    from _thread import get_ident
except ImportError:
    from thread import get_ident

HERE = os.path.dirname(os.path.abspath(__file__))
FOREVER = 100000

_records = {}
_records_lock = threading.Lock()
_recorded = threading.Condition(_records_lock)


def frame_function(code):
    return getattr(code, "co_qualname", code.co_name)


def text(s):
    # File names, code and thread names as text: on 2.7 they are byte
    # strings (UTF-8 here).
    if sys.version_info[0] < 3 and isinstance(s, bytes):
        return s.decode("utf-8")
    return s


def spin_lines(filename):
    # The lines that end with "# SPIN" in FILENAME: the spinner's loop.
    lines = []
    with open(filename, "rb") as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(b"# SPIN"):
                lines.append(n)
    return lines


def record(role, depth=1, spinner=False):
    """Record the calling thread's Python stack, from the frame DEPTH levels
    up (1: record's caller), innermost first.  Returns None."""
    frames = []
    f = sys._getframe(depth)
    while f is not None:
        frames.append({
            "function": text(frame_function(f.f_code)),
            "file": text(f.f_code.co_filename),
            "line": f.f_lineno,
        })
        f = f.f_back
    t = threading.current_thread()
    entry = {
        "role": role,
        "name": text(t.name),
        "ident": get_ident(),
        "thread_id": "0x%x" % (get_ident() & 0xffffffffffffffff),
        "native_id": threading.get_native_id() if hasattr(threading, "get_native_id") else None,
        "frames": frames,
    }
    if spinner:
        entry["lines"] = spin_lines(sys._getframe(depth).f_code.co_filename)
    with _recorded:
        _records[role] = entry
        _recorded.notify_all()
    return None


def wait_recorded(roles, timeout=15):
    deadline = time.time() + timeout
    with _recorded:
        while not all(r in _records for r in roles):
            left = deadline - time.time()
            if left <= 0:
                missing = [r for r in roles if r not in _records]
                raise RuntimeError("threads did not record: %s" % ", ".join(missing))
            _recorded.wait(min(left, 0.5))


# ---- the roles ------------------------------------------------------------

def sleeper():
    time.sleep(record("sleeper") or FOREVER)


def closures():
    a = 1

    def level1():
        b = a + 1

        def level2():
            c = b + 1

            def level3():
                time.sleep(record("closures") or (FOREVER + a + b + c))
            return level3()
        return level2()
    return level1()


class Outer(object):
    class Inner(object):
        def method(self):
            time.sleep(record("methods") or FOREVER)

        @classmethod
        def make(cls):
            return cls().method()

    @staticmethod
    def start():
        return Outer.Inner.make()


def gen_body():
    time.sleep(record("generator") or FOREVER)
    yield 1
    yield 2


def generator():
    total = 0
    for x in gen_body():
        total += x
    return total


def comprehension():
    blocker = lambda i: time.sleep(record("comprehension") or FOREVER)
    return [
        blocker(i)
        for i in range(1)
    ]


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@traced
def decorated(what):
    time.sleep(record(what) or FOREVER)


def recurse(n):
    if n <= 1:
        time.sleep(record("recursion") or FOREVER)
    else:
        recurse(n - 1)


def recursion():
    recurse(500)


def spinner():
    _spin_go.wait()
    record("spinner", spinner=True)
    x = 0
    while True:  # SPIN
        x += 1  # SPIN
        x -= 1  # SPIN


def lock():
    held.acquire(record("lock") or True)


def selecter():
    r, w = os.pipe()
    _keep.append((r, w))
    select.select([r], [], [], record("select") or None)


def ctypes_callback():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))

    def compare(a, b):
        time.sleep(record("ctypes_callback") or FOREVER)
        return a[0] - b[0]
    cmp = CMP(compare)
    _keep.append(cmp)
    arr = (ctypes.c_int * 4)(4, 3, 2, 1)
    libc.qsort(arr, len(arr), ctypes.sizeof(ctypes.c_int), cmp)


def non_ascii():
    if sys.version_info[0] >= 3:
        mod = __import__("mod_\u00fcn\u00ef")
        getattr(mod, "f\u00fcncti\u00f6n")(record)
    else:
        import nonascii_path
        nonascii_path.nonascii_outer(record)


def coroutine():
    import stacks3
    stacks3.run_coroutine(record)


def async_generator():
    import stacks3
    stacks3.run_async_generator(record)


held = threading.Lock()
held.acquire()
_keep = []
_spin_go = threading.Event()

ROLES = [
    # (role, thread name, target)
    ("sleeper", "sleeper", sleeper),
    ("closures", "closures", closures),
    ("methods", "methods", Outer.start),
    ("generator", "generator", generator),
    ("comprehension", "comprehension", comprehension),
    ("decorated", "decorated", lambda: decorated("decorated")),
    ("recursion", "recursion", recursion),
    ("lock", "lock", lock),
    ("select", "select", selecter),
    ("ctypes_callback", "ctypes-callback", ctypes_callback),
    ("non_ascii", "non-ascii", non_ascii),
]
if sys.version_info >= (3, 6):
    ROLES.append(("coroutine", "coroutine", coroutine))
    ROLES.append(("async_generator", "async-generator", async_generator))
if sys.version_info[0] >= 3:
    # A thread name that is not ASCII either.
    ROLES = [("non_ascii", "n\u00f6n-\u00e4scii \u2713", non_ascii) if r[0] == "non_ascii" else r
             for r in ROLES]


def publish(fifo, outfile):
    """Called on the main thread's blocking line: record the main thread,
    wait for the others, write OUTFILE and signal FIFO."""
    record("main", depth=2)
    wait_recorded([r for r, _, _ in ROLES])
    _spin_go.set()
    wait_recorded(["spinner"])
    abiflags = getattr(sys, "abiflags", "")
    out = {
        "pid": os.getpid(),
        "version": "%d.%d.%d" % sys.version_info[:3],
        "hexversion": sys.hexversion,
        "abiflags": abiflags,
        "executable": sys.executable,
        "threads": [_records[r] for r in ["main"] + [r for r, _, _ in ROLES] + ["spinner"]],
    }
    tmp = outfile + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    os.rename(tmp, outfile)
    with open(fifo, "w") as f:
        f.write("ready\n")
    return None


def main_thread(fifo, outfile):
    time.sleep(publish(fifo, outfile) or FOREVER)


def start_threads():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 2000))
    sys.path.insert(0, os.path.join(HERE, u"p\u00ffth\u00f6n" if sys.version_info[0] >= 3
                                    else u"p\u00ffth\u00f6n".encode("utf-8")))
    sys.path.insert(0, HERE)
    for role, name, target in ROLES + [("spinner", "spinner", spinner)]:
        t = threading.Thread(target=target, name=name)
        t.daemon = True
        t.start()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: stacks.py FIFO OUTFILE")
    start_threads()
    main_thread(sys.argv[1], sys.argv[2])
