#!/bin/bash
# print parity with gdb (issue 11): flag enums in C++ and C, types spelled
# in the language of the frame a value comes from, reference arguments in
# info args and frame lines, and sequences as JSON arrays.
. "$top_srcdir/tests/test-subr.sh"

# Both sides' output without the thread switch notice, which gdb words
# with the thread's pthread_t.
# And the source lines of frame and thread ("201\t..."), which gdb_batch
# drops from gdb's.
drop_switch() {
	printf '%s\n' "$1" | grep -v '^\[Switching to thread' | grep -vE '^[0-9]+[[:space:]]'
}

# has_lines DESCRIPTION TEXT PATTERN...: each PATTERN, an extended regular
# expression, matches a whole line of TEXT.
has_lines() {
	local desc=$1 text=$2 p missing=
	shift 2
	for p in "$@"; do
		printf '%s\n' "$text" | grep -Eqx -- "$p" || missing+=" /$p/"
	done
	if [ -z "$missing" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   no line matches:$missing"
		printf '%s\n' "$text" | head -30 | sed 's/^/#     /'
	fi
}

# compare PID DESCRIPTION COMMAND...: spyglass and gdb line for line.
compare() {
	local pid=$1 desc=$2
	shift 2
	sg_cmds "$pid" "$@"
	ok $STATUS "$desc: the commands succeed${ERR:+: $ERR}"
	if have_gdb; then
		local mine
		mine=$(drop_switch "$OUT")
		gdb_batch "$pid" "$@"
		is "$mine" "$(drop_switch "$GDB_OUT")" "$desc: as gdb prints them"
	else
		skip "gdb not installed"
	fi
}

start_fixture "$FIXTURES/sg-parity" || exit 1
pid=$FIXTURE_PID

# ---- flag enums ----
enums=(g_f_ac g_f_b g_f_zero g_f_unknown g_f_only_unknown g_cf_ac g_cf_zero g_cf_unknown
       g_m_none g_m_both g_m_part g_m_unknown g_seq_3 g_seq_7 g_neg_3 g_neg_minus g_mode_5
       g_perm)
cmds=()
for v in "${enums[@]}"; do
	cmds+=("print $v")
done
cmds+=('print/x g_f_ac' 'print/d g_neg_minus' 'print (Seq)-1' 'print (Neg)-5' 'output g_f_unknown' 'echo \n')
sg_cmds "$pid" "${cmds[@]}"
expect='$1 = (F_A | F_C)
$2 = F_B
$3 = 0
$4 = (F_A | unknown: 0x8)
$5 = (unknown: 0x30)
$6 = (CFlags::A | CFlags::C)
$7 = 0
$8 = (CFlags::B | unknown: 0x40)
$9 = M_NONE
$10 = 15
$11 = 1
$12 = 28
$13 = S3
$14 = 7
$15 = 3
$16 = N_MINUS
$17 = (Mode::On | unknown: 0x1)
$18 = (ns::R | ns::X)
$19 = 0x5
$20 = -1
$21 = 4294967295
$22 = -5
(F_A | unknown: 0x8)'
is "$OUT" "$expect" "flag enums: bits by name, unknown bits in hex, 0; others as numbers"
compare "$pid" "C++ enums" "${cmds[@]}"

sg -p "$pid" --json -ex 'print g_f_ac' -ex 'print g_f_b' -ex 'print g_cf_zero' -ex 'print g_neg_minus'
is "$(printf '%s\n' "$OUT" | jq -c .value | tr '\n' ' ')" '5 "F_B" 0 "N_MINUS" ' \
	"JSON: an enumerator is its name, a flag enum's bits their number"

compare "$pid" "enums in bit fields" 'print g_bits' 'print g_bits2' 'print/x g_bits' 'print/d g_bits'
has_lines 'enum bit fields by name, a signed one sign-extended' "$OUT" \
	'\$1 = \{f = \(F_A \| F_C\), s = S2, m = Small::M, u = 3\}' \
	'\$2 = \{f = \(F_A \| unknown: 0x8\), s = 7, m = 0, u = 1\}'

# ---- arrays of arrays ----
compare "$pid" "arrays of arrays" 'print g_2d' 'print g_3d' 'print g_rows' 'print g_names' \
	'print/x g_2d' 'set print elements 4' 'print g_3d' 'print g_rows' 'set print elements 200' \
	'set print pretty on' 'print g_2d'
has_lines 'arrays of arrays in nested braces' "$OUT" \
	'\$1 = \{\{1, 2, 3\}, \{4, 5, 6\}\}' \
	'\$2 = \{\{\{1, 2\}, \{3, 4\}\}, \{\{5, 6\}, \{7, 8\}\}\}' \
	'\$3 = \{\{0, 0\} <repeats 12 times>\}'
sg -p "$pid" --json -ex 'print g_3d'
is "$(printf '%s\n' "$OUT" | jq -c .value)" '[[[1,2],[3,4]],[[5,6],[7,8]]]' "JSON: arrays of arrays nest"

# ---- pointers to data members ----
compare "$pid" "pointers to data members" 'frame 1' 'print g_pm_d' 'print g_pm_e' 'print g_pm_base' \
	'print g_pm_null' 'print/x g_pm_e'
has_lines 'a pointer to a data member names it' "$OUT" \
	'\$1 = &Derived3::d' \
	'\$2 = &Derived3::e' \
	'\$3 = &Base3::b1' \
	'\$4 = NULL'

# ---- wide characters, strings and char pointers ----
compare "$pid" "wide characters" 'frame 1' 'print g_wc' 'print g_weuro' 'print g_wbad' 'print g_c16' \
	'print g_c32' 'print g_c8' 'print g_ws' 'print g_s16' 'print g_s32' 'print g_wrep' 'print g_pws' \
	'print g_p16' 'print g_p32' 'print g_p8' 'print g_puc' 'print &g_wc' 'print &g_ws' \
	'print &g_rep[0]' 'print/x g_wc' 'print/d g_s16' 'set print elements 4' 'print g_wrep' \
	'print g_rep' 'print g_ws' 'print g_pws'
has_lines 'a wchar_t as gdb: its number and L'\''x'\''' "$OUT" \
	'\$1 = 120 L'\''x'\'''
has_lines 'a wchar_t array as L"..."' "$OUT" \
	'\$7 = L"wi\\nde€"'
sg -p "$pid" --json -ex 'print g_ws' -ex 'print g_pws' -ex 'print g_wc'
is "$(printf '%s\n' "$OUT" | jq -c .value | tr '\n' ' ')" '"wi\nde€" "pw" 120 ' "JSON: wide strings are strings, a wide char its number"

# ---- types in the frame's language ----
# Thread 1 waits in code without DWARF: no language, and gdb -p keeps C
# until a frame with one is selected.  by_ref and park are C++.
compare "$pid" "types in each frame's language" \
	'print g_ppt' 'print &g_job' 'whatis g_ppt' 'print g_rpt' 'thread 2' 'frame 2' \
	'print g_ppt' 'print &g_job.at' 'print g_rpt' 'print &pt' 'whatis g_ppt' 'frame 1' \
	'print g_pjob' 'output g_ppt' 'echo \n'
has_lines 'a frame without a language: C'\''s spelling, as gdb -p' "$OUT" \
	'\$1 = \(struct Point \*\) 0x[0-9a-f]+ <g_pt>'
has_lines 'a C++ frame: C++'\''s spelling' "$OUT" \
	'\$4 = \(Point \*\) 0x[0-9a-f]+ <g_pt>'
sg -p "$pid" --json -ex 'thread 2' -ex 'frame 2' -ex 'print g_ppt'
is "$(printf '%s\n' "$OUT" | tail -1 | jq -r .type)" "Point *" "JSON: the type in the frame's language"

# ---- references ----
# bt with "print frame-arguments" scalars (a reference to a struct is
# "..."), all and none; info args; print of each argument.
compare "$pid" "reference arguments" \
	'thread 2' 'bt' 'frame 2' 'info args' 'print job' 'print count' 'print fn' 'print pt' \
	'print f' 'print g_ri' 'frame 3' 'info locals' 'info args' 'print l' 'print rh' 'print g_holder' \
	'print/r rh' 'set print frame-arguments all' 'bt' 'set print pretty on' 'bt' \
	'set print pretty off' 'set print frame-arguments none' 'bt'
has_lines 'info args: a reference shows its address and the object' "$OUT" \
	'job = @0x[0-9a-f]+: \{id = 0, name = 0x[0-9a-f]+ "zero", at = \{x = 5, y = 6\}\}'
like "$OUT" 'by_ref \(job=\.\.\., count=@0x[0-9a-f]+: 9, fn=@0x[0-9a-f]+: \{int \(int\)\} 0x[0-9a-f]+ <twice\(int\)>, pt=\.\.\., f=\(F_B \| F_C\)\)' \
	"frame line: references to scalars and functions dereferenced, to structs ..."
like "$OUT" 'with_readers \(v=std::vector of length 2, capacity 2 = \{\.\.\.\}, ev=std::vector of length 0, capacity 0, s="x", l=std::__cxx11::list = \{\.\.\.\}, h=\.\.\., rh=\.\.\.\)' \
	"frame line: summaries of values with readers, {...} for their elements"
has_lines 'references to values with readers print those values alone' "$OUT" \
	'l = std::__cxx11::list = \{\[0\] = 1, \[1\] = 2, \[2\] = 3\}' \
	'h = \{v = std::vector of length 2, capacity 2 = \{1, 2\}, s = "str", i = @0x[0-9a-f]+\}'
compare "$pid" "references to unreadable memory" 'frame 1' 'print g_badref' 'print g_badpt' \
	'output g_badref' 'echo \n'
has_lines "a reference to unreadable memory fails as a variable does in gdb" "$OUT" \
	'\$1 = \(int &\) <error reading variable: Cannot access memory at address 0x10>'
sg -p "$pid" --json -ex 'thread 2' -ex 'frame 2' -ex 'info args'
is "$(printf '%s\n' "$OUT" | tail -1 | jq -c '[.args[] | .value | if type == "string" then test("^0x") else . end]')" \
	'[{"id":0,"name":"zero","at":{"x":5,"y":6}},9,true,{"x":3,"y":4},6]' \
	"JSON: a reference argument is what it refers to (a function's address)"

# glibc's start_thread has a label without an address, which gdb lists
# among the locals (where libc has DWARF).
compare "$pid" "a label among the locals" 'thread 2' 'frame 5' 'info locals'

# ---- JSON shapes of containers ----
if command -v jq >/dev/null; then
	sg -p "$pid" --json -ex 'print g_list' -ex 'print g_list_empty' -ex 'print g_flist' \
		-ex 'print g_set' -ex 'print g_mset' -ex 'print g_uset' -ex 'print g_umset' \
		-ex 'print g_map' -ex 'print g_umap' -ex 'print g_tup'
	ok $STATUS "JSON prints of containers succeed${ERR:+: $ERR}"
	got=$(printf '%s\n' "$OUT" | jq -c .value | tr '\n' ' ')
	is "$got" '[1,2,3] [] [4,5] [1,2,3] [1,2,2] [9] [8,8] [{"key":1,"value":10},{"key":2,"value":20}] [{"key":3,"value":30}] {"[1]":1,"[2]":99} ' \
		"JSON: lists and sets are arrays, maps arrays of pairs, a tuple an object"
	# The text keeps gdb's [N] = notation.
	is "$(printf '%s\n' "$OUT" | head -1 | jq -r .text)" \
		'std::__cxx11::list = {[0] = 1, [1] = 2, [2] = 3}' "JSON: the text of a list as gdb writes it"
else
	skip "jq not installed"
	skip "jq not installed"
	skip "jq not installed"
fi
check_running "$pid" "target runs"
stop_fixture "$pid"

# libc++'s node containers, when clang++ with libc++ built the fixture.
# The make rule installs a shell stub when it cannot build it.
if [ "$(head -c 2 "$FIXTURES/sg-libcxx")" = "#!" ] || ! command -v jq >/dev/null; then
	skip "no libc++ fixture or no jq"
else
	start_fixture "$FIXTURES/sg-libcxx" "$testdir/libcxx.expected" || exit 1
	lpid=$FIXTURE_PID
	sg -p "$lpid" --json -ex 'print g_l' -ex 'print g_el' -ex 'print g_set' -ex 'print g_mset' \
		-ex 'print g_us' -ex 'print g_ums' -ex 'print g_map'
	got=$(printf '%s\n' "$OUT" | jq -c '.value | if type == "array" and (.[0] | type) == "number" then sort else . end' | tr '\n' ' ')
	is "$got" '[1,2,3] [] [1,2,3] [1,2,2] [1,2,3] [4,4] [{"key":1,"value":"one"},{"key":2,"value":"two"}] ' \
		"libc++ JSON: lists and sets are arrays, a map an array of pairs"
	stop_fixture "$lpid"
fi

# ---- C ----
start_fixture "$FIXTURES/sg-parity-c" || exit 1
cpid=$FIXTURE_PID
compare "$cpid" "C enums and types" \
	'print g_f_ac' 'print g_f_zero' 'print g_f_unknown' 'print g_tri_5' 'print g_seq_5' \
	'print g_seq_minus' 'print g_ppt' 'bt' 'frame 2' 'info args' 'print g_ppt' 'print f'
has_lines 'C: 0, 1, 2 are flags, 0 to 3 are not; an enum without negatives is unsigned' "$OUT" \
	'\$4 = \(T1 \| unknown: 0x4\)' \
	'\$5 = 5' \
	'\$6 = 4294967295'
has_lines 'C: info args' "$OUT" \
	'p = 0x[0-9a-f]+ <g_pt>' \
	'f = \(F_A \| F_B\)'
compare "$cpid" "complex numbers and 128-bit integers" 'print g_fc' 'print g_dc' 'print g_lc' \
	'print/x g_dc' 'print g_i128' 'print g_u128' 'print g_min128' 'print/x g_i128' 'print/x g_u128' \
	'print/o g_u128' 'print/t g_i128' 'print/z g_i128' 'print/u g_i128' 'print/d g_u128' \
	'print g_half' 'print/x g_half'
if grep -q '^\$15 = ' <<<"$OUT"; then
	has_lines '_Float16 with its 5 digits' "$OUT" \
		'\$15 = \{1\.5, 0\.099976, -65504, 1\.1921e-07\}'
else
	skip "the C compiler has no _Float16"
fi
has_lines 'complex numbers as re + imi' "$OUT" \
	'\$1 = 1\.5 \+ 2i' \
	'\$2 = 1 \+ -2\.5i'
has_lines 'a 128-bit integer whole' "$OUT" \
	'\$6 = 1267650600228229401496703205383'
sg -p "$cpid" --json -ex 'print g_dc' -ex 'print g_i128' -ex 'print g_u128'
is "$(printf '%s\n' "$OUT" | jq -c .value | tr '\n' ' ')" '{"real":1,"imag":-2.5} -5 "1267650600228229401496703205383" ' \
	"JSON: a complex number's parts; 128-bit integers as numbers while they fit"
compare "$cpid" "odd bools and long doubles" 'print g_ubool' 'print g_ubool.b' 'print g_unnormal' \
	'print g_pseudo_denormal' 'print/x g_ld' 'print/z g_ld' 'print/d g_ld' 'print/o g_ld' \
	'print/t g_ld' 'print/x g_ldneg' 'print/d g_ldneg' 'print g_ldneg'
has_lines "print/x of a long double: its 80 bits" "$OUT" '\$5 = 0x40209502f90000000000' \
	'\$6 = 0x00000000000040209502f90000000000'
has_lines 'a bool holding 146 prints 146' "$OUT" \
	'\$1 = \{c = 146 '\''\\222'\'', b = 146\}'
