/* cpython: Python stacks, merged stacks and locals, for CPython 2.7 and
   3.6 to 3.15.  Internal interface between the plugin's files.

   The plugin reads the interpreter's own structures from the target.  Their
   layout depends on the version and the build, so every member the plugin
   reads is one field of struct py_offsets, named once below (PY_FIELDS)
   with the C type and member spellings it has had.  The offsets come from
   one of three sources, in this order:
   - the target's DWARF, through layout bindings (lib/layout.c);
   - _Py_DebugOffsets, the table CPython 3.13+ keeps at the start of
     _PyRuntime for debuggers;
   - tables generated from each version's headers (tables.c, written by
     gen-tables.sh), for stripped interpreters before 3.13.
   The resolved offsets are kept per build ID in the cache folder, so that
   a second run reads no DWARF at all.  */
#ifndef SPYGLASS_CPYTHON_H
#define SPYGLASS_CPYTHON_H

#include <spyglass/spyglass.h>
#include <stdio.h>

#define PY_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Versions as major << 8 | minor: PY_V(3, 11) = 0x30b.  */
#define PY_V(major, minor) ((major) << 8 | (minor))
#define PY_VMAX PY_V(3, 99)

/* X(ID, TYPE, MEMBER, FIRST, LAST): field PY_ID is member MEMBER of the C
   type TYPE in versions FIRST to LAST.  TYPE and MEMBER use the spellings
   of layout.h ('|' between alternatives tried in order, '.' into embedded
   structs); MEMBER NULL stands for sizeof(TYPE).  The same strings are
   used with offsetof() by gen-tables.sh, so they must be valid C for the
   versions they cover.  */
