#!/bin/bash
# Frame lines against gdb's, on the same live process, where optimized
# code made spyglass's differ (doc/difftest.md's classes bt-line and
# start-line): tests/fixtures/sg-frames.cc built by g++ -Os and -O2 with
# frame pointers (PIE and not), g++ -Os without, and clang++ -O2.
#
# - "thread apply all bt" and "thread apply all bt -u cfi": every frame
#   line of every thread as gdb's bt (arguments dropped, as
#   tests/run-bt.sh's bt_normalise does): numbers, addresses, functions,
#   files and lines.  The line of a return address inside an inlined call
#   whose rows GCC gave a discriminator is the one gdb's coalesced line
#   table gives (the inlined function's opening line); _start, below a
#   main placed in .text.startup before it (-O2 -no-pie), has no line.
# - "thread apply all bt -u fp" (frame-pointer builds): gdb has no such
#   unwinder, so each frame the walk finds at an address gdb's backtrace
#   also has must be gdb's line for it, and the walk must reach main and
#   the worker's outer().
. "$top_srcdir/tests/test-subr.sh"

# bt_normalise: tests/run-bt.sh's, read from that script.
eval "$(sed -n '/^bt_normalise() {$/,/^}$/p' "$top_srcdir/tests/run-bt.sh")"
declare -F bt_normalise >/dev/null || { echo "Bail out! no bt_normalise in tests/run-bt.sh"; exit 1; }
have_gdb || { skip "gdb is not installed: nothing to compare the frames with"; done_testing; exit 0; }

PM=(-ex 'set backtrace past-main on')
SRC=$top_srcdir/tests/fixtures/sg-frames.cc

