#!/bin/bash
# Each fuzz target (fuzz/, doc/fuzzing.md) runs for a few seconds with a
# fixed seed over its seed corpus, and once over every input that once
# crashed it (fuzz/regress/TARGET/*.hex).  bench/fuzz.sh runs them longer.
. "$top_srcdir/tests/test-subr.sh"

SECONDS_EACH=${FUZZ_SECONDS:-3}
targets=(args command expr valprint cfi note typeindex core describe)

if [ ! -x "$top_builddir/fuzz/fuzz-args" ]; then
	for t in "${targets[@]}"; do
		skip "fuzz-$t: not built (configure found no clang with libFuzzer: install libclang-rt-14-dev)"
	done
	done_testing
	exit 0
fi

# hex_to_file HEXFILE OUT: the bytes a hex dump (any white space) spells;
# fails on anything else, such as od's "*" for repeated lines (write
# reproducers with od -An -tx1 -v).
hex_to_file() {
	local hex
	hex=$(tr -d ' \n\t' <"$1")
	case $hex in *[!0-9a-fA-F]*) return 1 ;; esac
	[ $((${#hex} % 2)) -eq 0 ] || return 1
	printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$2"
}

# Seeds that cannot be text: made here from what the build made, so that
# no binary is committed.
make_seeds() {	# make_seeds TARGET DIR
	local t=$1 dir=$2 f
	case $t in
	args|expr|command|core)
		cp "$top_srcdir/fuzz/corpus/$t"/* "$dir/" ;;
	valprint|cfi)
		# Selector bytes, then memory: zeros, ones, and a counter.
		for sel in 0 1 2 3 4; do
			{ printf "\\x$sel$sel\\x0$sel"; head -c 512 /dev/zero; } >"$dir/zeros-$sel"
			{ printf "\\x$sel$sel\\x1$sel"; head -c 512 /dev/zero | tr '\0' '\377'; } >"$dir/ones-$sel"
		done
		seq 0 255 | awk '{ printf "%c", $1 }' >"$dir/counter" ;;
	note)
		# The smallest plugin the ABI note macro makes, and a plain
		# shared object without one.
		printf '#include <spyglass/plugin.h>\nSG_PLUGIN_ABI_NOTE(1, 2);\n' >"$testdir/note.c"
		${CC:-cc} -I"$top_srcdir/include" -shared -nostdlib -s -Wl,--build-id=none \
			-o "$dir/plugin.so" "$testdir/note.c" 2>/dev/null
		printf 'int x;\n' >"$testdir/plain.c"
		${CC:-cc} -shared -nostdlib -s -Wl,--build-id=none -o "$dir/plain.so" \
			"$testdir/plain.c" 2>/dev/null ;;
	typeindex)
		# A small C unit's DWARF in the target's input layout.
		printf 'struct S { int a; char *b; } g_s;\nint x;\nint main(void) { return x; }\n' \
			>"$testdir/dw.c"
		for v in 4 5; do
			${CC:-cc} -g -gdwarf-$v -c -o "$testdir/dw$v.o" "$testdir/dw.c" || continue
			for s in abbrev str info; do
				objcopy -O binary --only-section=.debug_$s "$testdir/dw$v.o" \
					"$testdir/dw$v.$s" 2>/dev/null || : >"$testdir/dw$v.$s"
			done
			local a s2
			a=$(stat -c %s "$testdir/dw$v.abbrev")
			s2=$(stat -c %s "$testdir/dw$v.str")
			{ printf "\\x$(printf %02x $((a & 255)))\\x$(printf %02x $((a >> 8)))"
			  printf "\\x$(printf %02x $((s2 & 255)))\\x$(printf %02x $((s2 >> 8)))"
			  cat "$testdir/dw$v.abbrev" "$testdir/dw$v.str" "$testdir/dw$v.info"
			} >"$dir/dwarf$v"
		done ;;
	describe)
		# Expressions as compilers write them: a frame-base offset, a
		# register, an entry value, a piece list, a typed conversion, a
		# thread-local address, an address index (each after the byte
		# that picks the unit: even GCC's, odd clang's).
		printf '\x00\x91\x6c' >"$dir/fbreg"
		printf '\x01\x91\x08' >"$dir/fbreg-clang"
		printf '\x00\x55' >"$dir/reg"
		printf '\x00\xa3\x01\x55\x9f' >"$dir/entry"
		printf '\x00\x52\x93\x04\x93\x04' >"$dir/pieces"
		printf '\x00\x70\x00\xa8\x2a\xa8\x00\x9f' >"$dir/convert"
		printf '\x00\x0e\x04\x00\x00\x00\x00\x00\x00\x00\xe0' >"$dir/tls"
		printf '\x01\xa1\x00' >"$dir/addrx" ;;
	esac
}

for t in "${targets[@]}"; do
	bin=$top_builddir/fuzz/fuzz-$t
	corpus=$testdir/corpus-$t
	mkdir -p "$corpus"
	make_seeds "$t" "$corpus"
	n=$(ls "$corpus" | wc -l)
	log=$testdir/$t.log
	"$bin" -seed=1 -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 -max_len=8192 \
		-close_fd_mask=3 -artifact_prefix="$testdir/$t-" "$corpus" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
	if [ $status -ne 0 ]; then
		grep -E "ERROR|SUMMARY|#[0-9]+ 0x|Test unit written" "$log" | head -20 | sed 's/^/# /'
	fi
	ok $status "fuzz-$t: ${runs:-no} runs in ${SECONDS_EACH} s from $n seeds, no crash, leak or hang"

	# Inputs that once crashed this target.
	reg=$top_srcdir/fuzz/regress/$t
	if [ -d "$reg" ]; then
		for h in "$reg"/*.hex; do
			[ -e "$h" ] || continue
			in=$testdir/$(basename "$h" .hex)
			if ! hex_to_file "$h" "$in"; then
				ok 1 "fuzz-$t: $(basename "$h"): not a hex dump of whole bytes"
				continue
			fi
			"$bin" -timeout=20 "$in" >"$log" 2>&1
			status=$?
			[ $status -ne 0 ] && grep -E "ERROR|SUMMARY" "$log" | head -5 | sed 's/^/# /'
			ok $status "fuzz-$t: $(basename "$h" .hex) (once a crash) runs clean"
		done
	fi
done

done_testing
