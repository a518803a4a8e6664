#!/bin/bash
# The target's safety, in loops: whatever ends spyglass during the attach
# or during a long command, and whatever the target does between and
# during commands (exit, exec, fork, thread churn), the target runs on,
# untraced, with no thread stopped and no zombie held.  run-signals.sh
# covers the signals while spyglass idles attached; run-hostile.sh the
# attaches of a batch spyglass to a churning target.
. "$top_srcdir/tests/test-subr.sh"

ulimit -c 0 2>/dev/null
export SG_KILLS=1	# see test-subr.sh

# Delays are random but the same in every run.
RANDOM=7

# Commands go to a spyglass started by start_blocked_spyglass through its
# FIFO, opened read-write: were spyglass dead, a plain write would block.

# Under AddressSanitizer, SIGSEGV is left to spyglass's own handler, the
# one users get: ASan's takes locks that a signal sent at a random time
# may find held (LeakSanitizer's exit-time check, its allocator), and
# hangs.  run-signals.sh checks ASan's report for a SIGSEGV at rest.
if ldd "$SG_BIN" 2>/dev/null | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fi

# wait_traced PID TRACER: poll, in bash alone so as to see the seize
# early, until TRACER traces PID; fail once TRACER is gone or after 10 s.
wait_traced() {
	local line end=$((SECONDS + 10))
	while [ "$SECONDS" -lt "$end" ] && [ -e "/proc/$2" ]; do
		while read -r line; do
			[[ $line == TracerPid:* ]] && break
		done <"/proc/$1/status"
		[[ $line =~ ^TracerPid:[[:space:]]+$2$ ]] && return 0
	done 2>/dev/null
	return 1
}

# A number that changes whenever PID runs: its leader's context switches
# plus the CPU time of the whole process.
activity() {
	local stat switches
	stat=$(cut -d' ' -f14,15 "/proc/$1/stat" 2>/dev/null) || return
	switches=$(awk '/ctxt_switches:/ { n += $2 } END { print n }' "/proc/$1/status" 2>/dev/null)
	echo "$switches ${stat/ /+}"
}

# runs PID: PID does something within 2 s.
runs() {
	local before
	before=$(activity "$1")
	[ -n "$before" ] && wait_for 2 changed "$1" "$before"
}
changed() {
	[ "$(activity "$1")" != "$2" ]
}

# not_held PID: no thread of PID is stopped or traced; a dead tracer's
# tracees are let go a few milliseconds after its exit is reported.
not_held() {
	[ -z "$(held_threads "$1")" ]
}

# end_sg SPID SIG: wait up to 10 s for spyglass SPID, sent SIG, to exit.
# Adds to hangs or bad_status.
end_sg() {
	local spid=$1 sig=$2 st
	if ! wait_for 10 gone_or_zombie "$spid"; then
		hangs=$((hangs + 1))
		kill -9 "$spid" 2>/dev/null
	fi
	wait "$spid" 2>/dev/null
	st=$?
	# 0: it was done before the signal came.  valgrind ends a SIGSEGV
	# its way (and may assert in its handler).
	if [ "$st" != $((128 + $(kill -l "$sig"))) ] && [ "$st" != 0 ] &&
	   ! { [ "$sig" = SEGV ] && wrapped; }; then
		bad_status="$bad_status $st"
	fi
}

# check_target PID: after spyglass died, PID must be let go and run.
# Adds to held and stalled.
check_target() {
	wait_for 2 not_held "$1" || held="$held$(held_threads "$1")"
	runs "$1" || stalled=$((stalled + 1))
}

report() {	# report WHAT TRIES: the TAP lines of one loop
	is "$hangs" 0 "$1: spyglass exits within 10 s of each signal ($2 tries)"
	is "${bad_status:-none}" none "  and dies of the signal (or had finished)"
	is "${held:-none}" none "  no thread of the target is left stopped or traced"
	is "$stalled" 0 "  the target runs after each"
}

sigs=(KILL SEGV ABRT TERM INT HUP)

