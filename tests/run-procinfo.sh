#!/bin/bash
# info all-registers, info files and info signals (info handle), against
# gdb on the same process and on cores of it.
#
# The fixture, tests/fixtures/sg-vecregs.c, fills the x87 stack (pi, -0,
# a NaN with a payload, infinity, a denormal, 1e-10, -2.5, st7 empty),
# MXCSR, xmm/ymm/zmm0-31 and k0-7 with known values, then waits in a
# pause(2) of its own, so that no library code changes them.
#
# - live: info all-registers is gdb's text byte for byte; so is each
#   register by name (xmm, ymm, zmm, st, the x87 control registers,
#   mxcsr, k); the known values are there whatever gdb says (the NaN's
#   payload, pi's 21 digits, a repeat block); a bad name is gdb's error
#   with a non-zero status; --json read with jq; frame 2 of a C++
#   fixture (the registers the unwinder did not recover);
# - cores: one gdb's gcore wrote, one spyglass's gcore wrote, one the
#   kernel wrote on SIGABRT (where core_pattern lets it): info
#   all-registers is gdb's text on the same core, and the live one's;
# - info files: gdb's text on the live process (the thread, the
#   executable's and each library's sections, the vDSO) and on the three
#   cores (their load segments); --json;
# - info signals: gdb's table, one signal by name and by number, info
#   handle, and gdb's errors for a number out of range and an unknown
#   name.
. "$top_srcdir/tests/test-subr.sh"

EXE=$FIXTURES/sg-vecregs

between() {
	sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d'
}

# gdb_live PID CMD: gdb's stdout for CMD on PID, in GDB_OUT.
gdb_live() {
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -p "$1" -ex 'echo @@begin@@\n' -ex "$2" \
		-ex 'echo @@end@@\n' 2>"$testdir/gdb.err" | between)
	GDB_ERR=$(tail -n 1 "$testdir/gdb.err")
}

# gdb_core CORE CMD: gdb's stdout for CMD on CORE of $EXE, in GDB_OUT.
gdb_core() {
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -c "$1" "$EXE" -ex 'echo @@begin@@\n' \
		-ex "$2" -ex 'echo @@end@@\n' 2>/dev/null | between)
}

# sg_core CORE CMD: spyglass's output for CMD on CORE, without what it
# prints as it opens the core.
sg_core() {
	sg -c "$1" "$EXE" -ex 'echo @@begin@@\n' -ex "$2" -ex 'echo @@end@@\n'
	OUT=$(between <<<"$OUT")
}

start_fixture "$EXE" && pid=$FIXTURE_PID || { ok 1 "sg-vecregs starts"; done_testing; }
read -r _ kind cpu_xcr0 layout < <(grep -m1 '^ready' "$testdir/fixture.1")
avx512=false
[ "$kind" = avx512 ] && avx512=true

# gdb 13 reads and writes the AVX-512 state (k0-7, the upper halves of
# zmm0-15, zmm16-31) at Intel's XSAVE offsets; gdb 14 takes them from
# CPUID.  Where this CPU's offsets differ (AMD's Zen 4 has no MPX and
# puts them 256 bytes lower), gdb 13's values for those registers are
# other bytes of the area.  There, those registers are left out of the
# comparisons with gdb, and compared with the values the fixture loaded
# into them, as gdb reads those from its memory.
gdb_avx512=true
if $avx512 && [ "$layout" != intel ]; then
	gdb_avx512=false
	echo "# this CPU's AVX-512 XSAVE offsets are not Intel's: gdb 13 misreads k0-7 and zmm; they are checked against the fixture's memory"
fi
# The lines of registers gdb 13 misreads here, left out of a comparison.
gdb_sees() {
	if $gdb_avx512; then
		cat
	else
		grep -Ev '^(k[0-7]|zmm[0-9]+|[xy]mm(1[6-9]|2[0-9]|3[01])) '
	fi
}

# ---- info all-registers, live
sg -p "$pid" -ex 'info all-registers'
ok $STATUS "live: info all-registers succeeds${ERR:+: $ERR}"
live_all=$OUT
# The values the fixture put there, whatever gdb says.
like "$OUT" $'^st0            -0                  \\(raw 0x80000000000000000000\\)$' \
	"live: st0 is -0, with its raw bits"
like "$OUT" '^st1            3\.14159265358979323851 \(raw 0x4000c90fdaa22168c235\)$' \
	"live: st1 is pi to 21 digits"
