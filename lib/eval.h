/* The value engine (eval-*.c): DWARF type helpers and gdb's spelling of
   types, values as print shows them, expressions, a frame's variables,
   the value history and convenience variables.  Internal to spyglass:
   the shell's data commands (print, ptype, x, display, printf, info
   locals) call it.  The functions marked SG_PUBLIC are exported for the
   shell only, and are not part of the plugin API (include/spyglass/),
   which may change them at any time.  */
#ifndef SG_LIB_EVAL_H
#define SG_LIB_EVAL_H

#include <spyglass/spyglass.h>

#include <elfutils/libdw.h>

#define MAX_TYPE_DEPTH 32

/* DIE's DW_AT_type, into *RET.  */
SG_PUBLIC bool sg_die_type(Dwarf_Die *die, Dwarf_Die *ret);
/* Skip typedefs and qualifiers.  */
void strip(Dwarf_Die *in, Dwarf_Die *out);
/* TYPE's size in bytes, 0 when unknown.  */
uint64_t type_size(Dwarf_Die *type);
/* Whether DIE comes from a C++ compilation unit.  */
SG_PUBLIC bool sg_die_is_cplus(Dwarf_Die *die);
/* gdb's symbol name of the C++ function FN, with its parameters
   ("ns::f(int) const"), new string or NULL.  */
char *sg_cplus_function_name(Dwarf_Die *fn);
/* DIE's name with its C++ scopes ("ns::Derived"), new string; the plain
   name in C; NULL for an unnamed DIE.  */
char *qualified_name(Dwarf_Die *die);
/* TYPE declared around INNER ("int (*" INNER ")[3]"), new string; TYPE
   NULL is void.  */
char *type_string(Dwarf_Die *type, const char *inner);
/* ptype's text for TYPE (struct bodies expanded), new string.  */
char *ptype_string(struct sg_target *t, Dwarf_Die *type);
/* type_string and ptype_string as gdb prints them when its current
   language is C++ (CPLUS: the selected frame's unit is C++) rather than
   C: no "struct" before a class's name, "(void)" for a method without
   parameters, an enum's underlying type.  The functions above are
   these with CPLUS false.  */
SG_PUBLIC char *sg_type_string_lang(Dwarf_Die *type, const char *inner, bool cplus);
SG_PUBLIC char *sg_ptype_string_lang(struct sg_target *t, Dwarf_Die *type, bool cplus);
/* ptype/o's text for TYPE: each data member's offset and size, holes,
   total sizes; no methods or typedefs.  *HEADER_RET tells whether gdb's
   column header (PTYPE_OFFSETS_HEADER) goes before "type = ": when TYPE
   is a struct or union.  New string.  */
#define PTYPE_OFFSETS_HEADER "/" "* offset      |    size *" "/  "
SG_PUBLIC char *sg_ptype_offsets_string(struct sg_target *t, Dwarf_Die *type, bool cplus, bool *header_ret);

/* Between these, the functions above name types as the session's type
   printers do ("std::vector<int>"), as gdb's whatis and ptype do; print's
   value types stay raw, as in gdb.  RAW (ptype/r): no printers, and class
   bodies without local names ("[with T = int]", "T data").  */
SG_PUBLIC void sg_type_printers_begin(struct sg_session *s, struct sg_target *t, bool raw);
SG_PUBLIC void sg_type_printers_end(void);

/* Where the thread-local variable at OFFSET in MOD's TLS block lives in
   THREAD (tls.c; also in internal.h, which this file does not include).  */
struct sg_error *sg_tls_address(struct sg_target *target, const struct sg_thread *thread,
				struct sg_module *mod, uint64_t offset, uint64_t *ret);

/* ---- values (eval-print.c, eval-expr.c, eval-locals.c) ---- */