sleep_ms() {
	sleep "$(printf '0.%03d' "$1")"
}

# signal_during SIG PID WHEN CMD: start spyglass -batch -p PID -ex CMD
# and send it SIG: WHEN "start" is 0 to 150 ms after it started, "seize"
# 0 to 30 ms after it seized the leader, "command" 50 to 350 ms after
# that.  Counts in landed the signals sent while PID was seized, then
# end_sg.
run=0
signal_during() {
	local sig=$1 target=$2 when=$3 spid
	run=$((run + 1))
	"$SG_BIN" -nx -batch -p "$target" -ex "$4" >/dev/null 2>"$testdir/sg.$run" &
	spid=$!
	sg_pids+=("$spid")
	case $when in
	start) sleep_ms $((RANDOM % 150)) ;;
	seize) wait_traced "$target" "$spid" && sleep_ms $((RANDOM % 30)) ;;
	*) wait_traced "$target" "$spid" && sleep_ms $((50 + RANDOM % 300)) ;;
	esac
	traced_by "$target" "$spid" && landed=$((landed + 1))
	kill -"$sig" "$spid" 2>/dev/null
	end_sg "$spid" "$sig"
}

# ---- A signal to spyglass during the attach of 1000 threads.  Odd tries
# at a delay from the start (start-up, reading the modules, or the
# seize); even ones once the leader is seized, when the other threads are.
start_fixture "$FIXTURES/sg-threads" 1000 tick || exit 1
pid=$FIXTURE_PID
tries=4
for sig in "${sigs[@]}"; do
	hangs=0 bad_status= held= stalled=0 landed=0
	for i in $(seq $tries); do
		when=seize
		((i % 2)) && when=start
		signal_during "$sig" "$pid" $when 'info threads'
		check_target "$pid"
	done
	echo "# SIG$sig: $landed of $tries signals came while the target was seized"
	report "SIG$sig during the attach of 1000 threads" $tries
done
stop_fixture "$pid"

# ---- A signal to spyglass during a command of 100,000 frames.
start_fixture "$FIXTURES/sg-deep" 100000 || exit 1
dpid=$FIXTURE_PID
cmds=('thread apply all bt' 'bt' 'bt full')
tries=3
for sig in "${sigs[@]}"; do
	hangs=0 bad_status= held= stalled=0 landed=0
	for i in $(seq $tries); do
		signal_during "$sig" "$dpid" command "${cmds[i - 1]}"
		wait_for 2 not_held "$dpid" || held="$held$(held_threads "$dpid")"
		# sg-deep sleeps in pause(): running is not stopped, not gone.
		[ "$(proc_state "$dpid")" = S ] || stalled=$((stalled + 1))
	done
	echo "# SIG$sig: $landed of $tries signals came during the command"
	report "SIG$sig during bt of 100,000 frames" $tries
done
# ---- A signal to spyglass while it attaches to and detaches from 1000
# threads again and again: the handler detaches the session's target,
# which must not be one being freed (ASan saw that as a use after free).
start_fixture "$FIXTURES/sg-threads" 1000 tick || exit 1
pid=$FIXTURE_PID
hangs=0 bad_status= held= stalled=0
for sig in "${sigs[@]}"; do
	start_blocked_spyglass "cycle-$sig" ""
	for i in $(seq 20); do
		printf 'attach %d\ninfo threads\ndetach\n' "$pid"
	done 1<>"$SG_FIFO"
	wait_traced "$pid" "$SG_PID" && sleep_ms $((RANDOM % 300))
	kill -"$sig" "$SG_PID"
	end_sg "$SG_PID" "$sig"
	check_target "$pid"
