#!/usr/bin/env bash
# bench/zeek-bt.sh [BUILD_DIR] - time "zeek-bt" (the Zeek script call stack
# of a process) on the Zeek layout fixture with the installed spyglass and
# its default plugins, next to gdb reading the same stack (the way a gdb
# user reads Zeek's call_stack), gdb's plain bt and eu-stack, and check the
# goals of the issue:
#   - spyglass -p PID -- zeek-bt, whole process, under 5 ms;
#   - the target stopped under 0.5 ms (paused_us of --stats);
#   - attached, warm: a walk of a 20-frame script stack under 20 us
#     (maintenance time-zeek-bt).
#
# spyglass is measured as users run it: "make install DESTDIR=TMP" of
# BUILD_DIR, then the installed binary with its installed plugins
# (SPYGLASS_PLUGIN_DIR), so every default plugin loads.  The build tree's
# binary is timed as well, for reference.
#
# The target is tests/fixtures/zeek/sg-zeek-ERA[VARIANT] of BUILD_DIR (made
# there if missing), run as "sg-zeek-ERA loop STACKFILE": a script stack of
# 20 frames whose innermost built-in busy-spins about 1 ms; then the script
# returns and the event loop runs it again, forever.  The fixture writes the stack, one line per
# frame, to STACKFILE once the built-in is first on top; every timed run is
# checked against it.
#
# Environment: BENCH_REPS (default 10), BENCH_TIMEOUT (60), and
#   BENCH_ZEEK_ERA      the fixture's Zeek era (default 81: Zeek 8.1; also
#                       30, 302, 31, 40, 50, 70, 80)
#   BENCH_ZEEK_VARIANT  "" (default: -O2 -g), -nodebug (no DWARF: the
#                       plugin's built-in tables) or -stripped (.dynsym only)
#
# Exit status as bench/bt.sh: 0 even when a goal is missed, 1 if a run
# failed or printed a short or wrong stack, 2 if the benchmark could not be
# set up.
set -euo pipefail
export LC_ALL=C			# "." as decimal point, also in EPOCHREALTIME

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

# Goals from the issue.
goal_wall_ms=5			# whole run of spyglass -p PID -- zeek-bt
goal_pause_us=500		# target stopped
goal_walk_us=20			# warm walk of one 20-frame script stack
goal_width=44

era=${BENCH_ZEEK_ERA:-81}
variant=${BENCH_ZEEK_VARIANT:-}
declare -A era_name=(
	[30]="Zeek 3.0.0-3.0.1" [302]="Zeek 3.0.2-3.0.14" [31]="Zeek 3.1"
	[40]="Zeek 3.2 to 4.x" [50]="Zeek 5.x" [70]="Zeek 6.0 to 7.x"
	[80]="Zeek 8.0" [81]="Zeek 8.1 and later"
)
[[ -n ${era_name[$era]:-} ]] ||
	die "BENCH_ZEEK_ERA must be one of 30 302 31 40 50 70 80 81, not \"$era\""
case $variant in
"") variant_name="-O2 -g, DWARF" ;;
-nodebug) variant_name="no DWARF: the plugin's built-in tables" ;;
-stripped) variant_name="stripped to .dynsym: the plugin's built-in tables" ;;
*) die "BENCH_ZEEK_VARIANT must be empty, -nodebug or -stripped, not \"$variant\"" ;;
esac
bench_args zeek-bt.sh "$@"
walk_count=2000			# maintenance time-zeek-bt COUNT

bench_tmp

# ---------------------------------------------------------------- spyglass

bench_install zeek

# ---------------------------------------------------------------- fixture

zk_name=sg-zeek-$era$variant
zk_bin=$build_dir/tests/fixtures/zeek/$zk_name
if [[ ! -x $zk_bin ]]; then
	make -C "$build_dir" "tests/fixtures/zeek/$zk_name" >"$tmp/fixture-make.log" 2>&1 || {
		tail -n 20 "$tmp/fixture-make.log" >&2
		die "make -C $build_dir tests/fixtures/zeek/$zk_name failed"
	}
	[[ -x $zk_bin ]] || die "make built no $zk_bin"
