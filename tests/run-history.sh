#!/bin/bash
# The value history ($N, $, $$, $$N, a bare print), convenience
# variables ($name, print $name = EXPR, show convenience), printf and the
# auto-display list, against gdb's answers on the same process, errors in
# their places.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-data" || exit 1
pid=$FIXTURE_PID

# Both programs' output and errors in one stream, in order; gdb's own
# lines (attaching, the frame it stops in) left out.
both() {	# both PROGRAM-ARGS... -- COMMANDS...
	local args=() c
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	for c in "$@"; do args+=(-ex "$c"); done
	"${args[@]}" 2>&1 | grep -vE '^\[(New LWP|Thread debugging|Inferior .* detached)|^Using host libthread_db|^[0-9]+[[:space:]]|^(0x[0-9a-f]+ in |#0 )|^warning: |^Download failed|^$|^Reading symbols|^Attaching to process|^(Reading|Downloading) '
}

# History at its ends and in use: empty, one value, members of a struct
# value, a pointer value, an array value, formats.
history=('print' 'print $' 'print $$' 'print $$3' 'print $1' 'print $0'
	 'print g_pt' 'print $.x' 'print $1.y' 'print $$2' 'print g_n1' 'print $.next->value'
	 'print g_arr' 'print $[2]' 'print $$1 + $' 'print &g_int' 'print *$' 'print/x $$2'
	 'output $1' 'echo \n' 'print' 'print $9' 'print $$20' 'print g_pts' 'print $[1].y'
	 'whatis $' 'ptype $$1' 'print sizeof($)' 'print $$0')
# Convenience variables: void until set, set by print, used in
# expressions, gdb's errors for void operands, and the listing.
conv=('print $foo' 'whatis $foo' 'ptype $foo' 'print $foo = 3' 'print $foo * 2'
      'print $p = &g_pt' 'print $p->y' 'print *$p' 'print $s = g_pt' 'print $s.x + $s.y'
      'whatis $s' 'print $c = (char)65' 'print $foo = $foo * 7' 'print $foo'
      'print $void.x' 'print $void->x' 'print $void[0]' 'print *$void' 'print -$void'
      'print &$void' 'print (int)$void' 'print $void + 1' 'print $void == 0'
      'print $void < 1' 'print $void@2' 'print sizeof($void)' 'print/x $void'
      'print $_thread' 'whatis $_thread' 'x/x $nosuch' 'print $rip == $pc')

# printf: C's conversions with flags, widths and lengths, strings read
# from the target, gdb's reading of an integer's bytes for %f, and each
# of gdb's errors.  (gdb calls malloc in the target for a string literal
# argument; spyglass takes none, and gdb cannot call here anyway.)
printfs=('printf "%d %s %c %x %5.2f %p %lu|%-4d|%%\n", g_int, g_name, g_char, 255, g_double, &g_int, 7, 3'
	 'printf "no newline"' 'echo \n' 'printf "%lld %#x %o %e %g %u\n", g_long, 255, 8, g_double, g_float, -1'
	 'printf "%s|%10s|%-6s|%.2s\n", g_str, g_str, g_name, g_str' 'printf "%c%c%5c|\n", 72, 105, 65'
	 'printf "%p %p\n", 0, g_null' 'printf "%d %d %u %x %ld\n", g_short, g_uchar, g_short, g_short, g_short'
	 'printf "%f %e|%d\n", g_int, g_long, g_double' 'printf "%lu %lx\n", -1, g_long'
	 'printf "\"q\" \\ \a|\t|\n"' 'printf "%s\n", 5' 'printf "%d\n"' 'printf "%d\n", 1, 2'
	 'printf g_int' 'printf "%hhd\n", 1' 'printf "%*d\n", 1, 2' 'printf "%n\n", 1' 'printf "%z\n", 1'
	 'printf "a\qb"' 'printf "\101"' 'printf "%s", $nosuch' 'printf "abc", 1' 'printf "x" y')

