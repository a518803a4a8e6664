#!/bin/bash
# The line-table decoders against each interpreter's own lines for every
# instruction of a few thousand code objects (tests/python/linetables.py,
# tests/unit/test-linetable.c).
. "$top_srcdir/tests/test-subr.sh"

bin=$top_builddir/tests/unit/test-linetable
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
unstable=${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}
pythons=()
for py in "$pyenv_root"/versions/*/bin/python /usr/bin/python3.11 \
	$(awk '!/^#/ && $1 !~ /d$/ { print $2 }' "$unstable/pythons.txt" 2>/dev/null); do
	[ -x "$py" ] && pythons+=("$py")
done
[ ${#pythons[@]} -gt 0 ] || skip "no CPython found (pyenv, python3.11, $unstable)"
for py in "${pythons[@]}"; do
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	if ! "$py" "$top_srcdir/tests/python/linetables.py" >"$testdir/dump" 2>"$testdir/err"; then
		ok 1 "$py: linetables.py runs"
		sed 's/^/#   /' "$testdir/err" | tail -5
		continue
	fi
	out=$("$bin" "$v" <"$testdir/dump")
	st=$?
	printf '%s\n' "$out" | grep '^#'
	ok $st "$py ($v): $(printf '%s\n' "$out" | sed -n 's/^ok [0-9]* - //p; s/^not ok [0-9]* - //p' | paste -sd ';' -)"
done
done_testing