done
report "a signal during attach-detach cycles" ${#sigs[@]}
stop_fixture "$pid"

sg -p "$dpid" -ex 'bt 1'
like "$STATUS:$OUT" '^0:#0 .* in (__libc_)?pause ' "a new spyglass attaches to the deep target at once"
kill -9 "$dpid"
wait_for 5 gone_or_zombie "$dpid"
wait "$dpid" 2>/dev/null
is "$?" 137 "  which its parent reaps when it is killed: no zombie held"

# ---- One spyglass attaches, reads and detaches again and again while the
# target churns threads, execs itself every 2 ms or forks every 1 ms in
# between.  After each detach nothing of it is held.
for mode in threads exec fork; do
	start_fixture "$FIXTURES/sg-churn" $mode 4 || exit 1
	cpid=$FIXTURE_PID
	start_blocked_spyglass "churn-$mode" ""
	hangs=0 held=
	cycles=10
	for i in $(seq $cycles); do
		mark=$testdir/cycle.$mode.$i
		printf 'attach %d\ninfo threads\nbt\nthread apply all bt\ninfo sharedlibrary\ndetach\nshell touch %s\n' \
			"$cpid" "$mark" 1<>"$SG_FIFO"
		# A hang, not a slow cycle: a loaded machine under the
		# sanitizers has taken over 20 s for one.
		if ! wait_for 60 test -e "$mark"; then
			hangs=$((hangs + 1))
			break
		fi
		wait_for 2 not_held "$cpid" || held="$held$(held_threads "$cpid")"
	done
	printf 'quit\n' 1<>"$SG_FIFO"
	wait_for 10 gone_or_zombie "$SG_PID" || kill -9 "$SG_PID"
	wait "$SG_PID"
	st=$?
	is "$hangs:$st" 0:0 "$mode churn: $cycles attach-read-detach cycles in one spyglass, which quits with 0"
	errors=$(grep -c . "$SG_ERRF")
	ok $((errors > 3)) "  at most a few error lines ($errors)"
	show_stderr "$SG_ERRF" | head -5
	is "$(grep -c '^\[Inferior 1 (process [0-9]*) detached\]' "$testdir/stdout.churn-$mode")" $cycles "  every attach ends in a detach"
	is "${held:-none}" none "  after each detach no thread is stopped or traced"
	runs "$cpid"
	ok $? "  the target runs"
	stop_fixture "$cpid"
done

# ---- The target is killed during a long command of a spyglass that goes
# on: each command after it says so in a line, and the next target is
# attached to as if nothing happened.  Some get SIGTERM instead, which
# waits in the stopped target until the detach: it dies of it then.
start_fixture "$FIXTURES/sg-threads" 2 || exit 1
opid=$FIXTURE_PID
start_blocked_spyglass goes-on ""
wait_for 10 test -e "$SG_READY"
tries=6 hangs=0 unreaped= noisy= unattached=
for i in $(seq $tries); do
	sig=KILL want=137
	((i % 3)) || sig=TERM want=143
	start_fixture "$FIXTURES/sg-deep" 100000 || exit 1
	dpid=$FIXTURE_PID
	mark=$testdir/goes-on.$i
	lines=$(grep -c . "$SG_ERRF")
	printf 'attach %d\n%s\ninfo threads\nbt 3\nx/2gx $sp\ninfo sharedlibrary\ndetach\nattach %d\ninfo threads\ndetach\nshell touch %s\n' \
		"$dpid" "${cmds[i % 3]}" "$opid" "$mark" 1<>"$SG_FIFO"
	wait_traced "$dpid" "$SG_PID"
	sleep_ms $((RANDOM % 300))
	kill -"$sig" "$dpid"
	if ! wait_for 20 test -e "$mark"; then
		hangs=$((hangs + 1))
		break
	fi
	# Its parent (this shell) can reap it: spyglass holds no zombie.
	if wait_for 5 gone_or_zombie "$dpid" && ! traced_by "$dpid" "$SG_PID"; then
		wait "$dpid"
		st=$?
		[ "$st" = "$want" ] || unreaped="$unreaped $sig:status=$st"
	else
		unreaped="$unreaped $sig:state=$(proc_state "$dpid"):tracer=$(tracer_of "$dpid")"
	fi
	new=$(($(grep -c . "$SG_ERRF") - lines))
	[ "$new" -le 6 ] || noisy="$noisy $new"
	grep -q "^Attached to process $opid" "$testdir/stdout.goes-on" || unattached="$unattached $i"
done
is "$hangs" 0 "a target killed during bt, bt full or thread apply all bt: spyglass goes on ($tries tries)"
is "${noisy:-none}" none "  with at most a line for each command on the dead target"
is "${unreaped:-none}" none "  its parent reaps it, dead of SIGKILL or SIGTERM"
is "${unattached:-none}" none "  and spyglass attaches to the next target"
show_stderr "$SG_ERRF" | head -12
check_threads "$opid" "  which runs untraced after the detach"
printf 'quit\n' 1<>"$SG_FIFO"
wait_for 10 gone_or_zombie "$SG_PID" || kill -9 "$SG_PID"
wait "$SG_PID"
is "$?" 0 "  and quits with 0"

# ---- A 1000-thread target killed while spyglass waits for a command that
# does not come: spyglass looks every 100 ms and lets it go (it held it
# until its next command), then says in a line that it exited.
start_fixture "$FIXTURES/sg-threads" 1000 || exit 1
tpid=$FIXTURE_PID
start_blocked_spyglass idle "$tpid"
wait_for 20 attached "$tpid"
kill -9 "$tpid"
if wait_for 5 not_held "$tpid"; then
	wait "$tpid"
	is "$?" 137 "a 1000-thread target killed while spyglass waits: its parent reaps it"
else
	ok 1 "a 1000-thread target killed while spyglass waits: its parent reaps it"
	echo "#   held:$(held_threads "$tpid" | cut -c1-200)"
	kill -9 "$SG_PID"
	wait "$tpid"
fi
printf 'info threads\nquit\n' 1<>"$SG_FIFO"
wait_for 10 gone_or_zombie "$SG_PID" || kill -9 "$SG_PID"
wait "$SG_PID"
is "$?:$(cat "$SG_ERRF")" "0:stdin:2: process $tpid exited while attached (killed by signal 9, KILL)" \
	"  and the next command says so; quit exits 0"

# ---- A many-threaded target killed while spyglass holds it: its threads
# die as zombies that only their tracer may reap, the leader last, and
# until then its parent cannot reap it.  spyglass lets them go once a
# command has found the death (it held them until the next attach or its
# exit), or while it waits.  Killed before a command, or during thread
# apply all bt (full), some 5 to 25 ms into it: the parent reaps it, and
# at most one line says it exited.
n=0
for cmd in 'info threads' 'thread apply all bt full' 'thread apply all bt'; do
	n=$((n + 1))
	start_fixture "$FIXTURES/sg-threads" 1000 || exit 1
	tpid=$FIXTURE_PID
	start_blocked_spyglass "waits.$n" "$tpid"
	wait_for 20 attached "$tpid"
	when="during $cmd"
	if [ $n = 1 ]; then
		when="before $cmd"
		kill -9 "$tpid"
		sleep 0.1
		printf '%s\n' "$cmd" 1<>"$SG_FIFO"
	else
		printf '%s\n' "$cmd" 1<>"$SG_FIFO"
		sleep_ms $((5 + RANDOM % 20))
		kill -9 "$tpid"
	fi
	if wait_for 5 not_held "$tpid"; then
		wait "$tpid"
		is "$?" 137 "a 1000-thread target killed $when: its parent reaps it while spyglass waits"
		wait_for 1 test -s "$SG_ERRF"	# unless the command had ended
		ok $(($(grep -c . "$SG_ERRF") > 1)) "  at most one error line"
		show_stderr "$SG_ERRF"
	else
		ok 1 "a 1000-thread target killed $when: its parent reaps it while spyglass waits"
		echo "#   held:$(held_threads "$tpid" | cut -c1-200)"
	fi
	kill -9 "$SG_PID"	# its tracees are free then; this shell may wait
	wait "$tpid"
done

done_testing