/* A value as the data commands see it: in target memory, or computed. */
struct val {
	Dwarf_Die type;		/* as declared */
	bool lvalue;
	uint64_t address;	/* lvalue */
	uint64_t bits;		/* rvalue (pointers from &) */
	uint64_t bits_hi;	/* rvalue: bytes 8 to 15 (a long double) */
	/* DW_OP_implicit_pointer: a pointer to an object the optimizer
	   removed, gdb's <synthetic pointer>.  */
	bool synthetic_ptr;
	/* The value the caller passed (DW_OP_entry_value): gdb's NAME@entry. */
	bool entry_value;
	/* An rvalue of more than 16 bytes, or partly known: its NBYTES
	   bytes (NULL: BITS and BITS_HI hold it), from val_bytes.  */
	const unsigned char *bytes;
	/* With BYTES: each byte's VAL_* state; NULL when all are known.  */
	const unsigned char *known;
	uint64_t nbytes;
	bool constant;		/* from a DW_AT_const_value */
	/* A constant over MAX_RVALUE_SIZE, or a value that large wholly
	   optimized out (not CONSTANT): its type, NBYTES its size, no bytes
	   (gdb's whatis and sizeof work, reading it is an error).  */
	bool too_large;
	/* A variable located in one register: its DWARF number + 1 for a
	   general register, -1 for another.  */
	int in_register;
};

/* A byte of an rvalue's BYTES, as gdb tells them apart.  */
enum {
	VAL_LOST,		/* optimized out */
	VAL_KNOWN,
	VAL_UNCOVERED,		/* past the location's pieces: gdb's
				   <synthetic pointer> */
};

/* gdb's default max-value-size: the largest value not in memory.  */
#define MAX_RVALUE_SIZE 65536

/* SIZE zeroed bytes for a value's BYTES or KNOWN, kept until
   val_bytes_release; gdb's error past MAX_RVALUE_SIZE.  */
struct sg_error *val_bytes(uint64_t size, unsigned char **ret);
/* Free what val_bytes gave: no value may use it any more (a new
   command's evaluation starts).  */
void val_bytes_release(void);
/* gdb's error for reading a value over MAX_RVALUE_SIZE bytes, NULL for
   any other.  */
struct sg_error *val_too_large(const struct val *v);
/* The part of V of type TYPE at byte OFF: a member, an element.  */
struct val sub_value(const struct val *v, const Dwarf_Die *type, uint64_t off);
/* The state of V's SIZE bytes from OFF: VAL_KNOWN when all are,
   VAL_LOST when any is lost, else VAL_UNCOVERED when all are that.  */
int val_state(const struct val *v, uint64_t off, uint64_t size);

enum reg_kind {
	REG_NONE,
	REG_CODE,		/* $pc: void (*)() */
	REG_EFLAGS,		/* gdb's i386_eflags flags type */
};

struct xval {
	struct val v;
	int ptr_depth;		/* synthetic "pointer to" levels from & */
	bool void_base;		/* a cast to void *: V.TYPE is unused */
	/* A register's value: its gdb type where DWARF has none.  */
	enum reg_kind reg;
	const char *type_name;	/* shown instead of V.TYPE's ("int64_t") */
	/* *p@N: V is the first of N elements.  */
	uint64_t repeat;
	/* A function: V.TYPE is its DW_TAG_subprogram, V.ADDRESS its entry. */
	bool function;
	/* A bit field's value, read from the byte at V.ADDRESS: & gives that
	   address, as gdb does.  */
	bool bit_field;
	/* A variable not in memory, by itself: its name, for gdb's error on
	   taking its address.  */
	char rvalue_name[64];
	/* gdb's void: an unset convenience variable, $ of an empty history. */
	bool is_void;
};

/* Read SIZE bytes of V (from memory, or its bits).  */
struct sg_error *read_value(struct sg_target *t, const struct val *v, void *buf, size_t size);
/* "<error: Cannot access memory at address 0x...>", new string.  */
SG_PUBLIC char *sg_fault_text(struct sg_error *err);
/* X in gdb's notation (TOP: by itself, so pointers show their type), in
   print/FMT (0 for none; RAW: no typed readers), types spelled in C++
   when CPLUS (the language of the frame X comes from), new string *RET.  */
SG_PUBLIC struct sg_error *sg_format_xval(struct sg_session *s, struct sg_target *t, struct xval *x, char fmt,
			      bool raw, bool cplus, bool top, char **ret);
/* X as the JSON member KEY of OUT.  */
SG_PUBLIC void sg_json_xval(struct sg_session *s, struct sg_target *t, struct xval *x, char fmt, bool raw,
		bool cplus, struct sg_out *out, const char *key);
