#!/bin/bash
# tests/difftest/minimise.sh: shrink a generated program that shows a
# divergence, while it still shows it.
#
#   tests/difftest/minimise.sh [-B BUILD_DIR] [-c CLASS | -p REGEX] SEED LANG BUILD
#
# The divergence: a record of class CLASS (see tests/difftest/quirks), or
# one matching the Perl REGEX (on "CONTEXT<TAB>RECORD"), or by default any
# record no quirk explains.  The search is greedy, one step at a time, kept
# when the divergence remains: no threads besides main, fewer functions per
# thread, fewer globals, then each feature bit of gen's mask cleared (see
# F_* in gen.c).  The sizes change what the seed draws after them, so a
# step may also lose the divergence by luck; that step is then not taken.
# Prints the gen arguments it ends with, the program and the records.
# BUILD_DIR defaults to _build; BUILD is one of the matrix (gcc-O2-nofp-d4-pie).
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
top_builddir=$top_srcdir/_build
class='' regex=''
while getopts B:c:p: o; do
	case $o in
	B) top_builddir=$(cd "$OPTARG" && pwd) || exit 2 ;;
	c) class=$OPTARG ;;
	p) regex=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 3 ] || { sed -n '4,5p' "$0" >&2; exit 2; }
seed=$1 lang=$2 build=$3
. "$top_srcdir/tests/difftest/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/difftest-min.XXXXXX")
trap 'dt_kill_all; rm -rf "$work"' EXIT
trap 'exit 130' INT
dt_init "$work"

# still ARGS...: does the program of these gen arguments still diverge?
# Leaves its records in $work/hits.
tries=0
still() {
	tries=$((tries + 1))
	: >"$dt_dir/records"
	dt_run "$seed" "$lang" "$build" "$@" || return 1
	dt_classify
	if [ -n "$class" ]; then
		awk -F '\t' -v c="$class" '$1 == c' "$dt_dir/classified"
	elif [ -n "$regex" ]; then
		cut -f2- "$dt_dir/classified" | R="$regex" perl -ne 'print if /$ENV{R}/'
	else
		grep '^UNEXPLAINED	' "$dt_dir/classified"
	fi >"$work/hits"
	[ -s "$work/hits" ]
}

# The sizes the seed draws, from the program's first line.
"$dt_gen" -s "$seed" -x "$lang" | head -1 >"$work/head"
read -r f n t g < <(sed -E 's/.* -f (0x[0-9a-f]+|0) -n ([0-9]+) -t ([0-9]+) -g ([0-9]+) .*/\1 \2 \3 \4/' "$work/head")
f=$((f))
if ! still -f "$f" -n "$n" -t "$t" -g "$g"; then
	echo "seed $seed $lang $build: no such divergence to start from" >&2
	exit 1
fi
[ "$t" -gt 0 ] && still -f "$f" -n "$n" -t 0 -g "$g" && t=0
while [ "$n" -gt 1 ] && still -f "$f" -n $((n - 1)) -t "$t" -g "$g"; do
	n=$((n - 1))
done
# Globals: none, else halve while it holds.
if [ "$g" -gt 0 ] && still -f "$f" -n "$n" -t "$t" -g 0; then
	g=0
fi
while [ "$g" -gt 1 ] && still -f "$f" -n "$n" -t "$t" -g $((g / 2)); do
	g=$((g / 2))
done
for ((bit = 0; bit < 29; bit++)); do
	((f & (1 << bit))) || continue
	still -f $((f & ~(1 << bit))) -n "$n" -t "$t" -g "$g" && f=$((f & ~(1 << bit)))
done
still -f "$f" -n "$n" -t "$t" -g "$g"
args=(-s "$seed" -x "$lang" -f "$(printf '%#x' "$f")" -n "$n" -t "$t" -g "$g")
echo "# $tries runs; smallest: gen ${args[*]}, built $build"
cut -f2- "$work/hits" | sed 's/^/# /'
"$dt_gen" "${args[@]}"
