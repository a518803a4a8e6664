#!/bin/bash
# continue and kill in batch mode, against gdb on the same processes: the
# process's exit (normally, with a code, killed by a signal), a signal
# that stops it and is delivered at the next continue, kill with gdb's
# answered question, and the errors without a live process.  The target
# is never left stopped.  Ctrl-C at the prompt is tests/run-interrupt.sh.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb not installed: no oracle for continue and kill"
	done_testing
fi

# gdb's lines about threads and libthread_db, which spyglass does not
# print ("[Thread 0x7f.. (LWP 5) exited]", "[New process 5]"), and its
# frame of the attach, which spyglass shows only at a stop.
gdb_run_filter() {
	grep -vE '^\[(New LWP|New Thread|Thread 0x|New process|Thread debugging)|^Using host libthread_db|^warning: |^Download failed|^(Reading|Downloading) |^Attaching to process|^\[Inferior .* detached\]'
}

# run_both TAG ACTION COMMANDS...: spyglass, then gdb, each attached in
# batch mode to a fresh process made by $start; ACTION runs (with $tpid)
# once the debugger is attached and has resumed the process.  Output in
# SG_RUN and GDB_RUN, statuses in SG_STATUS, GDB_STATUS.
start_target() {	# start_target: sets tpid, a process blocked reading $fifo
	fifo_runs=$((fifo_runs + 1))
	fifo=$testdir/fifo.$fifo_runs
	mkfifo "$fifo"
	bash -c 'echo ready $$; read -r code <"$1"; exit "$code"' bash "$fifo" \
		>"$testdir/target.$fifo_runs" 2>&1 &
	tpid=$!
	fixture_pids+=("$tpid")
	wait_for 5 grep -q ready "$testdir/target.$fifo_runs"
	# Blocked in the open of the FIFO.
	wait_for 5 eval '[ "$(proc_state "$tpid")" = S ]'
}

resumed() {	# resumed PID: the process runs (or sleeps), traced
	local st
	st=$(proc_state "$1")
	[ "$st" = S ] || [ "$st" = R ]
}

run_both() {
	local tag=$1 action=$2 args=() c
	shift 2
	for c in "$@"; do
		args+=(-ex "$c")
	done
	local dbg
	for dbg in sg gdb; do
		start_target
		if [ $dbg = sg ]; then
			timeout -k 5 60 "$SG_BIN" -nx -batch -p "$tpid" "${args[@]}" \
				>"$testdir/$tag.$dbg" 2>&1 &
		else
			timeout -k 5 60 "$GDB" -nx -batch -p "$tpid" "${args[@]}" \
				>"$testdir/$tag.$dbg" 2>&1 &
		fi
		local dpid=$!
		sg_pids+=("$dpid")
		# Attached, then resumed by continue (what ACTION does while
		# the process is held waits for the continue: the FIFO's open,
		# a signal's delivery).
		wait_for 20 eval '[ "$(tracer_of "$tpid")" != 0 ]'
		sleep 0.3
		wait_for 20 resumed "$tpid"
		$action
		wait "$dpid"
		if [ $dbg = sg ]; then
			SG_STATUS=$?
			SG_RUN=$(sed "s/process $tpid/process PID/" "$testdir/$tag.sg")
		else
			GDB_STATUS=$?
			GDB_RUN=$(gdb_run_filter <"$testdir/$tag.gdb" | sed "s/process $tpid/process PID/" |
				grep -vE '^(0x[0-9a-f]+ in |[0-9]+[[:space:]])')
		fi
		stop_fixture "$tpid"
	done
}

exit_0() { echo 0 >"$fifo"; }
exit_10() { echo 10 >"$fifo"; }
sigkill() { kill -KILL "$tpid"; }
sigterm() { kill -TERM "$tpid"; }

run_both normal exit_0 continue
is "$SG_RUN" "$GDB_RUN" "continue until the process exits normally: gdb's line"
like "$SG_RUN" '^\[Inferior 1 \(process PID\) exited normally\]$' "  which is [Inferior 1 (process N) exited normally]"
is "$SG_STATUS" 0 "  and the batch succeeds"

