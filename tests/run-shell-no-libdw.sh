#!/bin/bash
# The shell is a thin client of libspyglass (doc/design.md, "One value
# engine, in the library"): no file under shell/ includes libdw's,
# libdwfl's or dwarf.h; their DWARF work is the library's.
. "$top_srcdir/tests/test-subr.sh"

includes() {	# includes FILE: whether FILE includes a libdw header
	grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](dwarf\.h|elfutils/libdw[a-z]*\.h)[>"]' "$1"
}

found=()
for f in "$top_srcdir"/shell/*.[ch]; do
	includes "$f" && found+=("shell/$(basename "$f")")
done
is "${found[*]}" "" "no file under shell/ includes libdw, libdwfl or dwarf.h"
# The check itself: it finds such an include, and only an include.
tmp=$testdir/probe.c
printf '#include <config.h>\n  #  include <elfutils/libdwfl.h>\n' >"$tmp"
includes "$tmp"
ok $? "an indented #include <elfutils/libdwfl.h> is found"
printf '#include "dwarf.h"\n' >"$tmp"
includes "$tmp"
ok $? "#include \"dwarf.h\" is found"
printf '#include "eval.h"\n/* #include <dwarf.h> */\n' >"$tmp"
includes "$tmp"
ok $(( $? == 0 )) "a mention in a comment is not an include"

done_testing