fi

# The fixture prints no "ready PID" (common.sh's launch_fixture): it is
# ready once it has written its stack file, which it does in one go when the
# innermost built-in is first on top.  Waits up to 10 s.
stack_file=$tmp/stack
"$zk_bin" loop "$stack_file" >"$tmp/fixture.out" 2>"$tmp/fixture.err" &
fixture_pid=$!
for ((i = 0; i < 1000; i++)); do
	if [[ -s $stack_file && $(tail -c 1 "$stack_file" | od -An -c) == *'\n'* ]]; then
		n1=$(wc -l <"$stack_file")
		sleep 0.02
		(($(wc -l <"$stack_file") == n1)) && break
	fi
	kill -0 "$fixture_pid" 2>/dev/null || die "fixture died: $(cat "$tmp/fixture.err")"
	sleep 0.01
done
((i < 1000)) || die "$zk_name loop wrote no stack to $stack_file within 10 s"
expected_threads=$(find "/proc/$fixture_pid/task" -mindepth 1 -maxdepth 1 | wc -l)

# The fixture's stack file: one frame a line, innermost first, tab-separated
# "NAME KIND FILE LINE" (KIND function, event, hook or built-in, whose FILE
# is - and LINE 0).  zeek-bt
# prints the same frames as "NAME (KIND) at FILE:LINE" or "NAME (built-in)".
zk_frames=$(wc -l <"$stack_file")
((zk_frames >= 2)) || die "the fixture's stack has $zk_frames frames: $(head -c 200 "$stack_file")"
awk -F'\t' '$2 == "built-in" { print $1 " (built-in)"; next }
	    { print $1 " (" $2 ") at " $3 ":" $4 }' "$stack_file" >"$tmp/expected"
cut -f1 "$stack_file" >"$tmp/expected.names"
zk_top=$(head -n 1 "$tmp/expected")

# In loop mode the whole script returns after each 1 ms spin of the
# built-in and the event loop dispatches zeek_init again, so a stop can
# catch the stack partly unwound or rebuilt: the outermost K frames of the
# file's stack (K < the file's, 0 between two dispatches, when zeek-bt says
# "no Zeek script is running").  Such a run is not a short stack but a
# stop at the wrong moment: it is run again (up to 3 times in a row) and
# counted, and only runs that saw the whole stack are timed.  Anything else
# fails the run.
partial_tries=3

# ---------------------------------------------------------------- tools

find_tools gdb eu-stack
if [[ -n ${skip_of[gdb]:-} ]]; then
	skip_of[gdb-cs]=${skip_of[gdb]} skip_of[gdb-bt]=${skip_of[gdb]}
fi

# gdb reading call_stack as a gdb user would (the same walk as
# tests/run-zeek.sh's oracle).
# shellcheck source-path=SCRIPTDIR source=../tests/zeek-gdb-walk.sh
. "$bench_dir/../tests/zeek-gdb-walk.sh"
zeek_gdb_walk "$era" >"$tmp/cs.gdb"

start_watchdog

