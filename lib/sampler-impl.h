/* The sampler's parts (sampler.c, sampler-wait.c, sampler-runtime.c).
   Not installed.  */
#ifndef SG_SAMPLER_IMPL_H
#define SG_SAMPLER_IMPL_H

#include "internal.h"

#include <spyglass/sampler.h>

/* Stack bytes copied per thread at first, and at most: the window
   doubles when an unwind reads past it.  */
#define FIRST_WINDOW (16 << 10)
#define MAX_WINDOW (1 << 20)

/* How long a wait for a thread's stop polls before it sleeps.  */
#define SPIN_NS 50000

/* A copy of the top of a thread's stack.  */
struct window {
	uint64_t start;
	size_t len, cap;
	unsigned char *data;
	uint64_t limit;		/* the stack's end: reads above the window up to here miss */
};

/* Pages a runtime walk read, copied at once for the next walk
   (sampler-prefetch.c).  */
#define PREFETCH_PAGES 64
struct prefetch {
	uint64_t *pages;	/* the pages copied for this walk */
	unsigned char *data;	/* their bytes, PAGES[I]'s at I * SG_PAGE_SIZE */
	size_t n, data_pages;
	uint64_t *touched;	/* the pages this walk read, for the next */
	size_t ntouched;
};

/* A runtime frame, its strings owned.  */
struct sg_sampler_rframe {
	char *function, *file;
	int line;
	bool entry;
};

/* The recording's view of thread I of the target (the same index).  */
struct sthread {
	pid_t tid;
	int stat_fd;		/* /proc/PID/task/TID/stat, -1 if not open */
	int pending;		/* a signal to pass on when the thread resumes */
	bool gone;		/* it exited (its status is reaped) */
	bool stopped;		/* in a ptrace-stop, not resumed yet */
	bool listening;		/* group-stopped: resumed with PTRACE_LISTEN */
	bool selected, sampled;
	bool born;		/* new, its first stop (at its birth) not seen yet */
	/* Its stop is the parent's clone event: the stack is clone3's, not
	   what the thread spends its time on.  Not a sample.  */
	bool skip;
	/* A new thread's pc at its birth stop, until it is seen elsewhere:
	   stopped there again, it has not run yet.  Not a sample either.  */
	uint64_t birth_pc;
	char state;		/* the scheduler's letter when the recording ended */
	bool have_regs;
	struct sg_regs regs;
	size_t window;		/* stack bytes to copy */
	struct window win;
	/* The runtime frames read during the stop.  */
	struct sg_sampler_rframe *rf;
	size_t nrf, rf_cap;
	bool runtime_found;	/* the provider knew the thread */
	bool runtime_error;
	struct prefetch pre;
};

struct sampler {
	struct sg_session *s;
	struct sg_target *t;
	const struct sg_sampler_options *o;
	struct sg_profile *profile;
	struct sthread *th;
	size_t nth, th_cap;
	const struct sg_target_ops *live_ops;
	struct sg_target_ops ops;
	const struct window *cur;	/* reads come from it, else live */
	struct prefetch *pre;	/* during a runtime walk: its thread's pages */
	bool wanted_more;
	const struct sg_registry_entry *provider;
	struct sg_profile_frame *pf;	/* a sample's frames */
	size_t npf, pf_cap;
	struct sg_sampler_stats stats;
	uint64_t start_ns;
	struct sg_error *failed;	/* ends the recording */
	bool stopping;		/* the end: every thread is being stopped */
	bool spin;		/* poll for a stop rather than sleep (sg_sampler_threads_init) */
};

/* sampler.c */
struct sg_error *sg_sampler_live_read(struct sampler *sp, uint64_t address, void *buf,
				      size_t size);

/* sampler-wait.c: the threads while the target runs.  */
struct sg_error *sg_sampler_threads_init(struct sampler *sp);
/* Make the target's thread list what the recording saw: exited threads
   dropped, new ones added, numbered.  */
void sg_sampler_threads_fini(struct sampler *sp);
void sg_sampler_resume_all(struct sampler *sp);
/* Stop every thread left, waiting for each stop.  */
void sg_sampler_stop_all(struct sampler *sp);
/* Handle the wait statuses that came in, resuming each stopped thread.  */
void sg_sampler_poll(struct sampler *sp);
/* Wait for thread I, interrupted, to stop; false if it exited.  */
bool sg_sampler_wait_stopped(struct sampler *sp, size_t i);
void sg_sampler_resume(struct sampler *sp, size_t i);
/* The scheduler state letter of thread I, '?' if unknown.  */
char sg_sampler_task_state(struct sampler *sp, size_t i);
bool sg_sampler_read_regs(pid_t tid, struct sg_regs *regs);

/* sampler-runtime.c */
struct sg_error *sg_sampler_find_provider(struct sampler *sp);
/* Thread I's runtime frames, read now, into sp->th[I].rf.  */
void sg_sampler_runtime_frames(struct sampler *sp, size_t i);
bool sg_sampler_is_eval(struct sampler *sp, const char *function);
void sg_sampler_rframes_clear(struct sthread *th);

/* sampler-prefetch.c */
/* Copy the pages TH's last runtime walk read; reads take them from
   the copy until sg_sampler_prefetch_done.  */
void sg_sampler_prefetch(struct sampler *sp, struct sthread *th);
void sg_sampler_prefetch_done(struct sampler *sp);
/* SIZE bytes at ADDRESS, all in one page, from the copy: SIZE, or 0 if
   the copy lacks the page.  The page is noted for the next copy.  */
size_t sg_sampler_prefetched(struct sampler *sp, uint64_t address, void *buf, size_t size);
void sg_sampler_prefetch_fini(struct sthread *th);

#endif
