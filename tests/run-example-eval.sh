#!/bin/bash
# The value engine's plugin API (include/spyglass/eval.h) through the
# example plugin: example-eval EXPR (sg_eval, sg_value_format,
# sg_value_type_name, sg_value_format_json) against spyglass's own print
# and gdb's print on the same process, and example-locals
# (sg_frame_variables) against info locals and info args.
. "$top_srcdir/tests/test-subr.sh"

example=$top_builddir/plugins/example/.libs/example.so
[ -f "$example" ] || { echo "1..0 # SKIP the example plugin is not built"; exit 0; }

# compare FIXTURE-PID DESCRIPTION EXPR...: each "example-eval EXPR" line
# ("EXPR = TEXT") against "print EXPR" ("$N = TEXT") of spyglass and gdb,
# errors included, in order.
compare() {
	local pid=$1 desc=$2 e
	shift 2
	local mine=() prints=()
	for e in "$@"; do
		mine+=(-ex "example-eval $e")
		prints+=("print $e")
	done
	sg -p "$pid" --plugin "$example" "${mine[@]}"
	ok $STATUS "$desc: example-eval runs${ERR:+: $ERR}"
	local ours
	ours=$(printf '%s\n' "$OUT" | strip_exprs "$@")
	sg_cmds "$pid" "${prints[@]}"
	local printed
	printed=$(printf '%s\n' "$OUT" | sed -E 's/^\$[0-9]+ = //')
	is "$ours" "$printed" "$desc: the same text as print"
	if have_gdb; then
		gdb_batch "$pid" "${prints[@]}"
		is "$ours" "$(printf '%s\n' "$GDB_OUT" | sed -E 's/^\$[0-9]+ = //')" \
			"$desc: the same text as gdb's print"
	else
		skip "gdb not installed"
	fi
}

# strip_exprs EXPR...: stdin's lines, each "EXPR = TEXT" for the next
# EXPR of the list (a multi-line value or an error line is left as it
# is), as TEXT.
strip_exprs() {
	local line e
	while IFS= read -r line; do
		e=${1-}
		e=${e#/* }	# "/x g_arr": example-eval names the expression
		if [ $# -gt 0 ] && [ "${line#"$e = "}" != "$line" ]; then
			line=${line#"$e = "}
			shift
		fi
		printf '%s\n' "$line"
	done
}

start_fixture "$FIXTURES/sg-data" || exit 1
pid=$FIXTURE_PID

compare "$pid" "C globals" g_int g_uint g_long g_short g_char g_uchar g_bool g_float g_double \
	g_name g_arr g_pt g_pts g_color g_color_odd g_num g_flags g_str g_ip g_head '*g_head' \
	'g_head->next->value' g_const g_tagged '&g_int' '&g_pts[1]' 'g_arr[1] + g_int * 2' \
	'(char)g_int' 'sizeof(g_pts)' 'g_int == 42' 'g_pt.x - 10' '*g_arr@2' '$pc' '$sp'
compare "$pid" "formats" '/x g_arr' '/d g_uchar' '/c g_int' '/t g_short' '/o g_int' '/x g_pt'

# Errors are returned, not printed: one line on stderr, and a batch
# run's status 1, as print's.
sg -p "$pid" --plugin "$example" -ex 'example-eval nosuch'
ours_err=$ERR ours_status=$STATUS
sg -p "$pid" -ex 'print nosuch'
is "$ours_err" "$ERR" "an unknown symbol: print's error"
is "$ours_status" "$STATUS" "an unknown symbol: print's exit status ($STATUS)"
sg -p "$pid" --plugin "$example" -ex 'example-eval *g_bad'
is "$ERR" "Cannot access memory at address 0x10" "bad memory: gdb's error"
sg -p "$pid" --plugin "$example" -ex 'example-eval'
is "$ERR" "Argument required (expression to compute)." "no expression: print's error"
ok $(( STATUS == 0 )) "no expression: a failed command"
sg -p "$pid" --plugin "$example" -ex 'example-eval/q g_int'
is "$ERR" 'Undefined output format "q".' "a bad format: print's error"

# --json: the value as print --json gives it, and whatis's type.
sg -p "$pid" --json --plugin "$example" -ex 'example-eval g_pts' -ex 'print g_pts' \
	-ex 'example-eval g_head' -ex 'print g_head' -ex 'example-eval g_color' -ex 'print g_color'
ok $STATUS "--json: example-eval runs${ERR:+: $ERR}"
for k in 0 2 4; do
	mine=$(printf '%s\n' "$OUT" | jq -sc ".[$k] | [.value, .type, .text]")
	theirs=$(printf '%s\n' "$OUT" | jq -sc ".[$((k + 1))] | [.value, .type, .text]")
	is "$mine" "$theirs" "--json: $(printf '%s\n' "$OUT" | jq -sr ".[$k].expression"): value, type and text as print's"
done
like "$(printf '%s\n' "$OUT" | jq -sc '.[0].value')" '^\[\{"x":3,"y":4\},\{"x":5,"y":6\}\]$' \
	"--json: an array of structs is an array of objects"

# C++ and a library object, printed through the libstdcxx plugin's
# readers, as print and gdb's printers show them.
start_fixture "$FIXTURES/sg-cxx" || exit 1
compare "$FIXTURE_PID" "C++" g_derived g_plain g_base '*g_base' g_mode g_color g_flag
start_fixture "$FIXTURES/sg-stl" || exit 1
compare "$FIXTURE_PID" "libstdc++ readers" g_s g_v g_vs g_l g_set g_up g_sp '/r g_v'

# example-locals against info locals and info args, frame by frame
# (sg_frame_variables: the values, and <optimized out>).
start_fixture "$FIXTURES/sg-locals" || exit 1
lpid=$FIXTURE_PID
for o in "" -O2; do
	[ -n "$o" ] && { start_fixture "$FIXTURES/sg-locals-O2" || exit 1; lpid=$FIXTURE_PID; }
	mine=() theirs=()
	for n in 0 1 2 3; do
		mine+=(-ex "frame $n" -ex 'example-locals' -ex 'example-locals args')
		theirs+=(-ex "frame $n" -ex 'info locals' -ex 'info args')
	done
	sg -p "$lpid" --plugin "$example" -ex 'thread 2' "${mine[@]}"
	ok $STATUS "sg-locals$o: example-locals runs${ERR:+: $ERR}"
	vars() { grep -vE '^(#|\[Switching|[0-9]+[[:space:]]|No (locals|arguments)\.)'; }
	mine_out=$(printf '%s\n' "$OUT" | vars)
	sg -p "$lpid" -ex 'thread 2' "${theirs[@]}"
	is "$mine_out" "$(printf '%s\n' "$OUT" | vars)" \
		"sg-locals$o: each frame's variables and values as info locals and info args"
	like "$mine_out" '^counter = 24$' "sg-locals$o: a local of inner"
done

done_testing
