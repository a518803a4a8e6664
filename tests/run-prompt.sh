#!/bin/bash
# Answers at the prompt that used to be silently wrong, against gdb on the
# same process: x in the selected frame and on any expression, x up to an
# unmapped page, info frame's neighbours and its LEVEL argument, info
# sharedlibrary REGEX, and globals whose symbol carries an ABI tag.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb not installed: no oracle for the prompt commands"
	done_testing
fi

# The lines of info frame that spyglass shares with gdb (gdb's Arglist,
# Locals and Saved registers are not shown).
frame_lines() {
	grep -E '^(Stack |#[0-9]| rip = | inlined into| tail call frame| called by | caller of | source language | Outermost frame)|^No frame|^Argument required'
}
# sg_vs_gdb DESCRIPTION FILTER COMMAND...: spyglass's stdout and stderr
# (stderr right after, as on a terminal) through FILTER, against gdb's.
sg_vs_gdb() {
	local desc=$1 filter=$2
	shift 2
	sg_cmds "$pid" "$@"
	local ours=$OUT
	# An error after a partial line of x ends that line, as on a tty.
	if [ -n "$ERR" ]; then
		[ -n "$ours" ] && [ "${ours: -1}" != $'\t' ] && ours+=$'\n'
		ours+=$ERR
	fi
	# Frame lines (#3 ...) are the frame commands' and print's business,
	# and so are their source lines, which gdb_batch drops from gdb's.
	ours=$(printf '%s\n' "$ours" | grep -v '^#' | grep -vE '^[0-9]+[[:space:]]' | $filter)
	gdb_batch "$pid" "$@"
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | grep -v '^#' | $filter)" "$desc"
}

check_fixture() {
	local fx=$1 outer=$2
	start_fixture "$FIXTURES/$fx" || return
	pid=$FIXTURE_PID

	# 1. Registers in x are the selected frame's, as in print.
	sg_vs_gdb "$fx: x/2xg \$sp, x/4xw \$rsp+8 in frame 3" cat \
		'frame 3' 'x/2xg $sp' 'print $sp' 'x/4xw $rsp+8'
	# x labels as gdb's (its "print asm-demangle" is off): a C++
	# function by its linkage name, <_Z5innerPKci+78>, main as <main()>.
	sg_vs_gdb "$fx: x/xg \$pc in frame 2, x/a, x of main" cat \
		'frame 2' 'x/xg $pc' 'x/2xb $pc+1' 'x/2a $sp' 'x/xg main' 'x/xb main+4'
	sg_vs_gdb "$fx: x/xb \$pc in frame 0 (libc, C)" cat 'x/xb $pc'
	sg_cmds "$pid" 'frame 3' 'print $sp' 'x/xg $sp'
	like "$OUT" "^\\\$1 = \\(void \\*\\) (0x[0-9a-f]+)"$'\n'"0x[0-9a-f]+:" "$fx: print \$sp and x \$sp agree"
	[ "$(sed -n 's/^\$1 = (void \*) //p' <<<"$OUT")" = "$(sed -n 's/^\(0x[0-9a-f]*\):.*/\1/p' <<<"$OUT")" ]
	ok $? "$fx: x/xg \$sp reads at the selected frame's \$sp"

	# 2. info frame: called by the caller's frame address, caller of the
	# callee's, at the innermost, a middle and the outermost level.
	sg_vs_gdb "$fx: info frame at levels 0, 1, 3 and the outermost ($outer)" frame_lines \
		'info frame' 'frame 1' 'info frame' 'frame 3' 'info frame' "frame $outer" 'info frame'

	# 3. info frame LEVEL describes that frame and leaves the selection.
	sg_vs_gdb "$fx: info frame 1, info frame level 2, errors" frame_lines \
		'frame 3' 'info frame 1' 'info frame level 2' 'frame' 'info frame 9' 'info frame level'
	cfa=$(sg_cmds "$pid" 'info frame 2'; sed -n 's/^Stack frame at \(0x[0-9a-f]*\):$/\1/p' <<<"$OUT")
	sg_vs_gdb "$fx: info frame address CFA" frame_lines "info frame address $cfa"

	# 5. x on any expression: a char * is followed, members, casts.
	sg_vs_gdb "$fx: x on globals: char *, members, casts, arrays" cat \
		'x/s g_msg' 'x/3c g_msg+1' 'x/2dg &g_point.x' 'x/2xg &g_point.y' 'x/s g_point.name' \
		'x/4xb (char *)&g_point' 'x/2xb g_bytes' 'x/s g_bytes+4' \
		'x/2xb &g_bytes[g_point.y - 1]' 'print g_bytes[g_point.x]'
	# (One error per run: spyglass's stderr is compared after its stdout.)
	sg_vs_gdb "$fx: x of a struct is refused as by gdb" cat 'x/2xg g_point'
	sg_vs_gdb "$fx: the tagged spelling is no expression, as in gdb" cat 'print g[abi:cxx11]'
	# (-O2 leaves msg optimized out, which print words its own way.)
	[ "$fx" = sg-prompt ] && sg_vs_gdb "$fx: x/s on a char * argument" cat 'frame 2' 'x/s msg'
	sg_vs_gdb "$fx: x on locals of frames 2 and 3" cat \
		'frame 2' 'x/s local_buf' 'x/s &local_buf[depth - 19]' 'frame 3' 'x/s s._M_dataplus._M_p' 'x/2xg &p->y' 'x/xg p'
	# 6. info address of a local: the frame's variable, not a global,
	# described as gdb does (-O0: at the CFA-based frame base).
	if [ "$fx" = sg-prompt ]; then
		sg_vs_gdb "$fx: info address of locals and arguments" cat \
			'frame 3' 'info address sum' 'info address p' 'info address s' 'frame 2' \
			'info address cursor' 'info address local_buf'
	else
		sg_cmds "$pid" 'frame 2' 'info address depth'
		like "$OUT" '^Symbol "depth" is multi-location' "$fx: a location list is multi-location, as gdb says"
	fi
	check_running "$pid" "$fx: target runs"
	stop_fixture "$pid"
}

