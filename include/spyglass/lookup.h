/* ABI 1.8.  The symbols gdb's info functions, info variables and info
   types list: the definitions in every unit's DWARF whose names match, and
   the ELF symbols that no DWARF describes.  */
#ifndef SPYGLASS_LOOKUP_H
#define SPYGLASS_LOOKUP_H

#include <spyglass/common.h>
#include <elfutils/libdw.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

SG_BEGIN_DECLS

enum sg_lookup_kind {
	SG_LOOKUP_FUNCTIONS,
	SG_LOOKUP_VARIABLES,
	SG_LOOKUP_TYPES,
};

/* One definition.  gdb keeps a symbol in a unit's global block (external
   functions and variables, C++ classes and enums) or its static block
   (the rest), and sorts by file, then block, then name.  */
struct sg_lookup_sym {
	const char *file;	/* as gdb shows it; the unit's while its DWARF lives */
	unsigned line;		/* 0: none (base types) */
	bool is_static;		/* in the static block */
	bool cplus;		/* from a C++ unit */
	bool assembler;		/* from an assembler unit: no types */
	char *name;		/* gdb's print name */
	char *declaration;	/* the line gdb prints, without "LINE:\t" */
	Dwarf_Die die;		/* the defining DIE */
};

/* A non-debugging symbol: an ELF symbol no DWARF definition has.  */
struct sg_lookup_minsym {
	uint64_t address;
	char *name;		/* demangled, with parameters */
};

struct sg_lookup {
	struct sg_lookup_sym *syms;
	size_t nsyms;
	struct sg_lookup_minsym *minsyms;
	size_t nminsyms;
};

/* Every definition of KIND in the modules of SESSION's target whose name
   RE matches (RE NULL: all) and whose type TYPE_RE matches (NULL: any),
   sorted and without duplicates as gdb lists them; with MINSYMS, also the
   ELF symbols (functions or data) of each module, in address order, that
   are not described by DWARF.  */
SG_PUBLIC struct sg_error *sg_lookup_symbols(struct sg_session *session,
					     enum sg_lookup_kind kind, const regex_t *re,
					     const regex_t *type_re, bool minsyms,
					     struct sg_lookup *ret);
SG_PUBLIC void sg_lookup_free(struct sg_lookup *l);

SG_END_DECLS

#endif
