#!/bin/bash
# --json: each command writes exactly one JSON object on one line; errors
# are {"error": "..."}; the shapes documented in doc/json.md.
. "$top_srcdir/tests/test-subr.sh"

if ! command -v jq >/dev/null; then
	skip "jq not installed: cannot parse the JSON"
	done_testing
fi

start_fixture "$FIXTURES/sg-threads" 3 || exit 1
pid=$FIXTURE_PID

sg --json -p "$pid" -ex 'info threads' -ex 'info sharedlibrary' -ex 'x/4dw &sg_counter' \
	-ex 'x/s sg_message' -ex 'info symbol &sg_counter' -ex 'info address sg_counter' \
	-ex 'frobnicate' -ex 'thread 2' -ex 'show print elements' -ex 'echo hi' -ex 'help x'
is "$(printf '%s\n' "$OUT" | wc -l)" 11 "one line per command"
bad=0
while IFS= read -r line; do
	printf '%s\n' "$line" | jq -e 'type == "object"' >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# not a JSON object: $line"; }
done <<<"$OUT"
is "$bad" 0 "every line is a JSON object"
is "$ERR" "" "nothing on stderr in JSON mode"
line() { printf '%s\n' "$OUT" | sed -n "${1}p"; }

t=$(line 1)
is "$(jq -r '.threads | length' <<<"$t")" "$(ls /proc/$pid/task | wc -l)" "threads: one entry per task"
is "$(jq -r '.pid' <<<"$t")" "$pid" "threads: pid"
is "$(jq -r '.threads[0] | [.id, .tid, .name, .state, .current] | @tsv' <<<"$t")" "$(printf '1\t%s\tsg-threads\tS\ttrue' "$pid")" "threads: the leader first"
is "$(jq -r '[.threads[].name] | sort | join(",")' <<<"$t")" "reader-1,sg-threads,sleeper-0,waiter-2" "threads: names"
is "$(jq -r '.threads[] | select(.name == "sleeper-0") | .function' <<<"$t")" "clock_nanosleep" "threads: function of frame 0"
like "$(jq -r '.threads[0].pc' <<<"$t")" '^0x[0-9a-f]+$' "threads: pc as a hex string"

m=$(line 2)
exe=$(readlink -f "$FIXTURES/sg-threads")
is "$(jq -r --arg e "$exe" '.modules[] | select(.name == $e) | [.dwarf, .symbols, (.build_id | length)] | @tsv' <<<"$m")" $'true\ttrue\t40' "modules: the executable has DWARF, symbols, a build ID"
is "$(jq -r '[.modules[] | select(.name == "[vdso]")] | length' <<<"$m")" 1 "modules: the vdso"
like "$(jq -r '.modules[0] | keys | join(",")' <<<"$m")" '^bias,build_id,debug_file,dwarf,file,from,name,symbols,to$' "modules: the documented keys"

is "$(jq -c '.values' <<<"$(line 3)")" "[42,$(jq -r '.values[1]' <<<"$(line 3)"),$(jq -r '.values[2]' <<<"$(line 3)"),$(jq -r '.values[3]' <<<"$(line 3)")]" "x: values are numbers"
is "$(jq -r '.values[0]' <<<"$(line 3)")" 42 "x: the first value"
is "$(jq -r '[.format, .size] | @tsv' <<<"$(line 3)")" $'d\t4' "x: format and size"
is "$(jq -c '.values[0].string' <<<"$(line 4)")" '"hello, spyglass\n"' "x/s: the string"
is "$(jq -r '[.symbol, .offset, .section] | @tsv' <<<"$(line 5)")" $'sg_counter\t0\t.data' "info symbol"
is "$(jq -r '[.symbol, .kind] | @tsv' <<<"$(line 6)")" $'sg_counter\tdata' "info address"
is "$(line 7)" '{"error":"Undefined command: \"frobnicate\".  Try \"help\"."}' "an error is {\"error\": ...}"
is "$(jq -r '[.id, .name] | @tsv' <<<"$(line 8)")" $'2\tsleeper-0' "thread"
is "$(jq -c '.settings' <<<"$(line 9)")" '[{"name":"print elements","value":"200","doc":"Limit on string chars or array elements to print"}]' "show"
is "$(line 10)" '{"text":"hi"}' "echo"
is "$(jq -r '.synopsis' <<<"$(line 11)")" 'x[/NFU] [ADDRESS]' "help"
is "$STATUS" 0 "status follows the last command"

