/* spyglass's command line (shell/options.c): the input is its arguments,
   separated by NUL bytes.  */
#include <config.h>
#include "shell.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "we")))
		abort();
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	char *argv[MAX_ARGS + 2] = { "spyglass" };
	int argc = 1;
	for (char *p = copy; p <= copy + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	struct options o;
	shell_parse_options(argc, argv, &o, null, null);
	shell_options_free(&o);
	free(copy);
	return 0;
}
