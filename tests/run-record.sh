#!/bin/bash
# record, the sampling profiler: known shares of CPU time (75% hot, 25%
# cold) come out of each format within 7 points, with the hot frame's
# function, file and line exact; every format parses (tests/profile-check.py
# has its own decoders); a sampled native stack is live bt's; Ctrl-C and a
# target that exits still leave a valid file, and the target is never
# left stopped or traced; signals, group stops and new threads while the
# target runs seized; usage errors and hostile targets give one error line.
. "$top_srcdir/tests/test-subr.sh"

CHECK=$top_srcdir/tests/profile-check.py
HOTCOLD=$FIXTURES/sg-hotcold
SRC_C=$top_srcdir/tests/fixtures/sg-hotcold.c
SRC_PY=$top_srcdir/tests/fixtures/hotcold.py
hot_line() {	# the line of MARK in FILE
	grep -n "$2" "$1" | head -1 | cut -d: -f1
}

# held_long: whether the last recording (its summary in $ERR) held the
# target stopped over 40% of the time, as a sanitizer build on a busy
# machine can.  Each stop then lengthens the phase it lands in, and the
# shares of the wall time are no longer those of the work: sets
# HELD_WHY.
held_long() {
	local pct
	pct=$(sed -n 's/.*target stopped \([0-9.]*\)% of the time.*/\1/p' <<<"$ERR" | tail -n 1)
	HELD_WHY="the target was stopped ${pct:-?}% of the time"
	[ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p > 40) }'
}

# shares LABEL FORMAT FILE [LEAF_FILE LEAF_LINE [OTHER_LINE]]: the file
# parses, hot and cold are 75/25 within 7 points, the innermost hot frame
# is at the line (or at OTHER_LINE, also hot's).
shares() {
	local label=$1 fmt=$2 file=$3 leaf_file=${4:-} leaf_line=${5:-} other=${6:-} j
	j=$(python3 "$CHECK" shares "$fmt" "$file" hot cold 2>&1)
	if ! ok $? "$label: $fmt parses"; then
		echo "$j" | head -5 | sed 's/^/#   /'
		return
	fi
	local hot n
	hot=$(jq -r '.hot // -1' <<<"$j")
	n=$(jq -r '.samples' <<<"$j")
	if held_long; then
		skip "$label: $fmt: hot $hot% of $n samples: not a measure of the work, as $HELD_WHY"
	else
		ok "$(awk -v h="$hot" -v n="$n" 'BEGIN { print !(h >= 68 && h <= 82 && n >= 50) }')" \
			"$label: $fmt: hot $hot% of $n samples (75 +- 7)"
	fi
	# The profile names a file as bt does, as the line table spells it;
	# a VPATH build (distcheck) spells it "../../tests/...", relative to
	# the build directory: compare the files, not their spellings.
	local leaf got_file
	leaf=$(jq -c '.leaf' <<<"$j")
	got_file=$(jq -r '.leaf[1] // ""' <<<"$j")
	if [ -n "$leaf_file" ] && [ -n "$got_file" ] &&
	   [ "$(realpath -m "$got_file")" = "$(realpath -m "$leaf_file")" ]; then
		leaf=$(jq -c --arg f "$leaf_file" '.leaf | .[1] = $f' <<<"$j")
	fi
	if [ -n "$other" ] && [ "$leaf" = "[\"hot\",\"$leaf_file\",$other]" ]; then
		leaf_line=$other
	fi
	if [ -n "$leaf_line" ]; then
		is "$leaf" "[\"hot\",\"$leaf_file\",$leaf_line]" \
			"$label: $fmt: the innermost hot frame is hot at $(basename "$leaf_file"):$leaf_line"
	fi
	LAST_SHARES=$j
}

# record_bg PID OUT ARGS...: spyglass -p PID -- record ARGS -o OUT in the
# background; sets REC_PID, REC_ERR.
record_bg() {
	local pid=$1 out=$2
	shift 2
	REC_ERR=$testdir/record.err.$RANDOM
	"$SG_BIN" -nx -batch -p "$pid" -- record "$@" -o "$out" 2>"$REC_ERR" &
	REC_PID=$!
	sg_pids+=("$REC_PID")
}

