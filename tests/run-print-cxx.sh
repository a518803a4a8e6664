#!/bin/bash
# print, ptype and whatis on C++ objects, against gdb: base classes, the
# vtable pointer, static members, qualified names, enum classes.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-cxx" || exit 1
pid=$FIXTURE_PID

cmds=('print g_derived' 'print g_plain' 'print g_base' 'print *g_base' 'print g_mode'
      'print g_color' 'print g_level' 'print g_flag' 'print g_derived.b' 'print g_derived.m'
      'print g_derived.d' 'print g_base->b' 'whatis g_derived' 'whatis g_base' 'whatis g_mode'
      'ptype ns::Plain' 'ptype g_plain' 'print sizeof(ns::Derived)' 'print sizeof(ns::Plain)'
      'print/x g_derived.d' 'print g_diamond' 'print g_vl' 'print g_diamond.v' 'print g_diamond.r'
      'print/x g_diamond' 'set print pretty on' 'print g_diamond' 'print g_derived' 'print g_vl'
      'set print pretty off')
sg_cmds "$pid" "${cmds[@]}"
ok $STATUS "all commands succeed${ERR:+: $ERR}"
like "$OUT" '^\$1 = \{<ns::Base> = \{_vptr\.Base = 0x[0-9a-f]+ <vtable for ns::Derived\+16>, b = 1\}, <ns::Mixin> = \{m = 5\}, d = 2, static count = 3, static limit = 64\}$' \
	"a derived object: bases, vtable pointer, static members (one only in DWARF)"
if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$OUT" "$GDB_OUT" "C++ print, ptype and whatis match gdb line for line"
else
	skip "gdb not installed"
fi
# Raw library objects (print/r): anonymous unions printed bare, empty
# bases as <No data fields>, char pointers with their symbol, flat and
# pretty, against gdb.
start_fixture "$FIXTURES/sg-stl" || exit 1
stl_pid=$FIXTURE_PID
rcmds=('print/r g_s' 'print/r g_v' 'print/r g_map' 'set print pretty on' 'print/r g_s' 'print/r g_map')
sg_cmds "$stl_pid" "${rcmds[@]}"
if have_gdb; then
	sg_raw=$OUT
	gdb_batch "$stl_pid" "${rcmds[@]}"
	is "$sg_raw" "$GDB_OUT" "print/r of std::string, vector and map matches gdb, flat and pretty"
else
	skip "gdb not installed"
fi
stop_fixture "$stl_pid"

# Every global of the ptype fixture printed (references, pointers to
# members, char bit fields, templates, anonymous unions), and references in
# expressions standing for their object, against gdb.
start_fixture "$FIXTURES/sg-ptype" || exit 1
ppid=$FIXTURE_PID
pcmds=()
for v in $(grep -o 'g_[a-z_0-9]*' "$top_srcdir/tests/fixtures/sg-ptype.cc" | sort -u); do
	pcmds+=("print $v")
done
pcmds+=('print g_holder.ref' 'whatis g_holder.ref' 'print g_holder.ref + 1' 'print &g_shape_ref'
	'print *&g_shape_ref' 'print g_shape_ref.id' 'print (&g_shape_ref)->tag' 'print/x g_bits')
sg_cmds "$ppid" "${pcmds[@]}"
ok $STATUS "${#pcmds[@]} prints of C++ objects succeed${ERR:+: $ERR}"
if have_gdb; then
	sg_objs=$OUT
	gdb_batch "$ppid" "${pcmds[@]}"
	is "$sg_objs" "$GDB_OUT" "C++ objects, references and member pointers print as in gdb"
else
	skip "gdb not installed"
fi
stop_fixture "$ppid"

sg -p "$pid" -ex 'print g_derived.nosuch'
is "$ERR" "There is no member named nosuch." "an unknown member, bases searched too"
check_running "$pid" "target runs"
done_testing
