#!/bin/bash
# thread apply: gdb's thread lists ("1-2 3"), all and -ascending, and its
# flags -q, -c and -s, against gdb on the same process; the exit status of
# a batch run as gdb's (without -c or -s an error fails the command).
. "$top_srcdir/tests/test-subr.sh"

have_gdb || { skip "gdb is not installed: no oracle"; done_testing; exit 0; }
start_fixture "$FIXTURES/sg-threads" 2 || exit 1
pid=$FIXTURE_PID

# gdb names a thread by its pthread too: "Thread 2 (Thread 0x7f.. (LWP
# 4243) "name"):"; spyglass's line is "Thread 2 (LWP 4243 "name"):".
gdb_line() {
	sed -E 's/\(Thread 0x[0-9a-f]+ \(LWP ([0-9]+)\)( "[^"]*")?\)/(LWP \1\2)/'
}

cmds=('thread apply all print nosuch' 'thread apply all -c print nosuch' 'thread apply all -s print nosuch'
      'thread apply all -q print 1' 'thread apply 1-2 print 2' 'thread apply 1 3 -q print 3'
      'thread apply all -ascending -q print $_thread' 'thread apply 2-1 print 1'
      'thread apply all -s -q frame function main' 'thread apply all -x print 1'
      'thread apply 1 7 -q print 7' 'thread apply all -q -c print $_thread / ($_thread - 2)')
for c in "${cmds[@]}"; do
	mine=$(timeout -k 5 120 "$SG_BIN" -nx -batch -p "$pid" -ex "$c" 2>&1)
	mst=$?
	theirs=$(timeout -k 5 120 "$GDB" -nx -batch -p "$pid" -ex "$c" 2>&1 | gdb_line |
		grep -vE '^\[(New LWP|Thread debugging|Inferior .* detached)|^Using host libthread_db|^0x[0-9a-f]+ in |: No such file or directory\.$')
	gst=$("$GDB" -nx -batch -p "$pid" -ex "$c" >/dev/null 2>&1; echo $?)
	is "$mine" "$theirs" "$c: as gdb's"
	is "$mst" "$gst" "$c: exit status $gst, as gdb's"
done

# A typo's huge ID or range is refused at once, not looped over.
for c in 'thread apply 18446744073709551615 print 1' 'thread apply 99999999999999999999 print 1' \
	 'thread apply 1-4000000000 print 1'; do
	start=$SECONDS
	sg -p "$pid" -ex "$c"
	ok $((STATUS != 0 && SECONDS - start < 20 && $(wc -l <<<"$ERR") == 1 ? 0 : 1)) \
		"$c: one error line at once ($ERR)"
done

sg --json -p "$pid" -ex 'thread apply 2-3 -c print nosuch'
is "$(jq -c '[.threads[] | .id]' <<<"$OUT")" '[2,3]' "--json: the threads of a range"
like "$(jq -r '.threads[0].error' <<<"$OUT")" 'No symbol "nosuch"' "--json: each thread's error"

check_running "$pid" "the fixture runs after the tests"
done_testing
