#!/bin/bash
# Start-up work (doc/cache.md): the persistent per-build-ID index cache and
# the lazy loading of plugins.
# - A second run reads libc's sorted symbol table and name hash from the
#   cache instead of building them (SPYGLASS_TRACE=cache says which), with
#   the same output as a run without the cache.
# - A damaged, truncated, stale or forged cache file (valid checksum,
#   hostile content) is ignored: same output, never a crash.
# - Several runs at once on an empty cache all print gdb's backtraces.
# - SPYGLASS_DEBUG_CACHE=0 writes nothing.
# - Plugins that declare when they are needed (SG_PLUGIN_TRIGGERS) are
#   loaded once to learn their commands; later runs load only those a
#   command or the target needs (SPYGLASS_TRACE=plugins says which), with
#   the same output as when every plugin is loaded (SPYGLASS_LAZY_PLUGINS=0).
. "$top_srcdir/tests/test-subr.sh"

trace() {	# trace ARGS...: sg with the cache traced, trace lines in $TRACE
	OUT=$(SPYGLASS_TRACE=cache,plugins timeout -k 5 120 "$SG_BIN" -nx -batch "$@" \
		2>"$testdir/stderr")
	STATUS=$?
	TRACE=$(grep '^spyglass-trace: ' "$testdir/stderr")
	ERR=$(grep -v '^spyglass-trace: ' "$testdir/stderr")
}

start_fixture "$FIXTURES/sg-threads" 4 || exit 1
pid=$FIXTURE_PID
BT=(-p "$pid" -ex 'thread apply all bt')

# The reference: no cache at all.
export SPYGLASS_CACHE_DIR=$testdir/cache
SPYGLASS_DEBUG_CACHE=0 trace "${BT[@]}"
want=$OUT
like "$want" '#[0-9]+ .* in main \(' "reference backtrace without the cache"
ok "$([ ! -e "$testdir/cache" ]; echo $?)" "SPYGLASS_DEBUG_CACHE=0 writes no cache"
like "$TRACE" 'cache: symtab: sorted' "without the cache, the symbol table is sorted"

trace "${BT[@]}"
is "$OUT" "$want" "first run with an empty cache: same output"
like "$TRACE" 'cache: symtab [0-9a-f]+: stored ' "first run stores the symbol table index"
like "$TRACE" 'cache: symnames [0-9a-f]+: stored ' "first run stores the symbol name hash"
# libc's is the largest.
symtab=$(ls -S "$testdir"/cache/index/*.symtab 2>/dev/null | head -n 1)
symnames=$(ls -S "$testdir"/cache/index/*.symnames 2>/dev/null | head -n 1)
ok "$([ -s "$symtab" ] && [ -s "$symnames" ]; echo $?)" "cache files in SPYGLASS_CACHE_DIR/index"

trace "${BT[@]}"
is "$OUT" "$want" "second run: same output"
like "$TRACE" 'cache: symtab [0-9a-f]+: hit' "second run reads the symbol table index"
like "$TRACE" 'cache: symnames [0-9a-f]+: hit' "second run reads the name hash"
ok "$(! grep -q 'symtab: sorted\|symnames: hashed [0-9]\{4,\}' <<<"$TRACE"; echo $?)" \
	"second run sorts no large symbol table and hashes no large name table"

# damage FILE HOW: a copy of the good FILE made bad in one way; the run
# must ignore it (trace says why), print the same, and store a good one.
good_symtab=$testdir/good.symtab good_symnames=$testdir/good.symnames
cp "$symtab" "$good_symtab"
cp "$symnames" "$good_symnames"
damaged() {	# damaged WHAT FILE REASON-REGEX
	trace "${BT[@]}"
	is "$OUT" "$want" "$1: same output"
	like "$TRACE" "ignored.*($3)" "$1: ignored, the trace says why"
	trace "${BT[@]}"
	like "$TRACE" "$(basename "$2" | sed 's/\..*//'): hit" "$1: replaced by a good file"
	cp "$good_symtab" "$symtab"
	cp "$good_symnames" "$symnames"
}
size=$(stat -c %s "$symtab")
printf '\xff\xff\xff\xff' | dd of="$symtab" bs=1 seek=$((size / 2)) conv=notrunc status=none
damaged "a flipped word in the symbol table index" "$symtab" 'checksum'
truncate -s $((size / 3)) "$symtab"
damaged "a truncated symbol table index" "$symtab" 'truncated'
truncate -s 10 "$symnames"
damaged "a name hash cut inside its header" "$symnames" 'truncated'
# The key (the file's mtime) at offset 8+4+4+129+7 = 152, second word.
printf '\x01' | dd of="$symtab" bs=1 seek=161 conv=notrunc status=none
damaged "a stale symbol table index (another mtime)" "$symtab" 'stale'
printf 'X' | dd of="$symtab" bs=1 seek=0 conv=notrunc status=none
damaged "not an index at all" "$symtab" 'not a spyglass index'

