#!/bin/bash
# The cpython plugin on broken input: a frame chain made to loop or to
# point at unmapped memory through ctypes, a code object with a garbage
# line table, a process that is not Python, and a libpython whose
# interpreter is not running (before Py_Initialize, after Py_Finalize).
# Each gives the frames that could be read and one clear error line, or one
# error line and a non-zero exit; never a crash, a hang or a target left
# stopped.
. "$top_srcdir/tests/test-subr.sh"

script=$top_srcdir/tests/python/hostile.py
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
unstable=${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}
export SPYGLASS_CACHE_DIR=$testdir/cache

# The lines the frames stop at, from the script itself.
line_of() { grep -n -F -- "$1" "$script" | head -1 | cut -d: -f1; }
l_block=$(line_of 'time.sleep(100000)')
l_outer=$(line_of '    block()')
l_outer2=$(line_of '    outer()')

# start_py PYTHON MODE: the fixture, waited for through a FIFO.
start_py() {
	local fifo=$testdir/fifo.$((++fifo_runs))
	mkfifo "$fifo"
	"$1" "$script" "$2" "$fifo" 2>"$testdir/py.err" &
	PY_PID=$!
	fixture_pids+=("$PY_PID")
	if ! timeout 30 head -n 1 "$fifo" >/dev/null; then
		echo "# $1 $2 did not become ready:"
		sed 's/^/#   /' "$testdir/py.err"
		return 1
	fi
	wait_sleeping "$PY_PID"
	return 0
}

# frames TEXT: "#N function:line" per frame line of py-bt's text.
frames() {
	printf '%s\n' "$1" | sed -nE 's/^#([0-9]+) +([^ ]+) at [^:]*(:([0-9]+))?$/#\1 \2:\4/p'
}

not_stopped() {
	local s
	s=$(proc_state "$1")
	[ "$s" != T ] && [ "$s" != t ]
}

interpreters=()
for v in 2.7 3.6 3.10 3.11 3.12 3.13; do
	py=$(ls -d "$pyenv_root"/versions/"$v".*/bin/python 2>/dev/null | tail -1)
	if [ -n "$py" ]; then
		interpreters+=("$v:$py")
	else
		skip "no CPython $v under $pyenv_root/versions"
	fi
done
for v in 3.14 3.15; do
	py=$(awk -v t="$v" '$1 == t { print $2 }' "$unstable/pythons.txt" 2>/dev/null)
	if [ -n "$py" ] && [ -x "$py" ]; then
		interpreters+=("$v:$py")
	else
		skip "no CPython $v from Debian unstable in $unstable (tests/get-debian-pythons.sh)"
	fi
done
[ -x /usr/bin/python3.11 ] && interpreters+=("3.11-debian:/usr/bin/python3.11")

for entry in "${interpreters[@]}"; do
	v=${entry%%:*}
	py=${entry#*:}
	unset SPYGLASS_PYTHON_OFFSETS
	# Debian's stripped build through the built-in table alone.
	[ "$v" = 3.11-debian ] && export SPYGLASS_PYTHON_OFFSETS=table

	if start_py "$py" loop; then
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" -- py-bt 2>&1)
		st=$?
		is "$(frames "$out")" "#0 block:$l_block
#1 outer:$l_outer
#2 outer2:$l_outer2" "$v: a looping frame chain shows the frames before the loop"
		like "$out" '^    <error: the frame chain loops at 0x[0-9a-f]+>$' \
			"$v: then says the chain loops"
		is "$st" 0 "$v: and py-bt still succeeds, as bt after a corrupt frame"
		not_stopped "$PY_PID"
		ok $? "$v: the target is not left stopped"
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py loop started"
	fi

	if start_py "$py" garbage; then
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" -- py-bt 2>&1)
		is "$(frames "$out")" "#0 block:$l_block
#1 outer:$l_outer" "$v: a caller link into unmapped memory ends the stack after the good frames"
		like "$out" '^    <error: Python frame at 0x10: cannot read [0-9]+ bytes? at 0x[0-9a-f]+: Bad address>$' \
			"$v: with one line naming the bad frame"
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py garbage started"
	fi

	if start_py "$py" linetable; then
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" --json -- py-bt 2>&1)
		st=$?
		got=$(printf '%s' "$out" | jq -r '.threads[0].frames[] | .function' 2>&1 | tr '\n' ' ')
		is "$got" "block outer outer2 <module> " \
			"$v: a garbage line table costs the frame its line, not the stack"
		is "$st" 0 "$v: py-bt succeeds on the garbage line table"
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py linetable started"
	fi
	if start_py "$py" threadloop; then
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" -- py-bt 2>&1)
		st=$?
		like "$out" '^cannot read the thread list: the thread list loops at 0x[0-9a-f]+$' \
			"$v: a looping thread list: one line"
		[ "$st" -ne 0 ]
		ok $? "$v: a looping thread list: non-zero exit"
		not_stopped "$PY_PID"
		ok $? "$v: a looping thread list: the target is not left stopped"
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py threadloop started"
	fi

	# One corrupt set behind 2000 locals: one read budget for the
	# command, not a million reads per value.
	if start_py "$py" budget; then
		out=$(timeout 60 "$SG_BIN" -nx -p "$PY_PID" --stats -ex 'py-locals 1' 2>&1)
		st=$?
		like "$out" 'too many reads: the objects look corrupt' \
			"$v: 2000 locals sharing a corrupt set: py-locals stops at its read budget"
		paused=$(printf '%s\n' "$out" | sed -n 's/.*paused_us=\([0-9]*\).*/\1/p')
		if wrapped; then
			skip_wrapped "$v: the 5 s pause (${paused:-?} us)"
		else
			[ "$st" -ne 124 ] && [ -n "$paused" ] && [ "$paused" -lt 5000000 ]
			ok $? "$v: and keeps the target stopped under 5 s (${paused:-?} us)"
		fi
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py budget started"
	fi

	# A collection that runs a finalizer which blocks (3.4+ runs the
	# finalizers of cycles; 3.6 keeps its gc state in a static variable
	# that no table locates).
	case $v in 2.7|3.6) continue ;; esac
	if start_py "$py" gc; then
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" -- py-bt 2>&1)
		like "$out" '^A garbage collection is running\.$' "$v: py-bt says a garbage collection is running"
		is "$(frames "$out" | sed 's/:.*//')" "#0 block
