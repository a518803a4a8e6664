#!/bin/bash
# info proc (and its cmdline, cwd, exe, mappings, stat, status, all),
# info auxv and info inferiors, against gdb on the same process and core.
#
# - live, on tests/fixtures/sg-threads with 4 threads: spyglass's text is
#   gdb's, byte for byte, for info proc, its cmdline/cwd/exe/mappings
#   subcommands, info auxv and info inferiors; info proc PID names another
#   process (a second fixture, which nobody traces);
# - stat and status hold counters that move between two runs (faults,
#   times, context switches) and the tracer's pid: their labels are
#   compared with gdb's, and their values that cannot move;
# - a process whose leader is a zombie (sg-leaderexit): cmdline, exe,
#   mappings and auxv through a live thread;
# - --json, read with jq: the pid, the links /proc gives, one mapping per
#   line of /proc/PID/maps, the auxv entries with AT_NULL last, the
#   inferior;
# - a core gdb's gcore wrote of the fixture, one spyglass's gcore wrote,
#   and one the kernel wrote when the fixture got SIGABRT (where
#   core_pattern lets it write one in the test's folder): info proc,
#   mappings (NT_FILE), info proc all, auxv (NT_AUXV) and inferiors, as
#   gdb shows them; the subcommands gdb cannot answer on a core give its
#   error;
# - info auxv on copies of gdb's core whose NT_AUXV holds every type gdb
#   names (and some it does not): its names, descriptions and formats;
# - info auxv through a link with an odd name over 200 characters long:
#   gdb's escapes, repeat blocks and ellipsis;
# - errors, as gdb words them, with a non-zero status: no process, a
#   second argument, no auxiliary vector; info inferiors without a
#   process is gdb's table.
. "$top_srcdir/tests/test-subr.sh"

EXE=$FIXTURES/sg-threads

# between: the lines of stdin between gdb's "echo" markers, which leave
# out what gdb prints as it attaches or opens a core.
between() {
	sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d'
}

# gdb_live PID CMD: gdb's stdout for CMD on PID, in GDB_OUT.
gdb_live() {
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -p "$1" -ex 'echo @@begin@@\n' -ex "$2" \
		-ex 'echo @@end@@\n' 2>/dev/null | between)
}

# gdb_core CORE EXE CMD: gdb's stdout for CMD on CORE, in GDB_OUT; its
# stderr in GDB_ERR.
gdb_core() {
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -c "$1" "$2" -ex 'echo @@begin@@\n' -ex "$3" \
		-ex 'echo @@end@@\n' 2>"$testdir/gdb.err" | between)
	# gdb's error is its last line, after what it could not find as it
	# showed the frame (the source file).
	GDB_ERR=$(tail -n 1 "$testdir/gdb.err")
}

# sg_core CORE CMD: spyglass's output for CMD on CORE (of $EXE), without
# the lines it prints as it opens the core (run-core.sh compares those).
sg_core() {
	sg -c "$1" "$EXE" -ex 'echo @@begin@@\n' -ex "$2" -ex 'echo @@end@@\n'
	OUT=$(between <<<"$OUT")
}

# gdb_none CMD: gdb without a process: its stdout, stderr and status.
gdb_none() {
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch -ex "$1" 2>"$testdir/gdb.err")
	GDB_STATUS=$?
	GDB_ERR=$(cat "$testdir/gdb.err")
}

start_fixture "$EXE" 4 && pid=$FIXTURE_PID || { ok 1 "sg-threads starts"; done_testing; }
start_fixture "$EXE" 1 && other=$FIXTURE_PID || { ok 1 "a second sg-threads starts"; done_testing; }

# ---- live, text against gdb
live_cmds=('info proc' 'info proc cmdline' 'info proc cwd' 'info proc exe'
	'info proc mappings' 'info auxv' 'info inferiors' "info proc $other"
	"info proc mappings $other")
for c in "${live_cmds[@]}"; do
	sg -p "$pid" -ex "$c"
	ok $STATUS "live $c: succeeds${ERR:+: $ERR}"
	if have_gdb; then
		gdb_live "$pid" "$c"
		is "$OUT" "$GDB_OUT" "live $c: gdb's text"
	else
		skip "gdb is not installed: no reference for $c"
	fi
done