check_fixture sg-prompt 5
check_fixture sg-prompt-O2 5

# 2, 3. info frame on every frame of every thread of the backtrace
# fixtures: inlined calls (gdb's "inlined into frame N"), tail-call frames,
# signal trampolines, frames without a symbol, and the outermost frame
# (gdb's "Outermost frame: outermost", frame at 0x0).
for fx in bt-c-O2 bt-cc-O2; do
	start_fixture "$FIXTURES/$fx" || continue
	pid=$FIXTURE_PID
	cmds=()
	for t in $(seq 1 "$(ls "/proc/$pid/task" | wc -l)"); do
		cmds+=("thread $t")
		for l in $(seq 0 9); do
			cmds+=("info frame $l")
		done
	done
	sg_cmds "$pid" "${cmds[@]}"
	ours=$(printf '%s\n' "$OUT" | frame_lines | grep -v '^#\|^No frame')
	gdb_batch "$pid" "${cmds[@]}"
	is "$ours" "$(printf '%s\n' "$GDB_OUT" | frame_lines | grep -v '^#\|^No frame')" \
		"$fx: info frame 0-9 of every thread, as gdb's"
	stop_fixture "$pid"
done

start_fixture "$FIXTURES/sg-prompt" || exit 1
pid=$FIXTURE_PID

# 4. info sharedlibrary REGEX: the same libraries as gdb's (spyglass's
# columns and order are its own; the name is the last column).
for re in 'libc' 'lib[cm]\.' 'ld-linux'; do
	sg_cmds "$pid" "info sharedlibrary $re"
	ours=$(awk '/^0x/ { print $NF }' <<<"$OUT" | sort)
	gdb_batch "$pid" "info sharedlibrary $re"
	is "$ours" "$(awk '/^0x/ { print $NF }' <<<"$GDB_OUT" | sort)" "info sharedlibrary $re: gdb's libraries"
done
sg_cmds "$pid" 'info sharedlibrary nomatch'
gdb_batch "$pid" 'info sharedlibrary nomatch'
is "$OUT" "$GDB_OUT" "info sharedlibrary with no match: gdb's words"

