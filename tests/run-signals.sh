#!/bin/bash
# spyglass never leaves its target stopped or traced, whatever signal ends it.
. "$top_srcdir/tests/test-subr.sh"

# SIGQUIT dumps core: keep core files out of the build tree.
ulimit -c 0 2>/dev/null
export SG_KILLS=1	# see test-subr.sh

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
nthreads=$(ls /proc/"$pid"/task | wc -l)

# Under AddressSanitizer its handler keeps SIGSEGV and SIGBUS, so that a
# crash is reported; spyglass then exits through ASan.
asan=
ldd "$SG_BIN" 2>/dev/null | grep -q libasan && asan=yes

for sig in TERM HUP INT QUIT SEGV ABRT; do
	signum=$(kill -l "$sig")
	start_blocked_spyglass "$sig"
	if wait_for 5 attached "$pid"; then
		ok 0 "SIG$sig: spyglass $SG_PID attached and waits for commands"
	else
		ok 1 "SIG$sig: spyglass $SG_PID attached and waits for commands (tracer '$(tracer_of "$pid")')"
		show_stderr "$SG_ERRF"
	fi
	echo "# target state while spyglass is attached: $(proc_state "$pid")"
	# Every thread is seized, not only the leader.
	tracers=$(cat /proc/"$pid"/task/*/status | awk '/^TracerPid:/ { print $2 }' | sort -u)
	is "$tracers" "$SG_PID" "SIG$sig: all $nthreads threads are traced by spyglass"

	kill -"$sig" "$SG_PID"
	if wait_for 5 gone_or_zombie "$SG_PID"; then
		wait "$SG_PID" 2>/dev/null
		status=$?
		if [ "$sig" = SEGV ] && [ -n "$asan" ]; then
			like "$(cat "$SG_ERRF")" "AddressSanitizer" \
				"SIGSEGV under ASan: ASan's report is not hidden (status $status)"
		else
			is "$status" "$((128 + signum))" "SIG$sig: spyglass dies of the signal (status 128+$signum)"
		fi
	else
		ok 1 "SIG$sig: spyglass exits within 5 s of SIG$sig"
		show_stderr "$SG_ERRF"
		kill -9 "$SG_PID" 2>/dev/null
		wait "$SG_PID" 2>/dev/null
	fi
	# The kernel detaches a dead tracer's tracees, but a few milliseconds
	# may pass after the tracer's exit status is reported.
	wait_for 2 traced_by "$pid" 0
	check_running "$pid" "SIG$sig: target runs and is not traced after spyglass died"
	check_threads "$pid" "SIG$sig: no thread of the target is stopped or traced"
done

# SIGKILL cannot be caught: the kernel detaches the tracees, and since
# spyglass seizes (PTRACE_SEIZE) no stop is left behind.
start_blocked_spyglass KILL
if wait_for 5 attached "$pid"; then
	ok 0 "SIGKILL: spyglass $SG_PID attached and waits for commands"
else
	ok 1 "SIGKILL: spyglass $SG_PID attached and waits for commands (tracer '$(tracer_of "$pid")')"
	show_stderr "$SG_ERRF"
fi
kill -9 "$SG_PID"
wait "$SG_PID" 2>/dev/null
is "$?" 137 "SIGKILL: spyglass is killed (status 137)"
wait_for 2 traced_by "$pid" 0
check_running "$pid" "SIGKILL: target runs and is not traced after spyglass was killed"
check_threads "$pid" "SIGKILL: no thread of the target is stopped or traced"

# No stale tracer: a new spyglass attaches at once.
sg -p "$pid" -ex 'info threads'
ok $STATUS "SIGKILL: a fresh spyglass attaches afterwards (status $STATUS${ERR:+: $ERR})"
like "$OUT" 'sleeper-0' "SIGKILL: the fresh spyglass lists the target's threads"
check_running "$pid" "target runs after the fresh spyglass"

# A signal sent to the target while spyglass holds it is not lost: once
# spyglass is gone the target gets it (SIGUSR1 kills sg-threads).
for sig in TERM KILL; do
	start_fixture "$FIXTURES/sg-threads" 2 || exit 1
	upid=$FIXTURE_PID
	start_blocked_spyglass "usr1-$sig" "$upid"
	wait_for 5 attached "$upid"
	ok $? "SIG$sig: spyglass $SG_PID attached to a second target"
	kill -USR1 "$upid"
	kill -"$sig" "$SG_PID"
	wait_for 5 gone_or_zombie "$SG_PID"
	wait "$SG_PID" 2>/dev/null
	if wait_for 5 gone_or_zombie "$upid"; then
		wait "$upid" 2>/dev/null
		is "$?" 138 "SIG$sig: a SIGUSR1 sent to the held target is delivered after spyglass died"
	else
		ok 1 "SIG$sig: a SIGUSR1 sent to the held target is delivered after spyglass died (state $(proc_state "$upid"), tracer '$(tracer_of "$upid")')"
		stop_fixture "$upid"
	fi
done

# The target gets SIGTERM while attached and stopped: its threads die as
# zombies that only their tracer can reap.  After detach none may stay
# (16 of 20 did, until spyglass quit).
start_fixture "$FIXTURES/sg-threads" 20 || exit 1
zpid=$FIXTURE_PID
start_blocked_spyglass zombies "$zpid"
wait_for 5 attached "$zpid"
ok $? "spyglass $SG_PID attached to a 21-thread target"
kill -TERM "$zpid"
sleep 0.2
printf 'detach\nshell touch %s\n' "$testdir/detached" >"$SG_FIFO"
wait_for 5 test -e "$testdir/detached"
held() {	# tasks of $zpid still traced by spyglass
	grep -l "^TracerPid:[[:space:]]*$SG_PID\$" /proc/"$zpid"/task/*/status 2>/dev/null | wc -l
}
wait_for 2 test "$(held)" = 0
is "$(held)" 0 "after detach, no thread of the killed target is a zombie held by spyglass"
# Were some held, the shell could not reap the target before its tracer
# dies: end spyglass first then.
[ "$(held)" = 0 ] || kill -9 "$SG_PID" 2>/dev/null
wait "$zpid" 2>/dev/null
is "$?" 143 "  and the target's parent reaps it: it died of SIGTERM"
kill -9 "$SG_PID" 2>/dev/null
wait "$SG_PID" 2>/dev/null

