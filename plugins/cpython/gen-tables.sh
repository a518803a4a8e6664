#!/bin/bash
# Write tables.c: the offsets and sizes of every field of PY_FIELDS
# (cpython.h), for each CPython whose headers are installed, measured by
# compiling a probe against those headers.  The plugin falls back on these
# tables for interpreters without DWARF.
#
#   gen-tables.sh [DIR...]          write tables.c
#   gen-tables.sh --check [DIR...]  regenerate into a temporary file and
#                                   diff it against tables.c: exit 0 if
#                                   equal, 1 if not, 77 if there is nothing
#                                   to check against
#
# DIR is an installation prefix (it has include/python*/Python.h) or an
# include directory; without any, every $(pyenv root)/versions/* is used.
# Needs bash and a C compiler ($CC, default gcc) for the machine the tables
# describe: the probe is run, not cross-compiled.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$here/tables.c
CC=${CC:-gcc}

check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

skip() {	# no headers: nothing to generate or check
	echo "gen-tables.sh: $*" >&2
	exit 77
}

die() {
	echo "gen-tables.sh: $*" >&2
	exit 1
}

# ---- the fields: PY_FIELDS as spec.c compiles it ---------------------------

# Compile spec.c itself rather than parse cpython.h, so that the strings are
# exactly the ones the plugin uses.  It includes <config.h>, which only the
# build tree has; none of it matters here, so an empty one stands in.
: >"$tmp/config.h"
cat >"$tmp/dump.c" <<'EOF'
#include "cpython.h"

static const char *const ids[] = {
#define PY_FIELD_ID(id, type, member, first, last) #id,
	PY_FIELDS(PY_FIELD_ID)
};

int main(void)
{
	for (int i = 0; i < PY_NFIELDS; i++)
		printf("%s\t%s\t%s\t%u\t%u\n", ids[i], py_field_specs[i].type,
		       py_field_specs[i].member ? py_field_specs[i].member : "-",
		       py_field_specs[i].first, py_field_specs[i].last);
	return 0;
}
EOF
$CC -std=gnu11 -I"$tmp" -I"$top/include" -I"$here" "$tmp/dump.c" "$here/spec.c" \
	-o "$tmp/dump" || die "cannot compile the field list (spec.c)"
"$tmp/dump" >"$tmp/fields"

# ---- the CPythons ----------------------------------------------------------

# The include directory (the one holding Python.h) of a prefix or of itself.
incdir() {
	local d
	if [ -f "$1/Python.h" ]; then
		echo "$1"
		return
	fi
	for d in "$1"/include/python*; do
		[ -f "$d/Python.h" ] && echo "$d" && return
	done
	return 0
}

