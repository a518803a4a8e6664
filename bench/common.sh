# bench/common.sh - code shared by the benchmarks (run.sh, bt.sh, ptype.sh,
# print.sh).
#
# Sourced, not run, by a script that has already done
#   set -euo pipefail; export LC_ALL=C
#   bench_dir=<directory of this file>
# It only defines functions; the script calls them in this order:
#
#   bench_args NAME "$@"   settings from the environment, BUILD_DIR, spyglass
#   bench_tmp              temporary directory, cleanup on every exit path
#   start_fixture          build and start fixture-threads, wait for "ready"
#                          (or launch_fixture CMD...: any command that
#                          prints "ready PID")
#   find_tools gdb ...     which of the other tools are installed
#   start_watchdog         coprocess that kills hung runs
#   run_tool TOOL REP      one run of TOOL, via the script's tool_exec TOOL,
#                          which must exec the tool (no extra fork)
#   print_header TITLE TOOL...  tool_times TOOL   goal ...
#   finish                 target state, exit status
#
# Globals set here and read by the scripts: repo_dir build_dir sg_bin
# sg_libdir reps depth nthreads run_timeout tmp fixture_pid expected_threads
# tools skip_of failed_of median_of failures stopped_after.
# shellcheck shell=bash

repo_dir=$(dirname "${bench_dir:?set by the sourcing script}")

die() {
	echo "bench: $*" >&2
	exit 2
}

# ---------------------------------------------------------------- settings