# tool_exec TOOL: replaces the (forked) shell with one run of TOOL.
#   spyglass    the installed one: spyglass -p PID -- zeek-bt, the issue's
#               command
#   sg-build    the same with the build tree's binary and plugins
#   sg-bt-zeek  the installed one's bt --zeek: the native stack with the
#               script frames merged in
#   gdb-cs      gdb -batch -nx -p PID -x cs.gdb: gdb walking call_stack
#   gdb-bt      gdb -batch -nx -p PID -ex bt: the main thread's native stack
#   eu-stack    eu-stack -p PID: every thread's native stack
#   walk        not timed: maintenance time-zeek-bt, attached
#   bytes       not timed: what zeek-bt reads from the target
tool_exec() {
	case $1 in
	spyglass)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -p "$fixture_pid" --stats -- zeek-bt
		;;
	sg-build)
		LD_LIBRARY_PATH=$build_lib SPYGLASS_PLUGIN_DIR=$tmp/no-plugins \
			SPYGLASS_PLUGIN_PATH=$build_plugins \
			exec "$build_bin" -nx -p "$fixture_pid" --stats -- zeek-bt
		;;
	sg-bt-zeek)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -p "$fixture_pid" --stats -- bt --zeek
		;;
	walk)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx --json -batch -p "$fixture_pid" \
			-ex "maintenance time-zeek-bt $walk_count"
		;;
	bytes)
		LD_LIBRARY_PATH=$inst_lib SPYGLASS_PLUGIN_DIR=$inst_plugins \
			exec "$inst_bin" -nx -batch -p "$fixture_pid" \
			-ex 'maintenance info target-stats' -ex zeek-bt \
			-ex 'maintenance info target-stats'
		;;
	gdb-cs)
		exec gdb -batch -nx -p "$fixture_pid" -x "$tmp/cs.gdb"
		;;
	gdb-bt)
		exec gdb -batch -nx -p "$fixture_pid" -ex bt
		;;
	eu-stack)
		exec eu-stack -p "$fixture_pid"
		;;
	esac
}

# script_frames OUT: zeek-bt's frames in OUT without their "#N " (spyglass
# prints a "(no DWARF: ...)" line first without DWARF, which is skipped).
script_frames() {
	sed -nE 's/^#[0-9]+ +//p' "$1"
}

# merged_frames OUT: bt --zeek's script frames, "[zeek] NAME ...".
merged_frames() {
	sed -nE 's/^#[0-9]+ +\[zeek\] +//p' "$1"
}

# gdb_entries OUT: "NAME<TAB>LINE" (LINE empty for no call site) per entry
# that gdb's walk of call_stack printed, innermost first.
gdb_entries() {
	sed -nE 's/^NAME\t"([^"]*)"(\t([0-9]+))?$/\1\t\3/p' "$1"
}

# native_frames TOOL OUT: the number of frames in the main thread's native
# stack (gdb: the selected thread, which is main after attaching; eu-stack:
# the "TID PID:" section).
native_frames() {
	if [[ $1 == eu-stack ]]; then
		awk -v tid="$fixture_pid" '
			/^TID [0-9]+:/ { on = ($2 == tid ":") ; next }
			on && /^#[0-9]+ / { n++ }
			END { print n + 0 }' "$2"
	else
		grep -cE '^#[0-9]+ ' "$2" || true
	fi
}

# invoke_frames OUT: native frames of ScriptFunc::Invoke or
# BuiltinFunc::Invoke (BroFunc::Call and BuiltinFunc::Call in 3.0 and 3.1),
# one per script call, when the tool names them.
invoke_frames() {
	grep -cE '(ScriptFunc::Invoke|BuiltinFunc::Invoke|BroFunc::Call|BuiltinFunc::Call)\b' "$1" || true
}

# is_partial GOT FULL: true if GOT (frames, one a line) is the outermost
# K < zk_frames frames of FULL.  The frame then on top may be at another
# statement than the call it made in the whole stack (its line is its
# next_stmt's): only the text before " at " is compared for it.
is_partial() {
	local got=$1 full=$2 k top want
	k=$(wc -l <"$got")
	((k < zk_frames)) || return 1
	((k > 0)) || return 0
	top=$(head -n 1 "$got") want=$(tail -n "$k" "$full" | head -n 1)
	[[ ${top%% at *} == "${want%% at *}" ]] || return 1
	cmp -s <(tail -n +2 "$got") <(tail -n "$((k - 1))" "$full")
}

