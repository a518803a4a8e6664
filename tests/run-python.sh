#!/bin/bash
# The cpython plugin (py-bt, py-locals, bt --python) against live CPython
# processes, every interpreter found: pyenv's (2.7, 3.6+), Debian's
# stripped /usr/bin/python3.11 (no DWARF: built-in tables), those listed in
# ${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}/pythons.txt ("VERSION PATH
# SYS.VERSION..." per line), and libpython embedded in a C program.
#
# The oracle is the target itself: each fixture thread records its own
# stack (sys._getframe, f_lineno, co_qualname on 3.11+ else co_name) on the
# line where it then blocks, and the test compares py-bt's frames with that
# record, frame by frame (tests/python/stacks.py).  py-locals is compared
# with Python's own repr of each local (tests/python/locals.py).  Fixtures
# use a FIFO handshake: the script writes its JSON, then "ready" into the
# FIFO, then blocks.
. "$top_srcdir/tests/test-subr.sh"

pysrc=$top_srcdir/tests/python

if ! command -v jq >/dev/null; then
	skip "jq not installed: cannot read the JSON"
	done_testing
fi

# Plugins: the unwinders and cpython, unless SPYGLASS_PLUGIN_PATH (set by
# tests/Makefile.inc) already loads them.
py_plugins=()
loaded=$("$SG_BIN" -nx -batch -ex 'plugin list' 2>/dev/null)
for p in cfi-unwind fp-unwind cpython; do
	so=$top_builddir/plugins/$p/.libs/$p.so
	if [ -e "$so" ] && ! grep -q "^$p " <<<"$loaded"; then
		py_plugins+=(--plugin "$so")
	fi
done
have_plugin=1
if ! grep -q '^cpython ' <<<"$loaded" && [ ! -e "$top_builddir/plugins/cpython/.libs/cpython.so" ]; then
	have_plugin=0
	echo "# the cpython plugin is not built: only the fixtures are checked"
fi

# sgt ARGS...: sg with the plugins and a time limit.
sgt() {
	OUT=$(timeout -k 5 60 "$SG_BIN" -nx -batch ${py_plugins[@]+"${py_plugins[@]}"} "$@" 2>"$testdir/stderr")
	STATUS=$?
	ERR=$(cat "$testdir/stderr")
}

# start_py LOG COMMAND...: run COMMAND FIFO OUTFILE in the background and
# wait (20 s at most) for "ready" in the FIFO.  Sets PY_PID and PY_OUT.
nstart=0
start_py() {
	local log=$1 line=
	shift
	nstart=$((nstart + 1))
	local fifo=$testdir/fifo.$nstart
	PY_OUT=$testdir/out.$nstart.json
	rm -f "$fifo"
	mkfifo "$fifo"
	"$@" "$fifo" "$PY_OUT" >"$log" 2>&1 &
	PY_PID=$!
	fixture_pids+=("$PY_PID")
	# Opened read-write: the open does not wait for the writer.
	read -r -t 20 line <>"$fifo"
	if [ "$line" != ready ] || [ ! -s "$PY_OUT" ]; then
		echo "# $* did not become ready:"
		sed 's/^/#   /' "$log" | tail -20
		stop_fixture "$PY_PID"
		return 1
	fi
	# The threads recorded their stacks just before their blocking calls:
	# let them get there (the main thread publishes last).
	wait_sleeping "$PY_PID"
	sleep 0.1
}

# ---- the interpreters -------------------------------------------------------

pyenv_root=
if command -v pyenv >/dev/null; then
	pyenv_root=$(pyenv root 2>/dev/null)
fi
for d in "$pyenv_root" "$HOME/.pyenv" /root/.pyenv; do
	if [ -n "$d" ] && [ -d "$d/versions" ]; then
		pyenv_root=$d
		break
	fi
done

