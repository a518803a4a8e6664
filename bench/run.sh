#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] - time "info threads" on a 65-thread process with
# spyglass, gdb and eu-stack, and check spyglass against its performance goals.
#
# BUILD_DIR defaults to _build in the repository root; a relative BUILD_DIR
# is taken relative to the current directory.  Environment:
#   BENCH_REPS     timed runs per tool (default 10)
#   BENCH_DEPTH    recursion depth of each fixture thread (default 40)
#   BENCH_THREADS  threads started by the fixture besides main (default 64)
#   BENCH_TIMEOUT  seconds before a single run is killed (default 60)
#   CC             compiler for the fixture (default cc)
#
# This is a report, not a test: it exits 0 even when a goal is missed, 1 if a
# tool run failed, and 2 if the benchmark could not be set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname "$bench_dir")

reps=${BENCH_REPS:-10}
depth=${BENCH_DEPTH:-40}
nthreads=${BENCH_THREADS:-64}
run_timeout=${BENCH_TIMEOUT:-60}

# Goals from the issue.
goal_speedup=20			# spyglass at least this many times faster than gdb
goal_pause_us_per_thread=1000	# target stopped under 1 ms per thread
goal_rss_kb=$((20 * 1024))	# peak memory under 20 MB

die() {
	echo "bench: $*" >&2
	exit 2
}

for v in BENCH_REPS BENCH_DEPTH BENCH_THREADS BENCH_TIMEOUT; do
	[[ ${!v:-1} =~ ^[0-9]+$ ]] || die "$v must be a number, not \"${!v}\""
done
((reps >= 1 && nthreads >= 1 && run_timeout >= 1)) ||
	die "BENCH_REPS, BENCH_THREADS and BENCH_TIMEOUT must be at least 1"
(($# <= 1)) || die "usage: bench/run.sh [BUILD_DIR]"

build_dir=${1:-$repo_dir/_build}
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory ${1:-$repo_dir/_build}"

# Prefer the real binary to the libtool wrapper script, which would add a
# bash start-up (several ms) to every spyglass run.
sg_libdir=$build_dir/lib/.libs
if [[ -x $build_dir/shell/.libs/spyglass ]]; then
	sg_bin=$build_dir/shell/.libs/spyglass
elif [[ -x $build_dir/shell/spyglass ]]; then
	sg_bin=$build_dir/shell/spyglass
else
	die "no spyglass in $build_dir/shell (build it first)"
fi

# ---------------------------------------------------------------- cleanup

tmp=
fixture_pid=
current_pid=		# the tool run in progress, if any
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	local pid
	for pid in $current_pid $fixture_pid; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [[ -n ${WATCHDOG_PID:-} ]]; then
		kill "$WATCHDOG_PID" 2>/dev/null || true
	fi
	if [[ -n $tmp ]]; then
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spyglass-bench.XXXXXX")

# Keep the tools from loading anything the benchmark does not control:
# no installed spyglass plugins, no debuginfod downloads (gdb and eu-stack
# both honour DEBUGINFOD_URLS).
mkdir "$tmp/no-plugins"
export SPYGLASS_PLUGIN_DIR=$tmp/no-plugins
unset SPYGLASS_PLUGIN_PATH DEBUGINFOD_URLS

# ---------------------------------------------------------------- fixture

"${CC:-cc}" -O2 -pthread -o "$tmp/fixture-threads" "$bench_dir/fixture-threads.c" ||
	die "cannot build the fixture"

: >"$tmp/fixture.out"	# the polling below may come before the redirection
"$tmp/fixture-threads" "$depth" "$nthreads" >"$tmp/fixture.out" 2>"$tmp/fixture.err" &
fixture_pid=$!
ready=
for ((i = 0; i < 1000; i++)); do	# up to 10 s
	if read -r ready ready_pid <"$tmp/fixture.out" && [[ $ready == ready ]]; then
		break
	fi
	kill -0 "$fixture_pid" 2>/dev/null || die "fixture died: $(cat "$tmp/fixture.err")"
	sleep 0.01
done
[[ $ready == ready ]] || die "fixture not ready after 10 s"
[[ $ready_pid == "$fixture_pid" ]] || die "fixture says it is PID $ready_pid, expected $fixture_pid"
expected_threads=$((nthreads + 1))

# Prints the number of fixture threads in ptrace or job-control stop (T/t).
count_stopped() {
	local f line n=0
	for f in /proc/"$fixture_pid"/task/*/stat; do
		read -r line <"$f" || continue
		line=${line##*) }	# the state follows the last ')' of the comm
		[[ ${line:0:1} == [Tt] ]] && n=$((n + 1))
	done
	echo "$n"
}

# ---------------------------------------------------------------- tools

tools=(spyglass)
declare -A skip_of
for t in gdb eu-stack; do
	if command -v "$t" >/dev/null; then
		tools+=("$t")
	else
		skip_of[$t]="skipped: $t not installed"
	fi
done

# Watchdog for hung runs.  timeout(1) would add an exec of its own to every
# timed run (~1 ms, about a tenth of a spyglass run), so instead a coprocess
# is told each run's PID and kills it unless "done" follows in time.
coproc WATCHDOG {
	while read -r pid; do
		rc=0
		read -r -t "$run_timeout" _ || rc=$?
		if ((rc > 128)); then		# timed out
			kill -KILL "$pid" 2>/dev/null || true
			read -r _ || break
		elif ((rc)); then		# EOF: the benchmark is over
			break
		fi
	done
}

# timed_run TOOL OUT ERR: runs TOOL once against the fixture, stdout to OUT,
# stderr to ERR.  Sets REPLY to the wall-clock time in microseconds; returns
# the tool's exit status.  The clock is bash's EPOCHREALTIME, so no process
# is started besides the tool itself.
timed_run() {
	local tool=$1 out=$2 err=$3 t0 t1 rc=0
	t0=${EPOCHREALTIME//[!0-9]/}
	case $tool in
	spyglass)
		LD_LIBRARY_PATH=$sg_libdir "$sg_bin" -p "$fixture_pid" -batch -nx \
			-ex 'info threads' --stats >"$out" 2>"$err" &
		;;
	gdb)
		gdb -batch -nx -p "$fixture_pid" -ex 'info threads' >"$out" 2>"$err" &
		;;
	eu-stack)
		eu-stack -p "$fixture_pid" >"$out" 2>"$err" &
		;;
	esac
	current_pid=$!
	echo "$current_pid" >&"${WATCHDOG[1]}"
	wait "$current_pid" || rc=$?
	t1=${EPOCHREALTIME//[!0-9]/}
	echo "done" >&"${WATCHDOG[1]}"
	current_pid=
	REPLY=$((t1 - t0))
	return "$rc"
}

# Prints how many threads TOOL listed in OUT.
threads_listed() {
	local tool=$1 out=$2
	case $tool in
	spyglass | gdb) grep -cE '^[* ] +[0-9]+ +' "$out" || true ;;
	eu-stack) grep -c '^TID ' "$out" || true ;;
	esac
}

# Prints the value of KEY from spyglass's "stats: k=v k=v ..." line in FILE.
stat_field() {
	sed -n "s/^stats:.* $2=\\([0-9.]*\\).*/\\1/p" "$1" | tail -n 1
}

# summarize VALUE... prints "median min max" of numbers.
summarize() {
	printf '%s\n' "$@" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR]
		}'
}

