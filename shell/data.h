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

#endif
