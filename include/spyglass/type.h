/* DWARF types and variables (the start of the type database).

   Types are libdw DIEs (Dwarf_Die, by value; valid as long as the target).
   Lookups search the executable first, then the other modules, and prefer
   definitions to declarations, so a declaration stub in one unit resolves to
   the complete type in another.  */
#ifndef SPYGLASS_TYPE_H
#define SPYGLASS_TYPE_H

#include <spyglass/common.h>
#include <elfutils/libdw.h>

SG_BEGIN_DECLS

/* A global or static variable NAME: its type DIE and runtime address.
   &sg_not_found if no module defines it.  */
SG_PUBLIC struct sg_error *sg_lookup_variable(struct sg_target *target, const char *name,
					      Dwarf_Die *type_ret, uint64_t *address_ret);
/* The same, where a thread-local variable lives in THREAD (NULL: such a
   variable is an error, as for sg_lookup_variable): its module's block
   found through the thread's DTV, as glibc lays it out.  */
SG_PUBLIC struct sg_error *sg_lookup_thread_variable(struct sg_target *target,
						     const struct sg_thread *thread, const char *name,
						     Dwarf_Die *type_ret, uint64_t *address_ret);

/* The function NAME: its DW_TAG_subprogram DIE (which serves as its type:
   return type and parameters) and its runtime address.  &sg_not_found
   without a symbol or DWARF for it.  */
SG_PUBLIC struct sg_error *sg_lookup_function(struct sg_target *target, const char *name,
					      Dwarf_Die *ret, uint64_t *address_ret);

/* The type spelled NAME: "int", "point_t", "struct point", "union num",
   "enum color".  &sg_not_found if none.  */
SG_PUBLIC struct sg_error *sg_lookup_type(struct sg_target *target, const char *name,
					  Dwarf_Die *ret);

/* The global variable NAME that has no location but a DW_AT_const_value
   (the compiler folded it), into *RET.  &sg_not_found if none.  */
SG_PUBLIC struct sg_error *sg_lookup_constant(struct sg_target *target, const char *name,
					      Dwarf_Die *ret);

/* If DIE is a declaration (DW_AT_declaration), find its definition by
   name; otherwise, or if none is found, copy DIE.  */
SG_PUBLIC void sg_type_complete(struct sg_target *target, Dwarf_Die *die, Dwarf_Die *ret);

SG_END_DECLS

#endif
