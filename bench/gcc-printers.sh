#!/usr/bin/env bash
# bench/gcc-printers.sh [BUILD_DIR] - GCC's own libstdc++ pretty-printer
# tests against spyglass and gdb, with the full comparison table: each
# expectation of GCC 12's libstdc++-prettyprinters/*.cc, what gdb printed,
# what spyglass printed, and which matched.
#
# Runs tests/run-gcc-printers.sh through make check in BUILD_DIR (default
# _build), then prints the table it writes
# (BUILD_DIR/tests/gcc-printers-run/table.txt; table.tsv has the same as
# tab-separated values) and the totals.  Needs Debian's gcc-12-source.
# Environment: GCC_PRINTERS_MISSES_ONLY=1 shows only spyglass's misses.
# Exit status: that of the test (0 when every miss is a listed one).
set -uo pipefail

repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-$repo_dir/_build}
[[ -f $build_dir/Makefile ]] || { echo "bench: no build in $build_dir (run ./setup.sh build)" >&2; exit 2; }

make -s -C "$build_dir" check TESTS=tests/run-gcc-printers.sh >/dev/null 2>&1
status=$?
log=$build_dir/tests/run-gcc-printers.log
table=$build_dir/tests/gcc-printers-run/table.txt
if grep -q '^1\.\.0 # SKIP' "$log" 2>/dev/null; then
	grep '^1\.\.0' "$log"
	exit 0
fi
if [[ ! -f $table ]]; then
	echo "bench: the test wrote no table; its log:" >&2
	cat "$log" >&2
	exit 2
fi
if [[ ${GCC_PRINTERS_MISSES_ONLY:-} == 1 ]]; then
	# Blocks of four lines after a blank one; keep those spyglass missed.
	awk 'BEGIN { RS = ""; ORS = "\n\n" } NR == 1 || /spyglass MISS/' "$table"
else
	cat "$table"
fi
echo
grep -E '^# (spyglass|gdb) matched|^# .*skipped' "$log"
grep -E '^(FAIL|ERROR|XPASS):' "$log" | sed 's/^/bench: /'
exit $status
