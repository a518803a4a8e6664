#!/bin/bash
# info scope against gdb on the same process, output byte for byte:
# tests/fixtures/sg-scope.c built by gcc (-O0, -O2, -O2 DWARF 4) and clang
# (-O0, -O2), every function and a set of lines, so that the symbols come
# with frame-base offsets (CFA-based: disassembled; register-based: gdb's
# phrase), registers, location lists (base-address entries, entry
# values, typed ops, pieces, implicit pointers, DW_LLE_*x forms),
# constants and constant bytes, static and thread-local storage, labels,
# block-scope externs, nested and inlined blocks in gdb's hashed order,
# and the unit's static and global blocks between two functions.  Then
# a program nobody here wrote: libpython's functions and lines, where
# one difference is allowed (see below).  Then errors, quoting and JSON.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb not installed: info scope has no oracle"
	done_testing
fi

# Each command's output in both tools, with a marker line before it;
# gdb's noise (attach chatter, auto-load warnings) left out.
run_both() {
	local pid=$1 c
	shift
	local args=()
	for c in "$@"; do
		args+=(-ex "echo (cmd) $c\n" -ex "$c")
	done
	GDB_OUT=$("$GDB" -nx -batch -p "$pid" "${args[@]}" 2>&1 |
		grep -vE '^\[(New LWP|New Thread|Thread debugging|Inferior)|^Using host libthread_db|^0x[0-9a-f]+ in |^warning: |^Download|^$|^Reading|^Attaching|^[0-9]+[[:space:]]+in |^(To enable execution|	add-auto-load|line to your|To completely|	set auto-load|For more information|"Auto-loading|	info "\(gdb\))')
	SG_OUT=$(timeout -k 5 300 "$SG_BIN" -nx -batch -p "$pid" "${args[@]}" 2>&1 | grep -vE '^$')
}

# The lines of command C's output in OUTPUT.
block_of() {
	printf '%s\n' "$1" | awk -v c="(cmd) $2" '$0 == c { on = 1; next } /^\(cmd\) / { on = 0 } on'
}

