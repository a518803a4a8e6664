#!/bin/bash
# generate-core-file (gcore): cores of live processes, read back by gdb.
#
# - tests/fixtures/sg-gcore (three threads in pause(), a heap string, a
#   written global, an anonymous shared mapping) and run-frames.sh's
#   optimised C++ fixture: "gdb -c CORE EXE -ex 'thread apply all bt'" on
#   spyglass's core gives the same threads and frame lines (addresses,
#   functions, files, lines; arguments dropped as run-bt.sh's bt_normalise
#   does) as spyglass's own "thread apply all bt" on the live process, and
#   as gdb on a core gdb's own gcore wrote of the same process;
# - the process runs on afterwards: no thread stopped or traced;
# - what gdb prints from the core: the heap string, the written global
#   and the shared string, as gdb prints them live;
# - /proc/PID/coredump_filter: 0x0 dumps only the vDSO (the global reads
#   as the executable's initial value, the heap pointer as NULL), and
#   0x31 leaves out the anonymous shared mapping;
# - the JSON object: bytes is the file's size, segments its PT_LOAD
#   count, one per mapping but [vsyscall] and [vvar];
# - the default name core.PID; an unwritable path or a directory gives
#   one error line and a non-zero status, and leaves no file behind; gcore
#   without a process is an error;
# - spyglass -c on its own core (when the core reader is there) gives the
#   same backtraces, and refuses gcore.
. "$top_srcdir/tests/test-subr.sh"

eval "$(sed -n '/^bt_normalise() {$/,/^}$/p' "$top_srcdir/tests/run-bt.sh")"
declare -F bt_normalise >/dev/null || { echo "Bail out! no bt_normalise in tests/run-bt.sh"; exit 1; }

EXE=$FIXTURES/sg-gcore

# all_paused PID N: the N threads of PID block in pause() (system call 34).
all_paused() {
	[ "$(cat /proc/"$1"/task/*/syscall 2>/dev/null |
		awk '$1 == 34 { p++ } END { print p + 0 "/" NR }')" = "$2/$2" ]
}

# gdb_core CORE EXE CMD...: gdb's output for CMDs on CORE, in GDB_OUT.
gdb_core() {
	local core=$1 exe=$2 args=() c
	shift 2
	for c in "$@"; do
		args+=(-ex "$c")
	done
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -c "$core" "$exe" "${args[@]}" 2>&1)
}

# headers DIR: bt_normalise's thread headers without the names, which
# gdb takes from /proc and a core does not record.
headers() {
	sed -E 's/ "[^"]*"\):$/):/' "$1/headers"
}

# same_bt WHAT DIR WANT_DIR: the threads and frame lines of DIR are WANT_DIR's.
same_bt() {
	local what=$1 got=$2 want=$3 tid
	is "$(headers "$got")" "$(headers "$want")" "$what: the same threads"
	[ -s "$want/tids" ] || { ok 1 "$what: no thread in the reference"; return; }
	local diffs=
	while read -r tid; do
		cmp -s "$got/$tid.lines" "$want/$tid.lines" || diffs+=" $tid"
	done <"$want/tids"
	ok "${diffs:+1}${diffs:-0}" "$what: the same frame lines in every thread"
	for tid in $diffs; do
		diff -u "$want/$tid.lines" "$got/$tid.lines" | sed 's/^/#   /' | head -20
	done
}

