#!/bin/bash
# The libstdcxx plugin's readers against gdb's libstdc++ printers, in both
# std::string ABIs, and corrupt containers giving bounded errors.
. "$top_srcdir/tests/test-subr.sh"

# Whitespace runs become one space: the comparison is of values, not of
# line breaks.
norm() {
	printf '%s\n' "$1" | tr -s ' \t' ' '
}

# print_all PID VAR...: spyglass's `print VAR` of each into $OUT.
print_all() {
	local pid=$1 v args=()
	shift
	for v in "$@"; do
		args+=(-ex "print $v")
	done
	sg -p "$pid" "${args[@]}"
}

# gdb_cxx PID COMMAND...: gdb's answers into $GDB_OUT, in main's frame.
# gdb's printers look types up (node types, std::string for the type
# printers) in the selected frame's language and scope: attached inside
# pause() (libc, C) they fail ("Python Exception ... 'NoneType' object has
# no attribute 'pointer'", "No type named ...::_Rep") or name types
# "class X".  A C++ frame is where a C++ program is debugged; so gdb gets
# main's frame (as bench/print.sh does) and the "#1 ... in main" line is
# dropped.
gdb_cxx() {
	local pid=$1
	shift
	gdb_batch "$pid" 'frame function main' "$@"
	GDB_OUT=$(printf '%s\n' "$GDB_OUT" | grep -v '^#')
}

# gdb_all PID VAR...: gdb's `print VAR` of each into $GDB_OUT.
gdb_all() {
	local pid=$1 v cmds=()
	shift
	for v in "$@"; do
		cmds+=("print $v")
	done
	gdb_cxx "$pid" "${cmds[@]}"
}

printers=$(ls /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.*-gdb.py 2>/dev/null | head -1)
with_gdb=false
if have_gdb && [ -n "$printers" ]; then
	with_gdb=true
fi

# compare_gdb PID DESCRIPTION VAR...: print each VAR in both, compare.
compare_gdb() {
	local pid=$1 desc=$2
	shift 2
	print_all "$pid" "$@"
	ok $STATUS "$desc: the commands succeed${ERR:+: $ERR}"
	if $with_gdb; then
		local mine=$OUT
		gdb_all "$pid" "$@"
		is "$(norm "$mine")" "$(norm "$GDB_OUT")" "$desc, as gdb's libstdc++ printers print them"
	else
		skip "$desc: gdb or its libstdc++ printers are not installed"
	fi
}

start_fixture "$FIXTURES/sg-stl" || exit 1
pid=$FIXTURE_PID

# Everything gdb 13's printers print on this machine, each compared whole.
compare_gdb "$pid" "strings: SSO boundary (15, 16), long, empty, escapes, repeats, NUL" \
	g_s g_s15 g_s16 g_long_s g_empty g_escapes g_rep g_nul 'g_s._M_string_length' \
	g_sv g_esv g_sv_part
# gdb writes characters past ASCII as the host locale allows; spyglass as
# gdb does in a UTF-8 locale, so gdb runs in one here.
LC_ALL=C.UTF-8 compare_gdb "$pid" "wide, UTF-16, UTF-32 strings and views; UTF-8 and stray bytes" \
	g_ws g_ews g_wrep g_wrep2 g_u16 g_u32 g_wsv g_utf8 g_utf8rep
compare_gdb "$pid" "vectors: empty, of strings, of structs, nested, large, of bool" \
	g_v g_ev g_vs g_vp g_vv g_big g_vb g_evb g_vb70
like "$OUT" '^\$1 = std::vector of length 3, capacity 4 = \{1, 2, 3\}$' "a vector with its capacity"
compare_gdb "$pid" "arrays (no printer: the plain struct)" g_arr g_earr g_arrs
compare_gdb "$pid" "deques: empty, over three buffers, of strings, of vectors" \
	g_dq g_edq g_bigdq g_dqs g_dqv
compare_gdb "$pid" "lists, forward_lists, sets, multisets of ints" \
	g_l g_el g_fl g_efl g_set g_eset g_mset
compare_gdb "$pid" "unordered sets of ints" g_us g_ums
compare_gdb "$pid" "smart pointers: counts, empty, expired, of a struct" \
	g_up g_nup g_sp g_sp2 g_wp g_nsp g_wexp g_spp
