#!/bin/bash
# Source code (doc/commands.md, "Source code"): list, info source, info line,
# directory, set substitute-path, set listsize, and the source line that
# frame, up, down and thread print, against gdb on the same process:
#
# - tests/fixtures/bt-c-O0 live: every command's stdout and stderr as
#   gdb's, byte for byte (but for the thread's pthread id, which gdb
#   shows from libthread_db), in sequences that exercise the current
#   line: list going on, list -, centring after a frame is shown, a
#   missing file (libc's: "No such file" once, then "N<tab>in FILE");
# - tests/fixtures/bt-c-O2: inlined frames and functions only inlined;
# - gdb's gcore of it (spyglass -c CORE EXE against gdb -c CORE EXE);
# - tests/fixtures/sg-deep.c built in a folder whose source then moves:
#   found again through "directory" (by recorded name and by base name)
#   and "set substitute-path", as gdb finds it;
# - a frame 0 without line information (a library without DWARF): list
#   starts near main, as gdb's;
# - --json parsed with jq, and the errors: one line, non-zero status.
. "$top_srcdir/tests/test-subr.sh"

have_gdb || { skip "gdb is not installed: no oracle for list"; done_testing; exit 0; }
command -v jq >/dev/null || { skip "jq is not installed"; done_testing; exit 0; }

# gdb's output after its own preamble (the attach or core banner, and the
# frame it prints then): stdout after an "@@" marker, stderr without the
# source line of that frame (which spyglass, printing no frame on attach,
# does not print) and without warnings.  Thread switches as spyglass
# writes them: without the pthread id.
norm_thread() {
	sed -E 's/^\[Switching to thread ([0-9]+) \(Thread 0x[0-9a-f]+ \((LWP [0-9]+)\)\)\]$/[Switching to thread \1 (\2)]/'
}

# both TARGET-ARGS -- COMMANDS...: gdb's and spyglass's answers in
# $testdir/{gdb,sg}.{out,err}.
both() {
	local target=() c args=()
	while [ "$1" != -- ]; do
		target+=("$1")
		shift
	done
	shift
	for c in "$@"; do
		args+=(-ex "$c")
	done
	timeout -k 5 120 "$GDB" -nx -batch "${target[@]}" -ex 'echo @@\n' "${args[@]}" \
		>"$testdir/gdb.raw" 2>"$testdir/gdb.rawerr"
	# The preamble's frame line names the file and line of the source
	# line gdb then tried; drop that one message.
	local where
	where=$(sed -n '/^@@$/q; s/^#0 .* at \(.*\):\([0-9]*\)$/\2\t\1/p; s/^0x[0-9a-f]* in .* at \(.*\):\([0-9]*\)$/\2\t\1/p' \
		"$testdir/gdb.raw" | tail -1)
	sed '1,/^@@$/d; /^\[Inferior 1 (process [0-9]*) detached\]$/d' "$testdir/gdb.raw" | norm_thread >"$testdir/gdb.out"
	grep -vE '^(warning: |Download|Reading )' "$testdir/gdb.rawerr" |
		awk -v w="$where" 'done || w == "" || index($0, w ":") != 1 { print; next } { done = 1 }' \
		>"$testdir/gdb.err"
	timeout -k 5 120 "$SG_BIN" -nx -batch "${target[@]}" "${args[@]}" \
		>"$testdir/sg.raw" 2>"$testdir/sg.err"
	STATUS=$?
	norm_thread <"$testdir/sg.raw" >"$testdir/sg.out"
}

# same DESCRIPTION: both outputs alike.
same() {
	is "$(cat "$testdir/sg.out")" "$(cat "$testdir/gdb.out")" "$1: the same output as gdb"
	is "$(cat "$testdir/sg.err")" "$(cat "$testdir/gdb.err")" "$1: the same messages as gdb"
}

# compare DESCRIPTION COMMANDS...: on the live process $pid.
compare() {
	local d=$1
	shift
	both -p "$pid" -- "$@"
	same "$d"
}

