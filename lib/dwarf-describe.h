/* A symbol's DWARF location in gdb's words (dwarf-describe.c), for
   info scope (scope-info.c).  */
#ifndef SG_LIB_DWARF_DESCRIBE_H
#define SG_LIB_DWARF_DESCRIBE_H

#include "internal.h"

#include <elfutils/libdw.h>

/* What describing a location needs of its unit, and the text so far.  */
struct sg_describe {
	Dwarf_Die cu;
	Dwarf *dw;
	Dwarf_Addr bias;	/* DWARF address + bias = target address */
	const char *objfile;	/* the module's path, for thread-local storage */
	const char *name;	/* the symbol, for gdb's errors */
	unsigned version, addr_size, offset_size;
	uint64_t addr_base;	/* DW_AT_addr_base */
	uint64_t cu_base;	/* the unit's base address */
	struct sg_buf text;
};

void sg_describe_init(struct sg_describe *d, Dwarf_Die *cu, Dwarf_Addr bias, const char *objfile);
void sg_describe_fini(struct sg_describe *d);
/* The expression DATA (SIZE bytes) as gdb's locexpr_describe_location_1
   says it, appended to D->text.  ADDR: the DWARF address of the block
   or list entry, whose function's frame base DW_OP_fbreg means.  An
   error (gdb's) may follow text already appended.  */
struct sg_error *sg_describe_expr(struct sg_describe *d, const unsigned char *data, size_t size,
				  Dwarf_Addr addr);
/* The location list ATTR as gdb's loclist_describe_location says it.  */
struct sg_error *sg_describe_loclist(struct sg_describe *d, Dwarf_Attribute *attr);

#endif