# 6. Globals whose symbol has an ABI tag (g is _Z1gB5cxx11, g[abi:cxx11]).
sg_vs_gdb "ABI-tagged globals: info address, info symbol" cat \
	'info address g' 'info address g[abi:cxx11]' 'info address g_long' 'info symbol &g' \
	'info symbol &g_long' 'info address g_point' 'info symbol &g_point.y'
sg_vs_gdb "info symbol takes expressions, in the selected frame" cat \
	'frame 3' 'info symbol $pc' 'info symbol $sp' 'info symbol main' 'info symbol &g_bytes[3]' \
	'info symbol block' 'info symbol g_point'
sg_vs_gdb "ABI-tagged globals: x labels them by their symbol, <_Z1gB5cxx11>" cat \
	'x/2xg &g' 'x/s g._M_dataplus._M_p' 'x/xg &g_long'

# 7. x into an unmapped page: what is readable, then gdb's error.
sg_vs_gdb "x/40xb up to an unmapped page" cat 'x/40xb g_edge'
sg_vs_gdb "x/12xb from inside the last line" cat 'x/12xb g_edge+12'
sg_vs_gdb "x/2xg with the fault inside the first item" cat 'x/2xg g_edge+12'
sg_vs_gdb "x/5xg with the fault on a line boundary" cat 'x/5xg g_edge'
sg_vs_gdb "x/2s into an unmapped page: the string read, then the error, in place" cat \
	'x/2s g_edge' 'x/2s g_edge+12' 'x/2s 0'
sg_cmds "$pid" 'x/65536xb g_edge'
sg_out=$OUT
ok $((STATUS != 1)) "x/65536xb g_edge fails (status $STATUS)"
gdb_batch "$pid" 'x/65536xb g_edge'
is "$sg_out$ERR" "$GDB_OUT" "x/65536xb g_edge: 16 bytes, then the error, as gdb"

# 6. Completion offers g_long[abi:cxx11], as gdb's does, and info address
# takes what it offers.  Through a terminal (tmux), for readline.
if command -v tmux >/dev/null 2>&1; then
	unset TMUX TMUX_PANE
	tm() { tmux -L "sgprompt$$" -f /dev/null "$@"; }
	pane() { tm capture-pane -p -J -t c 2>/dev/null | sed 's/[[:space:]]*$//' | sed '/^$/d'; }
	last_is() { [[ "$(pane | tail -n 1)" =~ $1 ]]; }
	shows() { pane | grep -Eq -- "$1"; }
	tm_sock=
	tm_cleanup() {
		tm kill-server 2>/dev/null
		# tmux 3.3a leaves its socket behind.
		[ -n "$tm_sock" ] && [ -S "$tm_sock" ] && rm -f "$tm_sock"
		cleanup
	}
	trap tm_cleanup EXIT
	tm new-session -d -s c -x 200 -y 50 \
		"$(printf 'HOME=%q LD_LIBRARY_PATH=%q %q -nx -p %q' "$testdir" "$LD_LIBRARY_PATH" "$SG_BIN" "$pid")"
	tm_sock=$(tm display -p '#{socket_path}')
	wait_for 10 last_is '^\(spyglass\)$'
	ok $? "the prompt comes up"
	tm send-keys -t c -l -- 'info address g_lo'
	tm send-keys -t c Tab
	wait_for 5 last_is '^\(spyglass\) info address g_long\[abi:cxx11\] ?$'
	ok $? "Tab completes g_lo to g_long[abi:cxx11]"
	tm send-keys -t c Enter
	wait_for 10 shows '^Symbol "g_long\[abi:cxx11\]" is static storage at address 0x[0-9a-f]+\.$'
	ok $? "info address takes the completed name"
	tm send-keys -t c -l -- 'quit'
	tm send-keys -t c Enter
	wait_for 10 eval '[ "$(tracer_of "$pid")" = 0 ]'
else
	skip "tmux not installed: no completion test"
fi

check_running "$pid" "target runs after the batch"
done_testing
