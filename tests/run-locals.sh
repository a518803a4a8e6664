#!/bin/bash
# info locals and info args in each frame of a thread, against gdb: DWARF
# locations (frame base, CFA, registers), nested blocks, static locals.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-locals" || exit 1
pid=$FIXTURE_PID

cmds=('thread 2')
for n in 0 1 2 3; do
	cmds+=("frame $n" 'info locals' 'info args')
done
sg_cmds "$pid" "${cmds[@]}"
ok $STATUS "info locals and info args in four frames${ERR:+: $ERR}"
# Frame lines differ (gdb prints argument values and the source line);
# compare the variables.
vars() { grep -vE '^(#|\[Switching|[0-9]+[[:space:]])'; }
ours=$(printf '%s\n' "$OUT" | vars)
like "$ours" '^counter = 24$' "a local of inner"
like "$ours" '^calls = 1$' "a static local in a nested block"
like "$ours" '^label = 0x[0-9a-f]+ "outer-label"$' "a char pointer argument"
like "$ours" '^p = \{a = 7, b = 7000\}$' "a struct argument"
if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | vars)" "the same variables and values as gdb, frame by frame"
else
	skip "gdb not installed"
fi

# At -O2: values folded into constants (DW_AT_const_value), pointers to
# objects the optimizer removed (<synthetic pointer>), static locals known
# only from the abstract instance, main's frame base from a CFA beyond the
# past-main cut.  Every frame's locals and arguments against gdb, with two
# known differences left out: gdb does not list 'scaled' (a block-local
# constant, 12, that we show) and lists start_thread's 'out' (which has no
# location and we skip).
start_fixture "$FIXTURES/sg-locals-O2" || exit 1
opid=$FIXTURE_PID
ocmds=('thread 1' 'frame 1' 'info locals' 'info args' 'thread 2')
for n in 0 1 2 3 4; do
	ocmds+=("frame $n" 'info locals' 'info args')
done
sg_cmds "$opid" "${ocmds[@]}"
ours=$(printf '%s\n' "$OUT" "$ERR" | vars | grep -vE '^(scaled|out) = ')
like "$ours" '^counter = 24$' "-O2: a local folded into a constant"
like "$ours" '^label = <synthetic pointer>$' "-O2: an argument pointing at a removed object"
like "$ours" '^ts = \{tv_sec = 0, tv_nsec = 20000000\}$' "-O2: main's locals from its CFA"
if have_gdb; then
	gdb_batch "$opid" "${ocmds[@]}"
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | vars | grep -vE '^(scaled|out) = ')" \
		"-O2: the same variables and values as gdb, frame by frame"
else
	skip "gdb not installed"
fi
# main's frame address comes from beyond the past-main cut too.
sg_cmds "$opid" 'thread 1' 'frame 1' 'info frame'
if have_gdb; then
	ours=$(printf '%s\n' "$OUT" | grep '^Stack level')
	gdb_batch "$opid" 'thread 1' 'frame 1' 'info frame'
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | grep '^Stack level')" "-O2: main's frame address (CFA), as gdb's"
else
	skip "gdb not installed"
fi
check_running "$opid" "-O2 target runs"
stop_fixture "$opid"

# Entry values: an argument known only from what its caller passed
# (DW_OP_entry_value and the call site's DW_AT_call_value), printed as
# gdb does: n=n@entry=2 in frame lines, n = 2 in info args.
start_fixture "$FIXTURES/sg-entry" || exit 1
epid=$FIXTURE_PID
sg_cmds "$epid" 'bt' 'frame 1' 'info args' 'print n' 'print n + 1'
like "$OUT" '^#1  0x[0-9a-f]+ in use \(p=\.\.\., n=n@entry=2\) at ' "an entry value in the frame line"
if have_gdb; then
	# gdb_batch leaves out gdb's source lines ("18\t..."): ours too.
	sg_entry=$(printf '%s\n' "$OUT" | grep -vE '^[0-9]+[[:space:]]')
	gdb_batch "$epid" 'bt' 'frame 1' 'info args' 'print n' 'print n + 1'
	is "$sg_entry" "$GDB_OUT" "entry values as gdb prints them"