#define PY_FIELDS(X)								\
	/* the runtime: the list of interpreters, the GIL holder (3.7-3.11) */	\
	X(RT_INTERP_HEAD, "_PyRuntimeState", "interpreters.head", PY_V(3, 7), PY_VMAX) \
	X(RT_FINALIZING, "_PyRuntimeState", "_finalizing|finalizing", PY_V(3, 7), PY_VMAX) \
	X(RT_TSTATE_CURRENT, "_PyRuntimeState", "gilstate.tstate_current", PY_V(3, 7), PY_V(3, 11)) \
	X(RT_GC_COLLECTING, "_PyRuntimeState", "gc.collecting", PY_V(3, 7), PY_V(3, 8)) \
	/* interpreters */							\
	X(IS_NEXT, "PyInterpreterState", "next", PY_V(2, 7), PY_VMAX)		\
	X(IS_THREADS, "PyInterpreterState", "threads.head|tstate_head", PY_V(2, 7), PY_VMAX) \
	X(IS_ID, "PyInterpreterState", "id", PY_V(3, 7), PY_VMAX)		\
	X(IS_MODULES, "PyInterpreterState", "imports.modules|modules", PY_V(2, 7), PY_VMAX) \
	X(IS_SYSDICT, "PyInterpreterState", "sysdict", PY_V(2, 7), PY_VMAX)	\
	X(IS_BUILTINS, "PyInterpreterState", "builtins", PY_V(2, 7), PY_VMAX)	\
	X(IS_GC_COLLECTING, "PyInterpreterState", "gc.collecting", PY_V(3, 9), PY_VMAX) \
	X(IS_GIL, "PyInterpreterState", "ceval.gil", PY_V(3, 12), PY_VMAX)	\
	X(GIL_LOCKED, "struct _gil_runtime_state", "locked", PY_V(3, 12), PY_VMAX) \
	X(GIL_HOLDER, "struct _gil_runtime_state", "last_holder", PY_V(3, 12), PY_VMAX) \
	/* threads */								\
	X(TS_NEXT, "PyThreadState", "next", PY_V(2, 7), PY_VMAX)		\
	X(TS_INTERP, "PyThreadState", "interp", PY_V(2, 7), PY_VMAX)		\
	X(TS_FRAME, "PyThreadState", "current_frame|frame", PY_V(2, 7), PY_VMAX) \
	X(TS_CFRAME, "PyThreadState", "cframe", PY_V(3, 11), PY_V(3, 12))	\
	X(TS_THREAD_ID, "PyThreadState", "thread_id", PY_V(2, 7), PY_VMAX)	\
	X(TS_NATIVE_ID, "PyThreadState", "native_thread_id", PY_V(3, 11), PY_VMAX) \
	X(CF_CURRENT, "_PyCFrame", "current_frame", PY_V(3, 11), PY_V(3, 12))	\
	/* frame objects, the frames themselves up to 3.10 */			\
	X(F_BACK, "PyFrameObject", "f_back", PY_V(2, 7), PY_V(3, 10))		\
	X(F_CODE, "PyFrameObject", "f_code", PY_V(2, 7), PY_V(3, 10))		\
	X(F_LASTI, "PyFrameObject", "f_lasti", PY_V(2, 7), PY_V(3, 10))		\
	X(F_LOCALS, "PyFrameObject", "f_locals", PY_V(2, 7), PY_V(3, 10))	\
	X(F_LOCALSPLUS, "PyFrameObject", "f_localsplus", PY_V(2, 7), PY_V(3, 10)) \
	/* interpreter frames, 3.11+ */						\
	X(IF_PREVIOUS, "_PyInterpreterFrame", "previous", PY_V(3, 11), PY_VMAX)	\
	X(IF_CODE, "_PyInterpreterFrame", "f_executable|f_code", PY_V(3, 11), PY_VMAX) \
	X(IF_INSTR, "_PyInterpreterFrame", "instr_ptr|prev_instr", PY_V(3, 11), PY_VMAX) \
	X(IF_LOCALS, "_PyInterpreterFrame", "f_locals", PY_V(3, 11), PY_VMAX)	\
	X(IF_LOCALSPLUS, "_PyInterpreterFrame", "localsplus", PY_V(3, 11), PY_VMAX) \
	X(IF_OWNER, "_PyInterpreterFrame", "owner", PY_V(3, 11), PY_VMAX)	\
	X(IF_IS_ENTRY, "_PyInterpreterFrame", "is_entry", PY_V(3, 11), PY_V(3, 11)) \
	/* code objects */							\
	X(CO_ARGCOUNT, "PyCodeObject", "co_argcount", PY_V(2, 7), PY_VMAX)	\
	X(CO_KWONLYARGCOUNT, "PyCodeObject", "co_kwonlyargcount", PY_V(3, 6), PY_VMAX) \
	X(CO_NLOCALS, "PyCodeObject", "co_nlocals", PY_V(2, 7), PY_VMAX)	\
	X(CO_NLOCALSPLUS, "PyCodeObject", "co_nlocalsplus", PY_V(3, 11), PY_VMAX) \
	X(CO_FLAGS, "PyCodeObject", "co_flags", PY_V(2, 7), PY_VMAX)		\
	X(CO_FIRSTLINENO, "PyCodeObject", "co_firstlineno", PY_V(2, 7), PY_VMAX) \
	X(CO_FILENAME, "PyCodeObject", "co_filename", PY_V(2, 7), PY_VMAX)	\
	X(CO_NAME, "PyCodeObject", "co_name", PY_V(2, 7), PY_VMAX)		\
	X(CO_QUALNAME, "PyCodeObject", "co_qualname", PY_V(3, 11), PY_VMAX)	\
	X(CO_LINETABLE, "PyCodeObject", "co_linetable|co_lnotab", PY_V(2, 7), PY_VMAX) \
	X(CO_VARNAMES, "PyCodeObject", "co_varnames", PY_V(2, 7), PY_V(3, 10))	\
	X(CO_CELLVARS, "PyCodeObject", "co_cellvars", PY_V(2, 7), PY_V(3, 10))	\
	X(CO_FREEVARS, "PyCodeObject", "co_freevars", PY_V(2, 7), PY_V(3, 10))	\
	X(CO_LOCALSPLUSNAMES, "PyCodeObject", "co_localsplusnames", PY_V(3, 11), PY_VMAX) \
	X(CO_LOCALSPLUSKINDS, "PyCodeObject", "co_localspluskinds", PY_V(3, 11), PY_VMAX) \
	X(CO_FIRSTTRACEABLE, "PyCodeObject", "_co_firsttraceable", PY_V(3, 11), PY_VMAX) \
	X(CO_CODE_ADAPTIVE, "PyCodeObject", "co_code_adaptive", PY_V(3, 11), PY_VMAX) \
	/* objects */								\
	X(OB_TYPE, "PyObject", "ob_type", PY_V(2, 7), PY_VMAX)			\
	X(VAR_SIZE, "PyVarObject", "ob_size", PY_V(2, 7), PY_VMAX)		\
	X(TP_NAME, "PyTypeObject", "tp_name", PY_V(2, 7), PY_VMAX)		\
	X(TP_FLAGS, "PyTypeObject", "tp_flags", PY_V(2, 7), PY_VMAX)		\
	X(TP_BASICSIZE, "PyTypeObject", "tp_basicsize", PY_V(2, 7), PY_VMAX)	\
	X(TP_DICTOFFSET, "PyTypeObject", "tp_dictoffset", PY_V(2, 7), PY_VMAX)	\
	X(TP_REPR, "PyTypeObject", "tp_repr", PY_V(2, 7), PY_VMAX)		\
	X(TP_BASE, "PyTypeObject", "tp_base", PY_V(2, 7), PY_VMAX)		\
	X(TP_DICT, "PyTypeObject", "tp_dict", PY_V(2, 7), PY_VMAX)		\
	X(HT_QUALNAME, "PyHeapTypeObject", "ht_qualname", PY_V(3, 3), PY_VMAX)	\
	X(HT_CACHED_KEYS, "PyHeapTypeObject", "ht_cached_keys", PY_V(3, 3), PY_VMAX) \
	X(TUPLE_ITEM, "PyTupleObject", "ob_item", PY_V(2, 7), PY_VMAX)		\
	X(LIST_ITEM, "PyListObject", "ob_item", PY_V(2, 7), PY_VMAX)		\
	X(DICT_USED, "PyDictObject", "ma_used", PY_V(2, 7), PY_VMAX)		\
	X(DICT_KEYS, "PyDictObject", "ma_keys", PY_V(3, 6), PY_VMAX)		\
	X(DICT_VALUES, "PyDictObject", "ma_values", PY_V(3, 6), PY_VMAX)	\
	X(DICT_MASK, "PyDictObject", "ma_mask", PY_V(2, 7), PY_V(2, 7))	\
	X(DICT_TABLE, "PyDictObject", "ma_table", PY_V(2, 7), PY_V(2, 7))	\
	X(DK_SIZE, "PyDictKeysObject", "dk_size", PY_V(3, 6), PY_V(3, 10))	\
	X(DK_LOG2_SIZE, "PyDictKeysObject", "dk_log2_size", PY_V(3, 11), PY_VMAX) \
	X(DK_LOG2_INDEX_BYTES, "PyDictKeysObject", "dk_log2_index_bytes", PY_V(3, 11), PY_VMAX) \
	X(DK_KIND, "PyDictKeysObject", "dk_kind", PY_V(3, 11), PY_VMAX)	\
	X(DK_NENTRIES, "PyDictKeysObject", "dk_nentries", PY_V(3, 6), PY_VMAX)	\
	X(DK_INDICES, "PyDictKeysObject", "dk_indices", PY_V(3, 6), PY_VMAX)	\
	X(DKE_SIZE, "PyDictKeyEntry|PyDictEntry", NULL, PY_V(2, 7), PY_VMAX)	\
	X(DKE_KEY, "PyDictKeyEntry|PyDictEntry", "me_key", PY_V(2, 7), PY_VMAX)	\
	X(DKE_VALUE, "PyDictKeyEntry|PyDictEntry", "me_value", PY_V(2, 7), PY_VMAX) \
	X(DUE_SIZE, "PyDictUnicodeEntry", NULL, PY_V(3, 11), PY_VMAX)		\
	X(DUE_KEY, "PyDictUnicodeEntry", "me_key", PY_V(3, 11), PY_VMAX)	\
	X(DUE_VALUE, "PyDictUnicodeEntry", "me_value", PY_V(3, 11), PY_VMAX)	\
	X(DV_VALUES, "PyDictValues", "values", PY_V(3, 11), PY_VMAX)		\
	X(SET_USED, "PySetObject", "used", PY_V(2, 7), PY_VMAX)			\
	X(SET_MASK, "PySetObject", "mask", PY_V(2, 7), PY_VMAX)			\
	X(SET_TABLE, "PySetObject", "table", PY_V(2, 7), PY_VMAX)		\
	X(SE_SIZE, "setentry", NULL, PY_V(2, 7), PY_VMAX)			\
	X(SE_KEY, "setentry", "key", PY_V(2, 7), PY_VMAX)			\
	X(SE_HASH, "setentry", "hash", PY_V(2, 7), PY_VMAX)			\
	X(FLOAT_VAL, "PyFloatObject", "ob_fval", PY_V(2, 7), PY_VMAX)		\
	X(LONG_DIGIT, "PyLongObject", "long_value.ob_digit|ob_digit", PY_V(2, 7), PY_VMAX) \
	X(LONG_TAG, "PyLongObject", "long_value.lv_tag", PY_V(3, 12), PY_VMAX)	\
	X(INT_IVAL, "PyIntObject", "ob_ival", PY_V(2, 7), PY_V(2, 7))		\
	X(BYTES_SVAL, "PyBytesObject|PyStringObject", "ob_sval", PY_V(2, 7), PY_VMAX) \
	X(UNI_LENGTH, "PyASCIIObject|PyUnicodeObject", "length", PY_V(2, 7), PY_VMAX) \
	X(UNI_STATE, "PyASCIIObject", "state", PY_V(3, 3), PY_VMAX)		\
	X(UNI_ASCII_SIZE, "PyASCIIObject", NULL, PY_V(3, 3), PY_VMAX)		\
	X(UNI_COMPACT_SIZE, "PyCompactUnicodeObject", NULL, PY_V(3, 3), PY_VMAX) \
	X(UNI_DATA, "PyUnicodeObject", "data.any|str", PY_V(2, 7), PY_VMAX)	\
	X(UNI_CHAR_SIZE, "Py_UNICODE", NULL, PY_V(2, 7), PY_V(2, 7))		\
	X(COMPLEX_CVAL, "PyComplexObject", "cval", PY_V(2, 7), PY_VMAX)	\
	X(CELL_REF, "PyCellObject", "ob_ref", PY_V(2, 7), PY_VMAX)		\
	/* private to moduleobject.c before 3.10: DWARF only */		\
	X(MODULE_DICT, "PyModuleObject", "md_dict", PY_V(2, 7), PY_VMAX)	\
	X(FUNC_NAME, "PyFunctionObject", "func_name", PY_V(2, 7), PY_VMAX)	\
	X(FUNC_QUALNAME, "PyFunctionObject", "func_qualname", PY_V(3, 3), PY_VMAX)

