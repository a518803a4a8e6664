#!/usr/bin/env bash
# bench/py-bt.sh [BUILD_DIR] - time "py-bt" (the Python stack of every
# thread) on a Python process of 4 threads x 50 Python frames with the
# installed spyglass and its default plugins, next to gdb's py-bt (Debian's
# python-gdb extension), compare spyglass's per-stack cost with austin's
# sampling time, and check the goals of the issue:
#   - spyglass -p PID -- py-bt, whole process, under 5 ms;
#   - at least 100x faster than gdb -batch -p PID -ex py-bt;
#   - the target stopped under 1 ms (paused_us of --stats);
#   - a warm walk of one 50-frame Python stack under 50 us
#     (maintenance time-py-bt).
#
# spyglass is measured as users run it: "make install DESTDIR=TMP" of
# BUILD_DIR, then the installed binary with its installed plugins
# (SPYGLASS_PLUGIN_DIR), so every default plugin loads.  The build tree's
# binary is timed as well, for reference.
#
# Environment: BENCH_REPS (default 10), BENCH_TIMEOUT (60), and
#   BENCH_DEPTH         Python frames per thread (default 50)
#   BENCH_THREADS       worker threads besides main (default 3)
#   BENCH_PYTHON        the interpreter (default /usr/bin/python3.11, Debian's,
#                       whose python3.11-gdb.py gdb auto-loads; else python3)
#   BENCH_AUSTIN_PYTHON interpreters to try austin on when it cannot read
#                       BENCH_PYTHON, in order (default: pyenv's, newest first)
#   BENCH_AUSTIN_MS     how long each austin run samples (default 500)
#
# Exit status as bench/bt.sh: 0 even when a goal is missed, 1 if a run
# failed or printed short stacks, 2 if the benchmark could not be set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

# Goals from the issue.
goal_wall_ms=5			# whole run of spyglass -p PID -- py-bt
goal_speedup=100		# times faster than gdb's py-bt
goal_pause_us=1000		# target stopped
goal_walk_us=50			# warm walk of one 50-frame Python stack
goal_width=44

# The issue's process, not bt.sh's: bench_args gives BENCH_DEPTH and
# BENCH_THREADS bt.sh's defaults, so read them first.
py_depth=${BENCH_DEPTH:-50}
py_workers=${BENCH_THREADS:-3}
bench_args py-bt.sh "$@"
depth=$py_depth nthreads=$py_workers
((depth >= 4)) || die "BENCH_DEPTH must be at least 4 (the fixture's own frames)"
austin_ms=${BENCH_AUSTIN_MS:-500}
if ! [[ $austin_ms =~ ^[0-9]+$ ]] || ((austin_ms < 100)); then
	die "BENCH_AUSTIN_MS must be a number of milliseconds, 100 or more"
fi
austin_interval=1000		# austin -i, us
walk_count=2000			# maintenance time-py-bt COUNT
walk_thread=2			# the first worker thread

bench_tmp

# ---------------------------------------------------------------- spyglass

bench_install cpython

# ---------------------------------------------------------------- fixture

python=${BENCH_PYTHON:-/usr/bin/python3.11}
python_note=
if [[ ! -x $python ]]; then
	[[ -z ${BENCH_PYTHON:-} ]] || die "BENCH_PYTHON: no $python"
	python=$(command -v python3) || die "no /usr/bin/python3.11 and no python3"
	python_note="/usr/bin/python3.11 is not installed (package python3.11), the issue's interpreter; using $python"
fi
python_version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
python_stripped=
if command -v readelf >/dev/null; then
	python_stripped=", stripped"
	readelf -SW "$python" 2>/dev/null | grep -q ' \.symtab ' && python_stripped=", with symbols"
fi

launch_fixture "$python" "$bench_dir/fixture-python.py" "$depth" "$nthreads"
expected_threads=$((nthreads + 1))
main_pid=$fixture_pid
side_pid=			# the fixture austin can read, if not the main one

