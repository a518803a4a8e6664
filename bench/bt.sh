#!/usr/bin/env bash
# bench/bt.sh [BUILD_DIR] - time "thread apply all bt" on a 65-thread process
# with spyglass, eu-stack and gdb, time spyglass's warm unwind of one thread,
# and check spyglass against its backtrace performance goals.
#
# spyglass is the installed program (make install DESTDIR=...) with its
# default plugins, as users run it.  "spyglass" runs on a cache that the
# warm-up run filled (the second run on the same binaries); "spyglass-1st"
# starts each run with an empty cache (SPYGLASS_CACHE_DIR), as the first
# run on new binaries does (doc/cache.md).
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
# tool run failed or printed short backtraces, and 2 if the benchmark could
# not be set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

# Goals from the issue.
goal_vs_eu_stack=4		# whole run at most a quarter of eu-stack's
goal_speedup=40			# spyglass at least this many times faster than gdb
goal_pause_us=2000		# target stopped under 2 ms in all
goal_unwind_us=50		# warm unwind of a 40-frame thread
goal_rss_kb=$((50 * 1024))	# peak memory under 50 MB
goal_width=42

unwind_count=2000		# maintenance time-unwind COUNT
unwind_thread=2			# the first thread the fixture started

bench_args bt.sh "$@"
bench_tmp

# The installed program and its default plugins; no debuginfod downloads
# (gdb and eu-stack both honour DEBUGINFOD_URLS).
bench_install cfi-unwind
export SPYGLASS_PLUGIN_DIR=$inst_plugins SPYGLASS_CACHE_DIR=${BENCH_CACHE_DIR:-$tmp/cache}
unset SPYGLASS_PLUGIN_PATH DEBUGINFOD_URLS

start_fixture
find_tools eu-stack gdb
tools=(spyglass spyglass-1st "${tools[@]:1}")
start_watchdog

# tool_exec TOOL: replaces the (forked) shell with one run of TOOL.  The
# pseudo-tool "unwind" is spyglass timing its unwinder on one thread.
tool_exec() {
	case $1 in
	spyglass)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -batch -nx -p "$fixture_pid" \
			-ex 'thread apply all bt' --stats
		;;
	spyglass-1st)
		LD_LIBRARY_PATH=$sg_libdir SPYGLASS_CACHE_DIR=$tmp/empty-cache.$rep \
			exec "$sg_bin" -batch -nx -p "$fixture_pid" -ex 'thread apply all bt' --stats
		;;
	unwind)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -batch -nx -p "$fixture_pid" \
			-ex "thread $unwind_thread" -ex "maintenance time-unwind $unwind_count"
		;;
	eu-stack)
		exec eu-stack -p "$fixture_pid"
		;;
	gdb)
		exec gdb -batch -nx -p "$fixture_pid" -ex 'thread apply all bt'
		;;
	esac
}

