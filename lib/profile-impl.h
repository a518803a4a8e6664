/* The sampling profile's representation, shared by its collector
   (profile.c) and its writers (profile-write.c, profile-pprof.c).  */
#ifndef SG_PROFILE_IMPL_H
#define SG_PROFILE_IMPL_H

#include "internal.h"
#include <spyglass/profile.h>

/* String ids index sg_profile.strings; 0 is "none" (a NULL string).
   Strings are kept as valid UTF-8, which JSON and protobuf want: an
   invalid byte becomes U+FFFD.  */
struct sg_pframe {
	uint32_t function, file, module;
	int line;
	uint64_t address, module_start;
	enum sg_profile_frame_kind kind;
};

struct sg_pstack {
	size_t off;		/* in sg_profile.stack_frames, innermost first */
	uint32_t n;
};

/* Consecutive samples of one thread with the same stack.  */
struct sg_prun {
	uint64_t time_ns;	/* the first sample's */
	uint32_t stack, weight;
};

struct sg_pthread {
	pid_t tid;
	uint32_t name;		/* string id, the last non-NULL name given */
	uint64_t first_ns, last_ns;
	struct sg_prun *runs;
	size_t nruns, runs_cap;
};

/* Interned strings, by id: owned copies, and an index by text.  The
   profile's and the pprof writer's string tables.  */
struct sg_strpool {
	char **strings;
	size_t n, cap;
	struct sg_strmap ids;	/* keys are STRINGS' copies */
};
/* The id of S, a copy added if it is new; false when memory (or ids) run
   out.  */
bool sg_strpool_intern(struct sg_strpool *sp, const char *s, uint32_t *ret);
void sg_strpool_deinit(struct sg_strpool *sp);

struct sg_profile {
	struct sg_strpool strs;	/* [0] is NULL, outside the index */

	struct sg_pframe *frames;
	size_t nframes, frames_cap;
	struct sg_table frame_ids;

	uint32_t *stack_frames;
	size_t nstack_frames, stack_frames_cap;
	struct sg_pstack *stacks;
	size_t nstacks, stacks_cap;
	struct sg_table stack_ids;

	struct sg_pthread *threads;	/* in order of first sample */
	size_t nthreads, threads_cap;
	struct sg_table thread_ids;

	uint32_t *scratch;	/* sg_profile_add's frame ids */
	size_t scratch_cap;
	struct sg_buf fixed;	/* a string made valid UTF-8 */

	size_t nsamples;
	uint64_t period_ns;
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
};

static inline const char *sg_pstr(const struct sg_profile *p, uint32_t id)
{
	return p->strs.strings[id];
}

static inline const uint32_t *sg_pstack_frames(const struct sg_profile *p, uint32_t stack)
{
	return p->stack_frames + p->stacks[stack].off;
}

/* How much was interned, for the tests.  */
struct sg_profile_stats {
	size_t strings, frames, stacks, stack_frames, threads, runs;
};
void sg_profile_stats(const struct sg_profile *p, struct sg_profile_stats *ret);

/* The display name of frame F (see doc/profiler.md) into B, whose
   contents are replaced.  */
void sg_profile_frame_name(const struct sg_profile *p, const struct sg_pframe *f,
			   struct sg_buf *b);
/* A native frame's name when its function is unknown: "BASENAME+0xOFF"
   or "??".  */
void sg_profile_address_name(const struct sg_profile *p, const struct sg_pframe *f,
			     struct sg_buf *b);
/* Thread T's name: "NAME (TID)", or "TID" without a name.  */
void sg_profile_thread_name(const struct sg_profile *p, const struct sg_pthread *t,
			    struct sg_buf *b);

/* Write all LEN bytes at DATA to FD.  */
struct sg_error *sg_profile_write_all(int fd, const void *data, size_t len);

struct sg_error *sg_profile_write_folded(const struct sg_profile *p, int fd);
struct sg_error *sg_profile_write_speedscope(const struct sg_profile *p, int fd);
struct sg_error *sg_profile_write_pprof(const struct sg_profile *p, int fd);

#endif