# Both fixtures die on every exit path (common.sh's cleanup only knows
# fixture_pid, which the austin part points at the other one for a while).
# shellcheck disable=SC2317 # invoked by the trap
kill_fixtures() {
	local pid
	for pid in $main_pid $side_pid; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
trap 'kill_fixtures; cleanup' EXIT

find_tools gdb austin
if [[ -n ${skip_of[gdb]:-} ]]; then
	skip_of[gdb-all]=${skip_of[gdb]}
fi
start_watchdog

# tool_exec TOOL: replaces the (forked) shell with one run of TOOL.
#   spyglass  the installed one: spyglass -p PID -- py-bt, the issue's command
#   sg-build  the same with the build tree's binary and plugins
#   gdb       gdb -batch -p PID -ex py-bt, the issue's command: the selected
#             thread (main) only.  gdb's py-bt comes from the interpreter's
#             python-gdb.py, which gdb auto-loads (-nx does not stop that);
#             Debian's safe-path covers /usr/share/gdb/auto-load, "/" also
#             pyenv's pythonX.Y-gdb.py next to the executable
#   gdb-all   gdb's py-bt of every thread, like spyglass's
#   walk      not timed: maintenance time-py-bt on one thread
#   bytes     not timed: what py-bt reads from the target
#   sg-side, walk-side  spyglass and walk on austin's fixture, when that is
#             another one (fixture_pid points at it then)
tool_exec() {
	case $1 in
	spyglass | sg-side)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -p "$fixture_pid" --stats -- py-bt
		;;
	sg-build)
		LD_LIBRARY_PATH=$build_lib SPYGLASS_PLUGIN_DIR=$tmp/no-plugins \
			SPYGLASS_PLUGIN_PATH=$build_plugins \
			exec "$build_bin" -nx -p "$fixture_pid" --stats -- py-bt
		;;
	walk | walk-side)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx --json -batch -p "$fixture_pid" \
			-ex "thread $walk_thread" -ex "maintenance time-py-bt $walk_count"
		;;
	bytes)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -batch -p "$fixture_pid" \
			-ex 'maintenance info target-stats' -ex py-bt \
			-ex 'maintenance info target-stats'
		;;
	gdb)
		exec gdb -batch -nx -iex 'set auto-load safe-path /' -p "$fixture_pid" -ex py-bt
		;;
	gdb-all)
		exec gdb -batch -nx -iex 'set auto-load safe-path /' -p "$fixture_pid" \
			-ex 'thread apply all py-bt'
		;;
	esac
}