# AT_EXECFN is the path the program was run by: through a link whose name
# has quotes, a backslash and runs of a character, and which is longer
# than the 200 characters gdb prints, its string shows gdb's escapes,
# repeat blocks and ellipsis.
odd=$testdir/$(printf 'q%.0s' $(seq 12))\"\'\\$(printf 'z%.0s' $(seq 200))
ln -s "$EXE" "$odd"
if start_fixture "$odd" 1; then
	sg -p "$FIXTURE_PID" -ex 'info auxv'
	like "$OUT" "^31 +AT_EXECFN +File name of executable +0x[0-9a-f]+ \".*/\", 'q' <repeats 12 times>, \"\\\\\"'\\\\\\\\\", 'z' <repeats [0-9]+ times>\\.\\.\\.\$" \
		"info auxv: a long AT_EXECFN in gdb's quoting"
	if have_gdb; then
		gdb_live "$FIXTURE_PID" 'info auxv'
		is "$OUT" "$GDB_OUT" "info auxv: gdb's text for a long, odd AT_EXECFN"
	else
		skip "gdb is not installed: no reference for info auxv"
	fi
	stop_fixture "$FIXTURE_PID"
else
	ok 1 "sg-threads starts through a link"
fi

# What the text says, without gdb: the process and its mappings.
sg -p "$pid" -ex 'info proc'
is "$(head -1 <<<"$OUT")" "process $pid" "info proc: the process line"
like "$OUT" "^exe = '$EXE'\$" "info proc: the executable"
sg -p "$pid" -ex 'info proc mappings'
is "$(grep -c '^  ' <<<"$OUT")" "$(($(wc -l <"/proc/$pid/maps") + 1))" \
	"info proc mappings: a row per line of /proc/PID/maps, and the header"
like "$OUT" "^ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+  r-xp   $EXE\$" \
	"info proc mappings: the executable's code"
check_threads "$pid" "the process runs on after info proc"

# stat and status: what moves between two runs is left out.
stat_stable='^(Process|Exec file|State|Parent process|Process group|Session id|TTY|TTY owner process group|.nice. value|jiffies until next timeout|start time \(jiffies since system boot\)|rlim|Start of text|End of text|Start of stack):'
status_stable='^(Name|Umask|State|Tgid|Pid|PPid|Uid|Gid|Threads|NStgid|NSpid):'
sg -p "$pid" -ex 'info proc stat'
ok $STATUS "live info proc stat: succeeds${ERR:+: $ERR}"
sg_stat=$OUT
like "$sg_stat" "^Exec file: sg-threads\$" "info proc stat: the command name"
like "$sg_stat" "^jiffies until next timeout: 5\$" \
	"info proc stat: the thread count, under gdb's label for it"
sg -p "$pid" -ex 'info proc status'
ok $STATUS "live info proc status: succeeds${ERR:+: $ERR}"
sg_status=$OUT
# The tracer is spyglass here; everything else is the file.
is "$(grep -v '^TracerPid:' <<<"$sg_status" | grep -E "$status_stable")" \
	"$(grep -E "$status_stable" "/proc/$pid/status" | sed 's/^State:.*/State:\tt (tracing stop)/')" \
	"info proc status: the file as it was"
if have_gdb; then
	gdb_live "$pid" 'info proc stat'
	is "$(sed 's/:.*//' <<<"$sg_stat")" "$(sed 's/:.*//' <<<"$GDB_OUT")" "info proc stat: gdb's labels"
	is "$(grep -E "$stat_stable" <<<"$sg_stat")" "$(grep -E "$stat_stable" <<<"$GDB_OUT")" \
		"info proc stat: gdb's values of the fields that do not move"
	gdb_live "$pid" 'info proc status'
	is "$(sed 's/:.*//' <<<"$sg_status")" "$(sed 's/:.*//' <<<"$GDB_OUT")" "info proc status: gdb's lines"
	is "$(grep -E "$status_stable" <<<"$sg_status")" "$(grep -E "$status_stable" <<<"$GDB_OUT")" \
		"info proc status: gdb's values of the lines that do not move"
	# info proc all: the parts in gdb's order (what moves is compared
	# above).
	sg -p "$pid" -ex 'info proc all'
	gdb_live "$pid" 'info proc all'
	is "$(sed -n '1,/^Name:/p' <<<"$OUT")" "$(sed -n '1,/^Name:/p' <<<"$GDB_OUT")" \
		"info proc all: gdb's text up to the status"
	is "$(sed 's/:.*//' <<<"$OUT")" "$(sed 's/:.*//' <<<"$GDB_OUT")" "info proc all: gdb's lines"
