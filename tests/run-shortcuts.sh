#!/bin/bash
# Container shortcuts (gdb's libstdc++ xmethods): v[i], v.size(),
# v.empty(), v.front(), v.back(), v.at(i), m[key], *up, up->member,
# up.get(), sp.use_count(), opt.value(), *opt.  Against gdb where its
# xmethods answer (gdb runs them in Python; spyglass asks the readers),
# then what gdb cannot answer against the fixture's own source, and the
# libc++ build against the libstdc++ one of the same globals.
. "$top_srcdir/tests/test-subr.sh"

printers=$(ls /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.*-gdb.py 2>/dev/null | head -n 1)

start_fixture "$FIXTURES/sg-stl" || exit 1
pid=$FIXTURE_PID

# prints EXPR...: -ex options printing each, in main's frame, in $EXS.
prints() {
	local x
	EXS=(-ex 'frame 1')
	for x in "$@"; do EXS+=(-ex "print $x"); done
}

# In main's frame (C++), both programs' answers, errors in place.
answers() {	# answers PROGRAM-ARGS... -- EXPRS...
	local args=() x
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	args+=(-ex 'frame 1')
	for x in "$@"; do args+=(-ex "print $x"); done
	"${args[@]}" 2>&1 | grep -vE '^\[(New LWP|Thread debugging|Inferior .* detached)|^Using host libthread_db|^[0-9]+[[:space:]]|^(0x[0-9a-f]+ in |#[0-9])|^warning: |^$|^Reading symbols'
}

# What gdb's xmethods answer on this machine.
gdb_answers=('g_v[1]' 'g_v.size()' 'g_v.empty()' 'g_ev.empty()' 'g_v.front()' 'g_v.back()'
	     'g_v.at(2)' 'g_vs[1]' 'g_l.size()' 'g_l.front()' 'g_dq[1]' 'g_set.size()'
	     'g_vv[1][1]' 'g_vp[0].name' 'g_vp[1].x + g_v[2]' 'g_map.size()' '*g_up' 'g_up.get()'
	     '*g_sp' 'g_spp->name' '(*g_spp).x' 'g_nup.get()' '*g_nup' 'g_v.size() * 2')
if have_gdb && [ -n "$printers" ]; then
	mine=$(answers "$SG_BIN" -nx -batch -p "$pid" -- "${gdb_answers[@]}")
	theirs=$(answers "$GDB" -nx -batch -p "$pid" -- "${gdb_answers[@]}")
	is "$mine" "$theirs" "${#gdb_answers[@]} shortcuts answer as gdb's xmethods, line for line"
	sg -p "$pid" -ex 'frame 1' -ex 'whatis g_v[1]' -ex 'whatis g_up.get()'
	is "$(grep '^type' <<<"$OUT")" "$("$GDB" -nx -batch -p "$pid" -ex 'frame 1' -ex 'whatis g_v[1]' \
		-ex 'whatis g_up.get()' 2>&1 | grep '^type')" "whatis of a shortcut's result as gdb's"
else
	skip "gdb or its libstdc++ printers and xmethods are not installed: no oracle"
fi

# Beyond gdb's xmethods (gdb: "Could not find operator[]", a Python
# RecursionError for use_count, "Cannot evaluate function" for value()):
# the values the fixture's source gives them.
beyond=('g_map[2]' 'g_map[1]' 'g_um[2]' 'g_msv[g_vs[0]]' 'g_msv[g_vs[0]][0]'
	'g_sp.use_count()' 'g_sp.unique()' 'g_nsp.use_count()' 'g_opt.value()' 'g_opt.has_value()'
	'g_nopt.has_value()' 'g_opts.value()' 'g_optv.value()[1]' 'g_optv->size()' 'g_dq.back()')
prints "${beyond[@]}"
sg -p "$pid" "${EXS[@]}"
want='$1 = "two"
$2 = "one"
$3 = "two"
$4 = std::vector of length 1, capacity 1 = {1}
$5 = 1
$6 = 2
$7 = false
$8 = 0
$9 = 5
$10 = true
$11 = false
$12 = "opt"
$13 = 2
$14 = 2
$15 = 3'
is "$(grep '^\$' <<<"$OUT")" "$want" "${#beyond[@]} shortcuts gdb cannot answer give the fixture's values"

# Errors: one line each, the command fails.
errs=('g_v.at(5)' 'g_map[9]' 'g_ev.front()' 'g_nopt.value()' '*g_nopt' 'g_v.nosuch()' 'g_v[1, 2]'
      'g_v.at()' 'g_s.size(' 'g_sp[0]')
for x in "${errs[@]}"; do
	sg -p "$pid" -ex 'frame 1' -ex "print $x"
	if [ "$STATUS" -ne 0 ] && [ "$(wc -l <<<"$ERR")" -eq 1 ] && [ -n "$ERR" ]; then
		ok 0 "print $x: one error line ($ERR)"
	else
		ok 1 "print $x: status $STATUS, stderr '$ERR'"
	fi
done
sg -p "$pid" -ex 'frame 1' -ex 'print g_v.at(5)' -ex 'print g_map[9]' -ex 'print *g_nopt'
is "$ERR" 'index 5 is out of range: 3 elements
no element has that key
Cannot dereference: std::optional<int> [no contained value].' "the errors say what is wrong: the size, the key, the empty optional"

# JSON: a shortcut's value is structured as any print's.
sg --json -p "$pid" -ex 'frame 1' -ex 'print g_v.size()' -ex 'print g_map[1]'
is "$(jq -s -c '[.[1].value, .[2].text]' <<<"$OUT" 2>&1)" '[3,"\"one\""]' "--json: the shortcuts' values"

# libc++: the readers of the libcxx plugin answer the same shortcuts
# as the libstdc++ build of the same globals.
if grep -q 'no clang++' "$FIXTURES/sg-libcxx" 2>/dev/null; then
	skip "libc++: clang++ is not installed"
else
	start_fixture "$FIXTURES/sg-libcxx" "$testdir/libcxx.expected" || exit 1
	lpid=$FIXTURE_PID
	both=('g_v[1]' 'g_v.size()' 'g_v.empty()' 'g_ev.empty()' 'g_v.front()' 'g_v.back()'
	      'g_v.at(2)' 'g_vv[1][1]' 'g_map[2]' 'g_map.size()' '*g_up' '*g_sp' 'g_sp.use_count()'
	      'g_sp.unique()' 'g_nup.get()' 'g_vv.size()')
	prints "${both[@]}"
	sg -p "$lpid" "${EXS[@]}"
	libcxx=$(grep '^\$' <<<"$OUT")
	sg -p "$pid" "${EXS[@]}"
	is "$libcxx" "$(grep '^\$' <<<"$OUT")" "libc++: ${#both[@]} shortcuts answer as on libstdc++"
	stop_fixture "$lpid"
fi

check_running "$pid" "the fixture runs after the tests"
done_testing