compare_gdb "$pid" "tuples, optionals, variants" \
	g_tup g_etup g_tupv g_opt g_nopt g_opts g_var g_var2 g_varv g_npos_var
compare_gdb "$pid" "std::any (internal, external, empty, of a container), initializer_list" \
	g_anyi g_anys g_anye g_anyv g_anyb g_il
compare_gdb "$pid" "atomics (integers, bool, char, pointer), bitsets, stack, queue, priority_queue" \
	g_ai g_ab g_ap g_al g_ac g_au g_bits g_ebits g_bits8 g_stack g_queue g_pq g_vstack
compare_gdb "$pid" "type names in summaries: str() of classes, the type printers' names" \
	g_upp g_uparr g_sps g_optp g_optc g_optptr g_optvp g_optsl g_optvip g_optms g_varp
compare_gdb "$pid" "nested optionals and variants, optional<pair>, optional<tuple>" \
	g_optopt g_varopt g_optpair g_opttup

# "print elements" limits strings, elements and map pairs as in gdb.
limit_vars=(g_long_s g_rep g_big g_vb70 g_bigdq g_fl g_us g_tup g_l g_vv g_dqv g_vp g_ls g_sset g_bits g_stack g_anyv g_optv g_il g_ws g_wrep)
args=(-ex 'set print elements 4')
for v in "${limit_vars[@]}"; do
	args+=(-ex "print $v")
done
sg -p "$pid" "${args[@]}"
like "$OUT" '^\$1 = "a st"\.\.\.$' "print elements limits strings"
if $with_gdb; then
	mine=$OUT
	cmds=('set print elements 4')
	for v in "${limit_vars[@]}"; do
		cmds+=("print $v")
	done
	gdb_cxx "$pid" "${cmds[@]}"
	is "$(norm "$mine")" "$(norm "$GDB_OUT")" "set print elements 4, as gdb"
else
	skip "set print elements: gdb or its printers are not installed"
fi

compare_gdb "$pid" "lists, sets and forward_lists of strings and structs" g_ls g_sset g_lp g_flp
compare_gdb "$pid" "maps, multimaps, maps of strings to vectors, a vector of maps" \
	g_map g_emap g_mmap g_msv g_vm
# Hash tables in the order of their node list, as gdb's printers walk them.
compare_gdb "$pid" "unordered maps of strings and vectors" g_um g_eum g_umm g_umsv g_uss
# gdb counts a map's keys and values as children against print elements:
# under 1, {[1] = ...}.
sg -p "$pid" -ex 'set print elements 1' -ex 'print g_map' -ex 'print g_mmap' -ex 'print g_um' -ex 'print g_msv'
if printf '%s\n' "$OUT" | grep -q '^\$1 = .*= "o"\.\.\.\.\.\.}$'; then
	skip "print elements for maps: the shell counts pairs, gdb counts keys and values"
elif $with_gdb; then
	mine=$OUT
	gdb_cxx "$pid" 'set print elements 1' 'print g_map' 'print g_mmap' 'print g_um' 'print g_msv'
	is "$(norm "$mine")" "$(norm "$GDB_OUT")" "print elements counts map pairs, as gdb"
else
	skip "print elements for maps: gdb or its printers are not installed"
fi

# std::pair has a printer without a summary: gdb prints {first = .., second
# = ..} (the plain struct would show the empty __pair_base base too).  An
# optional or variant holding a container takes that container's display
# hint.  Both need the shell's part (a reader without a summary; readers
# chosen by their match callback); until it has them, say so.
sg -p "$pid" -ex 'print g_pair' -ex 'print g_optv'
if printf '%s\n' "$OUT" | grep -q '^\$1 =  = \|\[0\] = 1'; then
	skip "pair and optional<container>: the shell does not print summary-less readers or call match yet"
else
	compare_gdb "$pid" "pairs (also in sets and maps), optional<vector>, optional<map>" \
		g_pair g_pairv g_setp g_mapp g_optv g_optm
fi

sg -p "$pid" -ex 'print/r g_ev'
like "$OUT" '^\$1 = \{<std::_Vector_base<int, std::allocator<int> >> = \{_M_impl = ' "print/r bypasses the readers"

