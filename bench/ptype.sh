#!/usr/bin/env bash
# bench/ptype.sh [BUILD_DIR] - time the first "ptype" on a big module: a
# python3.11 process whose libpython3.11 carries ~9 MB of .debug_info, with
# spyglass and gdb in the same run, and check the goal of the issue (under
# 100 ms).
#
# Each run is a new process that attaches, runs one ptype and detaches, so
# every run is a "first ptype": nothing is cached but the page cache.
# Three queries: a type in the first unit of libpython's DWARF, a type that
# only a unit near the end defines, and a type that does not exist (the
# whole DWARF of every module is looked at).
#
# Environment: BENCH_REPS (default 10), BENCH_TIMEOUT (60), and
#   BENCH_PYTHON   the python3.11 to run (default: pyenv's 3.11, else
#                  python3.11 on PATH)
#
# Exit status as bench/bt.sh: 0 even when a goal is missed, 1 if a run
# failed, 2 if the benchmark could not be set up.
set -euo pipefail
export LC_ALL=C

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

goal_ms=100

bench_args ptype.sh "$@"
bench_tmp
# The build's plugins, as an installed spyglass would load its own: the
# unwinders warm their caches before the stop, which is part of a real run.
plugin_path=
for p in "$build_dir"/plugins/*/.libs/*.so; do
	[[ -e $p && $p != */example/* ]] && plugin_path+=${plugin_path:+:}$(dirname "$p")
done
export SPYGLASS_PLUGIN_DIR=$tmp/no-plugins SPYGLASS_PLUGIN_PATH=$plugin_path
unset DEBUGINFOD_URLS

python=${BENCH_PYTHON:-}
if [[ -z $python ]]; then
	root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
	for p in "$root"/versions/3.11*/bin/python3.11 "$(command -v python3.11 || true)"; do
		if [[ -x $p && $p != */shims/* ]]; then
			python=$p
			break
		fi
	done
fi
[[ -n $python && -x $python ]] || die "no python3.11 (set BENCH_PYTHON)"

launch_fixture "$python" -c 'import os, time
print("ready", os.getpid(), flush=True)
time.sleep(100000)'

# The module with libpython's DWARF: the shared library if python was built
# with --enable-shared, else the executable.
module=$(awk '$6 ~ /libpython3\.11[^/]*\.so/ { print $6; exit }' "/proc/$fixture_pid/maps")
[[ -n $module ]] || module=$(readlink "/proc/$fixture_pid/exe")
info_hex=$(readelf -SW "$module" 2>/dev/null | awk '$2 == ".debug_info" { print $6 }')
[[ -n $info_hex ]] || die "$module has no .debug_info"
info_mb=$(calc "sprintf(\"%.1f\", $((16#$info_hex)) / 1048576)")
units=$(readelf --debug-dump=info "$module" 2>/dev/null | grep -c "Compilation Unit @" || true)

find_tools gdb
start_watchdog

# name -> command
declare -A query=(
	[base]='echo'
	[early]='ptype PyObject'
	[late]='ptype struct passwd'
	[missing]='ptype struct sg_no_such_type'
)
order=(base early late missing)

tool_exec() {
	local tool=${1%%-*} q=${query[${1#*-}]}
	case $tool in
	sg)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -batch -nx -p "$fixture_pid" \
			-ex "$q" -ex 'maintenance info target-stats'
		;;
	gdb)
		exec gdb -batch -nx -p "$fixture_pid" -ex "$q"
		;;
	esac
}

# The ptype output alone, blanks squeezed, for comparing the two tools.
ptype_text() {
	sed -n '/^type = /,/^}/p' "$1" | tr -s ' \t' ' '
}

declare -A times_of units_of same_of
tools_run=(sg)
[[ -z ${skip_of[gdb]:-} ]] && tools_run+=(gdb)
for ((rep = 0; rep <= reps; rep++)); do
	for q in "${order[@]}"; do
		for tool in "${tools_run[@]}"; do
			name=$tool-$q
			rc=0
			timed_run "$name" "$tmp/$name.out" "$tmp/$name.err" || rc=$?
			us=$REPLY
			s=$(count_stopped)
			if ((s > 0)) && [[ -z $stopped_after ]]; then
				stopped_after="$s threads were stopped after $name run $rep"
			fi
			# "missing" must fail, the others succeed with a type.
			if [[ $q == base ]]; then
				((rc == 0)) || { fail "$name" "$rep" "failed (exit status $rc)"; continue; }
			elif [[ $q == missing ]]; then
				if ! grep -qi "no struct type named\|no symbol" "$tmp/$name.out" "$tmp/$name.err"; then
					fail "$name" "$rep" "did not say the type does not exist (exit status $rc)"
					continue
				fi
			elif ((rc)) || ! grep -q '^type = ' "$tmp/$name.out"; then
				fail "$name" "$rep" "failed (exit status $rc)"
				continue
			fi
			if [[ $tool == sg ]]; then
				units_of[$q]=$(sed -n 's/^name index: \([0-9]*\) units.*/\1/p' "$tmp/$name.out")
			fi
			((rep > 0)) || continue
			times_of[$name]+="$us "
		done
		if [[ $q != missing && $q != base && -z ${skip_of[gdb]:-} && -s $tmp/gdb-$q.out ]]; then
			if [[ "$(ptype_text "$tmp/sg-$q.out")" == "$(ptype_text "$tmp/gdb-$q.out")" ]]; then
				same_of[$q]=yes
			else
				same_of[$q]=NO
				cp "$tmp/sg-$q.out" "$tmp/gdb-$q.out" "${TMPDIR:-/tmp}/" 2>/dev/null || true
			fi
		fi
	done
done

print_header "spyglass benchmark: first ptype on $(basename "$module") ($info_mb MB of .debug_info, $units units), $reps timed runs" gdb
printf '%-34s %10s %8s %10s %8s %7s %7s %5s\n' query "spyglass" min gdb min gdb/sg units same
worst=0
for q in "${order[@]}"; do
	sg_med=n/a sg_min=n/a gdb_med=n/a gdb_min=n/a ratio=n/a
	if [[ -n ${times_of[sg-$q]:-} ]]; then
		# shellcheck disable=SC2086
		read -r sg_med sg_min _ < <(summarize ${times_of[sg-$q]})
		sg_med=$(calc "sprintf(\"%.1f\", $sg_med / 1000)") sg_min=$(calc "sprintf(\"%.1f\", $sg_min / 1000)")
		[[ $q == base ]] || worst=$(calc "$sg_med > $worst ? $sg_med : $worst")
	fi
	if [[ -n ${times_of[gdb-$q]:-} ]]; then
		# shellcheck disable=SC2086
		read -r gdb_med gdb_min _ < <(summarize ${times_of[gdb-$q]})
		gdb_med=$(calc "sprintf(\"%.1f\", $gdb_med / 1000)") gdb_min=$(calc "sprintf(\"%.1f\", $gdb_min / 1000)")
		[[ $sg_med == n/a ]] || ratio=$(calc "sprintf(\"%.1fx\", $gdb_med / $sg_med)")
	fi
	label=${query[$q]}
	[[ $q != base ]] || label='(attach, detach: no command)'
	printf '%-34s %10s %8s %10s %8s %7s %7s %5s\n' "$label" "$sg_med" "$sg_min" "$gdb_med" \
		"$gdb_min" "$ratio" "${units_of[$q]:-?}" "${same_of[$q]:--}"
done
echo "(times in ms, medians and minimums of whole runs: start, attach, ptype, detach;"
echo " units: DWARF units spyglass's name index read, in all modules)"
echo
echo "goals:"
goal "first ptype under $goal_ms ms (worst query)" "$(verdict "$worst > 0 && $worst < $goal_ms")" "$worst ms"
finish
