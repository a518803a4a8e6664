/* The symbols of gdb's blocks (scope-block.c): which symbols a block of
   the DWARF holds, and in what order gdb 13 lists them.  For info scope
   (scope-info.c).  */
#ifndef SG_LIB_SCOPE_BLOCK_H
#define SG_LIB_SCOPE_BLOCK_H

#include "internal.h"

#include <elfutils/libdw.h>

enum sym_class {
	SYM_VARIABLE,		/* variable or parameter: described by its DWARF */
	SYM_TYPEDEF,		/* typedef, tag, base type */
	SYM_ENUMERATOR,
	SYM_LABEL,
	SYM_FUNCTION,		/* an inlined or nested function's block */
};

struct sym {
	Dwarf_Die die;
	enum sym_class cls;
	char *name;
	bool parameter;
	Dwarf_Die owner;	/* an enumerator's enum type */
};

struct symlist {
	struct sym *v;
	size_t n, cap;
	bool failed;
};

void scope_symlist_free(struct symlist *l);
/* Whether DIE has the flag attribute NAME, its origin's included.  */
bool scope_flag(Dwarf_Die *die, int name);
/* The start of a block's first non-empty range: gdb's entry pc.  */
bool scope_block_entry(Dwarf_Die *die, Dwarf_Addr *ret);
/* gdb's name of the C++ function of DIE (a function, or an inlined
   call: its origin's), with its parameters; new string or NULL.  */
char *scope_cplus_function_name(Dwarf_Die *die);
/* Where a C++ name's parameters start: its '(' outside template
   arguments, "(anonymous namespace)" and "operator()", or its end.  */
size_t scope_params_at(const char *s);
/* A function's own symbol, named as gdb names it (in C++ with its
   scopes and parameters), onto L.  */
void scope_add_function(struct symlist *l, Dwarf_Die *die, bool cplus);
/* The symbols of block DIE (a lexical block, an inlined call or a
   function; not the unit), in gdb's order.  */
void scope_block_symbols(Dwarf_Die *die, struct symlist *l, bool cplus);
/* The unit's static block and its global one, each in gdb's order.  */
void scope_unit_symbols(Dwarf_Die *cu, struct symlist *stat, struct symlist *glob, bool cplus);

#endif