run_both code exit_10 continue
is "$SG_RUN" "$GDB_RUN" "continue until exit(10): gdb's line, the code in octal"
like "$SG_RUN" 'exited with code 012\]$' "  exited with code 012"

run_both killed sigkill continue
is "$SG_RUN" "$GDB_RUN" "continue until SIGKILL: Program terminated with signal SIGKILL, Killed."

# $_siginfo of the thread a signal stopped: its number, code and sender
# (this script), as gdb reads them.
sigusr1() { kill -USR1 "$tpid"; }
run_both siginfo sigusr1 continue 'print $_siginfo.si_signo' 'print $_siginfo.si_code' \
	'print $_siginfo._sifields._kill.si_pid'
is "$(grep '^\$' <<<"$SG_RUN")" "$(grep '^\$' <<<"$GDB_RUN")" \
	"after SIGUSR1 stopped it: \$_siginfo's signal, code and sender, as gdb's"
like "$SG_RUN" "^\\\$3 = $$\$" "  the sender is this script"

# abort() while continue waits: the stop is in another file than the
# attach's frame, so gdb says that file is missing rather than "in FILE";
# and the inlined __pthread_kill_internal has no @entry values.
printf '#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\nint main(void) { printf("ready\\n"); fflush(stdout); sleep(2); abort(); }\n' \
	>"$testdir/aborts.c"
if ${CC:-cc} -g -o "$testdir/aborts" "$testdir/aborts.c"; then
	for dbg in sg gdb; do
		start_fixture "$testdir/aborts" || exit 1
		if [ $dbg = sg ]; then
			timeout -k 5 60 "$SG_BIN" -nx -batch -p "$FIXTURE_PID" -ex continue -ex bt \
				>"$testdir/abort.$dbg" 2>&1
		else
			timeout -k 5 60 "$GDB" -nx -batch -p "$FIXTURE_PID" -ex continue -ex bt \
				>"$testdir/abort.$dbg" 2>&1
		fi
		stop_fixture "$FIXTURE_PID"
	done
	stop_lines() { sed -n '/^Program received/,$p' "$1" | grep -v '^\[Inferior' | sed -E 's/0x[0-9a-f]+ in /ADDR in /'; }
	is "$(stop_lines "$testdir/abort.sg")" "$(stop_lines "$testdir/abort.gdb")" \
		"abort() during continue: the stop, its missing file, and bt, as gdb's"
else
	skip "no C compiler: the abort() check is not run"
fi

# How it ended, as convenience variables that outlive the process, the
# value history numbered on from before the exit.
run_both exitvars exit_10 'print $_exitcode' continue 'print $_exitcode' 'print $_exitsignal' \
	'print/x $_exitcode' 'output $_exitcode' 'print $nosuch'
is "$SG_RUN" "$GDB_RUN" "after exit(10): \$_exitcode, \$_exitsignal void, print/x, output, as gdb"
like "$SG_RUN" '^\$2 = 10$' "  \$_exitcode is 10, value \$2 after \$1 before the exit"
# The commands that need a process, after it exited: gdb's words.
run_both gone exit_0 continue bt 'info threads' 'info registers' frame up 'info locals' \
	'info frame' detach 'generate-core-file' 'info all-registers'
is "$SG_RUN" "$GDB_RUN" "after the exit: No stack., No threads., No frame selected., as gdb"
run_both signalvars sigkill continue 'print $_exitsignal' 'print $_exitcode' 'output/x $_exitsignal'
is "$SG_RUN" "$GDB_RUN" "after SIGKILL: \$_exitsignal 9, \$_exitcode void, as gdb"
like "$SG_RUN" '^\$1 = 9$' "  \$_exitsignal is 9"

# A signal gdb stops for: shown, and delivered at the next continue.
run_both term sigterm continue continue 'info threads'
sg_term=$(printf '%s\n' "$SG_RUN" | grep -vE '^(0x[0-9a-f]+ in |[0-9]+[[:space:]])')
like "$SG_RUN" '^Program received signal SIGTERM, Terminated\.$' "SIGTERM stops a one-thread program: Program received signal SIGTERM"
is "$(printf '%s\n' "$sg_term" | head -n 5)" "$(printf '%s\n' "$GDB_RUN" | head -n 5)" \
	"  and the second continue delivers it: Program terminated with signal SIGTERM, as gdb"
