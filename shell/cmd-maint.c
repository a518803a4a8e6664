/* "maintenance" commands that report on spyglass itself.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_maint_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
