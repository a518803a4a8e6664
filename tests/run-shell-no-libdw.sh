#!/bin/bash
# The shell is a thin client of libspyglass (doc/design.md, "One value
# engine, in the library"): no file under shell/ includes libdw's,
# libdwfl's or dwarf.h; their DWARF work is the library's.  The files
# still being moved are listed here, and the list must shrink, not grow:
# a listed file that no longer includes them fails too, so that its
# line is removed.
. "$top_srcdir/tests/test-subr.sh"

pending="cmd-source.c"

includes() {	# includes FILE: whether FILE includes a libdw header
	grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](dwarf\.h|elfutils/libdw[a-z]*\.h)[>"]' "$1"
}

found=()
for f in "$top_srcdir"/shell/*.[ch]; do
	includes "$f" && found+=("$(basename "$f")")
done
others=()
for f in "${found[@]}"; do
	case " $pending " in *" $f "*) ;; *) others+=("$f") ;; esac
done
is "${others[*]}" "" "no file under shell/ includes libdw, libdwfl or dwarf.h"
stale=()
for f in $pending; do
	includes "$top_srcdir/shell/$f" || stale+=("$f")
done
is "${stale[*]}" "" "each file still being moved does include them (else drop it from the list)"
# The check itself: it finds such an include.
tmp=$testdir/probe.c
printf '#include <config.h>\n  #  include <elfutils/libdwfl.h>\n' >"$tmp"
includes "$tmp"
ok $? "an indented #include <elfutils/libdwfl.h> is found"
printf '#include "eval.h"\n/* #include <dwarf.h> */\n' >"$tmp"
includes "$tmp"
ok $(( $? == 0 )) "a mention in a comment is not an include"

done_testing
