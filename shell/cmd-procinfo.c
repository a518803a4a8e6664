/* info all-registers, info files and info target, info signals: each in
   its own file (cmd-regs.c, cmd-files.c, cmd-signals.c).  */
#include <config.h>
#include "procinfo.h"

struct sg_error *shell_register_procinfo_commands(struct shell *sh)
{
	struct sg_error *err = shell_register_regs_commands(sh);
	if (!err)
		err = shell_register_signal_commands(sh);
	if (!err)
		err = shell_register_files_commands(sh);
	return err;
}
