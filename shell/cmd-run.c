/* Run control: continue, kill, and Ctrl-C.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_run_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
