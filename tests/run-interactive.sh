#!/bin/bash
# The interactive prompt, driven through a terminal by tmux: commands,
# completion, Ctrl-C, history across sessions, quit and Ctrl-D.
. "$top_srcdir/tests/test-subr.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux not installed"
	done_testing
fi

# A private tmux server, without the user's configuration; panes stay
# around after spyglass exits so that their last screen can be read.
unset TMUX TMUX_PANE SPYGLASS_HISTORY
tmux_conf=$testdir/tmux.conf
cat >"$tmux_conf" <<'EOF'
set -g remain-on-exit on
set -g history-limit 10000
set -g default-terminal screen
EOF
tmux_sock=sgtest$$
tm() {
	tmux -L "$tmux_sock" -f "$tmux_conf" "$@"
}
tmux_socket=
interactive_cleanup() {
	tm kill-server 2>/dev/null
	# tmux 3.3a leaves its socket behind.
	[ -n "$tmux_socket" ] && [ -S "$tmux_socket" ] && rm -f "$tmux_socket"
	cleanup
}
trap interactive_cleanup EXIT

# The history file goes to a fresh home.
export HOME=$testdir/home
mkdir -p "$HOME"
history_file=$HOME/.spyglass_history

# The pane's text, scrollback included, wrapped lines joined, in $PANE.
capture() {
	PANE=$(tm capture-pane -p -J -S - -t "$1" 2>&1 | sed 's/[[:space:]]*$//')
}

# The last non-empty line of the pane.
last_line() {
	capture "$1"
	printf '%s\n' "$PANE" | sed '/^$/d' | tail -n 1
}

pane_matches() {	# pane_matches SESSION REGEX
	capture "$1"
	printf '%s\n' "$PANE" | grep -Eq -- "$2"
}

last_line_is() {	# last_line_is SESSION REGEX
	[[ "$(last_line "$1")" =~ $2 ]]
}

# An empty prompt on the last line: spyglass waits for a command.  The
# terminal's echo of a Ctrl-C typed during a command may precede it.
at_prompt() {
	last_line_is "$1" '^(\^C)?\(spyglass\)$'
}

prompt_count() {
	capture "$1"
	printf '%s\n' "$PANE" | grep -Ec '^(\^C)?\(spyglass\)'
}

more_prompts_than() {	# more_prompts_than SESSION N: an empty prompt, and more than N prompts
	at_prompt "$1" && [ "$(prompt_count "$1")" -gt "$2" ]
}

pane_dead() {
	[ "$(tm display -p -t "$1" '#{pane_dead}' 2>/dev/null)" = 1 ]
}

# spyglass's exit status, as written by the shell that ran it (see
# start_spyglass).
status_file() {
	echo "$testdir/status.$1"
}

exited() {
	[ -s "$(status_file "$1")" ]
}

exit_status() {
	cat "$(status_file "$1")" 2>/dev/null
}

show_pane() {
	capture "$1"
	echo "#   pane $1:"
	printf '%s\n' "$PANE" | sed '/^$/d' | tail -n 40 | sed 's/^/#     /'
}

# check STATUS SESSION DESCRIPTION: ok, with the pane on failure.
check() {
	ok "$1" "$3"
	[ "$1" -eq 0 ] || show_pane "$2"
}

# has_sleeping_child PID: a child or grandchild of PID runs sleep.
has_sleeping_child() {
	local c g
	for c in $(pgrep -P "$1"); do
		for g in "$c" $(pgrep -P "$c"); do
			[ "$(cat "/proc/$g/comm" 2>/dev/null)" = sleep ] && return 0
		done
	done
	return 1
}

not_traced() {
	[ "$(tracer_of "$1")" = 0 ]
}

