#!/bin/bash
# disassemble, x/i and set/show disassembly-flavor against gdb's answers on
# the same live process, and on a gcore of it:
# - bt-c-O2 (tests/fixtures/bt.c): the main thread waits in libc's
#   __libc_pause (libc6-dbg gives its DWARF), main calls through the PLT
#   (<pause@plt>), reads globals RIP-relative ("# 0x... <bt_arrived>",
#   "<stdout@GLIBC_2.2.5>", no name for a string in .rodata); libc's own
#   functions show how gdb picks among aliases (disas-insn.c);
# - bt-cc-O2 (bt.cc): C++ at -O2, main in two ranges (a .cold part), so
#   "Address range" headers, offsets below the entry (<-99>), <main()+N>
#   beside mangled names (<_ZN12_GLOBAL__N_16pipefdE>, <main.cold>);
# - bt-c-stripped: no DWARF and no .symtab, .dynsym only.
# The text is compared exactly: nothing is normalised, as spyglass decodes
# with the same libopcodes as gdb (doc/design.md, "The disassembler").
# Only lines that are not the commands' own are dropped from both sides:
# gdb's attach chatter, and the frame lines of "frame N" and "thread N".
. "$top_srcdir/tests/test-subr.sh"

command -v jq >/dev/null || { echo "# jq is not installed"; }

# gdb_run TARGET-ARGS... -- COMMANDS...: gdb's stdout and stderr, less
# the lines that are not the commands' answers, in GDB_OUT.
gdb_run() {
	local args=() c
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	for c in "$@"; do
		args+=(-ex "$c")
	done
	GDB_OUT=$("$GDB" -nx -batch "${args[@]}" 2>&1 | chatter_filter)
}

# Source lines (gdb's frame lines print one) go too, unless SOURCE_LINES
# is set (disassemble /s): then only the one of the frame printed at
# attach, whose file (libc's) is not on this machine.
SOURCE_LINES=
chatter_filter() {
	local src='^[0-9]+[[:space:]]|^$|'
	[ -n "$SOURCE_LINES" ] && src=': No such file or directory\.$|'
	grep -vE "$src"'^\[(New LWP|Thread debugging|Inferior|Switching|New Thread|Current thread)|^Using host libthread_db|^#[0-9]|^0x[0-9a-f]+ in |^warning: |^Download|^Reading symbols|^Attaching to|^Core was generated|^Program terminated'
}

# sg_run TARGET-ARGS... -- COMMANDS...: spyglass's answers, filtered as
# gdb's, in OUT (and ERR, STATUS).
sg_run() {
	local args=() c
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	for c in "$@"; do
		args+=(-ex "$c")
	done
	sg "${args[@]}"
	OUT=$(printf '%s\n' "$OUT" | chatter_filter)
}

# compare NAME TARGET-ARGS... -- COMMANDS...: spyglass's answer is gdb's.
compare() {
	local name=$1
	shift
	sg_run "$@"
	# A frame's source line that cannot be read is said on stderr, as
	# gdb says it: filtered as gdb's is.
	local sg_out=$OUT sg_err sg_status=$STATUS
	sg_err=$(printf '%s\n' "$ERR" | chatter_filter)
	gdb_run "$@"
	if [ -z "$GDB_OUT" ]; then
		ok 1 "$name: gdb gave no answer"
		return
	fi
	local got=$sg_out
	[ -n "$sg_err" ] && got=${got:+$got$'\n'}$sg_err
	is "$got" "$GDB_OUT" "$name (status $sg_status)"
}

if ! have_gdb; then
	skip "gdb is not installed: no oracle for disassemble"
