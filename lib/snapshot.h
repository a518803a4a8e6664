/* The stack providers' part of a snapshot (snapshot.c, registry.c).  */
#ifndef SPYGLASS_LIB_SNAPSHOT_H
#define SPYGLASS_LIB_SNAPSHOT_H

#include "internal.h"

/* The key of the target data that names the session whose stack
   providers prepared the target: a snapshot of the target asks them
   what to keep.  */
extern const char sg_snapshot_session_key;

/* Let every stack provider of S read, while TARGET is stopped, what it
   will need from a snapshot of it (its snapshot_prepare, or a walk of
   every thread's frames).  */
void sg_registry_snapshot_prepare(struct sg_session *s, struct sg_target *target);

#endif
