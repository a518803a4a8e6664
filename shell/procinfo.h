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

/* gdb's "info files" of the session's target, which must be set: for
   "info target", gdb's other name for it (cmd-target.c has its own
   row for that name today).  */
struct sg_error *shell_info_files(struct sg_session *s, struct sg_out *out);

/* Print general register R of REGS (a frame's) as gdb's "info registers"
   line, under NAME: the value at column 15, its natural form (decimal,
   an address, the flags) at 35, or "<not saved>"; in JSON, NAME: "0x...".
   For "info registers" too, whose columns are gdb's with it (cmd-stack.c
   puts the natural form at 34).  */
void shell_print_register(struct sg_target *t, const struct sg_regs *regs, enum sg_reg r,
			  const char *name, struct sg_out *out);

/* Print the register NAME of the selected thread as "info registers NAME"
   does in gdb, for the registers sg_reg_lookup() does not know: st0-7,
   fctrl..fop, mxcsr, xmm/ymm/zmm, k0-7, pkru (those the thread has).
   &sg_not_found when NAME is none of them, for the caller's "Invalid
   register" error.  For "info registers" (cmd-stack.c).  */
struct sg_error *shell_print_vector_register(struct sg_session *s, const char *name,
					     struct sg_out *out);

#endif
