/* The members the plugin reads, with the spellings each Zeek version has
   used, and the built-in tables that stand in for DWARF in release
   builds (GCC, libstdc++, x86-64).

   The numbers follow from each version's headers (src/Obj.h, Func.h,
   Frame.h, Type.h, Stmt.h); doc/zeek.md gives the sources.  The test
   fixture reproduces those headers' layouts, and run-zeek-bt.sh checks
   every table against the fixture's DWARF.  */
#include <config.h>
#include "zeek.h"

static const char *const callinfo_members[] = { "call", "frame|func", NULL };
static const char *const func_members[] = { "location", "kind", "type", "name", NULL };
static const char *const functype_members[] = { "flavor", NULL };
static const char *const location_members[] = { "filename", "first_line", NULL };
static const char *const frame_members[] = { "function", "next_stmt", NULL };
static const char *const location_only[] = { "location", NULL };

/* 3.2 moved the classes into zeek and zeek::detail; up to 3.1 they are
   global.  Both spellings are given, the era's own first (chosen by the
   call_stack symbol), since a spelling DWARF lacks is looked for in every
   module's DWARF before the next is tried.  */
const struct sg_layout_spec zk_specs[ZK_NTYPES] = {
	[ZK_CALLINFO] = { "zeek::detail::CallInfo|CallInfo", callinfo_members },
	[ZK_FUNC] = { "zeek::Func|Func", func_members },
	[ZK_FUNCTYPE] = { "zeek::FuncType|FuncType", functype_members },
	[ZK_LOCATION] = { "zeek::detail::Location|Location", location_members },
	[ZK_FRAME] = { "zeek::detail::Frame|Frame", frame_members },
	[ZK_STMT] = { "zeek::detail::Stmt|Stmt", location_only },
	[ZK_CALLEXPR] = { "zeek::detail::CallExpr|CallExpr", location_only },
};

const struct sg_layout_spec zk_specs_global[ZK_NTYPES] = {
	[ZK_CALLINFO] = { "CallInfo|zeek::detail::CallInfo", callinfo_members },
	[ZK_FUNC] = { "Func|zeek::Func", func_members },
	[ZK_FUNCTYPE] = { "FuncType|zeek::FuncType", functype_members },
	[ZK_LOCATION] = { "Location|zeek::detail::Location", location_members },
	[ZK_FRAME] = { "Frame|zeek::detail::Frame", frame_members },
	[ZK_STMT] = { "Stmt|zeek::detail::Stmt", location_only },
	[ZK_CALLEXPR] = { "CallExpr|zeek::detail::CallExpr", location_only },
};

/* Rows every version shares: Obj's location at 8 (after the vptr), which
   Stmt and CallExpr inherit; Func::type one pointer at 64 and Func::name
   a std::string at 72.  */
#define ZK_COMMON_ROWS								\
	SG_LAYOUT_MEMBER("zeek::detail::CallInfo", "call", 0, 8),		\
	SG_LAYOUT_MEMBER("zeek::Func", "location", 8, 8),			\
	SG_LAYOUT_MEMBER("zeek::Func", "type", 64, 8),				\
	SG_LAYOUT_MEMBER("zeek::Func", "name", 72, 32),				\
	SG_LAYOUT_MEMBER("zeek::detail::Stmt", "location", 8, 8),		\
	SG_LAYOUT_MEMBER("zeek::detail::CallExpr", "location", 8, 8)

/* CallInfo {call, func, args}: 24 bytes up to 8.0.  */
#define ZK_CALLINFO_FUNC							\
	SG_LAYOUT_SIZE("zeek::detail::CallInfo", 24),				\
	SG_LAYOUT_MEMBER("zeek::detail::CallInfo", "func", 8, 8)

/* Func::kind at 56 and FuncType::flavor at FLAVOR, both enums of SIZE
   bytes (4 up to 7.x, uint8_t from 8.0).  */
#define ZK_KIND_FLAVOR(FLAVOR, SIZE)						\
	SG_LAYOUT_MEMBER("zeek::Func", "kind", 56, SIZE),			\
	SG_LAYOUT_MEMBER("zeek::FuncType", "flavor", FLAVOR, SIZE)

/* Location's filename and first_line: after a vptr up to 3.0.x.  */
#define ZK_LOCATION(FILENAME)							\
	SG_LAYOUT_MEMBER("zeek::detail::Location", "filename", FILENAME, 8),	\
	SG_LAYOUT_MEMBER("zeek::detail::Location", "first_line", (FILENAME) + 8, 4)

#define ZK_FRAME(FUNCTION, NEXT_STMT)						\
	SG_LAYOUT_MEMBER("zeek::detail::Frame", "function", FUNCTION, 8),	\
	SG_LAYOUT_MEMBER("zeek::detail::Frame", "next_stmt", NEXT_STMT, 8)

