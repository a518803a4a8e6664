/* Core files: opening one as a target, what it recorded, and writing one
   of a live process (ABI 1.4).

   A core target answers every call of target.h as a live one does: its
   threads and registers come from NT_PRSTATUS, its memory from the
   PT_LOAD segments and, for what the core left out (text, read-only
   data), from the files NT_FILE names.  */
#ifndef SPYGLASS_CORE_H
#define SPYGLASS_CORE_H

#include <spyglass/common.h>
#include <sys/types.h>

SG_BEGIN_DECLS

/* Where the files a core names are looked for, tried in order: DIR/NAME
   for the sysroot (gdb's "set sysroot"), then each DIR/BASENAME of the
   colon-separated search path (gdb's "set solib-search-path"), then NAME.
   Copied; NULL or "" clears.  They apply to the next core opened.  */
SG_PUBLIC struct sg_error *sg_session_set_sysroot(struct sg_session *session, const char *dir)
	SG_NONNULL(1);
SG_PUBLIC struct sg_error *sg_session_set_solib_search_path(struct sg_session *session,
							    const char *path) SG_NONNULL(1);
SG_PUBLIC const char *sg_session_sysroot(struct sg_session *session) SG_NONNULL(1);
SG_PUBLIC const char *sg_session_solib_search_path(struct sg_session *session) SG_NONNULL(1);

/* Open the core file CORE as the session's target, replacing any current
   one.  EXE (may be NULL) is the executable; without it, the one the core
   names is used.  Errors: not a core, another architecture, truncated
   past use.  What can be worked around (a missing library, a build ID
   that differs) is a warning, in sg_core_info.  */
SG_PUBLIC struct sg_error *sg_session_open_core(struct sg_session *session, const char *core,
						const char *exe) SG_NONNULL(1, 2);

/* What a core recorded, borrowed from its target.  */
struct sg_core_info {
	const char *path;	/* the core file */
	pid_t pid;
	const char *fname;	/* NT_PRPSINFO: the command name, "" if none */
	const char *psargs;	/* NT_PRPSINFO: the command line (80 bytes at most) */
	/* The signal that ended the process: the first thread's (pr_cursig),
	   as gdb takes it; 0 for none (gdb's gcore records none).  */
	int signo;
	/* NT_SIGINFO, the first thread's siginfo_t, if the core has it: the
	   signal it was stopped by (SI_SIGNO, for a gcore's SIGSTOP), its
	   code and errno.  ADDR is the fault address for SIGSEGV, SIGBUS,
	   SIGILL, SIGFPE, SIGTRAP; SENDER_PID the sender's for a signal sent
	   by kill, tkill or sigqueue (SI_USER, SI_TKILL, SI_QUEUE).  */
	bool has_siginfo;
	int si_signo, errno_, code;
	const void *siginfo;	/* its 128 bytes, or NULL */
	uint64_t addr;
	pid_t sender_pid;
	/* Warnings found at the open, one per line, each ending in a
	   newline ("" if none): missing files, build IDs that differ, a
	   truncated core.  */
	const char *warnings;
};
/* False (and *RET untouched) when TARGET is not a core.  */
SG_PUBLIC bool sg_core_info(const struct sg_target *target, struct sg_core_info *ret)
	SG_NONNULL(1, 2);

/* Write an ELF core of the live TARGET, stopped as it is, to PATH: every
   thread's registers (NT_PRSTATUS, NT_FPREGSET), NT_PRPSINFO, NT_SIGINFO,
   NT_AUXV, NT_FILE, and the memory the kernel would dump under the
   process's /proc/PID/coredump_filter.  */
struct sg_core_write_stats {
	uint64_t bytes;		/* the file's size */
	uint64_t memory;	/* bytes of memory written */
	size_t segments;	/* PT_LOAD headers */
	uint64_t elapsed_ns;
};
SG_PUBLIC struct sg_error *sg_core_write(struct sg_target *target, const char *path,
					 struct sg_core_write_stats *ret) SG_NONNULL(1, 2);

/* ABI 1.8.  A thread's x87, SSE, AVX, AVX-512 and PKU registers, from
   its XSAVE area: PTRACE_GETREGSET NT_X86_XSTATE on a stopped process,
   the NT_X86_XSTATE note (else NT_FPREGSET) of a core.  A component the
   area marks absent (XSTATE_BV) is in its initial state: zeros, with
   the x87 control word 0x37f and MXCSR 0x1f80.  */
struct sg_xregs {
	/* XCR0 as the area records it: the register files the process has
	   (bit 0 x87, 1 SSE, 2 AVX, 5-7 AVX-512, 9 PKU); x87 and SSE always
	   (x86-64 has them), so 3 for an FXSAVE area alone.  */
	uint64_t xcr0;
	uint16_t fctrl, fstat;
	uint16_t ftag;		/* the full tag word, 2 bits a register, as FSTENV has it */
	uint16_t fop;		/* the last opcode, 11 bits */
	uint32_t fioff, fiseg, fooff, foseg;	/* the last instruction and operand */
	uint32_t mxcsr;
	unsigned char st[8][10];	/* ST(0)-ST(7), 80-bit, little-endian */
	/* zmmN: its first 16 bytes are xmmN, its first 32 ymmN.  */
	unsigned char zmm[32][64];
	uint64_t k[8];		/* AVX-512 opmasks */
	uint32_t pkru;
};
/* Fill *RET for THREAD of TARGET.  Errors: a snapshot (its threads run
   on), a core without the notes, ptrace failing.  */
SG_PUBLIC struct sg_error *sg_thread_xregs(struct sg_target *target,
					   const struct sg_thread *thread, struct sg_xregs *ret)
	SG_NONNULL(1, 2, 3);

/* ABI 1.8.  A section as gdb's "info files" lists it: [START, END)
   holds NAME (borrowed for the callback's time).  */
struct sg_section {
	uint64_t start, end;
	const char *name;
};
/* Called for each section; returns SG_CB_OK to go on, SG_CB_ABORT to
   stop.  */
typedef int sg_section_fn(const struct sg_section *section, void *arg);
struct sg_module;
/* The sections of MOD's ELF file that the program has in memory
   (SHF_ALLOC, not empty), in the file's order, at their run-time
   addresses.  Errors: MOD has no ELF file (a core's library not found).  */
SG_PUBLIC struct sg_error *sg_module_sections(struct sg_module *mod, sg_section_fn *fn,
					      void *arg) SG_NONNULL(1, 2);
/* MOD's entry point at run time (e_entry plus the load bias) into *RET;
   false when MOD has no ELF file.  */
SG_PUBLIC bool sg_module_entry(struct sg_module *mod, uint64_t *ret) SG_NONNULL(1, 2);
/* The memory of the core TARGET as BFD (and so gdb) names it: for the
   PT_LOAD header at index N, "loadN"; split in "loadNa" (what the file
   holds) and "loadNb" (the rest) when the file holds part of it.  In
   the headers' order.  False when TARGET is not a core.  */
SG_PUBLIC bool sg_core_sections(const struct sg_target *target, sg_section_fn *fn, void *arg)
	SG_NONNULL(1, 2);

/* ABI 1.8.  The modules of the dynamic linker's list (_r_debug.r_map)
   in its order, gdb's order of shared libraries, into RET (room for MAX):
   how many.  The executable and the vDSO are left out.  0 for a static
   program, or when the list cannot be read.  */
SG_PUBLIC size_t sg_target_link_map_modules(struct sg_target *target, struct sg_module **ret,
					    size_t max) SG_NONNULL(1);

SG_END_DECLS

#endif
