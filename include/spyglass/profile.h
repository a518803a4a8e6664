/* A sampling profile: samples collected, then written as folded stacks
   (flamegraph.pl, inferno), speedscope JSON or gzipped pprof.

   Memory stays bounded for long recordings: strings, frames and stacks
   are interned, and each thread keeps a run-length list of (stack,
   weight, first time), never a per-sample frame array.  doc/profiler.md
   describes the formats.  */
#ifndef SPYGLASS_PROFILE_H
#define SPYGLASS_PROFILE_H

#include <spyglass/common.h>
#include <sys/types.h>

SG_BEGIN_DECLS

struct sg_profile;	/* opaque */

enum sg_profile_format { SG_PROFILE_FOLDED, SG_PROFILE_SPEEDSCOPE, SG_PROFILE_PPROF };
enum sg_profile_frame_kind { SG_PROFILE_NATIVE, SG_PROFILE_PYTHON, SG_PROFILE_ZEEK };

struct sg_profile_frame {
	const char *function;	/* NULL: unknown */
	const char *file;	/* NULL: unknown */
	int line;		/* 0: unknown */
	const char *module;	/* the ELF file's path for native frames, else NULL */
	uint64_t address;	/* the pc of a native frame, else 0 */
	enum sg_profile_frame_kind kind;
	/* Where MODULE is loaded (its bias); 0 if unknown.  A native frame
	   without a function is named "BASENAME+0x(ADDRESS - MODULE_START)".  */
	uint64_t module_start;
};

SG_PUBLIC struct sg_error *sg_profile_create(struct sg_profile **ret) SG_NONNULL(1);
SG_PUBLIC void sg_profile_destroy(struct sg_profile *p);
/* The sampling interval, for pprof's period; 0 if unknown.  */
SG_PUBLIC void sg_profile_set_period(struct sg_profile *p, uint64_t period_ns) SG_NONNULL(1);
/* One sample of thread TID (NAME may be NULL) at TIME_NS (CLOCK_MONOTONIC):
   FRAMES[0] is the innermost frame, N is at least 1.  Strings are copied
   (interned), invalid UTF-8 bytes made U+FFFD.  On error the sample is not
   counted (strings, frames or a stack may stay interned, unused).  */
SG_PUBLIC struct sg_error *sg_profile_add(struct sg_profile *p, pid_t tid, const char *name,
					  uint64_t time_ns, const struct sg_profile_frame *frames,
					  size_t n) SG_NONNULL(1);
/* How many samples were added.  */
SG_PUBLIC size_t sg_profile_samples(const struct sg_profile *p) SG_NONNULL(1);
/* "folded", "speedscope" or "pprof".  */
SG_PUBLIC struct sg_error *sg_profile_format_parse(const char *name, enum sg_profile_format *ret)
	SG_NONNULL(2);
/* Write P to FD in FORMAT.  FD is not closed.  */
SG_PUBLIC struct sg_error *sg_profile_write(const struct sg_profile *p, enum sg_profile_format format,
					    int fd) SG_NONNULL(1);

SG_END_DECLS

#endif
