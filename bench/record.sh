#!/usr/bin/env bash
# bench/record.sh [BUILD_DIR] - the speed of record, the sampling profiler
# (issue 13), on the installed program with its default plugins:
#   - the rate achieved at 1 kHz on a 20-frame native stack (the C
#     fixture tests/fixtures/sg-hotcold.c) and a 20-frame Python stack
#     (tests/fixtures/hotcold.py), with the share of the time the target
#     was stopped; goal: at least 99% of the requested rate;
#   - the target's slowdown on fixed work with and without sampling, at
#     100 Hz (goal: at most 1%) and 1 kHz (at most 3%): runs alternate,
#     medians are compared;
#   - the same for a 20-frame Zeek script stack (the Zeek layout
#     fixture's loop mode), when make check has built it;
#   - Debian's austin on the same Python workload: rate achieved and
#     slowdown (austin reads a running process; 1.0.1 reads Python up
#     to 3.8 or so, hence the default interpreter).
#
# Environment: BENCH_RUNS (alternating pairs, default 5), BENCH_SECONDS
# (each rate measurement, default 3), BENCH_WORK_C (rounds of C work,
# default 1000, about 1 s), BENCH_WORK_PY (default 1000), BENCH_PYTHON
# (default pyenv's 3.8, else python3), BENCH_PIN (default 1 with two
# CPUs or more: the target runs on CPU 0 and the profiler on CPU 1, so
# that the slowdown is the samples' and not a fight for one CPU; 0: no
# pinning).
# Exit status 0 even when a goal is missed; 1 if a run failed; 2 if the
# benchmark could not be set up.  The machine's load moves these figures:
# run it on a quiet one.
set -euo pipefail
export LC_ALL=C

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

runs=${BENCH_RUNS:-5}
secs=${BENCH_SECONDS:-3}
work_c=${BENCH_WORK_C:-1000}
work_py=${BENCH_WORK_PY:-1000}
bench_args record.sh "$@"
bench_tmp
bench_install cpython

python=${BENCH_PYTHON:-}
if [[ -z $python ]]; then
	root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
	python=$(ls -d "$root"/versions/3.8.*/bin/python 2>/dev/null | sort -V | tail -n 1)
	[[ -n $python ]] || python=$(command -v python3)
fi
[[ -x $python ]] || die "no Python interpreter (BENCH_PYTHON)"
"${CC:-cc}" -O0 -g -pthread -o "$tmp/sg-hotcold" "$repo_dir/tests/fixtures/sg-hotcold.c" ||
	die "cannot build the fixture"
hotcold_py=$repo_dir/tests/fixtures/hotcold.py
failures=0
pin_target=() pin_tool=()
if [[ ${BENCH_PIN:-1} != 0 ]] && (($(nproc) >= 2)) && command -v taskset >/dev/null; then
	pin_target=(taskset -c 0) pin_tool=(taskset -c 1)
fi

sgrun() {
	LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins "${pin_tool[@]}" "$inst_bin" -nx -batch "$@"
}

# start CMD...: CMD in the background until it prints "ready"; sets pid.
start() {
	: >"$tmp/fixture.out"
	rm -f "$tmp/zk.stack"
	"${pin_target[@]}" "$@" >"$tmp/fixture.out" 2>&1 &
	pid=$! fixture_pid=$!
	local i
	for ((i = 0; i < 1000; i++)); do
		grep -q '^ready' "$tmp/fixture.out" && return 0
		[[ $1 == */sg-zeek-* && -s $tmp/zk.stack ]] && return 0
		sleep 0.01
	done
	die "$* did not become ready"
}

finish_fixture() {
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	fixture_pid=
}

# rate LABEL CMD... -- RECORD_ARGS...: record the running fixture at
# 1 kHz for BENCH_SECONDS; prints the summary's figures.
rate() {
	local label=$1 cmd=() summary
	shift
	while [[ $1 != -- ]]; do
		cmd+=("$1")
		shift
	done
	shift
	start "${cmd[@]}"
	summary=$(sgrun -p "$pid" -- record --rate 1000 --duration "$secs" "$@" -o "$tmp/rate.out" 2>&1 >/dev/null | tail -n 1) ||
		failures=$((failures + 1))
	finish_fixture
	awk -v l="$label" '{
		match($0, /([0-9.]+) Hz of ([0-9]+)/, r); match($0, /([0-9]+) missed/, m)
		match($0, /stopped ([0-9.]+)%/, s); match($0, /^record: ([0-9]+) samples/, n)
		printf "  %-34s %8.1f Hz of %s (%5.1f%%), %5d missed, %6d samples, target stopped %6.3f%%\n",
			l, r[1], r[2], 100 * r[1] / r[2], m[1], n[1], s[1] }' <<<"$summary"
}