# The auto-display list: made, shown, listed, disabled, removed by
# number, range and all; an expression that fails only when shown.
displays=('info display' 'display g_int' 'display/x g_int' 'display g_pt' 'display nosuch'
	  'display *g_null' 'display' 'info display' 'undisplay 2' 'disable display 1'
	  'info display' 'display' 'undisplay 9' 'undisplay x' 'undisplay -1' 'enable display 1'
	  'display' 'delete display 3' 'info display' 'display/x g_pt' 'display' 'undisplay 1-4'
	  'info display' 'display g_arr[1] + 1' 'display' 'undisplay' 'info display')

# x sets $_ (the last unit's address, typed) and $__ (its contents), and
# a bare x repeats the count.
examined=('print $_' 'x/2dw &g_arr' 'x' 'print $_' 'print $__' 'x/3xb &g_int' 'print $_' 'print $__'
	  'whatis $_' 'whatis $__' 'x/2xh &g_short' 'print $__ + 1' 'print *$_' 'x/xg &g_long'
	  'print $__' 'whatis $__')

if have_gdb; then
	for set in history conv printfs displays examined; do
		declare -n cmds=$set
		sg_out=$(both "$SG_BIN" -nx -batch -p "$pid" -- "${cmds[@]}")
		gdb_out=$(both "$GDB" -nx -batch -p "$pid" -- "${cmds[@]}")
		is "$sg_out" "$gdb_out" "$set: ${#cmds[@]} commands answer as gdb's, line for line"
		unset -n cmds
	done
	# gdb lists its own variables too ($_siginfo, $_gdb_major, ...);
	# the ones the session set come first, newest first.
	lst=('print $a = 1' 'print $b = g_pt' 'print $a = 2' 'print $c' 'show convenience')
	sg_out=$(both "$SG_BIN" -nx -batch -p "$pid" -- "${lst[@]}")
	gdb_out=$(both "$GDB" -nx -batch -p "$pid" -- "${lst[@]}" | sed -n '1,/^\$a = /p')
	is "$sg_out" "$gdb_out" "show convenience lists the variables as gdb, newest first"
	# From a user (-ex without -batch), a new display shows at once.
	sg_out=$("$SG_BIN" -nx -p "$pid" -ex 'display g_int' -ex 'display/x g_pt' </dev/null 2>&1 | grep '^[0-9]*:')
	gdb_out=$("$GDB" -nx -q -p "$pid" -ex 'display g_int' -ex 'display/x g_pt' </dev/null 2>&1 | grep '^[0-9]*:')
	is "$sg_out" "$gdb_out" "a display made by a user shows at once, as gdb's"
else
	skip "gdb is not installed: no oracle"
fi

# Huge display numbers and ranges end at once (the numbers past the last
# display name nothing); a variable set to itself keeps its value.
start=$SECONDS
sg -p "$pid" -ex 'display g_int' -ex 'undisplay 18446744073709551615' -ex 'undisplay 1-99999999999' \
	-ex 'info display' -ex 'print $s = g_pts' -ex 'print $s = $s' -ex 'print $s[1].y'
ok $((SECONDS - start < 20 ? 0 : 1)) "huge display numbers: done at once"
is "$OUT" 'No display number 18446744073709551615.
No display number 2.
There are no auto-display expressions now.
$1 = {{x = 3, y = 4}, {x = 5, y = 6}}
$2 = {{x = 3, y = 4}, {x = 5, y = 6}}
$3 = 6' "  and say so once; \$s = \$s keeps the value"

# Another thread: $_thread follows "thread N".
start_fixture "$FIXTURES/sg-threads" 3 || exit 1
tpid=$FIXTURE_PID
sg_cmds "$tpid" 'print $_thread' 'thread 3' 'print $_thread' 'print $_inferior'
is "$(grep '^\$' <<<"$OUT")" $'$1 = 1\n$2 = 3\n$3 = 1' "\$_thread is the selected thread's number"