# Corrupt containers: one error each, quickly, and the rest goes on.
start=$(date +%s%N)
print_all "$pid" g_bad_vec g_huge_vec g_bad_len g_bad_ptr g_cyclic g_cyclic_set \
	g_bad_dq g_huge_dq g_cyclic_us g_huge_us g_cyclic_fl g_bad_var g_bad_opt g_bad_any g_any_loop \
	g_self_parent
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $STATUS "corrupt containers print without failing the commands${ERR:+: $ERR}"
ok $((ms > 5000)) "and quickly (${ms} ms)"
like "$OUT" '^\$1 = <error: not a valid std::vector \(start 0x[0-9a-f]+, finish 0x[0-9a-f]+, end of storage 0x[0-9a-f]+\)>$' "finish below start"
like "$OUT" '^\$2 = <error: not a valid std::vector ' "2^40 elements"
like "$OUT" '^\$3 = <error: std::string of length 1125899906842624 is not sane>$' "a 2^50-byte string"
like "$OUT" '^\$4 = <error: Cannot access memory at address 0x10>$' "a string at an unreadable address"
like "$OUT" '^\$5 = std::__cxx11::list = <error: std::list is longer than its size \(cyclic\?\)>$' "a cyclic list"
like "$OUT" '^\$6 = std::set with 4 elements = <error: tree node 0x[0-9a-f]+ links to itself \(cyclic\?\)>$' \
	"a tree node that is its own right child: an error, not a duplicate"
like "$OUT" '^\$7 = std::deque with 300 elements = <error: Cannot access memory at address 0x10>$' "a deque whose map points at unreadable memory"
like "$OUT" '^\$8 = <error: not a valid std::deque \(start node 0x[0-9a-f]+, finish node 0x[0-9a-f]+\)>$' "a deque whose finish node is 2^40 past its start"
like "$OUT" '^\$9 = std::unordered_set with 3 elements = <error: hash table is longer than its element count \(cyclic\?\)>$' "a cyclic hash table node list"
like "$OUT" '^\$10 = <error: hash table of 1099511627776 elements is not sane>$' "a hash table of 2^40 elements"
like "$OUT" '^\$11 = std::forward_list = <error: std::forward_list is cyclic>$' "a cyclic forward_list"
like "$OUT" '^\$12 = <error: std::variant index 7 is out of range \(2 alternatives\)>$' "a variant with a bad index"
like "$OUT" "^\\\$13 = <error: std::optional's engaged flag is 0x5a, not a bool>$" "an optional with a garbage engaged flag"
like "$OUT" '^\$14 = <error: std::any manager 0x1234 is not a function>$' "an any whose manager is garbage"
like "$OUT" '^\$15 = .*<error: readers nested more than 32 deep \(a value that contains itself\?\)>' \
	"an any that holds itself ends in an error, not a stack overflow"
like "$OUT" '^\$16 = std::map with 3 elements = <error: tree node 0x[0-9a-f]+ links to itself \(cyclic\?\)>$' \
	"a map node that is its own parent: an error, not a duplicate"
check_running "$pid" "target runs"
stop_fixture "$pid"

# The old copy-on-write std::string (-D_GLIBCXX_USE_CXX11_ABI=0): the
# length is in the _Rep header before the characters; std::list has no
# _M_size.
start_fixture "$FIXTURES/sg-stl-cow" || exit 1
pid=$FIXTURE_PID
LC_ALL=C.UTF-8 compare_gdb "$pid" "old ABI: strings" \
	g_s g_s15 g_s16 g_long_s g_empty g_escapes g_rep g_nul g_ws g_wrep2 g_u16 g_u32 g_utf8
compare_gdb "$pid" "old ABI: containers of strings, std::list, type names" \
	g_vs g_vp g_l g_el g_ls g_sset g_map g_msv g_umsv g_dqs g_opts g_var2 g_optms g_tup
print_all "$pid" g_cyclic g_bad_len g_bad_ptr
ok $STATUS "old ABI: corrupt containers print${ERR:+: $ERR}"
like "$OUT" '^\$1 = std::list = <error: std::list is cyclic>$' "old ABI: a cyclic list ends by the cycle check"
like "$OUT" '^\$2 = <error: std::string of length 1125899906842624 is not sane>$' "old ABI: a 2^50-byte string"
like "$OUT" '^\$3 = <error: not a valid std::string \(characters at 0x10\)>$' "old ABI: characters at a garbage address"
check_running "$pid" "old ABI target runs"
done_testing