# gcore_check NAME EXE PID NTHREADS: write a core of PID with spyglass and
# with gdb, and compare the backtraces of both cores with spyglass's live.
gcore_check() {
	local name=$1 exe=$2 pid=$3 n=$4 core=$testdir/$1.core
	wait_for 10 all_paused "$pid" "$n"
	ok $? "$name: all $n threads block in pause()"

	sg -p "$pid" -ex "gcore $core"
	ok $STATUS "$name: gcore succeeds${ERR:+: $ERR}"
	like "$OUT" "^Saved corefile $core
^\\([0-9.]+ [KMG]iB of memory in [0-9.]+ m?s; process $pid paused [0-9.]+ m?s\\)\$" \
		"$name: gdb's line, then the size, time and pause"
	check_threads "$pid" "$name: no thread left stopped or traced"
	check_running "$pid" "$name: the process runs on"

	sg -p "$pid" -ex 'thread apply all bt'
	printf '%s\n' "$OUT" | bt_normalise "$testdir/$name.live"
	have_gdb || { skip "gdb is not installed: nothing reads the core"; return; }

	gdb_core "$core" "$exe" 'thread apply all bt'
	printf '%s\n' "$GDB_OUT" | bt_normalise "$testdir/$name.gdb"
	# gdb's own cores get the same about files it cannot open
	# ("/dev/zero (deleted)"); nothing else.
	# On a CPU with AMX the kernel's XSAVE area (written as it comes,
	# as the kernel's own cores do) is larger than gdb 13 knows of.
	local xs='^$'
	grep -qw amx_tile /proc/cpuinfo && xs="^warning: Unexpected size of section \`\.reg-xstate/"
	is "$(grep '^warning:' <<<"$GDB_OUT" | grep -v "^warning: Can't open file" | grep -v "$xs")" "" \
		"$name: gdb reads the core without a warning"
	same_bt "$name: gdb on spyglass's core vs spyglass live" \
		"$testdir/$name.gdb" "$testdir/$name.live"

	timeout -k 5 120 "$GDB" -nx -batch -p "$pid" -ex "gcore $testdir/$name.gdbcore" \
		>"$testdir/gdb-gcore.out" 2>&1
	ok $? "$name: gdb's own gcore succeeds"
	gdb_core "$testdir/$name.gdbcore" "$exe" 'thread apply all bt'
	printf '%s\n' "$GDB_OUT" | bt_normalise "$testdir/$name.gdbgdb"
	same_bt "$name: gdb on spyglass's core vs gdb on gdb's core" \
		"$testdir/$name.gdb" "$testdir/$name.gdbgdb"
	rm -f "$testdir/$name.gdbcore"
}

# ---- the C fixture
start_fixture "$EXE" && pid=$FIXTURE_PID || { ok 1 "sg-gcore starts"; done_testing; }
gcore_check sg-gcore "$EXE" "$pid" 3
core=$testdir/sg-gcore.core