# ---- native: the C fixture, each format ----
start_fixture "$HOTCOLD" || exit 1
line=$(hot_line "$SRC_C" HOT-LINE)
sg -p "$FIXTURE_PID" -- record --rate 500 --duration 2 -o "$testdir/c.folded"
ok $STATUS "C: record -o c.folded succeeds${ERR:+: $ERR}"
like "$ERR" '^record: [0-9]+ samples in 2\.[0-9]+ s, [0-9.]+ Hz of 500 requested, [0-9]+ missed, 0 unreadable, target stopped [0-9.]+% of the time; wrote .*c\.folded \(folded\)$' \
	"C: the summary line"
shares "C" folded "$testdir/c.folded"
is "$(jq -r '.depth >= 21' <<<"$LAST_SHARES")" true "C: folded stacks are 20 frames deep and more (main, 18 descend, hot)"
like "$(awk '{ print $NF, $0 }' "$testdir/c.folded" | sort -n | tail -n 1 | cut -d' ' -f2-)" '^main(;descend){18};(hot|cold)(;[^; ]+)* [0-9]+$' \
	"C: the most frequent folded line is main;descend;...;hot count"
sg -p "$FIXTURE_PID" -- record --rate 500 --duration 1.5 -o "$testdir/c.json"
ok $STATUS "C: record -o c.json (speedscope by its extension)${ERR:+: $ERR}"
shares "C" speedscope "$testdir/c.json" "$SRC_C" "$line"
sg -p "$FIXTURE_PID" -- record --rate 500 --duration 1.5 --format pprof -o "$testdir/c.out"
ok $STATUS "C: record --format pprof${ERR:+: $ERR}"
shares "C" pprof "$testdir/c.out" "$SRC_C" "$line"
# The sleeper thread is idle: left out, but for a tick that finds it
# still running after the resume that starts the recording (the first
# tick comes a period later; on a loaded machine the thread may wait that
# long for a CPU).
sleepers=$(jq -r '[.per_thread | to_entries[] | select(.key | startswith("sleeper")) | .value] | add // 0' <<<"$LAST_SHARES")
ok "$((sleepers <= 2 ? 0 : 1))" "C: the idle thread is not sampled without --idle ($sleepers samples)"
sg -p "$FIXTURE_PID" -- record --idle --rate 200 --duration 0.5 -o "$testdir/idle.json"
python3 "$CHECK" shares speedscope "$testdir/idle.json" hot cold >"$testdir/idle.j" 2>&1
like "$(jq -r '.threads | join(",")' "$testdir/idle.j")" 'sleeper \([0-9]+\)' "C: --idle samples the sleeping thread too"
sg -p "$FIXTURE_PID" -- record --threads main --idle --rate 200 --duration 0.5 -o "$testdir/main.json"
python3 "$CHECK" shares speedscope "$testdir/main.json" hot cold >"$testdir/main.j" 2>&1
is "$(jq -r '.threads | join(",")' "$testdir/main.j")" "sg-hotcold ($FIXTURE_PID)" "C: --threads main: the main thread only"
check_threads "$FIXTURE_PID" "C: the fixture runs on, untraced, after the recordings"

