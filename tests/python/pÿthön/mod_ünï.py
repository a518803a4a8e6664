# Non-ASCII function and class names, in a directory whose name is not
# ASCII either (tests/python/stacks.py, on Python 3 only).  The names use
# characters of all three widths of CPython's str: Latin-1, BMP (CJK) and
# astral (Deseret).
import time

FOREVER = 100000


def 𐐀𐐁(record):
    time.sleep(record("non_ascii") or FOREVER)


class Klässe:
    def 函数(self, record):
        return 𐐀𐐁(record)


def fünctiön(record):
    return Klässe().函数(record)