# stacks_seen OUT prints "THREADS MIN MAX": how many Python stacks OUT
# holds and the fewest and most frames in one.  Stacks start with
# "Thread N (LWP TID ...)" (spyglass) or "Thread N (Thread 0x... (LWP TID)
# ...)" (gdb); frames are "#N func at file:line" (spyglass) or
# '  File "file", line N, in func' (gdb).  gdb's py-bt of one thread has no
# "Thread" line: its frames count as one stack.
stacks_seen() {
	awk '
		function flush() {
			if (!open)
				return
			stacks++
			if (min == "" || n < min)
				min = n
			if (n > max)
				max = n
			open = 0
		}
		/^Thread [0-9]+ \(.*LWP [0-9]+/ { flush(); open = 1; n = 0; next }
		/^#[0-9]+ / || /^  File "/ { open = 1; n++ }
		END {
			flush()
			print stacks + 0, (min == "" ? 0 : min), max + 0
		}' "$1"
}

# frame_keys OUT prints one line per frame, "TID N FUNCTION FILE:LINE",
# sorted, so that spyglass's and gdb's stacks compare whatever the order of
# the threads.  FUNCTION loses its class ("Thread.run" -> "run"): spyglass
# prints co_qualname from 3.11, gdb's python-gdb.py co_name.
frame_keys() {
	awk '
		/^Thread [0-9]+ \(.*LWP [0-9]+/ {
			match($0, /LWP [0-9]+/)
			tid = substr($0, RSTART + 4, RLENGTH - 4)
			n = 0
			next
		}
		/^#[0-9]+ .* at .*:[0-9]+$/ {
			f = $2; sub(/.*\./, "", f)
			print tid, n++, f, $NF
		}
		/^  File ".*", line [0-9]+, in / {
			match($0, /"[^"]*"/); file = substr($0, RSTART + 1, RLENGTH - 2)
			match($0, /line [0-9]+/); line = substr($0, RSTART + 5, RLENGTH - 5)
			f = $0; sub(/.*, in /, "", f); sub(/.*\./, "", f)
			print tid, n++, f, file ":" line
		}' "$1" | sort -k1,1n -k2,2n
}

# json_field FILE KEY: the number KEY has in FILE's last JSON line with it.
json_field() {
	grep "\"$2\":" "$1" | tail -n 1 | sed -n "s/.*\"$2\":\\([0-9.]*\\).*/\\1/p"
}

# stat_lines OUT WHAT: "BYTES READS" of each "WHAT: N bytes in M reads"
# line of OUT (maintenance info target-stats), one line each.
stat_lines() {
	sed -n "s/^$2: \\([0-9]*\\) bytes in \\([0-9]*\\) reads.*/\\1 \\2/p" "$1"
}

# check_stacks TOOL REP: fails the run unless $tmp/TOOL.out holds a full
# Python stack of every thread (gdb: of the selected thread).  Records the
# counts for the table.
declare -A stacks_of fmin_of fmax_of
check_stacks() {
	local tool=$1 rep=$2 want=$expected_threads ns fmin fmax
	[[ $tool != gdb ]] || want=1
	read -r ns fmin fmax < <(stacks_seen "$tmp/$tool.out")
	stacks_of[$tool]=$ns
	if ((ns)); then
		if [[ -z ${fmin_of[$tool]:-} ]] || ((fmin < ${fmin_of[$tool]})); then
			fmin_of[$tool]=$fmin
		fi
		if ((fmax > ${fmax_of[$tool]:-0})); then
			fmax_of[$tool]=$fmax
		fi
	fi
	if ((ns != want)); then
		fail "$tool" "$rep" "printed $ns Python stacks, expected $want" "$tmp/$tool.out"
		return 1
	elif ((fmin < depth)); then
		fail "$tool" "$rep" "printed a Python stack of $fmin frames (expected $depth)" \
			"$tmp/$tool.out"
		return 1
	fi
}

# ---------------------------------------------------------------- runs

declare -A times_of paused_of rss_of attach_of
walk_warm=() walk_cold=()	# maintenance time-py-bt, us per walk
walk_frames=

# Without a python-gdb.py for this interpreter gdb has no py-bt.
if [[ -z ${skip_of[gdb]:-} ]]; then
	timed_run gdb "$tmp/gdb.out" "$tmp/gdb.err" || true
	if grep -q 'Undefined command: "py-bt"' "$tmp/gdb.out" "$tmp/gdb.err"; then
		skip_of[gdb]="skipped: gdb has no py-bt for $python (no python-gdb.py for it)"
		skip_of[gdb-all]=${skip_of[gdb]}
	fi
fi

run_list=(spyglass sg-build)
for t in gdb gdb-all; do
	[[ -n ${skip_of[$t]:-} ]] || run_list+=("$t")
done
run_list+=(walk bytes)

# Run 0 of each is an untimed warm-up (page cache, spyglass's offsets cache
# in ~/.cache/spyglass).  The tools take turns.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in "${run_list[@]}"; do
		[[ -z ${skip_of[$tool]:-} ]] || continue
		run_tool "$tool" "$rep" || continue
		us=$REPLY
		out=$tmp/$tool.out err=$tmp/$tool.err
		case $tool in
		walk)
			f=$(json_field "$out" frames)
			w=$(json_field "$out" warm_ns)
			c=$(json_field "$out" cold_code_ns)
			if [[ -z $f || -z $w || -z $c ]]; then
				fail "$tool" "$rep" "printed no time-py-bt result" "$err"
				continue
			elif ((f < depth)); then
				fail "$tool" "$rep" "walked $f Python frames of thread $walk_thread (expected $depth)" "$out"
				continue
			fi
			walk_frames=$f
			((rep > 0)) || continue
			walk_warm+=("$(calc "$w / 1000")")
			walk_cold+=("$(calc "$c / 1000")")
			continue
			;;
		bytes)
			check_stacks "$tool" "$rep" || continue
			cp "$out" "$tmp/bytes.last"
			continue
			;;
		esac
		check_stacks "$tool" "$rep" || continue
		if [[ $tool == spyglass || $tool == sg-build ]]; then
			p=$(stat_field "$err" paused_us)
			r=$(stat_field "$err" maxrss_kb)
			a=$(stat_field "$err" attach_us)
			if [[ -z $p || -z $r || -z $a ]]; then
				fail "$tool" "$rep" "printed no complete --stats line"
				continue
			fi
		fi
		cp "$out" "$tmp/$tool.last"
		((rep > 0)) || continue
		times_of[$tool]+="$us "
		if [[ $tool == spyglass || $tool == sg-build ]]; then
			paused_of[$tool]+="$p "
			rss_of[$tool]+="$r "
			attach_of[$tool]+="$a "
		fi
	done