# ---- usage ----
sg -p "$FIXTURE_PID" -- record --nonblocking --duration 1 -o "$testdir/nb.folded"
ok $((STATUS == 0)) "--nonblocking with a native stack is refused (status $STATUS)"
like "$ERR" '--nonblocking reads only python or zeek stacks' "--nonblocking native: says why"
is "$(wc -l <<<"$ERR")" 1 "--nonblocking native: one error line"
[ -e "$testdir/nb.folded" ]
ok $((! $?)) "--nonblocking native: no file is written"
sg -p "$FIXTURE_PID" -- record --rate 0 -o "$testdir/x.folded"
ok $((STATUS == 0)) "--rate 0 is refused: $ERR"
sg -p "$FIXTURE_PID" -- record --duration 1
like "$ERR" 'give the output file with -o FILE' "no -o: a usage error"
sg -p "$FIXTURE_PID" -- record --threads 1 -o "$testdir/x.folded"
like "$ERR" "--threads takes all, main or thread IDs of process $FIXTURE_PID" "--threads with a thread of another process is refused"
sg -p "$FIXTURE_PID" -- record --format svg -o "$testdir/x.folded"
like "$ERR" "^record: unknown profile format 'svg'" "--format svg is refused"
sg -p "$FIXTURE_PID" -- record --duration 1 --threads -o "$testdir/x.folded"
is "$ERR" "record: missing value after '--threads'" "--threads followed by -o: its value is missing, -o is not taken for it"
sg -p "$FIXTURE_PID" -- record --rate 0x10 -o "$testdir/x.folded"
like "$ERR" "^record: --rate needs a whole number" "--rate 0x10 is refused"
sg -p "$FIXTURE_PID" -- record --rate 200 --duration 0.5 -o -
ok $STATUS "-o -: the profile on standard output${ERR:+: $ERR}"
bad=$(grep -cvE '^[^ ]+(;[^ ;]+)* [0-9]+$' <<<"$OUT")
ok $(( bad == 0 && $(wc -l <<<"$OUT") > 0 ? 0 : 1 )) "-o -: every line of standard output is folded ($bad not)"
[ -e ./- ]
ok $((! $?)) "-o -: no file called -"
sg -p "$FIXTURE_PID" -- record -o /nonexistent/dir/x.folded
like "$ERR" 'cannot open /nonexistent/dir/x.folded' "an output file that cannot be created is an error before the recording"
sg -p "$FIXTURE_PID" -- record --stack python -o "$testdir/x.folded"
like "$ERR" "^record: --stack python: no thread of process $FIXTURE_PID runs python" "--stack python on a C program: says there is no Python"
ok $((STATUS == 0)) "--stack python on a C program: non-zero status ($STATUS)"
check_threads "$FIXTURE_PID" "usage errors: the fixture runs on, untraced"

# ---- Ctrl-C: SIGINT to spyglass ends the recording, which is written ----
record_bg "$FIXTURE_PID" "$testdir/int.pb.gz" --rate 500 --duration 60
wait_for 10 traced_by "$FIXTURE_PID" "$REC_PID"
sleep 1.5
kill -INT "$REC_PID"
wait "$REC_PID"
ok $? "Ctrl-C: spyglass exits with status 0"
ERR=$(cat "$REC_ERR")
like "$ERR" '; interrupted; wrote .*int\.pb\.gz \(pprof\)$' "Ctrl-C: the summary says so"
shares "Ctrl-C" pprof "$testdir/int.pb.gz"
st=$(proc_state "$FIXTURE_PID")
ok "$([ -n "$st" ] && [ "$st" != t ] && [ "$st" != T ]; echo $?)" "Ctrl-C: the fixture is not stopped (state $st)"
check_threads "$FIXTURE_PID" "Ctrl-C: no thread of the fixture is stopped or traced"

# ---- SIGTERM (timeout) and SIGHUP end the recording as Ctrl-C does ----
for sig in TERM HUP; do
	record_bg "$FIXTURE_PID" "$testdir/$sig.folded" --rate 500 --duration 60
	wait_for 10 traced_by "$FIXTURE_PID" "$REC_PID"
	sleep 1
	kill -$sig "$REC_PID"
	wait "$REC_PID"
	ok $? "SIG$sig mid-recording: spyglass exits with status 0"
	like "$(cat "$REC_ERR")" "; interrupted; wrote .*$sig\.folded \(folded\)\$" "SIG$sig: the summary says the file was written"
	# The file, not the shares: a second of samples under a loaded
	# sanitizer build strays past 75 +- 7.
	python3 "$CHECK" shares folded "$testdir/$sig.folded" hot cold >"$testdir/$sig.j" 2>&1
	ok $? "SIG$sig: the folded file parses: $(head -c 200 "$testdir/$sig.j")"
	check_threads "$FIXTURE_PID" "SIG$sig: no thread of the fixture is stopped or traced"
done

# ---- a recording that fails leaves an existing file as it was ----
echo keep >"$testdir/keep.folded"
sg -p "$FIXTURE_PID" -- record --stack python -o "$testdir/keep.folded"
ok $((STATUS == 0)) "a recording that cannot start fails (status $STATUS)"
is "$(cat "$testdir/keep.folded")" keep "a recording that fails leaves the file it would have replaced"

