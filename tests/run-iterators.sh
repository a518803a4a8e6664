#!/bin/bash
# libstdc++ iterators against gdb on the same process: print of each
# container's iterators (valid, end, singular; slist's too), vector<bool>'s bit
# iterators and references, and of debug mode's safe iterators; *it and
# it->member (gdb calls operator* and operator->; spyglass asks the
# iterator's reader); JSON; garbage iterators giving one clean error.
. "$top_srcdir/tests/test-subr.sh"

printers=$(ls /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.*-gdb.py 2>/dev/null | head -1)
with_gdb=false
if have_gdb && [ -n "$printers" ]; then
	with_gdb=true
fi

# sg_print PID EXPR...: spyglass's `print EXPR` of each, in main's frame
# (a C++ frame: "(P &)", not "(struct P &)"), into $OUT.
sg_print() {
	local pid=$1 e args=(-ex 'frame 1')
	shift
	for e in "$@"; do
		args+=(-ex "print $e")
	done
	sg -p "$pid" "${args[@]}"
	# frame 1 prints the frame's source line too ("127\t..."), as gdb.
	OUT=$(printf '%s\n' "$OUT" | grep -v '^#' | grep -vE '^[0-9]+[[:space:]]')
}

# gdb_print PID EXPR...: gdb's, in main's frame, into $GDB_OUT; errors
# ("Could not find operator*.") kept, frame lines dropped.
gdb_print() {
	local pid=$1 e cmds=('frame function main')
	shift
	for e in "$@"; do
		cmds+=("print $e")
	done
	gdb_batch "$pid" "${cmds[@]}"
	GDB_OUT=$(printf '%s\n' "$GDB_OUT" | grep -v '^#')
}

# compare_gdb PID DESCRIPTION EXPR...: print each in both, compare.
compare_gdb() {
	local pid=$1 desc=$2
	shift 2
	sg_print "$pid" "$@"
	ok $STATUS "$desc: the commands succeed${ERR:+: $ERR}"
	if $with_gdb; then
		local mine=$OUT
		gdb_print "$pid" "$@"
		# gdb 13 cannot call a function in the target on a CPU whose
		# XSAVE area outgrows its buffer (AMX): every call fails so.
		if grep -q "^Couldn't write extended state status" <<<"$GDB_OUT"; then
			skip "$desc, as gdb prints them: gdb cannot call functions in a process on this CPU ($(grep -m1 "^Couldn't write" <<<"$GDB_OUT"))"
			return
		fi
		is "$mine" "$GDB_OUT" "$desc, as gdb prints them"
	else
		skip "$desc: gdb or its libstdc++ printers are not installed"
	fi
}

start_fixture "$FIXTURES/sg-iter" || exit 1
pid=$FIXTURE_PID

# The value printer prints an iterator as its element when it knows the
# readers' deref op; without it, an element's address.
sg_print "$pid" g_vit
referents=false
if [ "$OUT" = '$1 = 2' ]; then
	referents=true
else
	echo "# the value printer does not print iterators as their elements: $OUT"
fi

compare_gdb "$pid" "singular iterators; vector<bool> bit iterators and references" \
	g_vit0 g_lit0 g_flit0 g_flend g_dqit0 g_mit0 g_setit0 \
	g_vbit g_vbit0 g_vbend g_vbcit g_br g_br1 g_br0 g_slit0
like "$OUT" '^\$1 = non-dereferenceable iterator for std::vector$' "a singular vector iterator"
like "$OUT" '^\$6 = non-dereferenceable iterator for associative container$' "a singular map iterator"
like "$OUT" '^\$14 = invalid std::vector<bool>::reference$' "a singular vector<bool> reference"
valid_vars=(g_vit g_vend g_vcit g_vpit g_vinv g_sit g_lit g_lcit g_liend g_flit g_flscit
	    g_dqit g_dqscit g_mit g_miend g_micit g_mmit g_setit g_setend g_msit
	    g_usit g_uslit g_ummit g_slit)
if $referents; then
	compare_gdb "$pid" "iterators of each container, end iterators, hash table iterators" \
		"${valid_vars[@]}"
	like "$OUT" '^\$4 = \{x = 2, name = "two"\}$' "an iterator to a struct prints the struct"
	like "$OUT" '^\$14 = \{first = "abc", second = 1\}$' "a map iterator prints its pair"
else
	skip "print of valid iterators: the value printer does not print iterators as their elements"
	skip "print of valid iterators, as gdb"
	skip "an iterator to a struct"
	skip "a map iterator"
fi

