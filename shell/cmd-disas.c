/* Machine code: disassemble.  */
#include <config.h>
#include "shell.h"

struct sg_error *shell_register_disas_commands(struct shell *sh)
{
	(void)sh;
	return NULL;
}