like "$OUT" '^st4            nan\(0xc000000000001234\) \(raw 0x7fffc000000000001234\)$' \
	"live: st4 is the NaN with its payload"
like "$OUT" '^st5            inf  ' "live: st5 is infinity"
like "$OUT" '^st3            3\.64519953188247460253e-4951 ' "live: st3 is the smallest denormal"
like "$OUT" '^ftag           0x2a07              10759$' "live: ftag: st7 empty, -0 zero, NaN, inf and the denormal special"
like "$OUT" '^mxcsr          0xbfc0              \[ DAZ IM DM ZM OM UM PM FZ \]$' \
	"live: mxcsr as the fixture set it"
if $avx512; then
	like "$OUT" '^k1             0x100123456789abcd  1153241760580348877$' "live: k1"
	like "$OUT" '^zmm31          \{v32_bfloat16 = \{0x7777 <repeats 32 times>\}.*, v64_int8 = \{0x77 <repeats 64 times>\}' \
		"live: zmm31 is one byte repeated, in repeat blocks"
	like "$OUT" '^zmm0           \{v32_bfloat16 = \{0xb00, 0x2116, 0x0 <repeats 30 times>\}' \
		"live: zmm0's first elements"
else
	skip "no AVX-512 here ($kind): no zmm or k registers"
	skip "no AVX-512 here ($kind)"
	skip "no AVX-512 here ($kind)"
fi
regs='xmm3 ymm5 st0 st4 st7 fctrl fstat ftag fiseg fioff foseg fooff fop mxcsr rip'
$avx512 && regs="$regs zmm17 xmm20 ymm31 k2 k7"
sg -p "$pid" -ex "info all-registers $regs"
ok $STATUS "live: info all-registers $regs succeeds${ERR:+: $ERR}"
by_name=$OUT
like "$OUT" '^xmm3           \{v8_bfloat16 = \{0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0\}.*uint128 = 0x0\}$' \
	"live: xmm3, all zero bytes, its uint128 a scalar"
sg -p "$pid" -ex 'info all-registers foo'
is "$ERR" "Invalid register \`foo'" "live: a bad register name: gdb's error"
ok $((STATUS == 0)) "live: a bad register name fails (status $STATUS)"
sg --json -p "$pid" -ex 'info all-registers st1 mxcsr xmm31 zmm31 k3'
is "$(jq -r '.registers.st1.raw' <<<"$OUT" 2>&1)" "0x4000c90fdaa22168c235" "--json: st1's raw bits"
is "$(jq -r '.registers.mxcsr' <<<"$OUT" 2>&1)" "0xbfc0" "--json: mxcsr"
if $avx512; then
	is "$(jq -r '.registers.zmm31.v64_int8 | length, unique[0]' <<<"$OUT" 2>&1)" $'64\n0x77' \
		"--json: zmm31's 64 bytes, each 0x77"
	is "$(jq -r '.registers.xmm31.uint128, .registers.k3' <<<"$OUT" 2>&1)" \
		$'0x77777777777777777777777777777777\n0x3000000123456789' "--json: xmm31 and k3"
else
	skip "no AVX-512 here ($kind)"
	skip "no AVX-512 here ($kind)"
fi
if have_gdb; then
	gdb_live "$pid" 'info all-registers'
	is "$(gdb_sees <<<"$live_all")" "$(gdb_sees <<<"$GDB_OUT")" "live: info all-registers: gdb's text"
	gdb_live "$pid" "info registers $regs"
	is "$(gdb_sees <<<"$by_name")" "$(gdb_sees <<<"$GDB_OUT")" "live: registers by name: gdb's text"
	gdb_live "$pid" 'info registers foo'
	is "$GDB_ERR" "Invalid register \`foo'" "live: gdb's error for a bad name is the same"
	# info registers: gdb's columns (the natural value at 35), k0-k7
	# after gs where the CPU has them, and the XSAVE registers by name.
	for c in 'info registers' 'info registers rip pc k1 xmm0 st0 mxcsr'; do
		sg -p "$pid" -ex "$c"
		gdb_live "$pid" "$c"
		is "$(gdb_sees <<<"$OUT")" "$(gdb_sees <<<"$GDB_OUT")" "live: $c: gdb's text"
	done
	if $avx512; then
		# Each zmm register's bytes and the k registers are what
		# the fixture loaded from vec[] and kmask[].
		# One gdb run: $1-$32 are vec[0-31], $33 is kmask.
		args=()
		for r in $(seq 0 31); do
			args+=(-ex "print/x vec[$r]")
		done
		mem=$(timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${args[@]}" -ex 'print/x kmask' \
			2>/dev/null | sed -n 's/^\$\([0-9]*\) = {\(.*\)}$/\1 \2/p')
		want= got=
		for r in $(seq 0 31); do
			want+="zmm$r {$(sed -n "s/^$((r + 1)) //p" <<<"$mem")}"$'\n'
			got+="zmm$r $(sed -n "s/^zmm$r .*v64_int8 = \({[^}]*}\).*/\1/p" <<<"$live_all")"$'\n'
		done
		is "$got" "$want" "live: zmm0-31 hold the fixture's vec[0-31], as gdb reads them from its memory"
		want=$(sed -n 's/^33 //p' <<<"$mem")
		got=$(awk '/^k[0-7] / { printf "%s%s", n++ ? ", " : "", $2 }' <<<"$live_all")
		is "$got" "$want" "live: k0-7 hold the fixture's kmask[0-7], as gdb reads them from its memory"
	else
		skip "no AVX-512 here ($kind)"
		skip "no AVX-512 here ($kind)"
	fi