# run_both PID ARGS...: gdb's and spyglass's output for the same commands
# in $testdir/gdb.out and $testdir/sg.out.
run_both() {
	local pid=$1
	shift
	timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${PM[@]}" "$@" >"$testdir/gdb.out" 2>&1
	timeout -k 5 120 "$SG_BIN" -nx -batch -p "$pid" "${PM[@]}" "$@" >"$testdir/sg.out" 2>"$testdir/stderr"
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

# section FILE NAME: the lines after "@@ NAME" up to the next "@@".
section() {
	awk -v n="$2" '/^@@ / { on = ($2 == n); next } on' "$1"
}

# Both threads blocked in pause() (system call 34), so that the two tools
# see the same frames.
all_paused() {
	local t s n=0
	for t in /proc/"$1"/task/*; do
		read -r s _ <"$t/syscall" 2>/dev/null || return 1
		[ "$s" = 34 ] || return 1
		n=$((n + 1))
	done
	[ "$n" = 2 ]
}

# strip_level FILE: frame lines without "#N ".
strip_level() {
	sed -E 's/^#[0-9]+ +//' "$1"
}

check_variant() {
	local v=$1 pid tid name cmds fp=0
	case $v in *-fp-*) fp=1 ;; esac
	start_fixture "$FIXTURES/$v" && pid=$FIXTURE_PID || {
		# The clang variant without clang++ says so.
		grep -q 'no clang++' "$testdir/fixture.$fixture_runs" 2>/dev/null &&
			skip "$v: clang++ is not installed" || ok 1 "$v starts"
		return
	}
	wait_for 10 all_paused "$pid"
	ok $? "$v: both threads block in pause()"

	cmds=(-ex 'echo @@ bt\n' -ex 'thread apply all bt' -ex 'echo @@ cfi\n' -ex 'thread apply all bt -u cfi')
	[ $fp = 1 ] && cmds+=(-ex 'echo @@ fp\n' -ex 'thread apply all bt -u fp')
	run_both "$pid" "${cmds[@]}"
	ok $STATUS "$v: the backtraces succeed${ERR:+: $ERR}"
	section "$testdir/gdb.out" bt | bt_normalise "$testdir/gdb"
	section "$testdir/sg.out" bt | bt_normalise "$testdir/sg"
	section "$testdir/sg.out" cfi | bt_normalise "$testdir/cfi"
	is "$(cat "$testdir/sg/headers")" "$(cat "$testdir/gdb/headers")" "$v: thread headers as gdb's"

	for tid in $(cat "$testdir/gdb/tids"); do
		name=$(sed -n "s/^Thread [0-9]* (LWP $tid \"\(.*\)\"):\$/\1/p" "$testdir/gdb/headers")
		is "$(cat "$testdir/sg/$tid.lines" 2>/dev/null)" "$(cat "$testdir/gdb/$tid.lines")" \
			"$v: bt: thread $name as gdb's"
		is "$(cat "$testdir/cfi/$tid.lines" 2>/dev/null)" "$(cat "$testdir/gdb/$tid.lines")" \
			"$v: bt -u cfi: thread $name as gdb's"
	done

	# That the fixture still shows the cases: the main thread's frame of
	# inl (GCC: its opening line, not the line of the call to leaf), and
	# _start without a line.
	local main_tid inl_line open_line
	main_tid=$pid
	open_line=$(grep -n '^template <typename T, int N> int inl' "$SRC" | cut -d: -f1)
	inl_line=$(sed -n 's/.* in inl<double, -1> () at .*:\([0-9]*\)$/\1/p' "$testdir/gdb/$main_tid.lines")
	case $v in
	frames-gcc-*)
		if [ "$inl_line" != "$open_line" ]; then
			skip "$v: gdb shows inl at line ${inl_line:-?}, not its opening line $open_line: this compiler gives the case no discriminated rows"
		else
			ok 0 "$v: gdb shows inl at its opening line (the case is exercised)"
		fi
		;;
	esac
	if [ "$v" = frames-gcc-O2-fp-nopie ]; then
		local main_addr start_addr
		main_addr=$(nm "$FIXTURES/$v" | awk '$3 == "main" { print $1 }')
		start_addr=$(nm "$FIXTURES/$v" | awk '$3 == "_start" { print $1 }')
		ok $((16#${main_addr:-0} >= 16#${start_addr:-0})) "$v: main lies before _start (the case is exercised)"
		like "$(grep ' in _start ' "$testdir/sg/$main_tid.lines")" '^#[0-9]+ +0x[0-9a-f]+ in _start \(\)$' \
			"$v: _start has no source line"
	fi

	if [ $fp = 1 ]; then
		section "$testdir/sg.out" fp | bt_normalise "$testdir/fp"
		for tid in $(cat "$testdir/gdb/tids"); do
			name=$(sed -n "s/^Thread [0-9]* (LWP $tid \"\(.*\)\"):\$/\1/p" "$testdir/gdb/headers")
			local bad
			bad=$(strip_level "$testdir/fp/$tid.lines" 2>/dev/null | awk -v g="$testdir/gdb/$tid.lines" '
				BEGIN { while ((getline l < g) > 0) { sub(/^#[0-9]+ +/, "", l)
					if (match(l, /^0x[0-9a-f]+ in /)) G[substr(l, 1, RLENGTH)] = l } }
				match($0, /^0x[0-9a-f]+ in /) { a = substr($0, 1, RLENGTH)
					if ((a in G) && G[a] != $0) print "gdb: " G[a] " || sg: " $0 }')
			is "$bad" "" "$v: bt -u fp: thread $name: the frames at gdb's addresses are gdb's"
		done
		like "$(cat "$testdir/fp/$main_tid.lines" 2>/dev/null)" ' in inl<double, -1> \(\) at .*
#[0-9]+ +main \(\) at ' "$v: bt -u fp reaches main"
		like "$(cat "$testdir/fp"/*.lines 2>/dev/null)" ' outer \(\) at ' "$v: bt -u fp reaches the worker's outer()"
	fi
	stop_fixture "$pid"
}

for v in frames-gcc-Os-fp-pie frames-gcc-O2-fp-nopie frames-gcc-Os-nofp-pie frames-clang-O2-fp-pie; do
	check_variant "$v"
done

done_testing