else
	# ---- C, -O2, with libc's DWARF ----
	start_fixture "$FIXTURES/bt-c-O2" || exit 1
	pid=$FIXTURE_PID
	P=(-p "$pid" --)
	compare "disassemble: the function of frame 0 (libc's __libc_pause), => at the pc" \
		"${P[@]}" 'disassemble'
	compare "disassemble /r main: the bytes, PLT calls, RIP-relative comments" \
		"${P[@]}" 'disassemble /r main'
	compare "frame 1; disassemble: => on the return address" \
		"${P[@]}" 'frame 1' 'disassemble'
	compare "disassemble FUNCTION by name" "${P[@]}" 'disassemble sleeper_mid'
	compare "disassemble START,+LENGTH and START,END: <sym+0> labels" \
		"${P[@]}" 'disassemble main_block,+8' 'disassemble main_block,main_block+3'
	compare "disassemble of a reversed range is empty, as in gdb" "${P[@]}" 'disassemble 8,4'
	compare "x/10i \$pc" "${P[@]}" 'x/10i $pc'
	compare "a bare x after x/3i shows the next 3 instructions" "${P[@]}" 'x/3i $pc' 'x'
	compare "x/30i main" "${P[@]}" 'x/30i main'
	compare "x/3i FUNCTION: gdb's name among aliases (__GI___pthread_enable_asynccancel)" \
		"${P[@]}" 'x/3i __pthread_enable_asynccancel'
	compare "x/50i _init: .init, then the PLT (<gettid@plt>, # <gettid@got.plt>)" \
		"${P[@]}" 'x/50i _init'
	compare "libc's pthread_create: aliases of data (__nptl_nthreads, __default_pthread_attr), <__GI_mprotect>" \
		"${P[@]}" 'disassemble /r pthread_create'
	compare "libc's __vfprintf_internal: ifunc PLT entries (<*ABS*+0x9d670@plt>), .dynsym names first" \
		"${P[@]}" 'disassemble __vfprintf_internal'
	compare "a range of 32 KiB across libc's functions (<malloc@plt> in .plt.got)" \
		"${P[@]}" 'disassemble __vfprintf_internal,+0x8000'
	compare "disassemble in another thread's frame (__GI___nanosleep)" \
		"${P[@]}" 'thread 2' 'frame 1' 'disassemble' 'x/5i $pc'
	compare "set disassembly-flavor intel: disassemble /r and x/i in Intel syntax" \
		"${P[@]}" 'show disassembly-flavor' 'set disassembly-flavor intel' \
		'show disassembly-flavor' 'disassemble /r main' 'x/5i $pc' \
		'set disassembly-flavor att' 'show disassembly-flavor'

	# /s: source lines between the instructions (bt.c is readable).  Not
	# normalised either; blank lines are part of it.
	SOURCE_LINES=1
	compare "disassemble /s main: -O2 rows (statements hide the rest), preceding lines" \
		"${P[@]}" 'disassemble /s main'
	compare "disassemble /rs of functions with inlined calls and loops" \
		"${P[@]}" 'disassemble /rs inl_thread' 'disassemble /s sleeper_leaf' \
		'disassemble /s futex_lock'
	SOURCE_LINES=

	# Errors: one line on stderr, status 1, gdb's words where gdb has them.
	for c in 'disassemble 0' 'disassemble /z main' 'disassemble nosuch' 'disassemble /' \
		'set disassembly-flavor foo'; do
		sg -p "$pid" -ex "$c"
		gdb_run -p "$pid" -- "$c"
		is "$STATUS:$ERR" "1:$GDB_OUT" "error of '$c' is gdb's"
	done
	sg -p "$pid" -ex 'x/2i 0'
	is "$STATUS:$OUT:$ERR" $'1:   0x0:\t:Cannot access memory at address 0x0' \
		"x/2i 0: gdb's partial line, then its error"
	compare "disassemble FUNCTION, (nothing after the comma) is the function, as in gdb" \
		"${P[@]}" 'disassemble main_block,'
	for c in 'disassemble main_block,nosuch' 'disassemble nosuch,+8'; do
		sg -p "$pid" -ex "$c"
		gdb_run -p "$pid" -- "$c"
		is "$STATUS:$ERR" "1:$GDB_OUT" "bad range '$c': gdb's error"
	done
	sg -p "$pid" -ex 'disassemble ,+8'
	is "$STATUS:$ERR" '1:Missing argument: "disassemble START,END".' \
		"disassemble without a START is an error"
	sg -p "$pid" -ex 'disassemble 0,+0x100000000'
	like "$STATUS:$ERR" '^1:range of 4294967296 bytes: disassemble takes [0-9]+ at most$' \
		"a range of 4 GiB is refused"

	# --json: the same instructions as the text.
	if command -v jq >/dev/null; then
		sg -p "$pid" -ex 'disassemble /r main_block'
		text=$OUT
		sg -p "$pid" --json -ex 'disassemble main_block'
		json=$OUT
		is "$(jq -r '.function' <<<"$json")" main_block "--json: the function's name"
		is "$(jq -r '.ranges[0].instructions | length' <<<"$json")" \
			"$(grep -c '^   0x' <<<"$text")" "--json: as many instructions as the text"
		is "$(jq -r '.ranges[0].instructions[] | "\(.offset) \(.bytes) \(.text)"' <<<"$json")" \
			"$(sed -n 's/^   0x[0-9a-f]* <+\([0-9]*\)>:\t\(.*[^ ]\) *\t\(.*\)$/\1 \2 \3/p' <<<"$text")" \
			"--json: each instruction's offset, bytes and text are the text's"
		sg -p "$pid" --json -ex 'x/2i $pc'
		is "$(jq -r '[.format, (.values | length), .values[0].current, .values[1].current] | join(" ")' <<<"$OUT")" \
			"i 2 true false" "--json: x/2i marks the pc's instruction current"
		sg -p "$pid" --json -ex 'disassemble /s main_block'
		is "$(jq -r '[.ranges[0].lines[] | "\(.line):\(.instructions | length)"] | join(" ")' <<<"$OUT")" \
			"$(sg -p "$pid" -ex 'disassemble /s main_block'; printf '%s\n' "$OUT" |
				awk '/^[0-9]+\t/ { l = $1 } /^(   |=> )0x/ { n[l]++; if (!(l in seen)) { seen[l] = 1; order[++k] = l } }
				     END { for (i = 1; i <= k; i++) printf "%s%s:%d", (i > 1 ? " " : ""), order[i], n[order[i]]; print "" }')" \
			"--json: /s groups the instructions by line as the text does"
		sg -p "$pid" --json -ex 'show disassembly-flavor'
		is "$(jq -r '."disassembly-flavor"' <<<"$OUT")" att "--json: show disassembly-flavor"
	else
		skip "jq is not installed: --json not checked"
	fi

	# A core of the same process: the same answers as gdb's on the core.
	core=$testdir/core.bt-c
	if "$GDB" -nx -batch -p "$pid" -ex "gcore $core" >/dev/null 2>&1 && [ -s "$core" ]; then
		C=(-c "$core" "$FIXTURES/bt-c-O2" --)
		compare "on a core: disassemble, frame 1's, x/5i \$pc" \
			"${C[@]}" 'disassemble' 'frame 1' 'disassemble' 'x/5i $pc'
	else
		skip "gdb's gcore failed: no core to disassemble"
	fi
	check_running "$pid" "target runs after the batches"
	stop_fixture "$pid"

	# ---- C, -O0: /s line by line ----
	start_fixture "$FIXTURES/bt-c-O0" || exit 1
	pid=$FIXTURE_PID
	SOURCE_LINES=1
	compare "-O0: disassemble /s main and a loop (line 62 twice)" \
		-p "$pid" -- 'disassemble /s main' 'disassemble /s sleeper_leaf' \
		'disassemble /s main_block,+8'
	SOURCE_LINES=
	stop_fixture "$pid"

	# ---- C++, -O2: a function in two ranges ----
	start_fixture "$FIXTURES/bt-cc-O2" || exit 1
	pid=$FIXTURE_PID
	P=(-p "$pid" --)
	compare "C++: disassemble /r main, its .cold range, <main()-46>, <main.cold>" \
		"${P[@]}" 'disassemble /r main'
	compare "C++: x/80i main: <main()+N> and mangled names of data" "${P[@]}" 'x/80i main'
	compare "C++: frame 1, a static function: <main_block()+8>" "${P[@]}" 'frame 1' 'disassemble'
	compare "C++: a member function's header is its mangled name" \
		"${P[@]}" 'thread 2' 'frame 3' 'disassemble' 'x/8i $pc'
	stop_fixture "$pid"

	# ---- stripped: .dynsym only ----
	start_fixture "$FIXTURES/bt-c-stripped" || exit 1
	pid=$FIXTURE_PID
	P=(-p "$pid" --)
	compare "stripped: libc's function, and x/20i past its end (no name)" \
		"${P[@]}" 'disassemble' 'x/20i $pc'
	compare "stripped: no function around frame 1's pc" "${P[@]}" 'frame 1' 'disassemble'
	exe=$(grep -m1 "bt-c-stripped" "/proc/$pid/maps" | cut -d- -f1)
	compare "stripped: x/30i at the executable's start" "${P[@]}" "x/30i 0x$exe"
	stop_fixture "$pid"
fi

# Without a process: set and show work, disassemble needs a target.
sg -ex 'set disassembly-flavor intel' -ex 'show disassembly-flavor'
is "$OUT" 'The disassembly flavor is "intel".' "set/show disassembly-flavor without a target"
sg -ex 'disassemble main'
ok $((STATUS == 0)) "disassemble without a target fails (${ERR:-no message})"

done_testing