# calc EXPR prints EXPR evaluated by awk, for floating point.
calc() {
	awk "BEGIN { print ($1) }"
}

# ---------------------------------------------------------------- runs

declare -A times_of threads_of failed_of median_of
paused=()		# spyglass's paused_us of each timed run
rss=()			# and its maxrss_kb
failures=0
stopped_after=

# fail TOOL REP WHAT: reports a failed run with the tail of its stderr.
fail() {
	failures=$((failures + 1))
	failed_of[$1]=$((${failed_of[$1]:-0} + 1))
	local run=$2
	((run > 0)) || run="0 (warm-up)"
	echo "bench: $1 run $run $3:" >&2
	tail -n 5 "$tmp/$1.err" | sed 's/^/  /' >&2
}

# Run 0 of each tool is an untimed warm-up that loads binaries and
# libraries into the page cache.  The tools take turns so that any drift in
# machine load hits all of them alike.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in "${tools[@]}"; do
		out=$tmp/$tool.out err=$tmp/$tool.err rc=0
		timed_run "$tool" "$out" "$err" || rc=$?
		us=$REPLY
		s=$(count_stopped)
		if ((s > 0)) && [[ -z $stopped_after ]]; then
			stopped_after="$s threads were stopped after $tool run $rep"
		fi
		if ((rc == 137 && us >= run_timeout * 1000000)); then
			fail "$tool" "$rep" "timed out after $run_timeout s (BENCH_TIMEOUT)"
			continue
		elif ((rc)); then
			fail "$tool" "$rep" "failed (exit status $rc)"
			continue
		fi
		n=$(threads_listed "$tool" "$out")
		if ((n == 0)); then
			fail "$tool" "$rep" "listed no threads"
			continue
		fi
		threads_of[$tool]=$n
		if [[ $tool == spyglass ]]; then
			p=$(stat_field "$err" paused_us)
			r=$(stat_field "$err" maxrss_kb)
			sg_stats_threads=$(stat_field "$err" threads)
			if [[ -z $p || -z $r || -z $sg_stats_threads ]]; then
				fail "$tool" "$rep" "printed no complete --stats line"
				continue
			fi
		fi
		((rep > 0)) || continue
		times_of[$tool]+="$us "
		if [[ $tool == spyglass ]]; then
			paused+=("$p")
			rss+=("$r")
		fi
	done
