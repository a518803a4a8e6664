#!/bin/bash
. "$top_srcdir/tests/test-subr.sh"
skip "not written yet"
done_testing