# check_run TOOL REP: checks $tmp/TOOL.out against the fixture's stack.
# Returns 0 if it holds the whole stack, 2 if the stop caught the stack
# partly unwound (see is_partial), else fails the run and returns 1.  Sets
# n_seen: script frames, or native frames for gdb-bt and eu-stack.
declare -A fmin_of fmax_of invoke_of partial_of
check_run() {
	local tool=$1 rep=$2 out=$tmp/$1.out got=$tmp/$1.got n inv full=$tmp/expected
	case $tool in
	spyglass | sg-build | bytes)
		script_frames "$out" >"$got"
		;;
	sg-bt-zeek)
		# The merged frames' names, in order.
		merged_frames "$out" | sed -E 's/^([^ ]+).*/\1/' >"$got"
		full=$tmp/expected.names
		;;
	gdb-cs)
		gdb_entries "$out" | cut -f1 >"$got"
		full=$tmp/expected.names
		;;
	gdb-bt | eu-stack)
		n=$(native_frames "$tool" "$out")
		inv=$(invoke_frames "$out")
		n_seen=$n
		if ((inv > 0)); then
			# One Invoke frame per script call, when the tool has
			# names for them (a stripped fixture keeps them in
			# .dynsym).
			invoke_of[$tool]=$inv
			((inv == zk_frames)) && return 0
			((inv < zk_frames)) && return 2
			fail "$tool" "$rep" "printed $inv Invoke frames, more than the $zk_frames script frames" "$out"
			return 1
		fi
		((n >= zk_frames)) && return 0
		fail "$tool" "$rep" "printed a native stack of $n frames, fewer than the $zk_frames script frames" "$out"
		return 1
		;;
	esac
	n=$(wc -l <"$got")
	n_seen=$n
	cmp -s "$got" "$full" && return 0
	is_partial "$got" "$full" && return 2
	case $tool in
	sg-bt-zeek) fail "$tool" "$rep" "merged $n script frames into bt, not the fixture's $zk_frames" "$out" ;;
	gdb-cs) fail "$tool" "$rep" "read $n call_stack entries, not the fixture's $zk_frames" "$out" ;;
	*) fail "$tool" "$rep" "printed $n script frames, not the fixture's $zk_frames" "$out" ;;
	esac
	return 1
}

# note_frames TOOL N: the fewest and most frames of TOOL's accepted runs.
note_frames() {
	if [[ -z ${fmin_of[$1]:-} ]] || (($2 < ${fmin_of[$1]})); then
		fmin_of[$1]=$2
	fi
	if (($2 > ${fmax_of[$1]:-0})); then
		fmax_of[$1]=$2
	fi
}

# json_field FILE KEY: the number KEY has in FILE's last JSON line with it.
json_field() {
	grep "\"$2\":" "$1" | tail -n 1 | sed -n "s/.*\"$2\":\\([0-9.]*\\).*/\\1/p"
}

# stat_lines OUT WHAT: "BYTES READS" of each "WHAT: N bytes in M reads"
# line of OUT (maintenance info target-stats), one line each.
stat_lines() {
	sed -n "s/^$2: \\([0-9]*\\) bytes in \\([0-9]*\\) reads.*/\\1 \\2/p" "$1"
}

# ---------------------------------------------------------------- runs

# gdb needs the fixture's DWARF to read call_stack: without it (-nodebug,
# -stripped) its walk prints no entry.
if [[ -z ${skip_of[gdb-cs]:-} ]]; then
	timed_run gdb-cs "$tmp/gdb-cs.out" "$tmp/gdb-cs.err" || true
	if [[ -z $(gdb_entries "$tmp/gdb-cs.out") ]]; then
		why=$(grep -v '^\[\|^$\|^warning' "$tmp/gdb-cs.err" | tail -n 1)
		skip_of[gdb-cs]="skipped: gdb cannot read call_stack in $zk_name (${why:-no output})"
	fi
fi

declare -A times_of paused_of rss_of attach_of
walk_us=()			# maintenance time-zeek-bt, us per walk

run_list=(spyglass sg-build sg-bt-zeek)
for t in gdb-cs gdb-bt eu-stack; do
	[[ -n ${skip_of[$t]:-} ]] || run_list+=("$t")
done
run_list+=(walk bytes)

