#!/bin/bash
# ptype of C++ classes against gdb (placeholder until the ptype work lands).
. "$top_srcdir/tests/test-subr.sh"
skip "C++ ptype comparison not written yet"
done_testing
