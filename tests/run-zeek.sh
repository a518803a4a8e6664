#!/bin/bash
# The zeek plugin on the layout fixture of each Zeek era (3.0, 3.1,
# 3.2-4.x, 5.x, 6.0-7.x, 8.0, 8.1+), each built three ways: -O2 -g, without
# DWARF (the built-in tables), and stripped to .dynsym.  The fixture runs a
# small script interpreter and writes its own true script stack, kept apart
# from call_stack, to a file; zeek-bt must print exactly that.  bt --zeek is
# checked against gdb's bt of the same process, and the names and call
# lines against gdb reading call_stack itself.
. "$top_srcdir/tests/test-subr.sh"
. "$top_srcdir/tests/zeek-gdb-walk.sh"

zk=$FIXTURES/zeek
eras="30 302 31 40 50 70 80 81"

declare -A table=(
	[30]="Zeek 3.0.0 to 3.0.1" [302]="Zeek 3.0.2 to 3.0.x" [31]="Zeek 3.1" [40]="Zeek 3.2 to 4.x" [50]="Zeek 5.x"
	[70]="Zeek 6.0 to 7.x" [80]="Zeek 8.0" [81]="Zeek 8.1 to 9.x"
)

# start_zeek BINARY MODE: the fixture, waited for until it has written its
# stack file; sets ZK_PID and ZK_OUT.
zk_runs=0
start_zeek() {
	# A new name each time: a file left by an earlier run (as $RANDOM
	# may repeat) would be taken for this run's stack.
	zk_runs=$((zk_runs + 1))
	ZK_OUT=$testdir/stack.$zk_runs
	"$1" "$2" "$ZK_OUT" >/dev/null 2>"$testdir/zk.err" &
	ZK_PID=$!
	fixture_pids+=("$ZK_PID")
	if ! wait_for 20 test -e "$ZK_OUT"; then
		echo "# $1 $2 did not write its stack:"
		sed 's/^/#   /' "$testdir/zk.err"
		return 1
	fi
}

# The fixture's stack as zeek-bt prints frames, without the "#N".
expected() {
	awk -F'\t' '$2 == "built-in" { print $1 " (built-in)"; next }
		    { print $1 " (" $2 ") at " $3 ":" $4 }' "$ZK_OUT"
}
got() { printf '%s\n' "$OUT" | sed -nE 's/^#[0-9]+ +//p'; }

for era in $eras; do
	if [ ! -x "$zk/sg-zeek-$era" ]; then
		skip "no fixture $zk/sg-zeek-$era"
		continue
	fi
	for variant in "" -nodebug -stripped; do
		bin=$zk/sg-zeek-$era$variant
		what="era $era${variant:- (DWARF)}"
		start_zeek "$bin" stack || { ok 1 "$what: fixture starts"; continue; }
		sg -p "$ZK_PID" -ex zeek-bt
		is "$STATUS:$(got)" "0:$(expected)" "$what: zeek-bt prints the interpreter's own stack"
		if [ -z "$variant" ]; then
			is "$(printf '%s\n' "$OUT" | grep -c '^(')" 0 "$what: no table note with DWARF"
		else
			is "$(printf '%s\n' "$OUT" | head -1)" \
				"(no DWARF: layouts from the built-in table for ${table[$era]} (GCC, libstdc++, x86-64))" \
				"$what: says which built-in table it used"
		fi
		check_running "$ZK_PID" "$what: target running after zeek-bt"
		stop_fixture "$ZK_PID"

		start_zeek "$bin" script-top || { ok 1 "$what: script-top fixture starts"; continue; }
		sg -p "$ZK_PID" -ex zeek-bt
		is "$STATUS:$(got)" "0:$(expected)" \
			"$what: a script frame on top is at the statement it executes"
		stop_fixture "$ZK_PID"
	done
done

# ---- one era in depth: JSON, zeek-version, bt --zeek, gdb's view --------

# gdb_call_stack ERA PID: "name:line" per entry, innermost first, as gdb
# reads call_stack through its own printers; the line is the call site in
# the caller (the next entry's CallExpr), or absent.
gdb_call_stack() {
	local era=$1 pid=$2
	zeek_gdb_walk "$era" >"$testdir/cs.gdb"
	"$GDB" -nx -batch -p "$pid" -x "$testdir/cs.gdb" 2>/dev/null |
		sed -nE 's/^NAME\t"([^"]*)"(\t([0-9]+))?$/\1:\3/p' | sed 's/:$//'
}