# ---- spyglass stopped at once mid-recording (SIGTERM: its end path,
# SIGKILL: the kernel) never leaves the target stopped ----
export SG_KILLS=1
for sig in TERM KILL; do
	record_bg "$FIXTURE_PID" "$testdir/die.folded" --rate 1000 --duration 60
	wait_for 10 traced_by "$FIXTURE_PID" "$REC_PID"
	sleep 0.5
	kill -$sig "$REC_PID"
	wait "$REC_PID" 2>/dev/null
	sleep 0.2
	check_threads "$FIXTURE_PID" "SIG$sig to spyglass mid-recording: no thread of the target is left stopped or traced"
done
unset SG_KILLS

# ---- a group stop (SIGSTOP) and SIGCONT while recording ----
record_bg "$FIXTURE_PID" "$testdir/stop.folded" --rate 200 --duration 3
wait_for 10 traced_by "$FIXTURE_PID" "$REC_PID"
sleep 0.3
kill -STOP "$FIXTURE_PID"
sleep 0.5
is "$(proc_state "$FIXTURE_PID")" t "SIGSTOP while recording: the process stays stopped (traced: t)"
c1=$(awk '{ print $14 }' "/proc/$FIXTURE_PID/task/$FIXTURE_PID/stat")
sleep 0.3
c2=$(awk '{ print $14 }' "/proc/$FIXTURE_PID/task/$FIXTURE_PID/stat")
is "$c2" "$c1" "SIGSTOP while recording: the main thread uses no CPU time"
kill -CONT "$FIXTURE_PID"
wait "$REC_PID"
ok $? "SIGSTOP, SIGCONT: the recording ends well"
sleep 0.2
c1=$(awk '{ print $14 }' "/proc/$FIXTURE_PID/task/$FIXTURE_PID/stat")
sleep 0.3
c2=$(awk '{ print $14 }' "/proc/$FIXTURE_PID/task/$FIXTURE_PID/stat")
ok "$((c2 > c1 ? 0 : 1))" "SIGCONT: the process runs again after the recording (utime $c1 -> $c2)"
check_threads "$FIXTURE_PID" "SIGSTOP, SIGCONT: no thread is left stopped or traced"

# ---- a signal with a handler: passed on while recording ----
# SIGWINCH is ignored by default; SIGTERM kills: the recording ends with
# the process, its file written.
record_bg "$FIXTURE_PID" "$testdir/term.folded" --rate 200 --duration 30
wait_for 10 traced_by "$FIXTURE_PID" "$REC_PID"
sleep 0.3
kill -WINCH "$FIXTURE_PID"
# Sampled now and then, the thread is in a ptrace-stop (t) for a moment.
running() {
	[ "$(proc_state "$1")" = R ]
}
wait_for 2 running "$FIXTURE_PID"
ok $? "SIGWINCH while recording: passed on, ignored, the process runs ($(proc_state "$FIXTURE_PID"))"
kill -TERM "$FIXTURE_PID"
wait "$REC_PID"
ok $? "SIGTERM to the target: the recording ends with status 0"
like "$(cat "$REC_ERR")" "; process $FIXTURE_PID exited; wrote .*term\\.folded" "SIGTERM to the target: the summary says the process exited"
python3 "$CHECK" shares folded "$testdir/term.folded" hot cold >/dev/null
ok $? "SIGTERM to the target: the folded file parses"
wait "$FIXTURE_PID" 2>/dev/null
is "$?" 143 "SIGTERM to the target: it died of SIGTERM (passed on, not swallowed)"

# ---- the target exits by itself mid-recording ----
start_fixture "$HOTCOLD" exit 1500 || exit 1
t0=$(date +%s%N)
sg -p "$FIXTURE_PID" -- record --rate 500 --duration 30 -o "$testdir/exit.json"
t1=$(date +%s%N)
ok $STATUS "exit: the recording succeeds${ERR:+: $ERR}"
ok "$(((t1 - t0) < 10000000000 ? 0 : 1))" "exit: it ends with the process ($(((t1 - t0) / 1000000)) ms, not 30 s)"
like "$ERR" "process $FIXTURE_PID exited; wrote" "exit: the summary says the process exited"
shares "exit" speedscope "$testdir/exit.json" "$SRC_C" "$line"
wait "$FIXTURE_PID" 2>/dev/null
is "$?" 3 "exit: the fixture's own exit status (3) reached its parent"

