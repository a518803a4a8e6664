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
};

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
/* Register info locals and info args (locals.c).  */
struct sg_error *shell_register_frame_var_commands(struct shell *sh);

#endif