# compare_all LABEL FIXTURE PID CMD...: each command's listing in ALL_OURS
# and ALL_THEIRS the same; where gdb took another copy of the function
# (inlined ones: the listing has the function's own symbol; clones in
# the symbol table, "[clone .part.0]"; see the CPython part below), ours
# must be gdb's listing at the address we took, from our JSON.
compare_all() {
	local label=$1 fx=$2 pid=$3 c ours theirs f at
	shift 3
	for c in "$@"; do
		ours=$(block_of "$all_ours" "$c")
		theirs=$(block_of "$all_theirs" "$c")
		f=${c#info scope }
		f=${f#-function }
		f=${f//\'/}
		f=${f//\"/}
		f=${f##*:}
		f=${f%%(*}
		if [ "$ours" != "$theirs" ] &&
		   { printf '%s\n%s\n' "$ours" "$theirs" | grep -qE "Symbol \S*$f(\(.*\))? is a function at" ||
		     [ "$(nm -C "$fx" | grep -cF "$f(")" -gt 1 ]; }; then
			sg --json -p "$pid" -ex "$c"
			at=$(printf '%s\n' "$OUT" | sed -n 's/.*"pc":"\(0x[0-9a-f]*\)".*/\1/p')
			run_both "$pid" "info scope *$at"
			is "$(printf '%s\n' "$ours" | sed 1d)" \
			   "$(block_of "$GDB_OUT" "info scope *$at" | sed 1d)" \
			   "$label: $c: gdb took another copy; ours is gdb's listing at $at"
			continue
		fi
		is "$ours" "$theirs" "$label: $c"
	done
}

funcs=(main add noargs pieces manyvars vla outer regvar tls_local twice impl_ptr fp consts externs
	sq use sink)
lines=(34 36 38 55 57 66 68 69 79 86 94 117 121 141)

for v in gcc-O0 gcc-O2 gcc-O2-dwarf4 clang-O0 clang-O2; do
	fx=$FIXTURES/scope-$v
	if [ "$(head -c 2 "$fx")" = '#!' ]; then
		skip "$v: compiler not installed"
		continue
	fi
	cmds=()
	for f in "${funcs[@]}"; do
		cmds+=("info scope $f")
	done
	for l in "${lines[@]}"; do
		cmds+=("info scope sg-scope.c:$l")
	done
	# Between two functions: the unit's static block, then the global
	# one, each in gdb's hash order.
	cmds+=('info scope *noargs + 8' 'info scope *0' 'info scope main if n > 1' 'info scope manyvars, 3'
		"info scope 'regvar'" 'info scope "noargs"' 'info scope sg-scope.c:externs' 'info scope -function pieces'
		'info scope -source sg-scope.c -line 57')
	start_fixture "$fx" || exit 1
	pid=$FIXTURE_PID
	run_both "$pid" "${cmds[@]}"
	all_ours=$SG_OUT all_theirs=$GDB_OUT
	n=$(printf '%s\n' "$all_theirs" | grep -c '^Symbol ')
	ok $([ "$n" -gt 80 ]; echo $?) "$v: gdb listed $n symbols"
	compare_all "$v" "$fx" "$pid" "${cmds[@]}"
	stop_fixture "$pid"
done

# C++: gdb's linespecs for functions in namespaces, templates, anonymous
# namespaces, operator(), parameters, FILE:FUNCTION; inlined calls'
# blocks named with or without parameters as gdb names them.
for v in gcc-O0 gcc-O2 clang-O0 clang-O2; do
	fx=$FIXTURES/names-$v
	[ "$(head -c 2 "$fx")" = '#!' ] && continue
	cmds=()
	for f in work::hold hold deep::block 'work::deep::block(int)' 'Pool<int>::work' \
		'work::Pool<int>::work' 'Runner<long>::operator()' run_ptr \
		'(anonymous namespace)::run_ptr(int)' sg-names.cc:run_ptr sg-names.cc:work::nap \
		sink_result main_wait main; do
		cmds+=("info scope $f")
	done
	start_fixture "$fx" || exit 1
	pid=$FIXTURE_PID
	run_both "$pid" "${cmds[@]}"
	all_ours=$SG_OUT all_theirs=$GDB_OUT
	compare_all "names-$v" "$fx" "$pid" "${cmds[@]}"
	stop_fixture "$pid"
done

# info address describes a local's location in the same words, then a
# period; a thread-local global is at an offset in its module's block.
for v in gcc-O0 gcc-O2 clang-O2; do
	fx=$FIXTURES/scope-$v
	[ "$(head -c 2 "$fx")" = '#!' ] && continue
	cmds=('frame function main')
	for n in argc argv n k p bg counter tls_var main _start pause gvar; do
		cmds+=("info address $n")
	done
	start_fixture "$fx" || exit 1
	pid=$FIXTURE_PID
	run_both "$pid" "${cmds[@]}"
	stop_fixture "$pid"
	for c in "${cmds[@]:1}"; do
		is "$(block_of "$SG_OUT" "$c")" "$(block_of "$GDB_OUT" "$c")" "$v: $c"
	done
done

# Errors, as gdb words them (the fixture's gcc -O0 build).
fx=$FIXTURES/scope-gcc-O0
start_fixture "$fx" || exit 1
pid=$FIXTURE_PID
errs=('info scope' 'info scope nosuch' 'info scope main foo' 'info scope sg-scope.c:9999'
	'info scope nosuch.c:3' 'info scope *' 'info scope *nosuch' 'info scope sg-scope.c:3 foo'
	'info scope -foo' 'info scope -line' 'info scope -source sg-scope.c')
run_both "$pid" "${errs[@]}"
for c in "${errs[@]}"; do
	is "$(block_of "$SG_OUT" "$c")" "$(block_of "$GDB_OUT" "$c")" "error: $c"
done
sg -p "$pid" -ex 'info scope nosuch'
ok $([ "$STATUS" -ne 0 ]; echo $?) "an unknown function fails the batch"
# JSON: one object per symbol, the description without "Symbol X is".
sg --json -p "$pid" -ex 'info scope add'
ok $STATUS "info scope --json${ERR:+: $ERR}"
like "$OUT" '"scope":"add","symbols":\[\{"name":"a","description":"a complex DWARF expression:\\n     0: DW_OP_fbreg -52","length":4\}' \
	"JSON: the scope, and each symbol's name, description and length"
like "$OUT" '\{"name":"calls","description":"in static storage at address 0x[0-9a-f]+","length":4\}' \
	"JSON: a static local"
sg --json -p "$pid" -ex 'info scope noargs'
like "$OUT" '"scope":"noargs","symbols":\[\]' "JSON: a scope without symbols"
stop_fixture "$pid"

# CPython, a program nobody here wrote: Debian's debug build
# (python3.11d, which setup.sh installs) and pyenv's libpython3.8 where
# there is one: every 40th of its functions and every 23rd line of
# listobject.c.  gdb chooses among a function's copies (out-of-line, and
# inlined or static in several units, such as Py_TYPE) by the addresses
# of its own symbol objects; a difference where either side chose an
# inlined copy (its listing holds the function's own symbol), or
# where the symbol table has several functions of the name, is that, and
# is allowed for at most one command in 8.
foreign() {
	local name=$1 elf=$2 c ours theirs
	shift 2
	cmds=()
	while read -r c; do
		cmds+=("info scope $c")
	done < <(nm --defined-only "$elf" | awk '$2 ~ /^[Tt]$/ && $3 !~ /\./ { print $3 }' | sort |
		awk 'NR % 40 == 1')
	for c in $(seq 20 23 3300); do
		cmds+=("info scope listobject.c:$c")
	done
	start_fixture "$@" -c 'import time; print("ready", flush=True); time.sleep(600)' || return
	pid=$FIXTURE_PID
	run_both "$pid" "${cmds[@]}"
	stop_fixture "$pid"
	local same=0 copies=0 bad=0
	for c in "${cmds[@]}"; do
		ours=$(block_of "$SG_OUT" "$c")
		theirs=$(block_of "$GDB_OUT" "$c")
		if [ "$ours" = "$theirs" ]; then
			same=$((same + 1))
		elif printf '%s\n%s\n' "$ours" "$theirs" | grep -qF "Symbol ${c#info scope } is a function at" ||
		     [ "$(nm --defined-only "$elf" | awk -v f="${c#info scope }" '$3 == f' | wc -l)" -gt 1 ]; then
			copies=$((copies + 1))
			echo "# $name: $c: gdb and spyglass chose different copies of the function"
		else
			bad=$((bad + 1))
			is "$ours" "$theirs" "$name: $c"
		fi
	done
	echo "# $name: ${#cmds[@]} commands, $same the same, $copies another copy, $bad different"
	ok $([ "$bad" -eq 0 ]; echo $?) "$name: every listing as gdb's but for the copy chosen"
	ok $([ $((copies * 8)) -le "${#cmds[@]}" ]; echo $?) \
		"$name: at most one command in 8 chose another copy ($copies)"
	ok $([ "$(printf '%s\n' "$GDB_OUT" | grep -c '^Symbol ')" -gt 1000 ]; echo $?) \
		"$name: gdb listed over 1000 symbols"
}

if [ -x /usr/bin/python3.11d ]; then
	foreign python3.11d /usr/bin/python3.11d /usr/bin/python3.11d
else
	skip "no /usr/bin/python3.11d (python3.11-dbg): that comparison is not run"
fi
py=
for p in "${PYENV_ROOT:-/root/.pyenv}"/versions/3.8*/bin/python3.8; do
	[ -x "$p" ] && py=$p
done
if [ -n "$py" ] && [ -f "${py%/bin/python3.8}/lib/libpython3.8.so.1.0" ]; then
	foreign libpython3.8 "${py%/bin/python3.8}/lib/libpython3.8.so.1.0" "$py"
else
	skip "no pyenv Python 3.8 with libpython: that comparison is not run"
fi
done_testing
