#!/bin/bash
# Backtraces through signal handlers, against gdb's on the same live
# process: tests/fixtures/sg-sigtramp.c, built at -O0 and -O2 with frame
# pointers, has its main thread blocked in a SIGUSR1 handler running on the
# thread's stack, and its "altstack" thread blocked in a SIGUSR2 handler
# running on a sigaltstack, with frames of the fixture's own on both sides
# of the signal.  For each thread, "bt -u fp" and "bt -u cfi" must show
# gdb's frames: the frame-pointer unwinder recognises the sigreturn
# trampoline by its code and goes on from the registers the kernel saved
# in the ucontext above it; the CFI unwinder reads glibc's CFI for it.
#
# What is compared, as in tests/run-bt.sh: every frame line, with the
# argument lists dropped ("from" paths as real paths), so the frame
# numbers, the pcs (the same process for both), the names, the
# "<signal handler called>" line and "at FILE:LINE" must be gdb's.  gdb's
# default "backtrace past-main off" ends the main thread at main in both.
# One difference is expected: the "altstack" thread's frame-pointer walk
# ends at start_thread, whose caller clone3 keeps no frame link (start_thread
# is built without frame pointers and its saved rbp is 0), where gdb's CFI
# goes on to clone3.  Then the registers of each frame a signal interrupted,
# as the frame-pointer unwinder alone (no CFI loaded) took them from the
# ucontext, must be gdb's there, and --json must mark the signal frame.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	echo "# gdb is not installed: the backtraces cannot be compared with gdb's"
fi

# The unwinders are plugins: load them unless SPYGLASS_PLUGIN_PATH (set by
# tests/Makefile.inc) already does.
plugins=()
loaded=$("$SG_BIN" -nx -batch -ex 'plugin list' 2>/dev/null)
for p in cfi-unwind fp-unwind; do
	so=$top_builddir/plugins/$p/.libs/$p.so
	if [ -e "$so" ] && ! grep -q "^$p " <<<"$loaded"; then
		plugins+=(--plugin "$so")
	fi
done