done

# ---------------------------------------------------------------- austin

# austin 1.0.1 (Debian's) has no one-shot mode: it samples until SIGINT and
# then prints "Sampling time (min/avg/max) : MIN/AVG/MAX us".  It times
# each sampling round (every thread of the process) but divides the sum by
# the number of thread stacks sampled: AVG is per stack, MIN per round (and
# MAX is only updated when MIN is not).  Per stack is what spyglass's
# maintenance time-py-bt measures.

# alive PID: true while PID runs (not a zombie waiting for wait).
alive() {
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }
	[[ ${s:0:1} != Z ]]
}

# austin_run PID: samples PID for BENCH_AUSTIN_MS, then stops austin with
# SIGINT (SIGKILL a second later if it does not stop: austin 1.0.1 does not
# look at SIGINT while it searches for the interpreter).  Sets a_avg a_min
# (us), a_stacks (stacks sampled), a_full (stacks with all DEPTH frames),
# a_frames (most frames in one), or a_why when austin gave no result.
austin_run() {
	local pid=$1 i rc=0 killed=0 stats line s
	a_avg='' a_min='' a_stacks=0 a_full=0 a_frames=0 a_why=''
	: >"$tmp/austin.samples"
	austin -p "$pid" -i "$austin_interval" -o "$tmp/austin.samples" \
		>"$tmp/austin.out" 2>"$tmp/austin.err" &
	current_pid=$!
	for ((i = 0; i < austin_ms / 20; i++)); do
		alive "$current_pid" || break
		sleep 0.02
	done
	kill -INT "$current_pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		alive "$current_pid" || break
		sleep 0.02
	done
	if alive "$current_pid"; then
		kill -KILL "$current_pid" 2>/dev/null || true
		killed=1
	fi
	wait "$current_pid" 2>/dev/null || rc=$?
	current_pid=
	s=$(count_stopped)
	if ((s > 0)) && [[ -z $stopped_after ]]; then
		stopped_after="$s threads were stopped after an austin run"
	fi
	stats=$(cat "$tmp/austin.out" "$tmp/austin.err")
	read -r a_stacks a_full a_frames < <(awk -F';' -v depth="$depth" '
		{ n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^L[0-9]+/) n++ }
		{ stacks++; if (n >= depth) full++; if (n > most) most = n }
		END { print stacks + 0, full + 0, most + 0 }' "$tmp/austin.samples")
	line=$(grep -a 'Sampling time (min/avg/max)' <<<"$stats" | tail -n 1) || true
	if [[ $line =~ :\ *([0-9]+)/([0-9]+)/([0-9]+) ]]; then
		a_min=${BASH_REMATCH[1]} a_avg=${BASH_REMATCH[2]}
	fi
	if ((killed)); then
		a_why="austin did not stop within 1 s of SIGINT, killed; "
		if ((a_stacks == 0)); then
			a_why+="no samples written"
		elif ((a_frames)); then
			a_why+="$a_stacks samples written, the longest $a_frames frames"
		else
			a_why+="$a_stacks samples written, none with Python frames"
		fi
	elif [[ -z $a_avg ]]; then
		a_why="austin gave up (exit status $rc): $(grep -av '^$' <<<"$stats" | tail -n 1)"
	elif ((a_stacks == 0)); then
		a_why="austin sampled no stacks"
	elif ((a_frames == 0)); then
		a_why="austin's $a_stacks samples hold no Python frames (empty stacks)"
	elif ((a_full < a_stacks)); then
		a_why="$((a_stacks - a_full)) of austin's $a_stacks stacks are short (most frames: $a_frames of $depth)"
	fi
}

# start_side_fixture PYTHON: another fixture, for austin; sets side_pid, or
# returns 1 with the reason in side_why.
start_side_fixture() {
	local i ready='' ready_pid=''
	side_why=''
	: >"$tmp/side.out"	# not the last fixture's "ready" line
	"$1" "$bench_dir/fixture-python.py" "$depth" "$nthreads" \
		>"$tmp/side.out" 2>"$tmp/side.err" &
	side_pid=$!
	for ((i = 0; i < 1000; i++)); do
		if read -r ready ready_pid <"$tmp/side.out" && [[ $ready == ready ]]; then
			[[ $ready_pid == "$side_pid" ]] && return 0
			break
		fi
		alive "$side_pid" || break
		sleep 0.01
	done
	side_why="the fixture did not start: $(tail -n 1 "$tmp/side.err")"
	stop_side_fixture
	return 1
}

