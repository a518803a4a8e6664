#!/bin/bash
# GCC's own libstdc++ pretty-printer testsuite as the oracle: the test
# programs of libstdc++-v3/testsuite/libstdc++-prettyprinters, taken from
# the g++ 12 sources of Debian's gcc-12-source at test time (nothing of
# GCC's is in this tree), each stopped at its "Mark SPOT" line; every
# note-test, regexp-test, whatis-test and whatis-regexp-test of theirs is a
# test point for spyglass.  gdb (with Debian's libstdc++ printers) answers
# the same commands, for its count.  Misses spyglass is known to have are
# in tests/gcc-printers/expected-misses: a listed miss is a TODO, an
# unlisted one fails, and so does a listed one that now passes.
# doc/gcc-printers.md says more; the full table is written to
# $top_builddir/tests/gcc-printers-run/table.txt (bench/gcc-printers.sh).
. "$top_srcdir/tests/test-subr.sh"

here=$top_srcdir/tests/gcc-printers
work=$top_builddir/tests/gcc-printers-run
misses_file=$here/expected-misses
table=$work/table.txt
export LC_ALL=C.UTF-8

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

tarball=${GCC_SOURCE_TARBALL:-}
if [ -z "$tarball" ]; then
	for t in /usr/src/gcc-12/gcc-12*.tar.*; do
		[ -f "$t" ] && tarball=$t && break
	done
fi
[ -f "$tarball" ] ||
	skip_all "gcc-12-source is not installed (no /usr/src/gcc-12/gcc-12*.tar.*)"
PYTHON=
for p in python3.11 python3; do
	if command -v "$p" >/dev/null; then
		PYTHON=$(command -v "$p")
		break
	fi
done
[ -n "$PYTHON" ] || skip_all "no python3 to read the test programs' directives"
command -v g++ >/dev/null || skip_all "no g++"
dg() {
	"$PYTHON" "$here/dg.py" "$@"
}

