/* Stacks: unwinding a thread into frames, and describing each frame.

   The driver runs the registered unwinders (see registry.h) for each frame
   in priority order until one gives a caller; it checks that the stack
   pointer moves up, detects loops and caps the depth.  A physical frame is
   then described as one or more logical frames: inlined calls get frames of
   their own, as in gdb.  */
#ifndef SPYGLASS_UNWIND_H
#define SPYGLASS_UNWIND_H

#include <spyglass/common.h>
#include <spyglass/registry.h>
#include <elfutils/libdw.h>

SG_BEGIN_DECLS

struct sg_module;

/* One logical frame.  Strings are borrowed from the stack.  */
struct sg_frame {
	size_t level;			/* gdb's frame number */
	size_t physical;		/* index of the physical frame */
	uint64_t pc;			/* exact for frame 0 and signal-interrupted frames */
	bool activation;		/* PC is exact, not a return address */
	const struct sg_regs *regs;	/* registers of the physical frame */
	const char *unwinder;		/* who produced this frame; NULL for frame 0 */
	const char *function;		/* NULL when unknown */
	bool has_offset;
	uint64_t offset;		/* PC minus the symbol's start */
	struct sg_module *module;	/* NULL when PC is in no module */
	const char *file;		/* NULL when unknown */
	int line;			/* 0 when unknown */
	bool line_start;		/* PC is the first address of its line */
	bool inlined;			/* an inlined call: its caller is the next frame, same PC */
	bool signal_trampoline;		/* gdb's <signal handler called> */
	bool tail_call;			/* a function that tail-called the frame below,
					   known from DWARF call-site records */
	/* The DWARF scopes at the pc, innermost first (blocks, inlined calls,
	   the subprogram), shared by the logical frames of one physical frame;
	   NULL without DWARF.  SCOPE_FN is this frame's function in them,
	   SCOPE_FIRST the function inside it (-1 if none): the blocks between
	   the two are this frame's.  Valid as long as the target.  */
	const Dwarf_Die *scopes;
	int nscopes, scope_fn, scope_first;
	uint64_t dwarf_bias;
};

struct sg_stack;

enum sg_unwind_flags {
	SG_UNWIND_NO_SYMBOLS = 1 << 0,	/* physical frames only (profilers) */
};

/* Unwind THREAD.  ONLY (may be NULL) names the one unwinder to use.  At
   most LIMIT physical frames (0: the "backtrace limit" setting).  The walk's
   end reason, if it did not reach the outermost frame, is kept in the
   stack (sg_stack_stop_reason).  */
SG_PUBLIC struct sg_error *sg_stack_unwind(struct sg_session *session, struct sg_thread *thread,
					   const char *only, size_t limit, unsigned flags,
					   struct sg_stack **ret);
SG_PUBLIC void sg_stack_destroy(struct sg_stack *stack);

SG_PUBLIC size_t sg_stack_count(const struct sg_stack *stack);
SG_PUBLIC const struct sg_frame *sg_stack_frame(const struct sg_stack *stack, size_t level);
SG_PUBLIC struct sg_thread *sg_stack_thread(const struct sg_stack *stack);
/* Why the walk stopped before the outermost frame ("previous frame inner to
   this frame (corrupt stack?)"), or NULL.  */
SG_PUBLIC const char *sg_stack_stop_reason(const struct sg_stack *stack);
/* Whether the depth limit cut the walk.  */
SG_PUBLIC bool sg_stack_truncated(const struct sg_stack *stack);

/* The selected thread's stack, unwound on first use and kept until the
   thread or target changes; and the selected frame (gdb's "frame N").  */
/* The canonical frame address of frame LEVEL (its caller's stack pointer
   on x86-64), also for the outermost frame shown when the walk went
   further (past main); false when unknown.  */
SG_PUBLIC bool sg_stack_cfa(const struct sg_stack *stack, size_t level, uint64_t *ret);
SG_PUBLIC struct sg_error *sg_session_stack(struct sg_session *session, struct sg_stack **ret);
SG_PUBLIC size_t sg_session_frame(struct sg_session *session);
SG_PUBLIC struct sg_error *sg_session_select_frame(struct sg_session *session, size_t level);

/* A memory mapping of the target.  */
struct sg_mapping {
	uint64_t start, end;
	bool readable, writable, executable;
	const char *path;	/* "[stack]", a file, or "" */
};

/* The mapping containing ADDRESS.  Returns false if there is none.  */
SG_PUBLIC bool sg_target_mapping_at(struct sg_target *target, uint64_t address,
				    struct sg_mapping *ret);

SG_END_DECLS

#endif
