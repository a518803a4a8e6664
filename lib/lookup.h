/* What lookup.c takes from frame.c.  */
#ifndef SG_LIB_LOOKUP_H
#define SG_LIB_LOOKUP_H

#include "internal.h"
#include <spyglass/lookup.h>

/* The name gdb gives the function of DIE (kept with the target), and a
   source path of the unit CUDIE as gdb shows it.  */
const char *sg_die_function_name(struct sg_target *t, Dwarf_Die *die);
const char *sg_display_path(Dwarf_Die *cudie, const char *path);

#endif
