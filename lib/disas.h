/* Disassembly's names and source lines, for the shell's disassemble and
   x/i (shell/disas-insn.c decodes with libopcodes): the labels of
   addresses as gdb writes them and the extent of a function
   (disas-labels.c), and the line table rows and source text of
   disassemble /s (disas-source.c).  Internal: exported for the shell
   only, as lib/eval.h.  */
#ifndef SG_LIB_DISAS_H
#define SG_LIB_DISAS_H

#include "eval.h"

/* A command that names many addresses brackets its work with these: the
   modules' symbol tables are then sorted once, not searched each time.  */
SG_PUBLIC void sg_disas_labels_begin(void);
SG_PUBLIC void sg_disas_labels_end(void);

/* " <sym+off>" for ADDR as gdb writes it after an address in disassembly
   and x/i: the DWARF function around ADDR, unless a symbol of the symbol
   table starts at ADDR and the function does not (C: its linkage name, "__GI___nanosleep", else its name;
   C++: its linkage name, mangled as "print asm-demangle" is off, or
   "main()"), the offset negative in a .cold part ("<main()-46>"); else the
   symbol table's name ("_ZN12_GLOBAL__N_16pipefdE", "stdout@GLIBC_2.2.5"),
   PLT entries as "puts@plt"; nothing for data past the end of its symbol.
   "" when nothing names ADDR.  */
SG_PUBLIC void sg_disas_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size);

/* A function to disassemble: the DWARF function's ranges (a .cold part
   is a second one) or the symbol's extent.  */
#define DISAS_MAX_RANGES 16
struct disas_function {
	char *name;		/* as in sg_disas_symbol_suffix, no offset; free it */
	uint64_t entry;		/* where offsets count from */
	size_t nranges;
	struct {
		uint64_t start, end;
	} ranges[DISAS_MAX_RANGES];
};
/* The function containing ADDR, or gdb's "No function contains specified
   address.".  */
SG_PUBLIC struct sg_error *sg_disas_function_at(struct sg_target *t, uint64_t addr, struct disas_function *ret);

/* ---- source lines, for disassemble /s (disas-source.c) ---- */

/* The source files one dump reads, each once, and the line table of the
   last unit asked about.  */
struct disas_sources;
SG_PUBLIC struct disas_sources *sg_disas_sources_create(void);
SG_PUBLIC void sg_disas_sources_destroy(struct disas_sources *s);

/* The line table row of PC as gdb's find_pc_line gives it: FILE (borrowed
   from the module's DWARF), LINE, and END, where the next row starts.  */
struct disas_line {
	const char *file;
	int line;
	uint64_t end;	/* 0: unknown */
};
SG_PUBLIC bool sg_disas_pc_line(struct disas_sources *s, struct sg_target *t, uint64_t pc,
		   struct disas_line *ret);
/* The line of the first row of gdb's table in [LOW, HIGH) (a function's
   opening brace), or 0.  */
SG_PUBLIC int sg_disas_first_line(struct disas_sources *s, struct sg_target *t, uint64_t low, uint64_t high);
/* Lines [FROM, TO) of FILE as gdb's list prints them, "42\ttext"; an
   unreadable file's error once, then "42\tin FILE".  */
SG_PUBLIC void sg_disas_print_source(struct disas_sources *s, const char *file, int from, int to,
			struct sg_out *out);

#endif
