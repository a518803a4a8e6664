/* The expression parser and evaluator: the input's first line is an
   expression, printed and typed against the C fixture sg-data; the rest
   of the input is the fixture's memory.  */
#include <config.h>
#include "internal.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t elen = nl ? (size_t)(nl - data) : size;
	if (memchr(data, '\0', elen))
		return 0;
	const uint8_t *mem = nl ? nl + 1 : data + size;
	struct shell *sh = fz_target("sg-data", mem, data + size - mem, NULL);
	static const char *const cmds[] = { "print ", "whatis ", "ptype ", "x/2x " };
	for (size_t i = 0; i < SG_ARRAY_SIZE(cmds); i++) {
		size_t clen = strlen(cmds[i]);
		char *line = malloc(clen + elen + 1);
		if (!line)
			return 0;
		memcpy(line, cmds[i], clen);
		memcpy(line + clen, data, elen);
		line[clen + elen] = '\0';
		shell_run_line(sh, line, NULL);
		free(line);
	}
	return 0;
}