# GCC's files, extracted once per tarball into the build tree.
mkdir -p "$work"
src=$work/src
stamp="$tarball $(stat -c %Y "$tarball")"
if [ "$(cat "$work/extracted" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src" "$work/extract"
	mkdir -p "$work/extract"
	# The programs, and the testsuite's headers cxx11.cc includes as
	# "../util/testsuite_allocator.h": next to bin/, where the copies are.
	rm -rf "$work/util"
	if ! tar -C "$work/extract" -xf "$tarball" --wildcards \
		'*/libstdc++-v3/testsuite/libstdc++-prettyprinters/*.cc' \
		'*/libstdc++-v3/testsuite/util/testsuite_*.h' 2>"$work/tar.err"; then
		sed 's/^/# /' "$work/tar.err"
		skip_all "could not extract the pretty-printer tests from $tarball"
	fi
	mv "$work"/extract/*/libstdc++-v3/testsuite/libstdc++-prettyprinters "$src"
	mv "$work"/extract/*/libstdc++-v3/testsuite/util "$work/util"
	rm -rf "$work/extract"
	echo "$stamp" >"$work/extracted"
fi
programs=()
for f in "$src"/*.cc; do
	[ -f "$f" ] && programs+=("$(basename "$f" .cc)")
done
[ ${#programs[@]} -gt 0 ] || skip_all "no test programs in $tarball"
echo "# ${#programs[@]} test programs from $tarball"

# Each program stopped at its SPOT, built with the dg-options it asks for
# (after the sources, for -lstdc++fs), in parallel; again only when the
# program, the spot or the reader changed.  A program that does not build
# is skipped, with the compiler's first error.
bin=$work/bin
mkdir -p "$bin"
gcc -O0 -g -c -o "$bin/spot.o.tmp" "$here/spot.c" || skip_all "could not build $here/spot.c"
cmp -s "$bin/spot.o.tmp" "$bin/spot.o" || mv "$bin/spot.o.tmp" "$bin/spot.o"
rm -f "$bin/spot.o.tmp"
for p in "${programs[@]}"; do
	if [ ! -e "$bin/$p.cc" ] || [ "$src/$p.cc" -nt "$bin/$p.cc" ] || [ "$here/dg.py" -nt "$bin/$p.cc" ]; then
		# Rewritten only if it changes: a rewrite means a rebuild.
		if dg prepare "$src/$p.cc" "$bin/$p.cc.tmp" >"$bin/$p.options"; then
			cmp -s "$bin/$p.cc.tmp" "$bin/$p.cc" || mv "$bin/$p.cc.tmp" "$bin/$p.cc"
		fi
		rm -f "$bin/$p.cc.tmp"
	fi
done
# shellcheck disable=SC2016 # expanded by the inner bash
build_one='p=$1
	if [ -x "$p" ] && [ "$p" -nt "$p.cc" ] && [ "$p" -nt spot.o ]; then exit 0; fi
	rm -f "$p" "$p.err"
	[ -f "$p.cc" ] || { echo "no SPOT copy" >"$p.err"; exit 0; }
	# shellcheck disable=SC2046
	g++ -I../util -o "$p" "$p.cc" spot.o $(cat "$p.options") 2>"$p.err" || rm -f "$p"'
(cd "$bin" && printf '%s\n' "${programs[@]}" | xargs -P2 -n1 bash -c "$build_one" build)

# Every built program runs, stopped at its SPOT.
declare -A pid_of
for p in "${programs[@]}"; do
	[ -x "$bin/$p" ] || continue
	(cd "$work" && exec "$bin/$p" >/dev/null 2>"$bin/$p.ready") &
	pid_of[$p]=$!
	fixture_pids+=($!)
done
for p in "${!pid_of[@]}"; do
	if ! wait_for 20 grep -q '^ready' "$bin/$p.ready"; then
		echo "# $p did not reach its SPOT:"
		sed 's/^/#   /' "$bin/$p.ready" | head -5
		stop_fixture "${pid_of[$p]}"
		unset "pid_of[$p]"
	fi
done

# One spyglass and one gdb per program, each command an -ex (an error in
# a -x file would end it): frame 1 is the SPOT's (frame 0 is
# sg_gcc_spot's pause).  The printers look types up in the selected
# frame, as GCC's harness (a breakpoint on the SPOT line) has them do.
have_gdb && gdb_ok=true || gdb_ok=false
for p in "${!pid_of[@]}"; do
	{ echo "frame 1"; dg commands "$src/$p.cc"; } | sed 's/^/-ex\n/' >"$bin/$p.args"
done
start=$SECONDS
for p in "${!pid_of[@]}"; do
	mapfile -t args <"$bin/$p.args"
	timeout 120 "$SG_BIN" -nx -batch -p "${pid_of[$p]}" "${args[@]}" >"$bin/$p.sg" 2>&1
done
sg_secs=$((SECONDS - start))
start=$SECONDS
if $gdb_ok; then
	# Two at a time: each gdb spends most of a second reading DWARF.
	# shellcheck disable=SC2016
	for p in "${!pid_of[@]}"; do echo "$p ${pid_of[$p]}"; done |
		GDB=$GDB bin=$bin xargs -P2 -n2 bash -c \
			'mapfile -t args <"$bin/$1.args"
			timeout 120 "$GDB" -nx -batch -p "$2" "${args[@]}" >"$bin/$1.gdb" 2>&1' gdb
fi
gdb_secs=$((SECONDS - start))
for p in "${!pid_of[@]}"; do
	stop_fixture "${pid_of[$p]}"
done

# The listed misses: "file.cc:key reason".
declare -A listed
while read -r key reason; do
	case $key in '' | '#'*) continue ;; esac
	listed[$key]=${reason:-unclassified}
done <"$misses_file"
declare -A seen

total=0 sg_match=0 gdb_match=0 skipped=0
{
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "test" "command" "expected" "gdb" "spyglass" "gdb printed" "spyglass printed"
} >"$table.tmp"
for p in "${programs[@]}"; do
	f=$p.cc
	n=$(dg tests "$src/$f" | wc -l)
	dg ignored "$src/$f" | sed "s|^|# $f: DejaGnu ignores (no blank before its closing brace), so do we: |"
	if [ -z "${pid_of[$p]:-}" ]; then
		why="did not build: $(grep -m1 -i 'error' "$bin/$p.err" 2>/dev/null)"
		[ -x "$bin/$p" ] && why="did not reach its SPOT"
		while IFS=$'\t' read -r key _; do
			seen[$f:$key]=1
			skip "$f:$key: $why"
			skipped=$((skipped + 1))
		done < <(dg tests "$src/$f")
		continue
	fi
	[ -s "$bin/$p.gdb" ] || : >"$bin/$p.gdb"
	paste <(dg tests "$src/$f") <(dg compare "$src/$f" "$bin/$p.sg") <(dg compare "$src/$f" "$bin/$p.gdb") |
	while IFS=$'\t' read -r key kind mode var expected _ sg_ok sg_got _ g_ok g_got; do
		$gdb_ok || { g_ok=-; g_got='(gdb not run)'; }
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f:$key" "$kind $var" "$([ "$mode" = regex ] && echo "~ ")$expected" \
			"$g_ok" "$sg_ok" "$g_got" "$sg_got" >>"$table.tmp"
	done
	total=$((total + n))
done
# The table says which matched; the TAP points come from it.
while IFS=$'\t' read -r key cmd expected g_ok sg_ok g_got sg_got; do
	[ "$key" = test ] && continue
	seen[$key]=1
	[ "$g_ok" = 1 ] && gdb_match=$((gdb_match + 1))
	if [ "$sg_ok" = 1 ]; then
		sg_match=$((sg_match + 1))
		if [ -n "${listed[$key]:-}" ]; then
			ok 1 "$key: now passes, remove it from tests/gcc-printers/expected-misses"
		else
			ok 0 "$key"
		fi
	elif [ -n "${listed[$key]:-}" ]; then
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n - $key # TODO known miss: ${listed[$key]}"
	else
		ok 1 "$key: $cmd"
		echo "#   expected: $expected"
		echo "#   spyglass: $sg_got"
		echo "#   gdb:      $g_got"
	fi
done < <(tail -n +2 "$table.tmp")
for key in "${!listed[@]}"; do
	[ -n "${seen[$key]:-}" ] && continue
	ok 1 "$key is in tests/gcc-printers/expected-misses but is no test of $tarball"
done

# The full table, for a human (bench/gcc-printers.sh shows it), and as
# tab-separated values.
mv "$table.tmp" "$work/table.tsv"
awk -F'\t' -v src="$tarball" '
	function mark(v) { return v == 1 ? "match" : v == 0 ? "MISS" : "-" }
	NR == 1 { print "GCC'"'"'s libstdc++ pretty-printer tests, from " src; next }
	{ printf "\n%s: %s   gdb %s, spyglass %s\n  expected: %s\n  gdb:      %s\n  spyglass: %s\n",
		$1, $2, mark($4), mark($5), $3, $6, $7 }' "$work/table.tsv" >"$table"

echo "# spyglass matched $sg_match of $total expectations (its runs took ${sg_secs}s)"
if $gdb_ok; then
	echo "# gdb matched $gdb_match of $total expectations (its runs took ${gdb_secs}s)"
else
	echo "# gdb not run (no gdb)"
fi
[ "$skipped" -gt 0 ] && echo "# $skipped expectations skipped: their programs did not build or run"
echo "# the full table: $table"
done_testing
