#!/bin/bash
# print, output, ptype and whatis on C globals, against gdb's answers.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-data" || exit 1
pid=$FIXTURE_PID

cmds=()
for v in g_int g_uint g_long g_short g_char g_uchar g_bool g_float g_double g_name g_arr g_tagged \
	 g_zeros g_pt g_pts g_color g_color_odd g_num g_flags g_str g_ip g_null g_head g_fn \
	 g_const g_bad '*g_head' 'g_head->next' 'g_head->next->value' '&g_pt' 'g_pts[1]' \
	 'g_pts[1].y' 'g_arr[2]' '*g_ip' 'g_n1' '(g_pt)' 'g_flags.a' 'g_flags.b' 'g_flags.b + 1' '&g_flags.b' \
	 '*g_arr@2' '*g_arr' '*g_pts' '(*g_pts).y' '*g_name'; do
	cmds+=("print $v")
done
cmds+=('print/x g_flags.b' 'print/x g_int' 'print/x g_arr' 'print/o g_short' 'print/d g_uchar' 'print/u g_short'
       'ptype struct point' 'ptype point_t' 'ptype g_flags' 'ptype enum color'
       'ptype union num' 'ptype struct node' 'ptype g_head' 'ptype g_fn' 'ptype g_str'
       'ptype int' 'ptype g_arr' 'whatis g_pts' 'whatis g_fn' 'whatis g_const' 'whatis g_pt'
       'whatis &g_pt' 'whatis point_t' 'whatis g_head->next' 'ptype &g_pt')

sg_cmds "$pid" "${cmds[@]}"
sg_out=$OUT
ok $STATUS "all commands succeed${ERR:+: $ERR}"
if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$OUT" "$GDB_OUT" "print, ptype and whatis match gdb line for line"
else
	skip "gdb not installed: no oracle"
fi

# DWARF 4 numbers bit fields from the other end (DW_AT_bit_offset).
start_fixture "$FIXTURES/sg-data-dwarf4" || exit 1
d4=$FIXTURE_PID
d4cmds=('print g_flags' 'print/x g_flags' 'print g_tagged' 'ptype struct flags'
	'print g_flags.a' 'print g_flags.b' 'print g_flags.b * 2')
sg_cmds "$d4" "${d4cmds[@]}"
if have_gdb; then
	sg_d4=$OUT
	gdb_batch "$d4" "${d4cmds[@]}"
	is "$sg_d4" "$GDB_OUT" "DWARF 4 bit fields as gdb reads them"
else
	like "$OUT" '^\$1 = \{a = 5, b = 17, c = -1\}$' "DWARF 4 bit fields"
fi
stop_fixture "$d4"
sg --json -p "$pid" -ex 'print g_tagged'
if command -v jq >/dev/null; then
	is "$(jq -c .value <<<"$OUT")" '{"kind":1,"i":2,"f":2.802596928649634e-45,"l":3,"c":3}' \
		"JSON: an anonymous union's members join the enclosing object"
else
	skip "jq not installed"
fi

# Every print format on every kind of value (integers, chars, floats read
# as bits or converted, pointers, enums, bools, arrays, structs), and
# "set print pretty on", against gdb.
fcmds=()
for f in x d u o t c a f s z; do
	for v in g_int g_uint g_short g_char g_uchar g_bool g_float g_double g_long g_color g_name \
		 g_arr g_pt g_flags g_num g_str g_ip '&g_pt' -1 200 0; do
		fcmds+=("print/$f $v")
	done
done
fcmds+=('set print pretty on' 'print g_pt' 'print g_pts' 'print g_n1' 'print g_num' 'print g_flags'
	'print g_arr' 'output g_pt' 'print/x g_pts' 'print *g_head')
sg_cmds "$pid" "${fcmds[@]}"
ok $STATUS "every format succeeds${ERR:+: $ERR}"
if have_gdb; then
	sg_formats=$OUT
	gdb_batch "$pid" "${fcmds[@]}"
	is "$sg_formats" "$GDB_OUT" "print/x d u o t c a f s z and print pretty match gdb"
else
	skip "gdb not installed: no oracle"
fi

