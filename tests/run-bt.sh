#!/bin/bash
# Native backtraces against gdb's, on the same live process: every thread of
# the bt fixtures (tests/fixtures/bt.c, bt.cc) built at -O0, -O2, -O2
# without frame pointers, stripped, and in C++.  Then the forced unwinders
# (-u cfi, -u fp), bt N / -N / backtrace limit, frame/up/down, registers of
# outer frames, and --json.
#
# How gdb's output is compared (see bt_normalise below):
# - Both run with "set backtrace past-main on", so that the ends of the
#   stacks (_start, clone3) are compared too; the default, which stops at
#   main as gdb does, is checked on the main thread.
# - Argument lists are dropped: spyglass prints "()" for now.
# - "from LIB" paths are compared as real paths: gdb prints the link_map
#   name (/lib/x86_64-linux-gnu/libc.so.6), spyglass the /proc/PID/maps one
#   (/usr/lib/...); on merged-/usr systems they are the same file.
# Nothing else is normalised: names, frame numbers and their column, the
# presence of the address (absent for frame 0 at the start of a line, for
# the frame a signal interrupted when its pc is at the start of a line, for
# callers of inlined frames and for the signal frame), "at FILE:LINE" and
# "from" must be gdb's.  That includes gdb's tail-call frames, which gdb
# infers from DW_TAG_call_site records (a function that jumped to its
# callee left no return address): with -O2, sig_raise -> pthread_kill ->
# (jmp) __pthread_kill_implementation shows an extra __pthread_kill_esrch
# frame, and every thread in pthread_cond_wait shows
# __GI___futex_abstimed_wait_cancelable64, which jumped to
# __futex_abstimed_wait_common.
. "$top_srcdir/tests/test-subr.sh"

# The unwinders are plugins: load them unless SPYGLASS_PLUGIN_PATH (set by
# tests/Makefile.inc) already does.
bt_plugins=()
loaded=$("$SG_BIN" -nx -batch -ex 'plugin list' 2>/dev/null)
for p in cfi-unwind fp-unwind; do
	so=$top_builddir/plugins/$p/.libs/$p.so
	if [ -e "$so" ] && ! grep -q "^$p " <<<"$loaded"; then
		bt_plugins+=(--plugin "$so")
	fi
done