# gdb answers *it and it->member by calling the iterator's operator* and
# operator-> (the fixture instantiates them): "(int &) @0x...: 2".
compare_gdb "$pid" "*it and it->member" \
	'*g_vit' '*g_vcit' 'g_vpit->name' '*g_sit' '*g_lit' '*g_liend' '*g_flit' \
	'*g_flscit' '*g_dqit' '*g_dqscit' '*g_mit' 'g_mit->first' 'g_mit->second' \
	'(*g_mit).first' '*g_miend' 'g_micit->second' 'g_mmit->second' 'g_mmit->second.name' \
	'*g_setit' '*g_msit' '*g_umit' 'g_umit->first' '*g_usit' '*g_uslit' 'g_ummit->second' \
	'*g_vbit' '*g_vbcit' '*g_vpit' '*g_badv' '*g_slit'
like "$OUT" '^\$1 = \(int &\) @0x[0-9a-f]+: 2$' "*it is a reference to the element"
like "$OUT" '^\$12 = "abc"$' "it->first"
like "$OUT" '^\$28 = \(P &\) @0x[0-9a-f]+: \{x = 2, name = "two"\}$' "*it of a struct"
like "$OUT" '^\$29 = \(int &\) <error reading variable: Cannot access memory at address 0x10>$' \
	"*it of a vector iterator into unmapped memory"

# gdb reads address 0 (or the node's value past it) for a singular
# iterator; spyglass says what it is.
sg_print "$pid" '*g_vit0' '*g_lit0' '*g_mit0' '*g_vbit0'
is "$ERR" "Cannot dereference: non-dereferenceable iterator for std::vector.
Cannot dereference: non-dereferenceable iterator for std::list.
Cannot dereference: non-dereferenceable iterator for associative container.
Cannot dereference: non-dereferenceable iterator for std::vector<bool>." \
	"*it of singular iterators: one error each"
sg_print "$pid" '*g_v' 'g_v->x' '*g_s'
like "$ERR" '^Attempt to take contents of a non-pointer value\.' \
	"* of a container (no iterator reader) stays an error"

# Garbage: iterators into unmapped memory, a bit offset past its word.
sg_print "$pid" '*g_badl' 'g_badm->first' g_badl g_badm g_badbit '*g_badbit'
is "$OUT" '$1 = <error: Cannot access memory at address 0x10>
$2 = <error: Cannot access memory at address 0x10>
$3 = <error: bit iterator offset 99 is not sane>' "garbage iterators print one error each"
is "$ERR" 'Cannot access memory at address 0x10
Cannot access memory at address 0x10
bit iterator offset 99 is not sane' "*it and it->member of garbage iterators: one error each"
check_running "$pid" "the fixture runs on after the garbage"

# JSON: an element as its JSON value, a singular iterator as its words.
sg -p "$pid" --json -ex 'print *g_mit' -ex 'print g_vit0' -ex 'print *g_vit' -ex 'print g_vit' \
	-ex 'print g_vbit' -ex 'print g_mit'
ok $STATUS "JSON: the commands succeed${ERR:+: $ERR}"
json_check=$(printf '%s\n' "$OUT" | python3 -c '
import json, sys
v = [json.loads(l)["value"] for l in sys.stdin]
print(v[0] == {"first": "abc", "second": 1}, v[1] == "non-dereferenceable iterator for std::vector",
      v[2] == 2, v[3] == 2, v[4] is True, v[5] == {"first": "abc", "second": 1})' 2>&1)
if $referents; then
	is "$json_check" "True True True True True True" "JSON values of elements, iterators and bits"
else
	is "$json_check" "True True True False False False" "JSON values of elements and singular iterators"
fi
stop_fixture "$pid"

# Debug mode: __gnu_debug::_Safe_iterator prints as the iterator it wraps,
# or "invalid iterator" once its sequence changed under it.
start_fixture "$FIXTURES/sg-iter-debug" || exit 1
pid=$FIXTURE_PID
compare_gdb "$pid" "debug mode: singular and invalidated iterators, bit iterators" \
	g_vit0 g_lit0 g_mit0 g_vinv g_vbit g_vbit0 g_br
like "$OUT" '^\$4 = invalid iterator$' "an iterator invalidated by an erase"
if $referents; then
	# gdb prints a safe hash table iterator as the plain struct it
	# wraps; spyglass as its element (left out here).
	compare_gdb "$pid" "debug mode: iterators of each container" \
		g_vit g_vend g_vcit g_vpit g_sit g_lit g_lcit g_liend g_flit g_flscit \
		g_dqit g_dqscit g_mit g_miend g_micit g_mmit g_setit g_setend g_msit
else
	skip "debug mode: print of valid iterators: the value printer does not print iterators as their elements"
	skip "debug mode: print of valid iterators, as gdb"
fi
compare_gdb "$pid" "debug mode: *it and it->member" \
	'*g_vit' '*g_vcit' '*g_lit' '*g_flscit' '*g_mit' 'g_mit->first' 'g_umit->first' '*g_usit' \
	'g_ummit->second' '*g_vbit'
sg_print "$pid" '*g_vinv'
is "$ERR" "Cannot dereference: invalid iterator." "debug mode: *it of an invalidated iterator"
stop_fixture "$pid"

done_testing
