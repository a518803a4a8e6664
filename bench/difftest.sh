#!/usr/bin/env bash
# bench/difftest.sh N [BUILD_DIR] - the differential tester's soak: N
# random seeds (C or C++ as each seed draws), each built the whole matrix
# of tests/difftest/lib.sh (gcc and clang; -O0 -O1 -O2 -O3 -Os; with and
# without frame pointers; DWARF 4 and 5; PIE and not: 80 builds), each
# build compared with gdb on the same process (doc/difftest.md).
#
# Prints what was compared (programs, builds, frames, locals and
# arguments, values, types) and the divergences by class
# (tests/difftest/quirks); the unexplained ones in full, with the seed and
# build to give tests/difftest/minimise.sh.  Environment:
#   DT_SEED      the first seed (default: random); seeds are DT_SEED..+N-1
#   DT_BUILDS    how many builds of the matrix per seed, drawn at random
#                (default: all 80)
#   DT_KEEP      a directory to keep the programs and outputs in
#   DT_TIME      stop after the seed that ends past this many seconds
#                (a soak of a given length: N is then an upper bound)
# Exit status: 0 if every divergence is explained, 1 if not, 2 on a
# setup error.
set -uo pipefail
export LC_ALL=C.UTF-8

n=${1:-}
[[ $n =~ ^[0-9]+$ ]] || { echo "usage: bench/difftest.sh N [BUILD_DIR]" >&2; exit 2; }
top_srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
top_builddir=$(cd "${2:-$top_srcdir/_build}" 2>/dev/null && pwd) || { echo "bench: no build directory ${2:-_build}" >&2; exit 2; }
. "$top_srcdir/tests/difftest/lib.sh"
[ -x "$top_builddir/tests/difftest/gen" ] ||
	make -s -C "$top_builddir" tests/difftest/gen >/dev/null || { echo "bench: cannot build tests/difftest/gen" >&2; exit 2; }

work=${DT_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/difftest.XXXXXX")}
trap 'dt_kill_all; [ -n "${DT_KEEP:-}" ] || rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
dt_init "$work"
[ -x "$dt_gdb" ] || { echo "bench: gdb is not installed" >&2; exit 2; }
[ "$dt_have_gcc" = 1 ] || { echo "bench: gcc/g++ are not installed" >&2; exit 2; }
[ "$dt_have_clang" = 1 ] || echo "# clang/clang++ are not installed: their builds are skipped"

mapfile -t matrix < <(dt_builds_all)
seed0=${DT_SEED:-$((RANDOM * 32768 + RANDOM))}
per=${DT_BUILDS:-${#matrix[@]}}
start=$(date +%s)
echo "# seeds $seed0..$((seed0 + n - 1)), $per builds each"
for ((s = seed0; s < seed0 + n; s++)); do
	lang=$("$dt_gen" -s "$s" -m | awk '$1 == "lang" { print $2 }')
	dt_n_programs=$((dt_n_programs + 1))
	mapfile -t builds < <(printf '%s\n' "${matrix[@]}" | awk -v s="$s" 'BEGIN { srand(s) } { print rand() "\t" $0 }' |
		sort -n | cut -f2 | head -n "$per")
	for b in "${builds[@]}"; do
		[ "${b%%-*}" = clang ] && [ "$dt_have_clang" = 0 ] && continue
		dt_run "$s" "$lang" "$b"
		[ -n "${DT_KEEP:-}" ] || rm -rf "$dt_dir/$s-$lang-$b"
	done
	dt_classify
	echo "# seed $s ($lang): $dt_n_records divergences so far, $dt_n_unexplained unexplained, $(($(date +%s) - start)) s"
	if [ -n "${DT_TIME:-}" ] && [ $(($(date +%s) - start)) -ge "$DT_TIME" ]; then
		echo "# DT_TIME=$DT_TIME s reached after $((s - seed0 + 1)) seeds"
		break
	fi
done
dt_classify
echo
dt_summary
if [ "$dt_n_unexplained" -gt 0 ]; then
	echo
	echo "unexplained (minimise with tests/difftest/minimise.sh -B $top_builddir SEED LANG BUILD):"
	grep '^UNEXPLAINED	' "$dt_dir/classified" | cut -f2- | cut -c1-4000
	exit 1
fi
exit 0
