#!/bin/bash
# py-bt against an oracle we did not write: gdb's own py-bt (CPython's
# Tools/gdb/libpython.py, shipped by Debian's python3.11-dbg) on Debian's
# python3.11, every thread of tests/python/stacks.py, frame by frame: file,
# line and function (gdb prints co_name, spyglass co_qualname: the part
# after the last dot is compared).
. "$top_srcdir/tests/test-subr.sh"

py=/usr/bin/python3.11
gdbpy=/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py
if [ ! -x "$py" ] || [ ! -f "$gdbpy" ] || ! command -v "${GDB:-gdb}" >/dev/null; then
	skip "needs $py, gdb and $gdbpy (packages python3.11, gdb, python3.11-dbg)"
	done_testing
fi

fifo=$testdir/fifo
out=$testdir/stacks.json
mkfifo "$fifo"
"$py" "$top_srcdir/tests/python/stacks.py" "$fifo" "$out" >"$testdir/py.log" 2>&1 &
pid=$!
fixture_pids+=("$pid")
read -r -t 30 line <>"$fifo"
if [ "$line" != ready ]; then
	ok 1 "stacks.py under $py signals ready"
	sed 's/^/#   /' "$testdir/py.log"
	done_testing
fi
sleep 0.1
# The spinner moves between the two tools' stops.
spinner=$(jq -r '.threads[] | select(.role == "spinner") | .native_id' "$out")

"$SG_BIN" -nx -p "$pid" --json -- py-bt >"$testdir/sg.json" 2>"$testdir/sg.err"
ok $? "spyglass py-bt on $py$(cat "$testdir/sg.err")"
"${GDB:-gdb}" -q -nx -iex 'set auto-load safe-path /' \
	-iex "add-auto-load-scripts-directory /usr/share/gdb/auto-load" \
	-p "$pid" -batch -ex 'thread apply all py-bt' >"$testdir/gdb.txt" 2>&1

# One line per frame, "TID<TAB>FUNCTION<TAB>FILE<TAB>LINE", innermost first.
jq -r '.threads[] | .tid as $t | .frames[] | "\($t)\t\(.function | sub("^.*\\."; ""))\t\(.file)\t\(.line)"' \
	"$testdir/sg.json" | grep -v "^$spinner	" >"$testdir/sg.frames"
awk -v spin="$spinner" '
	/^Thread [0-9]+ \(Thread 0x[0-9a-f]+ \(LWP [0-9]+\)/ {
		match($0, /LWP [0-9]+/)
		tid = substr($0, RSTART + 4, RLENGTH - 4)
		next
	}
	/^  File "/ && tid != spin {
		# File "PATH", line N, in NAME
		line = $0
		sub(/^  File "/, "", line)
		file = line
		sub(/", line ([0-9]+|\?), in .*$/, "", file)
		n = line
		sub(/^.*", line /, "", n)
		sub(/, in .*$/, "", n)
		fn = line
		sub(/^.*, in /, "", fn)
		print tid "\t" fn "\t" file "\t" n
	}' "$testdir/gdb.txt" >"$testdir/gdb.frames"

threads=$(cut -f1 "$testdir/gdb.frames" | sort -u | wc -l)
[ "$threads" -ge 10 ]
ok $? "gdb's py-bt shows the Python stacks of $threads threads"
# Where gdb cannot tell the line ("line ?": libpython.py gives up on the
# module frame of a 3.11 process), the function and file still count.
for tid in $(cut -f1 "$testdir/gdb.frames" | sort -u); do
	role=$(jq -r --argjson t "$tid" '.threads[] | select(.native_id == $t) | .role' "$out")
	want=$(grep "^$tid	" "$testdir/gdb.frames")
	got=$(paste <(grep "^$tid	" "$testdir/sg.frames") <(printf '%s\n' "$want") |
		awk -F'\t' -v OFS='\t' '{ if ($8 == "?") $4 = "?"; print $1, $2, $3, $4 }')
	is "$got" "$want" "thread $tid (${role:-?}): py-bt's frames are gdb's py-bt's"
done
done_testing