# frames_seen OUT prints "THREADS WORKERS MIN MAX": how many backtraces OUT
# holds, how many of them are of worker threads (not the main thread), and
# the fewest and most frames in a worker's backtrace.  Backtraces start with
# "Thread N (... LWP TID ...):" (spyglass, gdb) or "TID TID:" (eu-stack);
# frames are the lines "#N ...", inline frames included.
frames_seen() {
	awk -v main="$fixture_pid" '
		function flush() {
			if (tid == "")
				return
			threads++
			if (tid != main) {
				workers++
				if (min == "" || n < min)
					min = n
				if (n > max)
					max = n
			}
		}
		/^Thread [0-9]+ \(.*LWP [0-9]+/ {
			flush()
			match($0, /LWP [0-9]+/)
			tid = substr($0, RSTART + 4, RLENGTH - 4)
			n = 0
			next
		}
		/^TID [0-9]+:/ {
			flush()
			tid = $2
			sub(/:$/, "", tid)
			n = 0
			next
		}
		/^#[0-9]+ / { n++ }
		END {
			flush()
			print threads + 0, workers + 0, (min == "" ? 0 : min), max + 0
		}' "$1"
}

# frame_names OUT prints, for each backtrace in OUT, "T TID" and then the
# function of each frame as "#N NAME", so that two tools' backtraces can be
# compared whatever their thread numbers and argument lists.
frame_names() {
	sed -E -n 's/^Thread [0-9]+ \(.*LWP ([0-9]+).*/T \1/p
		s/^(#[0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) .*/\1 \3/p' "$1"
}

# A worker's stack holds at least DEPTH + 1 frames of recurse(); fewer
# frames mean the tool gave up early and the times are not comparable.
min_frames=$((depth + 1))

# ---------------------------------------------------------------- runs

declare -A times_of threads_of fmin_of fmax_of
paused=()		# spyglass's paused_us of each timed run
rss=()			# and its maxrss_kb
warm=()			# warm unwind us of each timed run
warm_sym=()		# and with symbols
unwind_frames=
# "thread 2: 43 frames; warm unwind 5.84 us, with symbols 5.94 us (mean of 1000)"
unwind_re="^thread $unwind_thread: ([0-9]+) frames; warm unwind ([0-9.]+) us, with symbols ([0-9.]+) us"

# Run 0 of each tool is an untimed warm-up that loads binaries and
# libraries into the page cache.  The tools take turns so that any drift in
# machine load hits all of them alike.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in "${tools[@]}" unwind; do
		run_tool "$tool" "$rep" || continue
		us=$REPLY
		out=$tmp/$tool.out err=$tmp/$tool.err

		if [[ $tool == unwind ]]; then
			line=$(grep "^thread $unwind_thread: " "$out" | tail -n 1) || true
			if ! [[ $line =~ $unwind_re ]]; then
				fail "$tool" "$rep" "printed no \"warm unwind\" line" "$out"
				continue
			fi
			f=${BASH_REMATCH[1]} w=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
			unwind_frames=$f
			if ((f < min_frames)); then
				fail "$tool" "$rep" "unwound only $f frames of thread $unwind_thread (expected $min_frames or more)" "$out"
				continue
			fi
			((rep > 0)) || continue
			warm+=("$w")
			warm_sym+=("$s")
			continue
		fi

		read -r nt nw fmin fmax < <(frames_seen "$out")
		threads_of[$tool]=$nt
		if ((nw > 0)); then
			if [[ -z ${fmin_of[$tool]:-} ]] || ((fmin < ${fmin_of[$tool]})); then
				fmin_of[$tool]=$fmin
			fi
			if ((fmax > ${fmax_of[$tool]:-0})); then
				fmax_of[$tool]=$fmax
			fi
		fi
		if ((nw != nthreads)); then
			fail "$tool" "$rep" "printed backtraces of $nw worker threads, expected $nthreads" "$out"
			continue
		elif ((fmin < min_frames)); then
			fail "$tool" "$rep" "printed only $fmin frames for a worker thread (expected $min_frames or more)" "$out"
			continue
		fi
		if [[ $tool == spyglass* ]]; then
			p=$(stat_field "$err" paused_us)
			r=$(stat_field "$err" maxrss_kb)
			sg_stats_threads=$(stat_field "$err" threads)
			if [[ -z $p || -z $r || -z $sg_stats_threads ]]; then
				fail "$tool" "$rep" "printed no complete --stats line"
				continue
			fi
		fi
		cp "$out" "$tmp/$tool.last"
		((rep > 0)) || continue
		times_of[$tool]+="$us "
		if [[ $tool == spyglass ]]; then
			paused+=("$p")
			rss+=("$r")
		fi
	done
done

# ---------------------------------------------------------------- report

print_header "spyglass benchmark: 'thread apply all bt' on $expected_threads threads (recursion depth $depth), $reps timed runs per tool" \
	spyglass eu-stack gdb
echo "plugins:  $inst_plugin_names (installed)"
echo

printf '%-12s %10s %10s %12s %8s  %s\n' tool "median ms" "min ms" "vs spyglass" threads \
	"frames/worker"
for tool in spyglass spyglass-1st eu-stack gdb; do
	tool_times "$tool" "${times_of[$tool]:-}" || continue
	frames=${fmin_of[$tool]:-0}
	((${fmax_of[$tool]:-0} == frames)) || frames+="-${fmax_of[$tool]}"
	note=
	if ((threads_of[$tool] != expected_threads)); then
		note+="  (expected $expected_threads threads)"
	fi
	if [[ -n ${failed_of[$tool]:-} ]]; then
		note+="  (${failed_of[$tool]} runs failed)"
	fi
	[[ -z $note ]] || frames=$(printf '%-13s' "$frames")
	printf '%-12s %10.2f %10.2f %12s %8s  %s%s\n' "$tool" "$t_median" "$t_min" "$t_ratio" \
		"${threads_of[$tool]}" "$frames" "$note"
done
echo "(frames/worker: fewest-most frames in a worker thread's backtrace, all runs;"
echo " each worker has $min_frames frames of recurse() plus its blocking call and thread start)"
if [[ -e $tmp/spyglass.last && -e $tmp/gdb.last ]]; then
	if cmp -s <(frame_names "$tmp/spyglass.last") <(frame_names "$tmp/gdb.last"); then
		echo "spyglass and gdb: same functions in the same frames of every thread (last runs)"
	else
		echo "spyglass and gdb: backtraces differ (last runs; frame numbers and functions compared)"
	fi
fi
echo

have_sg=${#paused[@]}
if ((have_sg)); then
	read -r paused_median paused_min paused_max < <(summarize "${paused[@]}")
	read -r _ _ rss_max < <(summarize "${rss[@]}")
	per_thread=$(calc "$paused_median / $sg_stats_threads")
	printf 'spyglass target stopped:  median %.2f ms (min %.2f, max %.2f) for %d threads, %.0f us/thread\n' \
		"$(calc "$paused_median / 1000")" "$(calc "$paused_min / 1000")" \
		"$(calc "$paused_max / 1000")" "$sg_stats_threads" "$per_thread"
	printf 'spyglass peak memory:     %.1f MB (largest maxrss of all runs)\n' "$(calc "$rss_max / 1024")"
fi
have_unwind=${#warm[@]}
if ((have_unwind)); then
	read -r warm_median warm_min _ < <(summarize "${warm[@]}")
	read -r sym_median sym_min _ < <(summarize "${warm_sym[@]}")
	printf 'spyglass warm unwind:     thread %d, %d frames: median %.2f us (min %.2f), with symbols %.2f us (min %.2f)\n' \
		"$unwind_thread" "$unwind_frames" "$warm_median" "$warm_min" "$sym_median" "$sym_min"
	printf '                          (maintenance time-unwind %d, mean per unwind; median of %d runs)\n' \
		"$unwind_count" "$have_unwind"
else
	echo "spyglass warm unwind:     no successful run"
fi
echo

echo "goals:"
goal_faster_than eu-stack "$goal_vs_eu_stack" "whole run <= 1/${goal_vs_eu_stack} of eu-stack's" \
	'%.2fx (eu-stack/spyglass)'
goal_faster_than gdb "$goal_speedup" "spyglass >= ${goal_speedup}x faster than gdb"
ratios_first_run eu-stack gdb
if ((have_sg)); then
	goal "target stopped < 2 ms in all" "$(verdict "$paused_median < $goal_pause_us")" \
		"$(printf '%.2f ms (median, %d threads)' "$(calc "$paused_median / 1000")" "$sg_stats_threads")"
else
	goal "target stopped < 2 ms in all" n/a "no successful spyglass runs"
fi
if ((have_unwind)); then
	goal "warm unwind of a ${depth}-frame thread < 50 us" "$(verdict "$warm_median < $goal_unwind_us")" \
		"$(printf '%.2f us (median; %d frames)' "$warm_median" "$unwind_frames")"
else
	goal "warm unwind of a ${depth}-frame thread < 50 us" n/a "no successful runs"
fi
if ((have_sg)); then
	goal "peak memory < 50 MB" "$(verdict "$rss_max < $goal_rss_kb")" \
		"$(printf '%.1f MB (largest maxrss of all runs)' "$(calc "$rss_max / 1024")")"
else
	goal "peak memory < 50 MB" n/a "no successful spyglass runs"
fi
echo

finish