# Registers of the selected frame and artificial arrays (*p@N), against
# gdb.  $pc is in pause, whose DWARF name __libc_pause gdb prefers to the
# symbol table's alias, as we do.
rcmds=('print $pc' 'print $sp' 'print $rbp' 'print $rax' 'print $eax' 'print $eflags' 'print/x $eflags'
       'print $cs' 'print $r8d' 'print $fs_base' 'whatis $pc' 'whatis $sp' 'whatis $rax'
       'whatis $eax' 'whatis $eflags' 'print $sp + 8' 'print $rax + 1' 'print/x $rsp' 'print/x $pc'
       'print *g_ip@2' 'print g_arr[1]@2' 'print g_pt@2' 'print *g_str@3' 'print g_name[0]@4'
       'whatis *g_ip@2' 'whatis g_str@2' 'whatis g_pt@2' 'print/x g_arr[0]@3' 'print g_int@1+1'
       'print g_zeros@2' 'print g_int@0' 'print 1@2' 'print g_int@-1'
       'frame 1' 'print $sp' 'print $rbp' 'print/x $pc')
sg_cmds "$pid" "${rcmds[@]}"
if have_gdb; then
	# frame 1's source line is left out, as gdb_batch leaves out gdb's.
	sg_regs=$(printf '%s\n' "$OUT" "$ERR" | grep -vE '^[0-9]+[[:space:]]')
	gdb_batch "$pid" "${rcmds[@]}"
	is "$(printf '%s\n' "$sg_regs" | sort)" "$(printf '%s\n' "$GDB_OUT" | sort)" \
		"registers and *p@N match gdb"
else
	skip "gdb not installed: no oracle"
fi

# info registers and x/a name code as print does: pause's pc by its DWARF
# function, __libc_pause, as gdb does.
sg_cmds "$pid" 'info registers rip' 'x/a &g_fn'
if have_gdb; then
	sg_syms=$(printf '%s\n' "$OUT" | grep -o '<[^>]*>')
	gdb_batch "$pid" 'info registers rip' 'x/a &g_fn'
	is "$sg_syms" "$(printf '%s\n' "$GDB_OUT" | grep -o '<[^>]*>')" \
		"info registers and x/a name symbols as gdb does"
else
	skip "gdb not installed: no oracle"
fi

# Functions as values: {int (int)} 0x... <twice>, their type, pointers to
# them and a function pointer's target, against gdb; pause is named by its
# DWARF function, __libc_pause, as gdb names it.
fncmds=('print pause' 'print main' 'ptype main' 'whatis main' 'print &main' 'print *main' 'print/x main'
	'whatis &main' 'print twice' 'ptype twice' 'print g_fn' 'print *g_fn' 'whatis *g_fn'
	'output main')
sg_cmds "$pid" "${fncmds[@]}"
ok $STATUS "functions as values${ERR:+: $ERR}"
if have_gdb; then
	sg_fns=$OUT
	gdb_batch "$pid" "${fncmds[@]}"
	is "$sg_fns" "$(printf '%s' "$GDB_OUT" | sed 's/\[Inferior 1 (process [0-9]*) detached\]$//')" \
		"functions print, ptype and whatis as in gdb"
else
	skip "gdb not installed: no oracle"
fi

# Floating point in expressions: literals (1.5, .5, 2.5e3, 1.5f), C's
# promotions (a float times an int is a float), casts that convert,
# comparisons, negation, division by zero, NaN cast to integers (C leaves
# it undefined: gdb's answer), against gdb.
flcmds=('print 1.5' 'print 1.0/3' 'print g_float * 2' 'print g_double + 1' 'print g_float + g_double'
	'print (int)g_double' 'print (int)g_float' 'print (float)1/3' 'print (double)g_int / 8'
	'print -g_float' 'print g_float > 1' 'print g_double == 0.1' 'print 2.5e3' 'print .5'
	'print 1.5f' 'whatis 1.5' 'whatis 1.5f' 'whatis g_float * 2' 'whatis g_float * 2.0'
	'print (char)g_float' 'print g_int / 0.0' 'print (long)1e10' 'print 3 * 0.5'
	'print (int)(0.0/0)' 'print (long)(0.0/0)' 'print (unsigned char)(0.0/0)')
sg_cmds "$pid" "${flcmds[@]}"
ok $STATUS "floating-point expressions${ERR:+: $ERR}"
if have_gdb; then
	sg_fl=$OUT
	gdb_batch "$pid" "${flcmds[@]}"
	is "$sg_fl" "$GDB_OUT" "floating-point expressions as gdb evaluates them"
else
	skip "gdb not installed: no oracle"
fi