# work_ns CMD... [-- RECORD_ARGS...]: one run of fixed work, sampled by
# record with RECORD_ARGS if given; prints the work's wall time in ns.
work_ns() {
	local cmd=() rec=() sg=''
	while (($#)) && [[ $1 != -- ]]; do
		cmd+=("$1")
		shift
	done
	(($#)) && shift && rec=("$@")
	start "${cmd[@]}"
	if ((${#rec[@]})); then
		sgrun -p "$pid" -- record --duration 600 "${rec[@]}" -o "$tmp/work.out" 2>/dev/null &
		sg=$!
	fi
	wait "$pid" 2>/dev/null || true
	fixture_pid=
	[[ -n $sg ]] && { wait "$sg" || failures=$((failures + 1)); }
	sed -n 's/^work_ns=//p' "$tmp/fixture.out"
}

# austin_ns INTERVAL_US CMD...: one run of CMD under austin.
austin_ns() {
	local us=$1
	shift
	"${pin_tool[@]}" austin -i "$us" -o "$tmp/austin.out" "${pin_target[@]}" "$@" >"$tmp/fixture.out" 2>"$tmp/austin.err" ||
		failures=$((failures + 1))
	sed -n 's/^work_ns=//p' "$tmp/fixture.out"
}

median() {
	sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# slowdown LABEL BASE_FN... ::: SAMPLED_FN...: RUNS alternating pairs.
slowdown() {
	local label=$1 base=() samp=() b s i
	shift
	while [[ $1 != ::: ]]; do
		base+=("$1")
		shift
	done
	shift
	samp=("$@")
	: >"$tmp/base" && : >"$tmp/samp"
	for ((i = 0; i < runs; i++)); do
		"${base[@]}" >>"$tmp/base"
		"${samp[@]}" >>"$tmp/samp"
	done
	b=$(median <"$tmp/base") s=$(median <"$tmp/samp")
	awk -v l="$label" -v b="$b" -v s="$s" -v n="$runs" 'BEGIN {
		printf "  %-34s %8.1f ms -> %8.1f ms  %+6.2f%%  (medians of %d)\n", l, b / 1e6, s / 1e6, 100 * (s / b - 1), n }'
}

echo "record on $(uname -m), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); spyglass $inst_bin"
echo "plugins: $inst_plugin_names; Python: $python ($("$python" -V 2>&1))"
((${#pin_target[@]})) && echo "pinned: the target on CPU 0, spyglass and austin on CPU 1"
echo
echo "Rate achieved at 1 kHz (goal: at least 99%), ${secs} s each:"
rate "native, 20 frames" "$tmp/sg-hotcold" --
rate "Python, 20 frames (--stack python)" "$python" "$hotcold_py" -- --stack python
rate "Python, --stack mixed" "$python" "$hotcold_py" -- --stack mixed
rate "Python, --nonblocking" "$python" "$hotcold_py" -- --stack python --nonblocking
# The Zeek layout fixture's loop mode: a 20-frame script stack, run
# again and again (built by make check; bench/zeek-bt.sh builds it too).
zk=$build_dir/tests/fixtures/zeek/sg-zeek-81
if [[ -x $zk ]]; then
	rate "Zeek, 20 frames (--stack zeek)" "$zk" loop "$tmp/zk.stack" -- --stack zeek
	rate "Zeek, --stack mixed" "$zk" loop "$tmp/zk.stack" -- --stack mixed
	rate "Zeek, --nonblocking" "$zk" loop "$tmp/zk.stack" -- --stack zeek --nonblocking
else
	echo "  Zeek: skipped: no $zk (make -C $build_dir check builds it)"
fi
if command -v austin >/dev/null; then
	start "$python" "$hotcold_py"
	"${pin_tool[@]}" austin -i 1000 -p "$pid" -o "$tmp/austin.rate" >/dev/null 2>&1 &
	apid=$!
	sleep "$secs"
	kill -INT "$apid" 2>/dev/null || true
	wait "$apid" 2>/dev/null || true
	finish_fixture
	awk -v secs="$secs" 'END { printf "  %-34s %8.1f Hz of 1000 (%5.1f%%), %6d samples\n",
		"austin -i 1000 (Python)", NR / secs, NR / secs / 10, NR }' "$tmp/austin.rate"
fi
echo
echo "Slowdown of fixed work (goal: at most 1% at 100 Hz, 3% at 1 kHz):"
for r in 100 1000; do
	slowdown "native, $r Hz" work_ns "$tmp/sg-hotcold" work "$work_c" ::: \
		work_ns "$tmp/sg-hotcold" work "$work_c" -- --rate "$r"
done
for r in 100 1000; do
	slowdown "Python --stack python, $r Hz" work_ns "$python" "$hotcold_py" work "$work_py" ::: \
		work_ns "$python" "$hotcold_py" work "$work_py" -- --rate "$r" --stack python
	slowdown "Python --nonblocking, $r Hz" work_ns "$python" "$hotcold_py" work "$work_py" ::: \
		work_ns "$python" "$hotcold_py" work "$work_py" -- --rate "$r" --stack python --nonblocking
	if command -v austin >/dev/null; then
		slowdown "austin -i $((1000000 / r)), Python" work_ns "$python" "$hotcold_py" work "$work_py" ::: \
			austin_ns $((1000000 / r)) "$python" "$hotcold_py" work "$work_py"
	fi
done
((failures == 0)) || { echo "bench: $failures runs failed" >&2; exit 1; }
exit 0
