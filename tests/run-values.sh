#!/bin/bash
# How print shows values, against gdb on the same live process: char
# pointers into globals and their strings, strings that end in the start
# of a UTF-8 sequence ("<incomplete sequence \310>"), print/d /u /x /z /o
# /t /c of floats and x87 long doubles (all 80 bits; /c converts,
# saturating), NaN mantissas with the x87 integer bit, invalid x87
# patterns, bools holding other bytes, pointers to the linker's sizeless
# data labels (no <sym>), the symbols of C++ code addresses with their
# parameters ("<main(int, char**)>", linkage names under print/a),
# pointers to member functions ("&virtual B::vf(int)", "this
# adjustment"), std::nullptr_t and references to it or to unreadable
# memory, declared-only types ("<incomplete type>"); values not in
# memory: const globals folded into DW_AT_const_value (an int[7], a
# 152-byte struct: elements, members, *a@N, the errors of & and a + 1;
# one over max-value-size: whatis, sizeof and gdb's error),
# globals optimized away, a local array kept as constants, structs of
# DW_OP_pieces with members lost (<optimized out>) or past the pieces
# (gdb's <synthetic pointer>), casts and arithmetic on lost values.
#
# Each command runs in one gdb and one spyglass session after a marker
# line; the text between markers is compared.  Where gdb is wrong (it
# drops the character before an incomplete UTF-8 sequence) spyglass's
# answer is checked as written here, and gdb's must be that answer with
# the character dropped, so that the test notices when gdb changes.
. "$top_srcdir/tests/test-subr.sh"

if ! have_gdb; then
	skip "gdb is not installed: nothing to compare with"
done_testing
fi

# run_both PID COMMAND...: both debuggers' output, errors included, in
# $testdir/gdb.out and $testdir/sg.out, each command after "@@ N".
run_both() {
	local pid=$1 args=() i=0 c
	shift
	for c in "$@"; do
		args+=(-ex "echo @@ $i\\n" -ex "$c")
		i=$((i + 1))
	done
	args+=(-ex "echo @@ end\\n")
	# spyglass first: gdb may call functions in the target (malloc, for
	# & of a value not in memory), and a call that fails can kill it.
	timeout -k 5 120 "$SG_BIN" -nx -batch -p "$pid" "${args[@]}" >"$testdir/sg.out" 2>&1
	STATUS=$?
	LC_ALL=C.UTF-8 timeout -k 5 120 "$GDB" -nx -batch -p "$pid" "${args[@]}" \
		>"$testdir/gdb.out" 2>&1
}

# section FILE N: the output of command N.
section() {
	awk -v n="$2" '/^@@ / { on = ($2 == n); next } on' "$1"
}