# ---- 1. The live process -----------------------------------------------------
start_fixture "$FIXTURES/bt-c-O0" || exit 1
pid=$FIXTURE_PID
SRC=$(cd "$top_srcdir/tests/fixtures" && pwd)/bt.c
nlines=$(wc -l <"$SRC")

# A frame whose file is missing (libc's), then one whose file is there.
compare "frame 0 in libc, then main_wait" 'list' 'list' 'list -' 'info source' 'info line' \
	'frame' 'up 2' 'list' 'list' 'list -' 'info source' 'info line' 'down' 'list' 'list -'
grep -q "^Located in $SRC\$" "$testdir/sg.out"
ok $? "info source locates bt.c where it is"
grep -q "^Contains $nlines lines.\$" "$testdir/sg.out"
ok $? "info source counts bt.c's $nlines lines"
grep -q "^240			main_block();\$" "$testdir/sg.out"
ok $? "up prints main_wait's line 240 after the frame line"

compare "list LINESPEC" 'list main_wait' 'list' 'list 300' 'list' 'list' 'list 1' 'list -' \
	'list bt.c:50' 'list bt.c:sleeper_mid' 'list sleeper_outer' 'list 0' 'list 306' 'list 307'
compare "list FIRST,LAST" 'list 10,12' 'list ,20' 'list 100,' 'list 5,3' 'list 301,330' \
	'list main_block,main_wait' 'list 240,bt.c:245' 'list main,' 'list 5,' 'list -' 'list -' 'list +'
compare "list *ADDRESS and info line *ADDRESS" 'frame 2' 'info line *$pc' 'list *$pc' \
	'info line *0x1' 'info line *main' 'list'
compare "set listsize" 'show listsize' 'set listsize 4' 'list 100' 'show listsize' \
	'set listsize 7' 'list 100' 'list' 'list -' 'set listsize unlimited' 'show listsize' \
	'list 290' 'set listsize 0' 'show listsize' 'set listsize 10' 'list 300' 'show listsize'
compare "info line LINESPEC" 'info line' 'info line 240' 'info line main_wait' 'info line bt.c:238' \
	'list main_wait' 'info line' 'info line 240' 'info line 235' 'info line 1' 'info line 400' \
	'info line 232' 'info line 233' 'info line bt.c:main' 'info line bt.c:0' 'info line pause'
compare "info line N is in the last frame's file, list N in the listed one" 'list main_wait' \
	'info line 240' 'list 240' 'frame 2' 'info line 240' 'list 100' 'info line 100' 'frame 0' \
	'info line 30' 'list 5,3' 'list' 'list bt.c:5,3' 'list'
compare "frame level, frame function, select-frame" 'select-frame 2' 'list' 'info line' 'frame' \
	'frame function main' 'list' 'frame level 1' 'list -' 'frame function main_wait' 'info source' \
	'select-frame function main' 'frame' 'frame 3' 'down 2'
cfa=$("$GDB" -nx -batch -p "$pid" -ex 'info frame 2' 2>/dev/null | sed -n 's/^Stack frame at \(0x[0-9a-f]*\):$/\1/p')
if [ -n "$cfa" ]; then
	compare "frame address CFA" "frame address $cfa" 'list' "select-frame address $cfa" 'frame' \
		'frame address 0x10'
else
	skip "gdb gave no frame address for frame 2"
	skip "gdb gave no frame address for frame 2"
fi
compare "thread N prints the source line" 'thread 2' 'list' 'thread 3' 'list' 'list' 'thread 1' 'list'
compare "errors" 'list nosuch' 'list nosuch.c:3' 'list bt.c:nosuch' 'list 320' 'list 320,330' \
	'info line nosuch' 'frame function nosuch' 'frame function others_asleep' 'frame level 99' \
	'select-frame 99' 'frame level' 'frame function' 'list 1,2' 'list -' 'set substitute-path /a' \
	'unset substitute-path /zz' 'list ,' 'list 5 6' 'list *' 'list bt.c:' 'list :5' 'info line bt.c' \
	'set listsize' 'set listsize 5x' 'select-frame' 'list *$pc + 1' 'info line *$pc + 1'

