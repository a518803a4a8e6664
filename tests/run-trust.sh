#!/bin/bash
# Files that run with spyglass's privileges (often root's): plugins and
# command files.  One that someone else could have written is refused when
# it was only found (the plugin folders, ~/.spyglassrc) and loaded with a
# warning when it was asked for by name (--plugin, plugin load, -x,
# source).  SPYGLASS_SAFE_PATH trusts a folder on purpose.
. "$top_srcdir/tests/test-subr.sh"

example=$top_builddir/plugins/example/.libs/example.so
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "needs root and the user nobody to make files owned by others"
	done_testing
fi

# plugins_in DIR: spyglass with DIR as its only plugin folder; the
# example plugin's hello command tells whether it was loaded.
plugins_in() {
	OUT=$(SPYGLASS_PLUGIN_PATH="$1" "$SG_BIN" -nx -batch -ex hello 2>"$testdir/err")
	STATUS=$?
	ERR=$(cat "$testdir/err")
}

# A trusted folder: owned by root, not writable by others.
good=$testdir/good
mkdir -p "$good" && chmod 755 "$good" && cp "$example" "$good/"
plugins_in "$good"
is "$STATUS:$OUT:$ERR" "0:Hello, world (call 1).:" "a plugin in a folder only root can write is loaded"

# A world-writable folder.
bad=$testdir/ww
mkdir -p "$bad" && cp "$example" "$bad/" && chmod 777 "$bad"
plugins_in "$bad"
is "$ERR" "warning: not loading plugin $bad/example.so: in $bad, writable by everyone (SPYGLASS_SAFE_PATH can trust its folder)
Undefined command: \"hello\".  Try \"help\"." "a plugin in a world-writable folder is not loaded"

# A sticky world-writable folder (like /tmp) holding someone else's file.
sticky=$testdir/sticky
mkdir -p "$sticky" && cp "$example" "$sticky/" && chown nobody "$sticky/example.so" && chmod 1777 "$sticky"
plugins_in "$sticky"
like "$ERR" "^warning: not loading plugin $sticky/example.so: owned by nobody, neither root nor you " \
	"someone else's plugin in a sticky folder is not loaded"
chown root "$sticky/example.so"
plugins_in "$sticky"
is "$STATUS:$OUT" "0:Hello, world (call 1)." "root's own plugin in a sticky folder is loaded"

# A plugin file writable by everyone.
wfile=$testdir/wfile
mkdir -p "$wfile" && chmod 755 "$wfile" && cp "$example" "$wfile/" && chmod 666 "$wfile/example.so"
plugins_in "$wfile"
like "$ERR" "^warning: not loading plugin $wfile/example.so: writable by everyone " \
	"a plugin file writable by everyone is not loaded"

# SPYGLASS_SAFE_PATH trusts a folder on purpose.
OUT=$(SPYGLASS_SAFE_PATH="$bad" SPYGLASS_PLUGIN_PATH="$bad" "$SG_BIN" -nx -batch -ex hello 2>&1)
is "$OUT" "Hello, world (call 1)." "SPYGLASS_SAFE_PATH trusts the folder"

# Asked for by name: loaded, with a warning.
OUT=$("$SG_BIN" -nx -batch --plugin "$bad/example.so" -ex hello 2>&1)
is "$OUT" "warning: loading plugin $bad/example.so, as asked, although others could have written it: in $bad, writable by everyone
Hello, world (call 1)." "--plugin of an untrusted file warns and loads"
OUT=$("$SG_BIN" -nx -batch -ex "plugin load $wfile/example.so" -ex hello 2>&1)
like "$OUT" "^warning: loading plugin $wfile/example.so, as asked, although others could have written it: writable by everyone$" \
	"plugin load of an untrusted file warns"
like "$OUT" "^Hello, world \(call 1\)\.$" "  and loads it"

# ~/.spyglassrc: refused when others could have written it.
home=$testdir/home
mkdir -p "$home" && chmod 755 "$home"
echo 'echo rc ran\n' >"$home/.spyglassrc"
rc() { OUT=$(HOME=$home "$SG_BIN" -batch -ex 'echo done\n' 2>&1); }
rc
is "$OUT" "rc ran
done" "a trusted ~/.spyglassrc runs"
chmod 666 "$home/.spyglassrc"
rc
is "$OUT" "warning: not reading $home/.spyglassrc: writable by everyone (SPYGLASS_SAFE_PATH can trust its folder)
done" "a world-writable ~/.spyglassrc is not read"
chmod 644 "$home/.spyglassrc" && chown nobody "$home/.spyglassrc"
rc
like "$OUT" "^warning: not reading $home/.spyglassrc: owned by nobody, neither root nor you" \
	"someone else's ~/.spyglassrc is not read"
chown root "$home/.spyglassrc" && chmod 777 "$home"
rc
like "$OUT" "^warning: not reading $home/.spyglassrc: in $home, writable by everyone" \
	"a ~/.spyglassrc in a world-writable home is not read"
chmod 755 "$home"

# -x of an untrusted file: run, with a warning.
cp "$home/.spyglassrc" "$bad/cmds"
OUT=$("$SG_BIN" -nx -batch -x "$bad/cmds" 2>&1)
is "$OUT" "warning: running $bad/cmds, as asked, although others could have written it: in $bad, writable by everyone
rc ran" "-x of an untrusted file warns and runs"

chmod 755 "$bad" "$sticky"

# --help names the variable that trusts a folder.
"$SG_BIN" --help | tr '\n' ' ' | grep -q "unless it is under a folder of SPYGLASS_SAFE_PATH"
ok $? "--help says how to trust a folder (SPYGLASS_SAFE_PATH)"
done_testing