# Each entry: "KIND<TAB>PATH"; KIND says where it came from.
interps=()
if [ -n "$pyenv_root" ] && [ -d "$pyenv_root/versions" ]; then
	while IFS= read -r p; do
		[ -x "$p" ] && interps+=("pyenv	$p")
	done < <(ls -d "$pyenv_root"/versions/*/bin/python 2>/dev/null | sort -V)
fi
[ -x /usr/bin/python3.11 ] && interps+=("debian	/usr/bin/python3.11")
pythons_txt=${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}/pythons.txt
missing=()
if [ -r "$pythons_txt" ]; then
	while read -r ver path _; do
		case $ver in '' | '#'*) continue ;; esac
		if [ -x "$path" ]; then
			interps+=("listed	$path")
		else
			missing+=("$ver: $path, listed in $pythons_txt, is not an executable")
		fi
	done <"$pythons_txt"
else
	echo "# no $pythons_txt: only pyenv's and /usr/bin's interpreters"
fi

# version_of PATH: X.Y of the interpreter.
version_of() {
	"$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}
found_versions=" "
for e in ${interps[@]+"${interps[@]}"}; do
	found_versions+="$(version_of "${e#*	}") "
done
for v in 2.7 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13 3.14 3.15; do
	case $found_versions in
	*" $v "*) ;;
	*) missing+=("$v: no CPython $v interpreter (looked in ${pyenv_root:-pyenv}/versions, /usr/bin/python3.11, $pythons_txt)") ;;
	esac
done
for m in ${missing[@]+"${missing[@]}"}; do
	skip "$m"
done

# label_of KIND PATH OUTFILE: "3.11.7", "3.11.2 (/usr/bin/python3.11,
# stripped)", "3.14.0t (/opt/.../python3.14t)".
label_of() {
	local kind=$1 path=$2 out=$3 l
	l=$(jq -r '.version + (if (.abiflags // "") | test("t") then "t" else "" end) + (if (.abiflags // "") | test("d") then "d" else "" end)' "$out")
	case $kind in
	pyenv) echo "$l" ;;
	debian) echo "$l ($path, stripped)" ;;
	*) echo "$l ($path)" ;;
	esac
}

# What each role of stacks.py stands for.
declare -A role_desc=(
	[main]="main thread: a function called from <module>"
	[sleeper]="blocked in time.sleep"
	[closures]="closures 3 deep"
	[methods]="methods of nested classes (Outer.Inner.method)"
	[generator]="blocked inside a generator body"
	[comprehension]="a lambda called in a list comprehension"
	[decorated]="a decorator's wrapper frame"
	[recursion]="recursion 500 deep"
	[lock]="blocked in Lock.acquire"
	[select]="blocked in select.select"
	[ctypes_callback]="a ctypes callback (libc qsort calling Python)"
	[non_ascii]="non-ASCII function names and file path"
	[coroutine]="a coroutine driven by asyncio, blocked in time.sleep"
	[async_generator]="blocked inside an async generator"
	[spinner]="spinning in pure Python, holding the GIL"
	[py_worker]="a threading.Thread"
	[c_caller]="a C thread calling Python (PyGILState_Ensure)"
)

# split_frames DIR: read "KEY<TAB>REST" lines, write each REST to DIR/KEY.
split_frames() {
	rm -rf "$1"
	mkdir -p "$1"
	awk -F '\t' -v d="$1" '{ k = $1; sub(/^[^\t]*\t/, ""); print > (d "/" k) }'
}
# load_pybt JSON: py-bt's frames, one "function<TAB>file<TAB>line" per line,
# in $testdir/got/INDEX (INDEX: the thread's in .threads); idx_tid[INDEX].
declare -A idx_tid
load_pybt() {
	jq -r '.threads | to_entries[] | .key as $k | .value.frames[] | "\($k)\t\(.function)\t\(.file)\t\(.line)"' <<<"$1" |
		split_frames "$testdir/got"
	idx_tid=()
	local i t
	while read -r i t; do
		idx_tid[$i]=$t
	done < <(jq -r '.threads | to_entries[] | "\(.key) \(.value.tid)"' <<<"$1")
}
# load_recorded OUTFILE: the same, as the fixture recorded them, in
# $testdir/want/ROLE.
load_recorded() {
	jq -r '.threads[] | .role as $r | .frames[] | "\($r)\t\(.function)\t\(.file)\t\(.line)"' "$1" |
		split_frames "$testdir/want"
}
frames_of() {	# frames_of INDEX
	cat "$testdir/got/$1" 2>/dev/null
}
recorded_frames() {	# recorded_frames ROLE
	cat "$testdir/want/$1" 2>/dev/null
}

# map_roles JSON OUTFILE: fill role_idx[ROLE] with the index in py-bt's
# threads of the thread that recorded ROLE: same native id (3.8+), or else
# the same pthread_t (thread_id).  A role without such thread is absent.
declare -A role_idx
map_roles() {
	local role idx
	role_idx=()
	while read -r role idx; do
		[ -n "$idx" ] && role_idx[$role]=$idx
	done < <(jq -r --slurpfile rec "$2" '
		def norm: tostring | ascii_downcase | sub("^0x0*"; "");
		.threads as $ts
		| $rec[0].threads[]
		| . as $r
		| ([$ts | to_entries[]
		    | select(if $r.native_id != null then .value.tid == $r.native_id
			     else (.value.thread_id // "" | norm) == ($r.thread_id | norm) end)
		    | .key] | first) as $i
		| "\($r.role) \($i // "")"' <<<"$1")
}

# check_fixture LABEL OUTFILE: the fixture's own record is sane: every
# thread recorded, and its innermost frame is a line that calls record(.
check_fixture() {
	local label=$1 out=$2 bad
	bad=$(jq -r '.threads[] | "\(.role)\t\(.frames[0].file)\t\(.frames[0].line)"' "$out" |
		while IFS=$'\t' read -r role file line; do
			src=$(sed -n "${line}p" "$file" 2>/dev/null)
			case $src in
			*'record('* | *'publish('*) ;;
			*) echo "$role: $file:$line is not a record( line: $src" ;;
			esac
		done)
	is "$bad" "" "$label: the fixture recorded every thread on a line calling record()"
}

# compare_role LABEL JSON OUTFILE ROLE: py-bt's frames of the thread that
# recorded ROLE against its record.
compare_role() {
	local label=$1 j=$2 out=$3 role=$4 idx want got desc
	desc=${role_desc[$role]:-$role}
	idx=${role_idx[$role]:-}
	if [ -z "$idx" ]; then
		ok 1 "$label: $desc: py-bt reports the thread (native id $(jq -r --arg r "$role" '.threads[] | select(.role == $r) | "\(.native_id), thread_id \(.thread_id)"' "$out"))"
		return
	fi
	want=$(recorded_frames "$role")
	got=$(frames_of "$idx")
	if [ "$role" = spinner ]; then
		# Frame 0 is anywhere in the loop: its line must be one of the
		# lines marked "# SPIN"; the other frames are exact.
		local lines l0
		lines=" $(jq -r '.threads[] | select(.role == "spinner") | .lines[]' "$out" | tr '\n' ' ')"
		l0=$(head -n 1 <<<"$got" | cut -f 3)
		if [[ "$lines" == *" $l0 "* ]]; then
			want=$(awk -F '\t' -v OFS='\t' 'NR == 1 { $3 = "in-loop" } { print }' <<<"$want")
			got=$(awk -F '\t' -v OFS='\t' 'NR == 1 { $3 = "in-loop" } { print }' <<<"$got")
		else
			want=$(awk -F '\t' -v OFS='\t' -v l="one of$lines" 'NR == 1 { $3 = l } { print }' <<<"$want")
		fi
	fi
	is "$got" "$want" "$label: $desc ($(wc -l <<<"$want") frames)"
}

# check_threads LABEL JSON OUTFILE PID: the per-thread facts besides frames.
check_threads() {
	local label=$1 j=$2 out=$3 pid=$4 want got role idx bad
	is "$(jq -r '.threads[].tid' <<<"$j" | sort -n | tr '\n' ' ')" "$(ls "/proc/$pid/task" | sort -n | tr '\n' ' ')" \
		"$label: py-bt lists every thread of /proc/PID/task"
	is "$(jq -r '.threads[] | "\(.tid) \(.name)"' <<<"$j")" \
		"$(jq -r '.threads[].tid' <<<"$j" | while read -r t; do echo "$t $(cat "/proc/$pid/task/$t/comm" 2>/dev/null)"; done)" \
		"$label: name is the OS thread name (comm)"
	is "$(jq -r '[.threads[].frames[] | select(.kind != "python")] | length' <<<"$j")" 0 \
		"$label: py-bt frames are all \"kind\": \"python\""
	# python_name and thread_id of every recorded thread.
	local -A pname ptid rname rtid
	while IFS=$'\t' read -r idx name tid; do
		pname[$idx]=$name ptid[$idx]=$tid
	done < <(jq -r '.threads | to_entries[] | "\(.key)\t\(.value.python_name)\t\(.value.thread_id)"' <<<"$j")
	while IFS=$'\t' read -r role name tid; do
		rname[$role]=$name rtid[$role]=$tid
	done < <(jq -r '.threads[] | "\(.role)\t\(.name)\t\(.thread_id)"' "$out")
	want="" got=""
	for role in $(printf '%s\n' "${!role_idx[@]}" | sort); do
		idx=${role_idx[$role]}
		want+="$role ${rname[$role]:-}"$'\n'
		got+="$role ${pname[$idx]:-}"$'\n'
	done
	is "$got" "$want" "$label: python_name is threading's name"
	want="" got=""
	for role in $(printf '%s\n' "${!role_idx[@]}" | sort); do
		idx=${role_idx[$role]}
		want+="$role $(printf '0x%x' "${rtid[$role]:-}")"$'\n'
		got+="$role $(printf '0x%x' "${ptid[$idx]:-}" 2>/dev/null || echo "${ptid[$idx]:-}")"$'\n'
	done
	is "$got" "$want" "$label: thread_id is the pthread_t (threading.get_ident())"
	is "$(jq -r '[.threads[] | select(.gc_running != false)] | length' <<<"$j")" 0 "$label: gc_running is false"
	if jq -e '.abiflags // "" | test("t")' "$out" >/dev/null; then
		skip "$label: free-threaded build: no GIL to hold"
	else
		idx=${role_idx[spinner]:-}
		local holders tries=1
		holders=$(jq -r '.threads | to_entries[] | select(.value.holds_gil == true) | .key' <<<"$j" | tr '\n' ' ')
		# Python 2's spinner gives the GIL up for an instant every 100
		# bytecodes, with no thread state current meanwhile: a stop in
		# that window rightly finds no holder.  Sample again.
		while [[ $label == 2.* && -z $holders && $tries -lt 5 ]]; do
			tries=$((tries + 1))
			sgt --json -p "$pid" -ex 'py-bt'
			holders=$(tail -n 1 <<<"$OUT" | jq -r '.threads | to_entries[] | select(.value.holds_gil == true) | .key' 2>/dev/null | tr '\n' ' ')
		done
		is "$holders" "${idx:-?} " \
			"$label: the spinner holds the GIL, no other thread does ($tries samples)"
	fi
}

# check_text LABEL PID JSON OUTFILE: py-bt's text output.
check_text() {
	local label=$1 pid=$2 j=$3 out=$4 idx tid comm want got
	sgt -p "$pid" -ex 'py-bt'
	ok $STATUS "$label: py-bt (text) succeeds${ERR:+: $ERR}"
	idx=${role_idx[sleeper]:-}
	tid=$(jq -r --argjson i "${idx:-0}" '.threads[$i].tid' <<<"$j")
	comm=$(cat "/proc/$pid/task/$tid/comm")
	like "$OUT" "^Thread [0-9]+ \\(LWP $tid \"$comm\"\\) \"sleeper\":\$" "$label: text: header line 'Thread N (LWP TID \"comm\") \"sleeper\":'"
	is "$(grep -c '^Thread ' <<<"$OUT")" "$(jq '.threads | length' <<<"$j")" "$label: text: one header per thread"
	# The sleeper's frames, and the source line of frame 0 below it.
	local block
	block=$(awk -v h="LWP $tid " 'index($0, h) && /^Thread / { on = 1; next } /^Thread / { on = 0 } on' <<<"$OUT")
	want=$(recorded_frames sleeper | awk -F '\t' '{ printf "#%-2d %s at %s:%s\n", NR - 1, $1, $2, $3 }')
	is "$(grep '^#' <<<"$block")" "$want" "$label: text: the sleeper's frames as '#N  FUNCTION at FILE:LINE'"
	like "$(sed -n 2p <<<"$block")" '^[[:space:]]+time\.sleep\(record\("sleeper"\) or FOREVER\)$' \
		"$label: text: frame 0's source line, indented, below it"
	# Every thread's frames: the text and the JSON agree.
	want=$(jq -r '.threads[].frames | to_entries[] | "\(.key)\t\(.value.function)\t\(.value.file)\t\(.value.line)"' <<<"$j" |
		awk -F '\t' '{ printf "#%-2d %s at %s:%s\n", $1, $2, $3, $4 }')
	# (The spinner moved on between the two runs: not its line in frame 0.)
	local spin='s/^(#0 +spinner at .*\/stacks\.py:)[0-9]+$/\1(in the loop)/'
	is "$(grep '^#' <<<"$OUT" | sed -E "$spin")" "$(sed -E "$spin" <<<"$want")" \
		"$label: text: the frames of the JSON, in the same order"
}

# check_merged LABEL PID JSON OUTFILE: thread apply all bt --python.  In
# every recorded thread the Python frames are py-bt's, in order, among
# native ones; a C function called from Python and calling back into it
# (libc's qsort, in the ctypes thread) sits between the two Python frames;
# every stack ends with native frames (the thread's start, main).
check_merged() {
	local label=$1 pid=$2 j=$3 out=$4 nosyms=$5 m role idx tid want got bad
	sgt --json -p "$pid" -ex 'thread apply all bt --python'
	ok $STATUS "$label: thread apply all bt --python succeeds${ERR:+: $ERR}"
	m=$(tail -n 1 <<<"$OUT")
	if ! jq -e '.threads | type == "array"' >/dev/null 2>&1 <<<"$m"; then
		ok 1 "$label: bt --python --json gives {\"threads\": [...]}: $(head -c 300 <<<"$m")"
		return
	fi
	# Debian unstable's stripped builds keep no symbol for the eval loop's
	# cold part, where calls return to: the interpreter frames cannot be
	# counted, and every Python thread says so and shows its Python frames.
	if [ "$nosyms" = 1 ]; then
		bad=$(jq -r '.threads[] | select([.frames[] | select(.kind == "python")] | length > 0)
			| select(.merged or (.notice // "" | test("^cannot merge") | not)) | .tid' <<<"$m")
		is "$bad" "" "$label: bt --python without the eval loop's symbols: a notice, Python frames only"
		return
	fi
	is "$(jq -r '[.threads[].frames[] | select(.kind != "python" and .kind != "native")] | length' <<<"$m")" 0 \
		"$label: bt --python: every frame is \"kind\": \"native\" or \"python\""
	# The spinner moved on since py-bt: not its line in frame 0.
	local spin='s/^(spinner\t.*\/stacks\.py\t)[0-9]+$/\1(in the loop)/'
	jq -r '.threads[] | .tid as $t | .frames[] | select(.kind == "python") | "\($t)\t\(.function)\t\(.file)\t\(.line)"' <<<"$m" |
		split_frames "$testdir/merged"
	bad=""
	for role in $(jq -r '.threads[].role' "$out"); do
		idx=${role_idx[$role]:-}
		[ -n "$idx" ] || continue
		tid=${idx_tid[$idx]}
		want=$(frames_of "$idx" | sed -E "$spin")
		got=$(cat "$testdir/merged/$tid" 2>/dev/null | sed -E "$spin")
		[ "$got" = "$want" ] || bad+="$role: $(diff <(echo "$want") <(echo "$got") | grep -c '^[<>]') lines differ; "
	done
	is "$bad" "" "$label: bt --python: the Python frames of py-bt in every thread, in order"
	idx=${role_idx[ctypes_callback]:-0}
	tid=$(jq -r --argjson i "$idx" '.threads[$i].tid' <<<"$j")
	# libffi's closure trampolines have no CFI in some builds (Debian
	# unstable's libffi 3.5): the frame-pointer fallback cannot step out of
	# them (gdb can, by prologue analysis).  A native unwinder limit, not
	# the merge's: say so instead of failing.
	local stop
	stop=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | .stop_reason // ""' <<<"$m")
	if [[ $stop == *"is not in this stack"* ]]; then
		skip "$label: bt --python through qsort: the native unwind stopped in libffi ($stop)"
	else
		got=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | [.frames[] | select(.kind == "python" or (.function // "" | test("qsort")))
		| if .kind == "python" then .function else "qsort" end] | map(sub("^.*\\."; "")) | join(" > ")' <<<"$m")
		like "$got" '^compare > (qsort > )+ctypes_callback > ' "$label: bt --python: libc's qsort between the ctypes callback and its caller"
	fi
	# A stack whose native unwind stopped early (above) ends where it
	# stopped.
	bad=$(jq -r '.threads[] | select(.frames | length > 0) | select(.stop_reason == null) | select((.frames | last | .kind) != "native")
		| "\(.tid): ends with \(.frames | last | .kind) frame \(.frames | last | .function)"' <<<"$m")
	is "$bad" "" "$label: bt --python: every stack still ends with its native frames (thread start, main)"
}

# check_select LABEL PID JSON: "thread N" selects the thread py-locals
# reads: the recursion thread's innermost recurse(n) frames.
check_select() {
	local label=$1 pid=$2 j=$3 idx tid id
	idx=${role_idx[recursion]:-}
	tid=$(jq -r --argjson i "${idx:-0}" '.threads[$i].tid' <<<"$j")
	sgt --json -p "$pid" -ex 'info threads'
	id=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | .id' <<<"$OUT" 2>/dev/null)
	sgt --json -p "$pid" -ex "thread ${id:-0}" -ex 'py-locals' -ex 'py-locals 5'
	is "$(sed -n '2,3p' <<<"$OUT" | jq -r '"\(.frame.function) n=\(.locals[] | select(.name == "n") | .repr)"' 2>&1)" \
		$'recurse n=1\nrecurse n=6' "$label: thread N, py-locals, py-locals 5: n in the recursion thread's frames 0 and 5"
}

# check_stacks KIND PATH: stacks.py under one interpreter.
text_done=0
check_stacks() {
	local kind=$1 py=$2 label pid out j role t0=$SECONDS
	if ! start_py "$testdir/stacks.log" "$py" "$pysrc/stacks.py"; then
		ok 1 "$py: stacks.py starts and signals the FIFO"
		return
	fi
	pid=$PY_PID out=$PY_OUT
	label=$(label_of "$kind" "$py" "$out")
	check_fixture "$label" "$out"
	if [ "$have_plugin" = 0 ]; then
		skip "$label: the cpython plugin is not built"
		stop_fixture "$pid"
		return
	fi
	sgt --json -p "$pid" -ex 'py-bt'
	ok $STATUS "$label: py-bt --json succeeds${ERR:+: $ERR}"
	j=$(tail -n 1 <<<"$OUT")
	if ! jq -e '.threads | type == "array"' >/dev/null 2>&1 <<<"$j"; then
		ok 1 "$label: py-bt --json gives {\"threads\": [...]}: $(head -c 300 <<<"$j")"
		stop_fixture "$pid"
		return
	fi
	map_roles "$j" "$out"
	load_pybt "$j"
	load_recorded "$out"
	for role in $(jq -r '.threads[].role' "$out"); do
		compare_role "$label" "$j" "$out" "$role"
	done
	check_threads "$label" "$j" "$out" "$pid"
	local nosyms=0
	[[ $kind == listed && $py != *d ]] && nosyms=1
	check_merged "$label" "$pid" "$j" "$out" "$nosyms"
	# The text output, once: on the first 3.12 (else the last interpreter).
	if [ "$text_done" = 0 ] && { [[ $label == 3.12.* ]] || [ "$py" = "$last_interp" ]; }; then
		check_text "$label" "$pid" "$j" "$out"
		check_select "$label" "$pid" "$j"
		text_done=1
	fi
	check_running "$pid" "$label: the target runs, untraced, after py-bt"
	stop_fixture "$pid"
	echo "# $label: stacks checked in $((SECONDS - t0)) s"
}

# check_locals KIND PATH: py-locals under one interpreter.
check_locals() {
	local kind=$1 py=$2 label pid out j name want got limit t0=$SECONDS
	if ! start_py "$testdir/locals.log" "$py" "$pysrc/locals.py"; then
		ok 1 "$py: locals.py starts and signals the FIFO"
		return
	fi
	pid=$PY_PID out=$PY_OUT
	label=$(label_of "$kind" "$py" "$out")
	limit=$(jq -r '.limit' "$out")
	sgt --json -p "$pid" -ex 'set print elements unlimited' -ex 'py-locals' -ex 'py-locals 1' \
		-ex "set print elements $limit" -ex 'py-locals'
	ok $STATUS "$label: py-locals --json succeeds${ERR:+: $ERR}"
	local l0 l1 lt
	l0=$(sed -n 2p <<<"$OUT") l1=$(sed -n 3p <<<"$OUT") lt=$(sed -n 5p <<<"$OUT")
	if ! jq -e '.locals | type == "array"' >/dev/null 2>&1 <<<"$l0"; then
		ok 1 "$label: py-locals --json gives {\"locals\": [...]}: $(head -c 300 <<<"$l0")"
		stop_fixture "$pid"
		return
	fi
	is "$(jq -r '[.frame.function, .frame.file, .frame.line] | @tsv' <<<"$l0")" \
		"$(jq -r '[.frame.function, .frame.file, .frame.line] | @tsv' "$out")" "$label: py-locals: frame 0 is values()"
	is "$(jq -r '.locals[].name' <<<"$l0" | sort)" "$(jq -r '.locals | keys[]' "$out" | sort)" \
		"$label: py-locals: the names of the locals"
	# NAME<TAB>WANT<TAB>GOT, the reprs as JSON strings (control characters
	# escaped); GOT null when py-locals does not list NAME.
	local wantj gotj
	while IFS=$'\t' read -r name wantj gotj; do
		if [ "$gotj" = "$wantj" ]; then
			ok 0 "$label: py-locals: $name"
		elif [ "${#wantj}" -gt 300 ]; then
			# Long reprs: where they part.
			ok 1 "$label: py-locals: $name (${#wantj} characters as JSON)"
			local k
			k=$(cmp <(printf '%s' "$wantj") <(printf '%s' "$gotj") 2>&1 | grep -o 'byte [0-9]*' | grep -o '[0-9]*')
			k=$((${k:-1} - 1))
			echo "#   they differ from character $k; got ${#gotj} characters"
			echo "#   want: ...${wantj:$((k > 60 ? k - 60 : 0)):120}..."
			echo "#   got:  ...${gotj:$((k > 60 ? k - 60 : 0)):120}..."
		else
			is "$gotj" "$wantj" "$label: py-locals: $name"
		fi
	done < <(jq -r --slurpfile got <(printf '%s\n' "$l0") '
		($got[0].locals // [] | map({(.name): .repr}) | add // {}) as $g
		| .locals | to_entries[] | "\(.key)\t\(.value | tojson)\t\($g[.key] | tojson)"' "$out")
	jq -e . >/dev/null 2>&1 <<<"$l1" || l1='{}'
	jq -e . >/dev/null 2>&1 <<<"$lt" || lt='{}'
	# Frame 1: outer().
	is "$(jq -r '.locals[] | "\(.name) = \(.repr)"' <<<"$l1" 2>/dev/null | sort)" \
		"$(jq -r '.outer_locals | to_entries[] | "\(.key) = \(.value)"' "$out" | sort)" \
		"$label: py-locals 1: the locals of outer()"
	# set print elements: containers cut after LIMIT elements.
	while IFS=$'\t' read -r name wantj gotj; do
		if [ "$gotj" = "$wantj" ]; then
			ok 0 "$label: set print elements $limit: $name shows $limit elements, then ..."
		else
			ok 1 "$label: set print elements $limit: $name shows $limit elements, then ..."
			echo "#   want (${#wantj} chars as JSON): ${wantj:0:60}...${wantj: -60}"
			echo "#   got (${#gotj} chars as JSON):  ${gotj:0:60}...${gotj: -60}"
		fi
	done < <(jq -r --slurpfile got <(printf '%s\n' "$lt") '
		($got[0].locals // [] | map({(.name): .repr}) | add // {}) as $g
		| .truncated | to_entries[] | "\(.key)\t\(.value | tojson)\t\($g[.key] | tojson)"' "$out")
	if [ "$text_locals_done" = 0 ]; then
		sgt -p "$pid" -ex 'py-locals'
		like "$OUT" '^v_small = 42$' "$label: py-locals (text): 'NAME = REPR'"
		is "$(grep '^v_str_latin1 = ' <<<"$OUT")" "v_str_latin1 = $(jq -r '.locals.v_str_latin1' "$out")" "$label: py-locals (text): a non-ASCII str"
		text_locals_done=1
	fi
	check_running "$pid" "$label: the target runs, untraced, after py-locals"
	stop_fixture "$pid"
	echo "# $label: locals checked in $((SECONDS - t0)) s"
}
text_locals_done=0

last_interp=
[ ${#interps[@]} -gt 0 ] && last_interp=${interps[-1]#*	}
for e in ${interps[@]+"${interps[@]}"}; do
	check_stacks "${e%%	*}" "${e#*	}"
done
if [ "$have_plugin" = 1 ]; then
	for e in ${interps[@]+"${interps[@]}"}; do
		check_locals "${e%%	*}" "${e#*	}"
	done
fi

# ---- libpython embedded in a C program ----------------------------------------

# check_embed X.Y: build tests/fixtures/py-embed.c against pyenv's X.Y.
check_embed() {
	local v=$1 cfg libdir exe label pid out j role idx
	cfg=$(ls -d "$pyenv_root"/versions/"$v".*/bin/python3-config 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$pyenv_root" ] || [ ! -x "$cfg" ]; then
		skip "embedded $v: no python3-config for $v in ${pyenv_root:-pyenv}/versions"
		return
	fi
	libdir=$("$cfg" --prefix)/lib
	if [ ! -e "$libdir/libpython$v.so" ]; then
		skip "embedded $v: no $libdir/libpython$v.so (not a --enable-shared build)"
		return
	fi
	exe=$testdir/py-embed-$v
	# shellcheck disable=SC2046
	if ! ${CC:-cc} $("$cfg" --cflags --embed) -O0 -g -o "$exe" "$top_srcdir/tests/fixtures/py-embed.c" \
		$("$cfg" --ldflags --embed) -Wl,-rpath,"$libdir" -pthread >"$testdir/cc.log" 2>&1; then
		ok 1 "embedded $v: py-embed.c builds"
		sed 's/^/#   /' "$testdir/cc.log" | head -20
		return
	fi
	if ! start_py "$testdir/embed.log" "$exe"; then
		ok 1 "embedded $v: py-embed starts and signals the FIFO"
		return
	fi
	pid=$PY_PID out=$PY_OUT
	label="embedded $(jq -r .version "$out")"
	if [ "$have_plugin" = 0 ]; then
		skip "$label: the cpython plugin is not built"
		stop_fixture "$pid"
		return
	fi
	sgt --json -p "$pid" -ex 'py-bt'
	ok $STATUS "$label: py-bt --json succeeds${ERR:+: $ERR}"
	j=$(tail -n 1 <<<"$OUT")
	map_roles "$j" "$out"
	load_pybt "$j"
	load_recorded "$out"
	for role in main py_worker c_caller; do
		compare_role "$label" "$j" "$out" "$role"
	done
	local conly
	conly=$(for t in $(ls "/proc/$pid/task"); do [ "$(cat "/proc/$pid/task/$t/comm")" = c-only ] && echo "$t"; done)
	is "$(jq -c --argjson t "${conly:-0}" '.threads[] | select(.tid == $t) | .frames' <<<"$j")" "[]" \
		"$label: a thread that never ran Python has no frames"
	sgt -p "$pid" -ex 'set python source off' -ex 'py-bt'
	like "$(grep -A1 "^Thread [0-9]* (LWP ${conly:-0} \"c-only\")" <<<"$OUT")" \
		"^Thread [0-9]+ \\(LWP ${conly:-0} \"c-only\"\\): no Python frames\$" \
		"$label: text: a thread that never ran Python says so in one line"
	# Merged stacks: the C functions below the Python frames they called.
	sgt --json -p "$pid" -ex 'thread apply all bt --python'
	ok $STATUS "$label: thread apply all bt --python succeeds${ERR:+: $ERR}"
	j=$(tail -n 1 <<<"$OUT")
	local tid fn want got
	for role in main c_caller; do
		case $role in
		main) fn=embed_run ;;
		c_caller) fn=c_caller_call ;;
		esac
		tid=$(jq -r --arg r "$role" '.threads[] | select(.role == $r) | .native_id' "$out")
		# The Python frames of the merged stack, then where FN is: after
		# (outside) the last of them.
		want=$(recorded_frames "$role" | cut -f 1)
		got=$(jq -r --argjson t "$tid" '.threads[] | select(.tid == $t) | .frames[] | select(.kind == "python") | .function' <<<"$j")
		is "$got" "$want" "$label: bt --python: the Python frames of the $role thread"
		got=$(jq -r --argjson t "$tid" --arg f "$fn" '.threads[] | select(.tid == $t) | .frames
			| ([to_entries[] | select(.value.kind == "python") | .key] | max) as $lastpy
			| ([to_entries[] | select(.value.kind == "native" and .value.function == $f) | .key] | min) as $c
			| if $c == null then "no \($f) frame" elif $lastpy == null then "no python frame"
			  elif $c > $lastpy then "\($f) below the Python frames" else "\($f) at \($c), last Python frame at \($lastpy)" end' <<<"$j")
		is "$got" "$fn below the Python frames" "$label: bt --python: the C function $fn below the $role thread's Python frames"
	done
	got=$(jq -r --argjson t "$pid" '.threads[] | select(.tid == $t) | [.frames[] | select(.kind == "native") | .function] | index("main") != null' <<<"$j")
	is "$got" true "$label: bt --python: main() is still in the main thread's stack"
	check_running "$pid" "$label: the target runs, untraced, after py-bt and bt --python"
	stop_fixture "$pid"
}
for v in 3.11 3.12; do
	check_embed "$v"
