#!/bin/bash
# Plugins: loading by path, by name and from folders; refusing wrong ABIs and
# files that are not plugins before any of their code runs; and building the
# example out of tree against the installed headers with pkg-config.
. "$top_srcdir/tests/test-subr.sh"

example=$top_builddir/plugins/example/.libs/example.so
badabi=$top_builddir/tests/fixtures/.libs/badabi.so

sg --plugin "$example" -ex 'hello' -ex 'hello tester' -ex 'plugin list'
like "$OUT" '^Hello, world \(call 1\)\.$' "the example's command runs"
like "$OUT" '^Hello, tester \(call 2\)\.$' "its state lives across calls"
like "$OUT" "^example +1\.0 +$(readlink -f "$example")\$" "plugin list names it"
like "$OUT" "4 commands, 0 unwinders, 0 readers, 0 stack providers" "plugin list counts what it registered"
sg --plugin "$example" -ex 'help hello'
like "$OUT" '^Usage: hello \[NAME\]$' "help knows the plugin's command"

sg -ex "plugin load $example" -ex 'hello'
like "$OUT" "^Loaded plugin from $example" "plugin load PATH"
like "$OUT" '^Hello, world' "a plugin loaded at the prompt adds its command"
SPYGLASS_PLUGIN_PATH= sg -ex 'plugin list'
is "$OUT" "No plugins are loaded." "no plugins when no folder has any"
sg -ex 'plugin list' -ex 'info registries'
like "$OUT" '^cfi-unwind +1\.0 ' "the test environment loads the CFI unwinder"
like "$OUT" '^fp-unwind +1\.0 ' "and the frame-pointer unwinder"
like "$OUT" '^  unwinder +cfi +priority 10 ' "CFI runs first"
like "$OUT" '^  unwinder +fp +priority 20 ' "then the frame pointer"

OUT=$(SPYGLASS_PLUGIN_PATH=/nonexistent:$(dirname "$example") "$SG_BIN" -nx -batch -ex 'hello' 2>&1)
like "$OUT" '^Hello, world' "plugins in SPYGLASS_PLUGIN_PATH load at start-up"
mkdir -p "$testdir/plugdir"
cp "$example" "$testdir/plugdir/"
OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/plugdir "$SG_BIN" -nx -batch -ex 'hello' 2>&1)
like "$OUT" '^Hello, world' "plugins in the default folder load at start-up"
OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/empty SPYGLASS_PLUGIN_PATH=$testdir/plugdir "$SG_BIN" -nx -batch -ex 'plugin list' -ex 'plugin load example' 2>&1)
grep -Eq 'cannot|already' <<<"$OUT"
ok $((1 - $?)) "plugin load of a loaded plugin: no error"
is "$(grep -c '^example ' <<<"$OUT")" 1 "plugin load of a loaded plugin: loaded once"
OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/empty "$SG_BIN" -nx -batch -ex 'plugin load example' 2>&1)
is "$OUT" "cannot open plugin example: No such file or directory" "a name not found in any folder"

# The same file found again through the search path is loaded once, without
# a word: the default folder listed again in SPYGLASS_PLUGIN_PATH, a folder
# twice in it (spelt differently, or through a link), or a hard link to the
# file in another folder.  A different file with the same plugin name still
# warns.
ln -s "$testdir/plugdir" "$testdir/plugdir-link"
mkdir -p "$testdir/hardlink" "$testdir/copy"
ln "$testdir/plugdir/example.so" "$testdir/hardlink/example.so"
plugdir_real=$(readlink -f "$testdir/plugdir")
for path in "$testdir/plugdir" "$testdir/plugdir:$testdir/plugdir/:$testdir/plugdir-link" \
	"$testdir/hardlink"; do
	OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/plugdir SPYGLASS_PLUGIN_PATH=$path "$SG_BIN" -nx -batch \
		-ex 'plugin list' -ex 'hello' 2>"$testdir/e")
	is "$(cat "$testdir/e")" "" "default folder and SPYGLASS_PLUGIN_PATH=${path//$testdir/T}: no warning"
	is "$(grep -c '^example ' <<<"$OUT") $(grep -c '^Hello, world' <<<"$OUT")" "1 1" \
		"default folder and SPYGLASS_PLUGIN_PATH=${path//$testdir/T}: example is loaded once, and works"
