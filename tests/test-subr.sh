# Shared helpers for the run-*.sh tests.  Each test is a bash script that
# prints TAP: "ok N - ..." / "not ok N - ...", then "1..N".
#
# Environment (set by make check, see tests/Makefile.inc): SPYGLASS,
# FIXTURES, top_builddir, top_srcdir, GDB; SPYGLASS_WRAPPER (optional, see
# below and bench/valgrind.sh).

set -u

: "${top_builddir:?run through make check}"
: "${FIXTURES:=$top_builddir/tests/fixtures}"

tap_n=0
tap_failed=0
fixture_pids=()

# The real binary, not libtool's wrapper script, so that $! and the
# tracer's pid are spyglass itself.
SG_BIN=$top_builddir/shell/.libs/spyglass
[ -x "$SG_BIN" ] || SG_BIN=$top_builddir/shell/spyglass
export LD_LIBRARY_PATH=$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

testdir=$top_builddir/tests/tmp/$(basename "$0" .sh).$$
mkdir -p "$testdir"

# SPYGLASS_WRAPPER runs every spyglass of the tests under another program
# ("valgrind -q ..."): SG_BIN becomes a script that execs it, so that $!
# is still the tracer.  SPYGLASS_TEST names the script, for the wrapper's
# log files (valgrind's --log-file=...%q{SPYGLASS_TEST}...).  A test that
# kills spyglass on purpose exports SG_KILLS=1: SPYGLASS_WRAPPER_KILLED
# then follows the wrapper's arguments (valgrind's --leak-check=no, as
# what a process killed mid-way holds in its registers is not a leak).
export SPYGLASS_TEST=$(basename "$0" .sh)
if [ -n "${SPYGLASS_WRAPPER:-}" ]; then
	printf '#!/bin/sh\nexec %s ${SG_KILLS:+%s} %q "$@"\n' "$SPYGLASS_WRAPPER" \
		"${SPYGLASS_WRAPPER_KILLED:-}" "$SG_BIN" >"$testdir/spyglass"
	chmod +x "$testdir/spyglass"
	SG_BIN=$testdir/spyglass
fi

# wrapped: spyglass runs under SPYGLASS_WRAPPER, many times slower; tests
# of time budgets skip then, with skip_wrapped WHAT.
wrapped() {
	[ -n "${SPYGLASS_WRAPPER:-}" ]
}
skip_wrapped() {
	skip "under SPYGLASS_WRAPPER: $*"
}
# The command name (/proc/PID/comm) of a tracer that is spyglass, as a
# regular expression: the wrapper's own under a wrapper.
SG_COMM_RE='(lt-)?spyglass'
wrapped && SG_COMM_RE='[^()]+'

# No file a test writes comes near 4 GiB; a core of a sanitized process
# (ASan's shadow memory) would fill the disk instead of failing.
ulimit -f $((4 << 20)) 2>/dev/null

sg_pids=()	# spyglass processes started in the background

# our_child PID: PID is still a child of this script.  pid_max is 32768
# here and a test run starts thousands of processes: a PID reaped long
# ago may now be another test's (CI saw run-gcc-printers killed so).
our_child() {
	[ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]
}

cleanup() {
	local p
	for p in "${sg_pids[@]}" "${fixture_pids[@]}"; do
		our_child "$p" && kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$testdir"
} 2>/dev/null
trap cleanup EXIT

