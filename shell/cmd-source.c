/* Source code: list, info source, info line, directory, set substitute-path.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_source_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