#1 $( [[ $v == 3.1[1-9]* ]] && echo Cycle.__del__ || echo __del__)
#2 <module>" "$v: the finalizer's frames under gc.collect()"
		out=$(timeout 30 "$SG_BIN" -nx -p "$PY_PID" --json -- py-bt 2>&1)
		is "$(jq -r '.threads[0].gc_running' <<<"$out")" true "$v: JSON: gc_running is true"
		stop_fixture "$PY_PID"
	else
		ok 1 "$v: hostile.py gc started"
	fi
done
unset SPYGLASS_PYTHON_OFFSETS

# Not Python at all: one line, non-zero, the target left running.
sleep 600 &
pid=$!
fixture_pids+=("$pid")
wait_for 5 test -e "/proc/$pid/exe"
out=$("$SG_BIN" -nx -p "$pid" -- py-bt 2>&1)
st=$?
is "$out" "no Python interpreter in this process (no _PyRuntime, interp_head or libpython)" \
	"a process that is not Python: one clear line"
[ "$st" -ne 0 ]
ok $? "a process that is not Python: non-zero exit ($st)"
not_stopped "$pid"
ok $? "a process that is not Python is left running"
out=$("$SG_BIN" -nx -p "$pid" --json -- py-version 2>&1)
is "$out" '{"error":"no Python interpreter in this process (no _PyRuntime, interp_head or libpython)"}' \
	"py-version in JSON says the same"
stop_fixture "$pid"

# libpython loaded, the interpreter not running.
lifecycle=$testdir/py-lifecycle
if ! ${CC:-cc} -O0 -g -o "$lifecycle" "$top_srcdir/tests/fixtures/py-lifecycle.c" -ldl; then
	ok 1 "py-lifecycle.c builds"
else
	for v in 2.7 3.11 3.13; do
		lib=$(ls "$pyenv_root"/versions/"$v".*/lib/libpython"$v"*.so.1.0 2>/dev/null | tail -1)
		if [ -z "$lib" ]; then
			skip "no libpython$v under $pyenv_root/versions"
			continue
		fi
		for when in before after; do
			fifo=$testdir/fifo.$((++fifo_runs))
			mkfifo "$fifo"
			"$lifecycle" "$lib" "$when" "$fifo" &
			pid=$!
			fixture_pids+=("$pid")
			timeout 30 head -n 1 "$fifo" >/dev/null
			out=$("$SG_BIN" -nx -p "$pid" -- py-bt 2>&1)
			st=$?
			is "$out" "Python is not running yet, or has finalized: no interpreter" \
				"libpython$v $when its interpreter runs: one clear line"
			[ "$st" -ne 0 ]
			ok $? "libpython$v $when its interpreter runs: non-zero exit"
			not_stopped "$pid"
			ok $? "libpython$v $when its interpreter runs: left running"
			stop_fixture "$pid"
		done
	done
fi

done_testing