else
	skip "gdb not installed"
fi
stop_fixture "$epid"

# bt full in JSON: each frame carries its locals, values structured.
sg --json -p "$pid" -ex 'thread 2' -ex 'bt full'
if command -v jq >/dev/null; then
	is "$(printf '%s\n' "$OUT" | tail -1 |
	      jq -c '[.threads[0].frames[] | select(.function == "outer") | .locals[] | {(.name): .value}] | add')" \
		'{"pr":{"a":7,"b":7000},"name":"outer-label","result":0}' "bt full in JSON: a frame's locals"
else
	skip "jq not installed"
fi

# Expressions see the selected frame's variables before the globals.
pcmds=('thread 2' 'frame 1' 'print counter' 'print p' 'print p.b' 'print *label'
       'print &counter' 'ptype p' 'whatis p.b' 'print buf' 'up' 'print pr' 'print counter')
sg_cmds "$pid" "${pcmds[@]}"
values() { grep -E '^(\$|type|No symbol| |\})'; }
if have_gdb; then
	gdb_batch "$pid" "${pcmds[@]}"
	is "$(printf '%s\n' "$OUT" "$ERR" | values)" "$(printf '%s\n' "$GDB_OUT" | values)" \
		"print, ptype and whatis on locals and arguments match gdb"
else
	skip "gdb not installed"
fi

# bt with arguments and bt full, and the frame-arguments setting.
bcmds=('thread 2' 'bt full')
for m in scalars all none presence; do
	bcmds+=("set print frame-arguments $m" 'bt 2')
done
sg_cmds "$pid" "${bcmds[@]}"
ok $STATUS "bt full and frame-arguments modes${ERR:+: $ERR}"
like "$OUT" '^#1  0x[0-9a-f]+ in inner \(depth=8, label=0x[0-9a-f]+ "outer-label", p=\.\.\.\) at .*sg-locals\.c:[0-9]+$' "bt shows scalar arguments and ... for structs"
if have_gdb; then
	gdb_batch "$pid" "${bcmds[@]}"
	frames() { grep -E '^(#| {8}|No locals)' | grep -Ev ' in start_thread |^        (ret|pd|out|unwind_buf|not_first_call) = '; }
	# start_thread's locals: gdb also lists one in a block that does
	# not contain the pc (see the closing note); left out on both sides.
	is "$(printf '%s\n' "$OUT" | frames)" "$(printf '%s\n' "$GDB_OUT" | frames)" \
		"bt full and each frame-arguments mode match gdb"
else
	skip "gdb not installed"
fi

sg --json -p "$pid" -ex 'thread 2' -ex 'frame 1' -ex 'info args'
if command -v jq >/dev/null; then
	is "$(printf '%s\n' "$OUT" | tail -1 | jq -r '[.args[].name] | join(",")')" "depth,label,p" "info args in JSON"
else
	skip "jq not installed"
fi
sg -p "$pid" -ex 'thread 1' -ex 'frame 0' -ex 'info args'
is "$(printf '%s\n' "$OUT" | tail -1)$ERR" "No arguments." "a frame without arguments"
check_running "$pid" "target runs"

# glibc's system call wrappers, out-of-line copies of inlined code: the
# blocks they did not keep live only in the abstract tree, with no code,
# and gdb lists their variables <optimized out> (__libc_read's
# sc_cancel_oldtype, resultvar, __arg1...).  Compared as sets: within a
# block gdb lists in its symbol hash's order.
start_fixture "$FIXTURES/bt-c-O0" || exit 1
bpid=$FIXTURE_PID
bcmds=()
for th in 3 8; do
	bcmds+=("thread $th" 'frame 0' 'info locals' 'info args')
done
sg_cmds "$bpid" "${bcmds[@]}"
ours=$(printf '%s\n' "$OUT" | vars | sort)
like "$ours" '^resultvar = <optimized out>$' "a variable of a block with no code is listed"
if have_gdb; then
	gdb_batch "$bpid" "${bcmds[@]}"
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | vars | sort)" \
		"read and poll wrappers: the same variables as gdb"
else
	skip "gdb not installed"
fi
stop_fixture "$bpid"
done_testing
