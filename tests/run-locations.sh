#!/bin/bash
# Variables of optimized code (gcc and clang -O2, PIE and not) against gdb
# on the same process: arguments known only as entry values of entry
# values (a recursion: DW_OP_entry_value in the call sites'
# DW_AT_call_value, resolved frame after frame up to main), an address in
# a DWARF expression (relocated in PIE), no entry value through a call
# whose target the call site does not name (a volatile function pointer),
# and the functions below a signal frame.  Not compared: the variables of
# the frames below the signal frame (gdb knows __pthread_kill_internal's
# arguments and entry values in __pthread_kill_implementation that we do
# not), and clang's on_signal (gdb shows sig from frame 0's rdi, a
# call-clobbered register, which it takes as unchanged).  Then clang's
# DWARF 5 at -O0 and -O2: static locals and location lists whose
# addresses are DW_OP_addrx indices into .debug_addr.  Then gcc's typed
# DWARF stack: floating values from entry values in xmm registers.
. "$top_srcdir/tests/test-subr.sh"

# Frame lines without the #N and the source line gdb prints after them.
frames() { grep -E '^#' | sed -E 's/^#[0-9]+ +//'; }
vars() { grep -vE '^(#|\[Switching|[0-9]+[[:space:]])'; }

cmds=('thread 1' 'bt')
for n in 2 3 4 5 6; do
	cmds+=("frame $n" 'info args' 'info locals')
done
cmds+=('thread 2' 'bt' 'frame 2' 'info args' 'info locals')

# The values come from the library's location engine (sg_stack_locate,
# sg_stack_entry_value); lib/eval-locals.c must use it.
if ! grep -q sg_stack_locate "$top_srcdir/lib/eval-locals.c"; then
	skip "lib/eval-locals.c does not use sg_stack_locate yet"
	done_testing
fi

for v in gcc-nopie gcc-pie clang-nopie clang-pie; do
	if [ "$(head -c 2 "$FIXTURES/locations-$v")" = '#!' ]; then
		skip "$v: compiler not installed"
		continue
	fi
	start_fixture "$FIXTURES/locations-$v" || exit 1
	pid=$FIXTURE_PID
	sg_cmds "$pid" "${cmds[@]}"
	ok $STATUS "$v: bt, info args and info locals${ERR:+: $ERR}"
	ours=$OUT
	if ! have_gdb; then
		skip "$v: gdb not installed"
		stop_fixture "$pid"
		continue
	fi
	gdb_batch "$pid" "${cmds[@]}"
	theirs=$GDB_OUT
	# The recursion's arguments, main's and the global's address (PIE).
	like "$(printf '%s\n' "$ours" | frames)" 'rec \(n=n@entry=4, c=(c@entry=)?98 .b., p=p@entry=0x[0-9a-f]+ <global_a>\)' \
		"$v: entry values of entry values in a frame line"
	is "$(printf '%s\n' "$ours" | frames)" "$(printf '%s\n' "$theirs" | frames)" \
		"$v: the frame lines of two threads, as gdb's"
	is "$(printf '%s\n' "$ours" | vars)" "$(printf '%s\n' "$theirs" | vars)" \
		"$v: info args and info locals, as gdb's"
	# Below the signal frame: the same functions, no tail-call frame
	# inferred under the interrupted one (it made no call).
	sg_cmds "$pid" 'thread 3' 'bt'
	gdb_batch "$pid" 'thread 3' 'bt'
	names() { grep -E '^#' | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?//; s/ .*//'; }
	is "$(printf '%s\n' "$OUT" | names)" "$(printf '%s\n' "$GDB_OUT" | names)" \
		"$v: the functions below a signal frame, as gdb's"
	stop_fixture "$pid"
done

# DWARF 5 (clang): static locals, and location lists, whose addresses are
# DW_OP_addrx indices into .debug_addr.
for v in O0 O2; do
	if [ "$(head -c 2 "$FIXTURES/locations-dw5-$v")" = '#!' ]; then
		skip "dw5-$v: clang not installed"
		continue
	fi
	start_fixture "$FIXTURES/locations-dw5-$v" || exit 1
	pid=$FIXTURE_PID
	cmds=('frame 2' 'info args' 'info locals' 'print calls' 'print total')
	# At -O2 name is optimized out: gdb prints the value <optimized out>.
	[ $v = O0 ] && cmds+=('print name' 'print *handle' 'print handle')
	sg_cmds "$pid" "${cmds[@]}"
	ok $STATUS "dw5-$v: info args, info locals, print${ERR:+: $ERR}"
	ours=$OUT
	like "$ours" 'calls = 6' "dw5-$v: a static local located by DW_OP_addrx"
	if ! have_gdb; then
		skip "dw5-$v: gdb not installed"
		stop_fixture "$pid"
		continue
	fi
	gdb_batch "$pid" "${cmds[@]}"
	is "$(printf '%s\n' "$ours" | vars)" "$(printf '%s\n' "$GDB_OUT" | vars)" \
		"dw5-$v: static locals, arguments and locals, as gdb's"
	stop_fixture "$pid"
done

# The typed DWARF stack (gcc -O1, -O2): float, double and long double
# locals computed from entry values passed in xmm registers.
for v in O1 O2; do
	start_fixture "$FIXTURES/locations-typed-$v" || exit 1
	pid=$FIXTURE_PID
	cmds=('frame 2' 'info args' 'info locals')
	sg_cmds "$pid" "${cmds[@]}"
	ok $STATUS "typed-$v: info args, info locals${ERR:+: $ERR}"
	ours=$OUT
	like "$(printf '%s\n' "$ours" | frames)" 'f \(x=x@entry=1.5, y=y@entry=2.25, z=3.5, i=i@entry=7\)' \
		"typed-$v: floating entry values in the frame line"
	like "$ours" 'l3 = 4.5' "typed-$v: a long double from a converted entry value"
	if ! have_gdb; then
		skip "typed-$v: gdb not installed"
		stop_fixture "$pid"
		continue
	fi
	gdb_batch "$pid" "${cmds[@]}"
	is "$(printf '%s\n' "$ours" | vars)" "$(printf '%s\n' "$GDB_OUT" | vars)" \
		"typed-$v: arguments and locals, as gdb's"
	stop_fixture "$pid"
done
done_testing
