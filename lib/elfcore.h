/* The parts of an ELF core file that spyglass reads and writes (x86-64
   Linux): the layouts are the kernel's, as glibc's <sys/procfs.h> gives
   them.  Shared by the reader (elfcore.c, target-core.c) and the writer
   (core-write.c).  Not installed.  */
#ifndef SG_ELFCORE_H
#define SG_ELFCORE_H

#include "internal.h"

#include <elf.h>
#include <signal.h>
#include <sys/procfs.h>
#include <sys/user.h>

/* x86-64 NT_FPREGSET: struct user_fpregs_struct.  */
#define SG_FPREGSET_SIZE 512

/* The general registers in both directions.  */
void sg_regs_from_user(struct sg_regs *r, const struct user_regs_struct *u);
void sg_regs_to_user(struct user_regs_struct *u, const struct sg_regs *r);

struct sg_elfcore_thread {
	pid_t tid;
	int cursig;
	struct sg_regs regs;
	bool has_fpregs;
	unsigned char fpregs[SG_FPREGSET_SIZE];
	/* NT_X86_XSTATE, the XSAVE area: where its bytes are in the file
	   (read when asked for: with AMX it is 11 kB a thread); size 0 if
	   the core has none.  */
	uint64_t xstate_offset;
	size_t xstate_size;
};

/* A PT_LOAD header, its file part clipped to what the file holds.  */
struct sg_elfcore_segment {
	uint64_t vaddr, memsz;
	uint64_t offset, filesz;
	uint32_t flags;		/* PF_R, PF_W, PF_X */
	/* Its index among the program headers, and the file size the
	   header gave (before any cut): BFD, and so gdb, names the
	   segment's sections after them ("load3", "load8a").  */
	uint32_t phindex;
	uint64_t header_filesz;
	/* The file ends inside the segment's data: past FILESZ the memory
	   is lost, not the mapped file's (its first contents, not the
	   process's).  */
	bool cut;
};

/* An NT_FILE entry: [START, END) maps NAME from byte OFFSET.  */
struct sg_elfcore_file {
	uint64_t start, end, offset;
	const char *name;	/* into the note's copy */
};

struct sg_elfcore {
	int fd;
	uint64_t size;		/* of the file */
	struct sg_elfcore_segment *segments;	/* by address */
	size_t nsegments;
	struct sg_elfcore_thread *threads;	/* in the core's order */
	size_t nthreads;
	struct sg_elfcore_file *files;		/* by address */
	size_t nfiles;
	char *file_names;
	bool has_psinfo, has_siginfo;
	pid_t pid;
	char fname[17];
	char psargs[81];
	siginfo_t siginfo;
	uint64_t *auxv;		/* pairs, ending at AT_NULL or the note's end */
	size_t nauxv;
	struct sg_buf warnings;
};

/* Read the headers and notes of the core open on FD (kept, not closed on
   error).  Errors: not an ELF core, not x86-64, no thread.  A core cut
   short is read as far as it goes, with a warning.  */
struct sg_error *sg_elfcore_open(int fd, struct sg_elfcore **ret);
/* Frees; closes the fd.  NULL is ignored.  */
void sg_elfcore_close(struct sg_elfcore *core);
/* The auxv entry TYPE, or 0.  */
uint64_t sg_elfcore_auxv(const struct sg_elfcore *core, uint64_t type);
/* The segment holding ADDRESS, or NULL.  */
const struct sg_elfcore_segment *sg_elfcore_segment_at(const struct sg_elfcore *core,
							uint64_t address);
/* The NT_FILE entry holding ADDRESS, or NULL.  */
const struct sg_elfcore_file *sg_elfcore_file_at(const struct sg_elfcore *core,
						 uint64_t address);
/* The NT_X86_XSTATE of thread INDEX into BUF (SIZE bytes at most), its
   size in *LEN_RET; &sg_not_found when the core has none for it.  */
struct sg_error *sg_elfcore_xstate(const struct sg_elfcore *core, size_t index, void *buf,
				   size_t size, size_t *len_ret);

#endif
