#!/usr/bin/env bash
# bench/core.sh [BUILD_DIR] - spyglass on cores, next to gdb, and the goals
# of issue 12:
#   - thread apply all bt on a core of the 64-thread target (bench/run.sh's
#     fixture-threads): at least 20x faster than gdb -batch -c CORE EXE
#     doing the same;
#   - py-bt on a core of a Python process (bench/py-bt.sh's fixture): under
#     10 ms.
# Both cores are made with gdb's gcore of the running fixture.  spyglass is
# measured as users run it: the installed program with its default plugins
# (make install DESTDIR=TMP, as bench/py-bt.sh does).  py-spy and austin are
# tried on the Python core for reference.
#
# Environment: BENCH_REPS (timed runs per tool for the 64-thread core,
# default 10), BENCH_PY_REPS (py-bt runs, default 20), BENCH_DEPTH (40),
# BENCH_THREADS (64), BENCH_TIMEOUT (60), BENCH_PYTHON (the interpreter,
# default /usr/bin/python3.11, else python3).
#
# Exit status as bench/bt.sh: 0 even when a goal is missed, 1 if a run
# failed or printed short backtraces, 2 if the benchmark could not be set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

goal_speedup=20			# thread apply all bt: times faster than gdb
goal_pybt_ms=10			# py-bt on a core
goal_width=44

bench_args core.sh "$@"
py_reps=${BENCH_PY_REPS:-20}
[[ $py_reps =~ ^[1-9][0-9]*$ ]] || die "BENCH_PY_REPS must be a number, at least 1"
py_depth=50 py_workers=3	# bench/py-bt.sh's process
bench_tmp
bench_install cpython
command -v gdb >/dev/null || die "no gdb: it makes the cores (gcore)"
find_tools gdb py-spy austin
start_watchdog

# make_core PID FILE: gdb's gcore of the running PID; the time it took in
# REPLY (ms).
make_core() {
	local t0 t1
	t0=${EPOCHREALTIME//[!0-9]/}
	gdb -batch -nx -p "$1" -ex "gcore $2" >"$tmp/gcore.log" 2>&1 ||
		die "gdb's gcore of $1 failed: $(tail -n 3 "$tmp/gcore.log")"
	t1=${EPOCHREALTIME//[!0-9]/}
	[[ -s $2 ]] || die "gdb's gcore of $1 wrote no core"
	REPLY=$(calc "($t1 - $t0) / 1000")
}

# tool_exec TOOL: replaces the (forked) shell with one run of TOOL.
tool_exec() {
	case $1 in
	spyglass)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -batch -c "$core" -ex 'thread apply all bt'
		;;
	gdb)
		exec gdb -batch -nx -c "$core" "$exe" -ex 'thread apply all bt'
		;;
	sg-py-bt)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -batch -c "$core" -ex py-bt
		;;
	py-spy)
		exec py-spy dump --core "$core"
		;;
	esac
}

