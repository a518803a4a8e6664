# -*- coding: utf-8 -*-
# An ASCII-named module in a directory whose name is not ASCII: what
# tests/python/stacks.py imports on Python 2.7, which cannot import
# mod_ünï.py (non-ASCII identifiers).
import time

FOREVER = 100000


def blocked_in_nonascii_dir(record):
    time.sleep(record("non_ascii") or FOREVER)


def nonascii_outer(record):
    return blocked_in_nonascii_dir(record)