if [ $# -eq 0 ]; then
	command -v pyenv >/dev/null || skip "no pyenv: no CPython headers to generate from"
	root=$(pyenv root)
	set -- "$root"/versions/*
fi

# "MAJOR MINOR PY_VERSION INCDIR" per CPython, sorted by version.
: >"$tmp/versions"
for prefix in "$@"; do
	inc=$(incdir "$prefix")
	if [ -z "$inc" ]; then
		# Under pyenv, a virtualenv has no headers of its own.
		[ -n "${root:-}" ] && continue
		die "$prefix: no include/python*/Python.h"
	fi
	pl=$inc/patchlevel.h
	major=$(sed -n 's/^#define[[:space:]]*PY_MAJOR_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$pl")
	minor=$(sed -n 's/^#define[[:space:]]*PY_MINOR_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$pl")
	full=$(sed -n 's/^#define[[:space:]]*PY_VERSION[[:space:]]*"\([^"]*\)".*/\1/p' "$pl")
	[ -n "$major" ] && [ -n "$minor" ] && [ -n "$full" ] || die "$pl: no version"
	# The tables are for default builds: free-threaded and debug builds lay
	# out objects differently (and would share the PY_V with the default).
	if build=$(grep -Eo "^#define Py_(GIL_DISABLED|TRACE_REFS|DEBUG)\b" "$inc/pyconfig.h"); then
		echo "gen-tables.sh: skipping $inc: ${build#\#define }" >&2
		continue
	fi
	echo "$major $minor $full $inc" >>"$tmp/versions"
done
sort -k1,1n -k2,2n -k3,3V -o "$tmp/versions" "$tmp/versions"
[ -s "$tmp/versions" ] || skip "no CPython installed under ${root:-the directories given}"

arch=$($CC -dumpmachine)
arch=${arch%%-*}
arch=${arch//_/-}

# --check under pyenv checks the versions tables.c was made from, which
# need not be all that are installed here; without them, or for another
# architecture, there is nothing to compare with.
if $check && [ -n "${root:-}" ] && [ -f "$out" ]; then
	sed -n 's/.*"CPython \([^ ]*\) headers, \([^"]*\)".*/\1 \2/p' "$out" >"$tmp/committed"
	while read -r full a; do
		[ "$a" = "$arch" ] || skip "tables.c is for $a, $CC compiles for $arch"
		awk -v f="$full" '$3 == f { found = 1 } END { exit !found }' "$tmp/versions" ||
			skip "CPython $full (in tables.c) is not installed under $root"
	done <"$tmp/committed"
	awk 'NR == FNR { want[$1] = 1; next } $3 in want' "$tmp/committed" "$tmp/versions" >"$tmp/v"
	mv "$tmp/v" "$tmp/versions"
fi

# One table per minor version: the plugin picks a table by PY_V(major, minor),
# and patch releases are meant to keep these layouts.  Keep the newest.
awk '{ key = $1 "." $2; line[key] = $0; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
     END { for (i = 0; i < n; i++) print line[order[i]] }' "$tmp/versions" >"$tmp/v"
if ! cmp -s "$tmp/v" "$tmp/versions"; then
	echo "gen-tables.sh: one table per minor version; ignoring" \
		"$(awk 'NR == FNR { keep[$3] = 1; next } !($3 in keep) { print $3 }' "$tmp/v" "$tmp/versions" | tr "\n" " ")" >&2
fi
mv "$tmp/v" "$tmp/versions"

# ---- the probe -------------------------------------------------------------

# Everything that declares a structure the plugin reads.  Py_BUILD_CORE
# unlocks the internal headers (the runtime, interpreter frames, dict keys);
# __has_include keeps one prelude for every version.
cat >"$tmp/prelude.h" <<'EOF'
#define Py_BUILD_CORE 1
#include <stddef.h>
#include <stdio.h>
#include <Python.h>
#if __has_include(<frameobject.h>)	/* PyFrameObject, 2.7-3.10 */
# include <frameobject.h>
#endif
#if __has_include(<code.h>)		/* PyCodeObject, 2.7-3.10 */
# include <code.h>
#endif
#if __has_include(<longintrepr.h>)	/* PyLongObject, 2.7-3.10 */
# include <longintrepr.h>
#endif
#if __has_include(<internal/pystate.h>)	/* _PyRuntimeState, 3.7 */
# include <internal/pystate.h>
#endif
#if __has_include(<internal/pycore_pystate.h>)
# include <internal/pycore_pystate.h>
#endif
#if __has_include(<internal/pycore_runtime.h>)
# include <internal/pycore_runtime.h>
#endif
#if __has_include(<internal/pycore_interp.h>)
# include <internal/pycore_interp.h>
#endif
#if __has_include(<internal/pycore_frame.h>)
# include <internal/pycore_frame.h>
#endif
#if __has_include(<internal/pycore_code.h>)
# include <internal/pycore_code.h>
#endif
#if __has_include(<internal/pycore_dict.h>)
# include <internal/pycore_dict.h>
#endif
#if __has_include(<internal/pycore_gil.h>)
# include <internal/pycore_gil.h>
#endif
#if __has_include(<internal/pycore_ceval_state.h>)
# include <internal/pycore_ceval_state.h>
#endif
EOF

# probe MAJOR MINOR INCDIR: write $tmp/rows (the rows of the table) and
# $tmp/absent (the fields none of whose spellings exist).
probe() {
	local major=$1 minor=$2 inc=$3 v=$(($1 << 8 | $2))
	local cflags=(-std=gnu11 -w -I"$inc")
	local -A macro=()
	local id type member first last t m name i n types members

	# Type spellings that are macros (2.7 #defines PyBytesObject as
	# PyStringObject) would compile, but DWARF only knows the name they
	# expand to; skip them so that the row names the real type.
	while read -r _ name _; do
		macro[${name%%(*}]=1
	done < <(echo '#include "prelude.h"' | $CC "${cflags[@]}" -I"$tmp" -E -dM -x c -)

	# Candidates, in the order the spec tries them: each type spelling,
	# then each member alternative.  A member gives two expressions,
	# offset ("o") and size ("s"); MEMBER NULL gives sizeof the type ("t").
	local c_field=() c_type=() c_member=() c_kind=() c_expr=()
	local f_id=() f_spec=()
	local nf=0
	while IFS=$'\t' read -r id type member first last; do
		[ "$first" -le "$v" ] && [ "$v" -le "$last" ] || continue
		f_id[nf]=$id
		f_spec[nf]="$type $member"
		[ "$member" = - ] && f_spec[nf]="sizeof $type"
		IFS='|' read -ra types <<<"$type"
		IFS='|' read -ra members <<<"$member"
		for t in "${types[@]}"; do
			[ -n "${macro[$t]:-}" ] && continue
			if [ "$member" = - ]; then
				c_field+=("$nf") c_type+=("$t") c_member+=(-) c_kind+=(t)
				c_expr+=("sizeof($t)")
				continue
			fi
			for m in "${members[@]}"; do
				c_field+=("$nf" "$nf") c_type+=("$t" "$t") c_member+=("$m" "$m")
				c_kind+=(o s)
				c_expr+=("offsetof($t, $m)" "sizeof((($t *)0)->$m)")
			done
		done
		nf=$((nf + 1))
	done <"$tmp/fields"

	# Which candidates compile: one per line after #line 1 "candidates", so
	# that each error names its candidate.  Drop those and try again until
	# none fails (a failure could hide another).
	local alive=("${!c_expr[@]}") bad c_error=()
	for i in 1 2 3 4 5; do
		{
			echo '#include "prelude.h"'
			echo 'int main(void) {'
			echo '#line 1 "candidates"'
			for n in "${alive[@]}"; do
				echo "printf(\"$n %llu\\n\", (unsigned long long)${c_expr[n]});"
			done
			echo 'return 0; }'
		} >"$tmp/probe.c"
		$CC "${cflags[@]}" -I"$tmp" -fsyntax-only "$tmp/probe.c" 2>"$tmp/errors" && break
		if grep ': error:' "$tmp/errors" | grep -qv '^candidates:'; then
			cat "$tmp/errors" >&2
			die "$inc: the headers do not compile"
		fi
		bad=()
		while IFS=$'\t' read -r n m; do
			[ -n "${bad[n - 1]:-}" ] || bad[n - 1]=$m
		done < <(sed -n 's/^candidates:\([0-9]*\):[0-9]*: error: \(.*\)/\1\t\2/p' "$tmp/errors")
		local keep=()
		for n in "${!alive[@]}"; do
			if [ -n "${bad[n]:-}" ]; then
				c_error[${alive[n]}]=${bad[n]}
			else
				keep+=("${alive[n]}")
			fi
		done
		alive=("${keep[@]}")
	done
	$CC "${cflags[@]}" -I"$tmp" "$tmp/probe.c" -o "$tmp/probe" || die "$inc: probe does not build"

	local val=()
	while read -r n i; do
		val[n]=$i
	done < <("$tmp/probe")
	[ "${#val[@]}" -eq "${#alive[@]}" ] || die "$inc: the probe did not print every value"

	# The first candidate whose offset (or type size) compiled wins.  A
	# member whose size does not compile is a flexible array member: size 0,
	# as layout.h has it.
	local done_=() key
	local -A seen=()
	: >"$tmp/rows"
	: >"$tmp/absent"
	for n in "${!c_expr[@]}"; do
		i=${c_field[n]}
		[ -n "${done_[i]:-}" ] && continue
		[ -n "${val[n]:-}" ] || continue
		case ${c_kind[n]} in
		t)	key="${c_type[n]}"
			[ -z "${seen[$key]:-}" ] && printf '\tSG_LAYOUT_SIZE("%s", %s),\t/* %s */\n' \
				"${c_type[n]}" "${val[n]}" "${f_id[i]}" >>"$tmp/rows" ;;
		o)	key="${c_type[n]}.${c_member[n]}"
			if [ -z "${val[n + 1]:-}" ] &&
			   [[ ${c_error[n + 1]:-} != *"sizeof"*"incomplete type"* ]]; then
				die "$inc: ${c_expr[n + 1]}: ${c_error[n + 1]:-no value}"
			fi
			[ -z "${seen[$key]:-}" ] && printf '\tSG_LAYOUT_MEMBER("%s", "%s", %s, %s),\t/* %s */\n' \
				"${c_type[n]}" "${c_member[n]}" "${val[n]}" "${val[n + 1]:-0}" \
				"${f_id[i]}" >>"$tmp/rows" ;;
		s)	continue ;;
		esac
		seen[$key]=1
		done_[i]=1
	done
	for ((i = 0; i < nf; i++)); do
		[ -n "${done_[i]:-}" ] || echo "${f_id[i]} (${f_spec[i]})" >>"$tmp/absent"
	done
}

# ---- tables.c --------------------------------------------------------------

gen() {
	local major minor full inc sym list=""
	while read -r major minor full inc; do
		list+="${list:+, }$full (${inc##*/include/})"
	done <"$tmp/versions"

	cat <<EOF
/* Generated by plugins/cpython/gen-tables.sh: do not edit.  To change the
   fields, edit PY_FIELDS in cpython.h and run gen-tables.sh again.

   The offsets and sizes of PY_FIELDS for each CPython, from its installed
   headers (with Py_BUILD_CORE and the internal headers), $arch:
$(echo "$list." | fold -s -w 72 | sed 's/ *$//; s/^/   /; $s/$/  *\//')
#include <config.h>
#include "cpython.h"
EOF
	while read -r major minor full inc; do
		probe "$major" "$minor" "$inc"
		sym=py_${major}_${minor}
		echo
		if [ -s "$tmp/absent" ]; then
			echo "/* CPython $full.  No spelling of these compiles with its headers:"
			sed 's/^/   /; $s/$/  *\//' "$tmp/absent"
		else
			echo "/* CPython $full.  */"
		fi
		echo "static const struct sg_layout_row ${sym}[] = {"
		cat "$tmp/rows"
		echo '	SG_LAYOUT_END'
		echo '};'
	done <"$tmp/versions"

	echo
	echo 'const struct py_table py_tables[] = {'
	while read -r major minor full inc; do
		echo "	{ PY_V($major, $minor), \"CPython $full headers, $arch\", py_${major}_${minor} },"
	done <"$tmp/versions"
	echo '};'
	echo 'const size_t py_ntables = sizeof py_tables / sizeof py_tables[0];'
}

if $check; then
	[ -f "$out" ] || die "$out does not exist"
	gen >"$tmp/tables.c"
	if diff -u --label tables.c --label "tables.c, regenerated" "$out" "$tmp/tables.c"; then
		exit 0
	fi
	echo "gen-tables.sh: $out is out of date: run $0" >&2
	exit 1
fi
gen >"$tmp/tables.c"
mv "$tmp/tables.c" "$out"
echo "gen-tables.sh: wrote $out ($(wc -l <"$tmp/versions") versions)" >&2