# The values gdb prints from the core are those it prints live.
if have_gdb; then
	vals=(-ex 'print sg_heap_text' -ex 'print/x sg_written' -ex 'print sg_shared_text')
	live=$(timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${vals[@]}" 2>&1 | grep '^\$')
	gdb_core "$core" "$EXE" "${vals[@]}"
	from_core=$(grep '^\$' <<<"$GDB_OUT")
	like "$from_core" '^\$1 = 0x[0-9a-f]+ "only on the heap"$' "gdb reads the heap string from the core"
	is "$from_core" "$live" "the heap string, the written global and the shared string as gdb prints them live"
else
	skip "gdb is not installed"
fi

# JSON: the file's size and its PT_LOAD headers, one per mapping.
sg -p "$pid" --json -ex "gcore $testdir/json.core"
like "$OUT" '^\{"path":"[^"]+/json\.core","bytes":[0-9]+,"memory":[0-9]+,"segments":[0-9]+,"elapsed_us":[0-9]+,"paused_us":[0-9]+\}$' \
	"--json: path, bytes, memory, segments, elapsed_us, paused_us"
bytes=$(grep -o '"bytes":[0-9]*' <<<"$OUT" | cut -d: -f2)
segments=$(grep -o '"segments":[0-9]*' <<<"$OUT" | cut -d: -f2)
is "$bytes" "$(stat -c %s "$testdir/json.core")" "--json: bytes is the file's size"
nmaps=$(grep -cvE ' \[(vsyscall|vvar[^]]*)\]$' "/proc/$pid/maps")
is "$segments" "$nmaps" "--json: a segment per mapping but [vsyscall] and [vvar]"
loads=$(od -An -tu2 -j56 -N2 "$testdir/json.core" | tr -d ' ')
is "$((loads - 1))" "$segments" "the ELF header counts the PT_NOTE and the segments"
rm -f "$testdir/json.core"

# coredump_filter 0x0: nothing but the vDSO, which the kernel always dumps.
filter=/proc/$pid/coredump_filter
echo 0x0 >"$filter"
sg -p "$pid" --json -ex "gcore $testdir/f0.core"
vdso=$(awk '$NF == "[vdso]" { split($1, a, "-"); print strtonum("0x" a[2]) - strtonum("0x" a[1]) }' \
	"/proc/$pid/maps")
is "$(grep -o '"memory":[0-9]*' <<<"$OUT" | cut -d: -f2)" "$vdso" \
	"coredump_filter 0x0: only the vDSO's $vdso bytes"
if have_gdb; then
	# The heap pointer is in .bss: gdb reads whatever the file has there.
	gdb_core "$testdir/f0.core" "$EXE" 'print/x sg_written' 'print sg_heap_text'
	like "$(grep '^\$' <<<"$GDB_OUT")" '^\$1 = 0x1
^\$2 = 0x[0-9a-f]+( <error: Cannot access memory at address 0x[0-9a-f]+>)?$' \
		"coredump_filter 0x0: gdb reads the global's initial value from the executable, no heap"
fi
# 0x31: anonymous private memory but not the shared mapping.
echo 0x31 >"$filter"
sg -p "$pid" -ex "gcore $testdir/f31.core"
ok $STATUS "coredump_filter 0x31: gcore succeeds"
if have_gdb; then
	gdb_core "$testdir/f31.core" "$EXE" 'print sg_heap_text' 'print sg_shared_text'
	like "$(grep '^\$' <<<"$GDB_OUT")" '^\$1 = 0x[0-9a-f]+ "only on the heap"
^\$2 = 0x[0-9a-f]+ ""$' \
		"coredump_filter 0x31: the heap is there, the anonymous shared mapping not (zeros)"
fi
echo 0x33 >"$filter"
rm -f "$testdir"/f*.core

# The default name, in the current folder.
mkdir "$testdir/cwd"
OUT=$(cd "$testdir/cwd" && "$SG_BIN" -nx -batch -p "$pid" -ex gcore 2>&1)
like "$OUT" "^Saved corefile core\\.$pid\$" "gcore without FILE: core.PID, as gdb names it"
ok "$([ -s "$testdir/cwd/core.$pid" ] && echo 0 || echo 1)" "core.$pid is written in the current folder"
rm -rf "$testdir/cwd"

# Errors: one line, a non-zero status, no file left behind.
sg -p "$pid" -ex "gcore $testdir/no/such/core"
ok "$([ "$STATUS" != 0 ] && echo 0 || echo 1)" "an unwritable path fails (status $STATUS)"
is "$ERR" "cannot create core file $testdir/no/such/core: No such file or directory" \
	"an unwritable path: one error line"
mkdir "$testdir/adir"
sg -p "$pid" -ex "gcore $testdir/adir"
ok "$([ "$STATUS" != 0 ] && echo 0 || echo 1)" "a directory as FILE fails (status $STATUS)"
like "$ERR" "^cannot rename [^ ]+ to $testdir/adir: Is a directory\$" "a directory as FILE: one error line"
is "$(cd "$testdir" && ls -d adir* 2>&1)" "adir" "the failed write leaves no temporary file"
check_threads "$pid" "after the errors, no thread left stopped or traced"

sg -ex gcore
ok "$([ "$STATUS" != 0 ] && echo 0 || echo 1)" "gcore without a process fails (status $STATUS)"
like "$ERR" '^no target' "gcore without a process: no target"

# spyglass reading its own core, once the core reader is there.
"$SG_BIN" -nx -batch -c "$core" -ex 'thread apply all bt' >"$testdir/sgcore.out" 2>"$testdir/sgcore.err"
st=$?
if [ $st = 64 ] || grep -q 'not implemented' "$testdir/sgcore.err"; then
	skip "spyglass -c cannot read cores yet: $(head -1 "$testdir/sgcore.err")"
else
	ok $st "spyglass -c reads its own core$(head -1 "$testdir/sgcore.err" | sed 's/^/: /')"
	bt_normalise "$testdir/sg-gcore.sgcore" <"$testdir/sgcore.out"
	same_bt "spyglass -c on its core vs spyglass live" "$testdir/sg-gcore.sgcore" \
		"$testdir/sg-gcore.live"
	sg -c "$core" -ex "gcore $testdir/again.core"
	ok "$([ "$STATUS" != 0 ] && [ ! -e "$testdir/again.core" ] && echo 0 || echo 1)" \
		"gcore on a core fails (status $STATUS) and writes nothing"
	is "$ERR" "cannot write a core: the target is not a live process" "gcore on a core: why"
fi
stop_fixture "$pid"

# ---- optimised C++ (run-frames.sh's fixture): inlined frames, CFI only.
CXX_EXE=$FIXTURES/frames-gcc-Os-nofp-pie
if start_fixture "$CXX_EXE"; then
	gcore_check frames-Os-nofp "$CXX_EXE" "$FIXTURE_PID" 2
	stop_fixture "$FIXTURE_PID"
else
	ok 1 "frames-gcc-Os-nofp-pie starts"
fi

done_testing