enum py_field {
#define PY_FIELD_ENUM(id, type, member, first, last) PY_##id,
	PY_FIELDS(PY_FIELD_ENUM)
#undef PY_FIELD_ENUM
	PY_NFIELDS
};

struct py_field_spec {
	const char *type;
	const char *member;	/* NULL: sizeof(TYPE) */
	unsigned first, last;	/* PY_V() */
};

/* Indexed by enum py_field (spec.c).  */
extern const struct py_field_spec py_field_specs[PY_NFIELDS];

/* Resolved offsets: PY_ABSENT where the member does not exist in this
   version or build.  SIZE is the member's size in bytes (for MEMBER NULL,
   the type's size is in OFF).  */
#define PY_ABSENT UINT32_MAX
struct py_offsets {
	uint32_t off[PY_NFIELDS];
	uint32_t size[PY_NFIELDS];
	/* Where they came from: "DWARF", "_Py_DebugOffsets", "table 3.11",
	   and whether they were read from the cache.  */
	char source[96];
	bool cached;
};

/* A built-in table for one version (tables.c).  */
struct py_table {
	unsigned version;	/* PY_V() */
	const char *label;	/* "CPython 3.11.7 headers, x86-64" */
	const struct sg_layout_row *rows;
};
extern const struct py_table py_tables[];
extern const size_t py_ntables;

