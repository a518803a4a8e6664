#!/bin/bash
# Stop, copy, resume (a batch run's default, --snapshot): a batch run whose
# commands need only the stacks copies them (and what they and the
# registers point to) and lets the process run before the commands run.
# Runtime stacks too: py-bt and bt --python on every pyenv CPython, zeek-bt
# and bt --zeek on the Zeek fixture, with the pauses printed.
# Their output must be the live run's, byte for byte: "thread apply all bt"
# on every native backtrace fixture (C and C++, -O0/-O2, without frame
# pointers, stripped; threads in a signal handler, in a deep recursion),
# "info threads", "bt" with the frame-pointer unwinder.  The process must
# run on while the commands run, never be left stopped or traced, and the
# pause must be reported.  Commands that need more than the stacks keep
# the process stopped as --no-snapshot does.
. "$top_srcdir/tests/test-subr.sh"

# The same commands, live (--no-snapshot) and from a snapshot
# (--snapshot), on the running fixture.
same_as_live() {
	local what=$1
	shift
	sg -p "$FIXTURE_PID" --no-snapshot "$@"
	local live=$OUT live_status=$STATUS
	sg -p "$FIXTURE_PID" --snapshot --stats "$@"
	is "$OUT" "$live" "$what: as live"
	is "$STATUS" "$live_status" "$what: the same exit status ($live_status)"
}

for f in bt-c-O0 bt-c-O2 bt-c-O2-nofp bt-c-stripped bt-cc-O0 bt-cc-O2; do
	start_fixture "$FIXTURES/$f" || exit 1
	same_as_live "$f: thread apply all bt" -ex 'thread apply all bt'
	like "$ERR" "stats: threads=[0-9]+ .*paused_us=[0-9.]+" "$f: the pause is reported"
	same_as_live "$f: info threads, then bt -u fp" -ex 'info threads' -ex 'bt -u fp'
	check_running "$FIXTURE_PID" "$f is left running"
	stop_fixture "$FIXTURE_PID"
done

# Every other native fixture that waits once ready, as the test makefiles
# build them: C and C++ arguments that typed readers summarise (a list
# referred to from the stack: its first nodes are copied through their
# links), references to unmapped memory (a fault, as live), clang and
# GCC, -O0 to -Os, DWARF 4 and 5, no DWARF.
for f in frames-clang-O2-fp-pie frames-gcc-O2-fp-nopie frames-gcc-Os-fp-pie frames-gcc-Os-nofp-pie \
	locations-clang-nopie locations-clang-pie locations-dw5-O0 locations-dw5-O2 locations-gcc-nopie \
	locations-gcc-pie locations-typed-O1 locations-typed-O2 names-clang-O0 names-clang-O2 \
	names-gcc-O0 names-gcc-O2 names-gcc-O2-nodebug sg-badstack sg-big sg-big-libcxx sg-cxx sg-data \
	sg-data-dwarf4 sg-entry sg-gcore sg-iter sg-iter-debug sg-layout sg-locals sg-locals-O2 \
	sg-lsx-extra sg-lsx-extra-debug sg-parity sg-parity-c sg-parity-c-O2 sg-parity-c-clang \
	sg-prompt sg-prompt-O2 sg-ptype sg-sigtramp-O0 sg-stl sg-stl-cow sg-symbols sg-threads \
	sg-typeprint sg-typeprint-decl sg-values-c sg-values-cc sg-values-cc-O2 sg-values-cc-clang \
	sg-values-const-clang sg-values-const-gcc varlist-clang-O2 varlist-gcc-O2 varlist-tmpl-gcc-O0; do
	if [ ! -x "$FIXTURES/$f" ]; then
		skip "no fixture $FIXTURES/$f (not built)"
		continue
	fi
	start_fixture "$FIXTURES/$f" || { ok 1 "$f: the fixture starts"; continue; }
	same_as_live "$f: thread apply all bt" -ex 'thread apply all bt'
	stop_fixture "$FIXTURE_PID"
done

# Arguments pointing to the heap and to .data: what the stacks and the
# registers point to is copied.  A signal handler running on an alternate
# stack: the stack it interrupted is found through the signal frame and
# copied too.
start_fixture "$FIXTURES/sg-snapheap" || exit 1
same_as_live "sg-snapheap: bt (heap and .data strings)" -ex 'bt'
like "$OUT" 'heap_msg=0x[0-9a-f]+ "a string on the heap", data=0x[0-9a-f]+ <data_msg> "a string in .data"' \
	"sg-snapheap: both strings are printed"
