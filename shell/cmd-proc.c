/* The process and the program: info proc, info auxv, info files, info inferiors, info signals.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_proc_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