stop_side_fixture() {
	[[ -n $side_pid ]] || return 0
	kill -KILL "$side_pid" 2>/dev/null || true
	wait "$side_pid" 2>/dev/null || true
	side_pid=
}

# python_version_of PYTHON
python_version_of() {
	"$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo "?"
}

austin_lines=()			# "PYTHON: skipped: why" for the report
austin_python=''		# the interpreter austin was compared on
austin_pyver=''
austin_avg=() austin_min=()
side_warm=() side_cold=() side_paused=() side_wall=()
side_frames=0
if [[ -z ${skip_of[austin]:-} ]]; then
	austin_version=$(austin --version 2>&1 | head -n 1)
	# First the issue's interpreter, on the main fixture.
	austin_run "$main_pid"
	if [[ -z $a_why ]]; then
		austin_python=$python austin_pyver=$python_version
	else
		austin_lines+=("python $python_version ($python): skipped: $a_why")
		# Then others, in their own fixture, until austin reads one.
		if [[ -n ${BENCH_AUSTIN_PYTHON:-} ]]; then
			read -r -a candidates <<<"$BENCH_AUSTIN_PYTHON"
		else
			# Same prefix, so sort -V orders them by version.
			mapfile -t candidates < <(
				for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python; do
					[[ -x $p ]] && echo "$p"
				done | sort -V -r)
		fi
		for cand in "${candidates[@]}"; do
			v=$(python_version_of "$cand")
			if ! start_side_fixture "$cand"; then
				austin_lines+=("python $v ($cand): skipped: $side_why")
				continue
			fi
			fixture_pid=$side_pid
			austin_run "$side_pid"
			if [[ -z $a_why ]]; then
				austin_python=$cand austin_pyver=$v
				break
			fi
			austin_lines+=("python $v ($cand): skipped: $a_why")
			fixture_pid=$main_pid
			stop_side_fixture
		done
	fi
	if [[ -n $austin_python ]]; then
		# austin and spyglass in turns on the same process; the first
		# austin run above was the warm-up.
		[[ -n $side_pid ]] && fixture_pid=$side_pid
		for ((rep = 1; rep <= reps; rep++)); do
			austin_run "$fixture_pid"
			if [[ -n $a_why ]]; then
				fail austin "$rep" "$a_why" "$tmp/austin.err"
			else
				austin_avg+=("$a_avg")
				austin_min+=("$a_min")
			fi
			if run_tool walk-side "$rep"; then
				f=$(json_field "$tmp/walk-side.out" frames)
				w=$(json_field "$tmp/walk-side.out" warm_ns)
				c=$(json_field "$tmp/walk-side.out" cold_code_ns)
				if [[ -n $f && -n $w && -n $c ]] && ((f >= depth)); then
					side_frames=$f
					side_warm+=("$(calc "$w / 1000")")
					side_cold+=("$(calc "$c / 1000")")
				else
					fail walk-side "$rep" "gave no full time-py-bt result" "$tmp/walk-side.out"
				fi
			fi
			us=
			if run_tool sg-side "$rep"; then
				us=$REPLY
			fi
			if [[ -n $us ]] && check_stacks sg-side "$rep"; then
				side_wall+=("$us")
				p=$(stat_field "$tmp/sg-side.err" paused_us)
				[[ -z $p ]] || side_paused+=("$p")
			fi
		done
		if [[ -n $side_pid ]]; then
			side_state=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$side_pid/status")
			side_state+="; $(count_stopped) of $expected_threads threads stopped (T/t)"
		fi
		fixture_pid=$main_pid
		stop_side_fixture
	fi
fi

# ---------------------------------------------------------------- report

title="spyglass benchmark: py-bt on $expected_threads threads x $depth Python frames"
print_header "$title (python $python_version$python_stripped), $reps timed runs per tool" \
	spyglass gdb austin
echo "spyglass: installed with make install DESTDIR=TMP, prefix $inst_prefix"
echo "plugins:  $inst_plugin_names (installed); $build_plugin_names (build tree)"
echo "python:   $python${python_note:+  ($python_note)}"
echo