check_running "$FIXTURE_PID" "sg-snapheap is left running"
stop_fixture "$FIXTURE_PID"
start_fixture "$FIXTURES/sg-sigtramp-O2" || exit 1
same_as_live "sg-sigtramp-O2: thread apply all bt (a handler on a sigaltstack)" -ex 'thread apply all bt'
check_running "$FIXTURE_PID" "sg-sigtramp-O2 is left running"
stop_fixture "$FIXTURE_PID"

# A stack far deeper than a few pages: all of the part in use is copied.
start_fixture "$FIXTURES/sg-deep" 20000 || exit 1
same_as_live "sg-deep (20000 frames): bt" -ex 'bt'
like "$OUT" "#20000 .* in dive " "sg-deep: the outermost dive frame is there"
check_running "$FIXTURE_PID" "sg-deep is left running"
stop_fixture "$FIXTURE_PID"

# The process runs while the commands run: sampled in the middle of a long
# run of backtraces it is not traced; killed there, the rest of the
# backtraces are the same.
start_fixture "$FIXTURES/bt-c-O2" || exit 1
cmds=()
for i in $(seq 40); do cmds+=(-ex 'thread apply all bt'); done
"$SG_BIN" -nx -batch -p "$FIXTURE_PID" --no-snapshot "${cmds[@]}" >"$testdir/live.out" 2>&1
"$SG_BIN" -nx -batch -p "$FIXTURE_PID" --snapshot "${cmds[@]}" >"$testdir/long.out" 2>"$testdir/long.err" &
sgpid=$!
# Once backtraces are printed (after the release), while spyglass still
# runs: untraced; then killed.
tracer=
for i in $(seq 2000); do
	kill -0 "$sgpid" 2>/dev/null || break
	if [ -s "$testdir/long.out" ]; then
		tracer=$(tracer_of "$FIXTURE_PID")
		kill -0 "$sgpid" 2>/dev/null || tracer=
		[ -n "$tracer" ] && stop_fixture "$FIXTURE_PID"
		break
	fi
	sleep 0.002
done
wait "$sgpid"
status=$?
if [ -z "$tracer" ]; then
	skip "spyglass ended before the process could be seen running (a fast machine)"
	skip "(the rest of its backtraces)"
else
	is "$tracer" 0 "while the backtraces are printed the process is not traced"
	if cmp -s "$testdir/live.out" "$testdir/long.out" && [ "$status" = 0 ]; then
		ok 0 "killed meanwhile, the 40 backtraces are the live ones"
	else
		ok 1 "killed meanwhile, the 40 backtraces are the live ones (status $status)"
		diff "$testdir/live.out" "$testdir/long.out" | head -20 | sed 's/^/#   /'
	fi
fi
stop_fixture "$FIXTURE_PID"

# The release is decided by the commands' flags: bt, thread apply all bt
# and info threads run from the snapshot (info target says so), print and
# bt full do not; nor does a typo.
start_fixture "$FIXTURES/bt-c-O2" || exit 1
sg -p "$FIXTURE_PID" --snapshot -ex 'thread apply all bt 3' -ex 'bt -u fp' -ex 'info threads' -ex 'info target'
like "$OUT" "A snapshot of process $FIXTURE_PID \(.*\): [0-9]+ bytes copied; the process runs on" \
	"bt, thread apply all bt N, info threads: released before them"
for cmds in "bt full" "thread apply all bt full" "print 1" "bt fulll"; do
	sg -p "$FIXTURE_PID" --snapshot -ex 'info target' -ex "$cmds"
	like "$OUT" "Attached to process $FIXTURE_PID \(.*\), stopped\." "$cmds: keeps the process stopped"
done
# A batch run does this without --snapshot when the commands unwind
# native stacks; commands that unwind none (info threads) stay on the
# stopped process, whose stop the copy would not shorten.  --no-snapshot
# keeps the process stopped to the end, and the last of the two options
# wins.
sg -p "$FIXTURE_PID" -ex 'thread apply all bt 3' -ex 'info target'
like "$OUT" "A snapshot of process $FIXTURE_PID \(.*\): [0-9]+ bytes copied; the process runs on" \
	"a batch run without --snapshot: released before the commands"