done

# ---------------------------------------------------------------- report

version_of() {
	local bin=$1
	[[ $1 != spyglass ]] || bin=$sg_bin
	LD_LIBRARY_PATH=$sg_libdir timeout 10 "$bin" --version 2>/dev/null | head -n 1 || true
}

echo "spyglass benchmark: 'info threads' on $expected_threads threads (recursion depth $depth), $reps timed runs per tool"
echo "build: $build_dir"
for tool in spyglass gdb eu-stack; do
	if [[ -n ${skip_of[$tool]:-} ]]; then
		printf '%-9s %s\n' "$tool:" "${skip_of[$tool]}"
	else
		printf '%-9s %s\n' "$tool:" "$(version_of "$tool")"
	fi
done
echo

printf '%-10s %10s %10s %12s %8s\n' tool "median ms" "min ms" "vs spyglass" threads
for tool in spyglass gdb eu-stack; do
	if [[ -n ${skip_of[$tool]:-} ]]; then
		printf '%-10s %s\n' "$tool" "${skip_of[$tool]}"
		continue
	fi
	if [[ -z ${times_of[$tool]:-} ]]; then
		printf '%-10s %s\n' "$tool" "no successful run"
		continue
	fi
	# shellcheck disable=SC2086 # the times are a space-separated list
	read -r median min _ < <(summarize ${times_of[$tool]})
	median=$(calc "$median / 1000") min=$(calc "$min / 1000")	# us -> ms
	median_of[$tool]=$median
	ratio=n/a
	if [[ -n ${median_of[spyglass]:-} ]]; then
		ratio=$(calc "sprintf(\"%.1fx\", $median / ${median_of[spyglass]})")
	fi
	note=
	if ((threads_of[$tool] != expected_threads)); then
		note+="  (expected $expected_threads threads)"
	fi
	if [[ -n ${failed_of[$tool]:-} ]]; then
		note+="  (${failed_of[$tool]} runs failed)"
	fi
	printf '%-10s %10.2f %10.2f %12s %8s%s\n' "$tool" "$median" "$min" "$ratio" \
		"${threads_of[$tool]}" "$note"
done
echo

# goal NAME PASSED DETAIL prints one goal line.
goal() {
	printf '  %-4s  %-36s %s\n' "$2" "$1" "$3"
}

echo "goals:"
if [[ -n ${median_of[spyglass]:-} && -n ${median_of[gdb]:-} ]]; then
	speedup=$(calc "${median_of[gdb]} / ${median_of[spyglass]}")
	verdict=$(calc "$speedup >= $goal_speedup ? \"PASS\" : \"MISS\"")
	goal "spyglass >= ${goal_speedup}x faster than gdb" "$verdict" "$(printf '%.1fx' "$speedup")"
elif [[ -n ${skip_of[gdb]:-} ]]; then
	goal "spyglass >= ${goal_speedup}x faster than gdb" SKIP "${skip_of[gdb]}"
else
	goal "spyglass >= ${goal_speedup}x faster than gdb" n/a "no successful runs"
fi
if ((${#paused[@]})); then
	read -r paused_median _ < <(summarize "${paused[@]}")
	read -r _ _ rss_max < <(summarize "${rss[@]}")
	per_thread=$(calc "$paused_median / $sg_stats_threads")
	verdict=$(calc "$per_thread < $goal_pause_us_per_thread ? \"PASS\" : \"MISS\"")
	goal "target stopped < 1 ms per thread" "$verdict" \
		"$(printf '%.0f us/thread (median %.2f ms for %d threads)' \
			"$per_thread" "$(calc "$paused_median / 1000")" "$sg_stats_threads")"
	verdict=$(calc "$rss_max < $goal_rss_kb ? \"PASS\" : \"MISS\"")
	goal "peak memory < 20 MB" "$verdict" \
		"$(printf '%.1f MB (largest maxrss of all runs)' "$(calc "$rss_max / 1024")")"
else
	goal "target stopped < 1 ms per thread" n/a "no successful spyglass runs"
	goal "peak memory < 20 MB" n/a "no successful spyglass runs"
fi
echo

# The debuggers must leave the target running.  /proc/PID/status shows the
# main thread only, so every thread is checked as well.
state=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$fixture_pid/status")
stopped=$(count_stopped)
echo "target state after runs: $state; $stopped of $expected_threads threads stopped (T/t)"
if [[ -n $stopped_after ]]; then
	echo "warning: $stopped_after"
fi

if ((failures)); then
	echo "bench: $failures runs failed" >&2
	exit 1
fi
exit 0