else
	for i in 1 2 3 4 5 6; do skip "gdb is not installed: no reference for stat and status"; done
fi

# ---- JSON
sg --json -p "$pid" -ex 'info proc'
is "$(jq -r '[.pid, .cmdline, .cwd, .exe] | map(tostring) | join("|")' <<<"$OUT")" \
	"$pid|$EXE 4|$(readlink "/proc/$pid/cwd")|$(readlink "/proc/$pid/exe")" \
	"json info proc: pid, cmdline, cwd, exe"
sg --json -p "$pid" -ex 'info proc mappings'
is "$(jq '.mappings | length' <<<"$OUT")" "$(wc -l <"/proc/$pid/maps")" \
	"json info proc mappings: one per line of /proc/PID/maps"
is "$(jq -r '.mappings[] | [.start, .end, .perms, .objfile] | join(" ")' <<<"$OUT")" \
	"$(awk '{ split($1, a, "-"); printf "0x%s 0x%s %s %s\n", a[1], a[2], $2, $6 }' "/proc/$pid/maps" |
		sed -E 's/0x0+([0-9a-f])/0x\1/g')" \
	"json info proc mappings: start, end, perms and file of each"
is "$(jq -c '[.mappings[] | .size, .offset | type] | unique' <<<"$OUT")" '["number"]' \
	"json info proc mappings: sizes and offsets are numbers"
sg --json -p "$pid" -ex 'info auxv'
is "$(jq -r '.auxv[-1] | [.type, .name] | map(tostring) | join(" ")' <<<"$OUT")" "0 AT_NULL" \
	"json info auxv: AT_NULL ends it"
is "$(jq -r '.auxv[] | select(.name == "AT_PAGESZ") | [.value, .format] | join(" ")' <<<"$OUT")" \
	"0x$(printf %x "$(getconf PAGESIZE)") dec" "json info auxv: AT_PAGESZ, shown in decimal"
is "$(jq -r '.auxv[] | select(.name == "AT_EXECFN") | .string' <<<"$OUT")" "$EXE" \
	"json info auxv: AT_EXECFN's string is the path the fixture was run by"
is "$(jq '.auxv | length' <<<"$OUT")" "$(($(od -An -v -tx8 -w16 "/proc/$pid/auxv" | awk '{ n++ } $1 == "0000000000000000" { print n; exit }')))" \
	"json info auxv: one entry per pair of /proc/PID/auxv, up to AT_NULL"
sg --json -p "$pid" -ex 'info inferiors'
is "$(jq -c '.inferiors[0] | [.number, .current, .pid, .connection, .executable]' <<<"$OUT")" \
	"[1,true,$pid,\"native\",\"$EXE\"]" "json info inferiors: the process"
sg --json -p "$pid" -ex 'info proc stat'
is "$(jq -r '.stat | [.pid, .comm, .num_threads, .tpgid] | map(tostring) | join(" ")' <<<"$OUT")" \
	"$pid sg-threads 5 $(awk '{ print $8 }' "/proc/$pid/stat")" "json info proc stat: its fields"
sg --json -p "$pid" -ex 'info proc status'
is "$(jq -r '.status | [.Name, .Threads] | join(" ")' <<<"$OUT")" "sg-threads 5" \
	"json info proc status: its lines as members"

# ---- a zombie leader: its /proc/PID has no cmdline, cwd, exe, maps or
# auxv; a live thread's /proc/PID/task/TID has them (gdb refuses such a
# process: no reference).
if start_fixture "$FIXTURES/sg-leaderexit" 3; then
	lpid=$FIXTURE_PID
	zombie() { [ "$(proc_state "$lpid")" = Z ]; }
	wait_for 10 zombie
	ok $? "sg-leaderexit: the leader is a zombie"
	sg -p "$lpid" -ex 'info proc' -ex 'info proc mappings' -ex 'info auxv'
	ok $STATUS "zombie leader: info proc, mappings and auxv succeed${ERR:+: $ERR}"
	like "$OUT" "^exe = '$FIXTURES/sg-leaderexit'\$" "zombie leader: the executable"
	like "$OUT" "^cmdline = '$FIXTURES/sg-leaderexit 3'\$" "zombie leader: the command line"
	like "$OUT" "^ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+  r-xp   $FIXTURES/sg-leaderexit\$" \
		"zombie leader: the executable's code is mapped"
	like "$OUT" "^0 +AT_NULL +End of vector +0x0\$" "zombie leader: the auxiliary vector"
	stop_fixture "$lpid"