sg -p "$FIXTURE_PID" -ex 'info threads' -ex 'info target'
like "$OUT" "Attached to process $FIXTURE_PID \(.*\), stopped\." \
	"a batch run of info threads alone: not released without --snapshot"
sg -p "$FIXTURE_PID" -ex 'info threads' -ex 'bt 1' -ex 'info target'
like "$OUT" "A snapshot of process $FIXTURE_PID " "info threads, then a bt: released before both"
sg -p "$FIXTURE_PID" --no-snapshot -ex 'thread apply all bt 3' -ex 'info target'
like "$OUT" "Attached to process $FIXTURE_PID \(.*\), stopped\." "--no-snapshot: keeps the process stopped"
sg -p "$FIXTURE_PID" --no-snapshot --snapshot -ex 'info target'
like "$OUT" "A snapshot of process $FIXTURE_PID " "--no-snapshot --snapshot: the last one wins"
sg -p "$FIXTURE_PID" --snapshot --no-snapshot -ex 'info target'
like "$OUT" "Attached to process $FIXTURE_PID \(.*\), stopped\." "--snapshot --no-snapshot: the last one wins"
# Settings that make frames print more of their arguments than a
# snapshot keeps (256 bytes at each pointer) keep the bt and info threads
# live, with --snapshot too; at 255 elements they still copy.
for set in 'set print elements unlimited' 'set print elements 256' 'set print frame-arguments all'; do
	for cmd in 'thread apply all bt 3' 'info threads'; do
		sg -p "$FIXTURE_PID" --snapshot -ex "$set" -ex 'info target' -ex "$cmd"
		like "$OUT" "Attached to process $FIXTURE_PID \(.*\), stopped\." "$set; $cmd: stays live"
	done
done
sg -p "$FIXTURE_PID" -ex 'set print elements 255' -ex 'info target' -ex 'thread apply all bt 3'
like "$OUT" "A snapshot of process $FIXTURE_PID " "set print elements 255; thread apply all bt 3: from a snapshot"
"$SG_BIN" -nx -p "$FIXTURE_PID" --snapshot -- info target >"$testdir/dd.out" 2>&1
like "$(cat "$testdir/dd.out")" "A snapshot of process $FIXTURE_PID " "-p PID --snapshot -- CMD: released too"
stop_fixture "$FIXTURE_PID"

