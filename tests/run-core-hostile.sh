#!/bin/bash
# The core reader on bad input (issue 12): a real core of sg-corecrash,
# cut short anywhere, patched to another architecture, with garbage in its
# file note or its headers, and files that are no core at all.  Each gives
# clear lines on stderr and a non-zero exit, within 5 s, never a crash:
# an error (exit 2) for what cannot be opened, a warning and errors from
# the commands that need what is missing (exit 1) for a core cut in its
# memory.
. "$top_srcdir/tests/test-subr.sh"

crash=$FIXTURES/sg-corecrash
work=$testdir/work
mkdir -p "$work"
limit=5
wrapped && limit=120

# sgc ARGS...: spyglass in batch mode under a time limit; sets OUT, ERR,
# STATUS (124: the limit was hit).
sgc() {
	OUT=$(timeout "$limit" "$SG_BIN" -nx -batch "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

# ---- a real core ----

# The kernel's, from the fixture's crash in an empty folder, if
# core_pattern writes a file there; else gdb's gcore of the fixture
# waiting in the same frames.
make_core() {
	local pattern
	pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
	if [[ -n $pattern && $pattern != \|* && $pattern != */* ]]; then
		mkdir -p "$work/crash"
		{ (cd "$work/crash" && ulimit -c unlimited && exec "$crash"); } 2>/dev/null
		local f
		for f in "$work"/crash/*; do
			[ -f "$f" ] && mv "$f" "$work/core" && return 0
		done
		why="the kernel wrote no core (core_pattern '$pattern', ulimit -c $(ulimit -Hc))"
	else
		why="core_pattern '$pattern' does not write to the crash's folder"
	fi
	have_gdb || return 1
	start_fixture "$crash" wait || return 1
	"$GDB" -nx -batch -p "$FIXTURE_PID" -ex "gcore $work/core" >/dev/null 2>&1
	stop_fixture "$FIXTURE_PID"
	[ -s "$work/core" ]
}

if ! make_core; then
	skip "no core to damage: $why, and no gdb to write one with gcore"
	done_testing
fi
core=$work/core
size=$(stat -c %s "$core")

# ---- reading and patching its headers with od and dd ----

rd() {	# rd FILE OFFSET BYTES: the little-endian unsigned number there
	od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' \n'
}
wr() {	# wr FILE OFFSET BYTES VALUE: writes VALUE little-endian there
	local s="" i
	for ((i = 0; i < $3; i++)); do
		s+=$(printf '\\x%02x' $((($4 >> (8 * i)) & 255)))
	done
	printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
variant() {	# variant NAME: a fresh copy of the core, its path in V
	V=$work/$1
	cp "$core" "$V"
}

phoff=$(rd "$core" 32 8)
phnum=$(rd "$core" 56 2)
loads=()	# "OFFSET VADDR FILESZ MEMSZ PHDR" of each PT_LOAD
note_off=0 note_size=0
for ((i = 0; i < phnum; i++)); do
	ph=$((phoff + 56 * i))
	case $(rd "$core" "$ph" 4) in
	1) loads+=("$(rd "$core" $((ph + 8)) 8) $(rd "$core" $((ph + 16)) 8) $(rd "$core" $((ph + 32)) 8) $(rd "$core" $((ph + 40)) 8) $ph") ;;
	4) [ "$note_off" = 0 ] && note_off=$(rd "$core" $((ph + 8)) 8) note_size=$(rd "$core" $((ph + 32)) 8) ;;
	esac
done
# The notes: the offset of each kind's first header and descriptor.
declare -A note_at desc_at desc_size
at=$note_off
while ((at + 12 <= note_off + note_size)); do
	namesz=$(rd "$core" "$at" 4)
	descsz=$(rd "$core" $((at + 4)) 4)
	type=$(rd "$core" $((at + 8)) 4)
	desc=$((at + 12 + ((namesz + 3) & ~3)))
	if [ -z "${note_at[$type]:-}" ]; then
		note_at[$type]=$at desc_at[$type]=$desc desc_size[$type]=$descsz
	fi
	at=$((desc + ((descsz + 3) & ~3)))
done
NT_PRSTATUS=1 NT_FPREGSET=2 NT_PRPSINFO=3 NT_FILE=1179208773
for t in $NT_PRSTATUS $NT_PRPSINFO $NT_FILE; do
	if [ -z "${note_at[$t]:-}" ]; then
		skip "the core has no note of type $t: not a Linux x86-64 core?"
		done_testing
	fi
done
# The stack pointer: pr_reg at 112 in NT_PRSTATUS, rsp its 20th register.
sp=$(rd "$core" $((desc_at[$NT_PRSTATUS] + 112 + 19 * 8)) 8)
# The segment, if in the file, holding ADDRESS: "OFFSET VADDR FILESZ".
segment_of() {
	local l o v f m
	for l in "${loads[@]}"; do
		read -r o v f m _ <<<"$l"
		if (($1 >= v && $1 - v < f)); then
			echo "$o $v $f"
			return 0
		fi
	done
	return 1
}
sgc -c "$core" "$crash" -ex 'print/x (unsigned long)&g_message' -ex bt
g_message=$(printf '%s\n' "$OUT" | sed -n 's/^\$1 = 0x//p')
frames=$(printf '%s\n' "$OUT" | grep -cE '^#[0-9]+ .* (crash_inner|crash_middle|main) \(')
if [ -z "$g_message" ] || [ "$frames" != 3 ] || ! segment_of "$sp" >/dev/null ||
	! segment_of $((16#$g_message)) >/dev/null; then
	echo "# the whole core does not read as it should:"
	printf '%s\n' "$OUT" "$ERR" | sed 's/^/#   /'
	ok 1 "the whole core: bt shows crash_inner, crash_middle, main (status $STATUS)"
	done_testing
fi
ok 0 "the whole core: bt shows crash_inner, crash_middle, main; the stack and g_message are in it"
is "$STATUS:$ERR" "0:" "the whole core: no warning, exit 0"

# ---- errors: one line, exit 2 ----

# bad NAME FILE LINE [ARGS...]: spyglass -c FILE ARGS -ex bt prints LINE
# alone and exits 2.
bad() {
	local name=$1 f=$2 want=$3
	shift 3
	sgc -c "$f" "$@" -ex bt
	is "exit $STATUS: $ERR$OUT" "exit 2: $want" "$name"
}

cut() {	# cut NAME BYTES: the first BYTES of the core, its path in V
	V=$work/$1
	head -c "$2" "$core" >"$V"
}

cut cut-0 0
bad "empty" "$V" "$V is empty, not a core file"
cut cut-3 3
bad "cut in the ELF magic (3 bytes)" "$V" "$V is not a core file (not ELF)"
for n in 10 40 63; do
	cut cut-$n $n
	bad "cut in the ELF header ($n bytes)" "$V" "$V is truncated in its ELF header"
done
for n in 64 $((phoff + 56 + 20)) $((phoff + 56 * phnum - 1)); do
	cut cut-$n $n
	bad "cut in the program headers ($n bytes)" "$V" "$V is truncated in its program headers"
done
for n in $note_off $((note_off + 7)) $((desc_at[$NT_PRSTATUS] + 100)) \
	$((desc_at[$NT_PRSTATUS] + desc_size[$NT_PRSTATUS] - 1)); do
	cut cut-$n $n
	bad "cut in the notes before the first thread ends ($n bytes)" "$V" \
		"$V is truncated before its first thread (NT_PRSTATUS)" "$crash"
done

# Not cores.
bad "the program itself" "$crash" "$crash is not a core file (an ELF shared object or PIE executable)"
printf 'not a core\n' >"$work/text"
bad "a text file" "$work/text" "$work/text is not a core file (not ELF)"
: >"$work/empty"
bad "an empty file" "$work/empty" "$work/empty is empty, not a core file"
bad "/dev/null" /dev/null "/dev/null is not a core file (not a regular file)"
bad "a directory" "$work" "$work is a directory, not a core file"
bad "a missing file" "$work/missing" "$work/missing: No such file or directory"
variant exec
wr "$V" 16 2 2
bad "a core patched to ET_EXEC" "$V" "$V is not a core file (an ELF executable)"
variant rel
wr "$V" 16 2 1
bad "a core patched to ET_REL" "$V" "$V is not a core file (an ELF object file)"
# The other ways in: EXE CORE, and core-file at the prompt.
sgc "$crash" "$work/text" -ex bt
is "exit $STATUS: $ERR$OUT" "exit 2: $work/text is not a core file (not ELF)" "spyglass EXE TEXT"
sgc -ex "core-file $work/text"
is "exit $STATUS: $ERR$OUT" "exit 1: $work/text is not a core file (not ELF)" "core-file TEXT at the prompt"

# Other architectures.
variant aarch64
wr "$V" 18 2 183
bad "e_machine AArch64" "$V" "$V is a core of another architecture (AArch64): spyglass reads x86-64 cores"
variant machine-4242
wr "$V" 18 2 4242
bad "e_machine 4242" "$V" "$V is a core of another architecture (ELF machine 4242): spyglass reads x86-64 cores"
# A 32-bit i386 core's ELF header, and a big-endian s390x one's.
{ printf '\177ELF\1\1\1\0\0\0\0\0\0\0\0\0\4\0\3\0\1\0\0\0'; head -c 28 /dev/zero; } >"$work/i386"
bad "a 32-bit i386 core" "$work/i386" \
	"$work/i386 is a core of another architecture (i386, 32-bit): spyglass reads x86-64 cores"
{ printf '\177ELF\2\2\1\0\0\0\0\0\0\0\0\0\0\4\0\26\0\0\0\1'; head -c 40 /dev/zero; } >"$work/s390x"
bad "a big-endian s390x core" "$work/s390x" \
	"$work/s390x is a core of another architecture (s390, big-endian): spyglass reads x86-64 cores"
variant class
wr "$V" 4 1 7
bad "an unknown ELF class" "$V" "$V is not a core file (an ELF file of unknown class 7 or byte order 1)"

# Program headers that lie.
variant phnum-huge
wr "$V" 56 2 65534
bad "e_phnum 65534" "$V" "$V is truncated in its program headers"
variant phnum-xnum
wr "$V" 56 2 65535
bad "e_phnum PN_XNUM without section 0" "$V" "$V has no section 0 to give its segment count (e_phnum is PN_XNUM)"
variant phnum-xnum-far
wr "$V" 56 2 65535
wr "$V" 40 8 $((1 << 40))
bad "e_phnum PN_XNUM, section 0 past the end" "$V" "$V is truncated before its segment count (section 0)"
variant phnum-0
wr "$V" 56 2 0
bad "e_phnum 0" "$V" "$V has no segments"
variant phoff-far
wr "$V" 32 8 $(((1 << 62) + 3))
bad "e_phoff past the end" "$V" "$V is truncated in its program headers"
variant phentsize
wr "$V" 54 2 32
bad "e_phentsize 32" "$V" "$V has program headers of 32 bytes, not 56"
variant note-far
for ((i = 0; i < phnum; i++)); do
	[ "$(rd "$V" $((phoff + 56 * i)) 4)" = 4 ] && wr "$V" $((phoff + 56 * i + 8)) 8 $((1 << 50))
done
sgc -c "$V" -ex bt
like "exit $STATUS: $ERR" "^exit 2: $V is truncated before its first thread \(NT_PRSTATUS\)$" \
	"the note segment past the end"

# ---- damaged but usable: a warning, then what can be read ----

# The one warning line a cut at N gives.
truncated() {
	echo "warning: core file is truncated: expected $size bytes, found $1; memory past that is not available"
}

# Cut in the notes after the first thread: the registers are there; the
# files are not named, the memory is gone.
for what in PRPSINFO FILE FPREGSET; do
	t=NT_$what
	[ -n "${desc_at[${!t}]:-}" ] || { skip "no NT_$what note"; continue; }
	n=$((desc_at[${!t}] + 5))
	cut cut-$n $n
	sgc -c "$V" "$crash" -ex bt
	is "$(printf '%s\n' "$ERR" | head -1)" "$(truncated $n)" "cut in NT_$what ($n bytes): the warning"
	like "exit $STATUS: $OUT" "^exit 1: (.|
)*^#0  0x[0-9a-f]+ in " "cut in NT_$what ($n bytes): frame #0 from the registers, exit 1"
	is "$(printf '%s\n' "$ERR" | grep -c '^warning:')" 1 "cut in NT_$what: one warning"
done

read -r st_off st_vaddr st_filesz <<<"$(segment_of "$sp")"
read -r g_off g_vaddr g_filesz <<<"$(segment_of $((16#$g_message)))"
g_message=$((16#$g_message))

# Cut in the stack below the stack pointer: bt stops after frame #0, x
# says what it cannot read, g_message (earlier in the file) still prints.
if ((g_off < st_off)); then
	n=$((st_off + sp - st_vaddr - 8))
	cut cut-stack $n
	sgc -c "$V" "$crash" -ex bt -ex 'print g_message' -ex 'x/2x $sp'
	is "exit $STATUS: $ERR" "exit 1: $(truncated $n)
Cannot access memory at address $(printf 0x%x "$sp")" "cut in the stack ($n bytes): the warning and x's error"
	like "$OUT" "^#0  0x[0-9a-f]+ in crash_inner \(.*
Backtrace stopped: " "cut in the stack: frame #0, then bt stops"
	like "$OUT" '^\$1 = "a global the core holds"' "cut in the stack: g_message still prints"
else
	skip "the stack is before the data in the file"
fi

# lost NAME WARNING: spyglass warned WARNING alone, exited 1, and print
# g_message said that its memory is not there, as an error or as the
# value.
lost() {
	is "exit $STATUS: $ERR" "exit 1: $2" "$1: the warning alone on stderr, exit 1"
	like "$OUT" "^\\\$1 = <error: Cannot access memory at address $(printf 0x%x "$g_message")>" \
		"$1: g_message cannot be read"
}

# Cut just before g_message: print fails with its address, bt works if
# the stack came earlier in the file.
n=$((g_off + g_message - g_vaddr))
cut cut-data $n
sgc -c "$V" "$crash" -ex 'print g_message' -ex 'print $pc'
lost "cut at g_message ($n bytes)" "$(truncated $n)"
like "$OUT" '^\$[12] = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <crash_inner\+[0-9]+>' "cut at g_message: \$pc still prints"

# One byte short: everything the commands need is there, yet the batch
# run exits 1.
n=$((size - 1))
cut cut-1 $n
sgc -c "$V" "$crash" -ex bt -ex 'print g_message'
is "exit $STATUS: $ERR" "exit 1: $(truncated $n)" "one byte short: the warning, exit 1"
like "$OUT" "^#2  0x[0-9a-f]+ in main \(" "one byte short: bt reaches main"

# Cuts at many offsets through the segments: never a crash, a hang or a
# second warning.
bad_cuts=""
step=$((size / 23 + 1))
for ((n = note_off + note_size; n < size; n += step)); do
	cut cut-many $n
	sgc -c "$V" "$crash" -ex bt -ex 'x/8x $sp' -ex 'info sharedlibrary' -ex 'print g_message'
	first=$(printf '%s\n' "$ERR" | head -1)
	nwarn=$(printf '%s\n' "$ERR" | grep -c '^warning:')
	[ "$STATUS" = 1 ] && [ "$first" = "$(truncated $n)" ] && [ "$nwarn" = 1 ] ||
		bad_cuts+=" $n:$STATUS:$nwarn"
done
is "${bad_cuts:-none}" none "cuts every $step bytes through the segments: the warning, exit 1 (bad: offset:status:warnings)"

# A segment whose offset points past the end.
variant load-far
read -r _ _ _ _ ph <<<"$(for l in "${loads[@]}"; do read -r o v f m p <<<"$l"; ((v == g_vaddr)) && echo "$l"; done)"
wr "$V" $((ph + 8)) 8 $((1 << 52))
sgc -c "$V" "$crash" -ex 'print g_message' -ex bt
lost "g_message's segment past the end" \
	"warning: core file is truncated: expected $(((1 << 52) + g_filesz)) bytes, found $size; memory past that is not available"
like "$OUT" "^#2  0x[0-9a-f]+ in main \(" "g_message's segment past the end: bt reaches main"

# ---- the file note (NT_FILE) ----

fdesc=${desc_at[$NT_FILE]}
fsize=${desc_size[$NT_FILE]}
count=$(rd "$core" "$fdesc" 8)
names=$((fdesc + 16 + 24 * count))
nsize=$((fsize - 16 - 24 * count))

# A malformed note is not used at all: libdwfl finds the modules through
# the dynamic linker's list instead, and bt is whole.
ignored() {	# ignored NAME WHY (a regular expression)
	sgc -c "$V" "$crash" -ex bt
	like "exit $STATUS: $ERR" "^exit 0: warning: the core's file note \(NT_FILE\) is malformed \(($2)\): ignored\$" "$1: the warning"
	like "$OUT" "^#2  0x[0-9a-f]+ in main \(" "$1: bt reaches main"
}
variant names-garbage
head -c "$nsize" /dev/urandom | tr '\0' 'x' >"$work/garbage"
dd if="$work/garbage" of="$V" bs=1 seek="$names" conv=notrunc status=none
ignored "NT_FILE names of random bytes, no NUL" "fewer names than entries"
variant names-nuls
# Random bytes with a NUL every 20 or so: as many names as entries, but
# not paths (the first byte is not '/').
head -c "$nsize" /dev/urandom | tr '\0/' 'xx' >"$work/garbage"
for ((i = 0; i < nsize; i += 13 + RANDOM % 15)); do
	printf '\0' | dd of="$work/garbage" bs=1 seek="$i" conv=notrunc status=none
done
printf 'x' | dd of="$work/garbage" bs=1 seek=0 conv=notrunc status=none
dd if="$work/garbage" of="$V" bs=1 seek="$names" conv=notrunc status=none
ignored "NT_FILE names of random bytes with NULs" "a name that is not a path"
variant names-control
printf '\033' | dd of="$V" bs=1 seek=$((names + 1)) conv=notrunc status=none
ignored "an NT_FILE name with an escape" "a name with control characters"
for c in 18446744073709551615 4294967296 $(((fsize - 16) / 24 + 1)); do
	variant count-$c
	wr "$V" "$fdesc" 8 "$c"
	ignored "NT_FILE count $c" "more entries than it holds"
done
variant count-all
wr "$V" "$fdesc" 8 $(((fsize - 16) / 24))
ignored "NT_FILE count taking the names for entries" "fewer names than entries|a name that is not a path"
variant page-size
wr "$V" $((fdesc + 8)) 8 4097
ignored "NT_FILE page size 4097" "a page size that is not one"

# Names that are paths, but of files that are not there: the warning
# names each code file, bt still shows the program's frames.
variant names-missing
dd if="$core" bs=1 skip="$names" count="$nsize" status=none | tr '\0' '\n' >"$work/names"
missing=()
at=$names
while IFS= read -r name; do
	if [ -n "$name" ] && [ "$name" != "$crash" ] && [ "$(readlink -f "$name")" != "$(readlink -f "$crash")" ]; then
		# "/usr/lib/x.so" becomes "/Xsr/lib/x.so".
		printf 'X' | dd of="$V" bs=1 seek=$((at + 1)) conv=notrunc status=none
		missing+=("/X${name:2}")
	fi
	at=$((at + ${#name} + 1))
done <"$work/names"
sgc -c "$V" "$crash" -ex bt
like "$ERR" "^warning: cannot find .*: frames in them show module\+offset$" "NT_FILE naming missing files: the warning"
for m in $(printf '%s\n' "${missing[@]}" | sort -u | grep -E '/(libc|ld-linux)'); do
	like "$ERR" "^warning: cannot find (.*, )?$m(, .*)?: " "NT_FILE naming missing files: the warning names $m"
done
like "$OUT" "^#2  0x[0-9a-f]+ in main \(" "NT_FILE naming missing files: bt reaches main"
is "$STATUS" 0 "NT_FILE naming missing files: exit 0"

# A note whose size runs past the note segment (the file is whole).
variant note-size
wr "$V" $((note_at[$NT_PRPSINFO] + 4)) 4 $((1 << 30))
sgc -c "$V" "$crash" -ex bt
is "exit $STATUS: $ERR" "exit 0: warning: the core's notes are malformed at byte ${note_at[$NT_PRPSINFO]}: the rest of them is not read" \
	"NT_PRPSINFO's size past the notes: the warning"
like "$OUT" "^#2  0x[0-9a-f]+ in main \(" "NT_PRPSINFO's size past the notes: bt reaches main"

done_testing