# Forged files: a valid header and checksum over hostile content.
forge() {	# forge FILE MODE
	python3 - "$1" "$2" <<'EOF'
import struct, sys
path, mode = sys.argv[1], sys.argv[2]
data = bytearray(open(path, 'rb').read())
HDR = 8 + 4 + 4 + 129 + 7 + 4 * 8 + 8 + 8
payload = data[HDR:]
M = (1 << 64) - 1
def checksum(p):
    h = 0x9e3779b97f4a7c15
    n = len(p) // 8 * 8
    for i in range(0, n, 8):
        w = int.from_bytes(p[i:i + 8], 'little')
        h = ((h ^ w) * 0x100000001b3) & M
        h ^= h >> 29
    if len(p) > n:
        w = int.from_bytes(p[n:], 'little')
        h = ((h ^ w ^ (len(p) - n)) * 0x100000001b3) & M
    return h ^ (h >> 31)
if checksum(payload) != struct.unpack_from('<Q', data, HDR - 8)[0]:
    sys.exit('the checksum of the good file does not match the test\'s')
if mode == 'index':		# a symbol index past the table
    struct.pack_into('<I', payload, 16, 0x7fffffff)
elif mode == 'order':		# addresses out of order
    struct.pack_into('<Q', payload, 0, 1 << 40)
elif mode == 'full':		# a hash table without a free slot: probes never end
    cap = struct.unpack_from('<Q', payload, 0)[0]
    for i in range(cap):
        struct.pack_into('<I', payload, 32 + 4 * i, 1 + i % 7)
elif mode == 'cap':		# a capacity far past the file
    struct.pack_into('<Q', payload, 0, 1 << 60)
elif mode == 'units-order':	# overlapping ranges
    struct.pack_into('<Q', payload, 24, 0)
elif mode == 'units-die':	# every unit at a DIE offset inside some other unit
    for i in range(len(payload) // 24):
        struct.pack_into('<Q', payload, 24 * i + 16, 0x1234 + 7 * i)
elif mode == 'manifest':	# a plugin's manifest claiming the core's "backtrace"
    def s(v):
        return struct.pack('<I', len(v)) + v
    payload = bytearray(s(b'cpython') + s(b'6.6.6') + s(b'forged') + struct.pack('<I', 1) +
                        s(b'backtrace') + struct.pack('<I', 0xffffffff) * 2 + s(b'forged') +
                        struct.pack('<I', 0xffffffff) + struct.pack('<II', 0, 1) +
                        struct.pack('<I', 0))
    struct.pack_into('<Q', data, HDR - 16, len(payload))
data[HDR:] = payload
struct.pack_into('<Q', data, HDR - 8, checksum(bytes(payload)))
open(path, 'wb').write(data)
EOF
}
if ! command -v python3 >/dev/null; then
	skip "python3 is not installed: forged cache files are not tested"
else
	forge "$symtab" index && damaged "forged: a symbol index out of range" "$symtab" 'out of range'
	forge "$symtab" order && damaged "forged: symbols out of address order" "$symtab" 'address order'
	forge "$symnames" full && damaged "forged: a full name hash" "$symnames" 'bad tables'
	forge "$symnames" cap && damaged "forged: a huge name hash" "$symnames" 'bad size'
fi

# The unit address index (cache-units.c), once frame.c asks it.
units=$(ls -S "$testdir"/cache/index/*.units 2>/dev/null | head -n 1)
if [ -z "$units" ]; then
	skip "no unit index was written: lib/frame.c does not ask sg_unit_index_cudie() (doc/cache.md)"
else
	trace "${BT[@]}"
	like "$TRACE" 'cache: units [0-9a-f]+: hit' "second run reads the unit address index"
	cp "$units" "$testdir/good.units"
	forge "$units" units-order
	trace "${BT[@]}"
	is "$OUT" "$want" "forged unit ranges out of order: same output"
	like "$TRACE" 'units [0-9a-f]+: ignored: bad ranges' "forged unit ranges out of order: ignored"
	cp "$testdir/good.units" "$units"
	forge "$units" units-die
	trace "${BT[@]}"
	is "$OUT" "$want" "forged unit DIE offsets: same output"
	cp "$testdir/good.units" "$units"
fi

# The function names of every frame, as bench/bt.sh compares them, without
# the thread IDs: the same program in another process gives the same.
names() {
	sed -E -n 's/^Thread ([0-9]+) .*/T \1/p
		s/^(#[0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) .*/\1 \3/p'
}
want_names=$(names <<<"$want")

# Several runs at once on an empty cache, each on a process of its own
# (one tracer per process): each reads nothing or a whole file, and all
# print the same backtraces.
export SPYGLASS_CACHE_DIR=$testdir/cache2
fixtures=() pids=()
for i in 1 2 3 4 5; do
	start_fixture "$FIXTURES/sg-threads" 4 || exit 1
	fixtures+=("$FIXTURE_PID")
done
for i in 1 2 3 4 5; do
	timeout -k 5 120 "$SG_BIN" -nx -batch -p "${fixtures[$((i - 1))]}" \
		-ex 'thread apply all bt' >"$testdir/conc.$i" 2>&1 &
	pids+=($!)
done
n_same=0
for i in 1 2 3 4 5; do
	wait "${pids[$((i - 1))]}"
	[ "$(names <"$testdir/conc.$i")" == "$want_names" ] && n_same=$((n_same + 1))
done
is "$n_same" 5 "five concurrent runs on an empty cache print the same backtraces"
trace "${BT[@]}"
is "$OUT" "$want" "the run after them: same output"
like "$TRACE" 'cache: symtab [0-9a-f]+: hit' "the run after them reads what they stored"
ok "$(ls "$testdir"/cache2/index/ | grep -q '\.tmp$'; [ $? = 1 ]; echo $?)" "no temporary files left"

if have_gdb; then
	f=${fixtures[2]}
	gdb_names=$("$GDB" -nx -batch -p "$f" -ex 'thread apply all bt' 2>/dev/null | names)
	is "$(names <"$testdir/conc.3")" "$gdb_names" "a concurrent run's backtraces are gdb's"
else
	skip "gdb is not installed"
fi
for f in "${fixtures[@]}"; do
	stop_fixture "$f"
done


# ---------------------------------------------------------------- plugins

export SPYGLASS_CACHE_DIR=$testdir/pcache
# lazy_vs_eager WHAT ARGS...: the same output as with every plugin loaded.
lazy_vs_eager() {
	local what=$1
	shift
	SPYGLASS_LAZY_PLUGINS=0 trace "$@"
	local eager=$OUT eager_err=$ERR
	trace "$@"
	is "$OUT" "$eager" "$what: the same output as with every plugin loaded"
	is "$ERR" "$eager_err" "$what: the same errors"
}
loaded() {	# the plugins the last trace loaded, sorted, on one line
	sed -n 's/^spyglass-trace: plugins: loaded \([^ ]*\) .*/\1/p' <<<"$TRACE" | sort | tr '\n' ' '
}
trace -ex 'plugin list'
like "$TRACE" 'plugins: loaded cpython \(to learn its commands\)' \
	"first run: a plugin with triggers is loaded to learn its commands"
all=$(sed -n 's/^\([a-z][^ ]*\) .*/\1/p' <<<"$OUT" | sort | tr '\n' ' ')
like "$all" 'cfi-unwind .*cpython .*fp-unwind ' "the test environment has the unwinders and cpython"

trace -p "$pid" -ex 'info threads'
is "$(loaded)" "" "info threads on a C program loads no plugin"
like "$TRACE" 'plugins: deferred cpython \(module=libpython' "cpython waits for a Python target"
lazy_vs_eager "info threads" -p "$pid" -ex 'info threads'

trace "${BT[@]}"
is "$(loaded)" "cfi-unwind fp-unwind " "bt on a C program loads the unwinders only"
is "$OUT" "$want" "bt with the unwinders loaded on demand"

trace -ex 'help'
is "$(loaded)" "" "help loads no plugin"
like "$OUT" '^py-bt .* -- Print the Python stack' "help lists a waiting plugin's command"
lazy_vs_eager "help" -ex 'help'
lazy_vs_eager "plugin list, then the registries" -ex 'plugin list' -ex 'info registries'
lazy_vs_eager "help py-bt" -ex 'help py-bt'
lazy_vs_eager "a waiting plugin's setting" -ex 'show python source' \
	-ex 'set python source off' -ex 'show python source'
trace -ex 'set python source off' -ex 'plugin list' -ex 'show python source'
like "$OUT" 'source line is off' "a setting made before its plugin loads is kept"

# py-bt on a C program: the command loads its plugin, which says there
# is no Python.
trace -p "$pid" -ex 'py-bt'
is "$(loaded)" "cpython " "py-bt loads the cpython plugin"
lazy_vs_eager "py-bt on a C program" -p "$pid" -ex 'py-bt'

py=$(command -v python3)
if [ -z "$py" ]; then
	skip "python3 is not installed: py-bt on Python is not tested"
else
	start_fixture "$py" -c '
import os, time
def inner():
    print("ready", os.getpid(), flush=True)
    time.sleep(600)
def outer():
    inner()
outer()' || exit 1
	pypid=$FIXTURE_PID
	trace -p "$pypid" -ex 'py-bt'
	like "$(loaded)" "cpython" "a Python target loads the cpython plugin"
	like "$OUT" 'inner.*
.*
?.*outer' "py-bt of a plugin loaded on demand"
	lazy_vs_eager "py-bt on Python" -p "$pypid" -ex 'py-bt'
	stop_fixture "$pypid"
fi

# A damaged manifest is ignored: the plugin is loaded to learn again.
for f in "$testdir"/pcache/index/plugin-*.plugin; do
	cp "$f" "$f.good"
	truncate -s 40 "$f"
done
trace -ex 'help py-bt'
like "$TRACE" 'plugins: loaded cpython \(to learn its commands\)' "a damaged manifest: the plugin is loaded again"
like "$OUT" 'Usage: py-bt' "a damaged manifest: help still knows py-bt"
# A forged one (valid checksum) that claims a core command: the plugin is
# loaded as if there were none, and the core's command stays.
if command -v python3 >/dev/null; then
	for f in "$testdir"/pcache/index/plugin-*.plugin; do
		mv "$f.good" "$f"
		forge "$f" manifest
	done
	trace -ex 'help py-bt' -ex 'help backtrace'
	like "$TRACE" 'plugins: loaded cpython \(to learn its commands\)' \
		"a forged manifest that claims a core command: the plugin is loaded"
	like "$OUT" 'Usage: py-bt' "a forged manifest: help knows py-bt"
	unlike=$(grep -c forged <<<"$OUT")
	is "$unlike" 0 "a forged manifest: the core's backtrace is untouched"
else
	skip "python3 is not installed: a forged manifest is not tested"
fi

stop_fixture "$pid"
done_testing
