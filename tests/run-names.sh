#!/bin/bash
# The names of frames against gdb's, on the same live process: every thread
# of tests/fixtures/sg-names.cc (member functions of class templates,
# std::thread and std::function frames, lambdas, anonymous, named and
# nested namespaces, GCC's .part and .constprop clones, tail calls), built
# by g++ and clang++ (DWARF 5) at -O0 and -O2, and by g++ at -O2 without
# DWARF (frames named by the symbol table: "void std::__invoke_impl<...>(...)",
# "work::nap(int) [clone .part.0]").
#
# Compared: "thread apply all bt" and a plain "bt" in each thread, then
# "info locals" in the frames of the clones.  gdb's output is normalised
# exactly as tests/run-bt.sh does (its bt_normalise, read from that script:
# see its header comment): argument lists are dropped, "from" paths
# compared as real paths.  Everything else must be gdb's: the names with
# their scopes, "(anonymous namespace)::", gdb's "operator()" for a GCC
# lambda, the parameters gdb keeps on names its C++ parser cannot read
# ("std::function<int (int)>::operator()(int) const"), clang's inlined
# frames, tail-call frames, frame numbers, addresses, files and lines.
. "$top_srcdir/tests/test-subr.sh"

eval "$(sed -n '/^bt_normalise() {$/,/^}$/p' "$top_srcdir/tests/run-bt.sh")"
if ! declare -F bt_normalise >/dev/null; then
	echo "Bail out! no bt_normalise in tests/run-bt.sh"
	exit 1
fi

if ! have_gdb; then
	echo "# gdb is not installed: nothing to compare the names with"
	skip "gdb is not installed"
	done_testing
	exit 0
fi

PM=(-ex 'set backtrace past-main on')

# run_both PID ARGS...: gdb's and spyglass's output for the same commands,
# errors included, in $testdir/gdb.out and $testdir/sg.out.
run_both() {
	local pid=$1
	shift
	timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${PM[@]}" "$@" >"$testdir/gdb.out" 2>&1
	OUT=$(timeout -k 5 120 "$SG_BIN" -nx -batch -p "$pid" "${PM[@]}" "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
	# gdb's errors are in its output too.
	printf '%s\n' "$OUT" "$ERR" >"$testdir/sg.out"
}

# section FILE N: the lines after "@@ N" up to the next "@@".
section() {
	awk -v n="$2" '/^@@ / { on = ($2 == n); next } on' "$1"
}

# Answers to "info locals", without the lines that selecting a thread and
# a frame print.
locals_only() {
	grep -vE '^\[|^#[0-9]|^[0-9]+[[:space:]]|^0x[0-9a-f]+ in |^Using host|^warning: ' "$1"
}

check_variant() {
	local v=$1 pid tid name n
	if ! start_fixture "$FIXTURES/$v"; then
		if grep -q 'no clang++' "$testdir/fixture.$fixture_runs" 2>/dev/null; then
			skip "$v: clang++ is not installed"
		else
			ok 1 "$v starts"
		fi
		return
	fi
	pid=$FIXTURE_PID

	# thread apply all bt, then a bt in each thread.
	local nthreads cmds=(-ex 'thread apply all bt')
	nthreads=$(ls "/proc/$pid/task" | wc -l)
	for n in $(seq 1 "$nthreads"); do
		cmds+=(-ex "thread $n" -ex "echo @@ $n\\n" -ex 'bt')
	done
	run_both "$pid" "${cmds[@]}"
	ok $STATUS "$v: the backtraces succeed${ERR:+: $ERR}"
	awk '/^@@ /{exit} {print}' "$testdir/gdb.out" | bt_normalise "$testdir/gdb"
	awk '/^@@ /{exit} {print}' "$testdir/sg.out" | bt_normalise "$testdir/sg"
	is "$(cat "$testdir/sg/headers")" "$(cat "$testdir/gdb/headers")" "$v: thread headers as gdb's"
	for tid in $(cat "$testdir/gdb/tids"); do
		name=$(sed -n "s/^Thread [0-9]* (LWP $tid \"\(.*\)\"):\$/\1/p" "$testdir/gdb/headers")
		is "$(cat "$testdir/sg/$tid.lines" 2>/dev/null)" "$(cat "$testdir/gdb/$tid.lines")" \
			"$v: thread apply all bt: thread $name as gdb's"
	done
	for n in $(seq 1 "$nthreads"); do
		section "$testdir/gdb.out" "$n" | grep '^#' | bt_normalise "$testdir/gdb1"
		section "$testdir/sg.out" "$n" | grep '^#' | bt_normalise "$testdir/sg1"
		is "$(cat "$testdir/sg1/0.lines" 2>/dev/null)" "$(cat "$testdir/gdb1/0.lines")" \
			"$v: bt in thread $n as gdb's"
	done

	# The clones' frames: work::nap in "part" (nap.part.0 with GCC -O2,
	# reached by a jump from nap's test), work::hold in "clone"
	# (hold.constprop.0, reached by a tail call from work::snooze).
	local who fn level tnum
	for who in part:work::nap clone:work::hold clone:work::snooze; do
		fn=${who#*:}
		tnum=$(sed -n "s/^Thread \([0-9]*\) (LWP [0-9]* \"${who%%:*}\"):\$/\1/p" "$testdir/gdb/headers")
		tid=$(sed -n "s/^Thread [0-9]* (LWP \([0-9]*\) \"${who%%:*}\"):\$/\1/p" "$testdir/gdb/headers")
		# Without DWARF: "work::nap(int) [clone .part.0]".
		level=$(grep -n "^$fn\(\$\|(\)" "$testdir/gdb/$tid.names" 2>/dev/null | head -1 | cut -d: -f1)
		if [ -z "$tnum" ] || [ -z "$level" ]; then
			# snooze is a frame of its own only where a tail call
			# left it out of the stack.
			[ "$fn" = work::snooze ] && continue
			ok 1 "$v: gdb shows $fn in thread ${who%%:*}"
			continue
		fi
		level=$((level - 1))
		run_both "$pid" -ex "thread $tnum" -ex "frame $level" -ex 'info locals'
		is "$(locals_only "$testdir/sg.out")" "$(locals_only "$testdir/gdb.out")" \
			"$v: info locals in $fn (thread ${who%%:*}, frame $level) as gdb's"
	done
	stop_fixture "$pid"
}

for v in names-gcc-O0 names-gcc-O2 names-gcc-O2-nodebug names-clang-O0 names-clang-O2; do
	check_variant "$v"
done

done_testing