# A -x file error in JSON names FILE:LINE.
printf 'echo a\nfrobnicate\n' >"$testdir/f.sg"
sg --json -x "$testdir/f.sg"
is "$OUT" '{"text":"a"}
{"error":"'"$testdir"'/f.sg:2: Undefined command: \"frobnicate\".  Try \"help\"."}' "-x errors in JSON carry FILE:LINE"
is "$STATUS" 1 "and exit 1"

# Control characters and invalid UTF-8 from the target stay valid JSON.
sg --json -p "$pid" -ex 'x/s sg_bytes+1'
like "$OUT" '"string":"A\\u007f\\u0080\\u00ff\\n'"'"'z"' "control bytes and bytes that are not UTF-8 are escaped as \\u00XX"
jq -e . <<<"$OUT" >/dev/null
ok $? "and the line still parses"
check_running "$pid" "target runs"

# Values: every scalar leaf of print's structured JSON equals what gdb
# prints for the same path (g_pts[1].y, g_flags.c ...).
start_fixture "$FIXTURES/sg-data" || exit 1
dpid=$FIXTURE_PID
vars=(g_pt g_pts g_flags g_num g_arr g_color g_bool g_float g_int g_n1)
vargs=()
for v in "${vars[@]}"; do
	vargs+=(-ex "print $v")
done
sg --json -p "$dpid" "${vargs[@]}"
ok $STATUS "print in JSON${ERR:+: $ERR}"
leaves=()
i=0
while IFS= read -r l; do
	v=${vars[$i]}
	i=$((i + 1))
	while IFS=$'\t' read -r path value; do
		leaves+=("$v${path#=}	$value")
	done < <(jq -r '.value | paths(scalars) as $p | [($p | map(if type == "number" then "[\(.)]" else ".\(.)" end) | "=" + join("")), (getpath($p) | tostring)] | @tsv' <<<"$l"; jq -r 'if (.value | type) != "object" and (.value | type) != "array" then ["=", (.value | tostring)] | @tsv else empty end' <<<"$l")
done <<<"$OUT"
ok $((${#leaves[@]} < 20)) "values have leaves to compare (${#leaves[@]})"
# Pointers are "0x..." strings; gdb prints them with their type, so
# compare those with print/x.
gcmds=()
for leaf in "${leaves[@]}"; do
	case ${leaf#*	} in 0x*) gcmds+=("print/x ${leaf%%	*}") ;; *) gcmds+=("output ${leaf%%	*}" 'echo \n') ;; esac
done
if have_gdb; then
	gdb_batch "$dpid" "${gcmds[@]}"
	is "$(printf '%s\n' "$GDB_OUT" | sed 's/^\$[0-9]* = //')" "$(printf '%s\n' "${leaves[@]}" | cut -f2)" \
		"every JSON leaf equals gdb's value at its path"
else
	skip "gdb not installed"
fi
is "$(jq -c '.value' <<<"$(printf '%s\n' "$OUT" | sed -n 2p)")" '[{"x":3,"y":4},{"x":5,"y":6}]' \
	"an array of structs is an array of objects"

# Typed readers: sequences are arrays, maps arrays of {key, value},
# strings strings.
start_fixture "$FIXTURES/sg-stl" || exit 1
spid=$FIXTURE_PID
sg --json -p "$spid" -ex 'print g_v' -ex 'print g_map' -ex 'print g_s16' -ex 'print g_vv' \
	-ex 'print g_vs' -ex 'set print elements 2' -ex 'print g_v'
is "$(printf '%s\n' "$OUT" | jq -c '.value' | tr '\n' ' ')" \
	'[1,2,3] [{"key":1,"value":"one"},{"key":2,"value":"two"}] "sixteen chars!!!" [[1],[2,3]] ["a","bc"] null [1,2] ' \
	"vector, map, string, nested vectors in JSON; print elements bounds them"
like "$(printf '%s\n' "$OUT" | tail -1 | jq -r '.text')" '^std::vector of length 3, capacity [0-9]+ = \{1, 2\.\.\.\}$' \
	"the text beside it keeps gdb's ..."
check_running "$spid" "target runs"
done_testing