/* ---- the interpreter found in a target (find.c) ---------------------- */

struct py_proc {
	struct sg_target *target;
	uint32_t hexversion;	/* PY_VERSION_HEX: 0x030b07f0 */
	unsigned version;	/* PY_V(major, minor) */
	bool debug_build, free_threaded;
	/* Where the interpreter lives: the executable or a libpython.  Set
	   only while py_find runs: modules are reported again after the
	   stop.  */
	struct sg_module *module;
	char *module_path;
	bool shared;		/* in a libpython*.so */
	bool embedded;		/* libpython in a program that is not python */
	/* Anchors: _PyRuntime (3.7+), else interp_head's address and
	   _PyThreadState_Current's (2.7, 3.6).  0 when not found.  */
	uint64_t runtime, interp_head, tstate_current;
	/* How each fact was found, for py-version.  */
	char how_runtime[96], how_version[96];
	struct py_offsets offs;
	/* Frame owner numbers (3.11+: 3.14 renumbered them).  */
	int owner_cstack, owner_interpreter;
	/* Code objects already read (frames.c), valid while the target is
	   stopped.  */
	struct py_code **codes;
	size_t codes_cap, ncodes;
	uint64_t code_type;	/* the code object type, once seen (3.13+) */
	/* Object reads left to the command running (read.c counts those of
	   repr.c and dict.c): a corrupt object graph must not keep the target
	   stopped for long, however many values a command prints.  Each
	   command sets it with py_budget_reset().  */
	uint64_t reads_left;
	/* The names threading gives the threads (cpython.c), read with the
	   interpreter: before the stop when the target was prepared.  */
	struct py_name *names;
	size_t nnames, names_cap;
};