# one_run TOOL REP: one run of TOOL, checked.  Returns 0 and sets REPLY
# (us) and, for spyglass's runs, st_paused st_rss st_attach, or the walk's
# w_us; 2 if the stop caught the stack partly unwound; 1 if the run failed.
one_run() {
	local tool=$1 rep=$2 us out=$tmp/$1.out err=$tmp/$1.err f w
	run_tool "$tool" "$rep" || return 1
	us=$REPLY
	if [[ $tool == walk ]]; then
		f=$(json_field "$out" frames)
		w=$(json_field "$out" walk_ns)
		if [[ -z $f || -z $w ]]; then
			fail "$tool" "$rep" "printed no time-zeek-bt result" "$err"
			return 1
		elif ((f < zk_frames)); then
			n_seen=$f
			return 2
		elif ((f > zk_frames)); then
			fail "$tool" "$rep" "walked $f script frames (the fixture has $zk_frames)" "$out"
			return 1
		fi
		n_seen=$f w_us=$(calc "$w / 1000")
		return 0
	fi
	check_run "$tool" "$rep" || return
	if [[ $tool == spyglass || $tool == sg-build || $tool == sg-bt-zeek ]]; then
		st_paused=$(stat_field "$err" paused_us)
		st_rss=$(stat_field "$err" maxrss_kb)
		st_attach=$(stat_field "$err" attach_us)
		if [[ -z $st_paused || -z $st_rss || -z $st_attach ]]; then
			fail "$tool" "$rep" "printed no complete --stats line"
			return 1
		fi
	fi
	REPLY=$us
}

# Run 0 of each is an untimed warm-up (page cache, spyglass's caches in
# ~/.cache/spyglass).  The tools take turns.
for ((rep = 0; rep <= reps; rep++)); do
	for tool in "${run_list[@]}"; do
		[[ -z ${skip_of[$tool]:-} ]] || continue
		for ((try = 1; ; try++)); do
			rc=0
			one_run "$tool" "$rep" || rc=$?
			((rc == 2)) || break
			partial_of[$tool]=$((${partial_of[$tool]:-0} + 1))
			if ((try == partial_tries)); then
				fail "$tool" "$rep" "caught the stack partly unwound $try times in a row ($n_seen of $zk_frames frames)" \
					"$tmp/$tool.out"
				rc=1
				break
			fi
		done
		((rc == 0)) || continue
		us=$REPLY
		note_frames "$tool" "$n_seen"
		case $tool in
		walk)
			((rep == 0)) || walk_us+=("$w_us")
			continue
			;;
		bytes)
			cp "$tmp/$tool.out" "$tmp/bytes.last"
			continue
			;;
		esac
		cp "$tmp/$tool.out" "$tmp/$tool.last"
		((rep > 0)) || continue
		times_of[$tool]+="$us "
		if [[ $tool == spyglass || $tool == sg-build || $tool == sg-bt-zeek ]]; then
			paused_of[$tool]+="$st_paused "
			rss_of[$tool]+="$st_rss "
			attach_of[$tool]+="$st_attach "
		fi
	done
done

# ---------------------------------------------------------------- report

zk_kind=", stripped"
if command -v readelf >/dev/null; then
	readelf -SW "$zk_bin" 2>/dev/null | grep -q ' \.symtab ' && zk_kind=", with symbols"
	readelf -SW "$zk_bin" 2>/dev/null | grep -q ' \.debug_info ' && zk_kind=", with DWARF"
fi
title="spyglass benchmark: zeek-bt on $zk_name (${era_name[$era]}$zk_kind), $zk_frames script frames"
print_header "$title, $reps timed runs per tool" spyglass gdb eu-stack
echo "spyglass: installed with make install DESTDIR=TMP, prefix $inst_prefix"
echo "plugins:  $inst_plugin_names (installed); $build_plugin_names (build tree)"
echo "fixture:  $zk_bin loop FILE ($variant_name); top: $zk_top"
echo

