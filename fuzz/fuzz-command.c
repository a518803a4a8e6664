/* The command parser and every built-in command's argument parsing: each
   line of the input is a command, run against the C fixture sg-data whose
   memory is the input itself.  The commands that reach outside the
   process (shell, source, plugin load, attach) are taken away.  */
#include <config.h>
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LINES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shell *sh = fz_target("sg-data", data, size, NULL);
	const uint8_t *p = data, *end = data + size;
	for (int i = 0; i < MAX_LINES && p < end; i++) {
		const uint8_t *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = strndup((const char *)p, len);
		if (!line)
			return 0;
		shell_run_line(sh, line, NULL);
		free(line);
		if (sh->quit)
			break;
		p += len + 1;
	}
	return 0;
}