else
	skip "gdb is not installed: no reference for info all-registers"
	skip "gdb is not installed"
	skip "gdb is not installed"
	skip "gdb is not installed"
	skip "gdb is not installed"
	skip "gdb is not installed"
	skip "gdb is not installed"
fi

# info registers on a snapshot, which has no XSAVE area: the general
# registers, and no error.
sg -p "$pid" --snapshot -ex 'info registers'
is "$STATUS:$ERR" "0:" "snapshot: info registers succeeds"
like "$OUT" '^gs +0x' "snapshot: info registers lists the general registers"

# ---- info files, live
sg -p "$pid" -ex 'info files'
ok $STATUS "live: info files succeeds${ERR:+: $ERR}"
live_files=$OUT
like "$OUT" "^Symbols from \"$EXE\"\.\$" "live: info files names the executable"
like "$OUT" $'^\t0x[0-9a-f]{16} - 0x[0-9a-f]{16} is \\.text in /.*libc\\.so\\.6$' \
	"live: info files has libc's .text"
sg --json -p "$pid" -ex 'info files'
is "$(jq -r '[.kind, ([.sections[] | select(.name == ".text" and .file == null)] | length)] | @tsv' \
	<<<"$OUT" 2>&1)" $'process\t1' "--json: info files: a process, one .text in the executable"
if have_gdb; then
	gdb_live "$pid" 'info files'
	is "$live_files" "$GDB_OUT" "live: info files: gdb's text"
else
	skip "gdb is not installed: no reference for info files"
fi

sg -ex 'info files'
is "$STATUS:$OUT:$ERR" "0::" "no target: info files prints nothing, as gdb does"

# A C++ program: the dynamic linker lists libstdc++ and libgcc_s before
# libc, and libm after it, which is not the order of their addresses.
if start_fixture "$FIXTURES/bt-cc-O0"; then
	sg -p "$FIXTURE_PID" -ex 'info files'
	libs=$(awk '/ in \//{ sub(/.* in /, ""); if ($0 != last) print; last = $0 }' <<<"$OUT")
	is "$(grep -c . <<<"$libs")" "$(grep -c . <<<"$(printf '%s\n' "$libs" | sort -u)")" \
		"C++: info files lists each library once"
	if have_gdb; then
		cxx_files=$OUT
		gdb_live "$FIXTURE_PID" 'info files'
		is "$cxx_files" "$GDB_OUT" "C++: info files: gdb's text, its order of libraries"
		# An outer frame: what the unwinder did not recover is the
		# callee's value, as gdb has it.
		sg -p "$FIXTURE_PID" -ex 'frame 2' -ex 'echo @@begin@@\n' -ex 'info all-registers' \
			-ex 'echo @@end@@\n'
		outer=$(between <<<"$OUT")
		GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -p "$FIXTURE_PID" -ex 'frame 2' \
			-ex 'echo @@begin@@\n' -ex 'info all-registers' -ex 'echo @@end@@\n' \
			2>/dev/null | between)
		is "$(gdb_sees <<<"$outer")" "$(gdb_sees <<<"$GDB_OUT")" \
			"C++: frame 2: info all-registers: gdb's text"
	else
		skip "gdb is not installed: no reference for the libraries' order"
		skip "gdb is not installed: no reference for an outer frame"
	fi
	stop_fixture "$FIXTURE_PID"