else
	ok 1 "sg-leaderexit starts"
fi

# ---- cores
if have_gdb; then
	core=$testdir/gdb.core
	timeout -k 5 120 "$GDB" -nx -batch -p "$pid" -ex "gcore $core" >"$testdir/gcore.out" 2>&1
	ok $? "gdb's gcore writes a core"
	sg -p "$pid" -ex "gcore $testdir/sg.core"
	ok $STATUS "spyglass's gcore writes a core${ERR:+: $ERR}"
	for which in gdb sg; do
		for c in 'info proc' 'info proc exe' 'info proc mappings' 'info proc all' 'info auxv' \
			'info inferiors'; do
			sg_core "$testdir/$which.core" "$c"
			gdb_core "$testdir/$which.core" "$EXE" "$c"
			is "$OUT" "$GDB_OUT" "$which core: $c: gdb's text"
		done
		sg -c "$testdir/$which.core" "$EXE" -ex 'info proc cmdline'
		gdb_core "$testdir/$which.core" "$EXE" 'info proc cmdline'
		is "$ERR" "$GDB_ERR" "$which core: info proc cmdline: gdb's error"
		ok $((STATUS == 0)) "$which core: info proc cmdline: fails"
	done
	# Every type gdb names, and some it does not: copies of gdb's core
	# whose NT_AUXV holds (TYPE, 0x1000 + TYPE) pairs, as many as its
	# note has room for.  The string types then point where nothing is
	# mapped, which both print as an error.
	if command -v python3 >/dev/null; then
		python3 - "$core" "$testdir/auxv" <<'PY'
import struct, sys
src, prefix = sys.argv[1], sys.argv[2]
types = list(range(1, 65)) + list(range(2000, 2031)) + [100, 255, 4096, 1 << 40]
data = bytearray(open(src, 'rb').read())
phoff, = struct.unpack_from('<Q', data, 0x20)
phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
for i in range(phnum):
    p_type, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
    if p_type != 4:  # PT_NOTE
        continue
    end = off + filesz
    while off < end:
        namesz, descsz, ntype = struct.unpack_from('<III', data, off)
        desc = off + 12 + ((namesz + 3) & ~3)
        if ntype == 6:  # NT_AUXV
            room = descsz // 16 - 1
            for n, k in enumerate(range(0, len(types), room)):
                pairs = [(t, 0x1000 + t) for t in types[k:k + room]]
                pairs += [(0, 0)] * (room + 1 - len(pairs))
                copy = bytearray(data)
                for j, (t, v) in enumerate(pairs):
                    struct.pack_into('<QQ', copy, desc + 16 * j, t, v)
                open('%s.%d' % (prefix, n), 'wb').write(copy)
        off = desc + ((descsz + 3) & ~3)
PY
		# And a copy whose NT_FILE claims more files than it holds.
		python3 - "$core" "$testdir/badfile.core" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', data, 0x20)
phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
for i in range(phnum):
    p_type, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
    if p_type != 4:
        continue
    end = off + filesz
    while off < end:
        namesz, descsz, ntype = struct.unpack_from('<III', data, off)
        desc = off + 12 + ((namesz + 3) & ~3)
        if ntype == 0x46494c45:  # NT_FILE
            struct.pack_into('<Q', data, desc, 1 << 40)
        off = desc + ((descsz + 3) & ~3)