# start_spyglass SESSION: run spyglass on $pid in a new 200x50 terminal and
# wait for its prompt.  Sets SG_PID.
#
# spyglass runs under a bash that writes its exit status to a file: tmux
# 3.3a sometimes misses the SIGCHLD of a pane's process and leaves it a
# zombie, so #{pane_dead_status} cannot be relied on.  The bash traps SIGINT
# (rather than ignoring it, which spyglass would inherit) so that Ctrl-C does
# not end it.
start_spyglass() {
	local cmd parent
	cmd=$(printf 'trap : INT; HOME=%q LD_LIBRARY_PATH=%q %q -nx -p %q; echo $? >%q' \
		"$HOME" "$LD_LIBRARY_PATH" "$SG_BIN" "$pid" "$(status_file "$1")")
	SG_PID=
	if ! tm new-session -d -s "$1" -x 200 -y 50 bash --norc --noprofile -c "$cmd"; then
		ok 1 "$1: tmux starts a session"
		return 1
	fi
	[ -n "$tmux_socket" ] || tmux_socket=$(tm display -p '#{socket_path}')
	wait_for 10 at_prompt "$1"
	check $? "$1" "$1: spyglass shows its prompt"
	SG_PID=$(tracer_of "$pid")
	parent=$(awk '/^PPid:/ { print $2 }' "/proc/$SG_PID/status" 2>/dev/null)
	if [[ $(cat "/proc/$SG_PID/comm" 2>/dev/null) =~ ^$SG_COMM_RE$ ]] &&
	   [ "$parent" = "$(tm display -p -t "$1" '#{pane_pid}')" ]; then
		ok 0 "$1: spyglass (pid $SG_PID) is attached to the target"
	else
		ok 1 "$1: spyglass is attached to the target (tracer '$SG_PID')"
	fi
}

# type SESSION TEXT: type TEXT literally (no Enter).
type_text() {
	tm send-keys -t "$1" -l -- "$2"
}

keys() {
	tm send-keys -t "$@"
}

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

# --- First session. ---
s=one
start_spyglass $s || done_testing

# An abbreviated command.
type_text $s 'i thr'
keys $s Enter
wait_for 10 pane_matches $s '"sleeper-0"'
wait_for 5 at_prompt $s
capture $s
if printf '%s\n' "$PANE" | grep -q 'Target Id' &&
   printf '%s\n' "$PANE" | grep -q '"sleeper-0"' &&
   printf '%s\n' "$PANE" | grep -q '"reader-1"' &&
   printf '%s\n' "$PANE" | grep -q '"waiter-2"'; then
	ok 0 "'i thr' lists the threads with their names"
else
	check 1 $s "'i thr' lists the threads with their names"
fi

# Completion of a subcommand: one candidate.
n=$(prompt_count $s)
type_text $s 'info sh'
keys $s Tab
wait_for 5 last_line_is $s '^\(spyglass\) info sharedlibrary$'
check $? $s "Tab completes 'info sh' to 'info sharedlibrary'"
keys $s Enter
wait_for 10 more_prompts_than $s "$n"
capture $s
like "$PANE" 'Build ID' "the completed command runs: info sharedlibrary's header"
like "$PANE" '/libc\.so\.6$' "the completed command runs: libc.so.6 is listed"

# Completion of a command name.
n=$(prompt_count $s)
type_text $s 'hel'
keys $s Tab
wait_for 5 last_line_is $s '^\(spyglass\) help$'
check $? $s "Tab completes 'hel' to 'help'"
keys $s Enter
wait_for 10 more_prompts_than $s "$n"
capture $s
like "$PANE" '^List of commands:' "the completed 'help' runs"

# Two Tabs on an ambiguous word list the candidates.
n=$(prompt_count $s)
type_text $s 'info s'
keys $s Tab
keys $s Tab
wait_for 5 pane_matches $s 'sharedlibrary[[:space:]]+siginfo[[:space:]]+signals[[:space:]]+source[[:space:]]+stack[[:space:]]+symbol'
check $? $s "Tab Tab on 'info s' lists sharedlibrary, siginfo, signals, source, stack and symbol"
wait_for 5 last_line_is $s '^\(spyglass\) info s$'
check $? $s "the line is shown again after the list"
keys $s C-u

