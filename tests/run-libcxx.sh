#!/bin/bash
# The libcxx plugin's readers (placeholder until the libc++ work lands).
. "$top_srcdir/tests/test-subr.sh"
skip "libc++ readers not written yet"
done_testing
