#!/bin/bash
# Attaching: every thread seized and listed, modules with build IDs and
# DWARF, the target left running; threads born during the attach.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

sg -p "$pid" -ex 'info threads'
ok $STATUS "info threads succeeds${ERR:+: $ERR}"
nthreads=$(printf '%s\n' "$OUT" | grep -c ' LWP ')
is "$nthreads" "$(ls /proc/$pid/task | wc -l)" "one line per task in /proc/PID/task"
like "$OUT" '^\* 1    LWP '"$pid"' "sg-threads" ' "thread 1 is the leader, selected"
for name in sleeper-0 reader-1 waiter-2; do
	tid=$(grep -l "^$name\$" /proc/$pid/task/*/comm | cut -d/ -f5)
	like "$OUT" "LWP $tid \"$name\" +S +0x[0-9a-f]{16} in " "thread $name: tid, name, state, pc"
done
like "$OUT" '"sleeper-0" +S +0x[0-9a-f]+ in clock_nanosleep \(\) from .*libc\.so\.6' "sleeper is in clock_nanosleep in libc"
like "$OUT" '"reader-1" +S +0x[0-9a-f]+ in read \(\) from .*libc\.so\.6' "reader is in read"
like "$OUT" '"sg-threads" +S +0x[0-9a-f]+ in pause \(\) from .*libc\.so\.6' "main thread is in pause"
check_running "$pid" "target runs after info threads"

if have_gdb; then
	gdb_lwps=$("$GDB" -nx -batch -p "$pid" -ex 'info threads' 2>/dev/null |
		grep -E '^[* ] +[0-9]+ ' | grep -o 'LWP [0-9]*' | sort)
	is "$(printf '%s\n' "$OUT" | grep -o 'LWP [0-9]*' | sort)" "$gdb_lwps" "the same LWPs as gdb's info threads"
else
	skip "gdb not installed"
fi

# Registers are read per thread: $pc of thread 2 is its frame 0's pc.
tid2=$(printf '%s\n' "$OUT" | awk '$1 == "2" { print $3 }')
sg -p "$pid" -ex 'thread 2' -ex 'info symbol $pc'
like "$OUT" "^\[Switching to thread 2 \(LWP $tid2\)\]" "thread 2 switches"
like "$OUT" "^#0  (0x[0-9a-f]{16} in )?__GI___clock_nanosleep \(.*\) at .*clock_nanosleep\.c:[0-9]+\$|^#0  0x[0-9a-f]{16} in clock_nanosleep \(\) from .*libc\.so\.6\$" "thread prints frame 0 as bt does"
like "$OUT" "in section \.text of .*libc\.so\.6$" "\$pc of thread 2 is in libc's text"
sg -p "$pid" -ex 'thread 99'
is "$ERR" "Invalid thread ID: 99" "a thread that does not exist"

# Modules: the executable, libc, ld.so and the vdso, with build IDs.
sg -p "$pid" -ex 'info sharedlibrary'
ok $STATUS "info sharedlibrary succeeds${ERR:+: $ERR}"
exe=$(readlink -f "$FIXTURES/sg-threads")
want_id=$(readelf -n "$exe" | awk '/Build ID/ { print $3 }')
like "$OUT" "^0x[0-9a-f]{16}  0x[0-9a-f]{16}  0x[0-9a-f]{16}  Yes  Yes    $want_id  $exe\$" "the executable with its build ID and DWARF"
like "$OUT" "  (No|Yes\*?) +[0-9a-f]{40}  \[vdso\]$" "the vdso"
like "$OUT" "[0-9a-f]{40}  .*/libc\.so\.6$" "libc with a build ID"
libc_start=$(awk '/libc\.so\.6/ { print $1; exit }' /proc/$pid/maps | cut -d- -f1)
like "$OUT" "^0x0*$libc_start  0x[0-9a-f]+  0x0*$libc_start  .*libc\.so\.6$" "libc's range starts at its first mapping, bias = start"
libc_id=$(printf '%s\n' "$OUT" | awk '/libc\.so\.6$/ { print $(NF-1) }')
if [ -e "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
	like "$OUT" "Yes  Yes\*  +$libc_id  .*libc\.so\.6$" "libc's DWARF comes from its separate debug file"
else
	skip "libc6-dbg is not installed: no separate debug file to find"
fi

if have_gdb; then
	# gdb lists the shared libraries by their link_map names; we list what
	# /proc/PID/maps names.  On merged-/usr Debian the two differ only by
	# the /lib -> /usr/lib link, so compare real paths.
	gdb_libs=$("$GDB" -nx -batch -p "$pid" -ex 'info sharedlibrary' 2>/dev/null |
		awk '/^0x/ { print $NF }' | xargs -r readlink -f | sort)
	our_libs=$(printf '%s\n' "$OUT" | awk '/^0x/ && $NF != "[vdso]" && $NF != "'"$exe"'" { print $NF }' |
		xargs -r readlink -f | sort)
	is "$our_libs" "$gdb_libs" "the same shared libraries as gdb"
fi
check_running "$pid" "target runs after info sharedlibrary"

# Pause time is measured and reported.
sg -p "$pid" --stats -ex 'info threads'
like "$ERR" '^stats: threads=4 attach_us=[0-9.]+ paused_us=[0-9.]+ detach_us=[0-9.]+ maxrss_kb=[0-9]+$' "--stats reports the pause"

# attach and detach as commands.
sg -ex "attach $pid" -ex 'info threads' -ex 'detach' -ex 'info threads'
like "$OUT" "^Attached to process $pid \(.*sg-threads\), 4 threads" "attach command"
like "$OUT" "^\\[Inferior 1 \\(process $pid\\) detached\\]$" "detach command: gdb's line"
like "$ERR" "^No threads\.$" "commands after detach: no target, in gdb's words (No threads.)"
check_running "$pid" "target runs after detach"
sg -ex "attach $pid" -ex "attach $pid"
is "$ERR" "already attached to process $pid" "attaching twice to the same process"

# Attaching to a thread ID takes its whole process, as gdb does.
tid=$(ls /proc/$pid/task | grep -v "^$pid\$" | head -1)
sg -p "$tid" -ex 'info threads'
like "$OUT" "^\* 1    LWP $pid " "a thread ID attaches to its process"

# A process that keeps creating threads: every attach must succeed, see the
# leader, and leave nothing stopped or traced.
start_fixture "$FIXTURES/sg-threads" 2 spawn || exit 1
spid=$FIXTURE_PID
fails=0
for i in $(seq 1 30); do
	sg -p "$spid" -ex 'info threads'
	if [ $STATUS -ne 0 ] || ! printf '%s\n' "$OUT" | grep -q "LWP $spid "; then
		fails=$((fails + 1))
		echo "# attach $i: status $STATUS: $ERR"
	fi
done
is "$fails" 0 "30 attaches to a process that keeps spawning threads"
sleep 0.1
stopped=$(for t in /proc/$spid/task/*; do awk '/^State:/ { print $2 }' $t/status 2>/dev/null; done | grep -c '[tT]')
is "$stopped" 0 "no thread of the spawning process is left stopped"
check_running "$spid" "the spawning process runs and is not traced"
done_testing