# ---- new threads and exits while recording ----
# Each new thread lives 1 ms (linger): one that exits at once is alive
# at a tick only by luck, and the sanitizer build, on a machine busy with
# another test, sampled none in 8 s (CI).
start_fixture "$FIXTURES/sg-churn" threads 4 linger || exit 1
# The sanitizer build handles each clone event so slowly that in 1 s it
# sampled 0 to 2 of the short-lived threads (CI), and a loaded machine
# none in 4 s: it records longer.
churn_secs=1
ldd "$SG_BIN" 2>/dev/null | grep -q libasan && churn_secs=8
sg -p "$FIXTURE_PID" -- record --idle --rate 500 --duration "$churn_secs" -o "$testdir/churn.json"
ok $STATUS "churn: recording a process that starts and ends threads${ERR:+: $ERR}"
python3 "$CHECK" shares speedscope "$testdir/churn.json" hot cold >"$testdir/churn.j" 2>&1
ok $? "churn: the speedscope file parses"
n=$(jq -r '.threads | length' "$testdir/churn.j")
if held_long && [ "$n" -le 5 ]; then
	skip "churn: threads started during the recording are sampled ($n threads): too few ticks, as $HELD_WHY"
else
	ok "$((n > 5 ? 0 : 1))" "churn: threads started during the recording are sampled ($n threads)"
fi
check_threads "$FIXTURE_PID" "churn: no thread is left stopped or traced"
stop_fixture "$FIXTURE_PID"

# ---- a sampled native stack is live bt's ----
# Every thread of the bt fixtures is blocked: each has one stack, which
# --idle samples; it must be the one thread apply all bt prints.
for f in bt-c-O2 bt-cc-O2 bt-c-O2-nofp; do
	start_fixture "$FIXTURES/$f" || exit 1
	sg --json -p "$FIXTURE_PID" -ex 'thread apply all bt'
	live=$(tail -n 1 <<<"$OUT")
	sg -p "$FIXTURE_PID" -- record --idle --rate 100 --duration 0.3 -o "$testdir/$f.json"
	ok $STATUS "$f: record --idle${ERR:+: $ERR}"
	diffs=$(LIVE=$live python3 - "$testdir/$f.json" <<'EOF'
import collections, json, os, re, sys
live = {str(t["tid"]): [f.get("function") for f in t["frames"]]
        for t in json.loads(os.environ["LIVE"])["threads"]}
doc = json.load(open(sys.argv[1]))
frames = doc["shared"]["frames"]
bad = []
for prof in doc["profiles"]:
    tid = re.search(r"\((\d+)\)$", prof["name"]).group(1)
    c = collections.Counter(tuple(s) for s in prof["samples"])
    stack = [frames[i]["name"] for i in reversed(c.most_common(1)[0][0])]
    want = live.pop(tid, None)
    if want is None:
        bad.append("%s: not in bt" % tid)
        continue
    # A frame bt names by no function (a signal trampoline, a function
    # without a symbol) the profile names by its module: "libc.so.6+0x3c050".
    got = [None if w is None and re.match(r"^[^ ;]+\+0x[0-9a-f]+$", g) else g
           for g, w in zip(stack, want)]
    if len(stack) != len(want) or got != want:
        bad.append("%s: %s != %s" % (tid, ";".join(stack), ";".join(map(str, want))))
bad += ["%s: not sampled" % t for t in live]
print("\n".join(bad))
EOF
)
	is "$diffs" "" "$f: each thread's sampled stack is live bt's"
	check_threads "$FIXTURE_PID" "$f: no thread is left stopped or traced"
	stop_fixture "$FIXTURE_PID"
done

