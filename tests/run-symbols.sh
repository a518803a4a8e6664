#!/bin/bash
# Symbols both ways on a C++ program: qualified and mangled names to
# addresses, addresses to demangled names, compared with gdb.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-symbols" || exit 1
pid=$FIXTURE_PID
exe=$(readlink -f "$FIXTURES/sg-symbols")

# Names gdb resolves the same way from the symbol table.  (For C functions
# and main in a C++ unit, gdb prints the DWARF name with a parameter list,
# "main()"; those are checked against nm below, and a libc function
# without DWARF of its own name against gdb.)
cmds=(
	'info address zeek::detail::call_stack'
	'info address ns::Klass::instances'
	'info address ns::f(int)'
	'info address ns::f(double)'
	'info address ns::twice<int>(int)'
	'info address ns::twice<double>'
	'info address _ZN4zeek6detail10call_stackE'
	'info address nosuch'
)
for c in "${cmds[@]}"; do
	sg -p "$pid" -ex "$c"
	if have_gdb; then
		gdb_batch "$pid" "$c"
		is "$OUT$ERR" "$GDB_OUT" "$c: as gdb"
	else
		like "$OUT$ERR" '^(Symbol|No symbol)' "$c"
	fi
done

# -O2 may leave only a clone of a method; its name says so, as in gdb's
# "info symbol".
sg -p "$pid" -ex 'info address ns::Klass::run'
like "$OUT" '^Symbol "ns::Klass::run\(int\)( \[clone [^]]+\])?" is a function at address 0x[0-9a-f]+\.$' "a method by its qualified name"

# Against the symbol table itself.
nm_addr() { nm "$exe" | awk -v s="$1" '$3 == s { print "0x" $1; exit }' | sed 's/0x0*/0x/'; }
sg -p "$pid" -ex 'info address plain_c_function' -ex 'info address main' -ex "info address 'ns::f(int)'"
is "$OUT" "Symbol \"plain_c_function(int)\" is a function at address $(nm_addr plain_c_function).
Symbol \"main()\" is a function at address $(nm_addr main).
Symbol \"ns::f(int)\" is a function at address $(nm_addr _ZN2ns1fEi)." "C names in a C++ unit (with their parameters, as gdb's symbols), and quoted C++ names, against nm"

# Address to name, inside and at the start of functions, in the executable
# and in libc.
f_int=$(nm_addr _ZN2ns1fEi)
at=$(printf '0x%x' $((f_int + 3)))
sg -p "$pid" -ex "info symbol $f_int" -ex "info symbol $at"
is "$OUT" "ns::f(int) in section .text of $exe
ns::f(int) + 3 in section .text of $exe" "info symbol on a C++ function"
if have_gdb; then
	gdb_batch "$pid" "info symbol $f_int" "info symbol $at"
	is "$OUT" "$GDB_OUT" "info symbol matches gdb"
fi

sg -p "$pid" -ex 'info address getpid'
getpid=$(printf '%s\n' "$OUT" | sed -n 's/.* at \(address \)\{0,1\}\(0x[0-9a-f]*\).*/\2/p')
like "$OUT" '^Symbol "getpid" is (a function at address 0x[0-9a-f]+|at 0x[0-9a-f]+ in a file compiled without debugging)\.$' "a libc function by name"
if have_gdb; then
	ours=$OUT
	gdb_batch "$pid" 'info address getpid'
	is "$ours" "$GDB_OUT" "  in gdb's words: a function where libc's DWARF has one of that name"
fi
sg -p "$pid" -ex "info symbol $getpid"
like "$OUT" "^(__)?getpid in section \.text of .*/libc\.so\.6$" "and back to its name"
if have_gdb; then
	# libc has aliases at one address (getpid, __getpid); gdb and libdwfl
	# may pick different ones.  Both must name this address.
	gdb_batch "$pid" "info symbol $getpid"
	gdb_name=${GDB_OUT%% in section *}
	sg -p "$pid" -ex "info address $gdb_name"
	like "$OUT" "^Symbol \"$gdb_name\" is (a function at address $getpid|at $getpid in a file compiled without debugging)\.\$" "gdb's name for the address ($gdb_name) resolves to it too"
	ours=$OUT
	gdb_batch "$pid" "info address $gdb_name"
	is "$ours" "$GDB_OUT" "  in gdb's words"
fi

sg -p "$pid" -ex 'info symbol 0x10'
is "$OUT" "No symbol matches 0x10." "an address in no module"
sg -p "$pid" -ex 'info symbol'
is "$ERR" "Argument required (address)." "info symbol without an argument"
sg -p "$pid" -ex 'info address'
is "$ERR" "Argument required (symbol name)." "info address without an argument"

# x labels as gdb's do (its "print asm-demangle" is off): a C++ global by
# its mangled symbol, as gdb 13 prints it for this address.
sg -p "$pid" -ex "x/a &zeek::detail::call_stack"
like "$OUT" '^0x[0-9a-f]+ <_ZN4zeek6detail10call_stackE>:	0x[0-9a-f]+' "x labels with the symbol's mangled name"
check_running "$pid" "target runs"

# A plain name that is a static C function in one unit and a global C++
# function in another: the global one, as before the name hash (a match
# through the hash must not hide a better-ranked mangled one).
cat >"$testdir/c.c" <<'EOF2'
static int foo(void) { return 1; }
int call_foo(void) { return foo(); }
EOF2
cat >"$testdir/cc.cc" <<'EOF2'
#include <cstdio>
#include <unistd.h>
extern "C" int call_foo(void);
int foo() { return 2; }
int main() { std::printf("ready %d\n", foo() + call_foo()); std::fflush(stdout); pause(); }
EOF2
if ${CC:-cc} -c -O0 -g -o "$testdir/c.o" "$testdir/c.c" &&
	${CXX:-c++} -O0 -g -o "$testdir/foo" "$testdir/cc.cc" "$testdir/c.o" &&
	start_fixture "$testdir/foo"; then
	sg -p "$FIXTURE_PID" -ex 'info address foo'
	like "$OUT" '^Symbol "foo\(\)" is a function at address 0x[0-9a-f]+\.$' \
		"info address foo: the global C++ foo(), not the static C foo"
	stop_fixture "$FIXTURE_PID"
else
	ok 1 "the static-and-global foo program builds and starts"
fi
done_testing
