/* The value printer and the typed readers over random memory: a global of
   a fixture (C, libstdc++ or libc++ containers), printed by gdb's print
   forms, where every byte of the fixture's data, heap and bss is the
   input's.  Input: [fixture and form] [variable] [memory...].  */
#include <config.h>
#include "internal.h"
#include "harness.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixtures[] = { "sg-stl", "sg-libcxx", "sg-data" };
	static const char *const forms[] = {
		"print %s", "print/x %s", "print -pretty -- %s", "print -elements 5 -- %s",
		"print *&%s", "output %s",
	};
	if (size < 2)
		return 0;
	struct shell *sh = fz_target(fixtures[data[0] % 3], data + 2, size - 2, NULL);
	const char *const *g = fz_globals();
	size_t n = 0;
	while (g[n])
		n++;
	if (!n)
		return 0;
	char line[256];
	snprintf(line, sizeof(line), forms[(data[0] / 3) % SG_ARRAY_SIZE(forms)], g[data[1] % n]);
	shell_run_line(sh, line, NULL);
	return 0;
}
