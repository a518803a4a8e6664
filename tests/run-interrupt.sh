#!/bin/bash
# Ctrl-C at the prompt, through a terminal (tmux): continue runs the
# process until Ctrl-C, which stops every thread and shows where, as gdb
# does on the same process; bt then gives gdb's frames.  The time from
# the key to the prompt is measured.  kill asks as gdb does; detach and
# quit leave the process running.  Ctrl-C during a command that reads
# memory ends it with gdb's "Quit".
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb not installed: no oracle for Ctrl-C"
	done_testing
fi
if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux not installed: no terminal to type Ctrl-C at"
	done_testing
fi

unset TMUX TMUX_PANE SPYGLASS_HISTORY
export HOME=$testdir/home
mkdir -p "$HOME"
tm() { tmux -L "sgint$$" -f /dev/null "$@"; }
tm_sock=
tm_cleanup() {
	tm kill-server 2>/dev/null
	# tmux 3.3a leaves its socket behind.
	[ -n "$tm_sock" ] && [ -S "$tm_sock" ] && rm -f "$tm_sock"
	cleanup
}
trap tm_cleanup EXIT

# The pane's text without trailing blanks and empty lines.
pane() { tm capture-pane -p -J -S - -t "$1" 2>/dev/null | sed 's/[[:space:]]*$//' | sed '/^$/d'; }
last_is() { [[ "$(pane "$1" | tail -n 1)" =~ $2 ]]; }
shows() { pane "$1" | grep -Eq -- "$2"; }
prompts() { pane "$1" | grep -Ec "^(\\^C)?$2"; }
# An empty prompt after more than N prompts.
# (The terminal's echo of a Ctrl-C may precede it.)
prompt_after() { last_is "$1" "^(\\^C)?$2\$" && [ "$(prompts "$1" "$2")" -gt "$3" ]; }
show_pane() {
	echo "#   pane $1:"
	pane "$1" | tail -n 30 | sed 's/^/#     /'
}

# start SESSION COMMAND...: COMMAND in a new 200x50 terminal.
start() {
	local s=$1
	shift
	tm new-session -d -s "$s" -x 200 -y 50 "$(printf '%q ' env HOME="$HOME" \
		LD_LIBRARY_PATH="$LD_LIBRARY_PATH" SPYGLASS_PLUGIN_DIR="${SPYGLASS_PLUGIN_DIR:-}" \
		SPYGLASS_PLUGIN_PATH="${SPYGLASS_PLUGIN_PATH:-}" "$@")"
	[ -n "$tm_sock" ] || tm_sock=$(tm display -p '#{socket_path}')
}
type_line() { tm send-keys -t "$1" -l -- "$2"; tm send-keys -t "$1" Enter; }

# The process runs (or sleeps) again, still traced: continue resumed it.
resumed() {
	local st
	st=$(proc_state "$1")
	[ "$(tracer_of "$1")" != 0 ] && { [ "$st" = S ] || [ "$st" = R ]; }
}
held() { [ "$(proc_state "$1")" = t ]; }

# What follows the last "received signal" line up to the next prompt,
# and the bt after it.
stop_text() {	# stop_text SESSION PROMPT_REGEX
	pane "$1" | awk '/received signal SIGINT/ { text = ""; on = 1 }
		on { text = text $0 "\n" } END { printf "%s", text }' |
		grep -vE "^(\\^C)?$2"
}

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

# --- gdb, the oracle: continue, Ctrl-C, bt, thread 2, bt. ---
start g "$GDB" -nx -q -iex "set width 0" -p "$pid"
wait_for 30 last_is g '^\(gdb\)$'
ok $? "gdb attaches"
type_line g continue
wait_for 10 resumed "$pid"
ok $? "gdb's continue resumes the process"
tm send-keys -t g C-c
wait_for 10 prompt_after g '\(gdb\)' 1
type_line g bt
wait_for 10 prompt_after g '\(gdb\)' 2
type_line g 'thread 2'
wait_for 10 prompt_after g '\(gdb\)' 3
type_line g bt
wait_for 10 prompt_after g '\(gdb\)' 4
gdb_text=$(stop_text g '\(gdb\)')
type_line g detach
wait_for 10 eval '[ "$(tracer_of "$pid")" = 0 ]'
ok $? "gdb detaches"
# (gdb's session stays: the last session's end would end the server.)