struct py_name {
	uint64_t interp, ident;
	char *name;
};

/* Find the interpreter in TARGET: its module, version, anchors and
   offsets.  Returns &sg_not_found with a message-free error when TARGET
   runs no Python; other errors say what is wrong.  */
struct sg_error *py_find(struct sg_target *target, struct py_proc **ret);
void py_proc_destroy(struct py_proc *p);

/* Fill P->offs for P->version (offsets.c).  */
struct sg_error *py_offsets_resolve(struct py_proc *p);
/* Forget the code objects read so far.  */
void py_code_cache_clear(struct py_proc *p);

/* ---- reading (read.c) -------------------------------------------------- */

/* Object reads one command may make: about a second's worth.  */
#define PY_READ_BUDGET (4u << 20)
static inline void py_budget_reset(struct py_proc *p)
{
	p->reads_left = PY_READ_BUDGET;
}

/* Read field F of the struct at ADDR as an unsigned integer of its size
   (1, 2, 4 or 8 bytes).  Errors when the field is absent.  */
struct sg_error *py_read_field(struct py_proc *p, uint64_t addr, enum py_field f, uint64_t *ret);
/* Read a pointer-sized field (or any 8-byte word at ADDR + off[F]).  */
struct sg_error *py_read_ptr(struct py_proc *p, uint64_t addr, enum py_field f, uint64_t *ret);
static inline bool py_has(const struct py_proc *p, enum py_field f)
{
	return p->offs.off[f] != PY_ABSENT;
}

/* Whether P has the N fields F, else an error naming the first absent.  */
struct sg_error *py_need_fields(const struct py_proc *p, const enum py_field *f, size_t n);
#define PY_NEED(p, ...)                                                               \
	py_need_fields((p), (const enum py_field[]){ __VA_ARGS__ },                   \
		       sizeof((const enum py_field[]){ __VA_ARGS__ }) / sizeof(enum py_field))

/* Whether ERR is no error, destroying it: for reads whose failure only
   means "no".  */
static inline bool py_ok(struct sg_error *err)
{
	sg_error_destroy(err);
	return !err;
}