# sgt ARGS...: sg with the unwinder plugins and a time limit.
sgt() {
	OUT=$(timeout -k 5 120 "$SG_BIN" -nx -batch ${bt_plugins[@]+"${bt_plugins[@]}"} "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

use_gdb=0 gdb_py=0
if ! have_gdb; then
	echo "# gdb is not installed: spyglass's backtraces are not compared with gdb's"
else
	use_gdb=1
	if [ "$("$GDB" -nx -batch -ex 'python print(6 * 7)' 2>/dev/null)" = 42 ]; then
		gdb_py=1
	else
		echo "# $GDB has no Python: it cannot read the frame-pointer chains for bt -u fp"
	fi
fi
PM=(-ex 'set backtrace past-main on')
have_jq=0
command -v jq >/dev/null && have_jq=1

# For each thread (highest gdb number first): the frame-pointer chain the
# registers and stack memory imply, and gdb's name for each pc of that
# chain (from its normal, CFI-unwound frames).  See check_fp for the rules.
cat >"$testdir/oracle.py" <<'EOF'
import gdb, os, struct
inf = gdb.selected_inferior()
exe = os.readlink("/proc/%d/exe" % inf.pid)
ranges = []
with open("/proc/%d/maps" % inf.pid) as maps:
    for line in maps:
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].rstrip("\n") == exe:
            lo, hi = parts[0].split("-")
            ranges.append((int(lo, 16), int(hi, 16)))
def in_exe(a):
    return any(lo <= a < hi for lo, hi in ranges)
for t in sorted(inf.threads(), key=lambda t: -t.num):
    t.switch()
    tid = t.ptid[1]
    names = {}
    f = gdb.newest_frame()
    level = 0
    while f is not None:
        if f.type() == gdb.NORMAL_FRAME:
            names.setdefault(int(f.pc()), f.name() or "??")
        f = f.older()
        level += 1
    f = gdb.newest_frame()
    chain = [int(f.pc())]
    fp = int(f.read_register("rbp")) & 0xffffffffffffffff
    while fp != 0 and len(chain) < 100000:
        try:
            nfp, ra = struct.unpack("<QQ", bytes(inf.read_memory(fp, 16)))
        except gdb.MemoryError:
            break
        if ra == 0:
            break
        chain.append(ra)
        if nfp <= fp:
            break
        fp = nfp
    for i in range(1, len(chain)):
        if not in_exe(chain[i]):
            chain = chain[:i + 1]
            break
    print("FPEXPECT %d %s" % (tid, " ".join("%#x" % a for a in chain)))
    for a in chain[1:]:
        if in_exe(a):
            print("FPNAME %d %#x %s" % (tid, a, names.get(a, "?")))
print("ORACLE-DONE")
EOF

# bt_normalise DIR: read a "thread apply all bt" (gdb's or spyglass's) on
# stdin; write DIR/headers (spyglass's header format, in order), DIR/tids,
# and per thread DIR/TID.names (function per frame) and DIR/TID.lines (frame
# lines without arguments).  Input without thread headers counts as one
# thread, "0".
bt_normalise() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	: >"$dir/headers"
	: >"$dir/tids"
	awk -v dir="$dir" '
	BEGIN { tid = "" }
	function start(t) {
		tid = t
		printf "" > (dir "/" tid ".names")
		printf "" > (dir "/" tid ".lines")
		print tid >> (dir "/tids")
	}
	/^Thread [0-9]+ \(.*LWP [0-9]+/ {
		match($0, /LWP [0-9]+/)
		t = substr($0, RSTART + 4, RLENGTH - 4)
		name = ""
		if (match($0, /"[^"]*"\):$/))
			name = " " substr($0, RSTART, RLENGTH - 2)
		print "Thread " $2 " (LWP " t name "):" >> (dir "/headers")
		start(t)
		next
	}
	/^#[0-9]+ / {
		if (tid == "")
			start("0")
		match($0, /^#[0-9]+ +/)
		prefix = substr($0, 1, RLENGTH)
		rest = substr($0, RLENGTH + 1)
		addr = ""
		if (match(rest, /^0x[0-9a-f]+ in /)) {
			addr = substr(rest, 1, RLENGTH)
			rest = substr(rest, RLENGTH + 1)
		}
		loc = ""
		if (rest ~ /^<signal handler called>/) {
			fn = "<signal handler called>"
			line = fn
		} else {
			if (match(rest, / at [^ ]+:[0-9]+$/) || match(rest, / from [^ ]+$/)) {
				loc = substr(rest, RSTART)
				rest = substr(rest, 1, RSTART - 1)
			}
			# The argument list: the last balanced (...), after a space.
			if (rest ~ /\)$/) {
				depth = 0
				for (i = length(rest); i > 0; i--) {
					c = substr(rest, i, 1)
					if (c == ")")
						depth++
					else if (c == "(" && --depth == 0)
						break
				}
				if (i > 1 && substr(rest, i - 1, 1) == " ")
					rest = substr(rest, 1, i - 2)
			}
			fn = rest
			line = addr fn " ()" loc
		}
		print fn > (dir "/" tid ".names")
		print prefix line > (dir "/" tid ".lines")
	}'
	# "from" paths as real paths.
	local f m
	for f in "$dir"/*.lines; do
		[ -e "$f" ] || continue
		grep -o ' from [^ ]*$' "$f" | sort -u | while read -r _ m; do
			printf 's| from %s$| from %s|\n' "$m" "$(readlink -f "$m")"
		done >"$dir/from.sed"
		[ -s "$dir/from.sed" ] && sed -i -f "$dir/from.sed" "$f"
	done
	rm -f "$dir/from.sed"
}

# thread_name TID: the name of TID in gdb's or spyglass's headers.
thread_name() {	# thread_name DIR TID
	sed -n "s/^Thread [0-9]* (LWP $2 \"\(.*\)\"):\$/\1/p" "$1/headers"
}
thread_num() {	# thread_num DIR NAME
	sed -n "s/^Thread \([0-9]*\) (LWP [0-9]* \"$2\"):\$/\1/p" "$1/headers"
}
tid_of() {	# tid_of DIR NAME
	sed -n "s/^Thread [0-9]* (LWP \([0-9]*\) \"$2\"):\$/\1/p" "$1/headers"
}

# check_fp VARIANT PID: "thread apply all bt -u fp" against the chain of
# saved frame pointers that gdb's Python reads from the same registers and
# memory (FPEXPECT): pc of frame 0, then while rbp != 0 and [rbp, rbp+16)
# is readable and the return address [rbp+8] is not 0: that return address
# is the next frame's pc; stop after it if the saved rbp [rbp] does not move
# up the stack.
#
# What this means for these fixtures: frame 0 is in libc, built without
# frame pointers, so rbp is still the frame pointer of the innermost fixture
# function.  The walk goes from frame 0 straight to that function's caller:
# it skips the libc frames and the innermost fixture frame (its return
# address was pushed by the libc callee, which keeps no frame link).
# E.g. sleeper: __GI___clock_nanosleep, sleeper_mid, sleeper_outer,
# sleeper_thread, start_thread (no __GI___nanosleep, no sleeper_leaf).  A
# libc function may also use rbp for data: the cond thread's rbp is 0 in
# __futex_abstimed_wait_common, so its FP backtrace is frame 0 alone.  In
# the main thread, main's saved rbp is whatever __libc_start_call_main had
# in rbp (1, not a frame pointer), but the return address beside it is
# right: the walk shows __libc_start_call_main, then stops (as the threads'
# walks show start_thread and then stop on a saved rbp of 0).
# The walk is compared up to and including the first return address outside
# the executable (start_thread, __libc_start_call_main, or the signal
# trampoline __restore_rt): beyond it, what rbp holds depends on how libc was
# compiled, and an FP unwinder may handle the signal frame specially.
# Compared are the physical frames ("inlined": false) of --json output,
# whose "pc" is, like gdb's, the return address for frames above 0 (not the
# tail-call frames, which are no step of the walk); and the
# function named at each fixture pc must be the one gdb's CFI backtrace
# names there.  The deep thread must show all its deep_recurse frames.
check_fp() {
	local v=$1 pid=$2 tid want got bad names
	sgt --json -p "$pid" "${PM[@]}" -ex 'thread apply all bt -u fp'
	ok $STATUS "$v: thread apply all bt -u fp (json) succeeds${ERR:+: $ERR}"
	if [ "$have_jq" = 0 ]; then
		skip "jq not installed: cannot read the -u fp frames"
		return
	fi
	tail -n 1 <<<"$OUT" >"$testdir/fp.json"
	for tid in $(cat "$testdir/gdb/tids"); do
		want=$(awk -v t="$tid" '$1 == "FPEXPECT" && $2 == t { $1 = ""; $2 = ""; print }' "$testdir/gdb.out" |
			tr -s ' ' '\n' | grep . | sed 's/^0x0*/0x/')
		local n
		n=$(printf '%s\n' "$want" | wc -l)
		got=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | .frames[] | select(.inlined == false and .unwinder != "tailcall") | .pc' \
			"$testdir/fp.json" 2>/dev/null | sed 's/^0x0*/0x/' | head -n "$n")
		is "$got" "$want" "$v: thread $(thread_name "$testdir/gdb" "$tid"): bt -u fp follows the frame-pointer chain"
		# Names at the fixture's own pcs, as gdb's CFI backtrace has them.
		want=$(awk -v t="$tid" '$1 == "FPNAME" && $2 == t { $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); print }' "$testdir/gdb.out")
		if [ -n "$want" ]; then
			got=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | [.frames[] | select(.inlined == false and .unwinder != "tailcall")]
				| .[1:] | .[] | (.function // "??")' "$testdir/fp.json" 2>/dev/null | head -n "$(printf '%s\n' "$want" | wc -l)")
			is "$got" "$want" "$v: thread $(thread_name "$testdir/gdb" "$tid"): bt -u fp names the fixture's frames as gdb"
		fi
	done
	# Text, for the deep recursion: all of it.
	tid=$(tid_of "$testdir/gdb" deep)
	if [ -n "$tid" ]; then
		sgt -p "$pid" "${PM[@]}" -ex "thread apply all bt -u fp"
		bt_normalise "$testdir/sgfp" <<<"$OUT"
		want=$(grep -cx deep_recurse "$testdir/gdb/$tid.names")
		got=$(grep -cx deep_recurse "$testdir/sgfp/$tid.names" 2>/dev/null)
		is "${got:-0}" "$want" "$v: bt -u fp shows all $want deep_recurse frames"
	fi
}

# check_json VARIANT PID NTHREADS
check_json() {
	local v=$1 pid=$2 nthreads=$3 j
	if [ "$have_jq" = 0 ]; then
		skip "jq not installed: cannot parse the JSON"
		return
	fi
	sgt --json -p "$pid" "${PM[@]}" -ex 'thread apply all bt'
	ok $STATUS "$v: --json thread apply all bt succeeds${ERR:+: $ERR}"
	# One line per command: {} for the set, then the backtraces.
	is "$(printf '%s\n' "$OUT" | wc -l)" 2 "$v: --json: one line per command"
	j=$(tail -n 1 <<<"$OUT")
	if ! jq -e 'type == "object"' >/dev/null 2>&1 <<<"$j"; then
		ok 1 "$v: --json output parses: $(head -c 300 <<<"$j")"
		return
	fi
	is "$(jq '.threads | length' <<<"$j")" "$nthreads" "$v: --json: $nthreads threads"
	is "$(jq -r '.threads[].tid' <<<"$j" | sort -n)" "$(ls "/proc/$pid/task" | sort -n)" "$v: --json: the tids of /proc/PID/task"
	is "$(jq -r '.threads[] | "\(.tid) \(.name)"' <<<"$j" | sort -n)" \
		"$(for t in $(ls "/proc/$pid/task" | sort -n); do echo "$t $(cat "/proc/$pid/task/$t/comm")"; done)" \
		"$v: --json: thread names"
	# The documented keys, with their types.
	is "$(jq -r '[.threads[].frames[] | select(
			(has("level") and has("pc") and has("function") and has("offset") and has("module")
			 and has("file") and has("line") and has("inlined") and has("unwinder")) | not)] | length' <<<"$j")" 0 \
		"$v: --json: every frame has level, pc, function, offset, module, file, line, inlined, unwinder"
	is "$(jq -r '[.threads[].frames[] | select(
			(.level | type) != "number" or (.pc | type) != "string" or (.pc | test("^0x[0-9a-f]+$") | not)
			or ((.function | type) != "string" and .function != null)
			or ((.offset | type) != "number" and .offset != null)
			or ((.module | type) != "string" and .module != null)
			or ((.file | type) != "string" and .file != null)
			or ((.line | type) != "number" and .line != null)
			or (.inlined | type) != "boolean")] | length' <<<"$j")" 0 "$v: --json: the keys have the documented types"
	is "$(jq -r '[.threads[] | .frames | to_entries[] | select(.key != .value.level)] | length' <<<"$j")" 0 \
		"$v: --json: levels count from 0"
	# Frame 0 was not unwound; every later frame was, by cfi or fp, or is a
	# tail-call frame.  Only physical frames: the inlined frames (and the
	# physical one) that share frame 0's pc were not unwound either, so the
	# check starts at the first physical frame after frame 0's.
	is "$(jq -r '[.threads[].frames[0].unwinder] | map(select(. != null)) | length' <<<"$j")" 0 \
		"$v: --json: frame 0's unwinder is null"
	is "$(jq -r '[.threads[] | [.frames[] | select(.inlined == false)] | .[1:][] | select(.unwinder != "cfi" and .unwinder != "fp" and .unwinder != "tailcall")] | length' <<<"$j")" 0 \
		"$v: --json: every frame above frame 0 names its unwinder: cfi, fp (or tailcall)"
	# The same frames as the text: count and, except the signal frame,
	# function names (null = ??).
	local tid bad=0 exe
	for tid in $(cat "$testdir/sg/tids"); do
		paste -d '\t' "$testdir/sg/$tid.names" \
			<(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | .frames[] | (.function // "??")' <<<"$j") |
			awk -F '\t' -v t="$tid" '$1 != "<signal handler called>" && $1 != $2 { print "# thread " t " level " NR - 1 ": text " $1 ", json " $2; bad = 1 } END { exit bad }' ||
			bad=$((bad + 1))
	done
	is "$bad" 0 "$v: --json: the frames of the text backtrace"
	# The fixture's frames: module = the executable, file and line set.
	exe=$(readlink -f "/proc/$pid/exe")
	is "$(jq -r --arg e "$exe" '[.threads[].frames[] | select(.module == $e and .file != null and (.file | test("/bt\\.cc?$"))) | select(.line == null or .function == null)] | length' <<<"$j")" 0 \
		"$v: --json: fixture frames have function and line"
}

# check_bt VARIANT: the whole comparison for one fixture build.
check_bt() {
	local v=$1 pid tid name want got
	if ! start_fixture "$FIXTURES/$v"; then
		ok 1 "$v starts"
		return
	fi
	pid=$FIXTURE_PID
	local nthreads
	nthreads=$(ls "/proc/$pid/task" | wc -l)

	if [ "$use_gdb" = 1 ]; then
		local py=()
		[ "$gdb_py" = 1 ] && py=(-x "$testdir/oracle.py")
		timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${PM[@]}" \
			-ex 'thread apply all bt' "${py[@]}" >"$testdir/gdb.out" 2>&1
		if [ "$gdb_py" = 1 ] && ! grep -q '^ORACLE-DONE$' "$testdir/gdb.out"; then
			echo "# gdb failed:"
			tail -5 "$testdir/gdb.out" | sed 's/^/#   /'
		fi
		bt_normalise "$testdir/gdb" <"$testdir/gdb.out"
	fi

	sgt -p "$pid" "${PM[@]}" -ex 'thread apply all bt'
	ok $STATUS "$v: thread apply all bt succeeds${ERR:+: $ERR}"
	bt_normalise "$testdir/sg" <<<"$OUT"
	is "$(grep -c '^Thread ' <<<"$OUT")" "$nthreads" "$v: one header per thread"
	is "$(awk 'BEGIN { prev = "x" } prev == "" && /^Thread / { n++ } { prev = $0 } END { print n + 0 }' <<<"$OUT")" "$nthreads" \
		"$v: a blank line before each thread's header"

	if [ "$use_gdb" = 1 ]; then
		is "$(cat "$testdir/sg/headers")" "$(cat "$testdir/gdb/headers")" "$v: thread headers and order as gdb's"
		for tid in $(cat "$testdir/gdb/tids"); do
			name=$(thread_name "$testdir/gdb" "$tid")
			is "$(cat "$testdir/sg/$tid.names" 2>/dev/null)" "$(cat "$testdir/gdb/$tid.names")" \
				"$v: thread $name: the functions of gdb's backtrace"
			is "$(cat "$testdir/sg/$tid.lines" 2>/dev/null)" "$(cat "$testdir/gdb/$tid.lines")" \
				"$v: thread $name: frame lines as gdb's (arguments dropped)"
		done
		# By default the main thread's stack ends at main, as gdb's does
		# (when main has a symbol).
		sgt -p "$pid" -ex "thread apply $(thread_num "$testdir/gdb" "$(thread_name "$testdir/gdb" "$pid")") bt"
		bt_normalise "$testdir/sgmain" <<<"$OUT"
		is "$(cat "$testdir/sgmain/$pid.lines" 2>/dev/null)" "$(awk '{ print } / in main \(\) |^#[0-9]+ +main \(\) / { exit }' "$testdir/gdb/$pid.lines")" \
			"$v: main thread: by default the stack ends at main, as gdb's"
	else
		skip "$v: no gdb to compare with"
	fi

	# The CFI unwinder alone reaches the end of every stack: _start for
	# the main thread, clone3 for the others (glibc 2.34+; in the stripped
	# build _start has no symbol left).
	sgt -p "$pid" "${PM[@]}" -ex 'thread apply all bt -u cfi'
	ok $STATUS "$v: thread apply all bt -u cfi succeeds${ERR:+: $ERR}"
	bt_normalise "$testdir/sgcfi" <<<"$OUT"
	local start=_start bad=0
	[ "$v" = bt-c-stripped ] && start='??'
	for tid in $(ls "/proc/$pid/task"); do
		want=clone3
		[ "$tid" = "$pid" ] && want=$start
		got=$(tail -n 1 "$testdir/sgcfi/$tid.names" 2>/dev/null)
		if [ "$got" != "$want" ]; then
			echo "# thread $tid: last frame '$got', not $want"
			bad=$((bad + 1))
		fi
	done
	is "$bad" 0 "$v: bt -u cfi ends at $start (main thread) and clone3 (the others)"
	if [ "$use_gdb" = 1 ]; then
		bad=0
		for tid in $(cat "$testdir/gdb/tids"); do
			if ! cmp -s "$testdir/sgcfi/$tid.names" "$testdir/gdb/$tid.names"; then
				echo "# thread $tid: -u cfi differs from gdb:"
				diff "$testdir/gdb/$tid.names" "$testdir/sgcfi/$tid.names" 2>&1 | head -5 | sed 's/^/#   /'
				bad=$((bad + 1))
			fi
		done
		is "$bad" 0 "$v: bt -u cfi: the functions of gdb's backtrace in every thread"
	fi

	case $v in
	bt-c-O0 | bt-c-O2 | bt-cc-O0)
		if [ "$gdb_py" = 1 ]; then
			check_fp "$v" "$pid"
		else
			skip "$v: no gdb with Python to read the frame-pointer chains"
		fi
		;;
	esac

	case $v in
	bt-c-O0 | bt-c-O2) check_deep "$v" "$pid" ;;
	esac
	case $v in
	bt-c-O0 | bt-c-O2 | bt-cc-O2) check_frames "$v" "$pid" ;;
	esac
	case $v in
	bt-c-*) check_json "$v" "$pid" 8 ;;
	bt-cc-O0) check_json "$v" "$pid" 4 ;;
	esac

	check_running "$pid" "$v: the target runs, untraced, after the backtraces"
	stop_fixture "$pid"
}

