#!/bin/bash
# x/NFU against gdb's answers on the same process, and unreadable memory.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

cmds=(
	'x/4dw &sg_counter'
	'x/s sg_message'
	'x/2a &sg_ptr'
	'x/8cb &sg_bytes'
	'x/3dh &sg_shorts'
	'x/2xg &sg_array'
	'x/4dg &sg_array'
	'x/2ow &sg_counter'
	'x/tw &sg_counter'
	'x/8xb &sg_bytes'
	'x/3uh &sg_shorts'
	'x/2tb &sg_bytes'
	'info symbol &sg_array'
	'info address sg_counter'
)

sg_cmds "$pid" "${cmds[@]}"
ok $STATUS "spyglass ran all x commands (status $STATUS${ERR:+: $ERR})"
sg_out=$OUT

if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	# gdb's answers are the expected output, line for line.
	is "$sg_out" "$GDB_OUT" "x and info symbol/address match gdb"
else
	skip "gdb not installed: no oracle for x"
fi
check_running "$pid" "target runs after the batch"

# The fallback reader, /proc/PID/mem, gives the same answers.
SPYGLASS_MEMORY_READER=procfs sg_cmds "$pid" "${cmds[@]}"
is "$OUT" "$sg_out" "reading through /proc/PID/mem gives the same output"
SPYGLASS_MEMORY_READER=procfs sg -p "$pid" -ex 'x/2xg *&sg_bad_ptr'
is "$ERR" "Cannot access memory at address 0x10" "/proc/PID/mem: unreadable memory"

# An address inside a symbol, given as a number.
addr=$(printf '%s\n' "$sg_out" | sed -n 's/^Symbol "sg_counter" is static storage at address \(0x[0-9a-f]*\)\.$/\1/p')
inside=$(printf '0x%x' $((addr + 2)))
sg -p "$pid" -ex "info symbol $inside"
if have_gdb; then
	gdb_batch "$pid" "info symbol $inside"
	is "$OUT" "$GDB_OUT" "info symbol of an address inside a variable matches gdb"
fi
like "$OUT" "^sg_counter \+ 2 in section \.data of .*/sg-threads$" "info symbol names symbol + offset, section and file"

# gdb remembers format and address: a bare x continues.
sg -p "$pid" -ex 'x/2dw &sg_array' -ex 'x'
like "$OUT" $'<sg_array\\+8>:\t2\t0$' "bare x continues after the last address with the last format and count"

# Unreadable memory: a null pointer, a garbage pointer read from the target,
# and a read that crosses from a mapped page into an unmapped one.
sg -p "$pid" -ex 'x/4x 0'
is "$ERR" "Cannot access memory at address 0x0" "null address"
ok $((STATUS != 1)) "null address exits 1"

# x/s, as gdb's, shows the error in place of the string and goes on.
sg -p "$pid" -ex 'x/s *&sg_bad_ptr'
is "$OUT$ERR" "0x10:	<error: Cannot access memory at address 0x10>" "garbage pointer read from the target"
sg -p "$pid" -ex 'x/2xg *&sg_bad_ptr'
is "$ERR" "Cannot access memory at address 0x10" "garbage pointer with x/2xg"

# The end of a mapping that has no mapping right after it.
end=$(awk -F'[- ]' 'prev != "" && $1 != prev { print prev; exit } { prev = $2 }' "/proc/$pid/maps")
start16=$(printf '0x%x' $((0x$end - 16)))
sg -p "$pid" -ex "x/4xg $start16"
is "$ERR" "Cannot access memory at address 0x$end" "a read across the end of a mapping names the first unreadable address"

# Limits.
sg -p "$pid" -ex 'set print elements 4' -ex 'x/s sg_message'
like "$OUT" '"hell"\.\.\.$' "print elements limits x/s"
sg -p "$pid" -ex 'x/99999999xb &sg_counter'
is "$ERR" "count must be between 1 and 65536" "huge counts are refused"
sg -p "$pid" -ex 'x/4q &sg_counter'
like "$ERR" "Invalid number or format letter 'q'" "bad format letter"
sg -p "$pid" -ex 'x/x nosuch_symbol'
is "$ERR" 'No symbol "nosuch_symbol" in current context.' "unknown symbol"
sg -p "$pid" -ex 'x/xg $sp' -ex 'x/i $pc'
like "$OUT" $'\n=> 0x[0-9a-f]+ <[^>]+>:\t' "x/i shows the instruction at the pc, marked (run-disassemble compares with gdb)"
sg -p "$pid" -ex 'x/xg $nosuchreg'
is "$ERR" "Value can't be converted to integer." "an unknown register is a void convenience variable: gdb's error"

check_running "$pid" "target runs after the error cases"
done_testing