/* Object walks (repr.c, dict.c, threadname.c through them) read through
   these: each read takes one from P->reads_left, and once none is left
   every read fails with PY_TOO_MANY_READS, so that a corrupt object graph
   ends the command's walks, however many values it prints.  The readers
   above and below do not count: their callers bound them.  */
#define PY_TOO_MANY_READS "too many reads: the objects look corrupt"
/* Take N reads from the budget, or fail (leaving none) when fewer are
   left.  */
struct sg_error *py_count_reads(struct py_proc *p, uint64_t n);
static inline bool py_budget_spent(const struct py_proc *p)
{
	return !p->reads_left;
}
struct sg_error *py_obj_read(struct py_proc *p, uint64_t addr, void *buf, size_t n);
struct sg_error *py_obj_u64(struct py_proc *p, uint64_t addr, uint64_t *ret);
struct sg_error *py_obj_field(struct py_proc *p, uint64_t obj, enum py_field f, uint64_t *ret);
struct sg_error *py_obj_ptr(struct py_proc *p, uint64_t obj, enum py_field f, uint64_t *ret);

/* The string readers below read at most MAX characters or bytes, and
   never more than PY_READ_MAX: MAX 0 means PY_READ_MAX, not "no limit".
   A length past 2^40 is an error.  */
#define PY_READ_MAX (16u << 20)
/* The code points of the str OBJ (3.x; unicode on 2.7), at most MAX of
   them, in an array of *N_RET (*MORE_RET set when the string is longer).
   The type of OBJ is not checked.  */
struct sg_error *py_read_code_points(struct py_proc *p, uint64_t obj, size_t max, uint32_t **ret,
				     size_t *n_ret, bool *more_ret);
/* Code point C as UTF-8 into OUT (4 bytes at most; U+FFFD past
   U+10FFFF), returning its length.  */
size_t py_put_utf8(char *out, uint32_t c);
/* A str object (unicode on 3, str/unicode on 2.7) as NUL-terminated UTF-8,
   at most MAX characters (*TRUNCATED_RET set when cut).  A NUL in the
   text cuts it short for C; py_read_code_points keeps it.  */
struct sg_error *py_read_str(struct py_proc *p, uint64_t obj, size_t max, char **ret,
			     bool *truncated_ret);
/* A bytes object's bytes (str on 2.7), at most MAX, NUL-terminated.  */
struct sg_error *py_read_bytes(struct py_proc *p, uint64_t obj, size_t max, char **ret,
			       size_t *len_ret);
/* The name of OBJ's type (tp_name), at most 128 bytes.  */
struct sg_error *py_type_name(struct py_proc *p, uint64_t obj, char **ret);

/* ---- frames (frames.c, linetable.c) --------------------------------- */

/* One Python frame as the walker found it.  */
struct py_frame {
	uint64_t address;	/* the frame: PyFrameObject* or _PyInterpreterFrame* */
	uint64_t code;		/* its code object */
	const char *function;	/* co_qualname (3.11+) or co_name */
	const char *file;
	int line;		/* 0 when unknown */
	/* 3.11+: the frame was entered from C (its eval loop is a native
	   _PyEval_EvalFrameDefault of its own).  Always true before 3.11. */
	bool entry;
};

/* One Python thread.  */
struct py_thread {
	uint64_t tstate;
	uint64_t interp;	/* its interpreter */
	uint64_t thread_id;	/* pthread_t */
	pid_t tid;		/* the OS thread, 0 when unknown */
	bool holds_gil;
	const char *name;	/* from threading, or NULL; borrowed from py_proc */
};

/* Call FN with each Python thread of P's interpreters.  */
struct sg_error *py_threads(struct py_proc *p,
			    int (*fn)(const struct py_thread *thread, void *arg), void *arg);
/* Call FN with each frame of the thread whose tstate is TSTATE, innermost
   first; at most 4096 of them.  A broken chain ends with an error after
   the frames read so far.  */
struct sg_error *py_frames(struct py_proc *p, uint64_t tstate,
			   int (*fn)(const struct py_frame *frame, void *arg), void *arg);
