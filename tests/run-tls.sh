#!/bin/bash
# Thread-local variables against gdb on the same process: the
# executable's (its module ID is 1), a static one, an array, and libc's
# errno (a library: its module ID read from the dynamic linker's
# link_map, whose layout comes from ld.so's DWARF), in each of two
# threads that set them differently; print, output, & and x.  gdb finds
# them through libthread_db; spyglass through the thread's DTV.  Then a
# function's static thread-local, located by its frame.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb not installed: thread-local variables have no oracle"
	done_testing
fi

start_fixture "$FIXTURES/sg-tls" || exit 1
pid=$FIXTURE_PID
cmds=()
for th in 1 2; do
	cmds+=("thread $th" 'print tls_var' 'print stls' 'print big_tls' 'print big_tls[2]'
		'print errno' 'output tls_var' 'x/d &tls_var' 'print *&stls')
done
cmds+=('thread 1' 'frame function main' 'info locals' 'print mtl' 'print &mtl == &mtl')
args=()
for c in "${cmds[@]}"; do
	args+=(-ex "echo (cmd) $c\n" -ex "$c")
done
keep() { grep -E '^(\(cmd\) print|\(cmd\) output|\(cmd\) x|\(cmd\) info|\$[0-9]|0x[0-9a-f]+:|[0-9-]+\(cmd\)|mtl = |th = )'; }
theirs=$("$GDB" -nx -batch -p "$pid" "${args[@]}" 2>&1 | keep)
sg -p "$pid" "${args[@]}"
ok $STATUS "print, output and x of thread-local variables${ERR:+: $ERR}"
ours=$(printf '%s\n' "$OUT" | keep)
is "$ours" "$theirs" "thread-local variables in two threads, as gdb reads them"
like "$ours" '\$5 = 5' "  errno of thread 1 is libc's, 5"
like "$ours" '\$11 = 11' "  errno of thread 2 is 11"
like "$ours" '^mtl = 22$' "  main's static thread-local in info locals, through its frame's location"
# Addresses: & of a thread-local variable differs between the threads.
sg -p "$pid" -ex 'print &tls_var' -ex 'thread 2' -ex 'print &tls_var'
a1=$(printf '%s\n' "$OUT" | sed -n 's/^\$1 = (int \*) \(0x[0-9a-f]*\).*/\1/p')
a2=$(printf '%s\n' "$OUT" | sed -n 's/^\$2 = (int \*) \(0x[0-9a-f]*\).*/\1/p')
ok $([ -n "$a1" ] && [ -n "$a2" ] && [ "$a1" != "$a2" ]; echo $?) \
	"&tls_var is the thread's own ($a1, $a2)"
stop_fixture "$pid"
done_testing
