/* zeek: the script-level call stack of Zeek 3.0 to 9.x.  Internal
   interface between the plugin's files.

   Zeek keeps its script call stack in a global std::vector<CallInfo>,
   call_stack (zeek::detail::call_stack from 3.2), outermost first.  Each
   entry names the CallExpr in the caller that made the call and, up to
   8.0, the called Func; from 8.1 it points at the call's Frame instead,
   whose function is the Func.  The line a script frame is executing is
   its Frame's next_stmt; up to 8.0 Frames exist only for script
   functions and are found on the global g_frame_stack.

   Which walk applies is decided by what the target has (the CallInfo
   member that exists, the symbols), never by the version string.  Member
   offsets come from DWARF through layout bindings; without DWARF, from a
   built-in table chosen by the version (tables.c).  */
#ifndef SPYGLASS_ZEEK_H
#define SPYGLASS_ZEEK_H

#include <spyglass/spyglass.h>

#define ZK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* More entries than this is not a call stack: 9.0 caps recursion at
   1000 (max_recursion_depth), older versions run out of native stack
   long before.  */
#define ZK_MAX_DEPTH 10000
/* Bounds on strings read from the target.  */
#define ZK_MAX_NAME 512
#define ZK_MAX_FILE 4096

/* The types the plugin reads, and their members, as indexes into
   struct zk_layouts (see layouts.c for the specs).  */
enum zk_type { ZK_CALLINFO, ZK_FUNC, ZK_FUNCTYPE, ZK_LOCATION, ZK_FRAME, ZK_STMT, ZK_CALLEXPR,
	       ZK_NTYPES };
enum { CI_CALL, CI_FRAME_OR_FUNC };
enum { FN_LOCATION, FN_KIND, FN_TYPE, FN_NAME };
enum { FT_FLAVOR };
enum { LOC_FILENAME, LOC_FIRST_LINE };
enum { FR_FUNCTION, FR_NEXT_STMT };
enum { ST_LOCATION };
enum { CE_LOCATION };

/* The specs of 3.2 and later, and of 3.0 and 3.1 (the global names
   first).  */
extern const struct sg_layout_spec zk_specs[ZK_NTYPES];
extern const struct sg_layout_spec zk_specs_global[ZK_NTYPES];

/* Func::Kind and FuncType's flavor.  */
enum { ZK_KIND_SCRIPT = 0, ZK_KIND_BUILTIN = 1 };
enum { ZK_FLAVOR_FUNCTION, ZK_FLAVOR_EVENT, ZK_FLAVOR_HOOK };

/* Versions as numbers: ZK_V(8, 1, 0) = 80100.  */
#define ZK_V(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))

/* A built-in table: the layouts of one range of versions, GCC,
   libstdc++, x86-64, FIRST to LAST (ZK_V numbers).  A table may lack
   Frame (a version whose Frame layout is not known): the innermost
   script frame then has no line.  */
struct zk_table {
	unsigned first, last;
	struct sg_layout_table layout;
};

/* The table for VERSION (a ZK_V number), or NULL.  */
const struct zk_table *zk_table_for(unsigned version);
/* "3.0 to 9.x", for messages.  */
const char *zk_table_range(void);

/* What is known about one target, found before it is stopped.  */
struct zk_proc {
	/* The version string ("8.1.0") and where it came from; "" if none.  */
	char version[64];
	const char *version_source;
	unsigned version_number;	/* ZK_V(major, minor, patch), 0 if unknown */

	uint64_t call_stack;		/* address of the vector */
	uint64_t frame_stack;		/* g_frame_stack, 0 if absent */
	const char *call_stack_symbol;	/* the symbol it was found by */
	bool global_names;		/* 3.0 and 3.1: call_stack, BroObj, Frame */
	/* 8.1+: CallInfo has frame; each call's Frame gives the function
	   and the statement.  Else CallInfo has func.  */
	bool frames_walk;

	struct sg_layout *layouts[ZK_NTYPES];	/* ZK_FRAME may be NULL */
	/* The table the layouts came from, NULL from DWARF.  */
	const struct zk_table *table;

	/* From DWARF: the types to hand to the libstdc++ readers.  Without
	   them (a table), vectors and strings are read as libstdc++ lays
	   them out.  */
	bool have_dies;
	Dwarf_Die call_stack_die;	/* std::vector<CallInfo> */
	Dwarf_Die frame_stack_die;	/* std::vector<Frame*>, if frame_stack */
	Dwarf_Die name_die;		/* std::string, Func::name's type */

	/* Functions already read, by address: names do not change while a
	   Func lives, and Funcs live as long as the process.  */
	struct zk_func *funcs;
	size_t nfuncs, funcs_cap;
};

struct zk_func {
	uint64_t address;
	char *name;
	int kind;		/* ZK_KIND_* */
	int flavor;		/* ZK_FLAVOR_*, -1 if unreadable */
};

/* One script frame, innermost first.  */
struct zk_frame {
	const char *function;		/* borrowed from the proc's cache; NULL
					   for an entry without a Func */
	int flavor;			/* ZK_FLAVOR_*, -1 if unknown */
	bool builtin;
	const char *file;		/* owned; NULL when unknown */
	int line;			/* 0 when unknown */
	uint64_t func_address;
};

/* Find Zeek in TARGET: symbols, version, layouts.  &sg_not_found (with
   no message of its own) when the target is not Zeek; other errors say
   why a Zeek target cannot be read (a version no table knows).  */
struct sg_error *zk_find(struct sg_session *session, struct sg_target *target,
			 struct zk_proc **ret);
void zk_proc_destroy(struct zk_proc *p);

/* The script stack, innermost first, into *FRAMES (freed with
   zk_frames_free).  *COUNT is 0 when no script is running.  */
struct sg_error *zk_walk(struct sg_session *session, struct sg_target *target,
			 struct zk_proc *p, struct zk_frame **frames, size_t *count);
void zk_frames_free(struct zk_frame *frames, size_t count);

/* "function", "event", "hook" or "built-in".  */
const char *zk_frame_kind(const struct zk_frame *f);

#endif