printf '%-10s %10s %10s %12s  %s\n' tool "median ms" "min ms" "vs spyglass" "frames"
for tool in spyglass sg-build sg-bt-zeek gdb-cs gdb-bt eu-stack; do
	tool_times "$tool" "${times_of[$tool]:-}" || continue
	frames=${fmin_of[$tool]:-0}
	((${fmax_of[$tool]:-0} == frames)) || frames+="-${fmax_of[$tool]}"
	case $tool in
	gdb-bt | eu-stack)
		frames+=" native"
		if ((${invoke_of[$tool]:-0} > 0)); then
			frames+=", ${invoke_of[$tool]} Invoke"
		fi
		;;
	*) frames+=" script" ;;
	esac
	note=
	if [[ -n ${partial_of[$tool]:-} ]]; then
		note+="  (${partial_of[$tool]} partial, run again)"
	fi
	if [[ -n ${failed_of[$tool]:-} ]]; then
		note+="  (${failed_of[$tool]} runs failed)"
	fi
	printf '%-10s %10.2f %10.2f %12s  %s%s\n' "$tool" "$t_median" "$t_min" "$t_ratio" \
		"$frames" "$note"
done
echo "(spyglass: spyglass -nx -p PID --stats -- zeek-bt, installed; sg-build: the same from the"
echo " build tree; sg-bt-zeek: the installed one's bt --zeek, the native stack with script frames;"
echo " gdb-cs: gdb -batch -nx -p PID -x FILE walking $zk_cs, for each entry"
echo " ->$zk_fn->name and the next entry's ->call->location->first_line;"
echo " gdb-bt: gdb -batch -nx -p PID -ex bt;"
echo " eu-stack: eu-stack -p PID, every thread's native stack; frames: fewest-most in the main"
echo " thread over the timed runs, Invoke: its ScriptFunc/BuiltinFunc frames, one per script call;"
echo " partial: runs whose stop caught the script stack partly unwound, run again, not timed)"
if [[ -e $tmp/spyglass.last && -e $tmp/gdb-cs.last ]]; then
	# Names, and call lines where gdb found a call site (the caller's
	# line in zeek-bt's frame below the callee).
	mine=$(paste <(script_frames "$tmp/spyglass.last" |
		sed -E 's/^([^ ]+) .*:([0-9]+)$/\1 \2/; s/^([^ ]+) \(.*$/\1 -/') \
		<(gdb_entries "$tmp/gdb-cs.last" | tr '\t' ' ') |
		awk '{ print $1 ($4 != "" ? ":" $2 : "") }')
	theirs=$(gdb_entries "$tmp/gdb-cs.last" | awk -F'\t' '{ print $1 ($2 != "" ? ":" $2 : "") }')
	if [[ $mine == "$theirs" ]]; then
		echo "spyglass and gdb-cs: same names and call lines in every frame (last full runs)"
	else
		echo "spyglass and gdb-cs: stacks differ (last full runs; name and call line compared)"
	fi
fi
echo

have_sg=0
if [[ -n ${paused_of[spyglass]:-} ]]; then
	have_sg=1
	# shellcheck disable=SC2086 # space-separated lists
	{
		read -r paused_median paused_min paused_max < <(summarize ${paused_of[spyglass]})
		read -r attach_median _ _ < <(summarize ${attach_of[spyglass]})
		read -r _ _ rss_max < <(summarize ${rss_of[spyglass]})
	}
	printf 'spyglass target stopped:    median %.0f us (min %.0f, max %.0f)\n' \
		"$paused_median" "$paused_min" "$paused_max"
	printf 'spyglass attach:            median %.2f ms (attach_us)\n' \
		"$(calc "$attach_median / 1000")"
	printf 'spyglass peak memory:       %.1f MB (largest maxrss of all runs)\n' "$(calc "$rss_max / 1024")"
	for t in sg-build sg-bt-zeek; do
		if [[ -n ${paused_of[$t]:-} ]]; then
			# shellcheck disable=SC2086
			read -r bp _ _ < <(summarize ${paused_of[$t]})
			printf '%-27s median %.0f us\n' "$t target stopped:" "$bp"
		fi
	done
