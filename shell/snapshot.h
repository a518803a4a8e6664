/* Stop, copy, resume in the shell (snapshot.c): which commands run from a
   snapshot, the "snapshot" setting, taking one.  */
#ifndef SPYGLASS_SHELL_SNAPSHOT_H
#define SPYGLASS_SHELL_SNAPSHOT_H

#include "shell.h"

/* The "snapshot" setting, and the snapshot checks of the shell's
   commands whose arguments decide (bt, thread apply).  After
   shell_register_commands().  */
struct sg_error *shell_snapshot_register(struct shell *sh);
/* Whether "set snapshot on" is in effect.  */
bool shell_snapshot_setting(struct shell *sh);
/* Take a snapshot of the session's stopped live target, let the process
   run, and say so on OUT (may be NULL).  */
struct sg_error *shell_snapshot_take(struct shell *sh, struct sg_out *out);

#endif
