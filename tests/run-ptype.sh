#!/bin/bash
# ptype and whatis of C++ classes against gdb, line for line: bases
# (virtual, private, protected), access labels, the hidden vtable pointer,
# static members, methods of every kind, templates and their "[with T =
# ...]", class typedefs, bit fields, unions, anonymous members, member
# pointers.  The fixture stops in pause(), so gdb's language is C: struct
# keywords everywhere, "()" for an empty parameter list.
. "$top_srcdir/tests/test-subr.sh"

start_fixture "$FIXTURES/sg-ptype" || exit 1
pid=$FIXTURE_PID

# Not compared: "ptype struct ns::Base", "ptype union ns::Num" and
# "whatis ns::Outer::value_type": gdb's C parser rejects a qualified name
# after a struct keyword or a typedef inside a class ("No struct type named
# ns."), which spyglass answers.
classes=('ptype ns::Base' 'ptype g_derived' 'ptype ns::Shape' 'ptype ns::Circle'
	 'ptype ns::Hidden' 'ptype ns::Guarded' 'ptype ns::VLeft' 'ptype ns::VRight'
	 'ptype ns::Diamond' 'ptype ns::VBase' 'ptype ns::Counter' 'ptype g_empty'
	 'ptype g_global' 'ptype g_secret' 'ptype g_only_data' 'ptype g_word'
	 'ptype g_overloads' 'ptype g_hid' 'ptype ns::Gadget' 'ptype g_gadget' 'whatis g_gadget'
	 'ptype g_vd' 'ptype ns::VB')
templates=('ptype g_arr4' 'ptype g_arr2' 'ptype ns::Array<int, 4>' 'ptype g_pair'
	   'ptype ns::Pair<int, double>' 'ptype g_pair_nested' 'ptype g_box' 'ptype g_box_str'
	   'ptype g_fixed' 'whatis g_box' 'whatis g_box_str' 'whatis g_pair_nested'
	   'whatis g_fixed' 'whatis g_arr4.data' 'ptype g_list' 'ptype g_mlist' 'ptype g_node'
	   'whatis g_node' 'whatis g_list.head' 'ptype ns::Box<long>' 'whatis ns::Box<long>')
members=('ptype g_bits' 'ptype g_num' 'ptype g_anon' 'ptype g_outer' 'ptype g_inner'
	 'ptype g_from_outer' 'ptype g_holder' 'whatis g_anon.u' 'ptype g_anon.u'
	 'whatis g_anon.u.parts' 'ptype g_anon.u.parts' 'whatis g_bits.a' 'ptype g_outer.lv'
	 'whatis g_outer.lv' 'ptype g_outer.c' 'whatis g_outer.v' 'ptype g_outer.v'
	 'whatis g_outer.p' 'ptype g_outer.p' 'whatis g_outer.ip' 'whatis g_outer.in3'
	 'whatis g_holder.mfp' 'ptype g_holder.mfp' 'whatis g_holder.mp' 'ptype g_holder.mp'
	 'whatis g_holder.fn' 'whatis g_holder.cp' 'whatis g_holder.cv' 'whatis g_holder.ref'
	 'whatis g_overloads.cb' 'whatis g_overloads.vcb' 'ptype g_gadget->cb'
	 'whatis g_gadget->cb')
derived=('whatis g_derived' 'whatis &g_derived' 'ptype &g_derived' 'whatis g_base'
	 'ptype g_base' 'whatis *g_base' 'ptype *g_shape' 'whatis g_shape_ref'
	 'ptype g_shape_ref' 'whatis g_counters' 'ptype g_counters' 'whatis g_dptrs'
	 'ptype g_dptrs' 'whatis g_num' 'whatis g_hid' 'ptype g_vleft' 'whatis g_diamond')

# gdb_batch drops empty lines, and ptype's blank lines are part of what
# is compared: this keeps them, dropping only gdb's attach chatter.
gdb_keep_blank() {	# gdb_keep_blank [-iex CMD] COMMAND...
	local args=() c
	if [ "$1" = -iex ]; then
		args+=(-iex "$2")
		shift 2
	fi
	for c in "$@"; do
		args+=(-ex "$c")
	done
	GDB_OUT=$("$GDB" -nx -batch -p "$pid" "${args[@]}" 2>&1 |
		grep -vE '^\[(New LWP|Thread debugging)|^Using host libthread_db|^[0-9]+[[:space:]]|^0x[0-9a-f]+ in |^warning: |^\[Inferior .* detached\]|^Download failed|^Reading symbols|^Attaching to process|^(Reading|Downloading) ')
}

