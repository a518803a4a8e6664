/* The plugin loader's ELF check and ABI note reader, over any file: the
   input is the would-be plugin.  */
#include <config.h>
#include "internal.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libelf may write to the image it reads (conversions in place).  */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(copy, size);
	if (elf) {
		uint32_t major = 0, minor = 0;
		sg_error_destroy(sg_plugin_read_note(elf, "input", &major, &minor));
		elf_end(elf);
	}
	free(copy);
	return 0;
}