printf '%-10s %10s %10s %12s %7s  %s\n' tool "median ms" "min ms" "vs spyglass" stacks \
	"frames/stack"
for tool in spyglass sg-build gdb gdb-all; do
	tool_times "$tool" "${times_of[$tool]:-}" || continue
	frames=${fmin_of[$tool]:-0}
	((${fmax_of[$tool]:-0} == frames)) || frames+="-${fmax_of[$tool]}"
	note=
	if [[ -n ${failed_of[$tool]:-} ]]; then
		note="  (${failed_of[$tool]} runs failed)"
	fi
	printf '%-10s %10.2f %10.2f %12s %7s  %s%s\n' "$tool" "$t_median" "$t_min" "$t_ratio" \
		"${stacks_of[$tool]}" "$frames" "$note"
done
echo "(spyglass: spyglass -nx -p PID --stats -- py-bt, installed; sg-build: the same from the"
echo " build tree; gdb: gdb -batch -nx -p PID -ex py-bt, which shows the selected thread only;"
echo " both gdb runs with -iex 'set auto-load safe-path /', for the interpreter's python-gdb.py;"
echo " gdb-all: gdb ... -ex 'thread apply all py-bt', every thread, like spyglass's py-bt)"
if [[ -e $tmp/spyglass.last && -e $tmp/gdb-all.last ]]; then
	if cmp -s <(frame_keys "$tmp/spyglass.last") <(frame_keys "$tmp/gdb-all.last"); then
		echo "spyglass and gdb-all: same functions, files and lines in every thread (last runs)"
	else
		echo "spyglass and gdb-all: stacks differ (last runs; function, file and line compared)"
	fi
fi
echo

have_sg=0
if [[ -n ${paused_of[spyglass]:-} ]]; then
	have_sg=1
	# shellcheck disable=SC2086 # space-separated lists
	{
		read -r paused_median paused_min paused_max < <(summarize ${paused_of[spyglass]})
		read -r attach_median _ _ < <(summarize ${attach_of[spyglass]})
		read -r _ _ rss_max < <(summarize ${rss_of[spyglass]})
	}
	printf 'spyglass target stopped:  median %.0f us (min %.0f, max %.0f) for %d threads\n' \
		"$paused_median" "$paused_min" "$paused_max" "$expected_threads"
	printf 'spyglass attach:          median %.2f ms (attach_us)\n' \
		"$(calc "$attach_median / 1000")"
	printf 'spyglass peak memory:     %.1f MB (largest maxrss of all runs)\n' "$(calc "$rss_max / 1024")"
	if [[ -n ${paused_of[sg-build]:-} ]]; then
		# shellcheck disable=SC2086
		read -r bp _ _ < <(summarize ${paused_of[sg-build]})
		printf 'sg-build target stopped:  median %.0f us\n' "$bp"
	fi
