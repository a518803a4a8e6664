#!/bin/bash
# gdb's habits (issue 14): the settings gdb scripts and rc files start with,
# in a -x file and in ~/.spyglassrc, against gdb's show; logging to a file;
# the repeat of an empty line at the prompt (through tmux), against gdb's
# x; apropos; show version; pwd and cd; spyglass PROGRAM PID|CORE; and
# that every command has help and a section in the docs.
. "$top_srcdir/tests/test-subr.sh"

if have_gdb; then
	# gdb_nt ARGS...: gdb without a target, stdout and stderr together.
	gdb_nt() { GDB_OUT=$("$GDB" -nx -batch "$@" 2>&1); }
else
	echo "# gdb not installed: the comparisons with gdb are skipped"
fi
# sg_vs_gdb_nt DESCRIPTION ARGS...: spyglass's stdout then stderr against
# gdb's, both without a target.
sg_vs_gdb_nt() {
	local desc=$1
	shift
	if ! have_gdb; then
		skip "gdb not installed: $desc"
		return
	fi
	sg "$@"
	local ours=$OUT
	[ -n "$ERR" ] && ours+=${ours:+$'\n'}$ERR
	gdb_nt "$@"
	is "$ours" "$GDB_OUT" "$desc"
}

# ---- 1. The settings scripts start with ----
sets=$testdir/sets.gdb
cat >"$sets" <<'EOF'
set pagination off
set height 0
set width 0
set confirm off
set print object on
set print static-members
set print symbol-loading off
set verbose off
set logging file habits-gdb.txt
set logging overwrite
set logging redirect off
set logging debugredirect on
set style enabled off
set debuginfod enabled off
set auto-load safe-path /
set breakpoint pending off
set disassemble-next-line on
set python print-stack full
EOF
shows=(
	'show pagination' 'show height' 'show width' 'show confirm' 'show print object'
	'show print static-members' 'show print symbol-loading' 'show verbose' 'show logging'
	'show logging file' 'show style enabled' 'show debuginfod enabled'
	'show auto-load safe-path' 'show breakpoint pending' 'show disassemble-next-line'
	'show python print-stack'
)
{ cat "$sets"; printf '%s\n' "${shows[@]}"; } >"$testdir/sets-shows.gdb"

sg -x "$testdir/sets-shows.gdb"
is "$STATUS:$ERR" "0:" "a -x file of gdb's start-up settings runs to its end, without an error"
like "$OUT" '^Auto-load files are safe to load from any directory\.$' "  and its last lines ran"
sg_vs_gdb_nt "-x: each setting shows as gdb shows it" -x "$testdir/sets-shows.gdb"

# The defaults (debuginfod's depends on DEBUGINFOD_URLS, tested below).
defaults=()
for s in "${shows[@]}"; do
	case $s in 'show debuginfod enabled') ;; *) defaults+=(-ex "$s") ;; esac
done
sg_vs_gdb_nt "the defaults, as gdb -batch shows them" "${defaults[@]}"

# Abbreviated, as people type them.
abbrev=(-ex 'set pag off' -ex 'set logg ov on' -ex 'set print symbol-l brief' -ex 'set verb on'
	-ex 'set sty en on' -ex 'set debuginfod en ask' -ex 'set br pe on' -ex 'set disassemble-n auto'
	-ex 'set py print-stack none' -ex 'set auto-load safe-path /usr:/opt'
	-ex 'show pag' -ex 'show logg ov' -ex 'show print symbol-l' -ex 'show verb' -ex 'show sty en'
	-ex 'show debuginfod en' -ex 'show br pe' -ex 'show disassemble-n' -ex 'show py print-stack'
	-ex 'show auto-load safe-path' -ex 'set auto-load safe-path' -ex 'show auto-load safe-path')
sg_vs_gdb_nt "abbreviated words, other values, and safe-path back to its default" "${abbrev[@]}"

# History: gdb's settings set the prompt's history file, its size and
# whether it is saved.
hist=(-ex 'set history save off' -ex 'set history size 100' -ex 'set history filename ~/.gh'
	-ex 'show history save' -ex 'show history size' -ex 'show history filename'
	-ex 'set history size unlimited' -ex 'show history size' -ex 'set history size -1'
	-ex 'show history size' -ex 'set history size 0' -ex 'show history size'
	-ex 'set history filename rel.txt' -ex 'show history filename'
	-ex 'set history expansion on' -ex 'show history expansion')