# JSON: the history number and the void value.
sg --json -p "$pid" -ex 'print 5' -ex 'print $ + 1' -ex 'print $novar' -ex 'show convenience'
is "$(jq -s -c '[.[] | .history]' <<<"$OUT" 2>&1)" '[1,2,3,null]' "--json: each print has its history number"
is "$(jq -s -c '.[2].value' <<<"$OUT" 2>&1)" 'null' "--json: a void value is null"
is "$(jq -s -c '.[3].variables[0].name' <<<"$OUT" 2>&1)" '"novar"' "--json: show convenience names the variable"

# A new target starts with an empty history.
sg -p "$pid" -ex 'print 1' -ex 'detach' -ex "attach $pid" -ex 'print $1'
is "$ERR" 'History has not yet reached $1.' "a new target starts a new history"

# display/i and display/s: x's formats, shown as gdb shows them (with
# bare display; batch mode shows nothing when a display is made).
disp=(-ex 'display/i $pc' -ex 'display/2i $pc' -ex 'display/s g_str' -ex 'display/x g_int'
	-ex 'display' -ex 'info display')
sg -p "$pid" "${disp[@]}"
ok $STATUS "display/i, display/2i, display/s: succeed${ERR:+: $ERR}"
if have_gdb; then
	g=$(timeout -k 5 120 "$GDB" -nx -batch -p "$pid" -ex 'echo @@begin@@\n' "${disp[@]}" \
		-ex 'echo @@end@@\n' 2>/dev/null | sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d')
	is "$OUT" "$g" "display/i, /2i, /s and info display: gdb's text"
else
	skip "gdb is not installed: no reference for display/i"
fi
sg -p "$pid" -ex 'display/i'
is "$STATUS:$ERR" "1:Argument required (expression to compute)." "display/i without an expression: gdb's error"

# At a stop after continue the displays show, after the frame's lines.
start_fixture "$FIXTURES/sg-data" || exit 1
spid=$FIXTURE_PID
"$SG_BIN" -nx -batch -p "$spid" -ex 'display/x g_int' -ex 'display/i $pc' -ex 'continue' \
	>"$testdir/stop.out" 2>&1 &
sgp=$!
# The signal once spyglass traces the process: held or let run, the
# process stops with it under continue.
traced() { ! grep -q '^TracerPid:[[:space:]]*0$' "/proc/$spid/status"; }
wait_for 30 traced
kill -USR1 "$spid"
wait_for 20 sh -c "! kill -0 $sgp 2>/dev/null"
wait "$sgp" 2>/dev/null
stop_out=$(cat "$testdir/stop.out")
like "$stop_out" "received signal SIGUSR1, User defined signal 1\\." "continue: the stop is reported"
like "$(sed -n '/received signal/,$p' <<<"$stop_out")" '^1: /x g_int = 0x2a$' \
	"  then display 1, as gdb shows the displays at a stop"
like "$(sed -n '/^1: \/x g_int/,$p' <<<"$stop_out")" '^2: x/i \$pc$' "  and display 2 after it"
stop_fixture "$spid"

# A real-time signal: gdb's name and words for it, not glibc's.
start_fixture "$FIXTURES/sg-data" || exit 1
spid=$FIXTURE_PID
"$SG_BIN" -nx -batch -p "$spid" -ex 'continue' >"$testdir/stop.out" 2>&1 &
sgp=$!
wait_for 30 traced
kill -s 34 "$spid"
wait_for 20 sh -c "! kill -0 $sgp 2>/dev/null"
wait "$sgp" 2>/dev/null
like "$(cat "$testdir/stop.out")" "received signal SIG34, Real-time event 34\\.\$" \
	"continue: a real-time signal in gdb's words"
stop_fixture "$spid"

stop_fixture "$tpid"
check_running "$pid" "the fixture runs after the tests"
done_testing