# A 1000-thread target SIGKILLed during the attach: spyglass used to
# block for ever waiting for the leader, whose exit the kernel reports
# only once the other traced threads are reaped (2 hangs in 15 tries).
# Each try must end within 10 s, and the target must be reaped.
hangs=0 bad=
for try in $(seq 10); do
	start_fixture "$FIXTURES/sg-threads" 1000 || break
	kpid=$FIXTURE_PID
	timeout 10 "$SG_BIN" -nx -batch -p "$kpid" -ex 'info threads' >/dev/null 2>"$testdir/kill.err" &
	spid=$!
	sleep "0.0$((RANDOM % 10))"
	kill -9 "$kpid"
	wait "$spid"
	st=$?
	if [ "$st" = 124 ]; then
		hangs=$((hangs + 1))
	# The kill may land during the attach or just after it, during the
	# command.
	elif [ "$st" = 2 ] && ! grep -Eq "^(process $kpid exited while (being )?attached( \(killed by signal 9, KILL\))?|cannot attach to process $kpid: (it has exited .*|No such process))$" "$testdir/kill.err"; then
		bad="$bad $(head -1 "$testdir/kill.err")"
	fi
	wait_for 5 gone_or_zombie "$kpid"
	wait "$kpid" 2>/dev/null
done
is "$hangs" 0 "a 1000-thread target SIGKILLed during the attach: spyglass never hangs (10 tries)"
is "${bad:-none}" none "  and says in one line that the process exited, when it did"

# A signal to a dead target's tracer: the target exits while spyglass waits.
start_blocked_spyglass gone
wait_for 5 attached "$pid"
ok $? "spyglass $SG_PID attached again"
# Not stop_fixture: the shell cannot reap a traced child before its tracer.
kill -9 "$pid"
wait_for 5 gone_or_zombie "$pid"
kill -TERM "$SG_PID"
if wait_for 5 gone_or_zombie "$SG_PID"; then
	wait "$SG_PID"
	status=$?
	is "$status" 143 "SIGTERM after the target died: spyglass dies of the signal"
else
	ok 1 "SIGTERM after the target died: spyglass exits within 5 s"
	show_stderr "$SG_ERRF"
fi
stop_fixture "$pid"

done_testing