like "$SG_RUN" '^The program no longer exists\.$' "  the program no longer exists"
like "$SG_RUN" 'no target|No threads' "  and the session goes on without a target"

# A signal gdb lets through silently (SIGCHLD, SIGWINCH): no stop.
start_target
timeout -k 5 60 "$SG_BIN" -nx -batch -p "$tpid" -ex continue >"$testdir/winch.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 10 resumed "$tpid"
sleep 0.2
kill -WINCH "$tpid"
kill -CHLD "$tpid"
sleep 0.3
kill -0 "$dpid" 2>/dev/null && resumed "$tpid"
ok $? "SIGWINCH and SIGCHLD pass through: spyglass still waits, the process runs"
echo 3 >"$fifo"
wait "$dpid"
is "$(cat "$testdir/winch.sg")" "[Inferior 1 (process $tpid) exited with code 03]" "  then the exit is reported"
stop_fixture "$tpid"

# Threads: a stop shows "Thread N "name"", the thread the signal went to
# (the leader, for a signal to the process).  gdb on another process of
# the same program: addresses differ.
hexless() { sed 's/0x[0-9a-f]*/0xADDR/g'; }
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
timeout -k 5 60 "$SG_BIN" -nx -batch -p "$pid" -ex continue -ex 'info threads' -ex bt \
	>"$testdir/threads.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 20 eval '[ "$(tracer_of "$pid")" != 0 ]'
sleep 0.3
wait_for 20 resumed "$pid"
kill -USR1 "$pid"
wait "$dpid"
sg_out=$(cat "$testdir/threads.sg")
# The signal the stop kept is delivered when spyglass lets go, as by gdb.
wait_for 5 gone_or_zombie "$pid"
wait "$pid"
is "$?" $((128 + 10)) "the process gets its SIGUSR1 at the detach, and dies of it"
stop_fixture "$pid"
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
gpid=$FIXTURE_PID
timeout -k 5 60 "$GDB" -nx -batch -p "$gpid" -ex continue -ex bt >"$testdir/threads.gdb" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 20 eval '[ "$(tracer_of "$gpid")" != 0 ]'
sleep 0.3
wait_for 20 resumed "$gpid"
kill -USR1 "$gpid"
wait "$dpid"
stop_fixture "$gpid"
gdb_out=$(gdb_run_filter <"$testdir/threads.gdb")
like "$sg_out" '^Thread 1 "sg-threads" received signal SIGUSR1, User defined signal 1\.$' \
	"SIGUSR1 to a threaded process: Thread 1 \"sg-threads\" received signal SIGUSR1"
is "$(printf '%s\n' "$sg_out" | grep -A2 'received signal' | hexless)" \
	"$(printf '%s\n' "$gdb_out" | grep -A2 'received signal' | hexless)" \
	"  the signal line, frame line and source line as gdb's"
is "$(printf '%s\n' "$sg_out" | grep '^#' | hexless)" "$(printf '%s\n' "$gdb_out" | grep '^#' | hexless)" \
	"  bt after the stop: gdb's frames"
is "$(printf '%s\n' "$sg_out" | grep -c 'LWP')" 4 "  info threads lists the 4 threads again"
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID


# A process that creates and joins threads all the time: each stop
# takes in the threads born while it ran and drops those that ended,
# and the process runs on afterwards.
start_fixture "$FIXTURES/sg-threads" 3 spawn || exit 1
spid=$FIXTURE_PID
timeout -k 5 60 "$SG_BIN" -nx -batch -p "$spid" -ex continue -ex 'info threads' -ex continue \
	-ex 'info threads' -ex 'thread apply all bt 1' >"$testdir/spawn.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
for i in 1 2; do
	wait_for 20 eval '[ "$(tracer_of "$spid")" != 0 ]'
	sleep 0.3
	kill -CONT "$spid"
done
wait "$dpid"
spawn_status=$?
spawn_out=$(cat "$testdir/spawn.sg")
is "$spawn_status:$(grep -c 'received signal SIGCONT, Continued\.$' <<<"$spawn_out")" "0:2" \
	"threads born and joined while it runs: both stops reported, the batch succeeds"
