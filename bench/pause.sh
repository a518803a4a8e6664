#!/bin/bash
# bench/pause.sh - how long spyglass keeps a target stopped (doc/pause.md).
#
# Usage: bench/pause.sh [BUILD_DIR [OTHER_BUILD_DIR]]
#
# Installs each build (make install DESTDIR=...), as users run it with its
# default plugins, starts fixture-threads (BENCH_THREADS threads,
# BENCH_DEPTH frames deep) and runs, BENCH_REPS times after a warm-up,
#   --snapshot -ex 'thread apply all bt'
#   --snapshot -ex 'info threads'
#   --no-snapshot -ex 'thread apply all bt'  (live: printed while stopped;
#                                       a build from before --no-snapshot
#                                       runs it without the option)
#   no command                          (an attach and a detach)
# taking --stats' paused_us: from the first thread's stop to the last
# one's release.  With two builds the runs alternate, old then new, so
# that both see the same load.  Prints the median and the range in ms.
# Goal (issue 13): the snapshot bt under 2 ms.
set -euo pipefail
export LC_ALL=C
bench_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$bench_dir/common.sh"

(($# <= 2)) || die "usage: bench/pause.sh [BUILD_DIR [OTHER_BUILD_DIR]]"
builds=("${1:-$repo_dir/_build}")
(($# < 2)) || builds+=("$2")
bench_args pause.sh "${builds[0]}"
bench_tmp
start_fixture

declare -a bins libs plugdirs names nosnap
for i in "${!builds[@]}"; do
	d=$(cd "${builds[$i]}" 2>/dev/null && pwd) || die "no build directory ${builds[$i]}"
	make -C "$d" -j2 install DESTDIR="$tmp/inst$i" >"$tmp/install$i.log" 2>&1 || {
		tail -n 20 "$tmp/install$i.log" >&2
		die "make -C $d install failed"
	}
	bins[i]=$(find "$tmp/inst$i" -path '*/bin/spyglass' -type f | head -n 1)
	lib=$(find "$tmp/inst$i" -name 'libspyglass.so.*' -type f | head -n 1)
	plug=$(find "$tmp/inst$i" -path '*/plugins/cfi-unwind.so' | head -n 1)
	# A batch bt takes a snapshot by default since --no-snapshot exists.
	nosnap[i]=
	if LD_LIBRARY_PATH=$(dirname "$lib") "${bins[i]}" --help 2>&1 | grep -q -- --no-snapshot; then
		nosnap[i]=--no-snapshot
	fi
	[[ -n ${bins[i]} && -n $lib && -n $plug ]] || die "$d installs no spyglass, library or plugins"
	libs[i]=$(dirname "$lib") plugdirs[i]=$(dirname "$plug")
	names[i]=$d
done

cases=("snapshot bt" "snapshot info threads" "live bt" "attach+detach")
case_args() {
	case $2 in
	"snapshot bt") args=(--snapshot -ex 'thread apply all bt') ;;
	"snapshot info threads") args=(--snapshot -ex 'info threads') ;;
	"live bt") args=(${nosnap[$1]:+"${nosnap[$1]}"} -ex 'thread apply all bt') ;;
	*) args=() ;;
	esac
}

# pause I CASE: one run of build I; prints its paused_us.
pause() {
	local args err=$tmp/err
	case_args "$1" "$2"
	LD_LIBRARY_PATH=${libs[$1]} SPYGLASS_PLUGIN_DIR=${plugdirs[$1]} \
		timeout "$run_timeout" "${bins[$1]}" -nx -batch --stats -p "$fixture_pid" "${args[@]}" \
		>/dev/null 2>"$err" || die "build ${names[$1]}, $2: exit status $?: $(tail -n 3 "$err")"
	stat_field "$err" paused_us
}

declare -A us
for ((rep = 0; rep <= reps; rep++)); do
	for c in "${cases[@]}"; do
		for i in "${!builds[@]}"; do
			v=$(pause "$i" "$c")
			((rep == 0)) || us[$i,$c]+="$v "
		done
	done
done

echo "pause (ms) of a target of $expected_threads threads, $depth frames deep: median (min-max) of $reps runs"
for i in "${!builds[@]}"; do
	echo "build $((i + 1)): ${names[i]}"
done
printf '%-24s' case
for i in "${!builds[@]}"; do
	printf ' %-22s' "build $((i + 1))"
done
echo
for c in "${cases[@]}"; do
	printf '%-24s' "$c"
	for i in "${!builds[@]}"; do
		# shellcheck disable=SC2086 # a space-separated list
		read -r m lo hi < <(summarize ${us[$i,$c]})
		printf ' %-22s' "$(calc "sprintf(\"%.2f (%.2f-%.2f)\", $m / 1000, $lo / 1000, $hi / 1000)")"
		[[ $c != "snapshot bt" ]] || last_median=$m
	done
	echo
done
goal "snapshot bt under 2 ms (last build)" "$(verdict "$last_median < 2000")" \
	"$(calc "sprintf(\"%.2f ms\", $last_median / 1000)")"
finish