# check_deep VARIANT PID: the 2000-frame thread, bt N, bt -N, the limit.
check_deep() {
	local v=$1 pid=$2 tid n gdbn
	tid=$(tid_of "$testdir/sg" deep)
	n=$(thread_num "$testdir/sg" deep)
	if [ -z "$tid" ] || [ -z "$n" ]; then
		ok 1 "$v: spyglass names a thread \"deep\""
		return
	fi
	got=$(wc -l <"$testdir/sg/$tid.lines")
	ok $((got < 2000)) "$v: the deep thread has at least 2000 frames ($got)"
	if [ "$use_gdb" = 1 ]; then
		gdbn=$(wc -l <"$testdir/gdb/$tid.lines")
		is "$got" "$gdbn" "$v: the deep thread has as many frames as in gdb"
	fi
	sgt -p "$pid" "${PM[@]}" -ex 'set backtrace limit 10' -ex "thread apply $n bt"
	bt_normalise "$testdir/lim" <<<"$OUT"
	is "$(grep -c '^#' <<<"$OUT")" 10 "$v: set backtrace limit 10: 10 frames"
	[ "$use_gdb" = 1 ] && is "$(cat "$testdir/lim/$tid.lines")" "$(head -n 10 "$testdir/gdb/$tid.lines")" \
		"$v: set backtrace limit 10: gdb's first 10 frames"
	sgt -p "$pid" "${PM[@]}" -ex "thread apply $n bt 3"
	is "$(grep -c '^#' <<<"$OUT")" 3 "$v: bt 3: 3 frames"
	bt_normalise "$testdir/b3" <<<"$OUT"
	[ "$use_gdb" = 1 ] && is "$(cat "$testdir/b3/$tid.lines")" "$(head -n 3 "$testdir/gdb/$tid.lines")" \
		"$v: bt 3: gdb's innermost 3 frames"
	sgt -p "$pid" "${PM[@]}" -ex "thread apply $n bt -3"
	is "$(grep -c '^#' <<<"$OUT")" 3 "$v: bt -3: 3 frames"
	# bt -N keeps the frames' own levels.  Compared with arguments
	# dropped, as everywhere in this test.
	local lines
	bt_normalise "$testdir/bm3" <<<"$OUT"
	lines=$(sed 's/^#[0-9]* *//' "$testdir/bm3/$tid.lines")
	if [ "$use_gdb" = 1 ]; then
		is "$lines" "$(tail -n 3 "$testdir/gdb/$tid.lines" | sed 's/^#[0-9]* *//')" "$v: bt -3: gdb's outermost 3 frames"
		is "$(grep -o '^#[0-9]*' <<<"$OUT" | tr '\n' ' ')" "$(tail -n 3 "$testdir/gdb/$tid.lines" | grep -o '^#[0-9]*' | tr '\n' ' ')" \
			"$v: bt -3: numbered as in the full backtrace"
	fi
}