/* X's declared type as text, in C or C++ spelling.  */
SG_PUBLIC char *sg_xval_type(struct xval *x, bool cplus);
/* The session's selected frame; NULL without a thread or a stack.  */
const struct sg_frame *selected_frame(struct sg_session *s);
/* Whether the selected frame's language is C++.  */
SG_PUBLIC bool sg_frame_cplus(struct sg_session *s);
/* Where member or base class M starts in an object at ADDRESS (0:
   unknown, which a virtual base needs).  */
bool member_offset(struct sg_target *t, Dwarf_Die *m, uint64_t address, uint64_t *ret);
/* Evaluate the expression TEXT.  */
SG_PUBLIC struct sg_error *sg_eval_xval(struct sg_session *s, struct sg_target *t, const char *text, struct xval *x);
/* The selected frame's variable NAME, innermost block first.  */
struct sg_error *frame_variable(struct sg_session *s, const char *name,
				struct val *ret);
/* A DW_AT_const_value as a value of V's type.  */
struct sg_error *const_value(Dwarf_Die *var, Dwarf_Attribute *a, struct val *ret);
/* The data kept with the session's target under KEY, SIZE zeroed bytes
   made when CREATE and there is none; NULL without a target or memory. */
SG_PUBLIC void *sg_eval_target_data(struct sg_session *s, const void *key, size_t size,
			void (*destroy)(void *), bool create);
/* A value kept past the command that made it: X with its own copy of
   the bytes it does not have in memory (what val_bytes gave lives only
   until the next evaluation).  */
struct xval_saved {
	struct xval x;
	unsigned char *bytes, *known;	/* owned: X.V.BYTES and X.V.KNOWN */
};
struct sg_error *xval_save(const struct xval *x, struct xval_saved *ret);
void xval_saved_free(struct xval_saved *s);
/* value.c: a new sg_value of X, its bytes copied; or VALUE as the
   engine's value into *RET, which borrows VALUE's bytes (valid while
   VALUE lives).  */
struct sg_error *value_from_xval(struct sg_target *t, const struct xval *x, struct sg_value **ret);
void value_to_xval(const struct sg_value *value, struct xval *ret);

/* The value history and convenience variables (eval-history.c), kept with
   the target.  sg_history_add numbers X as the next $N in *NUM.  */
SG_PUBLIC unsigned sg_history_count(struct sg_session *s);
SG_PUBLIC struct sg_error *sg_history_add(struct sg_session *s, const struct xval *x, unsigned *num);
/* $N, or with RELATIVE $$N (the Nth before the last; $ and $0 are
   $$0); gdb's errors past either end.  */
SG_PUBLIC struct sg_error *sg_history_value(struct sg_session *s, uint64_t n, bool relative, struct xval *ret);
/* A void value into *RET.  */
SG_PUBLIC struct sg_error *sg_history_void(struct xval *ret);
/* Convenience variable NAME (without "$"): false if it was never set. */
SG_PUBLIC bool sg_convenience_get(struct sg_session *s, const char *name, struct xval *ret);
SG_PUBLIC struct sg_error *sg_convenience_set(struct sg_session *s, const char *name, const struct xval *x);
/* The Ith of the set variables, newest first, its value in *RET.  */
SG_PUBLIC size_t sg_convenience_count(struct sg_session *s);
SG_PUBLIC const char *sg_convenience_name(struct sg_session *s, size_t i, struct xval *ret);

/* A value as printf takes it: an integer (sign-extended from its own
   size), a pointer (arrays and functions decay), or a floating one.  */
struct scalar {
	uint64_t i;
	long double f;
	bool is_float, is_pointer;
	uint64_t size;		/* of an integer, 0 if unknown */
};
SG_PUBLIC struct sg_error *sg_eval_scalar(struct sg_session *s, struct sg_target *t, const char *text,
				   struct scalar *ret);
/* After x: gdb's $_ (the last unit's ADDRESS, a pointer to an integer
   of SIZE bytes) and $__ (its contents, BITS).  */
SG_PUBLIC struct sg_error *sg_set_examined(struct sg_session *s, struct sg_target *t, uint64_t address,
				    int size, uint64_t bits);
