"""fixture-python: a target process for bench/py-bt.sh.

Usage: python3 fixture-python.py [DEPTH [NTHREADS]]

Starts NTHREADS (default 3) threads besides the main thread.  Every thread,
main included, recurses through recurse() until its Python stack is DEPTH
(default 50) frames deep, counting the frames above it (threading's
bootstrap frames, main's <module>) and bottom(), the innermost, which blocks
in time.sleep(), a C function.  Once every
thread is asleep in the kernel, the main thread prints "ready PID" on stdout
from the bottom of its own stack and sleeps there forever.  Kill it with any
fatal signal.

Runs on CPython 2.7 and 3.6 up.  Nothing here depends on spyglass.
"""
import os
import sys
import threading
import time


def die_with_parent():
    """Never outlive the benchmark, even if it is killed with SIGKILL."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except Exception:  # no ctypes: the benchmark still kills us on exit
        pass


def stack_depth():
    """The number of Python frames of the calling thread, the caller's
    frame included."""
    n = 0
    f = sys._getframe(1)
    while f is not None:
        n += 1
        f = f.f_back
    return n


def all_threads_sleeping():
    """True once every thread but main, the caller, is in state S.  Counting the
    threads that reached the bottom is not enough: each counts itself just
    before it calls time.sleep()."""
    for tid in os.listdir("/proc/self/task"):
        if int(tid) == os.getpid():  # the main thread: the caller
            continue
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:][:1] != "S":
            return False
    return True


lock = threading.Lock()
at_bottom = 0


def bottom(is_main, nthreads):
    """Called by recurse() at the wanted depth; never returns.  Python code
    must run here only in the main thread, before "ready"."""
    global at_bottom
    with lock:
        at_bottom += 1
    if is_main:
        while at_bottom < nthreads + 1 or not all_threads_sleeping():
            time.sleep(0.001)
        sys.stdout.write("ready %d\n" % os.getpid())
        sys.stdout.flush()
    while True:
        time.sleep(3600)


def recurse(depth, is_main, nthreads):
    # bottom() is the innermost Python frame, number DEPTH from the top.
    if stack_depth() >= depth - 1:
        bottom(is_main, nthreads)
    recurse(depth, is_main, nthreads)


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    nthreads = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if len(sys.argv) > 3 or depth < 4 or nthreads < 0:
        sys.stderr.write("usage: fixture-python.py [DEPTH [NTHREADS]]\n")
        sys.exit(2)
    die_with_parent()
    sys.setrecursionlimit(max(1000, depth + 100))
    for i in range(nthreads):
        t = threading.Thread(target=recurse, args=(depth, False, nthreads),
                             name="worker-%d" % (i + 1))
        t.daemon = True
        t.start()
    recurse(depth, True, nthreads)


if __name__ == "__main__":
    main()
