#!/bin/bash
# Tab completion at the prompt (through tmux), against gdb's "complete"
# on the same process: locals of the selected frame, members after "."
# and "->" (a C++ base class's too), names after "&" and "*", struct
# tags, type names; file names for source and list's source files.
. "$top_srcdir/tests/test-subr.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip "tmux not installed: no prompt to complete at"
	done_testing
fi
if ! have_gdb; then
	skip "gdb not installed: no oracle for completion"
	done_testing
fi

unset TMUX TMUX_PANE
tm() { tmux -L "sgcomplete$$" -f /dev/null "$@"; }
pane() { tm capture-pane -p -J -S - -t c 2>/dev/null | sed 's/[[:space:]]*$//' | sed '/^$/d'; }
tm_sock=
tm_cleanup() {
	tm kill-server 2>/dev/null
	[ -n "$tm_sock" ] && [ -S "$tm_sock" ] && rm -f "$tm_sock"
	cleanup
}
trap tm_cleanup EXIT

# start_prompt PID: spyglass at a tmux prompt attached to PID.
start_prompt() {
	tm kill-server 2>/dev/null
	tm new-session -d -s c -x 250 -y 50 -c "$top_srcdir" \
		"$(printf 'HOME=%q LD_LIBRARY_PATH=%q %q -nx -p %q' "$testdir" "$LD_LIBRARY_PATH" "$SG_BIN" "$1")"
	tm_sock=$(tm display -p '#{socket_path}')
	wait_for 10 eval '[ "$(pane | tail -n 1)" = "(spyglass)" ]'
}
# run CMD: a command at the prompt, waited for.
run() {
	local n
	n=$(pane | grep -c '^(spyglass)')
	tm send-keys -t c -l -- "$1"
	tm send-keys -t c Enter
	wait_for 20 eval '[ "$(pane | grep -c "^(spyglass)")" -gt "$n" ] && [ "$(pane | tail -n 1)" = "(spyglass)" ]'
}
# type_and_list LINE: type LINE, list the candidates (M-?: readline's
# possible-completions, which inserts nothing) into $LIST, one a line,
# sorted; then Tab, the completed line into $LINE; then clear the line.
type_and_list() {
	local before
	tm send-keys -t c -l -- "$1"
	sleep 0.2
	before=$(pane | wc -l)
	typed="(spyglass) $1"
	tm send-keys -t c M-?
	# (No candidates: nothing is listed, and this waits in vain.)
	wait_for 3 eval '[ "$(pane | wc -l)" -gt "$before" ] && [ "$(pane | tail -n 1)" = "$typed" ]'
	LIST=$(pane | tail -n +"$((before + 1))" | sed '$d' | tr -s ' ' '\n' | sed '/^$/d' | sort)
	tm send-keys -t c Tab
	sleep 1
	LINE=$(tm capture-pane -p -J -t c | sed '/^$/d' | tail -n 1)
	tm send-keys -t c C-e C-u
	sleep 0.2
}
# gdb_candidates PREFIX IDENT SETUP...: gdb's completions of PREFIX IDENT,
# PREFIX stripped, sorted, into $WANT; the line one Tab makes in $WANT_LINE
# (the longest common prefix, and a blank after a single candidate).
gdb_candidates() {
	local prefix=$1 ident=$2
	shift 2
	gdb_batch "$pid" "$@" "complete $prefix$ident"
	WANT=$(grep -F -- "$prefix" <<<"$GDB_OUT" | grep -v 'max-completions' |
		while IFS= read -r l; do printf '%s\n' "${l#"$prefix"}"; done | sort)
	local lcp n
	n=$(grep -c . <<<"$WANT")
	lcp=$(head -n 1 <<<"$WANT")
	while IFS= read -r l; do
		while [ -n "$lcp" ] && [ "${l#"$lcp"}" = "$l" ]; do lcp=${lcp%?}; done
	done <<<"$WANT"
	WANT_LINE="(spyglass) $prefix$lcp"
	[ "$n" = 1 ] && WANT_LINE+=" "
}
# ---- C: members, & and *, tags, types (sg-data) ----
start_fixture "$FIXTURES/sg-data" || { done_testing; exit; }
pid=$FIXTURE_PID
# gdb's answers first: it cannot attach while spyglass is.
declare -A gw gl
lines=('print g_pt.' 'print g_head->ne' 'print g_head->next->' 'print g_pts[1].' 'print &g_p'
       'print *g_h' 'ptype struct no' 'whatis poi' 'print !g_pt.' 'print g_pt .' 'print g_pt.x + g_co')
prefixes=('print g_pt.' 'print g_head->' 'print g_head->next->' 'print g_pts[1].' 'print &'
	  'print *' 'ptype struct ' 'whatis ' 'print !g_pt.' 'print g_pt .' 'print g_pt.x + ')