# backtraces OUT: "THREADS MIN": the backtraces ("Thread N (... LWP T ...)")
# in OUT and the fewest frames ("#N ") in one.
backtraces() {
	awk 'function flush() { if (open) { t++; if (min == "" || n < min) min = n } }
	     /^Thread [0-9]+ \(.*LWP [0-9]+/ { flush(); open = 1; n = 0; next }
	     /^#[0-9]+ / { n++ }
	     END { flush(); print t + 0, min + 0 }' "$1"
}

# ---------------------------------------------------------------- 64 threads

start_fixture
exe=$tmp/fixture-threads
core=$tmp/threads.core
make_core "$fixture_pid" "$core"
threads_gcore_ms=$REPLY
threads_core_mb=$(calc "$(stat -c %s "$core") / 1048576")
nthreads_total=$expected_threads
# The fixture runs on while its core is read (run_tool checks that nothing
# stops it): a core is read without the process.
stop_fixture_now() {
	kill -KILL "$fixture_pid" 2>/dev/null || true
	wait "$fixture_pid" 2>/dev/null || true
}

declare -A times_of nbt_of min_of
# Run 0 of each is an untimed warm-up; the tools take turns.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in spyglass gdb; do
		[[ -z ${skip_of[$tool]:-} ]] || continue
		run_tool "$tool" "$rep" || continue
		us=$REPLY
		read -r nbt fmin < <(backtraces "$tmp/$tool.out")
		nbt_of[$tool]=$nbt min_of[$tool]=$fmin
		if ((nbt != expected_threads || fmin < 1)); then
			fail "$tool" "$rep" "printed $nbt backtraces (expected $expected_threads), the shortest $fmin frames" "$tmp/$tool.out"
			continue
		fi
		cp "$tmp/$tool.out" "$tmp/$tool.last"
		((rep > 0)) && times_of[$tool]+="$us "
	done
done
rm -f "$core"

# ---------------------------------------------------------------- Python

python=${BENCH_PYTHON:-/usr/bin/python3.11}
if [[ ! -x $python ]]; then
	[[ -z ${BENCH_PYTHON:-} ]] || die "BENCH_PYTHON: no $python"
	python=$(command -v python3) || die "no /usr/bin/python3.11 and no python3"
fi
python_version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
stop_fixture_now
launch_fixture "$python" "$bench_dir/fixture-python.py" "$py_depth" "$py_workers"
py_threads=$((py_workers + 1))
core=$tmp/python.core
make_core "$fixture_pid" "$core"
py_gcore_ms=$REPLY
py_core_mb=$(calc "$(stat -c %s "$core") / 1048576")

py_times=
for ((rep = 0; rep <= py_reps; rep++)); do
	run_tool sg-py-bt "$rep" || continue
	us=$REPLY
	# Every thread's whole stack: "Thread N (LWP ...)" then its frames.
	read -r nbt fmin < <(backtraces "$tmp/sg-py-bt.out")
	if ((nbt != py_threads || fmin < py_depth)); then
		fail sg-py-bt "$rep" "printed $nbt Python stacks (expected $py_threads), the shortest $fmin frames (expected $py_depth)" "$tmp/sg-py-bt.out"
		continue
	fi
	((rep > 0)) && py_times+="$us "
done

# py-spy reads cores (py-spy dump --core); austin reads live processes only.
pyspy_note=
if [[ -n ${skip_of[py-spy]:-} ]]; then
	pyspy_note=${skip_of[py-spy]}
elif ! py-spy dump --help 2>/dev/null | grep -q -- '--core'; then
	pyspy_note="skipped: this py-spy has no dump --core"
else
	pyspy_times=
	for ((rep = 0; rep <= py_reps; rep++)); do
		run_tool py-spy "$rep" || continue
		((rep > 0)) && pyspy_times+="$REPLY "
	done
fi
austin_note=${skip_of[austin]:-"not run: austin samples live processes only (no core input)"}

# ---------------------------------------------------------------- report

print_header "spyglass benchmark: cores made by gdb's gcore" spyglass gdb
echo "core 1: bench/fixture-threads.c, $nthreads_total threads (recursion depth $depth): $threads_core_mb MB, gcore $threads_gcore_ms ms"
echo "core 2: bench/fixture-python.py on python $python_version ($python), $py_threads threads x $py_depth Python frames: $py_core_mb MB, gcore $py_gcore_ms ms"
echo
printf '%-44s %10s %10s %12s  %s\n' "command (core 1, $reps runs)" "median ms" "min ms" "vs spyglass" backtraces
for tool in spyglass gdb; do
	case $tool in
	spyglass) what="spyglass -c CORE -ex 'thread apply all bt'" ;;
	gdb) what="gdb -c CORE EXE -ex 'thread apply all bt'" ;;
	esac
	if [[ -n ${skip_of[$tool]:-} ]]; then
		printf '%-44s %s\n' "$what" "${skip_of[$tool]}"
		continue
	fi
	tool_times "$tool" "${times_of[$tool]:-}" >/dev/null || {
		printf '%-44s %s\n' "$what" "no successful run"
		continue
	}
	printf '%-44s %10.2f %10.2f %12s  %s (shortest %s frames)\n' "$what" "$t_median" "$t_min" "$t_ratio" \
		"${nbt_of[$tool]:-0}" "${min_of[$tool]:-0}"
done
if [[ -e $tmp/spyglass.last && -e $tmp/gdb.last ]]; then
	# From the first backtrace: gdb prints the selected frame first.
	names() {
		sed -E -n '/^Thread [0-9]+ \(/,$ { s/^Thread [0-9]+ \(.*LWP ([0-9]+).*/T \1/p
			s/^(#[0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) .*/\1 \3/p }' "$1"
	}
	if cmp -s <(names "$tmp/spyglass.last") <(names "$tmp/gdb.last"); then
		echo "(spyglass and gdb: same functions in the same frames of every thread)"
	else
		echo "(spyglass and gdb: the backtraces differ; frame numbers and functions compared)"
	fi
fi
echo
printf '%-44s %10s %10s %10s\n' "command (core 2, $py_reps runs)" "median ms" "min ms" "max ms"
if [[ -n $py_times ]]; then
	# shellcheck disable=SC2086 # a space-separated list
	read -r m mn mx < <(summarize $py_times)
	py_median=$(calc "$m / 1000")
	printf '%-44s %10.2f %10.2f %10.2f\n' "spyglass -c CORE -ex py-bt" "$py_median" "$(calc "$mn / 1000")" "$(calc "$mx / 1000")"
else
	py_median=
	printf '%-44s %s\n' "spyglass -c CORE -ex py-bt" "no successful run"
fi
if [[ -n $pyspy_note ]]; then
	printf '%-44s %s\n' "py-spy dump --core CORE" "$pyspy_note"
elif [[ -n ${pyspy_times:-} ]]; then
	# shellcheck disable=SC2086
	read -r m mn mx < <(summarize $pyspy_times)
	printf '%-44s %10.2f %10.2f %10.2f\n' "py-spy dump --core CORE" "$(calc "$m / 1000")" "$(calc "$mn / 1000")" "$(calc "$mx / 1000")"
else
	printf '%-44s %s\n' "py-spy dump --core CORE" "no successful run"
fi
printf '%-44s %s\n' "austin" "$austin_note"
echo

echo "goals:"
goal_faster_than gdb "$goal_speedup" "thread apply all bt >= ${goal_speedup}x faster than gdb"
if [[ -n $py_median ]]; then
	goal "py-bt on a core < ${goal_pybt_ms} ms" "$(verdict "$py_median < $goal_pybt_ms")" \
		"$(printf '%.2f ms (median of %d, installed, %d plugins)' "$py_median" "$py_reps" \
			"$(wc -w <<<"$inst_plugin_names")")"
else
	goal "py-bt on a core < ${goal_pybt_ms} ms" n/a "no successful runs"
fi
echo

if ((failures)); then
	echo "bench: $failures runs failed" >&2
	exit 1
fi
exit 0