# check NAME COMMAND...: each COMMAND's output, gdb's against spyglass's,
# "$N = " read as "$ = ".  A COMMAND that starts with "!" (frame
# selection) is run but not compared.  After a COMMAND where gdb is wrong:
# "~SED", the sed script that turns spyglass's answer into gdb's, and
# "=REGEX", what spyglass's answer must match.
check() {
	local name=$1 cmds=() want=() fix=() c n
	shift
	for c in "$@"; do
		case $c in
		=*) want[${#cmds[@]} - 1]=${c#=} ;;
		~*) fix[${#cmds[@]} - 1]=${c#\~} ;;
		*) cmds+=("$c") ;;
		esac
	done
	run_both "$FIXTURE_PID" "${cmds[@]#!}"
	ok $STATUS "$name: spyglass runs the commands"
	for n in "${!cmds[@]}"; do
		c=${cmds[$n]}
		[ "${c:0:1}" = '!' ] && continue
		local mine gdbs
		mine=$(section "$testdir/sg.out" "$n" | sed -E 's/^\$[0-9]+ = /$ = /')
		gdbs=$(section "$testdir/gdb.out" "$n" | sed -E 's/^\$[0-9]+ = /$ = /')
		# gdb 13 cannot call a function in the target on a CPU whose
		# XSAVE area outgrows its buffer (AMX).
		if grep -q "^Couldn't write extended state status" <<<"$gdbs"; then
			skip "$name: $c: gdb cannot call functions in a process on this CPU ($(grep -m1 "^Couldn't write" <<<"$gdbs"))"
		elif [ -n "${fix[$n]:-}" ]; then
			like "$mine" "${want[$n]}" "$name: $c (where gdb is wrong)"
			is "$(printf '%s\n' "$mine" | sed -E "${fix[$n]}")" "$gdbs" \
				"$name: $c: gdb's answer is the wrong one as expected"
		else
			is "$mine" "$gdbs" "$name: $c"
		fi
	done
}

# ---- C ----
if start_fixture "$FIXTURES/sg-values-c"; then
	cmds=('print &g_sc.c' 'print &g_sarr.c[0]' 'print g_pbuf' 'output g_pbuf' 'print g_sc')
	for v in g_u1 g_u3 g_u4 g_u5 g_u6 g_u7 g_u8 g_u9 g_pu; do
		cmds+=("print $v")
	done
	# gdb drops the character before the incomplete sequence.
	cmds+=('print g_u2' '~s/"\\\\z"/"\\\\"/' '=^\$ = "\\\\z", <incomplete sequence \\310>$')
	cmds+=('print g_plit' '~s/"x", //' '=^\$ = 0x[0-9a-f]+ "x", <incomplete sequence \\326>$')
	for f in d u x z o t c; do
		for v in g_big g_neg g_f g_huge g_mid g_ld g_ldneg g_ldhuge g_ldnhuge g_nan g_ninf; do
			cmds+=("print/$f $v")
		done
	done
	cmds+=('print g_nan' 'print g_ninf' 'print g_ldnan' 'print g_ldbad' 'print g_ldbad.ld'
	       'print/x g_ldbad.ld' 'print g_bool2' 'print g_bool2.b' 'print/x g_bool2.b'
	       'print/d g_bool2.b' 'print g_init' 'print g_fini' 'print/a g_fini' 'print/x g_fini'
	       'print g_fp' 'print/a g_fp' 'print cfun' 'print &cfun' 'print *g_fp')
	check "C" "${cmds[@]}"
	kill "$FIXTURE_PID"
fi

# start_built FIXTURE COMPILER: start FIXTURE, or skip it when its
# build found no COMPILER (the script that exits 77 says "no COMPILER").
start_built() {
	start_fixture "$FIXTURES/$1" && return 0
	if grep -q "no $2\$" "$testdir/fixture.$fixture_runs" 2>/dev/null; then
		skip "$1: $2 is not installed"
	else
		ok 1 "$1 starts"
	fi
	return 1
}

# ---- C++, built by g++ and by clang++ ----
for v in sg-values-cc sg-values-cc-clang; do
	start_built "$v" clang++ || continue
	cmds=()
	for i in $(seq 0 10); do
		cmds+=("print g_code[$i]" "print/a g_code[$i]")
	done
	cmds+=('print g_mainp' 'print/a g_mainp' 'print main' 'print &main' 'print cxxfun'
	       'print g_mv' 'print g_mv2' 'print g_mn' 'print g_mnull' 'print g_dw' 'print g_dvf'
	       'print g_down' 'print g_fn._M_functor' 'print g_sn' 'print g_null' 'print g_ref'
	       'print g_ref.r' 'print/x g_sn' 'print g_u' 'print/x g_u' 'print g_cv' 'print &g_cv'
	       '!frame 1' 'info args' 'print np' 'print bad' 'print good'
	       '!frame 2' 'print/a $pc')
	check "$v" "${cmds[@]}"
	kill "$FIXTURE_PID"
done

# ---- the symbols of code at -O2 (main of two ranges) ----
if start_fixture "$FIXTURES/sg-values-cc-O2"; then
	cmds=('print g_mainp' 'print/a g_mainp' 'print main')
	for i in $(seq 0 10); do
		cmds+=("print g_code[$i]")
	done
	check "sg-values-cc-O2" "${cmds[@]}"
	kill "$FIXTURE_PID"
fi

# ---- values not in memory: gcc -O2 and clang -O1 ----
for v in sg-values-const-gcc sg-values-const-clang; do
	start_built "$v" clang || continue
	cmds=('print dg_arr' 'print dg_big' 'print dg_rep' 'print dg_arr[1]' 'print dg_big.name'
	      'print dg_big.v[3]' 'print dg_big.name[1]' 'print dg_big.d' 'print/x dg_arr'
	      'print/x dg_big' 'output dg_big' 'whatis dg_big' 'ptype dg_big' 'whatis dg_big.v'
	      'whatis dg_arr' 'ptype dg_arr' 'whatis dg_arr[1]' 'print sizeof(dg_big)' 'print sizeof dg_arr' 'print *dg_arr'
	      'print *dg_arr@3' 'print *dg_arr@7' 'print *dg_big.v@2' 'print -dg_arr[2]'
	      'print dg_arr[1] + dg_big.v[2]' 'print dg_arr[9]' 'print dg_arr[-1]'
	      'print &dg_arr' 'print dg_arr+1' 'print &dg_big.a' 'print &dg_arr[1]' 'print dg_huge'
	      'print dg_huge[1]' 'whatis dg_huge[0]' 'print sizeof(dg_huge)' 'print *dg_huge'
	      'print &dg_huge' 'print dg_huge+1'
	      '!frame 2' 'info locals' 'info args' 'print p' 'print p.m0' 'print p.m1'
	      'print p.m2' 'print/x p' 'output p' 'print q' 'print q.m1' 'print l0' 'print l0[0]'
	      'print l0[1]' 'print l1' 'print l1[0]' 'print l1[2]' 'print/x l1' 'print/d l1'
	      'whatis l1' 'print sizeof(l1)' 'print *l1' 'print *l1@2' 'print l1+1' 'print &l1'
	      'print &l1[1]' 'print &p' 'print &x' 'print y' 'print -y' 'print &y' 'print (long)y'
	      'print (char)y' 'print *y' 'print l0 == l0' 'print sizeof(q.m1)')
	check "$v" "${cmds[@]}"
	kill "$FIXTURE_PID"
done

done_testing
