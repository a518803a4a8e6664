/* info all-registers, info files, info signals: the parts other shell
   files may call.  */
#ifndef SHELL_PROCINFO_H
#define SHELL_PROCINFO_H

#include "shell.h"

/* info all-registers (cmd-regs.c).  */
struct sg_error *shell_register_regs_commands(struct shell *sh);
/* info signals, info handle (cmd-signals.c).  */
struct sg_error *shell_register_signal_commands(struct shell *sh);
/* info files, info target (cmd-files.c).  */
struct sg_error *shell_register_files_commands(struct shell *sh);

/* Print the register NAME of the selected thread as "info registers NAME"
   does in gdb, for the registers sg_reg_lookup() does not know: st0-7,
   fctrl..fop, mxcsr, xmm/ymm/zmm, k0-7, pkru (those the thread has).
   &sg_not_found when NAME is none of them, for the caller's "Invalid
   register" error.  For "info registers" (cmd-stack.c).  */
struct sg_error *shell_print_vector_register(struct sg_session *s, const char *name,
					     struct sg_out *out);

#endif
