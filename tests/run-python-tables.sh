#!/bin/bash
# The CPython plugin's built-in layout tables (plugins/cpython/tables.c) are
# what gen-tables.sh makes of PY_FIELDS and the installed CPython headers:
# regenerate them and compare.  Skipped where the CPythons tables.c was made
# from are not installed (pyenv).
. "$top_srcdir/tests/test-subr.sh"

out=$("$top_srcdir/plugins/cpython/gen-tables.sh" --check 2>&1)
status=$?
case $status in
0)	ok 0 "tables.c matches cpython.h and the installed CPython headers" ;;
77)	skip "$(printf '%s\n' "$out" | tail -n 1)" ;;
*)	ok 1 "tables.c matches cpython.h and the installed CPython headers (status $status)"
	printf '%s\n' "$out" | head -60 | sed 's/^/#   /' ;;
esac
done_testing