for era in 30 70 80 81; do
	bin=$zk/sg-zeek-$era
	[ -x "$bin" ] || { skip "no fixture $bin"; continue; }
	start_zeek "$bin" stack || { ok 1 "era $era: fixture starts"; continue; }
	nframes=$(wc -l <"$ZK_OUT")

	sg --json -p "$ZK_PID" -ex zeek-bt
	if command -v jq >/dev/null; then
		j=$(printf '%s\n' "$OUT" | head -1)
		is "$(jq -r '[(.frames | length), .layouts, (.frames[0] | .kind, .function, .flavor, .builtin, .line)] | map(tostring) | join(" ")' <<<"$j")" \
			"$nframes dwarf zeek $(head -1 "$ZK_OUT" | cut -f1) built-in true null" \
			"era $era: JSON frames, the built-in on top"
		is "$(jq -r '.frames[1] | [.function, .flavor, .file, .line, .builtin] | map(tostring) | join("\t")' <<<"$j")" \
			"$(sed -n 2p "$ZK_OUT" | awk -F'\t' '{ print $1 "\t" $2 "\t" $3 "\t" $4 "\tfalse" }')" \
			"era $era: JSON script frame"
		is "$(jq -r '[.frames[].flavor] | unique | join(" ")' <<<"$j")" "built-in event function hook" \
			"era $era: every kind of frame is there"
	else
		skip "jq not installed: cannot parse the JSON"
	fi

	sg -p "$ZK_PID" -ex zeek-version
	walk="CallInfo.func and g_frame_stack (3.0 to 8.0)"
	[ "$era" = 81 ] && walk="CallInfo.frame (8.1 and later)"
	like "$OUT" "Walk: ${walk//[().]/.}" "era $era: zeek-version names the walk"
	like "$OUT" "^Layouts: DWARF" "era $era: zeek-version: layouts from DWARF"

	sg -p "$ZK_PID" -ex 'maintenance time-zeek-bt 200'
	like "$STATUS $OUT" "^0 $nframes Zeek frames; walk [0-9.]+ us \(mean of 200\)" \
		"era $era: maintenance time-zeek-bt"

	# bt --zeek: each native Invoke (Call) frame replaced by its script
	# frame, in order; the rest as gdb's bt has it.
	sg -p "$ZK_PID" -ex 'bt --zeek'
	merged=$(printf '%s\n' "$OUT" | sed -nE 's/^#[0-9]+ +\[zeek\] ([^ ]+)( .*)?$/[zeek] \1/p;
		s/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/p')
	is "$(printf '%s\n' "$merged" | grep '^\[zeek\]' | sed 's/^\[zeek\] //')" \
		"$(cut -f1 "$ZK_OUT")" "era $era: bt --zeek has the script frames, in order"
	if have_gdb; then
		gdb_batch "$ZK_PID" bt
		native=$(printf '%s\n' "$GDB_OUT" | sed -nE 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/p' |
			sed -E 's/^(zeek::detail::(Script|Builtin)Func::Invoke|BroFunc::Call|BuiltinFunc::Call)$/[zeek]/')
		is "$(printf '%s\n' "$merged" | sed 's/^\[zeek\] .*/[zeek]/')" "$native" \
			"era $era: bt --zeek is gdb's bt with each Invoke replaced"
		# zeek-bt's frames as "name:line", with the line only where gdb
		# found a call site.
		gcs=$(gdb_call_stack "$era" "$ZK_PID")
		is "$(printf '%s\n' "$gcs" | grep -c .)" "$nframes" "era $era: gdb read every call_stack entry"
		sg -p "$ZK_PID" -ex zeek-bt
		mine=$(paste <(got | sed -E 's/^([^ ]+) .*:([0-9]+)$/\1 \2/; s/^([^ ]+) \(.*$/\1 -/') \
			<(printf '%s\n' "$gcs") | awk '{ print $1 ($3 ~ /:[0-9]+$/ ? ":" $2 : "") }')
		is "$mine" "$gcs" "era $era: names and call lines as gdb reads call_stack"
	else
		skip "no gdb: cannot compare bt --zeek with gdb"
		skip "no gdb: cannot read call_stack with gdb"
	fi
	sg -p "$ZK_PID" -ex 'bt --python'
	is "$STATUS $(printf '%s\n' "$OUT" | grep -c '^#[0-9]* *\[')" "0 0" \
		"era $era: bt --python merges no Zeek frames"
	check_running "$ZK_PID" "era $era: target running after bt --zeek and gdb"
	stop_fixture "$ZK_PID"
done

# ---- nothing running -----------------------------------------------------

for era in 30 81; do
	for mode in empty early; do
		bin=$zk/sg-zeek-$era
		[ -x "$bin" ] || { skip "no fixture $bin"; continue; }
		start_zeek "$bin" $mode || { ok 1 "era $era $mode: fixture starts"; continue; }
		sg -p "$ZK_PID" -ex zeek-bt
		is "$STATUS:$OUT" "0:no Zeek script is running" "era $era, $mode: no Zeek script is running"
		stop_fixture "$ZK_PID"
	done
done

# ---- hostile input ---------------------------------------------------------

# garbage ERA VARIANT MODE REGEX DESCRIPTION
garbage() {
	local bin=$zk/sg-zeek-$1$2
	[ -x "$bin" ] || { skip "no fixture $bin"; return; }
	start_zeek "$bin" "$3" || { ok 1 "era $1$2 $3: fixture starts"; return; }
	sg -p "$ZK_PID" -ex zeek-bt
	is "$STATUS $(printf '%s\n' "$ERR" | wc -l) $OUT" "1 1 " "era $1$2, $3: one error line, no output"
	like "$ERR" "$4" "era $1$2, $3: $5"
	check_running "$ZK_PID" "era $1$2, $3: target running after the error"
	stop_fixture "$ZK_PID"
}

for era in 40 80 81; do
	for variant in "" -stripped; do
		garbage $era "$variant" garbage-size \
			'call_stack has (more than 10000|20000) entries' 'a call_stack of 20000 entries'
		garbage $era "$variant" garbage-vector \
			'call_stack(:| is) not a (valid std::)?vector' 'a call_stack whose start is null'
		if [ $era = 81 ]; then
			garbage $era "$variant" garbage-self \
				'call_stack\[[0-9]+\] \(of [0-9]+\): Func at 0x[0-9a-f]+: (its kind is|.*name)' \
				'a Frame whose function is itself'
		else
			# Up to 8.0 a Frame is only paired with its entry when its
			# function is the entry's: the broken one is not used.
			bin=$zk/sg-zeek-$era$variant
			start_zeek "$bin" garbage-self || { ok 1 "era $era$variant garbage-self: fixture starts"; continue; }
			sg -p "$ZK_PID" -ex zeek-bt
			is "$STATUS $(printf '%s\n' "$OUT" | grep -c '^#') $(printf '%s\n' "$OUT" | grep '^#1 ')" \
				"0 57 #1  recurse (function) at /zeek/base/utils/helpers.zeek:11" \
				"era $era$variant, garbage-self: a Frame whose function is itself is not used"
			stop_fixture "$ZK_PID"
		fi
		garbage $era "$variant" garbage-filename \
			'call_stack\[[0-9]+\] \(of [0-9]+\): CallExpr at 0x[0-9a-f]+: the file name at 0xdead0000beef' \
			'a Location with a garbage file name'
	done
	bin=$zk/sg-zeek-$era
	if [ -x "$bin" ]; then
		start_zeek "$bin" garbage-null || { ok 1 "era $era garbage-null: fixture starts"; continue; }
		sg -p "$ZK_PID" -ex zeek-bt
		is "$STATUS $(printf '%s\n' "$OUT" | grep -cE '^#[0-9]+ +\?\? \(unknown\)( at |$)')" "0 1" \
			"era $era: an entry without a function is ??"
		stop_fixture "$ZK_PID"
	fi
done

# Not Zeek.
start_fixture "$FIXTURES/sg-threads" || exit 1
sg -p "$FIXTURE_PID" -ex zeek-bt
is "$STATUS $OUT$ERR" "1 not a Zeek process: no symbol zeek::detail::call_stack or call_stack" \
	"a process that is not Zeek"
check_running "$FIXTURE_PID" "not Zeek: target running"
stop_fixture "$FIXTURE_PID"

# A version no table knows, without DWARF: refused, naming the version.
if [ -x "$zk/sg-zeek-81-nodebug" ]; then
	cp "$zk/sg-zeek-81-nodebug" "$testdir/zeek-2.6"
	perl -pi -e 's/8\.1\.0\0/2.6.4\0/' "$testdir/zeek-2.6"
	start_zeek "$testdir/zeek-2.6" stack || ok 1 "unknown version: fixture starts"
	sg -p "$ZK_PID" -ex zeek-bt
	is "$STATUS $OUT$ERR" \
		"1 Zeek 2.6.4 has no DWARF and the built-in tables do not know this version (they cover 3.0 to 9.x)" \
		"a version no table knows is refused"
	stop_fixture "$ZK_PID"
fi

done_testing
