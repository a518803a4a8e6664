#!/bin/bash
# "maintenance info target-stats": the memory a command reads, and the lazy
# name index (lib/typeindex.c) - what it reads, and that its own DWARF
# decoder indexes exactly what libdw does.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-data" || exit 1
pid=$FIXTURE_PID

# "memory asked for: N bytes in M reads" of the Kth stats block of $OUT.
asked() {
	printf '%s\n' "$OUT" | sed -n 's/^memory asked for: \([0-9]*\) bytes in \([0-9]*\) reads$/\1 \2/p' |
		sed -n "${1}p"
}

# x looks for the name among the selected frame's locals first, as gdb
# does, and that unwinds: select the frame before the first count.
sg -p "$pid" -ex 'frame' -ex 'maintenance info target-stats' -ex 'x/3dw &g_arr' -ex 'maint info target-stats'
ok $STATUS "the command runs${ERR:+: $ERR}"
like "$OUT" '^memory asked for: [0-9]+ bytes in [0-9]+ reads
memory read from the process: [0-9]+ bytes in [0-9]+ reads
name index: [0-9]+ units of DWARF read in [0-9]+ modules, [0-9]+ names
' "three lines"
read -r b1 r1 <<<"$(asked 1)"
read -r b2 r2 <<<"$(asked 2)"
is "$((b2 - b1)) $((r2 - r1))" "12 1" "x/3dw reads 12 bytes in one read"

sg --json -p "$pid" -ex 'print g_int' -ex 'maint info target-stats'
like "$OUT" '^\{"reads":[0-9]+,"bytes_read":[0-9]+,"fetches":[0-9]+,"bytes_fetched":[0-9]+,"index_modules":1,"index_units":1,"index_names":[1-9][0-9]*\}$' \
	"JSON; a global of the executable indexes its one unit and no other module"

sg -p "$pid" -ex 'ptype struct sg_no_such_type' -ex 'maint info target-stats'
units=$(printf '%s\n' "$OUT" | sed -n 's/^name index: \([0-9]*\) units of DWARF read in \([0-9]*\) modules.*/\1 \2/p')
read -r nunits nmods <<<"$units"
ok $([ "${nmods:-0}" -gt 1 ] && [ "${nunits:-0}" -gt 1 ]; echo $?) \
	"a type that does not exist reads every module's DWARF ($nunits units, $nmods modules)"
check_running "$pid" "target runs"
stop_fixture "$pid"

# The same index through libdw (SPYGLASS_NAME_INDEX=libdw) and through the
# raw decoder: the same names, the same answers, over the C++ fixtures and
# every library they load (libc, libstdc++, libm, ...).
for fx in sg-cxx sg-stl; do
	start_fixture "$FIXTURES/$fx" || exit 1
	cmds=(-ex 'whatis g_derived' -ex 'ptype ns::Plain' -ex 'print ns::Derived::count'
	      -ex 'print sizeof(ns::Derived)' -ex 'ptype struct sg_no_such_type'
	      -ex 'maint info target-stats')
	[ $fx = sg-stl ] && cmds=(-ex 'whatis g_l' -ex 'print g_l' -ex 'print g_map'
				  -ex 'ptype struct sg_no_such_type' -ex 'maint info target-stats')
	sg -p "$FIXTURE_PID" "${cmds[@]}"
	raw=$(printf '%s\n' "$OUT" | grep -v '^memory ')
	SPYGLASS_NAME_INDEX=libdw sg -p "$FIXTURE_PID" "${cmds[@]}"
	viadw=$(printf '%s\n' "$OUT" | grep -v '^memory ')
	is "$raw" "$viadw" "$fx: the raw decoder and libdw index the same names"
	like "$raw" 'name index: [0-9]+ units of DWARF read in [2-9] modules, [0-9]{4,} names' \
		"$fx: and that is several modules' worth"
	stop_fixture "$FIXTURE_PID"
done

# Corrupt DWARF: 48 bytes of 0xff in the middle of .debug_info and of
# .debug_abbrev.  Lookups fail with one line each, promptly, the same way
# through both decoders, and the process is left running.
bad=$testdir/sg-data-bad
cp "$FIXTURES/sg-data" "$bad"
for sec in .debug_info .debug_abbrev; do
	read -r off size < <(readelf -SW "$bad" | awk -v s="$sec" '$2 == s { print $5, $6 }')
	printf '\377%.0s' $(seq 48) |
		dd of="$bad" bs=1 seek=$((16#$off + 16#$size / 2)) conv=notrunc status=none
done
start_fixture "$bad" || exit 1
cmds=(-ex 'ptype struct sg_no_such_type' -ex 'print g_int' -ex 'ptype struct point')
start=$(date +%s%N)
sg -p "$FIXTURE_PID" "${cmds[@]}"
ms=$((($(date +%s%N) - start) / 1000000))
raw="$OUT|$ERR"
ok $([ "$(printf '%s\n' "$ERR" | wc -l)" -le 3 ] && [ $ms -lt 5000 ]; echo $?) \
	"corrupt DWARF: at most one line per command, in $ms ms"
SPYGLASS_NAME_INDEX=libdw sg -p "$FIXTURE_PID" "${cmds[@]}"
is "$raw" "$OUT|$ERR" "corrupt DWARF: the same answers through libdw"
check_running "$FIXTURE_PID" "the target of the corrupt DWARF runs"
stop_fixture "$FIXTURE_PID"

# A static member is declared in its class and defined at the top level
# through DW_AT_specification; gdb finds it from main's scope.
start_fixture "$FIXTURES/sg-cxx" || exit 1
sg -p "$FIXTURE_PID" -ex 'print ns::Derived::count' -ex 'print ns::Derived::nosuch'
is "$OUT" '$1 = 3' "a static member by its qualified name"
if have_gdb; then
	gdb_batch "$FIXTURE_PID" 'frame function main' 'print ns::Derived::count'
	is "$(printf '%s\n' "$GDB_OUT" | grep '^\$1')" "$OUT" "as gdb prints it"
else
	skip "gdb not installed"
fi
like "$ERR" 'nosuch' "a member that does not exist is an error"

# Names in -ex commands are looked up before the target is stopped: after
# the attach, the lookup reads no more DWARF (and the pause stays short).
# Attaching with the attach command gives no hints: the lookup reads then.
units() { printf '%s\n' "$OUT" | sed -n "${1}p" | jq -r '.index_units'; }
if command -v jq >/dev/null; then
	sg --json -p "$FIXTURE_PID" -ex 'maintenance info target-stats' \
		-ex 'ptype struct sg_no_such_type' -ex 'maintenance info target-stats'
	is "$(units 1)" "$(units 3)" "a hinted name costs no DWARF reading after the stop"
	sg --json -ex "attach $FIXTURE_PID" -ex 'maintenance info target-stats' \
		-ex 'ptype struct sg_no_such_type' -ex 'maintenance info target-stats'
	ok $(($(units 4) > $(units 2) ? 0 : 1)) "without hints the lookup reads DWARF while stopped ($(units 2) -> $(units 4) units)"
	printf 'maintenance info target-stats\nptype ns::Plain\nprint ns::Derived::count\nmaintenance info target-stats\n' \
		>"$testdir/hint.sg"
	sg --json -p "$FIXTURE_PID" -x "$testdir/hint.sg"
	is "$(units 1)" "$(units 4)" "names in a -x file are looked up before the stop too"
else
	skip "jq not installed"
	skip "jq not installed"
	skip "jq not installed"
fi
check_running "$FIXTURE_PID" "target runs"
done_testing
