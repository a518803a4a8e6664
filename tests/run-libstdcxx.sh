#!/bin/bash
# The libstdcxx plugin's readers against gdb's libstdc++ printers, and
# corrupt containers giving bounded errors.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-stl" || exit 1
pid=$FIXTURE_PID

cmds=()
for v in g_s g_s15 g_s16 g_long_s g_empty g_escapes g_v g_ev g_vs g_vp g_vv g_big \
	 'g_s._M_string_length' g_l g_el g_set g_eset g_mset g_up g_nup g_sp g_sp2 g_wp g_nsp; do
	cmds+=("print $v")
done
args=()
for c in "${cmds[@]}"; do
	args+=(-ex "$c")
done
sg -p "$pid" "${args[@]}"
ok $STATUS "all commands succeed${ERR:+: $ERR}"
like "$OUT" '^\$7 = std::vector of length 3, capacity 4 = \{1, 2, 3\}$' "a vector with its capacity"
printers=$(ls /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.*-gdb.py 2>/dev/null | head -1)
if have_gdb && [ -n "$printers" ]; then
	gdb_batch "$pid" "${cmds[@]}"
	is "$OUT" "$GDB_OUT" "strings and vectors as gdb's libstdc++ printers print them"
else
	skip "gdb or its libstdc++ printers are not installed"
fi

# gdb 13's own printers fail on lists and sets of strings here ("Python
# Exception ... 'NoneType' object has no attribute 'pointer'": they look up
# the node type by name and do not find it), so these are checked alone.
sg -p "$pid" -ex 'print g_ls' -ex 'print g_sset'
is "$OUT" '$1 = std::__cxx11::list = {[0] = "x"}
$2 = std::set with 2 elements = {[0] = "a", [1] = "b"}' "lists and sets of strings"

# Maps too: gdb 13's map printer fails the same way here.
sg -p "$pid" -ex 'print g_map' -ex 'print g_emap' -ex 'print g_mmap' \
	-ex 'set print elements 1' -ex 'print g_map' -ex 'print g_mmap'
is "$OUT" '$1 = std::map with 2 elements = {[1] = "one", [2] = "two"}
$2 = std::map with 0 elements
$3 = std::multimap with 2 elements = {[1] = 2, [1] = 3}
$4 = std::map with 2 elements = {[1] = "o"......}
$5 = std::multimap with 2 elements = {[1] = 2...}' "maps and multimaps as [key] = value, limited by pairs"

sg -p "$pid" -ex 'print/r g_ev'
like "$OUT" '^\$1 = \{<std::_Vector_base<int, std::allocator<int> >> = \{_M_impl = ' "print/r bypasses the readers"
sg -p "$pid" -ex 'set print elements 4' -ex 'print g_long_s' -ex 'print g_big'
like "$OUT" '^\$1 = "a st"\.\.\.$' "print elements limits strings"

# Corrupt containers: one error each, quickly, and the rest goes on.
start=$(date +%s%N)
sg -p "$pid" -ex 'print g_bad_vec' -ex 'print g_huge_vec' -ex 'print g_bad_len' -ex 'print g_bad_ptr' \
	-ex 'print g_cyclic' -ex 'print g_cyclic_set'
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $STATUS "corrupt containers print without failing the commands${ERR:+: $ERR}"
ok $((ms > 5000)) "and quickly (${ms} ms)"
like "$OUT" '^\$1 = <error: not a valid std::vector \(start 0x[0-9a-f]+, finish 0x[0-9a-f]+, end of storage 0x[0-9a-f]+\)>$' "finish below start"
like "$OUT" '^\$2 = <error: not a valid std::vector ' "2^40 elements"
like "$OUT" '^\$3 = <error: std::string of length 1125899906842624 is not sane>$' "a 2^50-byte string"
like "$OUT" '^\$4 = <error: Cannot access memory at address 0x10>$' "a string at an unreadable address"
like "$OUT" '^\$5 = std::__cxx11::list = <error: std::list is longer than its size \(cyclic\?\)>$' "a cyclic list"
like "$OUT" '^\$6 = std::set with 4 elements = \{(\[[0-3]\] = [0-9]+(, )?){4}\}$' "a cyclic tree: the walk stops at the element count"
check_running "$pid" "target runs"
done_testing
