# Shared helpers for the run-*.sh tests.  Each test is a bash script that
# prints TAP: "ok N - ..." / "not ok N - ...", then "1..N".
#
# Environment (set by make check, see tests/Makefile.inc): SPYGLASS,
# FIXTURES, top_builddir, top_srcdir, GDB.

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

cleanup() {
	local p
	for p in "${fixture_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
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

# like GOT REGEX DESCRIPTION: extended regular expression match.
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
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
	return 0
}

# Run spyglass in batch mode without init files.  Output in $OUT, errors in
# $ERR, status in $STATUS.
sg() {
	OUT=$("$SG_BIN" -nx -batch "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

# The scheduler state letter of PID (R, S, T, t, ...).
proc_state() {
	awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

tracer_of() {
	awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null
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
