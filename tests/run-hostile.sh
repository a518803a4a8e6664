#!/bin/bash
# Hostile input to the shell: what an operator, a script or a fuzzer may
# type.  Each gives one clear error line and a non-zero exit, never a
# crash, a hang or unbounded memory.
. "$top_srcdir/tests/test-subr.sh"

# rep STRING N: STRING N times.
rep() { printf "%${2}s" '' | sed "s/ /$1/g"; }

start_fixture "$FIXTURES/sg-threads" 1 || exit 1
pid=$FIXTURE_PID

# The expression parser is a recursive descent: deep nesting is refused
# at a fixed depth instead of overflowing the stack.
sg -p "$pid" -ex "print $(rep - 22000)1"
is "$STATUS:$OUT:$ERR" "1::expression nested too deeply (more than 256 levels)" \
	"22,000 unary minus signs: one error line"
sg -p "$pid" -ex "print $(rep '(' 30000)1$(rep ')' 30000)"
is "$STATUS:$OUT:$ERR" "1::expression nested too deeply (more than 256 levels)" \
	"30,000 parentheses: one error line"
sg -p "$pid" -ex "print $(rep '(' 200)-1$(rep ')' 200) + $(rep '-' 50)2"
is "$STATUS:$OUT:$ERR" '0:$1 = 1:' "200 parentheses and 50 minus signs still evaluate"
check_running "$pid" "target running after the refused expressions"

done_testing