like "$OUT" 'ld = <invalid float value>' "an unnormal long double is <invalid float value>"
# Arithmetic in long double (x87's 80 bits), and casts to and from it.
compare "$cpid" "long double arithmetic" 'print g_ld + 3' 'print g_ld * g_ldneg' 'print -g_ld' \
	'print g_ld > 2' 'print (int)g_ldneg' 'print g_ld / 3' 'print g_ldneg + 1.5f' \
	'print (long double)1 / 3' 'print (double)g_ld' 'print g_ld == 1e10' 'whatis g_ld + 3' \
	'output g_ldneg * 2' 'print g_ld - g_ld'
check_running "$cpid" "C target runs"
stop_fixture "$cpid"

# Optimized: arguments whose call site says what the caller passed.
start_fixture "$FIXTURES/sg-parity-c-O2" || exit 1
cpid=$FIXTURE_PID
compare "$cpid" "entry values in frame lines" 'bt' 'frame 1' 'info args'
like "$OUT" 'in block \(who=who@entry=5, keep=keep@entry=9\)' "an argument still holding what was passed: who=who@entry=5"
check_running "$cpid" "optimized C target runs"
stop_fixture "$cpid"

# A local array that is a DW_AT_const_value, no object (clang -O1).
if [ "$(head -c 2 "$FIXTURES/sg-parity-c-clang")" = "#!" ]; then
	for i in 1 2 3; do
		skip "no clang (the fixture is a stub)"
	done
else
	start_fixture "$FIXTURES/sg-parity-c-clang" || exit 1
	cpid=$FIXTURE_PID
	compare "$cpid" "a constant array among the locals" 'frame 1' 'info locals'
	has_lines "a constant char array as a string" "$OUT" 'l0 = "\\000"'
	stop_fixture "$cpid"
fi
done_testing
