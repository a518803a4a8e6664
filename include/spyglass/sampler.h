/* ABI 1.6.  The sampling profiler: "record" on a live process.

   The session's target is attached the normal way (modules, caches and
   unwinders stay warm from sample to sample), then every thread is
   resumed while it stays seized.  Each tick stops only the threads it
   samples (PTRACE_INTERRUPT), reads their registers, copies the top of
   their stacks and, for runtime stacks, walks the stack provider while
   the thread is stopped; then it resumes them at once and unwinds the
   native stacks from the copies.  Signals that reach the process while
   it is recorded are passed on, group stops are kept (PTRACE_LISTEN),
   new threads are sampled too.  At the end every thread is stopped
   again, so that the session goes on as after an attach; a process that
   exited during the recording is a target that is gone, as after any
   exit.  doc/profiler.md describes the command built on this.  */
#ifndef SPYGLASS_SAMPLER_H
#define SPYGLASS_SAMPLER_H

#include <spyglass/common.h>
#include <spyglass/profile.h>
#include <signal.h>
#include <sys/types.h>

SG_BEGIN_DECLS

enum sg_sample_stack {
	SG_SAMPLE_NATIVE,	/* the native stack, as bt prints it */
	SG_SAMPLE_RUNTIME,	/* the stack provider's frames only */
	SG_SAMPLE_MIXED,	/* native frames, the interpreter loop's replaced */
};

/* What the counters say; the progress callback gets them as they stand.  */
struct sg_sampler_stats {
	uint64_t ticks;		/* sampling times reached */
	uint64_t missed;	/* sampling times skipped because a tick was late */
	uint64_t samples;	/* stacks added to the profile (a tick samples each thread) */
	uint64_t errors;	/* stacks that could not be read (a provider's error) */
	uint64_t elapsed_ns;	/* since the first tick */
	uint64_t stopped_ns;	/* the target had sampled threads stopped */
	unsigned threads;	/* known threads, new ones included */
	bool exited;		/* the process exited */
	int exit_status;	/* its wait status, if it did */
};

struct sg_sampler_options {
	unsigned rate_hz;		/* 0: 100 */
	uint64_t duration_ns;		/* 0: until STOP or the exit */
	enum sg_sample_stack stack;
	/* The stack provider (registry.h) of SG_SAMPLE_RUNTIME and MIXED:
	   "cpython", "zeek".  Its frames get KIND in the profile.  */
	const char *provider;
	enum sg_profile_frame_kind kind;
	/* Sample threads that are not running (state other than R) too.  */
	bool idle;
	/* Never stop the process: only SG_SAMPLE_RUNTIME, whose walk reads
	   the memory of the running process (as py-spy and austin can);
	   a walk that meets a changing stack is counted in errors.  */
	bool nonblocking;
	/* The threads to sample, by kernel thread ID (NTIDS 0: all).  The
	   process ID stands for the main thread.  */
	const pid_t *tids;
	size_t ntids;
	/* Ends the recording when it becomes non-zero: a SIGINT handler's
	   flag.  Signals interrupt the sleep between ticks.  May be NULL.  */
	volatile sig_atomic_t *stop;
	/* Called about 4 times a second (a status line); may be NULL.  */
	void (*progress)(const struct sg_sampler_stats *stats, void *arg);
	void *progress_arg;
};

/* Record the session's live, attached target into PROFILE (whose period
   is set) until the duration is reached, *O->STOP is set or the process
   exits, keeping every sample taken.  *STATS (may be NULL) gets the
   final counters, also on error.  Errors: no live target, a bad option,
   an unknown provider; a ptrace failure while recording ends it with the
   samples kept and the error returned.  */
SG_PUBLIC struct sg_error *sg_session_record(struct sg_session *session,
					     const struct sg_sampler_options *o,
					     struct sg_profile *profile, struct sg_sampler_stats *stats)
	SG_NONNULL(1, 2, 3);

/* Merging a native stack with a runtime's frames (bt --python, record
   --stack mixed).  Walking from the innermost native frame, each frame
   that EVAL marks (the provider's is_eval) runs the runtime frames up to
   and including the next one that ENTRY marks.  When the counts differ,
   merging would put frames in the wrong places; but a native walk that
   ended early (NATIVE_CUT: it has a stop reason) merges what it reached,
   and the runtime frames it did not reach follow.  */
struct sg_merge_item {
	bool runtime;		/* INDEX is a runtime frame's, else a native frame's */
	size_t index;
};
/* Fill ORDER (room for NNATIVE + NRUNTIME items) with the merged stack,
   innermost first, and *N.  Returns false when the stacks do not merge:
   ORDER then holds the runtime frames alone.  *CUT_AT gets the position
   in ORDER where the frames the native walk did not reach begin, or
   *N.  */
SG_PUBLIC bool sg_merge_order(const bool *eval, size_t nnative, const bool *entry, size_t nruntime,
			      bool native_cut, struct sg_merge_item *order, size_t *n,
			      size_t *cut_at);

SG_END_DECLS

#endif
