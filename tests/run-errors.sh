#!/bin/bash
# Attach failures and a target that dies: one clear line, a non-zero exit,
# never a hang or a stopped process.
. "$top_srcdir/tests/test-subr.sh"

# No such process: the pid of a child that has been reaped.
true &
gone=$!
wait $gone
sg -p "$gone" -ex 'info threads'
is "$ERR" "cannot attach to process $gone: No such process" "no such process"
is "$STATUS" 2 "failing to attach with -p is fatal (2)"
is "$OUT" "" "no command ran"
OUT=$("$SG_BIN" -nx -batch --json -p "$gone" -ex 'info threads' 2>/dev/null)
is "$OUT" "{\"error\":\"cannot attach to process $gone: No such process\"}" "the attach error as JSON"
sg -ex "attach $gone"
is "$ERR" "cannot attach to process $gone: No such process" "attach command to a missing process"
is "$STATUS" 1 "a failing attach command exits 1"

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

# Permission denied: an unprivileged user may not trace root's process.
# (Not under a wrapper: nobody could not write valgrind's log.)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && ! wrapped &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$SG_BIN" 2>/dev/null; then
	OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SG_BIN" -nx -batch -p "$pid" -ex 'info threads' 2>&1)
	st=$?
	like "$OUT" "^cannot attach to process $pid: Operation not permitted \(kernel\.yama\.ptrace_scope is .*; attaching needs the same user and ptrace_scope 0, or CAP_SYS_PTRACE\)$" "permission denied names ptrace_scope and CAP_SYS_PTRACE"
	is "$st" 2 "permission denied exits 2"
	check_running "$pid" "target untouched after a refused attach"
else
	skip "needs root, setpriv, no SPYGLASS_WRAPPER and a build tree the user nobody can read"
	skip "(permission denied exit status)"
	skip "(target after a refused attach)"
fi

# Already traced by another debugger (here, another spyglass).
sleep 30 | "$SG_BIN" -nx -p "$pid" >/dev/null 2>&1 &
holder=$!
for i in $(seq 1 200); do
	[ "$(tracer_of "$pid")" = "$holder" ] && break
	sleep 0.025
done
sg -p "$pid" -ex 'info threads'
like "$ERR" "^cannot attach to process $pid: already traced by process $holder \($SG_COMM_RE\)$" "already traced names the tracer"
is "$STATUS" 2 "already traced exits 2"
kill -TERM "$holder"
wait "$holder" 2>/dev/null
pkill -f "^sleep 30$" -P $$ 2>/dev/null
check_running "$pid" "target runs once the other tracer is gone"

# A zombie: exited, not yet reaped.
bash -c 'sleep 0.01 & exec sleep 30' &
parent=$!
fixture_pids+=("$parent")
sleep 0.3
zombie=$(ps -o pid= --ppid "$parent" | tr -d ' ')
if [ -n "$zombie" ] && [ "$(proc_state "$zombie")" = Z ]; then
	sg -p "$zombie" -ex 'info threads'
	is "$ERR" "cannot attach to process $zombie: it has exited (a zombie not yet reaped by its parent)" "a zombie"
	is "$STATUS" 2 "a zombie exits 2"
else
	skip "no zombie to test with"
	skip "(zombie exit status)"
fi

# The process dies while attached: every later command says so.
start_fixture "$FIXTURES/sg-threads" 2 || exit 1
victim=$FIXTURE_PID
# SIGKILL is asynchronous: the shell command waits (at most 5 s) until the
# kernel has made the victim a zombie, so that the next read cannot race
# with its death.
dead="kill -9 $victim; for i in \$(seq 500); do s=\$(awk '{print \$3}' /proc/$victim/stat 2>/dev/null); [ \"\$s\" = Z ] || [ -z \"\$s\" ] && break; sleep 0.01; done"
sg -p "$victim" -ex "shell $dead" -ex 'x/dw &sg_counter' -ex 'info threads'
is "$ERR" "process $victim exited while attached (killed by signal 9, KILL)
process $victim exited while attached (killed by signal 9, KILL)" "a target killed while attached"
is "$STATUS" 1 "exit status 1 after the target died"
ok $([ ! -e /proc/$victim ] || [ "$(proc_state $victim)" = Z ]; echo $?) "the dead target is gone"

# Plain garbage PIDs.
sg -ex 'attach 0'
is "$ERR" "invalid process ID 0" "attach 0"
sg -ex 'attach banana'
is "$ERR" 'invalid number "banana"' "attach with a non-number"
sg -ex 'detach'
is "$ERR" 'no target: use "attach PID" or "core-file CORE", or start with -p PID or -c CORE' "detach without a target"

check_running "$pid" "target runs at the end"
done_testing