/* Whether a garbage collection is running.  */
bool py_gc_running(struct py_proc *p);

/* Line tables, exposed for unit tests: TABLE of LEN bytes.  */
int py_lnotab_line(const unsigned char *table, size_t len, int firstlineno, int64_t lasti,
		   bool signed_deltas);
int py_linetable310_line(const unsigned char *table, size_t len, int firstlineno, int64_t lasti);
int py_locations_line(const unsigned char *table, size_t len, int firstlineno, int64_t index);

/* ---- the plugin (cpython.c) ----------------------------------------- */

/* The interpreter of SESSION's target, found on first use; STATE is the
   plugin's state, as commands receive it.  */
struct sg_error *py_session_proc(struct sg_session *session, void *state, struct py_proc **ret);
/* The thread state of the OS thread TID, or 0 (*RET) when it runs no
   Python.  */
struct sg_error *py_thread_state(struct py_proc *p, pid_t tid, uint64_t *ret);

/* py-locals (locals.c).  */
struct sg_error *py_locals_command(struct sg_session *s, const char *args, struct sg_out *out,
				   void *state);

/* ---- values (repr.c) and objects (dict.c) ----------------------------- */

/* A bounded repr of OBJ, as Python prints it: None, bool, int (big ones
   too), float, str, bytes, list, tuple, dict, set; "<T object at 0x...>"
   for the rest.  At most LIMIT elements per container and characters per
   string (0: no limit), and DEPTH levels of nesting.  Writes to OUT.
   Its reads count against P->reads_left: when they run out, what was
   printed ends with "...".  */
struct sg_error *py_repr(struct py_proc *p, uint64_t obj, size_t limit, FILE *out);

/* What dict.c knows of objects, for repr.c and the lookups below: their
   types, the items of dicts and sets, the text of strs, the size of ints.
   Every read counts against P->reads_left.  */

/* Container sizes and hash table masks beyond this are garbage.  */
#define PY_MAX_ITEMS (UINT64_C(1) << 40)

/* The built-in types, recognized by their exact tp_name when the type is
   static (not a heap type): a class of the script that happens to be
   called "list" is not taken for the built-in one.  */
enum py_kind {
	PY_K_OTHER,
	PY_K_NONE,
	PY_K_BOOL,
	PY_K_LONG,		/* PyLongObject: 3.x int, 2.7 long */
	PY_K_INT2,		/* 2.7 int (PyIntObject) */
	PY_K_FLOAT,
	PY_K_COMPLEX,
	PY_K_STR,		/* 3.x str, 2.7 unicode */
	PY_K_BYTES,		/* 3.x bytes, 2.7 str */
	PY_K_LIST,
	PY_K_TUPLE,
	PY_K_DICT,
	PY_K_SET,
	PY_K_FROZENSET,
	PY_K_TYPE,
	PY_K_CODE,
	PY_K_ELLIPSIS,
	PY_K_NOTIMPLEMENTED,
	PY_K_MODULE,
	PY_K_FUNCTION,
	PY_K_DUMMY,		/* the dummy key of sets (3.x) */
};

struct py_type {
	uint64_t type;
	enum py_kind kind;
	bool heap;
	/* KIND comes from a built-in base whose repr the type inherits.  */
	bool inherited;
	char *name;		/* tp_name */
	/* As Python's reprs name it: "module.name" for a class defined in
	   Python (its __module__), tp_name for a C type.  */
	char *qualified;
};

/* The state of one walk of objects: the types seen, read once each.  */
#define PY_MAX_TYPES 64
struct py_objs {
	struct py_proc *p;
	bool py2;
	/* Set by the walk's user (repr.c: its output is full): the walks of
	   dicts and sets end at the next item.  */
	bool stop;
	/* Dict walks (3.6+) go from the newest item to the oldest.  */
	bool newest_first;
	/* SPARE holds the last type when TYPES is full.  */
	struct py_type types[PY_MAX_TYPES];
	size_t ntypes;
	struct py_type spare;
	/* Nesting of py_type_info(), which reads the __module__ of
	   classes.  */
	unsigned type_depth;
};
void py_objs_init(struct py_objs *o, struct py_proc *p);
void py_objs_fini(struct py_objs *o);
/* What is known of the type TYPE, or of the type of OBJ, until
   py_objs_fini(); once PY_MAX_TYPES are known, the next call may reuse
   the entry (copy what must last).  */
