#!/bin/bash
# Which variables info locals, info args and frame lines list, against gdb
# on the same process (tests/fixtures/sg-varlist.c, gcc and clang -O2):
# - an inlined call's parameters that only its abstract instance has
#   (<optimized out>), after the concrete ones, as gdb adds them;
# - a lexical block's locals in the order of gdb's hashed dictionary;
# - constants gdb leaves out of info locals (a static local folded into
#   a DW_AT_const_value of bytes);
# - a tail-call frame (glibc's __GI___futex_abstimed_wait_cancelable64
#   under pthread_cond_wait): its arguments and "No locals.";
# - print and whatis of globals folded into a DW_AT_const_value (gcc);
# - the signal trampoline's frame (a pc in glibc's unit of sigaction.c,
#   in no function): info locals "No locals.", info args "No symbol table
#   info available.", as gdb;
# - a frame in code of the fixture's unit but in none of its functions
#   (top-level asm: gcc's unit covers it, clang's does not): info locals
#   lists the unit's static then global variables and enumerators, in
#   the order of gdb's hashed static and global blocks.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb is not installed: nothing to compare with"
	done_testing
	exit 0
fi

# Wait until every thread of PID sleeps, and there are WANT (4) of them (main in pause, the others in
# pthread_cond_wait, in a SIGUSR1 handler's pause, in sg_park).
wait_sleeping() {
	local pid=$1 want=${2:-4} i t all
	for i in $(seq 1 100); do
		all=1
		for t in /proc/"$pid"/task/*; do
			[ "$(awk '{ print $3 }' "$t/stat" 2>/dev/null)" = S ] || all=0
		done
		[ "$(ls /proc/"$pid"/task | wc -l)" -ge "$want" ] && [ $all = 1 ] && return 0
		sleep 0.05
	done
	return 1
}

# The lines of OUT after the line matching REGEX up to the next frame line
# or print's answer.
after() {
	printf '%s\n' "$1" |
		awk -v re="$2" '$0 ~ re { on = 1; next } /^(#[0-9]|\$[0-9]|type = |No symbol)/ { on = 0 } on'
}

# same_as_gdb PID DESC CMD...: CMDs' output (but thread switches and frame
# 0's line) is gdb's on PID; ours in OURS.
same_as_gdb() {
	local pid=$1 desc=$2
	shift 2
	sg_cmds "$pid" "$@"
	# Our frame commands' source lines go, as gdb_batch drops gdb's.
	OURS=$(printf '%s\n' "$OUT" "$ERR" | grep -vE '^\[|^$|^#0 |^[0-9]+[[:space:]]')
	gdb_batch "$pid" "$@"
	is "$OURS" "$(printf '%s\n' "$GDB_OUT" | grep -vE '^\[|^#0 ')" "$desc"
}

check_variant() {
	local v=$1 fixture=$FIXTURES/varlist-$1-O2
	if [ "$(head -c2 "$fixture")" = "#!" ]; then
		skip "$v: $("$fixture" 2>&1)"
		return
	fi
	start_fixture "$fixture" || { ok 1 "$v: the fixture starts"; return; }
	local pid=$FIXTURE_PID
	wait_sleeping "$pid" || echo "# $v: the threads did not all sleep"
	local cmds=('thread 1' 'frame 1' 'info args' 'info locals' 'frame 2' 'info args' 'info locals'
		    'print cg_int' 'whatis cg_int' 'print cg_short' 'print cg_double' 'whatis cg_double'
		    'print cg_char' 'thread 2' 'bt')
	sg_cmds "$pid" "${cmds[@]}"
	local ours gdbs
	ours=$(printf '%s\n' "$OUT" "$ERR" | grep -vE '^\[|^$|^[0-9]+[[:space:]]')
	gdb_batch "$pid" "${cmds[@]}"
	gdbs=$(printf '%s\n' "$GDB_OUT" | grep -vE '^\[')
	# Frame 1 is leaf inlined into middle (frame 2).
	is "$(printf '%s\n' "$ours" | grep -m1 '^#1 ')" "$(printf '%s\n' "$gdbs" | grep -m1 '^#1 ')" \
		"$v: the inlined call's frame line lists every parameter, as gdb"
	is "$(after "$ours" '^#1 ')" "$(after "$gdbs" '^#1 ')" \
		"$v: info args and info locals of the inlined call, as gdb"
	is "$(after "$ours" '^#2 ')" "$(after "$gdbs" '^#2 ')" \
		"$v: a block's locals in gdb's order, constants of bytes left out, as gdb"
	like "$(after "$ours" '^#2 ')" '^alpha = ' "$v: the block's locals are listed"
	is "$(printf '%s\n' "$ours" | grep -E '^(\$[0-9]+ = |type = |No symbol)')" \
		"$(printf '%s\n' "$gdbs" | grep -E '^(\$[0-9]+ = |type = |No symbol)')" \
		"$v: print and whatis of globals folded into constants, as gdb"
	# The tail-call frame: its number in gdb's backtrace of thread 2.
	local n
	n=$(printf '%s\n' "$gdbs" | sed -n 's/^#\([0-9]*\) .*__GI___futex_abstimed_wait_cancelable64 (.*/\1/p' | head -1)
	if [ -z "$n" ]; then
		skip "$v: no tail-call frame under pthread_cond_wait in this glibc"
	else
		# (Frame 0's line, which selecting the thread prints, is
		# another matter: entry values.)
		same_as_gdb "$pid" "$v: a tail-call frame's line, arguments and locals, as gdb" \
			'thread 2' "frame $n" 'info args' 'info locals'
	fi
	# Thread 3 blocks in its SIGUSR1 handler, thread 4 in sg_park.
	gdb_batch "$pid" 'thread 3' 'bt'
	n=$(printf '%s\n' "$GDB_OUT" | sed -n 's/^#\([0-9]*\) *<signal handler called>.*/\1/p' | head -1)
	if [ -z "$n" ]; then
		ok 1 "$v: gdb shows a signal frame in thread 3"
	else
		same_as_gdb "$pid" "$v: info locals and info args in the signal trampoline's frame, as gdb" \
			'thread 3' "frame $n" 'info locals' 'info args'
	fi
	# (info args's message last: stderr comes after stdout.)
	same_as_gdb "$pid" "$v: info locals, info args and bt full in code of the unit outside its functions, as gdb" \
		'thread 4' 'info locals' 'bt full 1' 'info args'
	if [ "$v" = gcc ]; then
		like "$OURS" '(^|'$'\n'')mu = ' "$v: the unit's variables are listed"
	fi
	check_running "$pid" "$v: the fixture runs on"
	stop_fixture "$pid"
}

check_variant gcc
check_variant clang

# g++ -O0: a template instance's static local folded into an external
# DW_AT_const_value is no local of its frame for gdb, but print finds it.
start_fixture "$FIXTURES/varlist-tmpl-gcc-O0" || ok 1 "tmpl: the fixture starts"
if [ -n "${FIXTURE_PID:-}" ]; then
	wait_sleeping "$FIXTURE_PID" 1 || echo "# tmpl: the thread did not sleep"
	same_as_gdb "$FIXTURE_PID" "tmpl: info locals and print of a template's folded static local, as gdb" \
		'frame 1' 'info locals' 'print sl' 'whatis sl'
	like "$OURS" '^l0 = ' "tmpl: the frame's locals are listed"
	check_running "$FIXTURE_PID" "tmpl: the fixture runs on"
	stop_fixture "$FIXTURE_PID"
fi
done_testing
