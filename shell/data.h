/* What the data commands (cmd-data.c) share with the type printer
   (types.c): DWARF type helpers and gdb's spelling of types.  */
#ifndef SG_SHELL_DATA_H
#define SG_SHELL_DATA_H

#include "shell.h"

#include <elfutils/libdw.h>

#define MAX_TYPE_DEPTH 32

/* DIE's DW_AT_type, into *RET.  */
bool die_type(Dwarf_Die *die, Dwarf_Die *ret);
/* Skip typedefs and qualifiers.  */
void strip(Dwarf_Die *in, Dwarf_Die *out);
/* TYPE's size in bytes, 0 when unknown.  */
uint64_t type_size(Dwarf_Die *type);
/* Whether DIE comes from a C++ compilation unit.  */
bool is_cplus(Dwarf_Die *die);
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
char *type_string_lang(Dwarf_Die *type, const char *inner, bool cplus);
char *ptype_string_lang(struct sg_target *t, Dwarf_Die *type, bool cplus);
/* ptype/o's text for TYPE: each data member's offset and size, holes,
   total sizes; no methods or typedefs.  *HEADER_RET tells whether gdb's
   column header (PTYPE_OFFSETS_HEADER) goes before "type = ": when TYPE
   is a struct or union.  New string.  */
#define PTYPE_OFFSETS_HEADER "/" "* offset      |    size *" "/  "
char *ptype_offsets_string(struct sg_target *t, Dwarf_Die *type, bool cplus, bool *header_ret);

/* Between these, the functions above name types as the session's type
   printers do ("std::vector<int>"), as gdb's whatis and ptype do; print's
   value types stay raw, as in gdb.  RAW (ptype/r): no printers, and class
   bodies without local names ("[with T = int]", "T data").  */
void type_printers_begin(struct sg_session *s, struct sg_target *t, bool raw);
void type_printers_end(void);

/* ---- values (valprint.c, expr.c, locals.c) ---- */

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
char *fault_text(struct sg_error *err);
/* X in gdb's notation (TOP: by itself, so pointers show their type), in
   print/FMT (0 for none; RAW: no typed readers), types spelled in C++
   when CPLUS (the language of the frame X comes from), new string *RET.  */
struct sg_error *format_value(struct shell *sh, struct sg_target *t, struct xval *x, char fmt,
			      bool raw, bool cplus, bool top, char **ret);
/* X as the JSON member KEY of OUT.  */
void json_value(struct shell *sh, struct sg_target *t, struct xval *x, char fmt, bool raw,
		bool cplus, struct sg_out *out, const char *key);
/* X's declared type as text, in C or C++ spelling.  */
char *xval_type(struct xval *x, bool cplus);
/* Whether the selected frame's language is C++.  */
bool frame_cplus(struct sg_session *s);
/* Where member or base class M starts in an object at ADDRESS (0:
   unknown, which a virtual base needs).  */
bool member_offset(struct sg_target *t, Dwarf_Die *m, uint64_t address, uint64_t *ret);
/* Evaluate the expression TEXT.  */
struct sg_error *eval(struct shell *sh, struct sg_target *t, const char *text, struct xval *x);
/* The selected frame's variable NAME, innermost block first.  */
struct sg_error *frame_variable(struct sg_session *s, struct shell *sh, const char *name,
				struct val *ret);
/* A DW_AT_const_value as a value of V's type.  */
struct sg_error *const_value(Dwarf_Die *var, Dwarf_Attribute *a, struct val *ret);
/* The data kept with the session's target under KEY, SIZE zeroed bytes
   made when CREATE and there is none; NULL without a target or memory. */
void *shell_target_data(struct sg_session *s, const void *key, size_t size,
			void (*destroy)(void *), bool create);
/* The value history and convenience variables (history.c), kept with
   the target.  history_add numbers X as the next $N in *NUM.  */
unsigned history_count(struct shell *sh);
struct sg_error *history_add(struct shell *sh, const struct xval *x, unsigned *num);
/* $N, or with RELATIVE $$N (the Nth before the last; $ and $0 are
   $$0); gdb's errors past either end.  */
struct sg_error *history_value(struct shell *sh, uint64_t n, bool relative, struct xval *ret);
/* A void value into *RET.  */
struct sg_error *history_void(struct xval *ret);
/* Convenience variable NAME (without "$"): false if it was never set. */
bool convenience_get(struct shell *sh, const char *name, struct xval *ret);
struct sg_error *convenience_set(struct shell *sh, const char *name, const struct xval *x);
/* The Ith of the set variables, newest first, its value in *RET.  */
size_t convenience_count(struct shell *sh);
const char *convenience_name(struct shell *sh, size_t i, struct xval *ret);

/* A value as printf takes it: an integer (sign-extended from its own
   size), a pointer (arrays and functions decay), or a floating one.  */
struct scalar {
	uint64_t i;
	long double f;
	bool is_float, is_pointer;
	uint64_t size;		/* of an integer, 0 if unknown */
};
struct sg_error *shell_eval_scalar(struct shell *sh, struct sg_target *t, const char *text,
				   struct scalar *ret);
/* After x: gdb's $_ (the last unit's ADDRESS, a pointer to an integer
   of SIZE bytes) and $__ (its contents, BITS).  */
struct sg_error *shell_set_examined(struct shell *sh, struct sg_target *t, uint64_t address,
				    int size, uint64_t bits);
/* printf "FORMAT", ARGS... (printf.c).  */
struct sg_error *shell_cmd_printf(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg);

/* display, undisplay, info display (display.c).  */
struct sg_error *shell_register_display_commands(struct shell *sh);

/* Register info locals and info args (locals.c).  */
struct sg_error *shell_register_frame_var_commands(struct shell *sh);

#endif