open(sys.argv[2], 'wb').write(data)
PY
		sg -c "$testdir/badfile.core" "$EXE" -ex 'info proc mappings'
		is "$(grep -v '^warning:' <<<"$ERR")|$((STATUS != 0))" "malformed NT_FILE note in core file|1" \
			"a core with a malformed NT_FILE: info proc mappings fails with one line"
		sg -c "$testdir/badfile.core" "$EXE" -ex 'info auxv'
		like "$OUT" "^0 +AT_NULL +End of vector +0x0\$" \
			"a core with a malformed NT_FILE: info auxv still shows the vector"
		copies=$(ls "$testdir"/auxv.* 2>/dev/null | wc -l)
		ok $((copies == 0)) "cores with every auxv type: $copies written"
		n=0
		for c in "$testdir"/auxv.*; do
			sg_core "$c" 'info auxv'
			gdb_core "$c" "$EXE" 'info auxv'
			[ "$OUT" = "$GDB_OUT" ] && n=$((n + 1)) ||
				diff -u <(printf '%s\n' "$GDB_OUT") <(printf '%s\n' "$OUT") | sed 's/^/#   /' | head -20
		done
		is "$n" "$copies" "every auxv type: gdb's names, descriptions and formats"
		rm -f "$testdir"/auxv.*
	else
		for i in 1 2 3 4; do skip "python3 is not installed: no core with every auxv type"; done
	fi

	sg --json -c "$core" "$EXE" -ex 'info proc mappings\'
	is "$(jq -r '.mappings[0] | [.objfile, .offset, has("perms")] | map(tostring) | join(" ")' <<<"$OUT")" \
		"$EXE 0 false" "json core mappings: NT_FILE's first file, no permissions"
	sg --json -c "$core" "$EXE" -ex 'info auxv'
	is "$(jq -r '.auxv[] | select(.name == "AT_EXECFN") | .string' <<<"$OUT")" "$EXE" \
		"json core auxv: AT_EXECFN's string, from the core's stack"
	sg --json -c "$core" "$EXE" -ex 'info inferiors'
	is "$(jq -c '.inferiors[0] | [.pid, .connection]' <<<"$OUT")" "[$pid,\"core\"]" \
		"json core inferiors: the core's process"
else
	skip "gdb is not installed: no gcore and no reference for cores"
fi

# A core the kernel wrote, where it can write one in the test's folder:
# its NT_PRPSINFO has the whole command line.
kdir=$testdir/kernel
mkdir -p "$kdir"
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
case $pattern in
'|'* | */*) why="the kernel writes cores elsewhere (core_pattern $pattern)" ;;
*) why= ;;
esac
kcore=
if [ -z "$why" ] && have_gdb &&
	start_fixture bash -c 'cd "$1" && ulimit -c unlimited && exec "$2" 2' sh "$kdir" "$EXE"; then
	kill -ABRT "$FIXTURE_PID"
	wait "$FIXTURE_PID" 2>/dev/null
	kcore=$(ls "$kdir"/core* 2>/dev/null | head -n 1)
	[ -n "$kcore" ] || why="no core after SIGABRT (ulimit -c is capped, or the sandbox keeps the kernel from writing cores)"
fi
have_gdb || why="gdb is not installed: no reference for the kernel's core"
if [ -n "$kcore" ]; then
	for c in 'info proc' 'info proc mappings' 'info proc all' 'info auxv' 'info inferiors'; do
		sg_core "$kcore" "$c"
		gdb_core "$kcore" "$EXE" "$c"
		is "$OUT" "$GDB_OUT" "kernel core: $c: gdb's text"
	done
	sg_core "$kcore" 'info proc'
	is "$OUT" "exe = '$EXE 2'" "kernel core: the whole command line"
else
	skip "${why:-the fixture did not start}"
fi

# ---- errors, without a process
for c in 'info proc' 'info proc mappings' 'info proc cmdline' 'info auxv' 'info inferiors'; do
	sg -ex "$c"
	if have_gdb; then
		gdb_none "$c"
		is "$OUT|$ERR" "$GDB_OUT|$GDB_ERR" "no process: $c: gdb's output and error"
		is "$((STATUS != 0))" "$((GDB_STATUS != 0))" "no process: $c: fails as gdb's does"
	else
		skip "gdb is not installed: no reference for $c without a process"
	fi
done
sg -ex 'info proc'
is "$ERR" "No current process: you must name one." "no process: info proc: the error"
ok $((STATUS == 0)) "no process: info proc: a non-zero status"
sg --json -ex 'info proc'
is "$(jq -r .error <<<"$OUT")|$STATUS" "No current process: you must name one.|1" \
	"json, no process: info proc: the error object, status 1"
sg --json -ex 'info inferiors'
is "$(jq -c '.inferiors[0] | [.number, .pid, .executable]' <<<"$OUT")" "[1,null,null]" \
	"json, no process: info inferiors: the empty inferior"
sg -p "$pid" -ex "info proc $pid extra"
is "$ERR|$STATUS" "Too many parameters: extra|1" "info proc PID extra: gdb's error, status 1"
sg -p "$pid" -ex 'info proc junk'
is "$ERR|$STATUS" "Too many parameters: junk|1" "info proc junk: gdb's error, status 1"
check_threads "$pid" "the process runs on at the end"

done_testing