done
cp "$testdir/plugdir/example.so" "$testdir/copy/"
SPYGLASS_PLUGIN_DIR=$testdir/plugdir SPYGLASS_PLUGIN_PATH=$testdir/copy "$SG_BIN" -nx -batch \
	-ex 'hello' >/dev/null 2>"$testdir/e"
is "$(cat "$testdir/e")" "warning: cannot load plugin $testdir/copy/example.so: a plugin named \"example\" is already loaded from $plugdir_real/example.so" \
	"another file with the same plugin name still warns"

# A plugin built for another ABI: refused before its constructor runs.
mark=$testdir/badabi-ran
SG_BADABI_MARK=$mark "$SG_BIN" -nx -batch -ex "plugin load $badabi" >/dev/null 2>"$testdir/e"
st=$?
is "$(cat "$testdir/e")" "cannot load plugin $badabi: built for plugin ABI 99.0, this spyglass supports 1.0 to 1.9" "wrong ABI is refused"
is "$st" 1 "wrong ABI: exit 1"
ok $([ ! -e "$mark" ]; echo $?) "none of the refused plugin's code ran"
SG_BADABI_MARK=$mark "$SG_BIN" -nx -batch --plugin "$badabi" -ex 'echo x' >/dev/null 2>"$testdir/e"
is "$?" 2 "--plugin with a bad plugin is fatal (2)"

# A stack provider built for ABI 1.0 keeps working, and the core never
# reads what 1.1 added to its ops (prepare, forget, is_eval): the words
# after its 1.0 table would leave a mark if called.
abi10=$top_builddir/tests/fixtures/.libs/abi10.so
mark10=$testdir/abi10-ran
if start_fixture "$FIXTURES/sg-threads" 1; then
	SG_ABI10_MARK=$mark10 "$SG_BIN" -nx -batch --plugin "$abi10" -p "$FIXTURE_PID" \
		-ex 'bt --python' -ex detach >"$testdir/o" 2>"$testdir/e"
	st=$?
	is "$st $(cat "$testdir/e")" "0 " "an ABI 1.0 stack provider: attach, bt --python, detach"
	like "$(cat "$testdir/o")" '^#1  0x[0-9a-f]+ in main ' "an ABI 1.0 stack provider: bt --python is the native stack"
	ok $([ ! -e "$mark10" ]; echo $?) "none of 1.1's ops was read from an ABI 1.0 plugin"
	stop_fixture "$FIXTURE_PID"
else
	ok 1 "sg-threads started for the ABI 1.0 provider"
fi

# Files that are not plugins.
printf 'not an ELF file\n' >"$testdir/text.so"
sg -ex "plugin load $testdir/text.so"
is "$ERR" "cannot load plugin $testdir/text.so: not an ELF file" "a text file"
sg -ex "plugin load $FIXTURES/sg-symbols"
is "$ERR" "cannot load plugin $FIXTURES/sg-symbols: not a shared object" "an executable"
libm=$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ { print $NF; exit }')
sg -ex "plugin load $libm"
is "$ERR" "cannot load plugin $libm: not a spyglass plugin (no .note.spyglass ABI note)" "a shared library without the ABI note"
sg -ex "plugin load $testdir"
is "$ERR" "cannot load plugin $testdir: not a regular file" "a folder"
ok $((STATUS == 0)) "a folder fails the command"
sg -ex "plugin load $testdir/missing.so"
is "$ERR" "cannot open plugin $testdir/missing.so: No such file or directory" "a missing file"
: >"$testdir/empty.so"
sg -ex "plugin load $testdir/empty.so"
is "$ERR" "cannot load plugin $testdir/empty.so: not an ELF file" "an empty file"
head -c 100 "$example" >"$testdir/truncated.so"
sg -ex "plugin load $testdir/truncated.so"
like "$ERR" "^cannot load plugin $testdir/truncated.so: " "a truncated plugin"
# Loading the file that is loaded already does what was asked: no error,
# one plugin (--plugin naming a plugin of the default folder).
sg -ex "plugin load $example" -ex "plugin load $example" -ex 'plugin list'
is "$ERR" "" "loading twice: no error"
ok "$STATUS" "loading twice succeeds"
is "$(grep -c '^example ' <<<"$OUT")" 1 "loading twice: loaded once"
OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/plugdir "$SG_BIN" -nx -batch --plugin "$testdir/plugdir/example.so" \
	-ex 'hello' 2>&1)