# ---- hostile targets ----
sg -p 999999999 -- record -o "$testdir/h.folded"
ok $((STATUS == 0)) "a pid that does not exist: non-zero status ($STATUS)"
is "$(wc -l <<<"$ERR")" 1 "a pid that does not exist: one error line ($ERR)"
start_fixture "$HOTCOLD" || exit 1
pid=$FIXTURE_PID
start_blocked_spyglass other
wait_for 10 attached "$pid"
sg -p "$pid" -- record --duration 1 -o "$testdir/h.folded"
ok $((STATUS == 0)) "a pid already traced: non-zero status ($STATUS)"
is "$(wc -l <<<"$ERR")" 1 "a pid already traced: one error line ($ERR)"
like "$ERR" 'already traced by process' "a pid already traced: says so"
echo quit >"$SG_FIFO"
wait "$SG_PID"
check_threads "$pid" "the fixture runs on after the other tracer quits"

# ---- the status line on a terminal ----
if command -v script >/dev/null; then
	script -qec "$(printf '%q ' "$SG_BIN" -nx -batch -p "$pid" -- record --rate 200 --duration 1 -o "$testdir/tty.folded")" \
		/dev/null >"$testdir/tty.out" 2>&1
	like "$(tr '\r' '\n' <"$testdir/tty.out")" 'recording: [0-9]+ samples, [0-9]+ Hz of 200, [0-9]+ missed, target stopped [0-9.]+% \(Ctrl-C ends\)' \
		"on a terminal: the status line"
	like "$(tr '\r' '\n' <"$testdir/tty.out")" 'record: [0-9]+ samples in 1\.' "on a terminal: then the summary"
else
	skip "no script(1): cannot test the status line on a terminal"
fi
stop_fixture "$pid"

# ---- Zeek: the layout fixture's hotcold mode, a 20-frame script stack ----
# recurse(0) calls the built-ins hot (line 11) and cold (line 12), 75% and
# 25% of the thread's CPU time.  A built-in has no file or line: the hot
# frame's place is its caller's, recurse at helpers.zeek:11.
for era in 81 30; do
	zk=$FIXTURES/zeek/sg-zeek-$era
	if [ ! -x "$zk" ]; then
		skip "no $zk (the Zeek layout fixture)"
		continue
	fi
	"$zk" hotcold "$testdir/zk.stack.$era" >/dev/null 2>"$testdir/zk.err" &
	zk_pid=$!
	fixture_pids+=("$zk_pid")
	if ! wait_for 20 test -s "$testdir/zk.stack.$era"; then
		ok 1 "Zeek $era: the hotcold fixture wrote no stack: $(cat "$testdir/zk.err")"
		stop_fixture "$zk_pid"
		continue
	fi
	# 200 Hz: a rate the sanitizer build keeps up with (at 500 Hz it took
	# 169 a second in CI, in bursts, and hot came out at 84%).
	sg -p "$zk_pid" -- record --stack zeek --rate 200 --duration 3 -o "$testdir/zk.folded"
	ok $STATUS "Zeek $era: record --stack zeek${ERR:+: $ERR}"
	shares "Zeek $era" folded "$testdir/zk.folded"
	is "$(jq -r '.depth >= 20' <<<"$LAST_SHARES")" true "Zeek $era: 20 script frames and more"
	# The fixture's own stack (hot on top), innermost first in its file.
	want=$(awk -F'\t' '{ n = $4 ? $1 " (" $3 ":" $4 ")" : $1; s = s ? n ";" s : n } END { print s }' "$testdir/zk.stack.$era")
	n=$(grep -cF -- "$want " "$testdir/zk.folded")
	is "$n" 1 "Zeek $era: the fixture's own stack, ...;recurse (helpers.zeek:11);hot, is recorded"
	n=$(grep -cE ';recurse \(/zeek/base/utils/helpers\.zeek:12\);cold [0-9]+$' "$testdir/zk.folded")
	is "$n" 1 "Zeek $era: cold is called from helpers.zeek:12"
	sg -p "$zk_pid" -- record --stack mixed --rate 300 --duration 1 -o "$testdir/zkm.pb.gz"
	ok $STATUS "Zeek $era: record --stack mixed${ERR:+: $ERR}"
	shares "Zeek $era mixed" pprof "$testdir/zkm.pb.gz"
	sg -p "$zk_pid" -- record --stack mixed --rate 300 --duration 1 -o "$testdir/zkm.folded"
	n=$(grep -cE '^[^(]*main;.*;zeek_init \(/zeek/share/site/fixture\.zeek:8\);.*;recurse \(/zeek/base/utils/helpers\.zeek:11\);([^;(]+;)*hot(;[^;]+)* [0-9]+$' "$testdir/zkm.folded")
	ok "$((n > 0 ? 0 : 1))" "Zeek $era mixed: native frames, then the script frames, hot and what it calls ($n stacks)"
	is "$(grep -cE 'ScriptFunc::Invoke|BroFunc::Call' "$testdir/zkm.folded")" 0 "Zeek $era mixed: no Invoke frame is left"
	check_threads "$zk_pid" "Zeek $era: the fixture runs on, untraced"
	stop_fixture "$zk_pid"
