# Fixture for tests/run-python-hostile.sh: a Python thread whose frame
# chain or line table is broken on purpose, through ctypes, before it
# blocks.  python hostile.py MODE FIFO, MODE one of:
#   loop       the innermost frame's caller link points back at itself's
#              caller's caller: the chain loops
#   garbage    the caller link points at unmapped memory
#   linetable  the blocking function's code has a garbage line table
#   threadloop the interpreter's thread list loops: the main thread's
#              state links back to a worker's
#   budget     2000 locals all refer to one set whose header claims 2^21
#              slots over 32 MiB of zeros: printing each walks them all
#   gc         not broken: the thread blocks in a __del__ that a garbage
#              collection runs, so that py-bt says a collection is running
#   none       not broken either: the thread just blocks
# The process writes "ready" into FIFO, then sleeps; it can only be killed.
from __future__ import print_function
import ctypes
import sys
import time

MODE, FIFO = sys.argv[1], sys.argv[2]
V = sys.version_info[:2]


def word(addr):
    return ctypes.c_void_p.from_address(addr)


def link_of(frame):
    """The address of the word that links FRAME to its caller: f_back of
    the frame object up to 3.10, else `previous' of its interpreter frame
    (PyFrameObject.f_frame is at 24 in 3.11+; `previous' is at 48 in 3.11
    and 8 from 3.12, per the CPython headers)."""
    if V <= (3, 10):
        return id(frame) + 24
    iframe = word(id(frame) + 24).value
    return iframe + (48 if V == (3, 11) else 8)


def block():
    if MODE in ("loop", "garbage"):
        me = sys._getframe()
        if MODE == "loop":
            # block -> outer -> outer2 -> <module>: make outer2's caller
            # link point back at outer, a two-frame loop.
            outer2 = me.f_back.f_back
            word(link_of(outer2)).value = word(link_of(me)).value
        else:
            word(link_of(me.f_back)).value = 0x10
    with open(FIFO, "w") as f:
        f.write("ready\n")
    time.sleep(100000)


def outer():
    block()


def outer2():
    outer()


class Cycle(object):
    def __del__(self):
        block()


if MODE == "threadloop":
    import threading
    get = ctypes.pythonapi.PyThreadState_Get
    get.restype = ctypes.c_void_p
    states = []
    started = threading.Event()

    def worker():
        states.append(get())
        started.set()
        time.sleep(100000)

    threading.Thread(target=worker).start()
    started.wait()
    main = get()
    # PyThreadState.next is at 0 in 2.7 (no prev) and 8 from 3.x.
    word(main + (0 if V < (3, 0) else 8)).value = states[0]
if MODE == "budget":
    import gc
    gc.disable()
    slots = 1 << 21
    zeros = ctypes.create_string_buffer(slots * 16)
    s = set([1, 2, 3])
    # PySetObject: fill 16, used 24, mask 32, table 40 (2.7 to 3.15).
    for off, value in ((16, slots), (24, slots), (32, slots - 1)):
        ctypes.c_ssize_t.from_address(id(s) + off).value = value
    word(id(s) + 40).value = ctypes.addressof(zeros)
    src = "def many(s):\n" + "".join("    v%d = s\n" % i for i in range(2000))
    src += "    block()\n"
    ns = {"block": block}
    exec(src, ns)
    ns["many"](s)
if MODE == "gc":
    import gc
    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    del a, b
    gc.collect()
if MODE == "linetable":
    code = outer.__code__
    if V >= (3, 10):
        code = code.replace(co_linetable=b"\xff\x80" * 40)
    elif V >= (3, 8):
        code = code.replace(co_lnotab=b"\xff\x7f" * 40)
    else:
        args = [code.co_argcount]
        if V >= (3, 0):
            args.append(code.co_kwonlyargcount)
        args += [code.co_nlocals, code.co_stacksize, code.co_flags, code.co_code,
                 code.co_consts, code.co_names, code.co_varnames, code.co_filename,
                 code.co_name, code.co_firstlineno, b"\xff\x7f" * 40]
        code = type(code)(*args)
    outer.__code__ = code
outer2()