# One error line and a non-zero status, as every command's errors.
sg -p "$pid" -ex "list bt.c:400"
[ $STATUS -ne 0 ] && [[ $ERR == "Line number 395 out of range; "*"bt.c has $nlines lines." ]]
ok $? "list past the end: gdb's error line, status $STATUS${ERR:+: $ERR}"
sg -p "$pid" -ex "list nosuch"
is "$STATUS:$ERR" '1:Function "nosuch" not defined.' "list of an unknown function fails"
sg -p "$pid" -ex "frame function nosuch"
is "$STATUS:$ERR" '1:Function "nosuch" not defined.' "frame function of an unknown function fails"

# ---- 2. --json ---------------------------------------------------------------
sg --json -p "$pid" -ex 'list main_wait' -ex 'info line bt.c:240' -ex 'info source' -ex 'show listsize' \
	-ex 'list 999'
ok $([ $STATUS -ne 0 ]; echo $?) "json: the failing last command fails the run"
mapfile -t J <<<"$OUT"
want=$(sed -n '232,241p' "$SRC" | jq -R . | jq -sc .)
is "$(jq -c '[.lines[].text]' <<<"${J[0]}")" "$want" "json: list gives bt.c's lines 232-241, as they are"
is "$(jq -c '[.lines[0].line, .lines[-1].line, (.fullname == "'"$SRC"'")]' <<<"${J[0]}")" '[232,241,true]' \
	"json: list says the lines' numbers and the file's full name"
gline=$(both -p "$pid" -- 'info line bt.c:240'; cat "$testdir/gdb.out")
is "$(jq -r '"Line \(.line) of \"\(.file)\" starts at address \(.start)"' <<<"${J[1]}")" \
	"$(sed -E 's/ <[^>]*> and ends.*//' <<<"$gline")" "json: info line's line, file and start as gdb's"
is "$(jq -r '[.lines, .language, .dwarf_version > 1, .macro_info] | @tsv' <<<"${J[2]}")" \
	"$nlines	c	true	false" "json: info source"
is "$(jq -c . <<<"${J[3]}")" '{"listsize":10}' "json: show listsize"
like "$(jq -r .error <<<"${J[4]}")" '^Line number 994 out of range' "json: the error object"

# ---- 3. gdb's core of the same process ---------------------------------------
core=$testdir/core.bt
if "$GDB" -nx -batch -p "$pid" -ex "gcore $core" >/dev/null 2>&1 && [ -s "$core" ]; then
	both -c "$core" "$FIXTURES/bt-c-O0" -- 'list' 'list' 'info source' 'frame' 'up 2' 'list' \
		'list -' 'info line' 'info line *$pc' 'thread 3' 'list' 'frame function sleeper_mid' \
		'list' 'list sleeper_leaf' 'info source'
	# spyglass says what the core is when it opens it, as gdb did
	# before the marker.
	sed -i '/^Core was generated by /d; /^Program terminated with signal /d' "$testdir/sg.out"
	same "a core"
else
	skip "gdb could not write a core of the fixture"
	skip "gdb could not write a core of the fixture"
fi
stop_fixture "$pid"

# ---- 3b. Optimized code: inlined calls -----------------------------------------
# bt-c-O2: thread 8 blocks under two always_inline functions (frames of
# their own, at their call sites' lines), thread 4 in an inlined libc
# function; inl_inner exists only inlined (gdb lists its first inlined
# call); a line whose address also starts an inlined call's line has no
# code of its own.
start_fixture "$FIXTURES/bt-c-O2" || exit 1
pid=$FIXTURE_PID
compare "-O2: inlined frames" 'thread 8' 'up' 'list' 'up' 'list' 'info line' 'info source' \
	'down' 'list -' 'thread 6' 'frame 5' 'list' 'info line' 'frame function deep_thread' 'list' \
	'info line'
compare "-O2: functions that exist only inlined" 'thread 4' 'up' 'info line *$pc' \
	'info line inl_inner' 'list inl_inner' 'list inl_outer' 'info line inl_outer' \
	'list bt.c:inl_inner'