done

# ---- Python: pyenv's interpreters, as run-python.sh finds them ----
pyenv_root=
command -v pyenv >/dev/null && pyenv_root=$(pyenv root 2>/dev/null)
for d in "$pyenv_root" "$HOME/.pyenv" /root/.pyenv; do
	if [ -n "$d" ] && [ -d "$d/versions" ]; then
		pyenv_root=$d
		break
	fi
done
pys=()
for v in 3.8 3.11 3.12 3.13; do
	p=$(ls -d "$pyenv_root"/versions/$v.*/bin/python 2>/dev/null | sort -V | tail -1)
	if [ -n "$p" ] && [ -x "$p" ]; then
		pys+=("$p")
	else
		skip "Python $v: no pyenv interpreter in ${pyenv_root:-pyenv}/versions"
	fi
done
pyline=$(hot_line "$SRC_PY" HOT-LINE)
for py in ${pys[@]+"${pys[@]}"}; do
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	start_fixture "$py" "$SRC_PY" || continue
	sg -p "$FIXTURE_PID" -- record --stack python --rate 300 --duration 2 -o "$testdir/py.pb.gz"
	ok $STATUS "Python $v: record --stack python${ERR:+: $ERR}"
	# The loop's condition, the line above, calls clock() (a system
	# call); under load it can take as many samples as the loop's body,
	# and is as exact an answer: both lines are hot's.
	shares "Python $v" pprof "$testdir/py.pb.gz" "$SRC_PY" "$pyline" "$((pyline - 1))"
	like "$(jq -r '.depth' <<<"$LAST_SHARES")" '^(2[1-9]|[3-9][0-9])$' "Python $v: 20 Python frames and more"
	sg -p "$FIXTURE_PID" -- record --stack mixed --rate 300 --duration 1.5 -o "$testdir/mixed.folded"
	ok $STATUS "Python $v: record --stack mixed${ERR:+: $ERR}"
	shares "Python $v mixed" folded "$testdir/mixed.folded"
	n=$(grep -cE '^(_start;)?[^(]*;Py_RunMain;[^(]*;<module> \([^;]*hotcold\.py:[0-9]+\);(.*;)?main \([^;]*hotcold\.py:[0-9]+\);(.*;)?hot \([^;]*hotcold\.py:[0-9]+\)(;[^;(]+)* [0-9]+$' "$testdir/mixed.folded")
	ok "$((n > 0 ? 0 : 1))" "Python $v mixed: native frames (Py_RunMain), then <module>, main, ..., hot in place of the eval loop ($n stacks)"
	n=$(grep -c '_PyEval_EvalFrameDefault' "$testdir/mixed.folded")
	is "$n" 0 "Python $v mixed: no interpreter loop frame is left"
	sg -p "$FIXTURE_PID" -- record --stack python --nonblocking --rate 300 --duration 1.5 -o "$testdir/nb.json"
	ok $STATUS "Python $v: record --stack python --nonblocking${ERR:+: $ERR}"
	like "$ERR" 'target stopped 0\.000% of the time' "Python $v --nonblocking: the target is never stopped"
	shares "Python $v nonblocking" speedscope "$testdir/nb.json"
	check_threads "$FIXTURE_PID" "Python $v: the fixture runs on, untraced"
	stop_fixture "$FIXTURE_PID"
done

done_testing