/* The address EXPR names, as gdb's x takes it (a pointer's value, where
   an array or function is, an integer), evaluated in the selected frame.  */
SG_PUBLIC struct sg_error *sg_eval_address(struct sg_session *s, const char *expr, uint64_t *ret);

/* " <symbol+offset>" for ADDR as gdb writes it after an address (the DWARF
   function's name for code, as gdb prefers it to an alias), or "" when
   no symbol covers it (eval-print.c).  */
SG_PUBLIC void sg_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size);

/* X as a frame line shows it (SUMMARY: "print frame-arguments
   scalars"), new string *RET.  */
SG_PUBLIC struct sg_error *sg_format_frame_arg(struct sg_session *s, struct sg_target *t, struct xval *x,
				     bool cplus, bool summary, char **ret);
/* The frame's arguments as gdb shows them in a frame line ("a=1, p=..."),
   or NULL without DWARF.  */
SG_PUBLIC char *sg_frame_args_text(struct sg_session *s, const struct sg_stack *st, size_t level);
/* The frame's locals, indented as in "bt full".  */
SG_PUBLIC void sg_frame_locals_print(struct sg_session *s, const struct sg_stack *st, size_t level,
			   struct sg_out *out);
/* info locals (ARGS false) and info args (ARGS true): the selected
   frame's variables to OUT, as gdb prints them.  */
SG_PUBLIC struct sg_error *sg_frame_vars(struct sg_session *s, struct sg_out *out, bool args);

/* A growable string for formatting (eval-text.c).  */
struct sg_buf_lite {
	char *s;
	size_t len, cap;
};
SG_PUBLIC void sg_lite_putc(struct sg_buf_lite *b, char c);
SG_PUBLIC void sg_lite_puts(struct sg_buf_lite *b, const char *s);
/* A byte inside quotes as gdb writes it: \n, \\, \ooo; QUOTE is escaped.  */
SG_PUBLIC void sg_escape_byte(struct sg_buf_lite *b, unsigned char c, char quote);
/* A char value as gdb prints it: 97 'a'.  */
SG_PUBLIC void sg_char_repr(struct sg_buf_lite *b, unsigned char c);

/* The linkage name gdb gives a C++ function SUB: DW_AT_linkage_name, or
   for one without (main, extern "C") its name and parameter types,
   "main()".  New string, NULL if unnamed (eval-names.c).  */
SG_PUBLIC char *sg_cplus_linkage_name(Dwarf_Die *sub);
/* " <name+off>" as gdb's x labels ADDR, "" without a symbol.  */
SG_PUBLIC void sg_x_label_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size);
/* gdb's name for the source language of F's unit ("c", "c++"); NULL
   without DWARF.  */
SG_PUBLIC const char *sg_frame_language(const struct sg_frame *f);

/* info address NAME for a variable of the selected frame, innermost
   block first (those hide the globals, as in gdb): where it lives, in
   gdb's words, to OUT; false when the frame has no such variable
   (eval-address.c).  *ERR: gdb's error part-way through a location
   (what was said before it is on OUT), or NULL.  */
SG_PUBLIC bool sg_frame_local_address(struct sg_session *s, const char *name, struct sg_out *out,
				      struct sg_error **err);
/* The name gdb's symbol for SYM has when DWARF describes it under its
   own name (in C++ with its parameters, "main()"), new string; NULL for
   a symbol only the symbol table has, such as an alias (pause for
   __libc_pause): gdb's "minimal symbol".  */
SG_PUBLIC char *sg_symbol_debug_name(struct sg_session *s, const struct sg_symbol *sym);
/* Whether the type DIE TYPE is only declared, in all of T's units: gdb
   makes no symbol of such a class.  */
SG_PUBLIC bool sg_type_declared_only(struct sg_target *t, Dwarf_Die *type);
/* whatis's text for X (IS_TYPE: X names a type, whose typedef whatis
   shows one level down), new string.  */
SG_PUBLIC char *sg_whatis_text(struct xval *x, bool is_type, bool cplus);

/* EFLAGS as gdb prints its flags type: "[ ZF PF ]".  */
SG_PUBLIC void sg_eflags_text(uint64_t v, char *buf, size_t size);

#endif
