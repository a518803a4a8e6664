#!/bin/bash
# info functions, info variables and info types against gdb on the same
# process and on a core of it.
#
# - C (sg-data) and C++ (sg-cxx), live: spyglass's text is gdb's, byte for
#   byte, for name regexps that reach the fixture's own symbols, libc's
#   (its DWARF from libc6-dbg: "^__libc_m", whose functions gdb names by
#   their linkage names) and the ELF symbols no DWARF describes (the
#   "Non-debugging symbols", PLT entries among them); -q, -n, -t and no
#   regexp;
# - --json, read with jq: each symbol's file, line, name and declaration,
#   against gdb's text;
# - gdb's gcore of the C fixture: the same text as live;
# - errors with a non-zero status: an unknown option, -t without its
#   argument, a regexp that does not compile, no target.
. "$top_srcdir/tests/test-subr.sh"

C_EXE=$FIXTURES/sg-data
CXX_EXE=$FIXTURES/sg-cxx

between() {
	sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d'
}

# gdb_on ARGS... -- CMD: gdb's stdout for CMD (on -p PID or -c CORE EXE).
gdb_on() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	GDB_OUT=$(timeout -k 5 120 "$GDB" -nx -batch "${args[@]}" -ex 'echo @@begin@@\n' \
		-ex "$2" -ex 'echo @@end@@\n' 2>/dev/null | between)
}

# compare WHAT CMD ARGS...: spyglass's and gdb's text for CMD on ARGS.
compare() {
	local what=$1 cmd=$2
	shift 2
	sg "$@" -ex "$cmd"
	ok $STATUS "$what $cmd: succeeds${ERR:+: $ERR}"
	if have_gdb; then
		gdb_on "$@" -- "$cmd"
		is "$OUT" "$GDB_OUT" "$what $cmd: gdb's text"
	else
		skip "gdb is not installed: no reference for $cmd"
	fi
}

start_fixture "$C_EXE" && c_pid=$FIXTURE_PID || { ok 1 "sg-data starts"; done_testing; }
start_fixture "$CXX_EXE" && cxx_pid=$FIXTURE_PID || { ok 1 "sg-cxx starts"; done_testing; }

c_cmds=('info functions twice' 'info functions ^main$' 'info functions -n ^m'
	'info functions ^frame_dummy' 'info functions fflush'
	'info variables ^g_' 'info variables -n ^g_[a-d]' 'info variables ^stdout'
	'info variables -t int g_i' 'info functions -t int -n ^m'
	'info functions -q ^ma' 'info variables -q -n ^g_c'
	'info types point' 'info types -q node' 'info types ^color$'
	'info functions ^__libc_m' 'info variables -n ^_nl_C_locobj$'
	'info functions -n ^__mtx_timedlock$' 'info functions -n ^___mq_timedreceive_time64$'
	'info functions nosuchthing')
for c in "${c_cmds[@]}"; do
	compare "C:" "$c" -p "$c_pid"
done

cxx_cmds=('info functions ns::' 'info types ns::' 'info variables -n ^g_'
	'info variables -n count' 'info functions -n ^main' 'info types ^Level$')
for c in "${cxx_cmds[@]}"; do
	compare "C++:" "$c" -p "$cxx_pid"
done

# ---- JSON: the same symbols as the text, which gdb checked above.
sg -p "$c_pid" -ex 'info variables -n ^g_'
text=$OUT
sg --json -p "$c_pid" -ex 'info variables -n ^g_'
ok $STATUS "--json info variables: succeeds${ERR:+: $ERR}"
from_json=$(jq -r '.results[0].result // .result // . | .symbols[] | "\(.line):\t\(.declaration)"' \
	<<<"$OUT" 2>/dev/null)
is "$from_json" "$(grep -P '^\d+:\t' <<<"$text")" \
	"--json info variables: each symbol's line and declaration, as the text gives them"
is "$(jq -r '.. | objects | select(has("symbols")) | .symbols | map(.file) | unique | .[]' \
	<<<"$OUT" 2>/dev/null)" "$(sed -n 's/^File \(.*\):$/\1/p' <<<"$text")" \
	"--json info variables: the file of each symbol"
sg --json -p "$c_pid" -ex 'info functions ^frame_dummy'
is "$(jq -r '.. | objects | select(has("non_debugging")) | .non_debugging[].name' \
	<<<"$OUT" 2>/dev/null)" "frame_dummy" "--json info functions: the non-debugging symbols"

# ---- a core: the text of the live process.
if have_gdb; then
	core=$testdir/sg-data.core
	timeout -k 5 120 "$GDB" -nx -batch -p "$c_pid" -ex "gcore $core" >/dev/null 2>&1
	if [ -s "$core" ]; then
		for c in 'info functions -n ^m' 'info variables ^g_' 'info types point'; do
			sg -p "$c_pid" -ex "$c"
			live=$OUT
			sg -c "$core" "$C_EXE" -ex 'echo @@begin@@\n' -ex "$c" -ex 'echo @@end@@\n'
			is "$(between <<<"$OUT")" "$live" "core: $c as on the live process"
		done
	else
		ok 1 "gdb's gcore of sg-data"
	fi
else
	skip "gdb is not installed: no core"
fi

# ---- errors
for e in 'info functions -x foo|Unrecognized option at: -x foo' \
	'info variables -t|-t requires an argument' \
	'info functions \(|Invalid regexp: .*' \
	'info types -n foo|Unrecognized option at: -n foo'; do
	cmd=${e%%|*}
	sg -p "$c_pid" -ex "$cmd"
	ok $((STATUS == 0)) "$cmd: fails"
	like "$ERR" "${e#*|}" "$cmd: one clear line"
done
sg -ex 'info functions main'
ok $((STATUS == 0)) "info functions without a target fails"
like "$ERR" "process|target|program" "info functions without a target: says so"
check_threads "$c_pid" "sg-data runs on after the lookups"

done_testing