# Ctrl-C drops the line being typed and gives a new prompt.
n=$(prompt_count $s)
type_text $s 'info thr'
wait_for 5 last_line_is $s '^\(spyglass\) info thr$'
keys $s C-c
wait_for 5 more_prompts_than $s "$n"
check $? $s "Ctrl-C at the prompt gives a new prompt"
capture $s
like "$PANE" '^Quit$' "Ctrl-C prints Quit"
kill -0 "$SG_PID" 2>/dev/null
ok $? "spyglass is still running after Ctrl-C"
! pane_dead $s
ok $? "the pane is alive after Ctrl-C"
# The dropped text is gone: the next command runs alone.
n=$(prompt_count $s)
type_text $s 'echo marker-after-ctrl-c\n'
keys $s Enter
wait_for 5 more_prompts_than $s "$n"
capture $s
like "$PANE" '^marker-after-ctrl-c$' "after Ctrl-C the next command runs, without the dropped text"
ok $(printf '%s\n' "$PANE" | grep -q 'info threcho' && echo 1 || echo 0) "the dropped text is not prefixed to the next line"

# Ctrl-C during a command (a shell command that sleeps) ends the command,
# not spyglass.
n=$(prompt_count $s)
type_text $s 'shell sleep 30'
keys $s Enter
wait_for 5 has_sleeping_child "$SG_PID"
check $? $s "'shell sleep 30' runs a sleep under spyglass"
keys $s C-c
wait_for 5 more_prompts_than $s "$n"
check $? $s "Ctrl-C during a command ends the command and gives a new prompt"
kill -0 "$SG_PID" 2>/dev/null
ok $? "spyglass is still running after Ctrl-C during a command"
n=$(prompt_count $s)
type_text $s 'echo still-here\n'
keys $s Enter
wait_for 5 more_prompts_than $s "$n"
capture $s
like "$PANE" '^still-here$' "spyglass still runs commands after Ctrl-C during a command"

# quit.
type_text $s 'quit'
keys $s Enter
wait_for 10 exited $s
check $? $s "quit ends spyglass"
is "$(exit_status $s)" 0 "quit exits with status 0"
wait_for 2 not_traced "$pid"
check_running "$pid" "the target runs and is not traced after quit"
if [ -f "$history_file" ]; then
	ok 0 "the history is saved in \$HOME/.spyglass_history"
	hist=$(cat "$history_file")
	like "$hist" '^i thr$' "the history has 'i thr'"
	like "$hist" '^info sharedlibrary ?$' "the history has the completed line"
	is "$(printf '%s\n' "$hist" | tail -n 1)" quit "the history ends with quit"
	ok $(printf '%s\n' "$hist" | grep -q '^info thr$' && echo 1 || echo 0) "a line dropped with Ctrl-C is not in the history"
else
	ok 1 "the history is saved in \$HOME/.spyglass_history"
	ls -la "$HOME" | sed 's/^/#   /'
fi

# --- Second session: history from the first one. ---
s=two
start_spyglass $s || done_testing
keys $s Up
wait_for 5 last_line_is $s '^\(spyglass\) quit$'
check $? $s "Up recalls the last command of the previous session (quit)"
keys $s Up
wait_for 5 last_line_is $s '^\(spyglass\) echo still-here\\n$'
check $? $s "Up again recalls the one before it"
n=$(prompt_count $s)
keys $s Enter
wait_for 5 more_prompts_than $s "$n"
capture $s
like "$(printf '%s\n' "$PANE" | grep -c '^still-here$')" '^1$' "the recalled command runs"

# Ctrl-D at an empty prompt.
keys $s C-d
wait_for 10 exited $s
check $? $s "Ctrl-D ends spyglass"
is "$(exit_status $s)" 0 "Ctrl-D exits with status 0"
capture $s
like "$PANE" '^(\(spyglass\) )?quit$' "Ctrl-D prints quit"
wait_for 2 not_traced "$pid"
check_running "$pid" "the target runs and is not traced after Ctrl-D"
hist=$(cat "$history_file" 2>/dev/null)
like "$(printf '%s\n' "$hist" | tail -n 1)" '^echo still-here\\n$' "the second session's command is appended to the history"
like "$hist" '^i thr$' "the first session's history is kept"

done_testing