# The rows of the last info threads.
rows=$(awk '/^  Id +Target Id/ { n = 0; on = 1; next }
	on && /^[* ] [0-9]+ +LWP/ { n++; next } { on = 0 } END { print n + 0 }' <<<"$spawn_out")
ok $((rows >= 4 ? 0 : 1)) "  info threads after the second stop: $rows threads, the 4 that live on among them"
is "$(grep -c '^Thread [0-9]* (LWP' <<<"$spawn_out")" "$rows" \
	"  thread apply all bt goes over the same threads"
sleep 0.2
check_threads "$spid" "  and the process runs on, no thread stopped or traced"
stop_fixture "$spid"

# A process whose leader called pthread_exit (gdb refuses it): a fatal
# signal kills it without a stop, as its leader, which the kernel asks,
# is not traced; the end is the last thread's.
start_fixture "$FIXTURES/sg-leaderexit" 3 || exit 1
lpid=$FIXTURE_PID
wait_for 5 eval '[ "$(proc_state "$lpid")" = Z ]'
timeout -k 5 60 "$SG_BIN" -nx -batch -p "$lpid" -ex continue >"$testdir/leader.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 20 eval 'grep -q "TracerPid:[[:space:]]*[1-9]" /proc/'"$lpid"'/task/*/status'
sleep 0.3
kill -USR2 "$lpid"
wait "$dpid"
is "$(cat "$testdir/leader.sg")" "
Program terminated with signal SIGUSR2, User defined signal 2.
The program no longer exists." "a process with a zombie leader, killed by SIGUSR2 while it runs: how it ended"
stop_fixture "$lpid"

# A thread other than the leader calls exec while the process runs: the
# other threads end, the execing one takes the leader's ID, and the next
# stop shows the new program with its one thread (no wait for the
# thread ID that is no more).
cat >"$testdir/execer.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *run(void *arg)
{
	sleep(1);
	execl("/bin/sleep", "sleep", "60", (char *)0);
	return arg;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, run, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
EOF
if ${CC:-cc} -g -pthread -o "$testdir/execer" "$testdir/execer.c" 2>/dev/null; then
	start_fixture "$testdir/execer" || exit 1
	epid=$FIXTURE_PID
	timeout -k 5 60 "$SG_BIN" -nx -batch -p "$epid" -ex continue -ex 'info threads' \
		>"$testdir/exec.sg" 2>&1 &
	dpid=$!
	sg_pids+=("$dpid")
	wait_for 10 eval '[ "$(cat /proc/'"$epid"'/comm 2>/dev/null)" = sleep ]'
	sleep 0.3
	kill -CONT "$epid"
	wait "$dpid"
	exec_status=$?
	exec_out=$(cat "$testdir/exec.sg")
	is "$exec_status:$(head -n 2 <<<"$exec_out")" "0:
Program received signal SIGCONT, Continued." \
		"exec by a thread while it runs: the next stop comes, in a program of one thread"
	is "$(grep -cE '^[* ] [0-9]+ +LWP' <<<"$exec_out")" 1 "  info threads: the one thread"
	like "$exec_out" "LWP $epid \"sleep\"" "  the leader's ID, the new program's name"
	check_running "$epid" "  and the new program runs on"
	stop_fixture "$epid"
else
	skip "no C compiler for the exec fixture"
	skip "no C compiler for the exec fixture"
	skip "no C compiler for the exec fixture"
	skip "no C compiler for the exec fixture"
fi

# kill: gdb's question, answered, and gdb's line.
sg -p "$pid" -ex kill -ex 'info threads' -ex kill
is "$(printf '%s\n' "$OUT" | head -n 2)" "Kill the program being debugged? (y or n) [answered Y; input not from terminal]
[Inferior 1 (process $pid) killed]" "kill in batch: gdb's answered question and [Inferior 1 (process N) killed]"
like "$ERR" '^The program is not being run\.$' "  a second kill: The program is not being run."
wait_for 5 gone_or_zombie "$pid"
ok $? "  the process is gone"
stop_fixture "$pid"

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
gdb_batch "$pid" 'set confirm off' kill
gdb_kill=$GDB_OUT
stop_fixture "$pid"
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
sg -p "$pid" -ex 'set confirm off' -ex kill
is "$OUT" "$(printf '%s\n' "$gdb_kill" | sed "s/process [0-9]*/process $pid/")" "set confirm off: kill asks nothing, as gdb"
stop_fixture "$pid"

# kill of a process that died while spyglass held it: one line.
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
mkfifo "$testdir/kill-in"
"$SG_BIN" -nx -p "$pid" <>"$testdir/kill-in" >"$testdir/kill.out" 2>"$testdir/kill.err" &
dpid=$!
sg_pids+=("$dpid")
wait_for 10 eval '[ "$(tracer_of "$pid")" = "$dpid" ]'
kill -KILL "$pid"
sleep 0.3
# Bounded: if spyglass had gone, opening the FIFO would wait forever.
timeout 10 bash -c 'printf "kill\nkill\nquit\n" >"$1"' bash "$testdir/kill-in"
wait "$dpid"
is "$(cat "$testdir/kill.err")" "stdin:1: process $pid exited while attached (killed by signal 9, KILL)
stdin:2: The program is not being run." "kill after the process died: how it ended, then no target"

# Without a live process: one line each, as gdb's.
sg -ex continue
is "$STATUS:$ERR" "1:The program is not being run." "continue without a target: The program is not being run."
sg -ex kill
is "$STATUS:$ERR" "1:The program is not being run." "kill without a target"
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
core=$testdir/core.threads
"$GDB" -nx -batch -p "$pid" -ex "gcore $core" >/dev/null 2>&1
stop_fixture "$pid"
if [ -s "$core" ]; then
	sg -c "$core" "$FIXTURES/sg-threads" -ex continue
	is "$(printf '%s\n' "$ERR" | tail -n 1)" "The program is not being run." "continue on a core: The program is not being run."
	gdb_core=$("$GDB" -nx -batch -ex continue "$FIXTURES/sg-threads" "$core" 2>&1 | tail -n 1)
	is "The program is not being run." "$gdb_core" "  as gdb says"
	sg -c "$core" "$FIXTURES/sg-threads" -ex kill
	is "$(printf '%s\n' "$ERR" | tail -n 1)" "You can't do that without a process to debug." "kill on a core: gdb's words"
else
	skip "gdb wrote no core"
	skip "gdb wrote no core"
	skip "gdb wrote no core"
fi
sg -ex 'continue x'
is "$ERR" "The program is not being run." "continue x without a target: the target is checked first"

# A snapshot's process runs on untraced: nothing to continue or kill.
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID
sg -ex 'set snapshot on' -ex "attach $pid" -ex continue -ex kill
is "$ERR" "process $pid runs on untraced since its snapshot was taken: detach, then attach $pid to control it
process $pid runs on untraced since its snapshot was taken; spyglass does not kill it" \
	"continue and kill on a snapshot: one line each, no question"
check_running "$pid" "  the process runs on"
stop_fixture "$pid"

# continue N: an ignore count, with no breakpoint to ignore.
start_target
timeout -k 5 60 "$SG_BIN" -nx -batch -p "$tpid" -ex 'continue 3' >"$testdir/c3.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 10 resumed "$tpid"
sleep 0.2
echo 0 >"$fifo"
wait "$dpid"
is "$(cat "$testdir/c3.sg")" "Not stopped at any breakpoint; argument ignored.
[Inferior 1 (process $tpid) exited normally]" "continue 3: gdb's note, then the exit"
stop_fixture "$tpid"

# JSON: the stop as fields.
start_target
timeout -k 5 60 "$SG_BIN" -nx -batch --json -p "$tpid" -ex continue >"$testdir/json.sg" 2>&1 &
dpid=$!
sg_pids+=("$dpid")
wait_for 10 resumed "$tpid"
sleep 0.2
echo 7 >"$fifo"
wait "$dpid"
is "$(jq -c '[.reason, .exit_code, .pid == '"$tpid"']' <"$testdir/json.sg")" '["exited",7,true]' \
	"--json: reason, exit_code and pid"
stop_fixture "$tpid"

done_testing
