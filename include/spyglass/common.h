/* Common definitions shared by every spyglass header.  */
#ifndef SPYGLASS_COMMON_H
#define SPYGLASS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define SG_BEGIN_DECLS extern "C" {
#define SG_END_DECLS }
#else
#define SG_BEGIN_DECLS
#define SG_END_DECLS
#endif

/* libspyglass is built with -fvisibility=hidden; only SG_PUBLIC symbols are
   part of the ABI.  */
#define SG_PUBLIC __attribute__((visibility("default")))

#define SG_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define SG_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#define SG_RETURNS_NONNULL __attribute__((returns_nonnull))
#define SG_WARN_UNUSED __attribute__((warn_unused_result))
/* For callback parameters a handler does not need.  */
#define SG_UNUSED __attribute__((unused))

/* Callback return values, as in libdwfl: continue or stop the walk.  */
enum {
	SG_CB_OK = 0,
	SG_CB_ABORT = 1,
};

/* Append a zeroed element to the growable array *ARRAY_P of *N elements
   of SIZE bytes and capacity *CAP (all zero at first), doubling it when
   full.  Returns the new element, or NULL on allocation failure (the
   array is unchanged then).  */
SG_PUBLIC void *sg_array_push(void *array_p, size_t *n, size_t *cap, size_t size);

/* The monotonic clock, in nanoseconds: for timing.  */
SG_PUBLIC uint64_t sg_now_ns(void);

struct sg_session;
struct sg_target;
struct sg_out;
struct sg_error;

#endif
