#!/usr/bin/env bash
# bench/gcore.sh [BUILD_DIR] - time "gcore" of a process with 1 GiB of
# written heap: spyglass's generate-core-file against gdb's gcore on the
# same process, one run each, with the time spyglass kept it stopped.
#
# BUILD_DIR defaults to _build in the repository root.  Environment:
#   BENCH_GCORE_MB  MiB the fixture mallocs and writes (default 1024)
#   BENCH_TIMEOUT   seconds before a single run is killed (default 60)
#   CC              compiler for the fixture (default cc)
# The cores go to a temporary folder under TMPDIR (default /tmp), one at a
# time: it needs BENCH_GCORE_MB plus a few MiB free.
#
# Goal (issue 12): spyglass at most gdb's time.  A report, not a test: it
# exits 0 even when the goal is missed, 1 if a run failed, 2 if it could
# not be set up.
set -euo pipefail
export LC_ALL=C

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$bench_dir/common.sh"

mb=${BENCH_GCORE_MB:-1024}
[[ $mb =~ ^[0-9]+$ ]] && ((mb >= 1)) || die "BENCH_GCORE_MB must be a number of MiB"
bench_args gcore.sh "$@"
bench_tmp
export SPYGLASS_PLUGIN_DIR=$tmp/no-plugins SPYGLASS_PLUGIN_PATH=
export LD_LIBRARY_PATH=$sg_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset DEBUGINFOD_URLS

# The fixture: MB MiB from malloc, every page written with its own bytes
# (no page reads as zeros, so neither tool can leave it as a hole).
cat >"$tmp/big.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t size = (size_t)atol(argv[1]) << 20;
	unsigned long *p = malloc(size);
	if (!p)
		return 1;
	for (size_t i = 0; i < size / sizeof(*p); i++)
		p[i] = i * 0x9e3779b97f4a7c15ul | 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
C
"${CC:-cc}" -O2 -o "$tmp/big" "$tmp/big.c" || die "cannot build the fixture"
launch_fixture "$tmp/big" "$mb"
command -v gdb >/dev/null || die "gdb is not installed: nothing to compare with"
rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$fixture_pid/status")

# run NAME CMD...: one timed run; the core is checked and deleted, and the
# page cache's dirty pages written out before the next run starts.
failed=0
run() {
	local name=$1 t0 t1 rc=0
	shift
	sync
	t0=${EPOCHREALTIME//[!0-9]/}
	timeout -k 5 "$run_timeout" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	t1=${EPOCHREALTIME//[!0-9]/}
	REPLY=$(((t1 - t0) / 1000))
	if ((rc)) || [[ ! -s $tmp/$name.core ]]; then
		echo "bench: $name failed (status $rc): $(tail -3 "$tmp/$name.err")" >&2
		failed=1
	fi
	core_mb=$(($(stat -c %s "$tmp/$name.core" 2>/dev/null || echo 0) >> 20))
	rm -f "$tmp/$name.core"
}

run gdb gdb -nx -batch -p "$fixture_pid" -ex "gcore $tmp/gdb.core"
gdb_ms=$REPLY gdb_mb=$core_mb
run spyglass "$sg_bin" -nx -batch -p "$fixture_pid" -ex "gcore $tmp/spyglass.core"
sg_ms=$REPLY sg_mb=$core_mb
# "(1.1 GB of memory in 812.3 ms; process 42 paused 830.0 ms)"
detail=$(grep -o '^(.*)$' "$tmp/spyglass.out" || echo "(no report)")
state=$(awk '/^State:/ { print $2 }' "/proc/$fixture_pid/status")
tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$fixture_pid/status")

printf 'gcore of a process with %d MiB of heap (RSS %d MiB), one run each\n' "$mb" $((rss_kb >> 10))
printf '  %-9s %8d ms  core %5d MiB\n' gdb "$gdb_ms" "$gdb_mb" spyglass "$sg_ms" "$sg_mb"
printf '  spyglass/gdb: %s  spyglass %s\n' \
	"$(awk -v a="$sg_ms" -v b="$gdb_ms" 'BEGIN { printf "%.2f", b ? a / b : 0 }')" "$detail"
printf '  goal: at most gdb'\''s time: %s\n' "$( ((sg_ms <= gdb_ms)) && echo met || echo MISSED)"
printf '  afterwards the process is %s, tracer %s\n' "${state:-gone}" "${tracer:-?}"
exit "$failed"