compare() {	# compare NAME [-iex GDB_INIT] COMMAND...: on $pid
	local name=$1 args=() c init=()
	shift
	if [ "$1" = -iex ]; then
		init=(-iex "$2")
		shift 2
	fi
	for c in "$@"; do
		args+=(-ex "$c")
	done
	sg -p "$pid" "${args[@]}"
	ok $STATUS "$name: all $# commands succeed${ERR:+: $ERR}"
	if have_gdb; then
		gdb_keep_blank "${init[@]}" "$@"
		# gdb_keep_blank drops gdb's source lines: ours too.
		is "$(printf '%s\n' "$OUT" | grep -vE '^[0-9]+[[:space:]]')" "$GDB_OUT" "$name: as gdb prints them"
	else
		skip "$name: gdb not installed"
	fi
}

compare "classes" "${classes[@]}"
compare "templates" "${templates[@]}"
compare "members" "${members[@]}"
compare "pointers, references, arrays" "${derived[@]}"

# ptype/o: offsets, sizes, holes and padding, nested structs spelled out.
offsets=('ptype/o ns::Bits' 'ptype/o g_anon' 'ptype/o g_derived' 'ptype/o ns::Num'
	 'ptype/o g_counter' 'ptype/o g_outer' 'ptype/o g_secret' 'ptype/o g_base' 'ptype/o int'
	 'ptype/o g_global' 'ptype/o g_arr4' 'ptype/o ns::Shape' 'ptype/o g_diamond'
	 'ptype/o g_holder' 'ptype/o g_empty' 'ptype/o g_word' 'ptype/o g_pair_nested'
	 'ptype/o ns::Gadget' 'ptype/o g_vd' 'ptype/o g_mlist' 'ptype/o g_node')
compare "ptype/o" "${offsets[@]}"

# In a C++ frame gdb spells types as C++ does: no struct keyword,
# (void) for methods without parameters, enums' underlying types.
compare "in main's C++ frame" 'frame 1' "${classes[@]:0:12}" 'whatis g_derived' 'ptype/o g_derived' \
	'print &g_derived'

# libstdc++'s classes: hundreds of methods and typedefs, and the local
# names gdb's hash table picks for them.  Type printers would print just
# "std::vector<int>", so gdb runs without auto-loading its printers and
# spyglass without the libstdcxx plugin, which registers them.
start_fixture "$FIXTURES/sg-stl" || exit 1
stl_pid=$FIXTURE_PID
no_lsx=$(printf '%s' "${SPYGLASS_PLUGIN_PATH:-}" | tr ':' '\n' | grep -v '/libstdcxx/' | paste -sd:)
SPYGLASS_PLUGIN_PATH=$no_lsx pid=$stl_pid compare "libstdc++ classes, without type printers" \
	-iex 'set auto-load off' 'ptype g_v' 'ptype g_s' 'ptype g_l' 'ptype g_map' 'ptype g_sp' 'ptype g_up'
SPYGLASS_PLUGIN_PATH=$no_lsx pid=$stl_pid compare "libstdc++ classes with ptype/o" \
	-iex 'set auto-load off' 'ptype/o g_v' 'ptype/o g_s' 'ptype/o g_map' 'ptype/o g_sp' 'ptype/o g_l'
# With them, as gdb with Debian's printers, in a C++ frame: the printers'
# names, no body.  (In a C frame gdb's printers.py fails to recognise a
# container of a class, std::map<int, std::string>: not emulated.)
pid=$stl_pid compare "libstdc++ classes, with type printers" 'frame 1' 'ptype g_v' 'ptype g_s' \
	'ptype g_l' 'ptype g_map' 'ptype g_up' 'ptype/o g_v' 'whatis g_map' 'ptype g_sp' 'whatis g_up'
stop_fixture "$stl_pid"

# Checks that hold without gdb.
sg -p "$pid" -ex 'ptype ns::Diamond' -ex 'ptype ns::Counter'
like "$OUT" '^type = struct ns::Diamond : public ns::VLeft, public ns::VRight \{$' "the base-class list"
like "$OUT" '^    virtual const char \* name\(\) const;$|^    static int count\(\);$' "static and virtual methods"
if printf '%s\n' "$OUT" | grep -q '_vptr'; then
	ok 1 "the vtable pointer stays hidden"
else
	ok 0 "the vtable pointer stays hidden"
fi
sg -p "$pid" -ex 'ptype g_arr4'
is "$(printf '%s\n' "$OUT" | head -2)" $'type = struct ns::Array<int, 4> [with T = int] {\n    T data[4];' \
	"a template's type parameter names its members"
sg --json -p "$pid" -ex 'ptype ns::Hidden'
is "$(printf '%s\n' "$OUT" | jq -r '.type')" $'class ns::Hidden : private ns::Mixin {\n    int h;\n}' \
	"ptype of a class in JSON"
check_running "$pid" "target runs"
done_testing