for i in "${!lines[@]}"; do
	p=${prefixes[$i]}
	gdb_candidates "$p" "${lines[$i]#"$p"}"
	gw[$i]=$WANT
	gl[$i]=$WANT_LINE
done
start_prompt "$pid"
ok $? "sg-data: the prompt comes up"
for i in "${!lines[@]}"; do
	type_and_list "${lines[$i]}"
	if [ -z "${gw[$i]}" ]; then
		fail "gdb offers nothing for '${lines[$i]}'"
		continue
	fi
	is "$LIST" "${gw[$i]}" "sg-data: the candidates of '${lines[$i]}' are gdb's"
	is "$LINE" "${gl[$i]}" "sg-data: Tab completes '${lines[$i]}' as gdb does"
done
# The other expression commands complete as print does (gdb 13 offers
# symbols there, not members: print's answer is the oracle).
for c in output display x 'printf "%d\n",' 'print/x' 'x/2dw' 'display/x'; do
	type_and_list "$c g_pt."
	is "$LIST" "${gw[0]}" "sg-data: '$c g_pt.' lists the members, as gdb's print does"
done
# Inside a command's /FMT there is nothing to complete: the line stays.
type_and_list 'print/a'
like "$LINE" '^\(spyglass\) print/a[[:space:]]*$' "print/a, Tab: the format is left as it is"
# File names: source, relative to the current directory; list's source
# files come from the line tables.
type_and_list 'source ./tes'
is "$LINE" "(spyglass) source ./tests/" "source ./tes, Tab: the directory, with its slash"
type_and_list 'source ./tests/run-compl'
is "$LINE" "(spyglass) source ./tests/run-complete.sh " "source ./tests/run-compl, Tab: the file"
is "$LIST" "run-complete.sh" "source ./tests/run-compl: readline lists the base name"
type_and_list 'list sg-da'
is "$LINE" "(spyglass) list sg-data.c " "list sg-da, Tab: the source file of the line table"
type_and_list 'core-file ./tests/run-compl'
is "$LINE" "(spyglass) core-file ./tests/run-complete.sh " "core-file ./tests/run-compl, Tab: a file"
# Nothing to complete: no error, no candidates.
type_and_list 'print g_pt.x.'
is "$LIST" "" "print g_pt.x.: no members of an int, and no error"
type_and_list 'print nosuchvar->'
is "$LIST" "" "print nosuchvar->: nothing, and no error"
tm kill-server 2>/dev/null
stop_fixture "$pid"

# ---- locals and arguments of the selected frame (sg-locals) ----
start_fixture "$FIXTURES/sg-locals" || { done_testing; exit; }
pid=$FIXTURE_PID
gdb_candidates 'print ' 'cou' 'thread 2' 'frame 1'
w1=$WANT l1=$WANT_LINE
gdb_candidates 'print ' 'lab' 'thread 2' 'frame 1'
w2=$WANT l2=$WANT_LINE
gdb_candidates 'print p.' '' 'thread 2' 'frame 1'
w3=$WANT l3=$WANT_LINE
gdb_candidates 'print &pr.' '' 'thread 2' 'frame 2'
w4=$WANT l4=$WANT_LINE
start_prompt "$pid"
run 'thread 2'
run 'frame 1'
type_and_list 'print cou'
is "$LIST" "$w1" "sg-locals frame 1: the candidates of 'print cou' (a local) are gdb's"
is "$LINE" "$l1" "sg-locals frame 1: Tab completes 'print cou' as gdb does"
type_and_list 'print lab'
is "$LIST" "$w2" "sg-locals frame 1: the candidates of 'print lab' (an argument) are gdb's"
type_and_list 'print p.'
is "$LIST" "$w3" "sg-locals frame 1: the members of the argument p are gdb's"
run 'frame 2'
type_and_list 'print &pr.'
is "$LIST" "$w4" "sg-locals frame 2: the members of the local pr are gdb's"
tm kill-server 2>/dev/null
stop_fixture "$pid"

# ---- C++: base-class members (sg-cxx) ----
start_fixture "$FIXTURES/sg-cxx" || { done_testing; exit; }
pid=$FIXTURE_PID
gdb_candidates 'print g_derived.' ''
w1=$WANT l1=$WANT_LINE
gdb_candidates 'print g_base->' ''
w2=$WANT
start_prompt "$pid"
type_and_list 'print g_derived.'
is "$LIST" "$w1" "sg-cxx: the members of g_derived (its bases' too) are gdb's"
type_and_list 'print g_base->'
is "$LIST" "$w2" "sg-cxx: the members after g_base-> are gdb's"
tm kill-server 2>/dev/null
stop_fixture "$pid"

done_testing