/* 3.0.0 and 3.0.1: Location has a virtual destructor; BroType is 72
   bytes (tag and internal_tag are plain enums, name at 40), which puts
   FuncType::flavor at 96.  Frame::next_stmt at 144, as zeek-spy found
   it in Zeek 3.0's DWARF.  */
static const struct sg_layout_row rows_30[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(96, 4), ZK_LOCATION(8),
	ZK_FRAME(128, 144), SG_LAYOUT_END,
};

/* 3.0.2 to 3.0.x: Frame gains weak_refs and weak_closure_ref ahead of
   function (a fix backported from 3.1); Location is still virtual.  */
static const struct sg_layout_row rows_302[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(96, 4), ZK_LOCATION(8),
	ZK_FRAME(144, 160), SG_LAYOUT_END,
};

/* 3.1: Location loses its vptr.  */
static const struct sg_layout_row rows_31[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(96, 4), ZK_LOCATION(0),
	ZK_FRAME(144, 160), SG_LAYOUT_END,
};

/* 3.2 to 4.x: zeek::Type packs internal_tag (uint16_t) and two bools
   after tag, so its name is at 32 and FuncType::flavor at 88.  Frame
   packs its bools after size and holds the closure members in 16-byte
   lists and unique_ptrs.  */
static const struct sg_layout_row rows_32[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(88, 4), ZK_LOCATION(0),
	ZK_FRAME(72, 88), SG_LAYOUT_END,
};

/* 5.x: Frame adds current_offset, captures and captures_offset_map
   ahead of function.  */
static const struct sg_layout_row rows_50[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(88, 4), ZK_LOCATION(0),
	ZK_FRAME(96, 112), SG_LAYOUT_END,
};

/* 6.0 to 7.x: the closure members are gone.  */
static const struct sg_layout_row rows_60[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(88, 4), ZK_LOCATION(0),
	ZK_FRAME(64, 80), SG_LAYOUT_END,
};

/* 8.0: Func::Kind and FunctionFlavor become uint8_t enums; Location
   loses its columns (filename and first_line do not move).  */
static const struct sg_layout_row rows_80[] = {
	ZK_COMMON_ROWS, ZK_CALLINFO_FUNC, ZK_KIND_FLAVOR(88, 1), ZK_LOCATION(0),
	ZK_FRAME(64, 80), SG_LAYOUT_END,
};

/* 8.1: CallInfo {call, frame}, 16 bytes; every call has a Frame.  */
static const struct sg_layout_row rows_81[] = {
	ZK_COMMON_ROWS,
	SG_LAYOUT_SIZE("zeek::detail::CallInfo", 16),
	SG_LAYOUT_MEMBER("zeek::detail::CallInfo", "frame", 8, 8),
	ZK_KIND_FLAVOR(88, 1), ZK_LOCATION(0), ZK_FRAME(64, 80), SG_LAYOUT_END,
};

static const struct zk_table tables[] = {
	{ ZK_V(3, 0, 0), ZK_V(3, 0, 1), { "Zeek 3.0.0 to 3.0.1 (GCC, libstdc++, x86-64)", rows_30 } },
	{ ZK_V(3, 0, 2), ZK_V(3, 0, 99), { "Zeek 3.0.2 to 3.0.x (GCC, libstdc++, x86-64)", rows_302 } },
	{ ZK_V(3, 1, 0), ZK_V(3, 1, 99), { "Zeek 3.1 (GCC, libstdc++, x86-64)", rows_31 } },
	{ ZK_V(3, 2, 0), ZK_V(4, 99, 99), { "Zeek 3.2 to 4.x (GCC, libstdc++, x86-64)", rows_32 } },
	{ ZK_V(5, 0, 0), ZK_V(5, 99, 99), { "Zeek 5.x (GCC, libstdc++, x86-64)", rows_50 } },
	{ ZK_V(6, 0, 0), ZK_V(7, 99, 99), { "Zeek 6.0 to 7.x (GCC, libstdc++, x86-64)", rows_60 } },
	{ ZK_V(8, 0, 0), ZK_V(8, 0, 99), { "Zeek 8.0 (GCC, libstdc++, x86-64)", rows_80 } },
	{ ZK_V(8, 1, 0), ZK_V(9, 99, 99), { "Zeek 8.1 to 9.x (GCC, libstdc++, x86-64)", rows_81 } },
};

const struct zk_table *zk_table_for(unsigned version)
{
	for (size_t i = 0; i < ZK_ARRAY_SIZE(tables); i++)
		if (version >= tables[i].first && version <= tables[i].last)
			return &tables[i];
	return NULL;
}

const char *zk_table_range(void)
{
	return "3.0 to 9.x";
}
