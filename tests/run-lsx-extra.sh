#!/bin/bash
# The libstdcxx plugin's readers of the rarer libstdc++ types against gdb's
# libstdc++ printers on the same process: comparison categories, span, the
# atomic smart pointers, std::any of a local type, the Library
# Fundamentals TS types, the TR1 hash tables, __gnu_cxx::slist, the
# filesystem paths and the debug mode containers; corrupt TR1 tables,
# slists, paths and error codes give one error.  std::error_code and
# std::error_condition print as GCC's printer tests expect (gdb does not
# find their categories).
. "$top_srcdir/tests/test-subr.sh"

printers=$(ls /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.*-gdb.py 2>/dev/null | head -1)
with_gdb=false
if have_gdb && [ -n "$printers" ]; then
	with_gdb=true
fi

# compare_gdb PID DESCRIPTION VAR...: `print VAR` of each (globals) in
# spyglass and in gdb, compared whole.  gdb's printers look types up in
# the selected frame: main's, a C++ one, not pause()'s.
compare_gdb() {
	local pid=$1 desc=$2 v args=() cmds=()
	shift 2
	for v in "$@"; do
		args+=(-ex "print $v")
		cmds+=("print $v")
	done
	sg -p "$pid" "${args[@]}"
	ok $STATUS "$desc: the commands succeed${ERR:+: $ERR}"
	if $with_gdb; then
		local mine=$OUT
		gdb_batch "$pid" 'frame function main' "${cmds[@]}"
		GDB_OUT=$(printf '%s\n' "$GDB_OUT" | grep -v '^#')
		is "$mine" "$GDB_OUT" "$desc, as gdb's libstdc++ printers print them"
	else
		skip "$desc: gdb or its libstdc++ printers are not installed"
	fi
}

start_fixture "$FIXTURES/sg-lsx-extra" || exit 1
pid=$FIXTURE_PID

compare_gdb "$pid" "comparison categories" g_lt g_eq g_weq g_wgt g_un g_peq
compare_gdb "$pid" "spans of dynamic and static extent, empty" g_dspan g_sspan g_espan
compare_gdb "$pid" "atomic shared_ptr and weak_ptr, empty" g_asp g_easp g_awp
compare_gdb "$pid" "std::any of a local type and of std::string" g_al g_as
compare_gdb "$pid" "std::experimental optional, any and string_view" \
	g_xo g_xoi g_xom g_xa g_xai g_xap g_xam g_xsv
compare_gdb "$pid" "std::tr1 unordered containers" g_tum g_tumm g_tus g_etus
compare_gdb "$pid" "__gnu_cxx::slist, empty, of strings, a null iterator" g_sl g_ssl g_esl g_sl_end
compare_gdb "$pid" "std::filesystem::path: empty, one part, components, root only" \
	g_p0 g_p1 g_p2 g_p3 g_p4
compare_gdb "$pid" "std::experimental::filesystem::path: empty, one part, components, root only" \
	g_xp0 g_xp1 g_xp2 g_xp4

sg -p "$pid" -ex 'print g_e0' -ex 'print g_ec0' -ex 'print g_einval' -ex 'print g_ecinval' \
	-ex 'print g_emiaow' -ex 'print g_enoent' -ex 'print g_egen0' -ex 'print g_eunknown' \
	-ex 'print g_ecio' -ex 'print g_ecfut0' -ex 'print g_ecfut'
ok $STATUS "error codes: the commands succeed${ERR:+: $ERR}"
is "$OUT" '$1 = std::error_code = { }
$2 = std::error_condition = { }
$3 = std::error_code = {"generic": EINVAL}
$4 = std::error_condition = {"generic": EINVAL}
$5 = std::error_code = {my_cat: 42}
$6 = std::error_code = {"system": ENOENT}
$7 = std::error_code = {"generic": 0}
$8 = std::error_code = {"generic": 4242}
$9 = std::error_code = {"io": stream}
$10 = std::error_code = {"future": 0}
$11 = std::error_code = {"future": broken_promise}' \
	"error codes and conditions of each category, as GCC's printers.py means them"

# Corrupt values: one error each, and the commands go on.  gdb prints 200
# elements of the cyclic ones (what "print elements" allows).
sg -p "$pid" -ex 'print g_cyclic_tus' -ex 'print g_bad_tus' -ex 'print g_cyclic_sl' \
	-ex 'print g_bad_sl' -ex 'print g_bad_cmp' -ex 'print g_bad_path' -ex 'print g_bad_ec'
ok $STATUS "corrupt values print without failing the commands${ERR:+: $ERR}"
like "$OUT" '^\$1 = std::tr1::unordered_set with 3 elements = <error: hash table is longer than its element count \(cyclic\?\)>$' \
	"a TR1 node that is its own successor"
like "$OUT" '^\$2 = std::tr1::unordered_set with 3 elements = <error: Cannot access memory at address 0x[0-9a-f]+>$' \
	"a TR1 bucket at an unreadable address"
like "$OUT" '^\$3 = __gnu_cxx::slist = <error: __gnu_cxx::slist is cyclic>$' "a cyclic slist"
like "$OUT" '^\$4 = __gnu_cxx::slist = <error: Cannot access memory at address 0x[0-9a-f]+>$' \
	"an slist node linking to an unreadable address"
like "$OUT" '^\$5 = <error: std::partial_ordering of value 5 is none of its values>$' \
	"a comparison category of no known value"
like "$OUT" '^\$6 = filesystem::path "/a/b" = <error: Cannot access memory at address 0x10>$' \
	"a path whose components pointer is garbage"
like "$OUT" '^\$7 = <error: Cannot access memory at address 0x[0-9a-f]+>$' \
	"an error code whose category is not an object"
# "print elements" bounds the walks as gdb's (a map's pair counts two).
sg -p "$pid" -ex 'set print elements 1' -ex 'print g_tum' -ex 'print g_sl' -ex 'print g_dspan' \
	-ex 'print g_p2' -ex 'print g_xp2'
if $with_gdb; then
	gdb_batch "$pid" 'frame function main' 'set print elements 1' 'print g_tum' 'print g_sl' \
		'print g_dspan' 'print g_p2' 'print g_xp2'
	is "$OUT" "$(printf '%s\n' "$GDB_OUT" | grep -v '^#')" "print elements 1, as gdb"
else
	skip "print elements: gdb or its libstdc++ printers are not installed"
fi
stop_fixture "$pid"

start_fixture "$FIXTURES/sg-lsx-extra-debug" || exit 1
pid=$FIXTURE_PID
compare_gdb "$pid" "debug mode containers" g_v g_l g_dq g_fl g_m g_s g_um g_bs
stop_fixture "$pid"

done_testing
