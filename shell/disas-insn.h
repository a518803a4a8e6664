/* One instruction at a time, as gdb prints it: binutils' libopcodes
   decodes it, and addresses it names are labelled as gdb labels them
   (disas-insn.c).  Shared by disassemble (cmd-disas.c) and x/i (cmd-x.c). */
#ifndef SG_SHELL_DISAS_INSN_H
#define SG_SHELL_DISAS_INSN_H

#include "eval.h"
#include "shell.h"

#include <elfutils/libdw.h>

/* The longest x86 instruction.  */
#define DISAS_MAX_INSN 15

/* "set disassembly-flavor": AT&T (gdb's default) or Intel.  */
enum disas_flavor { DISAS_ATT, DISAS_INTEL };
extern enum disas_flavor disas_flavor;

struct disas_insn {
	uint64_t address;
	int length;				/* bytes */
	unsigned char bytes[DISAS_MAX_INSN];
	struct sg_buf_lite text;		/* "mov    %rsp,%rbp"; free text.s */
};

/* Decode the instruction at ADDR of T into *RET (its text to free with
   free(ret->text.s), also on error).  Memory that cannot be read gives
   gdb's "Cannot access memory at address 0x...".  */
struct sg_error *disas_decode(struct sg_target *t, uint64_t addr, struct disas_insn *ret);

/* A command that names many addresses brackets its work with these: the
   modules' symbol tables are then sorted once, not searched each time.  */
void disas_labels_begin(void);
void disas_labels_end(void);

/* " <sym+off>" for ADDR as gdb writes it after an address in disassembly
   and x/i: the DWARF function around ADDR, unless a symbol of the symbol
   table starts at ADDR and the function does not (C: its linkage name, "__GI___nanosleep", else its name;
   C++: its linkage name, mangled as "print asm-demangle" is off, or
   "main()"), the offset negative in a .cold part ("<main()-46>"); else the
   symbol table's name ("_ZN12_GLOBAL__N_16pipefdE", "stdout@GLIBC_2.2.5"),
   PLT entries as "puts@plt"; nothing for data past the end of its symbol.
   "" when nothing names ADDR.  */
void disas_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size);

/* A function to disassemble: the DWARF function's ranges (a .cold part
   is a second one) or the symbol's extent.  */
#define DISAS_MAX_RANGES 16
struct disas_function {
	char *name;		/* as in disas_symbol_suffix, no offset; free it */
	uint64_t entry;		/* where offsets count from */
	size_t nranges;
	struct {
		uint64_t start, end;
	} ranges[DISAS_MAX_RANGES];
};
/* The function containing ADDR, or gdb's "No function contains specified
   address.".  */
struct sg_error *disas_function_at(struct sg_target *t, uint64_t addr, struct disas_function *ret);

/* ---- source lines, for disassemble /s (disas-source.c) ---- */

/* The source files one dump reads, each once, and the line table of the
   last unit asked about.  */
struct disas_sources;
struct disas_sources *disas_sources_create(void);
void disas_sources_destroy(struct disas_sources *s);

/* The line table row of PC as gdb's find_pc_line gives it: FILE (borrowed
   from the module's DWARF), LINE, and END, where the next row starts.  */
struct disas_line {
	const char *file;
	int line;
	uint64_t end;	/* 0: unknown */
};
bool disas_pc_line(struct disas_sources *s, struct sg_target *t, uint64_t pc,
		   struct disas_line *ret);
/* The line of the first row of gdb's table in [LOW, HIGH) (a function's
   opening brace), or 0.  */
int disas_first_line(struct disas_sources *s, struct sg_target *t, uint64_t low, uint64_t high);
/* Lines [FROM, TO) of FILE as gdb's list prints them, "42\ttext"; an
   unreadable file's error once, then "42\tin FILE".  */
void disas_print_source(struct disas_sources *s, const char *file, int from, int to,
			struct sg_out *out);


/* The raw bytes of INSN as gdb's /r shows them, padded, into B.  */
void disas_put_bytes(const struct disas_insn *insn, struct sg_buf_lite *b);

#endif
