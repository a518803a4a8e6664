#!/usr/bin/env bash
# bench/print.sh [BUILD_DIR] - time "print" of big libstdc++ containers with
# spyglass (its libstdcxx plugin) and gdb (its libstdc++ printers) in the
# same run, and check the goals of the issue:
#   - print of a std::vector<int> of 10 million elements under
#     "set print elements 200" reads only what it prints (bytes reported);
#   - print of a 10,000-node std::map<std::string, int> with elements
#     unlimited is at least 10x faster than gdb.
#
# Environment: BENCH_REPS (default 10), BENCH_TIMEOUT (60), CXX (c++).
# Exit status as bench/bt.sh: 0 even when a goal is missed, 1 if a run
# failed or the two tools printed different values, 2 if the benchmark could
# not be set up.
set -euo pipefail
export LC_ALL=C

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

goal_speedup=10
goal_vector_bytes=4096		# 200 ints are 800 bytes; 10M are 40 MB

bench_args print.sh "$@"
bench_tmp

[[ -e $build_dir/plugins/libstdcxx/.libs/libstdcxx.so ]] ||
	die "no libstdcxx plugin in $build_dir/plugins/libstdcxx/.libs (build it first)"
plugin_path=
for p in "$build_dir"/plugins/*/.libs/*.so; do
	[[ -e $p && $p != */example/* ]] && plugin_path+=${plugin_path:+:}$(dirname "$p")
done
export SPYGLASS_PLUGIN_DIR=$tmp/no-plugins SPYGLASS_PLUGIN_PATH=$plugin_path
unset DEBUGINFOD_URLS

"${CXX:-c++}" -O0 -g -o "$tmp/fixture-stl" "$bench_dir/fixture-stl.cc" ||
	die "cannot build the fixture"
launch_fixture "$tmp/fixture-stl"
find_tools gdb
start_watchdog

# gdb's printers look the map's node type up from the selected frame's
# scope: in pause()'s frame (libc) they fail with "'NoneType' object has no
# attribute 'pointer'", so gdb gets main's frame.  spyglass does not need it.
tool_exec() {
	case $1 in
	sg-vector)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -batch -nx -p "$fixture_pid" \
			-ex 'set print elements 200' -ex 'maintenance info target-stats' \
			-ex 'print big_vector' -ex 'maintenance info target-stats'
		;;
	sg-map)
		LD_LIBRARY_PATH=$sg_libdir exec "$sg_bin" -batch -nx -p "$fixture_pid" \
			-ex 'set print elements unlimited' -ex 'print big_map'
		;;
	gdb-vector)
		exec gdb -batch -nx -p "$fixture_pid" -ex 'frame function main' \
			-ex 'set print elements 200' -ex 'print big_vector'
		;;
	gdb-map)
		exec gdb -batch -nx -p "$fixture_pid" -ex 'frame function main' \
			-ex 'set print elements unlimited' -ex 'print big_map'
		;;
	esac
}

# The "$1 = ..." line of OUT.
# shellcheck disable=SC2016 # a literal $1
value_line() {
	grep -m 1 '^\$1 = ' "$1" || true
}

# stat_diff OUT WHAT: the growth of "WHAT: N bytes in M reads" between the
# two "maintenance info target-stats" of OUT, as "BYTES READS".
stat_diff() {
	sed -n "s/^$2: \\([0-9]*\\) bytes in \\([0-9]*\\) reads/\\1 \\2/p" "$1" |
		awk 'NR == 1 { b = $1; r = $2 } NR == 2 { print $1 - b, $2 - r }'
}

declare -A times_of
tools_run=(sg)
[[ -z ${skip_of[gdb]:-} ]] && tools_run+=(gdb)
vector_asked='' vector_fetched='' differ=0
for ((rep = 0; rep <= reps; rep++)); do
	for what in vector map; do
		for tool in "${tools_run[@]}"; do
			name=$tool-$what
			rc=0
			timed_run "$name" "$tmp/$name.out" "$tmp/$name.err" || rc=$?
			us=$REPLY
			s=$(count_stopped)
			if ((s > 0)) && [[ -z $stopped_after ]]; then
				stopped_after="$s threads were stopped after $name run $rep"
			fi
			if ((rc)) || [[ -z $(value_line "$tmp/$name.out") ]]; then
				fail "$name" "$rep" "failed (exit status $rc)"
				continue
			fi
			if [[ $name == sg-vector ]]; then
				vector_asked=$(stat_diff "$tmp/$name.out" "memory asked for")
				vector_fetched=$(stat_diff "$tmp/$name.out" "memory read from the process")
			fi
			((rep > 0)) || continue
			times_of[$name]+="$us "
		done
		if [[ -z ${skip_of[gdb]:-} && $rep == 0 ]] &&
			[[ "$(value_line "$tmp/sg-$what.out")" != "$(value_line "$tmp/gdb-$what.out")" ]]; then
			echo "bench: spyglass and gdb print big_$what differently:" >&2
			diff <(value_line "$tmp/sg-$what.out" | cut -c1-300) \
				<(value_line "$tmp/gdb-$what.out" | cut -c1-300) >&2 || true
			differ=$((differ + 1))
		fi
	done
done

map_pairs=$(value_line "$tmp/sg-map.out" | grep -o '\] = ' | wc -l)
print_header "spyglass benchmark: print of big libstdc++ containers, $reps timed runs" gdb
printf '%-58s %9s %8s %9s %8s %7s\n' command spyglass min gdb min gdb/sg
declare -A med_of
for what in vector map; do
	case $what in
	vector) label="print big_vector (10M ints; set print elements 200)" ;;
	map) label="print big_map (10,000 string keys; elements unlimited)" ;;
	esac
	row=()
	for tool in sg gdb; do
		if [[ -n ${times_of[$tool-$what]:-} ]]; then
			# shellcheck disable=SC2086
			read -r m mn _ < <(summarize ${times_of[$tool-$what]})
			med_of[$tool-$what]=$(calc "sprintf(\"%.1f\", $m / 1000)")
			row+=("${med_of[$tool-$what]}" "$(calc "sprintf(\"%.1f\", $mn / 1000)")")
		else
			row+=(n/a n/a)
		fi
	done
	ratio=n/a
	if [[ -n ${med_of[sg-$what]:-} && -n ${med_of[gdb-$what]:-} ]]; then
		ratio=$(calc "sprintf(\"%.1fx\", ${med_of[gdb-$what]} / ${med_of[sg-$what]})")
	fi
	printf '%-58s %9s %8s %9s %8s %7s\n' "$label" "${row[@]}" "$ratio"
done
echo "(times in ms, medians and minimums of whole runs: start, attach, print, detach)"
read -r va_bytes va_reads <<<"${vector_asked:-? ?}"
read -r vf_bytes vf_reads <<<"${vector_fetched:-? ?}"
echo "print big_vector: $va_bytes bytes asked of the target in $va_reads reads;" \
	"$vf_bytes bytes read from the process in $vf_reads system calls (whole pages for small reads)"
echo "print big_map: $map_pairs pairs printed; same output as gdb: $( ((differ)) && echo NO || echo yes)"
echo
echo "goals:"
goal_width=44
if [[ $va_bytes =~ ^[0-9]+$ ]]; then
	goal "vector: reads only what it prints" "$(verdict "$va_bytes <= $goal_vector_bytes")" \
		"$va_bytes bytes (200 ints are 800; the vector holds 40,000,000)"
else
	goal "vector: reads only what it prints" n/a "no successful runs"
fi
if [[ -n ${med_of[sg-map]:-} && -n ${med_of[gdb-map]:-} ]]; then
	goal "map: at least ${goal_speedup}x faster than gdb" \
		"$(verdict "${med_of[gdb-map]} / ${med_of[sg-map]} >= $goal_speedup")" \
		"$(calc "sprintf(\"%.1fx\", ${med_of[gdb-map]} / ${med_of[sg-map]})")"
elif [[ -n ${skip_of[gdb]:-} ]]; then
	goal "map: at least ${goal_speedup}x faster than gdb" SKIP "${skip_of[gdb]}"
else
	goal "map: at least ${goal_speedup}x faster than gdb" n/a "no successful runs"
fi
((differ == 0)) || failures=$((failures + differ))
finish