done

# ---- not Python ---------------------------------------------------------------

# check_not_python DESC PID
check_not_python() {
	local desc=$1 pid=$2
	if [ "$have_plugin" = 0 ]; then
		skip "py-bt on $desc: the cpython plugin is not built"
		return
	fi
	sgt -p "$pid" -ex 'py-bt'
	ok $((STATUS == 0)) "py-bt on $desc fails (status $STATUS)"
	is "$(grep -c . <<<"$ERR")" 1 "py-bt on $desc: one line on stderr: $ERR"
	check_running "$pid" "py-bt on $desc: the target runs, untraced"
}
sleep 100 &
sleep_pid=$!
fixture_pids+=("$sleep_pid")
is_sleep() { [ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$(command -v sleep)")" ]; }
wait_for 5 is_sleep "$sleep_pid"
check_not_python "sleep (not Python)" "$sleep_pid"
stop_fixture "$sleep_pid"
if [ -x "$FIXTURES/sg-threads" ] && start_fixture "$FIXTURES/sg-threads" 3; then
	check_not_python "sg-threads (threads, no Python)" "$FIXTURE_PID"
	stop_fixture "$FIXTURE_PID"
else
	skip "py-bt on sg-threads: $FIXTURES/sg-threads is not built"
fi

done_testing
