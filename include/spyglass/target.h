/* Targets: a live process (ptrace) or, later, a core file.

   A target owns a consistent snapshot of its threads (stopped, with their
   registers) and gives bounded reads of its memory.  Every consumer (the
   shell, unwinders, readers) goes through this interface, so the same code
   works on a live process and on a core.  */
#ifndef SPYGLASS_TARGET_H
#define SPYGLASS_TARGET_H

#include <spyglass/common.h>
#include <signal.h>
#include <sys/types.h>

SG_BEGIN_DECLS

/* x86-64 registers in DWARF numbering (elfutils backends/x86_64_initreg.c):
   0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15,
   16 rip (the return address column).  The rest are ours.  */
enum sg_reg {
	SG_REG_RAX, SG_REG_RDX, SG_REG_RCX, SG_REG_RBX,
	SG_REG_RSI, SG_REG_RDI, SG_REG_RBP, SG_REG_RSP,
	SG_REG_R8, SG_REG_R9, SG_REG_R10, SG_REG_R11,
	SG_REG_R12, SG_REG_R13, SG_REG_R14, SG_REG_R15,
	SG_REG_RIP,
	SG_REG_EFLAGS, SG_REG_CS, SG_REG_SS, SG_REG_DS, SG_REG_ES,
	SG_REG_FS, SG_REG_GS, SG_REG_FS_BASE, SG_REG_GS_BASE,
	SG_REG_ORIG_RAX,
	SG_NREGS
};

/* A register set.  Bit N of VALID says whether R[N] is known: an unwound
   frame usually knows only some registers.  */
struct sg_regs {
	uint64_t r[SG_NREGS];
	uint64_t valid;
};

static inline bool sg_regs_has(const struct sg_regs *regs, enum sg_reg reg)
{
	return (regs->valid >> reg) & 1;
}

static inline void sg_regs_set(struct sg_regs *regs, enum sg_reg reg, uint64_t value)
{
	regs->r[reg] = value;
	regs->valid |= UINT64_C(1) << reg;
}

/* The register's name as gdb spells it ("rip", "eflags", "fs_base"), or
   NULL.  */
SG_PUBLIC const char *sg_reg_name(enum sg_reg reg);
/* The register called NAME (with or without a leading '$'; "pc" and "sp" are
   accepted), or -1.  */
SG_PUBLIC int sg_reg_lookup(const char *name);

/* One thread of the snapshot.  Borrowed from the target, valid until the
   target is destroyed.  */
struct sg_thread;

SG_PUBLIC pid_t sg_thread_tid(const struct sg_thread *thread);
/* The thread's comm, as read at attach time.  */
SG_PUBLIC const char *sg_thread_name(const struct sg_thread *thread);
/* The scheduler state letter the thread had just before it was stopped
   ('R', 'S', 'D', ...), or '?' when unknown.  */
SG_PUBLIC char sg_thread_state(const struct sg_thread *thread);
/* The registers of the thread's innermost frame.  */
SG_PUBLIC const struct sg_regs *sg_thread_regs(const struct sg_thread *thread);
/* The thread's position in the target's list, from 0; gdb's thread ID is
   this plus one.  */
SG_PUBLIC size_t sg_thread_index(const struct sg_thread *thread);
/* The signal THREAD of the live TARGET is stopped with (gdb's $_siginfo),
   into *RET: false when none, as after the attach or an interrupt (a
   PTRACE_INTERRUPT stop), on a core (see sg_core_info) or a snapshot.  */
SG_PUBLIC bool sg_thread_siginfo(struct sg_target *target, const struct sg_thread *thread,
				 siginfo_t *ret);

enum sg_target_kind {
	SG_TARGET_LIVE,
	SG_TARGET_CORE,
};

SG_PUBLIC enum sg_target_kind sg_target_kind(const struct sg_target *target);
/* The process ID (for a core: the one it recorded).  */
SG_PUBLIC pid_t sg_target_pid(const struct sg_target *target);
/* The executable's path, or NULL if unknown.  */
SG_PUBLIC const char *sg_target_exe(const struct sg_target *target);

SG_PUBLIC size_t sg_target_thread_count(const struct sg_target *target);
/* Thread number I (0-based), or NULL if out of range.  */
SG_PUBLIC struct sg_thread *sg_target_thread(const struct sg_target *target, size_t i);
/* The thread with kernel thread ID TID, or NULL.  */
SG_PUBLIC struct sg_thread *sg_target_thread_by_tid(const struct sg_target *target, pid_t tid);