fi
have_walk=${#walk_warm[@]}
if ((have_walk)); then
	read -r warm_median warm_min _ < <(summarize "${walk_warm[@]}")
	read -r cold_median cold_min _ < <(summarize "${walk_cold[@]}")
	printf 'spyglass stack walk:      thread %d, %d frames: median %.2f us (min %.2f) with code objects remembered,\n' \
		"$walk_thread" "$walk_frames" "$warm_median" "$warm_min"
	printf '                          %.2f us (min %.2f) reading them again (maintenance time-py-bt %d, mean per walk)\n' \
		"$cold_median" "$cold_min" "$walk_count"
else
	echo "spyglass stack walk:      no successful run"
fi
if [[ -e $tmp/bytes.last ]]; then
	mapfile -t asked < <(stat_lines "$tmp/bytes.last" "memory asked for")
	mapfile -t fetched < <(stat_lines "$tmp/bytes.last" "memory read from the process")
	if ((${#asked[@]} == 2 && ${#fetched[@]} == 2)); then
		read -r ab0 ar0 <<<"${asked[0]}"
		read -r ab1 ar1 <<<"${asked[1]}"
		read -r fb0 fr0 <<<"${fetched[0]}"
		read -r fb1 fr1 <<<"${fetched[1]}"
		printf 'spyglass reads per py-bt: %d bytes asked of the target in %d reads; %d bytes read from the\n' \
			"$((ab1 - ab0))" "$((ar1 - ar0))" "$((fb1 - fb0))"
		printf '                          process in %d system calls (whole pages for small reads)\n' \
			"$((fr1 - fr0))"
		printf '                          before py-bt (finding the interpreter, running): %d bytes asked in %d\n' \
			"$ab0" "$ar0"
		printf '                          reads, %d bytes in %d system calls\n' "$fb0" "$fr0"
	else
		echo "spyglass reads per py-bt: no target-stats lines"
	fi
fi
echo

echo "austin, per-sample cost (${austin_ms} ms of sampling per run, -i $austin_interval us):"
if [[ -n ${skip_of[austin]:-} ]]; then
	echo "  ${skip_of[austin]}"
else
	echo "  $austin_version"
	for l in "${austin_lines[@]}"; do
		echo "  $l"
	done
fi
have_austin=${#austin_avg[@]}
if ((have_austin)); then
	read -r aa_median _ _ < <(summarize "${austin_avg[@]}")
	read -r am_median _ _ < <(summarize "${austin_min[@]}")
	echo "  on python $austin_pyver ($austin_python), the same fixture: medians of $have_austin runs"
	printf '    %-44s %14s %18s\n' "" "per stack us" "per sample us"
	printf '    %-44s %14.1f %18.1f\n' "austin: sampling time avg" "$aa_median" \
		"$(calc "$aa_median * $expected_threads")"
	printf '    %-44s %14s %18.1f\n' "austin: sampling time min (one round)" "" "$am_median"
	if ((${#side_warm[@]})); then
		read -r sw _ _ < <(summarize "${side_warm[@]}")
		read -r sc _ _ < <(summarize "${side_cold[@]}")
		printf '    %-44s %14.2f %18.1f\n' "spyglass walk ($side_frames frames), code objects kept" "$sw" \
			"$(calc "$sw * $expected_threads")"
		printf '    %-44s %14.2f %18.1f\n' "spyglass walk, code objects read again" "$sc" \
			"$(calc "$sc * $expected_threads")"
	fi
	if ((${#side_paused[@]})); then
		read -r sp _ _ < <(summarize "${side_paused[@]}")
		read -r swall _ _ < <(summarize "${side_wall[@]}")
		printf '    %-44s %14s %18.1f\n' "spyglass py-bt, target stopped (paused_us)" "" "$sp"
		printf '    %-44s %14s %18.1f\n' "spyglass py-bt, whole run" "" "$swall"
	fi
	echo "    (a sample: the $expected_threads threads' stacks; austin's avg is per stack, its min"
	echo "     per round of $expected_threads.  austin reads the running process with a system call"
	echo "     per object; spyglass's walks read target memory it already holds (pages read"
	echo "     once while stopped); its py-bt pause includes stopping, reading afresh,"
	echo "     printing source lines and resuming)"
	if ((${#side_cold[@]})); then
		printf '    austin / spyglass per stack: %.0fx (code objects remembered), %.0fx (read again)\n' \
			"$(calc "$aa_median / $sw")" "$(calc "$aa_median / $sc")"
	fi
	if [[ -n ${side_state:-} ]]; then
		echo "    austin's target after runs: $side_state"
	fi
fi
echo

echo "goals:"
if ((have_sg)); then
	goal "py-bt, whole run < ${goal_wall_ms} ms" \
		"$(verdict "${median_of[spyglass]} < $goal_wall_ms")" \
		"$(printf '%.2f ms (median, installed, %d plugins)' "${median_of[spyglass]}" \
			"$(wc -w <<<"$inst_plugin_names")")"
else
	goal "py-bt, whole run < ${goal_wall_ms} ms" n/a "no successful spyglass runs"
fi
goal_faster_than gdb "$goal_speedup" "spyglass >= ${goal_speedup}x faster than gdb py-bt"
if ((have_sg)); then
	goal "target stopped < 1 ms" "$(verdict "$paused_median < $goal_pause_us")" \
		"$(printf '%.0f us (median, %d threads)' "$paused_median" "$expected_threads")"
else
	goal "target stopped < 1 ms" n/a "no successful spyglass runs"
fi
if ((have_walk)); then
	goal "warm walk of a ${depth}-frame stack < ${goal_walk_us} us" \
		"$(verdict "$warm_median < $goal_walk_us")" \
		"$(printf '%.2f us (median; %d frames)' "$warm_median" "$walk_frames")"
else
	goal "warm walk of a ${depth}-frame stack < ${goal_walk_us} us" n/a "no successful runs"
fi
echo

finish