is "$OUT" "Hello, world (call 1)." "--plugin of a plugin of the default folder: no error"

# A broken plugin in the default folder warns and does not stop start-up.
cp "$testdir/text.so" "$testdir/plugdir/broken.so"
OUT=$(SPYGLASS_PLUGIN_DIR=$testdir/plugdir "$SG_BIN" -nx -batch -ex 'hello' 2>&1)
like "$OUT" "^warning: cannot load plugin $testdir/plugdir/broken.so: not an ELF file$" "a broken plugin in the folder warns"
like "$OUT" '^Hello, world' "the other plugins still load"

# Out of tree, as a plugin writer would: install into a staging folder,
# then build the installed example with the installed Makefile and
# pkg-config, and load it.  Only what a plugin writer needs is installed:
# installing the plugins makes libtool relink them in place in .libs, and
# the tests running beside this one would find a half-written plugin.
inst=$testdir/inst
sdk_parts="install-libLTLIBRARIES install-pkgincludeHEADERS install-pkgconfigDATA install-examplesDATA"
if ! command -v pkg-config >/dev/null; then
	skip "pkg-config not installed"
elif ! ${MAKE:-make} -s -C "$top_builddir" $sdk_parts DESTDIR="$inst" >"$testdir/install.log" 2>&1; then
	ok 1 "staged install for the out-of-tree build"
	sed 's/^/#   /' "$testdir/install.log" | tail -20
else
	pc=$(find "$inst" -name spyglass.pc | head -1)
	src=$(dirname "$(find "$inst" -path '*/example/example.c' | head -1)")
	ok $([ -n "$pc" ] && [ -n "$src" ]; echo $?) "spyglass.pc and the example's source are installed"
	mkdir -p "$testdir/oot"
	cp "$src/example.c" "$src/Makefile" "$testdir/oot/"
	export PKG_CONFIG_SYSROOT_DIR=$inst PKG_CONFIG_PATH=$(dirname "$pc")
	like "$(pkg-config --cflags spyglass)" "^-I$inst/.*/include" "pkg-config points at the installed headers"
	if make -s -C "$testdir/oot" CC="${CC:-cc}" CFLAGS="-O2 -Wall -Wextra -Werror" >"$testdir/oot.log" 2>&1; then
		ok 0 "the example builds out of tree with pkg-config spyglass"
		sg -ex "plugin load $testdir/oot/example.so" -ex 'hello oot'
		like "$OUT" '^Hello, oot \(call 1\)\.$' "the out-of-tree plugin loads and runs"
	else
		ok 1 "the example builds out of tree with pkg-config spyglass"
		sed 's/^/#   /' "$testdir/oot.log" | tail -20
	fi
	unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
fi

SPYGLASS_PLUGIN_PATH= sg --json --plugin "$example" -ex 'plugin list' -ex 'hello json'
like "$OUT" '^\{"plugins":\[\{"name":"example","version":"1\.0",' "plugin list in JSON"
like "$OUT" '^\{"greeting":"json","pid":null,"calls":1\}$' "a plugin command in JSON"

# One plugin reads library objects through another's readers: the
# example's "elements" asks the core for the reader of a std::vector and a
# std::map (the libstdcxx plugin's), their summary and their children.
start_fixture "$FIXTURES/sg-stl" || exit 1
stl=$FIXTURE_PID
sg --plugin "$example" -p "$stl" -ex 'elements g_v' -ex 'elements g_map' -ex 'elements g_vv'
like "$OUT" '^g_v: std::vector of length 3, capacity [0-9]+, 3 children$' "a vector's elements through the core"
like "$OUT" '^g_map: std::map with 2 elements, 4 children$' "a map's keys and values through the core"
like "$OUT" '^g_vv: std::vector of length 2, capacity [0-9]+, 2 children$' "a nested vector"
sg --plugin "$example" -p "$stl" -ex 'elements g_nosuch'
is "$ERR" "no variable g_nosuch" "an unknown variable"
SPYGLASS_PLUGIN_PATH= sg --plugin "$example" -p "$stl" -ex 'elements g_v'
like "$ERR" '^no reader gives the summary of std::vector<int, std::allocator<int> >$' \
	"without the libstdcxx plugin: no reader, one error line"
check_running "$stl" "target runs"
done_testing
