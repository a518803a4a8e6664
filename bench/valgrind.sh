#!/bin/bash
# bench/valgrind.sh - the integration tests with every spyglass they start
# run under valgrind's memcheck.
#
#   bench/valgrind.sh [BUILD_DIR] [TEST...]
#
# BUILD_DIR is a configured and built tree (default _build in the
# repository root); TEST names test scripts as tests/Makefile.inc lists
# them (tests/run-bt.sh), all of them by default.  VALGRIND_JOBS (default
# 2) scripts run at a time.  Each spyglass writes what valgrind finds to
# BUILD_DIR/tests/valgrind/SCRIPT.PID.log; the summary counts the scripts
# run, those that failed and the valgrind errors.  Exit status: 0 clean,
# 1 a script failed or valgrind found errors, 2 no valgrind or no build.
set -uo pipefail
# No LC_ALL=C for the tests: Python 3.6 would not import from a non-ASCII
# path.

bench_dir=$(cd "$(dirname "$0")" && pwd)
repo_dir=$(dirname "$bench_dir")

die() {
	echo "valgrind.sh: $*" >&2
	exit 2
}

command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
build_dir=${1:-$repo_dir/_build}
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory ${1:-_build}"
[ -f "$build_dir/Makefile" ] || die "$build_dir is not a configured build tree"
shift $(($# > 0 ? 1 : 0))

if [ $# -gt 0 ]; then
	tests=("$@")
else
	# The scripts of the TESTS list and of the fragments' "TESTS +="
	# lines; the unit tests are not spyglass, the fuzz targets not
	# spyglass runs.
	mapfile -t tests < <({
		sed -n '/^TESTS = /,/^$/s/^[[:space:]]*\(tests\/run-[^ ]*\.sh\).*/\1/p' \
			"$repo_dir/tests/Makefile.inc"
		sed -n 's/^TESTS += \(tests\/run-[^ ]*\.sh\)$/\1/p' "$repo_dir"/tests/*.mk
	})
fi
[ ${#tests[@]} -gt 0 ] || die "no test scripts"

logdir=$build_dir/tests/valgrind
rm -rf "$logdir"
mkdir -p "$logdir" || die "cannot create $logdir"

# spyglass frees everything at its exit only when asked, so that a block
# it forgets to free shows as a leak.
export SPYGLASS_FREE_AT_EXIT=1
# Errors make spyglass exit 99, so the test that ran it fails too; only
# definite leaks count as errors (libraries keep caches reachable at exit).
export SPYGLASS_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite --errors-for-leak-kinds=definite --track-fds=no \
--suppressions=$bench_dir/valgrind.supp --log-file=$logdir/%q{SPYGLASS_TEST}.%p.log"
# For run-signals.sh and run-safety.sh, which kill spyglass on purpose: a
# process killed in the middle of building something holds it in its
# registers alone, which valgrind calls a definite leak.
export SPYGLASS_WRAPPER_KILLED=--leak-check=no

echo "valgrind.sh: ${#tests[@]} scripts in $build_dir, $(valgrind --version)"
start=$SECONDS
make -C "$build_dir" -k -j"${VALGRIND_JOBS:-2}" check TESTS="${tests[*]}" \
	>"$logdir/make.out" 2>&1
elapsed=$((SECONDS - start))

# ---------------------------------------------------------------- summary

failed=()
for t in "${tests[@]}"; do
	trs=$build_dir/${t%.sh}.trs
	if [ ! -f "$trs" ]; then
		failed+=("$t (did not run)")
		continue
	fi
	res=$(sed -n 's/^:global-test-result: //p' "$trs")
	case $res in
	PASS | SKIP) ;;
	*)
		n=$(grep -Ec '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
		failed+=("$t ($res, $n failed: $(grep -m1 -E '^(FAIL|ERROR)' "$build_dir/${t%.sh}.log" |
			cut -c1-100))")
		;;
	esac
done
skips=0
for t in "${tests[@]}"; do
	n=$(grep -c '^SKIP: .*SPYGLASS_WRAPPER' "$build_dir/${t%.sh}.log" 2>/dev/null)
	skips=$((skips + ${n:-0}))
done

# An error is a line "==PID== Something" that is not indented: the lines
# of its stack and addresses are.
nerrors=0 nlogs=0 nruns=0 crashes=()
for log in "$logdir"/*.log; do
	[ -f "$log" ] || continue
	nruns=$((nruns + 1))
	[ -s "$log" ] || continue
	# valgrind's own failures ("valgrind: the 'impossible' happened").
	grep -q '^valgrind: ' "$log" && crashes+=("${log##*/}: $(grep -m1 '^valgrind: ' "$log")")
	n=$(grep -Ec '^==[0-9]+== [^ ]' "$log")
	[ "$n" -gt 0 ] || continue
	nlogs=$((nlogs + 1))
	nerrors=$((nerrors + n))
done

echo
echo "scripts run:     ${#tests[@]} in $((elapsed / 60))m$((elapsed % 60))s ($nruns spyglass runs)"
echo "scripts failed:  ${#failed[@]}"
for f in ${failed[@]+"${failed[@]}"}; do
	echo "  $f"
done
echo "skipped under valgrind: $skips test points (timing budgets)"
echo "valgrind errors: $nerrors in $nlogs runs"
echo "valgrind failures: ${#crashes[@]}"
for c in ${crashes[@]+"${crashes[@]}"}; do
	echo "  $c"
done
if [ "$nerrors" -gt 0 ]; then
	# Each kind of error once: what it is, sizes left out, and its two
	# innermost frames that have a source line (ours, not libc's or
	# valgrind's), then how many times and a log that has it.
	for log in "$logdir"/*.log; do
		[ -s "$log" ] || continue
		awk -v file="${log##*/}" '
			function flush() {
				if (what != "")
					print what " at" (where == "" ? " ?" : where) "\t" file
				what = where = ""; n = 0
			}
			/^==[0-9]+== [^ ]/ {
				flush(); what = $0
				sub(/^==[0-9]+== /, "", what)
				gsub(/[0-9,]+ bytes in [0-9,]+ blocks/, "N bytes", what)
				gsub(/ in loss record [0-9,]+ of [0-9,]+/, "", what)
				next
			}
			/^==[0-9]+== +(at|by) .*\([^()]+:[0-9]+\)$/ && n < 2 {
				f = $0; sub(/^==[0-9]+== +(at|by) 0x[0-9A-F]+: /, "", f)
				where = where " " f; n++
			}
			/^==[0-9]+== $/ { flush() }
			END { flush() }
		' "$log"
	done | LC_ALL=C sort | awk -F '\t' '
		$1 != last { if (last != "") printf "  %dx %s [%s]\n", count, last, first; last = $1; count = 0; first = $2 }
		{ count++ }
		END { if (last != "") printf "  %dx %s [%s]\n", count, last, first }'
fi
[ ${#failed[@]} -eq 0 ] && [ "$nerrors" -eq 0 ]