HOME=$testdir sg_vs_gdb_nt "set history save, size, filename (~ and relative names), expansion" "${hist[@]}"

# The same file as ~/.spyglassrc (the tests' HOME is the build's; this
# one is the test's own).
rchome=$testdir/rchome
mkdir -p "$rchome" && chmod 755 "$rchome"
{ cat "$sets"; printf 'echo rc done\\n\n'; } >"$rchome/.spyglassrc"
showargs=()
for s in "${shows[@]}"; do
	showargs+=(-ex "$s")
done
OUT=$(cd "$testdir" && HOME=$rchome "$SG_BIN" -batch "${showargs[@]}" 2>"$testdir/rc.err")
STATUS=$?
ERR=$(cat "$testdir/rc.err")
is "$STATUS:$ERR:$(head -n 1 <<<"$OUT")" "0::rc done" "~/.spyglassrc of gdb's settings runs to its end, without an error"
if have_gdb; then
	gdb_nt -x "$testdir/sets-shows.gdb"
	is "$(tail -n +2 <<<"$OUT")" "$GDB_OUT" "  and the settings it made show as gdb's"
else
	skip "gdb not installed: ~/.spyglassrc's settings against gdb"
fi

# JSON: show gives the name and value of each.
OUT=$("$SG_BIN" -nx -batch --json -ex 'set logging file /tmp/x.log' -ex 'show logging' -ex 'show pagination' 2>&1)
is "$(jq -r 'select(.settings) | .settings[] | "\(.name)=\(.value)"' <<<"$OUT" | tr '\n' ' ')" \
	"logging debugredirect=off logging enabled=off logging file=/tmp/x.log logging overwrite=off logging redirect=off pagination=on " \
	"--json: show logging and show pagination, name and value of each"

OUT=$("$SG_BIN" -nx -batch --json -ex 'show' 2>&1)
is "$(jq -r '[.settings[].name, .more_settings[].name] | map(select(. == "pagination" or . == "logging file" or . == "print symbol-loading")) | join(",")' <<<"$OUT")" \
	"pagination,print symbol-loading,logging file" "--json: show lists the registry's settings, then gdb's others"

# ---- 2. Errors: one line, as gdb words it, and a failing status ----
for cmd in 'set logging file' 'set history size' 'set verbose foo' 'set python print-stack foo' \
	'set print symbol-loading' 'set debuginfod enabled' 'set logging enabled maybe' \
	'pwd x' 'apropos' 'cd /nonexistent-habits'; do
	sg -ex "$cmd"
	st=$STATUS
	if have_gdb; then
		gdb_nt -ex "$cmd"
		is "$st:$OUT:$ERR" "1::$GDB_OUT" "error of \"$cmd\": gdb's words, status 1"
	else
		is "$st:$OUT:$(wc -l <<<"$ERR")" "1::1" "error of \"$cmd\": one line, status 1"
	fi
done
printf 'set pagination off\nset logging file\necho not reached\\n\n' >"$testdir/bad.gdb"
sg -x "$testdir/bad.gdb"
is "$STATUS:$OUT:$ERR" "1::$testdir/bad.gdb:2: Argument required (filename to set it to.)." \
	"a -x file stops at a bad setting, with FILE:LINE:"

# ---- 3. Logging ----
log=$testdir/log.txt
logrun() {
	sg -ex "set logging file $log" "$@" -ex 'set logging enabled on' -ex 'echo one\n' \
		-ex 'frobnicate' -ex 'set logging enabled off' -ex 'echo two\n'
}
logrun -ex 'set logging overwrite on'
undef='Undefined command: "frobnicate".  Try "help".'
is "$OUT|$ERR" "one"$'\n'"two|$undef" "logging: the terminal still gets output and errors"
is "$(cat "$log")" "one"$'\n'"$undef" "  the log has what was written while logging, errors too"
logrun
is "$(cat "$log")" "one"$'\n'"$undef"$'\n'"one"$'\n'"$undef" "  logging appends, without overwrite"
logrun -ex 'set logging overwrite on' -ex 'set logging redirect on'
is "$OUT|$ERR|$(cat "$log")" "two||one"$'\n'"$undef" "  redirect: only the log gets them"
mkdir -p "$testdir/oldform"
OUT=$(cd "$testdir/oldform" && "$SG_BIN" -nx -batch -ex 'set logging on' -ex 'echo logged\n' \
	-ex 'set logging off' -ex 'echo after\n' 2>"$testdir/old.err")