# Errors of the new operators: one line each.
sg -p "$pid" -ex 'print 1.5 % 2'
if have_gdb; then
	gdb_batch "$pid" 'print 1.5 % 2'
	is "$ERR" "$GDB_OUT" "an integer operator on a float, as gdb says it"
else
	is "$ERR" "Integer-only operation on floating point number." "an integer operator on a float"
fi
sg -p "$pid" -ex 'print g_int@100000000000'
is "$ERR" "100000000000 elements are too many." "X@N beyond 4 GB of elements"
is "$STATUS" 1 "and the command fails"

# Literals, casts (to a pointer at a raw address, as in
# "print *(zeek::Func *)0x55..."), sizeof and unary minus, against gdb.
addr=$(printf '%s\n' "$sg_out" | sed -n 's/^\$[0-9]* = (struct node \*) \(0x[0-9a-f]*\) <g_n1>$/\1/p' | head -1)
ccmds=("print 42" "print 5000000000" "print (char)65" "print (long)g_int" "print sizeof(struct flags)"
       "print sizeof g_pt" "print sizeof(int *)" "print (struct node *)$addr" "print *(struct node *)$addr"
       "print ((struct node *)$addr)->next" "print ((struct node *)$addr)->next->value"
       "print (unsigned char)g_short" "print (enum color)5" "print/x (short)-1" "print -g_int"
       "whatis (struct node *)$addr" "ptype (point_t *)0" "print (void *)0" "whatis sizeof(int)"
       "print *(void *)0")
sg_cmds "$pid" "${ccmds[@]}"
ok $([ -n "$addr" ]; echo $?) "the address of g_n1 from print g_head ($addr)"
if have_gdb; then
	gdb_batch "$pid" "${ccmds[@]}"
	is "$(printf '%s\n' "$OUT" "$ERR" | sed '/^$/d')" "$GDB_OUT" "literals, casts, sizeof and minus match gdb"
else
	skip "gdb not installed"
fi

# Binary operators: arithmetic, pointer arithmetic, comparisons, logic.
acmds=("print g_int + 1" "print g_int * 2 == 84" "print g_arr[1] + g_arr[2]" "print g_ip + 1"
       "print (g_int - 2) / 8" "print g_short * 3" "print g_uint + 1" "print g_long - 1" "print 7 % 3"
       "print 1 << 4" "print g_int > 40 && g_short < 0" "print &g_arr[2] - &g_arr[0]"
       "print g_pts[1].x + g_pt.y * 2" "print (g_int + 8) * -1" "print -1 > 0u" "print g_uchar + g_char"
       "print 10 / 0")
sg_cmds "$pid" "${acmds[@]}"
if have_gdb; then
	gdb_batch "$pid" "${acmds[@]}"
	is "$(printf '%s\n' "$OUT" "$ERR" | sed '/^$/d')" "$GDB_OUT" "binary operators match gdb"
else
	skip "gdb not installed"
fi

# Errors: one line each, as gdb words them.
sg -p "$pid" -ex 'print *g_bad'
is "$ERR" "Cannot access memory at address 0x10" "a garbage pointer dereferenced"
sg -p "$pid" -ex 'print g_nosuch'
is "$ERR" 'No symbol "g_nosuch" in current context.' "an unknown variable"
sg -p "$pid" -ex 'print g_pt.z'
is "$ERR" "There is no member named z." "an unknown member"
for c in 'ptype struct nosuch' 'ptype union nosuch' 'whatis enum nosuch'; do
	sg -p "$pid" -ex "$c"
	if have_gdb; then
		gdb_batch "$pid" "$c"
		is "$ERR" "$GDB_OUT" "$c: an unknown tagged type, as gdb says it"
	else
		like "$ERR" '^No (struct|union|enum) type named nosuch\.$' "$c: an unknown tagged type"
	fi
done
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
	is "$(printf '%s\n' "$OUT" | head -1 | jq -r '[.history, .text, .type, (.value | tojson)] | @tsv')" \
		$'1\t{x = 1, y = 2}\tstruct point\t{"x":1,"y":2}' "print in JSON: the value as an object, gdb's text beside it"
	is "$(printf '%s\n' "$OUT" | tail -1 | jq -r '.type')" $'struct point {\n    int x;\n    int y;\n}' "ptype in JSON"
else
	skip "jq not installed"
	skip "jq not installed"
fi
check_running "$pid" "target runs"
done_testing