struct sg_error *py_type_info(struct py_objs *o, uint64_t type, const struct py_type **ret);
struct sg_error *py_type_of(struct py_objs *o, uint64_t obj, const struct py_type **ret);
/* Call FN with each item of the dict DICT in its iteration order, or
   each key (VALUE 0) of the set SET in its table's order, until FN
   returns false or O->stop is set.  Neither checks the type.  */
typedef bool py_item_fn(uint64_t key, uint64_t value, void *arg);
struct sg_error *py_dict_walk(struct py_objs *o, uint64_t dict, py_item_fn *fn, void *arg);
struct sg_error *py_set_walk(struct py_objs *o, uint64_t set, py_item_fn *fn, void *arg);
/* The value of the str key KEY in the dict DICT, 0 (*RET) when it has
   none.  */
struct sg_error *py_dict_lookup(struct py_objs *o, uint64_t dict, const char *key, uint64_t *ret);
/* The text of a str (3.x; str or unicode on 2.7) as UTF-8, at most MAX
   characters, or NULL (for any other object too).  */
char *py_obj_text(struct py_objs *o, uint64_t obj, size_t max);
/* The sign (-1, 0, 1) and the number of digits of the PyLongObject OBJ,
   and the size of its digits: 30-bit ones in 4 bytes, or 15-bit ones in
   2 where a build asked for them.  */
struct sg_error *py_long_size(struct py_proc *p, uint64_t obj, int *sign_ret, uint64_t *n_ret);
unsigned py_long_digit_size(const struct py_proc *p);
/* Where md_dict is in a module object.  */
uint64_t py_module_dict_off(const struct py_proc *p);

/* Lookups for the other files, each one walk of its own.  */
/* Call FN with each key and value of the dict at DICT, in insertion
   order, until FN stops (or the read budget does).  */
struct sg_error *py_dict_items(struct py_proc *p, uint64_t dict,
			       int (*fn)(uint64_t key, uint64_t value, void *arg), void *arg);
/* The value of the str key KEY in the dict at DICT, 0 (*RET) when it has
   none.  An error when DICT is not a dict or cannot be read.  */
struct sg_error *py_dict_get_str(struct py_proc *p, uint64_t dict, const char *key, uint64_t *ret);
/* The text of the str OBJ (str or unicode on 2.7) as UTF-8, at most MAX
   characters (0: PY_READ_MAX); an error for any other type.  */
struct sg_error *py_str_text(struct py_proc *p, uint64_t obj, size_t max, char **ret);
/* The value of the int OBJ (2.7: int or long; bool too), modulo 2^64 when
   negative; an error when it needs more than 64 bits.  */
struct sg_error *py_int_value(struct py_proc *p, uint64_t obj, uint64_t *ret);
/* The __dict__ of the module MODULE.  */
struct sg_error *py_module_dict(struct py_proc *p, uint64_t module, uint64_t *ret);
/* The attribute NAME in the __dict__ of the instance OBJ (where 3.11+
   keeps it: a dict, or values shared with its class's keys), 0 (*RET)
   when it has none.  Class attributes and descriptors are not looked at.  */
struct sg_error *py_object_attr(struct py_proc *p, uint64_t obj, const char *name, uint64_t *ret);

/* ---- thread names (threadname.c) ----------------------------------- */

/* Call FN with the ident (threading.get_ident(), the pthread_t) and the name
   of each thread in threading._active, read from the interpreter INTERP's
   sys.modules.  Bounded; an error when threading is not imported or cannot
   be read.  */
struct sg_error *py_thread_names(struct py_proc *p, uint64_t interp,
				 int (*fn)(uint64_t ident, const char *name, void *arg), void *arg);

#endif