# check_frames VARIANT PID: the sleeper (worker in C++): thread N + bt with
# gdb's file and line, and independently the source lines of the calls;
# frame/up/down and the registers and CFA of an outer frame.
check_frames() {
	local v=$1 pid=$2 who tid n src
	case $v in
	bt-c-*) who=sleeper src=$top_srcdir/tests/fixtures/bt.c ;;
	*) who=worker src=$top_srcdir/tests/fixtures/bt.cc ;;
	esac
	tid=$(tid_of "$testdir/sg" "$who")
	n=$(thread_num "$testdir/sg" "$who")
	if [ -z "$tid" ] || [ -z "$n" ]; then
		ok 1 "$v: spyglass names a thread \"$who\""
		return
	fi
	sgt -p "$pid" "${PM[@]}" -ex "thread $n" -ex 'bt'
	like "$OUT" "^\[Switching to thread $n \(LWP $tid\)\]" "$v: thread $n switches to the $who"
	# The frames of bt: from the second "#0" on (thread prints frame 0).
	local bt
	bt=$(awk '/^#0 / { z++ } z >= 2' <<<"$OUT")
	bt_normalise "$testdir/sel" <<<"$bt"
	local at want
	at=$(grep -o ' at [^ ]*/bt\.cc*:[0-9]*$' "$testdir/sel/0.lines")
	like "$at" "bt\\.cc?:[0-9]+" "$v: bt of the selected thread shows the fixture's file:line"
	if [ "$use_gdb" = 1 ]; then
		is "$(cat "$testdir/sel/0.lines")" "$(cat "$testdir/gdb/$tid.lines")" "$v: bt of the selected $who: gdb's frames"
		is "$at" "$(grep -o ' at [^ ]*/bt\.cc*:[0-9]*$' "$testdir/gdb/$tid.lines")" "$v: the $who's fixture frames: gdb's file:line"
	fi
	# The lines, from the source itself.
	if [ "$who" = sleeper ]; then
		want=$(for pat in 'nanosleep(&ts, NULL);' 'int r = sleeper_leaf(n + 1);' 'int r = sleeper_mid(n + 1);' 'bt_sink = sleeper_outer(1);'; do
			echo "bt.c:$(grep -nF "$pat" "$src" | head -1 | cut -d: -f1)"
		done)
		is "$(grep -o 'bt\.c:[0-9]*$' <<<"$at")" "$want" "$v: sleeper_leaf, _mid, _outer, _thread: the lines of their calls"
	fi
	[ "$use_gdb" = 1 ] || return

	# frame, up, down; registers and CFA of frame 3 (a fixture frame in
	# all three builds, unwound through libc and a fixture frame).
	local cmds=(-ex "thread $n" -ex 'frame 3' -ex 'info registers rip rsp rbp' -ex 'info frame' -ex 'up' -ex 'down 2')
	timeout -k 5 60 "$GDB" -nx -batch -p "$pid" "${PM[@]}" "${cmds[@]}" >"$testdir/gdbf.out" 2>&1
	sgt -p "$pid" "${PM[@]}" "${cmds[@]}"
	is "$(grep '^#' <<<"$OUT" | grep -o '^#[0-9]*' | tr '\n' ' ')" "#0 #3 #4 #2 " "$v: thread, frame 3, up, down 2 print frames 0, 3, 4, 2"
	# The frame lines of frame, up, down (not the one of thread).
	grep '^#' "$testdir/gdbf.out" | tail -n +2 | bt_normalise "$testdir/gf"
	grep '^#' <<<"$OUT" | tail -n +2 | bt_normalise "$testdir/sf"
	is "$(cat "$testdir/sf/0.lines" 2>/dev/null)" "$(cat "$testdir/gf/0.lines")" "$v: frame 3, up, down 2: gdb's frame lines"
	local r
	for r in rip rsp rbp; do
		is "$(awk -v r="$r" '$1 == r && $2 ~ /^0x/ { print $2 }' <<<"$OUT")" "$(awk -v r="$r" '$1 == r && $2 ~ /^0x/ { print $2 }' "$testdir/gdbf.out")" \
			"$v: info registers $r in frame 3: gdb's value"
	done
	like "$OUT" "^Stack level 3, frame at $(sed -n 's/^Stack level 3, frame at \(0x[0-9a-f]*\):$/\1/p' "$testdir/gdbf.out"):" \
		"$v: info frame: gdb's frame address (CFA) of frame 3"
}

for v in bt-c-O0 bt-c-O2 bt-c-O2-nofp bt-c-stripped bt-cc-O0 bt-cc-O2; do
	check_bt "$v"
done
done_testing