# frames TID: the frame lines of thread TID in a "thread apply all bt"
# (gdb's or spyglass's) on stdin, without argument lists, "from" paths as
# real paths; then any "Backtrace stopped" line.
frames() {
	awk -v tid="$1" '
	/^Thread [0-9]+ / { match($0, /LWP [0-9]+/); on = substr($0, RSTART + 4, RLENGTH - 4) == tid; next }
	on && (/^#[0-9]+ / || /^Backtrace stopped/)' |
		sed -E 's/^(#[0-9]+ +(0x[0-9a-f]+ in )?[^ ]+) \(.*\)( at [^ ]+:[0-9]+| from [^ ]+)?$/\1 ()\3/' |
		while IFS= read -r line; do
			if [[ $line =~ ^(.*\ from\ )([^ ]+)$ ]]; then
				line=${BASH_REMATCH[1]}$(readlink -f "${BASH_REMATCH[2]}")
			fi
			printf '%s\n' "$line"
		done
}

# thread_num TID: the thread number of TID in a "thread apply all bt" on
# stdin.
thread_num() {
	awk -v tid="$1" '/^Thread [0-9]+ / && match($0, /LWP [0-9]+/) &&
		substr($0, RSTART + 4, RLENGTH - 4) == tid { print $2; exit }'
}

for v in sg-sigtramp-O0 sg-sigtramp-O2; do
	if ! start_fixture "$FIXTURES/$v"; then
		ok 1 "$v: the fixture starts"
		continue
	fi
	pid=$FIXTURE_PID
	main_tid=$pid
	alt_tid=$(grep -lx altstack /proc/"$pid"/task/*/comm | sed 's|.*/task/\([0-9]*\)/comm|\1|')
	sg ${plugins[@]+"${plugins[@]}"} -p "$pid" -ex 'thread apply all bt -u fp'
	fp=$OUT
	ok $STATUS "$v: thread apply all bt -u fp succeeds${ERR:+: $ERR}"
	sg ${plugins[@]+"${plugins[@]}"} -p "$pid" -ex 'thread apply all bt -u cfi'
	cfi=$OUT
	ok $STATUS "$v: thread apply all bt -u cfi succeeds${ERR:+: $ERR}"

	gdb_bt=
	if have_gdb; then
		gdb_batch "$pid" 'thread apply all bt'
		gdb_bt=$GDB_OUT
	fi

	for t in "main $main_tid" "altstack $alt_tid"; do
		read -r name tid <<<"$t"
		got=$(frames "$tid" <<<"$fp")
		# The structure, even without gdb: the handler's frames, the
		# signal frame, then the interrupted fixture frames.
		like "$(grep -c . <<<"$got") $(grep -c '^#[0-9]* *<signal handler called>$' <<<"$got")" '^([89]|1[0-9]) 1$' \
			"$v: $name: bt -u fp goes past the signal frame"
		if ! have_gdb; then
			skip "gdb is not installed: $v: $name: bt -u fp against gdb's bt"
			skip "gdb is not installed: $v: $name: bt -u cfi against gdb's bt"
			continue
		fi
		want=$(frames "$tid" <<<"$gdb_bt")
		fp_want=$want
		[ "$name" = altstack ] && fp_want=$(grep -v ' in clone3 ()' <<<"$want")
		is "$got" "$fp_want" "$v: $name: bt -u fp shows gdb's frames"
		is "$(frames "$tid" <<<"$cfi")" "$want" "$v: $name: bt -u cfi shows gdb's frames"
	done

	# Registers of the frame each signal interrupted, which the
	# frame-pointer unwinder (alone: no CFI) took from the ucontext, as
	# gdb has them there (spaces squeezed: the columns are not the point).
	fp_so=$top_builddir/plugins/fp-unwind/.libs/fp-unwind.so
	regs='info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip'
	for t in "main $main_tid" "altstack $alt_tid"; do
		read -r name tid <<<"$t"
		if ! have_gdb; then
			skip "gdb is not installed: $v: $name: registers of the interrupted frame"
			continue
		fi
		level=$(frames "$tid" <<<"$gdb_bt" | sed -n 's/^#\([0-9]*\) *<signal handler called>$/\1/p')
		if [ -z "$level" ]; then
			ok 1 "$v: $name: gdb shows a signal frame"
			continue
		fi
		level=$((level + 1))
		SPYGLASS_PLUGIN_PATH= sg --plugin "$fp_so" -p "$pid" \
			-ex "thread $(thread_num "$tid" <<<"$fp")" -ex "frame $level" -ex "$regs"
		gdb_batch "$pid" "thread $(thread_num "$tid" <<<"$gdb_bt")" "frame $level" "$regs"
		got=$(grep -E '^r[a-z0-9]+ ' <<<"$OUT" | tr -s ' ')
		is "$(grep -c . <<<"$got")" 17 "$v: $name: frame $level, unwound by fp, knows all 17 registers"
		is "$got" "$(grep -E '^r[a-z0-9]+ ' <<<"$GDB_OUT" | tr -s ' ')" \
			"$v: $name: registers of the interrupted frame $level, unwound by fp"
		if command -v jq >/dev/null; then
			SPYGLASS_PLUGIN_PATH= sg --json --plugin "$fp_so" -p "$pid" \
				-ex "thread $(thread_num "$tid" <<<"$fp")" -ex 'bt -u fp'
			is "$(tail -n 1 <<<"$OUT" | jq -r '.threads[].frames[] | select(.signal_trampoline == true) | "\(.level) \(.unwinder)"')" \
				"$((level - 1)) fp" "$v: $name: --json marks the signal frame, unwound by fp"
		else
			skip "jq is not installed: $v: $name: --json signal frame"
		fi
	done
	stop_fixture "$pid"
done

done_testing
