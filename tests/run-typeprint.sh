#!/bin/bash
# Type names as gdb 13 with Debian's libstdc++ type printers writes them:
# whatis and ptype name std::__cxx11::basic_string<char, ...> std::string
# and drop default template arguments, also inside other names' template
# arguments (holder<std::string>), while print's value types stay raw;
# in a C++ frame classes have no keyword, C++ enums show their underlying
# type, a pointer to an array is "double (*)[7]".  Each command is compared
# with gdb on the same process; a few answers are checked without gdb.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-typeprint" || exit 1
pid=$FIXTURE_PID

# Frame 1 is use(), a C++ frame.
cmds=('frame 1'
      'whatis g_v' 'whatis g_vp' 'print g_vp' 'whatis g_s' 'whatis g_m' 'whatis g_up'
      'whatis g_hs' 'whatis g_hvs' 'whatis g_vv' 'whatis g_msv' 'whatis g_set' 'whatis g_um'
      'whatis g_l' 'whatis g_vip' 'whatis g_vexp' 'whatis g_sp' 'whatis g_spa' 'whatis g_vs0'
      'whatis g_it' 'whatis g_iv' 'whatis intvec' 'ptype intvec' 'ptype g_v' 'whatis g_sptr'
      'print g_sptr' 'whatis g_sref' 'whatis g_pair' 'ptype g_pair' 'whatis g_hsp'
      'whatis g_hsa' 'ptype g_hs' 'whatis &g_hs' 'print &g_hs' 'print &g_m' 'whatis g_hs.t'
      'whatis std::string' 'whatis use' 'print use'
      'whatis g_parr' 'print g_parr' 'ptype g_parr' 'whatis &g_arr' 'print &g_arr'
      'whatis g_s0' 'whatis g_s0p' 'print g_s0p' 'ptype g_s0' 'whatis p' 'ptype s0'
      'whatis g_e' 'ptype g_e' 'ptype g_ec' 'whatis g_lit' 'ptype g_lit' 'whatis g_c1'
      'ptype/r g_hs' 'whatis/r g_v')
sg_cmds "$pid" "${cmds[@]}"
ok $STATUS "all ${#cmds[@]} commands succeed${ERR:+: $ERR}"
# The frame line is not about types; gdb_batch drops empty lines.
# frame 1's source line goes too, as gdb_batch drops gdb's.
SG_OUT=$(printf '%s\n' "$OUT" | grep -v -e '^#1 ' -e '^$' | grep -vE '^[0-9]+[[:space:]]')
if have_gdb; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$SG_OUT" "$(printf '%s\n' "$GDB_OUT" | grep -v '^#1 ')" "type names as gdb writes them"
else
	skip "type names as gdb writes them: gdb not installed"
fi

# Without gdb: the printers' names, raw names in print and with /r.
sg -p "$pid" -ex 'frame 1' -ex 'whatis g_m' -ex 'whatis g_hvs' -ex 'print g_vp' -ex 'whatis/r g_up' \
	-ex 'ptype g_e' -ex 'whatis g_parr'
like "$OUT" '^type = std::map<int, std::string>$' "a map of strings"
like "$OUT" '^type = holder<std::vector<std::string> >$' "printers inside another template's arguments"
like "$OUT" '^\$1 = \(std::vector<int, std::allocator<int> > \*\) 0x[0-9a-f]+ <g_v>$' \
	"print's value types stay raw"
like "$OUT" '^type = std::unique_ptr<long, std::default_delete<long> >$' "whatis/r is raw"
like "$OUT" '^type = enum E : unsigned int \{E0, E1\}$' "a C++ enum's underlying type"
like "$OUT" '^type = double \(\*\)\[7\]$' "a pointer to an array"
check_running "$pid" "target runs"
stop_fixture "$pid"

# A class clang only declares: no symbol to gdb, in the C frame where the
# process stopped and in main's C++ frame; a pointer to it is a stub.
if ! command -v clang++ >/dev/null; then
	skip "a class only declared: no clang++"
elif start_fixture "$FIXTURES/sg-typeprint-decl"; then
	pid=$FIXTURE_PID
	cmds=('ptype B' 'whatis ns::NB' 'ptype struct B' 'ptype g_bp' 'ptype g_nbp' 'ptype D'
	      'frame 1' 'ptype B' 'ptype ns::NB' 'ptype g_nbp')
	args=()
	for c in "${cmds[@]}"; do
		args+=(-ex "$c")
	done
	# Errors in their place among the answers, as gdb_batch has them.
	SG_OUT=$("$SG_BIN" -nx -batch -p "$pid" "${args[@]}" 2>&1 | grep -v -e '^#1 ' -e '^$' |
		grep -vE '^[0-9]+[[:space:]]')
	like "$SG_OUT" '^No symbol "NB" in namespace "ns"\.$' "a declared class in a namespace is no symbol"
	like "$SG_OUT" '^    <incomplete type>$' "a pointer to a declared class: a stub"
	if have_gdb; then
		gdb_batch "$pid" "${cmds[@]}"
		is "$SG_OUT" "$(printf '%s\n' "$GDB_OUT" | grep -v '^#1 ')" "declared-only classes as gdb shows them"
	else
		skip "declared-only classes as gdb shows them: gdb not installed"
	fi
	check_running "$pid" "target runs"
	stop_fixture "$pid"
else
	ok 1 "the declared-class fixture starts"
fi
done_testing