# --- spyglass, the same. ---
start s "$SG_BIN" -nx -p "$pid"
wait_for 10 last_is s '^\(spyglass\)$'
ok $? "spyglass shows its prompt"
type_line s continue
wait_for 10 resumed "$pid"
ok $? "continue resumes the process, which stays traced"
shows s '^Continuing\.$'
ok $? "  and says Continuing., as gdb at its prompt"
sleep 0.3
resumed "$pid"
ok $? "  the process is not stopped while continue waits"
t0=$(date +%s%N)
tm send-keys -t s C-c
wait_for 10 prompt_after s '\(spyglass\)' 1
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
echo "# Ctrl-C during continue: the prompt after $ms ms (including tmux's round trips)"
ok $rc "Ctrl-C gives the prompt back"
[ $rc = 0 ] || show_pane s
[ "$ms" -lt 1000 ]
ok $? "  within 1 s ($ms ms)"
held "$pid"
ok $? "  with the process stopped"
type_line s bt
wait_for 10 prompt_after s '\(spyglass\)' 2
type_line s 'thread 2'
wait_for 10 prompt_after s '\(spyglass\)' 3
type_line s bt
wait_for 10 prompt_after s '\(spyglass\)' 4
sg_text=$(stop_text s '\(spyglass\)')
# gdb names the pthread in "[Switching to thread 2 (Thread 0x7f.. (LWP N))]".
# Thread 1's stop and bt as gdb's, byte for byte; thread 2's frames by
# function and line (gdb adds an entry value, seconds@entry=1000, that
# spyglass's bt does not show).
thread1() { sed '/^\[Switching/,$d'; }
thread2() { sed -n '/^\[Switching/,$p' | grep -v '^\[Switching' | sed -E 's/ \(.*\) (at|from) / () \1 /'; }
is "$(printf '%s\n' "$sg_text" | thread1)" "$(printf '%s\n' "$gdb_text" | thread1)" \
	"the stop (Thread 1 \"sg-threads\" received signal SIGINT, the frame, its line) and bt as gdb's"
like "$sg_text" '^Thread 1 "sg-threads" received signal SIGINT, Interrupt\.$' "  which names thread 1"
is "$(printf '%s\n' "$sg_text" | thread2)" "$(printf '%s\n' "$gdb_text" | thread2)" \
	"  thread 2's frames after it as gdb's"

# Again, and detach: the process runs, untraced.
n=$(prompts s '\(spyglass\)')
type_line s c
wait_for 10 resumed "$pid"
ok $? "c resumes it again"
tm send-keys -t s C-c
wait_for 10 prompt_after s '\(spyglass\)' "$n"
ok $? "  Ctrl-C stops it again"
n=$(prompts s '\(spyglass\)')
type_line s 'info threads'
wait_for 10 prompt_after s '\(spyglass\)' "$n"
is "$(pane s | grep -cE '^[* ] [0-9]+ +LWP')" 4 "info threads: the 4 threads"

# kill, answered n: nothing happens.
n=$(prompts s '\(spyglass\)')
type_line s kill
wait_for 10 last_is s '^Kill the program being debugged\? \(y or n\)$'
ok $? "kill asks gdb's question"
type_line s n
wait_for 10 prompt_after s '\(spyglass\)' "$n"
shows s '^Not confirmed\.$'
ok $? "  n: Not confirmed."
held "$pid"
ok $? "  and the process is still there, stopped"

n=$(prompts s '\(spyglass\)')
type_line s detach
wait_for 10 prompt_after s '\(spyglass\)' "$n"
wait_for 5 eval '[ "$(tracer_of "$pid")" = 0 ]'
check_threads "$pid" "detach after continue and Ctrl-C: no thread stopped or traced"

# Ctrl-C during a long command: Quit, and the session goes on.
start_fixture "$FIXTURES/sg-big" || exit 1
bpid=$FIXTURE_PID
n=$(prompts s '\(spyglass\)')
type_line s "attach $bpid"
wait_for 10 prompt_after s '\(spyglass\)' "$n"
# The value goes to a file, not to the terminal.
n=$(prompts s '\(spyglass\)')
type_line s "set logging file $testdir/big.txt"
type_line s 'set logging redirect on'
type_line s 'set logging enabled on'
type_line s 'set print elements unlimited'
wait_for 10 prompt_after s '\(spyglass\)' $((n + 3))
n=$(prompts s '\(spyglass\)')
type_line s 'print g_big'
sleep 0.03
t0=$(date +%s%N)
tm send-keys -t s C-c
wait_for 10 prompt_after s '\(spyglass\)' "$n"
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
echo "# Ctrl-C during print of a 1.2M-element array: the prompt after $ms ms"
ok $rc "Ctrl-C during print gives the prompt back"
[ "$ms" -lt 1000 ]
ok $? "  within 1 s ($ms ms)"
# (Errors go to the file too.)
if grep -q '^Quit$' "$testdir/big.txt"; then
	ok 0 "  saying Quit, as gdb"
	! grep -q '1199999}' "$testdir/big.txt"
	ok $? "  the value was cut short: the reads stopped"
else
	skip "print ended before the key reached spyglass ($ms ms)"
	skip "print ended before the key reached spyglass"
fi
n=$(prompts s '\(spyglass\)')
type_line s 'set logging enabled off'
type_line s 'print g_big[3]'
wait_for 10 prompt_after s '\(spyglass\)' $((n + 1))
shows s '^\$[0-9]+ = 3$'
ok $? "  the next command runs"

# record stops at Ctrl-C and writes its file.
n=$(prompts s '\(spyglass\)')
type_line s "record --duration 60 -o $testdir/rec.folded"
sleep 0.5
t0=$(date +%s%N)
tm send-keys -t s C-c
wait_for 10 prompt_after s '\(spyglass\)' "$n"
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
echo "# Ctrl-C during record: the prompt after $ms ms"
[ $rc = 0 ] && [ "$ms" -lt 1000 ]
ok $? "Ctrl-C ends record within 1 s ($ms ms)"
shows s 'interrupted; wrote '
ok $? "  which writes its file"

# quit: both processes run on, untraced.
type_line s quit
wait_for 10 eval '[ "$(tracer_of "$bpid")" = 0 ]'
check_threads "$bpid" "quit: the process runs, untraced"
check_threads "$pid" "  and the first one too"
done_testing