ok() {	# ok STATUS DESCRIPTION...; STATUS 0 is a pass
	local status=$1
	shift
	tap_n=$((tap_n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $tap_n - $*"
	else
		echo "not ok $tap_n - $*"
		tap_failed=$((tap_failed + 1))
	fi
}

# is GOT WANT DESCRIPTION: exact string comparison, with a diff on failure.
is() {
	if [ "$1" == "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$1") | sed 's/^/#   /' | head -40
	fi
}

# like GOT REGEX DESCRIPTION: extended regular expression match.  A REGEX
# with newlines matches across lines (as a Perl regex over GOT as one
# record, ^ and $ at line ends): grep -E would take each of its lines as a pattern
# of its own, and an empty one matches anything.
like() {
	local found
	if [[ $2 == *$'\n'* ]]; then
		printf '%s\n' "$1" | grep -Pzq -- "(?m)${2//$'\n'/\\n}"
	else
		printf '%s\n' "$1" | grep -Eq -- "$2"
	fi
	found=$?
	if [ $found = 0 ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   wanted /$2/ in:"
		printf '%s\n' "$1" | head -20 | sed 's/^/#     /'
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - # SKIP $*"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
	exit $?
}

# sg_cmds PID COMMAND...: spyglass on PID with each COMMAND as an -ex.
sg_cmds() {
	local pid=$1 args=() c
	shift
	for c in "$@"; do
		args+=(-ex "$c")
	done
	sg -p "$pid" "${args[@]}"
}

# Start a fixture program in the background and wait for its "ready PID"
# line.  Sets FIXTURE_PID.
fixture_runs=0
fifo_runs=0	# for the tests' own FIFO names
start_fixture() {
	# A new name each time: a repeated $RANDOM would find an earlier
	# fixture's "ready" line.
	fixture_runs=$((fixture_runs + 1))
	local out=$testdir/fixture.$fixture_runs
	"$@" >"$out" 2>&1 &
	local pid=$!
	fixture_pids+=("$pid")
	local i
	for i in $(seq 1 200); do
		if grep -q '^ready' "$out" 2>/dev/null; then
			FIXTURE_PID=$pid
			return 0
		fi
		sleep 0.025
	done
	echo "# fixture $* did not become ready"
	cat "$out" | sed 's/^/#   /'
	return 1
}

# wait_for SECONDS COMMAND...: poll COMMAND every 20 ms until it succeeds;
# fail after SECONDS.
wait_for() {
	local n=$(($1 * 50))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.02
	done
}

stop_fixture() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	# Reaped: its PID may be given to another process.
	local p keep=()
	for p in "${fixture_pids[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	fixture_pids=(${keep[@]+"${keep[@]}"})
	return 0
}

# Run spyglass in batch mode without init files.  Output in $OUT, errors in
# $ERR, status in $STATUS (124 if it ran 5 minutes: a hang is a failure
# of the check, not of the whole run).
sg() {
	OUT=$(timeout -k 5 300 "$SG_BIN" -nx -batch "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

# The scheduler state letter of PID (R, S, T, t, ...).
proc_state() {
	awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# wait_sleeping PID: wait (10 s at most) until PID's main thread blocks in
# a sleep (clock_nanosleep, nanosleep, select, pselect6: time.sleep in
# every Python).  A fixture that signals "ready" just before its sleep
# may still be running the lines between: a stack taken then has the
# wrong line.
wait_sleeping() {
	local n=500 nr
	while [ $n -gt 0 ]; do
		read -r nr _ <"/proc/$1/syscall" 2>/dev/null || return 1
		case $nr in 230 | 35 | 23 | 270) return 0 ;; esac
		n=$((n - 1))
		sleep 0.02
	done
	echo "# process $1 did not reach its sleep"
	return 1
}

tracer_of() {
	awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

traced_by() {	# traced_by PID TRACER
	[ "$(tracer_of "$1")" = "$2" ]
}

gone_or_zombie() {
	local st
	st=$(proc_state "$1")
	[ -z "$st" ] || [ "$st" = Z ]
}

# The threads of PID that are stopped or traced, as " TID:STATE:tracer=T"
# each; one awk for them all, as a target may have a thousand.
held_threads() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^State:/ { s = $2 } /^Pid:/ { p = $2 }
		     /^TracerPid:/ { if (s == "T" || s == "t" || $2 != 0) printf " %s:%s:tracer=%s", p, s, $2 }'
}

# ok if no thread of PID is stopped or traced (check_running only looks at
# the leader; a thread left in a ptrace stop would hang the process too).
check_threads() {
	local bad
	bad=$(held_threads "$1")
	if [ -z "$bad" ]; then
		ok 0 "$2"
	else
		ok 1 "$2"
		echo "#   stopped or traced threads:$bad"
	fi
}

show_stderr() {
	[ -s "$1" ] && sed 's/^/#   stderr: /' "$1"
	return 0
}

# Start spyglass reading commands from a FIFO, attached to PID unless it
# is empty: it blocks in its read of stdin, attached.  Opening the FIFO
# read-write never blocks and spyglass never sees EOF, and no helper
# process (like the "sleep" of a pipeline) is left behind.  Its first
# command touches a file: once that exists, the attach is complete (every
# thread stopped) and spyglass waits for more.  Usage:
# start_blocked_spyglass TAG [PID]; PID defaults to $pid.  Sets SG_PID,
# SG_FIFO, SG_ERRF and SG_READY.
start_blocked_spyglass() {
	local target=${2-$pid}
	SG_FIFO=$testdir/stdin.$1
	SG_ERRF=$testdir/stderr.$1
	SG_READY=$testdir/ready.$1
	mkfifo "$SG_FIFO" || return 1
	"$SG_BIN" -nx ${target:+-p "$target"} <>"$SG_FIFO" >"$testdir/stdout.$1" 2>"$SG_ERRF" &
	SG_PID=$!
	sg_pids+=("$SG_PID")
	printf 'shell touch %s\n' "$SG_READY" >"$SG_FIFO"
}

# attached PID: spyglass $SG_PID traces PID and has run its first command.
attached() {
	[ -e "$SG_READY" ] && traced_by "$1" "$SG_PID"
}

# ok if PID is alive, not stopped and not traced.
check_running() {
	local st tr
	st=$(proc_state "$1")
	tr=$(tracer_of "$1")
	if [ -n "$st" ] && [ "$st" != T ] && [ "$st" != t ] && [ "$tr" = 0 ]; then
		ok 0 "$2 (state $st, not traced)"
	else
		ok 1 "$2 (state '${st:-gone}', tracer '${tr:-?}')"
	fi
}

# Run gdb in batch mode on PID with the given -ex commands; output in GDB_OUT.
have_gdb() {
	[ -n "${GDB:-}" ] && [ -x "$GDB" ]
}

gdb_batch() {
	local pid=$1
	shift
	local args=()
	local c
	for c in "$@"; do
		args+=(-ex "$c")
	done
	GDB_OUT=$("$GDB" -nx -batch -p "$pid" "${args[@]}" 2>&1 |
		grep -vE '^\[(New LWP|Thread debugging)|^Using host libthread_db|^[0-9]+[[:space:]]|^[0-9]+\s.*in \S+ \(.*\) (from|at) |^0x[0-9a-f]+ in |^warning: |^\[Inferior .* detached\]|^Download failed|^$|^Reading symbols|^Attaching to process|^(Reading|Downloading) ')
}
