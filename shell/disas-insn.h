/* One instruction at a time, as gdb prints it: binutils' libopcodes
   decodes it, and addresses it names are labelled as gdb labels them
   (disas-insn.c; the labels are the library's, lib/disas.h).  Shared by
   disassemble (cmd-disas.c) and x/i (cmd-x.c). */
#ifndef SG_SHELL_DISAS_INSN_H
#define SG_SHELL_DISAS_INSN_H

#include "disas.h"
#include "shell.h"

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

/* The raw bytes of INSN as gdb's /r shows them, padded, into B.  */
void disas_put_bytes(const struct disas_insn *insn, struct sg_buf_lite *b);

#endif