# The warning of "set logging off" is written while logging, as gdb's is.
is "$OUT|$(cat "$testdir/oldform/gdb.txt" 2>&1)" "logged"$'\n'"after|logged
Warning: 'set logging off', an alias for the command 'set logging enabled', is deprecated.
Use 'set logging enabled off'." \
	"gdb's older set logging on|off, to gdb.txt in the working directory"
like "$(cat "$testdir/old.err")" "^Warning: 'set logging on', an alias for the command 'set logging enabled', is deprecated\.$" \
	"  with gdb's warning"
# A child of shell that keeps the copy's pipe open does not hold up
# "set logging enabled off", nor the exit.
SECONDS=0
OUT=$("$SG_BIN" -nx -batch -ex "set logging file $log" -ex 'set logging enabled on' \
	-ex 'shell sleep 4 &' -ex 'echo in\n' -ex 'set logging enabled off' -ex 'echo out\n' 2>&1)
t=$SECONDS
is "$OUT:$(tail -n 1 "$log")" $'in\nout:in' "logging stops at once while a child of shell holds its pipe"
if wrapped; then
	skip_wrapped "the time logging takes to stop"
else
	ok $((t < 3 ? 0 : 1)) "  (in ${t}s)"
fi
sg -ex 'set logging file /nonexistent-habits/x' -ex 'set logging enabled on' -ex 'show logging enabled'
is "$STATUS:$OUT:$ERR" "0:off: Logging is disabled.:cannot open /nonexistent-habits/x: No such file or directory" \
	"logging to a file that cannot be opened: one error, logging stays off"

# ---- 4. debuginfod enabled: off puts DEBUGINFOD_URLS aside ----
OUT=$(DEBUGINFOD_URLS=http://debuginfod.invalid "$SG_BIN" -nx -batch -ex 'show debuginfod enabled' \
	-ex 'set debuginfod enabled off' -ex 'shell echo "[$DEBUGINFOD_URLS]"' \
	-ex 'set debuginfod enabled on' -ex 'shell echo "[$DEBUGINFOD_URLS]"' 2>&1)
