/* gdb's habits: the settings scripts start with, apropos, show version, pwd.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_compat_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
