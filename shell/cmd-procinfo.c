/* info all-registers, info files and info target, info signals.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_procinfo_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