is "$OUT" 'Debuginfod functionality is currently set to "on".
[]
[http://debuginfod.invalid]' "debuginfod enabled: on with DEBUGINFOD_URLS; off sets it aside, on puts it back"
OUT=$(env -u DEBUGINFOD_URLS "$SG_BIN" -nx -batch -ex 'show debuginfod enabled' 2>&1)
is "$OUT" 'Debuginfod functionality is currently set to "off".' "debuginfod enabled: off without DEBUGINFOD_URLS"

# ---- 5. apropos ----
sg_vs_gdb_nt "apropos ^pwd\$: gdb's line" -ex 'apropos ^pwd$'
sg_vs_gdb_nt "apropos with no match prints nothing" -ex 'apropos zzqqxxhabits'
sg -ex 'apropos PAGINATION'
like "$OUT" '^set pagination -- Set state of pagination\.$' "apropos is case-insensitive, and finds settings"
like "$OUT" '^show pagination -- Show state of pagination\.$' "  set and show"
sg -ex 'apropos backtrace'
like "$OUT" '^backtrace, bt, where -- Print the selected thread.s stack\.$' "apropos: name, aliases -- summary"
sg -ex 'apropos DEBUGINFOD_URLS'
like "$OUT" '^set -- Change a setting\.$' "apropos searches the full help too"
sg -ex 'apropos -v ^cd$'
is "$OUT" "
cd
Set working directory to DIR.
$("$SG_BIN" -nx -batch --json -ex 'help cd' | jq -r .details)" "apropos -v: a blank line, the name, the whole help"
OUT=$("$SG_BIN" -nx -batch --json -ex 'apropos working directory' 2>&1)
is "$(jq -r '.commands[].name' <<<"$OUT" | tr '\n' ' ')" "cd pwd " "--json: apropos's commands"

# ---- 6. show version, pwd, cd ----
sg -ex 'show version'
is "$(head -n 1 <<<"$OUT")" "$("$SG_BIN" --version)" "show version: its first line is --version's"
ok $(($(wc -l <<<"$OUT") >= 2 ? 0 : 1)) "  then a line about spyglass"
OUT=$("$SG_BIN" -nx -batch --json -ex 'show version')
is "spyglass $(jq -r .version <<<"$OUT")" "$("$SG_BIN" --version)" "--json: show version's version"

dir=$(cd "$testdir" && pwd -P)
mkdir -p "$dir/h/sub"
sg_vs_gdb_nt "cd DIR, pwd" -ex "cd $dir" -ex 'pwd' -ex 'cd h/sub' -ex 'pwd' -ex 'cd ..' -ex 'pwd'
HOME=$dir/h sg_vs_gdb_nt "cd with no argument goes home, cd ~/sub" -ex 'cd' -ex 'pwd' -ex 'cd ~/sub' -ex 'pwd'
OUT=$("$SG_BIN" -nx -batch --json -ex "cd $dir" -ex pwd | jq -r .directory)
is "$OUT" "$dir"$'\n'"$dir" "--json: cd and pwd give the directory"

# ---- 7. An empty line in a file or a pipe does nothing ----
printf 'echo a\\n\n\necho b\\n\n\n' >"$testdir/empty.gdb"
sg_vs_gdb_nt "an empty line in a -x file repeats nothing" -x "$testdir/empty.gdb"
OUT=$("$SG_BIN" -nx <"$testdir/empty.gdb" 2>&1)
is "$OUT" $'a\nb' "  nor from a pipe"

# ---- 8. spyglass PROGRAM PID and PROGRAM CORE ----
exe=$FIXTURES/sg-deep
start_fixture "$exe" 5 || exit 1
pid=$FIXTURE_PID
sg -p "$pid" -ex 'bt' -ex 'info threads'
want=$OUT
sg "$exe" "$pid" -ex 'bt' -ex 'info threads'
is "$STATUS:$OUT" "0:$want" "spyglass PROGRAM PID attaches, as -p PID does"
check_running "$pid" "  and lets the process run"
mkdir -p "$testdir/pidfile"
: >"$testdir/pidfile/$pid"
OUT=$(cd "$testdir/pidfile" && "$SG_BIN" -nx -batch "$exe" "$pid" -ex 'bt' 2>&1)
st=$?
ok $((st == 2 ? 0 : 1)) "a second argument that names a file is a core, even a number (status $st)"
like "$OUT" "$pid" "  the error names it"
ok $((${#OUT} > 0 && $(tracer_of "$pid") == 0 ? 0 : 1)) "  and nothing attached to process $pid"
sg "$exe" no-such-core-habits -ex bt
ok $((STATUS == 2 ? 0 : 1)) "PROGRAM NAME of no file and no number: status 2 (got $STATUS)"
like "$ERR" 'no-such-core-habits' "  the error names the file"
sg "$exe" "$pid" extra
is "$STATUS" 64 "a third argument is a usage error"
if have_gdb; then
	# Of sg-threads: the sanitizer build links sg-deep with ASan, whose
	# shadow memory made gdb's gcore of it 78 GB.
	tex=$FIXTURES/sg-threads
	start_fixture "$tex" 2 || exit 1
	tpid=$FIXTURE_PID
	core=$testdir/threads.core
	"$GDB" -nx -batch -p "$tpid" -ex "gcore $core" >/dev/null 2>&1
	stop_fixture "$tpid"
	sg -c "$core" "$tex" -ex 'bt'
	want=$OUT
	like "$want" $'\n#0 ' "-c CORE PROGRAM: the core's bt${ERR:+: $ERR}"
	sg "$tex" "$core" -ex 'bt'
	is "$STATUS:$OUT" "0:$want" "spyglass PROGRAM CORE opens the core, as -c CORE PROGRAM does${ERR:+: $ERR}"
	rm -f "$core"
else
	skip "gdb not installed: no gcore for spyglass PROGRAM CORE"
fi

# ---- 9. The prompt: an empty line repeats the last command ----
if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux not installed: no test of the prompt's repeat"
else
	unset TMUX TMUX_PANE
	tm() { tmux -L "sghabits$$" -f /dev/null "$@"; }
	pane() { tm capture-pane -p -J -S - -t c 2>/dev/null | sed 's/[[:space:]]*$//' | sed '/^$/d'; }
	prompts() { pane | grep -c '^(spyglass)'; }
	norm() { tr -s ' \t' ' '; }
	tm_sock=
	tm_cleanup() {
		tm kill-server 2>/dev/null
		[ -n "$tm_sock" ] && [ -S "$tm_sock" ] && rm -f "$tm_sock"
		cleanup
	}
	trap tm_cleanup EXIT
	# gdb's answers first: it cannot attach while spyglass is.
	gdb_x6= gdb_x3=
	if have_gdb; then
		gdb_batch "$pid" 'x/6xg $sp'
		gdb_x6=$(grep '^0x' <<<"$GDB_OUT" | norm)
		gdb_batch "$pid" 'x/3xb $sp+1' 'x/3xb $sp+4'
		gdb_x3=$(grep '^0x' <<<"$GDB_OUT" | norm)
	fi
	tm new-session -d -s c -x 200 -y 50 \
		"$(printf 'HOME=%q LD_LIBRARY_PATH=%q %q -nx -p %q -ex %q' "$testdir" "$LD_LIBRARY_PATH" "$SG_BIN" "$pid" \
			"set history filename $testdir/habits.hist")"
	tm_sock=$(tm display -p '#{socket_path}')
	wait_for 10 eval '[ "$(pane | tail -n 1)" = "(spyglass)" ]'
	ok $? "the prompt comes up"
	# keys TEXT [ENTERS]: type TEXT, Enter, then ENTERS more empty lines,
	# each waited for; the pane's new lines are in $NEW.
	keys() {
		local before n=$((1 + ${2:-0})) i
		before=$(pane | wc -l)
		tm send-keys -t c -l -- "$1"
		for i in $(seq 1 "$n"); do
			local p
			p=$(prompts)
			tm send-keys -t c Enter
			wait_for 20 eval '[ "$(prompts)" -gt "$p" ] && [ "$(pane | tail -n 1)" = "(spyglass)" ]' ||
				echo "# no prompt after: $1"
		done
		NEW=$(pane | tail -n +"$((before + 0))")
	}

	keys '' 1
	is "$NEW" "(spyglass)
(spyglass)
(spyglass)" "an empty line before any command does nothing"
	keys 'bt 2' 1
	is "$(grep -c '^(More stack frames follow...)' <<<"$NEW")" 2 "bt 2, then Enter: the backtrace again"
	keys 'x/2xg $sp' 2
	ours=$(grep '^0x' <<<"$NEW" | norm)
	if have_gdb; then
		is "$ours" "$gdb_x6" "x/2xg \$sp, Enter, Enter: where gdb's x/6xg \$sp goes"
	else
		is "$(wc -l <<<"$ours")" 3 "x/2xg \$sp, Enter, Enter: three lines"
	fi
	keys 'x/3xb $sp+1' 1
	ours=$(grep '^0x' <<<"$NEW" | norm)
	if have_gdb; then
		is "$ours" "$gdb_x3" "x/3xb, Enter: the next 3 bytes, as gdb"
	else
		skip "gdb not installed: x/3xb repeat"
	fi
	keys 'frame 1'
	keys 'up' 1
	like "$NEW" '^#3 ' "up, then Enter: up again, to frame 3"
	keys 'echo hi\n' 1
	is "$(grep -c '^hi$' <<<"$NEW")" 2 "echo, then Enter: echo again (gdb repeats it)"
	keys 'set pagination off' 2
	is "$(grep -v '^(spyglass)' <<<"$NEW" | wc -l):$(grep -c '^(spyglass)' <<<"$NEW")" "0:4" \
		"set, then Enter: not repeated"
	keys "cd $dir" 1
	is "$(grep -c '^Working directory' <<<"$NEW")" 1 "cd, then Enter: not repeated"
	keys 'frobnicate' 1
	is "$(grep -c '^Undefined command' <<<"$NEW")" 1 "an undefined command is not repeated"
	keys 'pwd' 1
	is "$(grep -c "^Working directory $dir\.$" <<<"$NEW")" 2 "pwd, then Enter: pwd again; cd stayed"
	# Logging at the prompt: gdb's messages; the log has the output,
	# not the prompt or what was typed.
	keys "set logging file $testdir/prompt.log"
	keys 'set logging enabled on'
	like "$NEW" "^Copying output to $testdir/prompt.log\.\$" "set logging enabled on at the prompt: gdb's message"
	keys 'pwd'
	like "$NEW" "^\(spyglass\) pwd"$'\n'"Working directory $dir\.\$" "  the output still shows, before the next prompt"
	keys 'set logging enabled off'
	like "$NEW" "^Done logging to $testdir/prompt.log\.\$" "  set logging enabled off: gdb's message"
	is "$(cat "$testdir/prompt.log")" "Working directory $dir." "  the log has the output, not the prompt"
	keys '# a comment' 1
	is "$(grep -vc '^(spyglass)' <<<"$NEW")" 0 "a comment, then Enter: nothing"
	# Tab completes setting names after set and show.
	tm send-keys -t c -l -- 'set logging ov'
	tm send-keys -t c Tab
	wait_for 5 eval '[ "$(pane | tail -n 1)" = "(spyglass) set logging overwrite" ]'
	ok $? "Tab completes set logging ov to set logging overwrite"
	tm send-keys -t c C-u
	tm send-keys -t c -l -- 'show print symbol-l'
	tm send-keys -t c Tab
	wait_for 5 eval '[ "$(pane | tail -n 1)" = "(spyglass) show print symbol-loading" ]'
	ok $? "Tab completes show print symbol-l to show print symbol-loading"
	tm send-keys -t c C-u
	keys 'detach'
	keys '' 1
	is "$(grep -c 'etach' <<<"$NEW")" 0 "detach, then Enter: not repeated"
	tm send-keys -t c -l -- 'quit'
	tm send-keys -t c Enter
	wait_for 10 eval '[ "$(tracer_of "$pid")" = 0 ]'
	check_running "$pid" "the process runs after the prompt's session"
	wait_for 10 test -s "$testdir/habits.hist"
	like "$(cat "$testdir/habits.hist" 2>/dev/null)" '^bt 2$' "the history went to set history filename's file"
	ok $([ -e "$testdir/.spyglass_history" ] && echo 1 || echo 0) "  not to ~/.spyglass_history"
fi
stop_fixture "$pid"

# ---- 10. Every command has help and a section in the docs ----
names=$("$SG_BIN" -nx -batch --json -ex help | jq -r '.commands[].name')
ok $(($(wc -l <<<"$names") >= 40 ? 0 : 1)) "help lists the commands ($(wc -l <<<"$names"))"
nohelp=() nodetails=() nodoc=()
while read -r name; do
	h=$("$SG_BIN" -nx -batch --json -ex "help $name" 2>/dev/null)
	[ -n "$(jq -r '.summary // empty' <<<"$h")" ] || nohelp+=("$name")
	[ -n "$(jq -r '.details // empty' <<<"$h")" ] || nodetails+=("$name")
	grep -qE -- "\`$name([^a-z0-9_-]|\$)" "$top_srcdir/doc/commands.md" ||
		nodoc+=("$name")
done <<<"$names"
ok ${#nohelp[@]} "every command has a summary for help"
for n in "${nohelp[@]}"; do echo "#   no help: $n"; done
ok ${#nodoc[@]} "every command is described in doc/commands.md"
for n in "${nodoc[@]}"; do echo "#   not in the docs: $n"; done
# Not a failure: a summary and a usage line are help enough for some.
for n in "${nodetails[@]}"; do echo "# note: only a summary (no further help): $n"; done
# help CMD prints the summary and usage of each.
sg -ex 'help apropos'
is "$(head -n 2 <<<"$OUT")" "Search for commands matching a REGEXP.
Usage: apropos [-v] REGEXP" "help apropos: summary and usage"

done_testing