stop_fixture "$pid"

# ---- 4. A source file that moved ---------------------------------------------
build=$testdir/b1
moved=$testdir/moved
mkdir -p "$build/src" "$moved"
cp "$top_srcdir/tests/fixtures/sg-deep.c" "$build/src/"
if (cd "$build" && ${CC:-cc} -O0 -g -o deep src/sg-deep.c) 2>"$testdir/cc.err"; then
	mv "$build/src" "$moved/"
	start_fixture "$build/deep" 3 || exit 1
	dpid=$FIXTURE_PID
	both -p "$dpid" -- 'frame 1' 'list' 'info source' "directory $moved" 'frame 1' 'list' \
		'info source' 'show directories' 'list dive'
	same "found through directory, by the recorded name"
	grep -q "^Located in $moved/src/sg-deep.c\$" "$testdir/sg.out"
	ok $? "info source: located in the new folder"
	both -p "$dpid" -- "directory $moved/src" 'list main' 'info source'
	same "found through directory, by the base name"
	both -p "$dpid" -- "set substitute-path $build $moved" 'show substitute-path' 'list dive' \
		'info source' "show substitute-path $build/src" 'unset substitute-path' \
		'show substitute-path' "set substitute-path $build/ $moved" 'list dive' \
		"unset substitute-path $build" 'show substitute-path' "set substitute-path $build/src $moved/src" \
		'list 5,6' 'unset substitute-path /nonexistent'
	# As gdb: the rule replaces whole leading components of the path the
	# line table records, joined to the compilation directory.
	same "found through set substitute-path"
	grep -q "^Located in $moved/src/sg-deep.c\$" "$testdir/sg.out"
	ok $? "info source after substitute-path: located in the new folder"
	stop_fixture "$dpid"
else
	skip "cannot compile sg-deep.c: $(head -1 "$testdir/cc.err")"
fi

# ---- 5. Frame 0 without line information ------------------------------------
# A library without DWARF blocks in a system call of its own (not libc's,
# which may have DWARF): gdb then starts listing near main.
nd=$testdir/nd
mkdir -p "$nd"
cat >"$nd/lib.c" <<'EOF'
void nd_block(void)
{
	for (;;)
		__asm__ volatile("syscall" : : "a"(34) : "rcx", "r11", "memory");
}
EOF
cat >"$nd/main.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
void nd_block(void);

static int helper(int n)
{
	return n + 1;
}

int main(void)
{
	int x = helper(1);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	nd_block();
	return x;
}
EOF
if (cd "$nd" && ${CC:-cc} -O1 -fPIC -shared -o libnd.so lib.c &&
    ${CC:-cc} -O0 -g -o ndmain main.c -L. -lnd -Wl,-rpath,"$nd") 2>"$testdir/cc.err"; then
	start_fixture "$nd/ndmain" || exit 1
	npid=$FIXTURE_PID
	# In its pause system call (34), not between its printf and it.
	in_pause() { local nr; read -r nr _ <"/proc/$npid/syscall" 2>/dev/null && [ "$nr" = 34 ]; }
	wait_for 10 in_pause
	ok $? "the fixture without DWARF blocks in its library"
	both -p "$npid" -- 'info source' 'list' 'list' 'list -' 'info source' 'info line' 'frame 1' 'list'
	same "no line at frame 0: list starts near main"
	both -p "$npid" -- 'set listsize 3' 'list' 'list' 'info line 12'
	same "no line at frame 0, listsize 3"
	both -p "$npid" -- 'info line nd_block' 'info line *$pc' 'list nd_block' 'info line *0' 'frame' \
		'info source' 'list' 'info source'
	same "a function without line information: info line says so, list lists nothing"
	both -p "$npid" -- 'info line 12' 'info source' 'list'
	same "a line number without a current file: main's"
	stop_fixture "$npid"
else
	skip "cannot build the library without DWARF: $(head -1 "$testdir/cc.err")"
fi

done_testing
