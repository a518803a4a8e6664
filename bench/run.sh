#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] - time "info threads" on a 65-thread process with
# spyglass, gdb and eu-stack, and check spyglass against its performance goals.
#
# spyglass is the installed program (make install DESTDIR=...) with its
# default plugins, as users run it: "spyglass" on a cache the warm-up run
# filled, "spyglass-1st" on an empty one each run (doc/cache.md).
#
# BUILD_DIR defaults to _build in the repository root; a relative BUILD_DIR
# is taken relative to the current directory.  Environment:
#   BENCH_REPS     timed runs per tool (default 10)
#   BENCH_DEPTH    recursion depth of each fixture thread (default 40)
#   BENCH_THREADS  threads started by the fixture besides main (default 64)
#   BENCH_TIMEOUT  seconds before a single run is killed (default 60)
#   BENCH_CACHE_DIR  spyglass's cache for the "spyglass" runs (default: a new
#                  one, filled by the warm-up run)
#   CC             compiler for the fixture (default cc)
#
# This is a report, not a test: it exits 0 even when a goal is missed, 1 if a
# tool run failed, and 2 if the benchmark could not be set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

# Goals from the issue.
goal_speedup=30			# spyglass at least this many times faster than gdb
goal_pause_us_per_thread=1000	# target stopped under 1 ms per thread
goal_rss_kb=$((20 * 1024))	# peak memory under 20 MB

bench_args run.sh "$@"
bench_tmp

# The installed program and its default plugins; no debuginfod downloads
# (gdb and eu-stack both honour DEBUGINFOD_URLS).
bench_install cfi-unwind
export SPYGLASS_PLUGIN_DIR=$inst_plugins SPYGLASS_CACHE_DIR=${BENCH_CACHE_DIR:-$tmp/cache}
unset SPYGLASS_PLUGIN_PATH DEBUGINFOD_URLS

start_fixture
find_tools gdb eu-stack
tools=(spyglass spyglass-1st "${tools[@]:1}")
start_watchdog

# tool_exec TOOL: replaces the (forked) shell with one run of TOOL.
tool_exec() {
	case $1 in
	spyglass)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -p "$fixture_pid" -batch -nx \
			-ex 'info threads' --stats
		;;
	spyglass-1st)
		LD_LIBRARY_PATH=$sg_libdir SPYGLASS_CACHE_DIR=$tmp/empty-cache.$rep \
			exec "$sg_bin" -p "$fixture_pid" -batch -nx -ex 'info threads' --stats
		;;
	gdb)
		exec gdb -batch -nx -p "$fixture_pid" -ex 'info threads'
		;;
	eu-stack)
		exec eu-stack -p "$fixture_pid"
		;;
	esac
}

# Prints how many threads TOOL listed in OUT.
threads_listed() {
	local tool=$1 out=$2
	case $tool in
	spyglass* | gdb) grep -cE '^[* ] +[0-9]+ +' "$out" || true ;;
	eu-stack) grep -c '^TID ' "$out" || true ;;
	esac
}

# ---------------------------------------------------------------- runs

declare -A times_of threads_of
paused=()		# spyglass's paused_us of each timed run
rss=()			# and its maxrss_kb

# Run 0 of each tool is an untimed warm-up that loads binaries and
# libraries into the page cache.  The tools take turns so that any drift in
# machine load hits all of them alike.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in "${tools[@]}"; do
		run_tool "$tool" "$rep" || continue
		us=$REPLY
		out=$tmp/$tool.out err=$tmp/$tool.err
		n=$(threads_listed "$tool" "$out")
		if ((n == 0)); then
			fail "$tool" "$rep" "listed no threads"
			continue
		fi
		threads_of[$tool]=$n
		if [[ $tool == spyglass* ]]; then
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

print_header "spyglass benchmark: 'info threads' on $expected_threads threads (recursion depth $depth), $reps timed runs per tool" \
	spyglass gdb eu-stack
echo "plugins:  $inst_plugin_names (installed)"
echo

printf '%-12s %10s %10s %12s %8s\n' tool "median ms" "min ms" "vs spyglass" threads
for tool in spyglass spyglass-1st gdb eu-stack; do
	tool_times "$tool" "${times_of[$tool]:-}" || continue
	note=
	if ((threads_of[$tool] != expected_threads)); then
		note+="  (expected $expected_threads threads)"
	fi
	if [[ -n ${failed_of[$tool]:-} ]]; then
		note+="  (${failed_of[$tool]} runs failed)"
	fi
	printf '%-12s %10.2f %10.2f %12s %8s%s\n' "$tool" "$t_median" "$t_min" "$t_ratio" \
		"${threads_of[$tool]}" "$note"
done
echo

echo "goals:"
goal_faster_than gdb "$goal_speedup" "spyglass >= ${goal_speedup}x faster than gdb"
ratios_first_run gdb eu-stack
if ((${#paused[@]})); then
	read -r paused_median _ < <(summarize "${paused[@]}")
	read -r _ _ rss_max < <(summarize "${rss[@]}")
	per_thread=$(calc "$paused_median / $sg_stats_threads")
	goal "target stopped < 1 ms per thread" "$(verdict "$per_thread < $goal_pause_us_per_thread")" \
		"$(printf '%.0f us/thread (median %.2f ms for %d threads)' \
			"$per_thread" "$(calc "$paused_median / 1000")" "$sg_stats_threads")"
	goal "peak memory < 20 MB" "$(verdict "$rss_max < $goal_rss_kb")" \
		"$(printf '%.1f MB (largest maxrss of all runs)' "$(calc "$rss_max / 1024")")"
else
	goal "target stopped < 1 ms per thread" n/a "no successful spyglass runs"
	goal "peak memory < 20 MB" n/a "no successful spyglass runs"
fi
echo

finish