/* Read SIZE bytes at ADDRESS into BUF.  The read is all or nothing: on a
   partial read the error (SG_ERROR_FAULT) names the first address that could
   not be read.  If the process has exited, the error is SG_ERROR_TARGET.  */
SG_PUBLIC struct sg_error *sg_target_read(struct sg_target *target, uint64_t address,
					  void *buf, size_t size) SG_NONNULL(1);
/* Values that are not in the target's memory (pieces in registers, a
   DW_AT_const_value) for code that reads through the target, such as
   typed readers: until the matching pop, reads of [ADDRESS, ADDRESS +
   SIZE) are answered from DATA.  KNOWN (may be NULL: all known) has a
   byte per byte, 0 for one that was optimized out: reading it faults.
   DATA and KNOWN are borrowed until the pop.  Pushes nest, at most
   SG_TARGET_OVERLAYS deep; ADDRESS should be where nothing is mapped.  */
#define SG_TARGET_OVERLAYS 4
SG_PUBLIC struct sg_error *sg_target_overlay_push(struct sg_target *target, uint64_t address,
						  const void *data, const unsigned char *known,
						  size_t size) SG_NONNULL(1, 3);
SG_PUBLIC void sg_target_overlay_pop(struct sg_target *target) SG_NONNULL(1);

/* Read one 64-bit little-endian word.  */
SG_PUBLIC struct sg_error *sg_target_read_u64(struct sg_target *target, uint64_t address,
					      uint64_t *ret) SG_NONNULL(1, 3);
/* Read a NUL-terminated string of at most MAX bytes (not counting the NUL)
   into a new buffer, *RET, which the caller frees.  *TRUNCATED_RET (may be
   NULL) says whether MAX was reached before a NUL.  */
SG_PUBLIC struct sg_error *sg_target_read_string(struct sg_target *target, uint64_t address,
						 size_t max, char **ret, bool *truncated_ret)
	SG_NONNULL(1, 4);

/* Memory traffic since the target was attached.  READS and BYTES_READ
   count what sg_target_read() (and every reader built on it) was asked
   for; FETCHES and BYTES_FETCHED what was read from the process, page-cache
   fills included.  A reader that reads only what it prints shows it here
   ("maintenance info target-stats", bench/print.sh).  INDEX_UNITS and
   INDEX_NAMES say how much of the modules' DWARF the lazy name index has
   read so far, of INDEX_MODULES modules with DWARF opened by a lookup.  */
struct sg_target_stats {
	uint64_t reads, bytes_read;
	uint64_t fetches, bytes_fetched;
	uint64_t index_modules, index_units, index_names;
};
SG_PUBLIC void sg_target_stats(const struct sg_target *target, struct sg_target_stats *ret)
	SG_NONNULL(1, 2);

/* Is the live process still there?  Always true for a core.  */
SG_PUBLIC bool sg_target_alive(struct sg_target *target);

/* ABI 1.2.  NULL unless a read has already found that the process exited;
   then the error saying so ("process 42 exited while attached (killed by
   signal 9, KILL)").  Makes no system call while the process lives, so
   a loop over many frames or elements can ask after each, and stop with
   one line instead of one error per item.  */
SG_PUBLIC struct sg_error *sg_target_exited(struct sg_target *target);

/* Nanoseconds the target has been stopped: from the first thread stop to
   now, or to the detach.  0 for a core.  */
SG_PUBLIC uint64_t sg_target_paused_ns(const struct sg_target *target);

/* ABI 1.5.  Keep DATA with TARGET under KEY, the address of something
   the caller owns (a static variable's, say).  DESTROY (may be NULL)
   frees it when the target's modules are dropped (the target is
   destroyed) or KEY is set again.  For caches that point into the
   modules' DWARF, such as facts about a function's DIE: they live as
   long as the DWARF they point into, and a new target at the same
   address does not see them.  */
SG_PUBLIC struct sg_error *sg_target_set_data(struct sg_target *target, const void *key,
					      void *data, void (*destroy)(void *data))
	SG_NONNULL(1, 2);
/* The data kept under KEY, or NULL.  */
SG_PUBLIC void *sg_target_get_data(const struct sg_target *target, const void *key)
	SG_NONNULL(1, 2);

/* Run control: sg_interrupt_error() ("Quit") when the user asked to
   interrupt (sg_interrupt_request, session.h), else NULL.  No system
   call: a long loop can ask after each item.  sg_target_exited() says
   the same when the process lives.  */
SG_PUBLIC struct sg_error *sg_target_interrupted(void);

SG_END_DECLS

#endif
