#!/bin/bash
# Run every fuzz target (fuzz/, doc/fuzzing.md) for a while and report
# executions, corpus growth and crashes per target.
#
#   bench/fuzz.sh [SECONDS [TARGET...]]     default: 600 s, all targets
#
# Needs a build tree with the fuzz targets (make check builds them);
# BUILD_DIR names it (default _build).  Two targets run at a time, one per
# core.  The corpora grow in bench/out/fuzz/TARGET, so that a second run
# starts where the first stopped; crashes land in bench/out/fuzz/crashes.
set -u
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-_build}
secs=${1:-600}
shift 2>/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(args command expr valprint cfi note typeindex core describe)
jobs=${FUZZ_JOBS:-2}
out=bench/out/fuzz
mkdir -p "$out/crashes"

make -s -C "$build" tests/fixtures/sg-stl tests/fixtures/sg-libcxx tests/fixtures/sg-data \
	tests/fixtures/bt-c-O2-nofp >/dev/null || exit 1
for t in "${targets[@]}"; do
	make -s -C "$build" "fuzz/fuzz-$t" >/dev/null || { echo "fuzz.sh: cannot build fuzz-$t" >&2; exit 1; }
done

run_one() {
	local t=$1 corpus=$out/$t
	mkdir -p "$corpus"
	# The committed seeds, and those run-fuzz.sh makes, on the first run.
	[ -d "fuzz/corpus/$t" ] && cp -n "fuzz/corpus/$t"/* "$corpus/" 2>/dev/null
	[ -n "$(ls "$corpus")" ] || head -c 64 /dev/zero >"$corpus/zeros"
	"$build/fuzz/fuzz-$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
		-max_len=8192 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$out/crashes/$t-" "$corpus" >"$out/$t.log" 2>&1
	echo $? >"$out/$t.status"
}

echo "fuzzing ${targets[*]} for $secs s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
	run_one "$t" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

printf '%-10s %12s %10s %8s %8s %s\n' target executions exec/s corpus crashes status
for t in "${targets[@]}"; do
	log=$out/$t.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	crashes=$(ls "$out/crashes" | grep -c "^$t-")
	printf '%-10s %12s %10s %8s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" \
		"$(ls "$out/$t" | wc -l)" "$crashes" "$(cat "$out/$t.status")"
done
