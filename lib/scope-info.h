/* info scope (scope-info.c): the symbols of the blocks around an
   address, as gdb 13 lists them, with their locations in gdb's words
   (dwarf-describe.c), and where gdb's linespecs put that address
   (prologue.c).  Internal: exported for the shell's cmd-source.c only,
   as lib/eval.h.  */
#ifndef SG_LIB_SCOPE_INFO_H
#define SG_LIB_SCOPE_INFO_H

#include "eval.h"

/* Where gdb 13 puts a breakpoint for a location at PC (a function's
   entry, an inlined call's, or a line's first address), skipping the
   function's prologue as its skip_prologue_sal does.  */
SG_PUBLIC uint64_t sg_skip_prologue(struct sg_target *t, uint64_t pc);

/* The first block gdb's linespec finds for the function NAME: the
   out-of-line function or an inlined instance, whichever comes first in
   its unit; its entry address into *RET.  sg_not_found if none.  */
SG_PUBLIC struct sg_error *sg_scope_function(struct sg_target *t, const char *name, uint64_t *ret);

/* info scope: the symbols of the block at PC and of its superblocks up
   to the function, headed "Scope for WHAT:".  */
SG_PUBLIC struct sg_error *sg_info_scope(struct sg_session *s, const char *what, uint64_t pc,
					 struct sg_out *out);

#endif
