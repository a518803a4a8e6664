#!/bin/bash
# Hostile stacks: a frame-pointer cycle and a garbage return address.  The
# walk must end with a reason, quickly, and leave the target running.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-badstack" || exit 1
pid=$FIXTURE_PID
src=tests/fixtures/sg-badstack.c

frames() {	# frames THREAD-NAME: the function names of that thread's block in $OUT
	printf '%s\n' "$OUT" | awk -v n="\"$1\"):" '
		/^Thread / { on = ($NF == n) ; next }
		on && /^#/ { sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, ""); sub(/ \(.*/, ""); print }
		on && /^Backtrace stopped/ { print }' | paste -sd, -
}

start=$(date +%s%N)
sg -p "$pid" -ex 'thread apply all bt'
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $STATUS "thread apply all bt on corrupt stacks succeeds${ERR:+: $ERR}"
ok $((ms > 5000)) "and is quick (${ms} ms)"
is "$(frames fploop)" "syscall,block_forever,fploop_leaf,fploop_thread,Backtrace stopped: previous frame identical to this frame (corrupt stack?)" \
	"a frame-pointer cycle under CFI ends where the CFA stops moving"
like "$(frames badret)" "^syscall,block_forever,badret_leaf,\?\?," "a garbage return address shows as ?? ()"
like "$OUT" $'\n#3  0x00000000deadbeef in \\?\\? \\(\\)\n' "with its address"

# A leaf that no CFI covers and that has pushed nothing, as glibc's clone3
# is after its system call: the return address is at the stack pointer,
# as gdb's prologue analysis finds.  The frame pointer would skip the
# caller.
nocfi=$(frames nocfi)
like "$nocfi" '^nocfi_leaf,nocfi_thread,start_thread,' \
	"a leaf without CFI unwinds through the return address at its stack pointer"
if have_gdb; then
	gdb_batch "$pid" 'thread apply all bt'
	is "$(OUT=$GDB_OUT frames nocfi)" "$nocfi" "a leaf without CFI: the frames gdb gives"
else
	skip "a leaf without CFI, as gdb: gdb is not installed"
fi

sg -p "$pid" -ex 'thread apply all bt -u fp'
is "$(frames fploop)" "syscall,fploop_leaf,Backtrace stopped: saved frame pointer $(printf '%s\n' "$OUT" | sed -n 's/.*saved frame pointer \(0x[0-9a-f]*\) is not above.*/\1/p' | head -1) is not above $(printf '%s\n' "$OUT" | sed -n 's/.*is not above \(0x[0-9a-f]*\)$/\1/p' | head -1)" \
	"-u fp refuses a saved frame pointer that does not move up"
like "$OUT" 'saved frame pointer (0x[0-9a-f]+) is not above \1' "the cycle names the same address twice"
is "$(frames badret)" "syscall,badret_leaf,Backtrace stopped: return address 0xdeadbeef is not in executable memory" \
	"-u fp refuses a return address outside executable memory"

sg -p "$pid" -ex 'thread apply all bt -u cfi'
is "$(frames badret)" "syscall,block_forever,badret_leaf,??,Backtrace stopped: no unwind information for pc 0xdeadbeef" \
	"-u cfi stops at a pc no module covers"

sg -p "$pid" -ex 'bt -u nosuch'
is "$ERR" "unknown unwinder \"nosuch\": use fp or cfi" "an unknown unwinder"
SPYGLASS_PLUGIN_PATH= sg -p "$pid" -ex 'bt'
like "$OUT" '^#0  syscall \(\) at ' "without unwinder plugins frame 0 still shows"
like "$OUT" 'Backtrace stopped: no unwinder is loaded \(the cfi-unwind and fp-unwind plugins\)' "and says why the stack ends there"

sg --json -p "$pid" -ex 'thread apply all bt'
if command -v jq >/dev/null; then
	is "$(jq -r '.threads[] | select(.name == "fploop") | .stop_reason' <<<"$OUT")" \
		"previous frame identical to this frame (corrupt stack?)" "the stop reason in JSON"
else
	skip "jq not installed"
fi
check_running "$pid" "target runs after unwinding corrupt stacks"
done_testing
