#!/bin/bash
# print, output, ptype and whatis on C globals, against gdb's answers.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-data" || exit 1
pid=$FIXTURE_PID

cmds=()
for v in g_int g_uint g_long g_short g_char g_uchar g_bool g_float g_double g_name g_arr \
	 g_zeros g_pt g_pts g_color g_color_odd g_num g_flags g_str g_ip g_null g_head g_fn \
	 g_const g_bad '*g_head' 'g_head->next' 'g_head->next->value' '&g_pt' 'g_pts[1]' \
	 'g_pts[1].y' 'g_arr[2]' '*g_ip' 'g_n1' '(g_pt)'; do
	cmds+=("print $v")
done
cmds+=('print/x g_int' 'print/x g_arr' 'print/o g_short' 'print/d g_uchar' 'print/u g_short'
       'ptype struct point' 'ptype point_t' 'ptype g_flags' 'ptype enum color'
       'ptype union num' 'ptype struct node' 'ptype g_head' 'ptype g_fn' 'ptype g_str'
       'ptype int' 'ptype g_arr' 'whatis g_pts' 'whatis g_fn' 'whatis g_const' 'whatis g_pt'
       'whatis &g_pt' 'whatis point_t' 'whatis g_head->next' 'ptype &g_pt')

args=()
for c in "${cmds[@]}"; do
	args+=(-ex "$c")
done
sg -p "$pid" "${args[@]}"
ok $STATUS "all commands succeed${ERR:+: $ERR}"
if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$OUT" "$GDB_OUT" "print, ptype and whatis match gdb line for line"
else
	skip "gdb not installed: no oracle"
fi

# Errors: one line each, as gdb words them.
sg -p "$pid" -ex 'print *g_bad'
is "$ERR" "Cannot access memory at address 0x10" "a garbage pointer dereferenced"
sg -p "$pid" -ex 'print g_nosuch'
is "$ERR" 'No symbol "g_nosuch" in current context.' "an unknown variable"
sg -p "$pid" -ex 'print g_pt.z'
is "$ERR" "There is no member named z." "an unknown member"
sg -p "$pid" -ex 'print *g_int'
is "$ERR" "Attempt to take contents of a non-pointer value." "dereferencing an int"
sg -p "$pid" -ex 'print g_pt +'
like "$ERR" "^A syntax error in expression, near" "a syntax error"
sg -p "$pid" -ex 'print/q g_int'
is "$ERR" 'Undefined output format "q".' "an unknown format"
sg -p "$pid" -ex 'output g_pt' -ex 'echo \n'
is "$OUT" "{x = 1, y = 2}" "output prints without history or newline"
sg -p "$pid" -ex 'set print elements 4' -ex 'print g_str' -ex 'print g_zeros'
is "$OUT" '$1 = '"$(printf '%s\n' "$OUT" | sed -n '1s/^\$1 = \(0x[0-9a-f]*\) .*/\1/p')"' "hell"...
$2 = {0 <repeats 16 times>}' "print elements limits strings; repeats count as elements"

sg --json -p "$pid" -ex 'print g_pt' -ex 'ptype struct point'
if command -v jq >/dev/null; then
	is "$(printf '%s\n' "$OUT" | head -1 | jq -r '[.history, .value, .type] | @tsv')" \
		$'1\t{x = 1, y = 2}\tstruct point' "print in JSON"
	is "$(printf '%s\n' "$OUT" | tail -1 | jq -r '.type')" $'struct point {\n    int x;\n    int y;\n}' "ptype in JSON"
else
	skip "jq not installed"
	skip "jq not installed"
fi
check_running "$pid" "target runs"
done_testing