fi
have_walk=${#walk_us[@]}
if ((have_walk)); then
	read -r walk_median walk_min walk_max < <(summarize "${walk_us[@]}")
	wf=${fmin_of[walk]}
	printf 'spyglass stack walk:        %s frames: median %.2f us (min %.2f, max %.2f)\n' \
		"$wf" "$walk_median" "$walk_min" "$walk_max"
	printf '                            (maintenance time-zeek-bt %d, attached, mean per walk; median of %d runs)\n' \
		"$walk_count" "$have_walk"
else
	echo "spyglass stack walk:        no successful run"
fi
if [[ -e $tmp/bytes.last ]]; then
	mapfile -t asked < <(stat_lines "$tmp/bytes.last" "memory asked for")
	mapfile -t fetched < <(stat_lines "$tmp/bytes.last" "memory read from the process")
	if ((${#asked[@]} == 2 && ${#fetched[@]} == 2)); then
		read -r ab0 ar0 <<<"${asked[0]}"
		read -r ab1 ar1 <<<"${asked[1]}"
		read -r fb0 fr0 <<<"${fetched[0]}"
		read -r fb1 fr1 <<<"${fetched[1]}"
		printf 'spyglass reads per zeek-bt: %d bytes asked of the target in %d reads; %d bytes read\n' \
			"$((ab1 - ab0))" "$((ar1 - ar0))" "$((fb1 - fb0))"
		printf '                            from the process in %d system calls (whole pages for small reads)\n' \
			"$((fr1 - fr0))"
		printf '                            before zeek-bt (finding Zeek, running): %d bytes asked in %d\n' \
			"$ab0" "$ar0"
		printf '                            reads, %d bytes in %d system calls\n' "$fb0" "$fr0"
	else
		echo "spyglass reads per zeek-bt: no target-stats lines"
	fi
fi
echo

echo "ratios (median whole run of the tool / median of spyglass zeek-bt):"
for t in gdb-cs gdb-bt eu-stack sg-bt-zeek; do
	case $t in
	gdb-cs) what="gdb reading call_stack" ;;
	gdb-bt) what="gdb bt (native, main thread)" ;;
	eu-stack) what="eu-stack (native, every thread)" ;;
	sg-bt-zeek) what="spyglass bt --zeek" ;;
	esac
	if [[ -n ${median_of[spyglass]:-} && -n ${median_of[$t]:-} ]]; then
		printf '  %-36s %8.1fx\n' "$what" "$(calc "${median_of[$t]} / ${median_of[spyglass]}")"
	elif [[ -n ${skip_of[$t]:-} ]]; then
		printf '  %-36s %s\n' "$what" "${skip_of[$t]}"
	else
		printf '  %-36s %s\n' "$what" "n/a: no successful runs"
	fi
done
echo

echo "goals:"
if ((have_sg)); then
	goal "zeek-bt, whole run < ${goal_wall_ms} ms" \
		"$(verdict "${median_of[spyglass]} < $goal_wall_ms")" \
		"$(printf '%.2f ms (median, installed, %d plugins)' "${median_of[spyglass]}" \
			"$(wc -w <<<"$inst_plugin_names")")"
	goal "target stopped < $(calc "$goal_pause_us / 1000") ms" \
		"$(verdict "$paused_median < $goal_pause_us")" \
		"$(printf '%.0f us (median paused_us)' "$paused_median")"
else
	goal "zeek-bt, whole run < ${goal_wall_ms} ms" n/a "no successful spyglass runs"
	goal "target stopped < $(calc "$goal_pause_us / 1000") ms" n/a "no successful spyglass runs"
fi
if ((have_walk)); then
	goal "warm walk of a ${zk_frames}-frame stack < ${goal_walk_us} us" \
		"$(verdict "$walk_median < $goal_walk_us")" \
		"$(printf '%.2f us (median; %s frames)' "$walk_median" "$wf")"
else
	goal "warm walk of a ${zk_frames}-frame stack < ${goal_walk_us} us" n/a "no successful runs"
fi
echo

finish
