#!/bin/bash
# The libcxx plugin's readers on a clang + libc++ program.  gdb has no libc++
# printers, so the expected text comes from the fixture itself (computed
# with size(), capacity() and the characters through the library's API),
# and the raw layout is checked against gdb's view of the same members.
. "$top_srcdir/tests/test-subr.sh"

fixture=$FIXTURES/sg-libcxx
"$fixture" >/dev/null 2>&1
if [ $? -eq 77 ]; then
	# The make rule installs the stub when clang++ fails, also when the
	# fixture itself does not compile: tell the two apart.
	echo 'int main() {}' >"$testdir/probe.cc"
	if command -v clang++ >/dev/null &&
	   clang++ -stdlib=libc++ -o "$testdir/probe" -x c++ "$testdir/probe.cc" 2>/dev/null; then
		ok 1 "clang++ with libc++ works, but the fixture did not compile"
	else
		skip "clang++ with libc++ is not installed (the fixture is a stub)"
	fi
	done_testing
fi

# check LABEL BINARY: every check on one build of the fixture.
check() {
	local label=$1 bin=$2 expected=$testdir/expected.$1
	start_fixture "$bin" "$expected" || { ok 1 "$label: fixture starts"; return; }
	local pid=$FIXTURE_PID

	# Each global the fixture describes, in its order.
	local args=() want="" i=0 v text
	while read -r v text; do
		[[ $v == g_* ]] || continue
		args+=(-ex "print $v")
		i=$((i + 1))
		want+="\$$i = $text"$'\n'
	done <"$expected"
	sg -p "$pid" "${args[@]}"
	ok $STATUS "$label: all $i commands succeed${ERR:+: $ERR}"
	is "$OUT" "${want%$'\n'}" "$label: strings, vectors, lists, sets, maps, unordered containers and smart pointers as the fixture's own API describes them"
	is "$(grep '^inline' "$expected" | tr '\n' ' ')" "inline22 1 inline23 0 " \
		"$label: 22 characters are inline, 23 are not (so both modes are covered)"

	if have_gdb; then
		# The characters where gdb finds them from the raw members: the
		# inline buffer of short strings, the data pointer of long ones,
		# and the long size and vector bounds as gdb computes them.
		local gcmds=('set print null-stop on')
		for v in g_empty g_s1 g_s g_s22; do
			gcmds+=("print $v.__r_.__value_.__s.__data_")
		done
		for v in g_s23 g_long; do
			gcmds+=("print $v.__r_.__value_.__l.__data_")
		done
		gcmds+=('print g_long.__r_.__value_.__l.__size_' 'print g_v.__end_ - g_v.__begin_'
			'print g_v.__end_cap_.__value_ - g_v.__begin_' 'print g_escapes_raw'
			'print g_l.__size_alloc_.__value_' 'print g_bigmap.__tree_.__pair3_.__value_'
			'print g_vb.__size_')
		gdb_batch "$pid" "${gcmds[@]}"
		local graw
		graw=$(printf '%s\n' "$GDB_OUT" | sed -E 's/^\$[0-9]+ = (\([^)]*\) )?(0x[0-9a-f]+ )?//')
		sg -p "$pid" -ex 'print g_empty' -ex 'print g_s1' -ex 'print g_s' -ex 'print g_s22' \
			-ex 'print g_s23' -ex 'print g_long'
		local sgs
		sgs=$(printf '%s\n' "$OUT" | sed -E 's/^\$[0-9]+ = //')
		is "$sgs" "$(printf '%s\n' "$graw" | head -6)" "$label: each string's characters where gdb's raw members put them"
		local glen
		glen=$(printf '%s\n' "$graw" | sed -n 7p)
		like "$OUT" "^\\\$6 = \"[^\"]{$glen}\"\$" "$label: the long string's length is gdb's __l.__size_ ($glen)"
		is "$(printf '%s\n' "$graw" | sed -n 8,9p | tr '\n' ' ')" "3 4 " \
			"$label: gdb's raw vector bounds give the length and capacity the reader shows"
		sg -p "$pid" -ex 'print g_escapes'
		is "${OUT#\$1 = }" "$(printf '%s\n' "$graw" | sed -n 10p)" \
			"$label: escapes as gdb prints the same bytes in a char array"
		sg -p "$pid" -ex 'print g_l' -ex 'print g_bigmap' -ex 'print g_vb'
		like "$OUT" "^\\\$1 = std::list = \\{(\\[[0-9]+\\] = [0-9]+(, )?){$(printf '%s\n' "$graw" | sed -n 11p)}\\}\$" \
			"$label: as many list elements as gdb's raw __size_alloc_"
		like "$OUT" "^\\\$2 = std::map with $(printf '%s\n' "$graw" | sed -n 12p) elements = " \
			"$label: the map's size is gdb's raw __pair3_"
		like "$OUT" "^\\\$3 = std::vector<bool> of length $(printf '%s\n' "$graw" | sed -n 13p), " \
			"$label: the bit vector's length is gdb's raw __size_"
	else
		skip "$label: gdb not installed"
	fi

	sg -p "$pid" -ex 'print/r g_v' -ex 'print/r g_s'
	like "$OUT" '^\$1 = \{__begin_ = 0x[0-9a-f]+, __end_ = 0x[0-9a-f]+, __end_cap_ = ' \
		"$label: print/r bypasses the vector reader"
	like "$OUT" '^\$2 = \{static __short_mask = [^,]*, static __long_mask = [^,]*, __r_ = ' \
		"$label: print/r bypasses the string reader"

	sg -p "$pid" -ex 'set print elements 4' -ex 'print g_long' -ex 'print g_v' \
		-ex 'set print elements 2' -ex 'print g_l' -ex 'print g_vb' -ex 'print g_bigmap' -ex 'print g_set'
	is "$OUT" '$1 = "a st"...
$2 = std::vector of length 3, capacity 4 = {1, 2, 3}
$3 = std::list = {[0] = 1, [1] = 2...}
$4 = std::vector<bool> of length 3, capacity 128 = {1, 0...}
$5 = std::map with 40 elements = {[0] = 0...}
$6 = std::set with 3 elements = {[0] = 1, [1] = 2...}' "$label: print elements limits strings and containers"

	# Corrupt objects: one bounded error each, quickly.
	local start ms
	start=$(date +%s%N)
	sg -p "$pid" -ex 'print g_bad_len' -ex 'print g_bad_ptr' -ex 'print g_bad_short' \
		-ex 'print g_bad_vec' -ex 'print g_huge_vec' -ex 'print g_bad_vptr' -ex 'print g_cyclic' \
		-ex 'print g_cyclic_set' -ex 'print g_huge_map' -ex 'print g_huge_vb' -ex 'print g_bad_sp' \
		-ex 'print g_cyclic_us'
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	ok $STATUS "$label: corrupt objects print without failing the commands${ERR:+: $ERR}"
	ok $((ms > 5000)) "$label: and quickly (${ms} ms)"
	like "$OUT" '^\$1 = <error: std::string of length 1125899906842624 is not sane>$' "$label: a 2^50-byte string"
	like "$OUT" '^\$2 = <error: Cannot access memory at address 0x10>$' "$label: unreadable characters"
	like "$OUT" '^\$3 = <error: short std::string of length 63 does not fit its 23 bytes>$' \
		"$label: a short string longer than its buffer"
	like "$OUT" '^\$4 = <error: not a valid std::vector \(begin 0x[0-9a-f]+, end 0x[0-9a-f]+, end of capacity 0x[0-9a-f]+\)>$' \
		"$label: end before begin"
	like "$OUT" '^\$5 = <error: not a valid std::vector ' "$label: 2^40 elements"
	like "$OUT" '^\$6 = std::vector of length 2, capacity 2 = \{<error: Cannot access memory at address 0x10>, <error: Cannot access memory at address 0x14>\}$' \
		"$label: unreadable elements"
	like "$OUT" '^\$7 = std::list = <error: std::list is longer than its size \(cyclic\?\)>$' "$label: a cyclic list"
	like "$OUT" '^\$8 = std::set with 4 elements = \{(\[[0-3]\] = [0-9]+(, )?){4}\}$' \
		"$label: a cyclic tree: the walk stops at the element count"
	like "$OUT" '^\$9 = <error: container of 1099511627776 elements is not sane>$' "$label: a map of 2^40 elements"
	like "$OUT" '^\$10 = <error: not a valid std::vector<bool> \(1099511627776 bits in 1 words\)>$' \
		"$label: a bit vector of 2^40 bits"
	like "$OUT" '^\$11 = <error: Cannot access memory at address 0x18>$' "$label: an unreadable control block"
	like "$OUT" '^\$12 = std::unordered_set with 3 elements = <error: hash table is longer than its element count \(cyclic\?\)>$' \
		"$label: a cyclic hash table"
	check_running "$pid" "$label: target runs"
	stop_fixture "$pid"
}

check default "$fixture"
# The same source with DWARF 4, whose globals spyglass locates today and
# whose members are described differently.
dwarf4=$testdir/sg-libcxx-dwarf4
if clang++ -stdlib=libc++ -O0 -g -gdwarf-4 -o "$dwarf4" "$top_srcdir/tests/fixtures/sg-libcxx.cc" 2>/dev/null; then
	check dwarf4 "$dwarf4"
else
	skip "clang++ -gdwarf-4 could not build the fixture"
fi
done_testing
