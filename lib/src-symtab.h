/* Source files of units, as gdb's list, info line and info source see
   them (src-symtab.c): a unit's line-table file ("symtab"), the line
   table row of an address as gdb keeps its rows, a file found by the
   name the user typed, a unit's facts.  Internal: exported for the
   shell's cmd-source.c only, as lib/eval.h.  */
#ifndef SG_LIB_SRC_SYMTAB_H
#define SG_LIB_SRC_SYMTAB_H

#include "eval.h"

/* One file of one unit's line table: what gdb calls a symtab.  */
struct symtab {
	struct sg_module *mod;
	Dwarf_Die cu;		/* valid as long as the target */
	Dwarf_Addr bias;	/* the module's DWARF bias */
	char *name;		/* as gdb shows it ("../sysdeps/x.c", "/abs/y.c") */
	char *path;		/* libdw's path: the compilation directory joined */
};

SG_PUBLIC void sg_symtab_clear(struct symtab *s);
/* A copy of SRC into DST (cleared first), its strings its own.  */
SG_PUBLIC struct sg_error *sg_symtab_copy(struct symtab *dst, const struct symtab *src);
/* Whether A and B are the same file of the same unit.  */
SG_PUBLIC bool sg_symtab_same(const struct symtab *a, const struct symtab *b);
/* The unit's compilation directory, NULL if it records none.  */
SG_PUBLIC const char *sg_symtab_comp_dir(const struct symtab *s);

/* A location in the code: its symtab and line, for ADDR (a target
   address, exact: not a return address).  */
struct code_loc {
	struct symtab sym;
	int line;
	uint64_t start, end;	/* the row's range, target addresses */
};

/* The location of ADDR (a target address, exact: not a return address);
   sg_not_found without a line.  */
SG_PUBLIC struct sg_error *sg_code_loc_at(struct sg_target *t, uint64_t addr,
					  struct code_loc *ret);
/* The symtab of frame F: its unit's file that the frame line names.  */
SG_PUBLIC bool sg_frame_symtab(struct sg_target *t, const struct sg_frame *f, struct symtab *ret);
/* The symtab of the file NAME as the user typed it ("bt.c",
   "fixtures/bt.c"): the first unit with rows of it, the executable's
   first; gdb's "No source file named NAME." else.  */
SG_PUBLIC struct sg_error *sg_find_source_file(struct sg_target *t, const char *name,
					       struct symtab *ret);
/* Whether NAME, as the user typed it, names the file PATH shown as
   DISPLAY: the same path, or its last components ("bt.c",
   "fixtures/bt.c").  */
SG_PUBLIC bool sg_source_file_matches(const char *name, const char *display, const char *path);
/* A function that exists only inlined (no symbol), as gdb finds it: its
   first inlined call in the executable, into *RET.  */
SG_PUBLIC bool sg_inlined_function(struct sg_target *t, const char *name, uint64_t *ret);
/* The first row of line LINE of S (lowest address), or of the next line
   that has code: its range [*START, *END) and its line, -1 when the
   line's row belongs to another line at the same address.  */
SG_PUBLIC bool sg_symtab_line_rows(const struct symtab *s, int line, uint64_t *start,
				   uint64_t *end, int *found_line);

/* What info source says of a symtab's unit; strings borrowed from its
   DWARF.  */
struct src_unit_info {
	const char *comp_dir;	/* NULL: none */
	const char *language;	/* gdb's name: "c", "c++", "unknown" */
	const char *producer;	/* NULL: none */
	unsigned dwarf_version;	/* 0: unknown */
	bool macros;		/* the unit has macro information */
};
SG_PUBLIC void sg_symtab_unit_info(const struct symtab *s, struct src_unit_info *ret);
/* gdb's name for the source language of unit CU ("c", "c++", "asm",
   "rust", "go", "fortran", "unknown").  */
SG_PUBLIC const char *sg_unit_language(Dwarf_Die *cu);

#endif