else
	ok 1 "bt-cc-O0 starts"
fi

# ---- snapshots: the vector registers were not copied
printf 'set snapshot on\nattach %s\ninfo all-registers st0\n' "$pid" |
	timeout -k 5 60 "$SG_BIN" -nx >"$testdir/snap.out" 2>&1
like "$(cat "$testdir/snap.out")" "the vector registers of process $pid are not in its snapshot" \
	"snapshot: info all-registers says the vector registers are not in it"

# ---- cores
cores=()
if have_gdb; then
	timeout -k 5 120 "$GDB" -nx -batch -p "$pid" -ex "gcore $testdir/gdb.core" \
		>"$testdir/gcore.out" 2>&1
	ok $? "gdb's gcore writes a core"
	[ -s "$testdir/gdb.core" ] && cores+=("$testdir/gdb.core")
else
	skip "gdb is not installed: no gdb core"
fi
sg -p "$pid" -ex "generate-core-file $testdir/sg.core"
ok $STATUS "spyglass's gcore writes a core${ERR:+: $ERR}"
[ -s "$testdir/sg.core" ] && cores+=("$testdir/sg.core")

kdir=$testdir/kernel
mkdir -p "$kdir"
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
case $pattern in
'|'* | */*) why="the kernel writes cores elsewhere (core_pattern $pattern)" ;;
*) why= ;;
esac
if [ -z "$why" ] &&
	start_fixture bash -c 'cd "$1" && ulimit -c unlimited && exec "$2"' sh "$kdir" "$EXE"; then
	kill -ABRT "$FIXTURE_PID"
	wait "$FIXTURE_PID" 2>/dev/null
	kcore=$(ls "$kdir"/core* 2>/dev/null | head -n 1)
	if [ -n "$kcore" ]; then
		cores+=("$kcore")
	else
		why="no core after SIGABRT (ulimit -c is capped, or the kernel may not write one here)"
	fi
fi
[ -z "$why" ] || skip "no kernel core: $why"

# The registers past the general ones, which differ in the kernel's
# core (another process); so do fiseg and fioff there: the address of
# the last x87 instruction.
vector_part() {
	sed -n '/^st0 /,$p' | grep -Ev '^fi(seg|off) '
}
for core in "${cores[@]}"; do
	name=${core#"$testdir/"}
	sg_core "$core" 'info all-registers'
	ok $STATUS "$name: info all-registers succeeds${ERR:+: $ERR}"
	core_all=$OUT
	# gdb's gcore writes what gdb 13 read.
	if [ "$name" = gdb.core ]; then
		is "$(vector_part <<<"$core_all" | gdb_sees)" "$(vector_part <<<"$live_all" | gdb_sees)" \
			"$name: the x87 and vector registers are the live process's"
	else
		is "$(vector_part <<<"$core_all")" "$(vector_part <<<"$live_all")" \
			"$name: the x87 and vector registers are the live process's"
	fi
	sg_core "$core" 'info files'
	core_files=$OUT
	like "$OUT" $'^Local core dump file:\n\t`'"$core"$'\', file type elf64-x86-64\\.\n\t0x[0-9a-f]{16} - 0x[0-9a-f]{16} is load1a?$' \
		"$name: info files names the core and its first segment"
	if have_gdb; then
		gdb_core "$core" 'info all-registers'
		is "$(gdb_sees <<<"$core_all")" "$(gdb_sees <<<"$GDB_OUT")" "$name: info all-registers: gdb's text"
		gdb_core "$core" 'info files'
		is "$core_files" "$GDB_OUT" "$name: info files: gdb's text"
	else
		skip "gdb is not installed: no reference for cores"
		skip "gdb is not installed: no reference for cores"
	fi
done

# Other CPUs, as a core says: spyglass's core with XCR0 (and XSTATE_BV)
# cut to AVX (ymm0-15 after mxcsr), SSE alone (xmm0-15 before it), AVX
# and PKU (pkru before the ymm registers).
patch_xcr0() {	# patch_xcr0 CORE OUT XCR0
	python3 - "$@" <<'PY'
import struct, sys
src, dst, xcr0 = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
d = bytearray(open(src, 'rb').read())
phoff, = struct.unpack_from('<Q', d, 32)
phnum, = struct.unpack_from('<H', d, 56)
for i in range(phnum):
    ptype, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', d, phoff + 56 * i)
    at = off
    while ptype == 4 and at + 12 <= off + filesz:
        namesz, descsz, ntype = struct.unpack_from('<III', d, at)
        desc = at + 12 + ((namesz + 3) & ~3)
        if ntype == 0x202 and d[at + 12:at + 18] == b'LINUX\0':
            bv, = struct.unpack_from('<Q', d, desc + 512)
            struct.pack_into('<Q', d, desc + 464, xcr0)
            struct.pack_into('<Q', d, desc + 512, bv & xcr0)
        at = desc + ((descsz + 3) & ~3)
open(dst, 'wb').write(d)
PY
}
if [ -s "$testdir/sg.core" ] && have_gdb && command -v python3 >/dev/null; then
	for x in 0x7 0x3 0x207; do
		# A core that claims PKRU where the CPU has none has no
		# room for it at gdb's offset: gdb and spyglass then each
		# read another part of the area.
		if ((x & ~cpu_xcr0)); then
			skip "a core with XCR0 $x: this CPU's XCR0 is $cpu_xcr0"
			skip "a core with XCR0 $x: this CPU's XCR0 is $cpu_xcr0"
			skip "a core with XCR0 $x: this CPU's XCR0 is $cpu_xcr0"
			continue
		fi
		patch_xcr0 "$testdir/sg.core" "$testdir/xcr0-$x.core" "$x"
		sg_core "$testdir/xcr0-$x.core" 'info all-registers'
		sg_all=$OUT
		gdb_core "$testdir/xcr0-$x.core" 'info all-registers'
		is "$sg_all" "$GDB_OUT" "a core with XCR0 $x: info all-registers: gdb's text"
		sg_core "$testdir/xcr0-$x.core" 'info all-registers xmm1 ymm1 zmm1'
		sg_err=$ERR
		gdb_core "$testdir/xcr0-$x.core" 'info registers xmm1 ymm1 zmm1'
		is "$OUT" "$GDB_OUT" "a core with XCR0 $x: xmm1, ymm1: gdb's text"
		is "$sg_err" "Invalid register \`$( [ $x = 0x3 ] && echo ymm1 || echo zmm1)'" \
			"a core with XCR0 $x: no register wider than the CPU's"
	done
else
	skip "no spyglass core, gdb or python3: no core of another CPU"
fi

# ---- info signals
sg -ex 'info signals'
ok $STATUS "info signals succeeds${ERR:+: $ERR}"
signals=$OUT
like "$OUT" $'^SIGINT        Yes\tYes\tNo\t\tInterrupt$' "info signals: SIGINT stops, is not passed"
like "$OUT" $'^EXC_BAD_ACCESS Yes\tYes\tYes\t\tCould not access memory$' \
	"info signals: a name longer than the column"
sg -ex 'info handle 14'
is "$OUT" $'Signal        Stop\tPrint\tPass to program\tDescription\nSIGALRM       No\tNo\tYes\t\tAlarm clock' \
	"info handle 14: gdb's numbering (SIGALRM)"
sg --json -ex 'info signals'
is "$(jq -r '.signals[] | select(.name == "SIGCHLD") | [.stop, .print, .pass] | @tsv' <<<"$OUT" 2>&1)" \
	$'false\tfalse\ttrue' "--json: SIGCHLD is neither stopped at nor printed, and passed"
sg -ex 'info signals 200'
ok $((STATUS == 0)) "info signals 200 fails (status $STATUS)"
signals_200=$OUT/$ERR
sg -ex 'info signals SIGFOO'
ok $((STATUS == 0)) "info signals SIGFOO fails (status $STATUS)"
signals_foo=$OUT/$ERR
if have_gdb; then
	for c in 'info signals' 'info signals SIGSEGV' 'info signals 11' 'info handle' \
		'info signals 200' 'info signals SIGFOO'; do
		gdb_out=$(timeout -k 5 60 "$GDB" -nx -batch -ex "$c" 2>"$testdir/gdb.err")
		gdb_err=$(cat "$testdir/gdb.err")
		case $c in
		'info signals') got=$signals ;;
		'info signals 200') got=$signals_200 gdb_out=$gdb_out/$gdb_err ;;
		'info signals SIGFOO') got=$signals_foo gdb_out=$gdb_out/$gdb_err ;;
		*) sg -ex "$c"; got=$OUT ;;
		esac
		is "$got" "$gdb_out" "$c: gdb's text"
	done
else
	skip "gdb is not installed: no reference for info signals"
fi

done_testing