# Memory that no stack or register points to is not in the snapshot: the
# error says so, at the prompt with "set snapshot on", and with
# --snapshot; the process runs on meanwhile.  A full backtrace reads only
# what bt does here, all of it copied.
start_fixture "$FIXTURES/sg-snapheap" || exit 1
pid=$FIXTURE_PID
prompt() {
	OUT=$(printf '%s\n' "$@" | timeout -k 5 60 "$SG_BIN" -nx 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}
prompt 'show snapshot' 'set snapshot on' 'show snapshot' "attach $pid" 'info target' \
	'print g_big[1000]' 'frame 1' 'print *p' 'print heap_msg'
is "$(sed -n 1,2p <<<"$OUT")" "Taking a snapshot at attach (stop, copy, resume) is off.
Taking a snapshot at attach (stop, copy, resume) is on." "show snapshot: off, then on"
like "$OUT" "Took a snapshot of process $pid \([0-9]+ bytes copied, paused [0-9.]+ ms\); the process runs on\." \
	"set snapshot on: attach takes a snapshot"
like "$OUT" "A snapshot of process $pid \(.*sg-snapheap\): [0-9]+ bytes copied" "info target: a snapshot"
like "$ERR" "^stdin:6: not in the snapshot of process $pid: cannot read [0-9]+ bytes? at 0x[0-9a-f]+\$" \
	"print of a heap buffer nothing points to: not in the snapshot"
like "$OUT" $'\n\\$1 = \\{x = 1, y = 2\\}\n\\$2 = 0x[0-9a-f]+ "a string on the heap"$' \
	"what the stacks point to is there"
check_running "$pid" "sg-snapheap runs after a snapshot at the prompt"
# --snapshot at the prompt (no -batch): the snapshot is taken at once.
OUT=$(printf 'print g_big[1000]\nbt full\n' | timeout -k 5 60 "$SG_BIN" -nx -p "$pid" --snapshot 2>"$testdir/stderr")
ERR=$(cat "$testdir/stderr")
like "$ERR" "^stdin:1: not in the snapshot of process $pid: " "-p PID --snapshot at the prompt: from the snapshot"
sg -p "$pid" -ex 'bt full'
is "$(printf 'bt full\n' | "$SG_BIN" -nx -p "$pid" --snapshot 2>&1)" "$OUT" "bt full from the snapshot: as live"
# Killed after the snapshot: reads still come from the copy, or fail.
prompt 'set snapshot on' "attach $pid" 'shell kill -9 '"$pid" 'bt 2' 'print g_big[0]' 'info threads'
like "$OUT" $'\n#1  0x[0-9a-f]+ in leaf \\(heap_msg=0x[0-9a-f]+ "a string on the heap"' \
	"the process killed after the snapshot: bt still answers"
like "$ERR" "not in the snapshot of process $pid" "the process killed: print says not in the snapshot"
wait "$pid" 2>/dev/null

# ---- runtime stacks: py-bt, zeek-bt, bt --python, bt --zeek ------------

# paused_us MEDIAN_OF ARGS...: the median pause (--stats) of 5 runs.
paused_us() {
	local i p=()
	for i in 1 2 3 4 5; do
		sg --stats "$@"
		p+=("$(sed -n 's/^stats: .*paused_us=\([0-9.]*\).*/\1/p' <<<"$ERR")")
	done
	printf '%s\n' "${p[@]}" | sort -g | sed -n 3p
}
# report_pause WHAT CMD: the pause of CMD live and from a snapshot.
report_pause() {
	local live snap
	live=$(paused_us -p "$FIXTURE_PID" --no-snapshot -ex "$2")
	snap=$(paused_us -p "$FIXTURE_PID" --snapshot -ex "$2")
	echo "# pause: $1: $2: live ${live} us, --snapshot ${snap} us (median of 5)"
}
# released WHAT CMD...: with --snapshot the process was let go before CMD.
released() {
	local what=$1
	shift
	sg -p "$FIXTURE_PID" --snapshot "$@" -ex 'info target'
	like "$OUT" "A snapshot of process $FIXTURE_PID " "$what: from a snapshot"
}

# A Python program whose threads wait in known calls: recursions 0 to 50
# deep, methods, a generator; with "spin", one more thread runs Python
# code all along.  Runs on 2.7 and 3.x.
pyfix=$testdir/snap-threads.py
cat >"$pyfix" <<'PY'
import os, sys, threading, time
def leaf(n):
    time.sleep(100000)
def rec(n):
    if n:
        return rec(n - 1)
    return leaf(n)
class Worker(object):
    def run(self, depth):
        rec(depth)
def gen():
    yield time.sleep(100000)
def spin():
    x = 0
    while True:
        x += 1
threads = [threading.Thread(target=Worker().run, args=(10 * i,)) for i in range(3)]
threads.append(threading.Thread(target=lambda: list(gen())))
if sys.argv[1:] == ["spin"]:
    threads.append(threading.Thread(target=spin))
for t in threads:
    t.daemon = True
    t.start()
time.sleep(0.3)
sys.stdout.write("ready %d\n" % os.getpid())
sys.stdout.flush()
rec(50)
PY

pyenv_root=
command -v pyenv >/dev/null && pyenv_root=$(pyenv root 2>/dev/null)
for d in "$pyenv_root" "$HOME/.pyenv" /root/.pyenv; do
	if [ -n "$d" ] && [ -d "$d/versions" ]; then
		pyenv_root=$d
		break
	fi
done
# pyenv's, Debian's stripped 3.11 (built-in tables), those listed in
# pythons.txt (debug builds, 3.14, 3.15), as run-python.sh finds them.
pythons=$(ls -d "$pyenv_root"/versions/*/bin/python 2>/dev/null | sort -V)
[ -x /usr/bin/python3.11 ] && pythons+=" /usr/bin/python3.11"
pythons_txt=${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}/pythons.txt
if [ -r "$pythons_txt" ]; then
	while read -r ver path _; do
		case $ver in '' | '#'*) continue ;; esac
		[ -x "$path" ] && pythons+=" $path"
	done <"$pythons_txt"
else
	echo "# no $pythons_txt: pyenv's and /usr/bin's interpreters only"
fi
if [ -z "$pythons" ]; then
	skip "no CPython interpreters (looked in ${pyenv_root:-pyenv}/versions, /usr/bin/python3.11, $pythons_txt): py-bt from a snapshot not checked"
elif ! "$SG_BIN" -nx -batch -ex 'help py-bt' >/dev/null 2>&1; then
	skip "the cpython plugin is not loaded: py-bt from a snapshot not checked"
	pythons=
fi
have_313=
for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d.%d%s" % (sys.version_info[:2] + (hasattr(sys, "gettotalrefcount") and "d" or "",)))')
	case $py in /usr/bin/*) v+=" ($py, stripped)" ;; /opt/*) v+=" ($py)" ;; esac
	case $v in 3.13*) have_313=1 ;; esac
	start_fixture "$py" "$pyfix" || { ok 1 "python $v: the fixture starts"; continue; }
	same_as_live "python $v: py-bt" -ex py-bt
	like "$OUT" "#50 rec at " "python $v: the 51-frame stack is there"
	same_as_live "python $v: thread apply all bt --python" -ex 'thread apply all bt --python'
	released "python $v: py-bt, bt --python" -ex py-bt -ex 'bt --python'
	# Memory the providers did not read: py-locals reads values; from
	# a snapshot taken at the prompt it says what is missing, or prints
	# what was kept, and does not crash.
	OUT=$(printf 'set snapshot on\nattach %d\npy-locals\npy-bt 1\n' "$FIXTURE_PID" |
		timeout -k 5 60 "$SG_BIN" -nx 2>"$testdir/stderr")
	STATUS=$?
	ok $((STATUS > 1)) "python $v: py-locals from a snapshot ends normally (status $STATUS)"
	like "$OUT" "#0  leaf at " "python $v: py-bt 1 after it"
	report_pause "python $v" py-bt
	check_running "$FIXTURE_PID" "python $v: left running"
	stop_fixture "$FIXTURE_PID"
	# A thread that runs all along: live and from the snapshot of the
	# same stop, the same text (the release comes after print).
	start_fixture "$py" "$pyfix" spin || { ok 1 "python $v: the spinning fixture starts"; continue; }
	sg -p "$FIXTURE_PID" --snapshot -ex py-bt -ex 'echo ----\n' -ex py-bt -ex 'info target'
	is "$(sed -n '/^----$/,$p' <<<"$OUT" | sed '1d;$d' | sed '$d')" "$(sed '/^----$/,$d' <<<"$OUT")" \
		"python $v: a thread running Python: py-bt of the same stop, live and from the snapshot"
	like "$OUT" "A snapshot of process $FIXTURE_PID " "python $v: the second py-bt ran from the snapshot"
	stop_fixture "$FIXTURE_PID"
done
[ -n "$pythons" ] && [ -z "$have_313" ] && skip "no CPython 3.13 in ${pyenv_root:-pyenv}/versions"

zk=$FIXTURES/zeek
for bin in sg-zeek-81 sg-zeek-81-stripped sg-zeek-40; do
	if [ ! -x "$zk/$bin" ]; then
		skip "no fixture $zk/$bin: zeek-bt from a snapshot not checked"
		continue
	fi
	stack=$testdir/zk.$bin
	rm -f "$stack"
	"$zk/$bin" stack "$stack" >/dev/null 2>&1 &
	FIXTURE_PID=$!
	fixture_pids+=("$FIXTURE_PID")
	wait_for 20 test -e "$stack" || { ok 1 "$bin: the fixture writes its stack"; continue; }
	same_as_live "$bin: zeek-bt" -ex zeek-bt
	like "$OUT" "^#0 " "$bin: zeek-bt prints frames"
	same_as_live "$bin: bt --zeek" -ex 'bt --zeek'
	released "$bin: zeek-bt, bt --zeek" -ex zeek-bt -ex 'bt --zeek'
	report_pause "$bin" zeek-bt
	check_running "$FIXTURE_PID" "$bin: left running"
	stop_fixture "$FIXTURE_PID"
done

# Commands that need live memory keep the process stopped as before: bt full
# reads locals, print reads globals.
start_fixture "$FIXTURES/bt-c-O0" || exit 1
same_as_live "bt-c-O0: thread apply all bt full (not a snapshot)" -ex 'thread apply all bt full'
same_as_live "bt-c-O0: bt, then print (not a snapshot)" -ex 'bt' -ex 'print 1 + 1'
check_running "$FIXTURE_PID" "bt-c-O0 is left running"
stop_fixture "$FIXTURE_PID"

done_testing
