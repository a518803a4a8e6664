#!/bin/bash
# Each source of the cpython plugin's offsets alone gives the same stacks:
# the interpreter's DWARF, the generated tables, and _Py_DebugOffsets
# (3.13+, with DWARF and tables both off); the per-build-ID cache gives
# them again without any of them; py-version names the source.
. "$top_srcdir/tests/test-subr.sh"

script=$top_srcdir/tests/python/hostile.py
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
unstable=${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}
export SPYGLASS_CACHE_DIR=$testdir/cache

start_py() {
	local fifo=$testdir/fifo.$((++fifo_runs))
	mkfifo "$fifo"
	"$1" "$script" "$2" "$fifo" 2>"$testdir/py.err" &
	PY_PID=$!
	fixture_pids+=("$PY_PID")
	timeout 30 head -n 1 "$fifo" >/dev/null
}

# py_bt SOURCES: the stack of thread 1 in JSON, and the source py-version
# names, with only SOURCES allowed.
py_bt() {
	SPYGLASS_PYTHON_OFFSETS=$1 "$SG_BIN" -nx -p "$PY_PID" --json -ex py-version \
		-- py-bt >"$testdir/out" 2>"$testdir/err"
	STACK=$(sed -n 2p "$testdir/out" | jq -c '[.threads[0].frames[] | [.function, .line]]' 2>/dev/null)
	SOURCE=$(sed -n 1p "$testdir/out" | jq -r '.offsets_from + (if .offsets_cached then " (cached)" else "" end)')
}

# The first line holding TEXT: where block(), outer(), outer2() and the
# module wait.
line_of() { grep -n -F -- "$1" "$script" | head -1 | cut -d: -f1; }
want="[[\"block\",$(line_of 'time.sleep(100000)')],[\"outer\",$(line_of '    block()')],[\"outer2\",$(line_of '    outer()')],[\"<module>\",$(grep -n '^outer2()' "$script" | cut -d: -f1)]]"

for dir in "$pyenv_root"/versions/*; do
	py=$dir/bin/python
	[ -x "$py" ] || continue
	v=$(basename "$dir")
	case $v in 2.7.*|3.*) ;; *) continue ;; esac
	start_py "$py" linetable_none || true
	# linetable_none is no mode of hostile.py's: it blocks unbroken.
	py_bt dwarf
	is "$STACK" "$want" "$v: the stack from DWARF alone"
	is "$SOURCE" "DWARF" "$v: py-version says DWARF"
	py_bt table
	is "$STACK" "$want" "$v: the same stack from the built-in table alone"
	like "$SOURCE" "^table ${v%.*}$" "$v: py-version names the table"
	case $v in
	3.13.*)
		py_bt debug-offsets
		is "$STACK" "$want" "$v: the same stack from _Py_DebugOffsets alone"
		is "$SOURCE" "_Py_DebugOffsets" "$v: py-version says _Py_DebugOffsets"
		;;
	esac
	py_bt cache,dwarf
	py_bt cache
	is "$STACK" "$want" "$v: the same stack from the cache alone, after a run that filled it"
	is "$SOURCE" "DWARF (cached)" "$v: py-version says the offsets were cached"
	stop_fixture "$PY_PID"
done

# Debian's stripped 3.11: the table without its debug file, DWARF with it
# (python3.11-dbg).
if [ -x /usr/bin/python3.11 ]; then
	start_py /usr/bin/python3.11 none
	py_bt table
	is "$STACK" "$want" "Debian python3.11: the stack from the built-in table"
	py_bt debug-offsets
	is "$(cat "$testdir/out")" '{"error":"no offsets for Python 3.11 in /usr/bin/python3.11: no DWARF, no built-in table"}
{"error":"no offsets for Python 3.11 in /usr/bin/python3.11: no DWARF, no built-in table"}' \
		"Debian python3.11 without DWARF or tables: each command says so in one line"
	stop_fixture "$PY_PID"
else
	skip "no /usr/bin/python3.11 (Debian's python3.11 package)"
fi

# Debian unstable's stripped release builds: _Py_DebugOffsets alone.
for v in 3.13 3.14 3.15; do
	py=$(awk -v t="$v" '$1 == t { print $2 }' "$unstable/pythons.txt" 2>/dev/null)
	if [ -z "$py" ] || [ ! -x "$py" ]; then
		skip "no CPython $v from Debian unstable in $unstable (tests/get-debian-pythons.sh)"
		continue
	fi
	start_py "$py" none
	py_bt debug-offsets
	is "$STACK" "$want" "Debian $v (stripped): the stack from _Py_DebugOffsets"
	is "$SOURCE" "_Py_DebugOffsets" "Debian $v: py-version says _Py_DebugOffsets"
	stop_fixture "$PY_PID"
done

# The anchor without symbols: the .PyRuntime section (3.10+), and the scan
# for _Py_DebugOffsets' cookie (3.13+), each alone (no cache, which would
# skip the search).
anchor() {	# anchor WAY PYTHON LABEL
	start_py "$2" none
	SPYGLASS_PYTHON_FIND=$1 SPYGLASS_PYTHON_OFFSETS=dwarf,debug-offsets,table \
		"$SG_BIN" -nx -p "$PY_PID" --json -ex py-version -- py-bt >"$testdir/out" 2>&1
	local how stack
	how=$(sed -n 1p "$testdir/out" | jq -r '.runtime_from' 2>/dev/null)
	stack=$(sed -n 2p "$testdir/out" | jq -c '[.threads[0].frames[] | [.function, .line]]' 2>/dev/null)
	is "$how" "$4" "$3: _PyRuntime found by $4 alone"
	is "$stack" "$want" "$3: the same stack through it"
	stop_fixture "$PY_PID"
}
for entry in "/usr/bin/python3.11:Debian 3.11" \
	"$(ls -d "$pyenv_root"/versions/3.10.*/bin/python 2>/dev/null | tail -1):pyenv 3.10" \
	"$(ls -d "$pyenv_root"/versions/3.13.*/bin/python 2>/dev/null | tail -1):pyenv 3.13" \
	"$(awk '$1 == "3.15" { print $2 }' "$unstable/pythons.txt" 2>/dev/null):Debian 3.15"; do
	py=${entry%%:*}
	label=${entry#*:}
	if [ -z "$py" ] || [ ! -x "$py" ]; then
		skip "$label: not installed (pyenv, python3.11 or tests/get-debian-pythons.sh)"
		continue
	fi
	anchor section "$py" "$label" "section .PyRuntime"
	case $label in
	*3.13|*3.15) anchor scan "$py" "$label" "scan for the _Py_DebugOffsets cookie" ;;
	esac
done

done_testing