# bench_args NAME [BUILD_DIR]: reads BENCH_* and finds the build and its
# spyglass binary.  NAME is the script's name for the usage message.
bench_args() {
	local name=$1 v
	shift
	reps=${BENCH_REPS:-10}
	depth=${BENCH_DEPTH:-40}
	nthreads=${BENCH_THREADS:-64}
	run_timeout=${BENCH_TIMEOUT:-60}
	for v in BENCH_REPS BENCH_DEPTH BENCH_THREADS BENCH_TIMEOUT; do
		[[ ${!v:-1} =~ ^[0-9]+$ ]] || die "$v must be a number, not \"${!v}\""
	done
	((reps >= 1 && nthreads >= 1 && run_timeout >= 1)) ||
		die "BENCH_REPS, BENCH_THREADS and BENCH_TIMEOUT must be at least 1"
	(($# <= 1)) || die "usage: bench/$name [BUILD_DIR]"

	build_dir=${1:-$repo_dir/_build}
	build_dir=$(cd "$build_dir" 2>/dev/null && pwd) ||
		die "no build directory ${1:-$repo_dir/_build}"

	# Prefer the real binary to the libtool wrapper script, which would add
	# a bash start-up (several ms) to every spyglass run.
	sg_libdir=$build_dir/lib/.libs
	if [[ -x $build_dir/shell/.libs/spyglass ]]; then
		sg_bin=$build_dir/shell/.libs/spyglass
	elif [[ -x $build_dir/shell/spyglass ]]; then
		sg_bin=$build_dir/shell/spyglass
	else
		die "no spyglass in $build_dir/shell (build it first)"
	fi
}

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

# bench_tmp: makes the temporary directory $tmp, with an empty no-plugins
# folder in it, and installs the cleanup on exit, Ctrl-C and SIGTERM.
bench_tmp() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/spyglass-bench.XXXXXX")
	mkdir "$tmp/no-plugins"
}

# ---------------------------------------------------------------- fixture

start_fixture() {
	"${CC:-cc}" -O2 -pthread -o "$tmp/fixture-threads" "$bench_dir/fixture-threads.c" ||
		die "cannot build the fixture"
	launch_fixture "$tmp/fixture-threads" "$depth" "$nthreads"
	expected_threads=$((nthreads + 1))
}

# launch_fixture CMD...: starts CMD, which must print "ready PID" on stdout
# once it is ready to be looked at, and waits for that (up to 10 s).  Sets
# fixture_pid; expected_threads defaults to 1.
launch_fixture() {
	local i ready='' ready_pid=''
	: >"$tmp/fixture.out"	# the polling below may come before the redirection
	"$@" >"$tmp/fixture.out" 2>"$tmp/fixture.err" &
	fixture_pid=$!
	expected_threads=1
	for ((i = 0; i < 1000; i++)); do	# up to 10 s
		if read -r ready ready_pid <"$tmp/fixture.out" && [[ $ready == ready ]]; then
			break
		fi
		kill -0 "$fixture_pid" 2>/dev/null || die "fixture died: $(cat "$tmp/fixture.err")"
		sleep 0.01
	done
	[[ $ready == ready ]] || die "fixture not ready after 10 s"
	[[ $ready_pid == "$fixture_pid" ]] ||
		die "fixture says it is PID $ready_pid, expected $fixture_pid"
}

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

declare -A skip_of failed_of median_of

# find_tools TOOL...: tools becomes spyglass and those TOOLs that are
# installed; skip_of[TOOL] says why the others are left out.
find_tools() {
	local t
	tools=(spyglass)
	for t in "$@"; do
		if command -v "$t" >/dev/null; then
			tools+=("$t")
		else
			skip_of[$t]="skipped: $t not installed"
		fi
	done
}

# Watchdog for hung runs.  timeout(1) would add an exec of its own to every
# timed run (~1 ms, about a tenth of a spyglass run), so instead a coprocess
# is told each run's PID and kills it unless "done" follows in time.
start_watchdog() {
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
}

# timed_run TOOL OUT ERR: runs "tool_exec TOOL" once in the background,
# stdout to OUT, stderr to ERR.  Sets REPLY to the wall-clock time in
# microseconds; returns the tool's exit status.  The clock is bash's
# EPOCHREALTIME, and tool_exec execs the tool in the forked child, so no
# process is started besides the tool itself.
timed_run() {
	local tool=$1 out=$2 err=$3 t0 t1 rc=0
	t0=${EPOCHREALTIME//[!0-9]/}
	tool_exec "$tool" >"$out" 2>"$err" &
	current_pid=$!
	echo "$current_pid" >&"${WATCHDOG[1]}"
	wait "$current_pid" || rc=$?
	t1=${EPOCHREALTIME//[!0-9]/}
	echo "done" >&"${WATCHDOG[1]}"
	current_pid=
	REPLY=$((t1 - t0))
	return "$rc"
}

failures=0
stopped_after=

# fail TOOL REP WHAT [FILE]: reports a failed run with the tail of FILE
# (default: the run's stderr).
fail() {
	failures=$((failures + 1))
	failed_of[$1]=$((${failed_of[$1]:-0} + 1))
	local run=$2
	((run > 0)) || run="0 (warm-up)"
	echo "bench: $1 run $run $3:" >&2
	tail -n 5 "${4:-$tmp/$1.err}" | sed 's/^/  /' >&2
}

# run_tool TOOL REP: runs TOOL once, output in $tmp/TOOL.out and .err,
# notes threads left stopped, and reports a time-out or failure.  Sets REPLY
# to the wall-clock time in microseconds; returns 1 if the run failed.
run_tool() {
	local tool=$1 rep=$2 rc=0 us s
	timed_run "$tool" "$tmp/$tool.out" "$tmp/$tool.err" || rc=$?
	us=$REPLY
	s=$(count_stopped)
	if ((s > 0)) && [[ -z $stopped_after ]]; then
		stopped_after="$s threads were stopped after $tool run $rep"
	fi
	if ((rc == 137 && us >= run_timeout * 1000000)); then
		fail "$tool" "$rep" "timed out after $run_timeout s (BENCH_TIMEOUT)"
		return 1
	elif ((rc)); then
		fail "$tool" "$rep" "failed (exit status $rc)"
		return 1
	fi
	REPLY=$us
}

# ---------------------------------------------------------------- numbers

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

# verdict EXPR prints PASS if EXPR (awk) is true, else MISS.
verdict() {
	calc "($1) ? \"PASS\" : \"MISS\""
}

# ---------------------------------------------------------------- report

version_of() {
	local bin=$1
	[[ $1 != spyglass ]] || bin=$sg_bin
	LD_LIBRARY_PATH=$sg_libdir timeout 10 "$bin" --version 2>/dev/null | head -n 1 || true
}

# print_header TITLE TOOL...: the title, the build and each TOOL's version.
print_header() {
	local tool
	echo "$1"
	shift
	echo "build: $build_dir"
	for tool in "$@"; do
		if [[ -n ${skip_of[$tool]:-} ]]; then
			printf '%-9s %s\n' "$tool:" "${skip_of[$tool]}"
		else
			printf '%-9s %s\n' "$tool:" "$(version_of "$tool")"
		fi
	done
	echo
}

# tool_times TOOL TIMES: sets t_median and t_min (ms) and t_ratio (TOOL's
# median over spyglass's, "n/a" before spyglass has one) from TIMES, a
# space-separated list of microseconds, and records median_of[TOOL].  When
# TOOL was skipped or TIMES is empty, prints the table row saying so and
# returns 1.  Call it for spyglass first.
tool_times() {
	local tool=$1 times=$2
	if [[ -n ${skip_of[$tool]:-} ]]; then
		printf '%-10s %s\n' "$tool" "${skip_of[$tool]}"
		return 1
	fi
	if [[ -z $times ]]; then
		printf '%-10s %s\n' "$tool" "no successful run"
		return 1
	fi
	# shellcheck disable=SC2086 # the times are a space-separated list
	read -r t_median t_min _ < <(summarize $times)
	t_median=$(calc "$t_median / 1000") t_min=$(calc "$t_min / 1000")	# us -> ms
	median_of[$tool]=$t_median
	t_ratio=n/a
	if [[ -n ${median_of[spyglass]:-} ]]; then
		t_ratio=$(calc "sprintf(\"%.1fx\", $t_median / ${median_of[spyglass]})")
	fi
}

# shellcheck disable=SC2034 # read by the scripts
t_median='' t_min='' t_ratio=''

goal_width=36

# goal NAME VERDICT DETAIL prints one goal line.
goal() {
	printf "  %-4s  %-${goal_width}s %s\\n" "$2" "$1" "$3"
}

# goal_faster_than TOOL TIMES NAME [FORMAT]: the goal that TOOL's median
# is at least TIMES times spyglass's; FORMAT (printf, default %.1fx) shows
# the ratio.
goal_faster_than() {
	local tool=$1 times=$2 name=$3 format=${4:-%.1fx} ratio
	if [[ -n ${median_of[spyglass]:-} && -n ${median_of[$tool]:-} ]]; then
		ratio=$(calc "${median_of[$tool]} / ${median_of[spyglass]}")
		# shellcheck disable=SC2059 # the format is the caller's
		goal "$name" "$(verdict "$ratio >= $times")" "$(printf "$format" "$ratio")"
	elif [[ -n ${skip_of[$tool]:-} ]]; then
		goal "$name" SKIP "${skip_of[$tool]}"
	else
		goal "$name" n/a "no successful runs"
	fi
}

# ratios_first_run TOOL...: how many times faster than each TOOL the
# first run on new binaries is (spyglass-1st, an empty cache each run).
ratios_first_run() {
	local tool first=${median_of[spyglass-1st]:-}
	[[ -n $first ]] || return 0
	for tool in "$@"; do
		[[ -n ${median_of[$tool]:-} ]] || continue
		goal "first run (empty cache) vs $tool" info \
			"$(printf '%.2fx (%s/spyglass-1st)' "$(calc "${median_of[$tool]} / $first")" "$tool")"
	done
}

# finish: prints the state of the target and exits 1 if a run failed, else 0.
# The debuggers must leave the target running.  /proc/PID/status shows the
# main thread only, so every thread is checked as well.
finish() {
	local state stopped
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
}

# bench_install PLUGIN: install BUILD_DIR as a user would, into $tmp/inst,
# and check that the installed spyglass loads PLUGIN.  make builds what is
# out of date first, so the build tree's binary is current too.  The
# installed binary looks for its library and plugins under the prefix
# (/usr/local by default), not under DESTDIR: LD_LIBRARY_PATH and
# SPYGLASS_PLUGIN_DIR point it at the copies.  Sets inst_bin, inst_lib,
# inst_plugins and inst_prefix (the installed one), build_bin, build_lib
# and build_plugins (the build tree's, for reference), inst_plugin_names
# and build_plugin_names; sg_bin and sg_libdir then name the installed
# one, which version_of (print_header) asks.
bench_install() {
	local plugin=$1 p
	inst=$tmp/inst
	make -C "$build_dir" -j"$(nproc)" install DESTDIR="$inst" >"$tmp/install.log" 2>&1 || {
		tail -n 20 "$tmp/install.log" >&2
		die "make -C $build_dir install DESTDIR=$inst failed"
	}
	inst_bin=$(find "$inst" -path '*/bin/spyglass' -type f | head -n 1)
	inst_lib=$(find "$inst" -name 'libspyglass.so.*' -type f | head -n 1)
	inst_plugins=$(find "$inst" -path "*/plugins/$plugin.so" | head -n 1)
	[[ -n $inst_bin && -n $inst_lib && -n $inst_plugins ]] ||
		die "make install put no spyglass, libspyglass or $plugin plugin in $inst"
	inst_lib=$(dirname "$inst_lib") inst_plugins=$(dirname "$inst_plugins")
	inst_prefix=${inst_bin#"$inst"}
	inst_prefix=${inst_prefix%/bin/spyglass}

	build_bin=$sg_bin build_lib=$sg_libdir
	build_plugins=
	for p in "$build_dir"/plugins/*/.libs/*.so; do
		[[ -e $p && $p != */example/* ]] && build_plugins+=${build_plugins:+:}$(dirname "$p")
	done
	sg_bin=$inst_bin sg_libdir=$inst_lib
	unset SPYGLASS_PLUGIN_PATH DEBUGINFOD_URLS

	inst_plugin_names=$(plugins_of installed)
	build_plugin_names=$(plugins_of build)
	[[ " $inst_plugin_names " == *" $plugin "* ]] ||
		die "the installed spyglass loads no $plugin plugin (plugins: ${inst_plugin_names:-none})"
}

# plugins_of installed|build: the names of the plugins that spyglass loads
# (after bench_install).
plugins_of() {
	local out
	if [[ $1 == installed ]]; then
		out=$(LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			timeout 10 "$inst_bin" -nx -batch -ex 'plugin list' 2>&1) || true
	else
		out=$(LD_LIBRARY_PATH=$build_lib SPYGLASS_PLUGIN_DIR=$tmp/no-plugins \
			SPYGLASS_PLUGIN_PATH=$build_plugins \
			timeout 10 "$build_bin" -nx -batch -ex 'plugin list' 2>&1) || true
	fi
	awk '/^[a-z]/ { printf "%s%s", sep, $1; sep = " " }' <<<"$out"
}
