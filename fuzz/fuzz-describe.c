/* gdb's words for a location (lib/dwarf-describe.c) over random DWARF
   expressions, described in a real unit: the fixture scope-gcc-O2's
   (GCC, a CFA frame base, DWARF 5) when the first byte is even,
   scope-clang-O2's (a register frame base, .debug_addr indices) when it
   is odd.  The rest of the input is the expression, described at main's
   entry, so that DW_OP_fbreg finds a function's frame base and typed ops
   find the unit's types.  */
#include <config.h>
#include "internal.h"
#include "dwarf-describe.h"

#include <dwarf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct unit {
	bool tried, ok;
	Dwarf *dw;
	Dwarf_Die cu;
	Dwarf_Addr main_pc;
};

/* The unit that defines main in the fixture NAME, opened once.  */
static struct unit *unit_of(struct unit *u, const char *name)
{
	if (u->tried)
		return u->ok ? u : NULL;
	u->tried = true;
	int fd = open(name, O_RDONLY);
	if (fd < 0 || !(u->dw = dwarf_begin(fd, DWARF_C_READ)))
		return NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(u->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0)
			do {
				const char *n = dwarf_diename(&child);
				if (dwarf_tag(&child) == DW_TAG_subprogram && n && !strcmp(n, "main") &&
				    dwarf_lowpc(&child, &u->main_pc) == 0) {
					u->cu = cu;
					u->ok = true;
					return u;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		off = next;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct unit units[2];
	static const char *const names[2] = { FUZZ_FIXTURES "/scope-gcc-O2",
					      FUZZ_FIXTURES "/scope-clang-O2" };
	if (size < 1)
		return 0;
	int which = data[0] & 1;
	struct unit *u = unit_of(&units[which], names[which]);
	if (!u)
		u = unit_of(&units[0], names[0]);
	if (!u)
		return 0;
	struct sg_describe d;
	sg_describe_init(&d, &u->cu, 0x1000, "fixture");
	d.name = "x";
	sg_error_destroy(sg_describe_expr(&d, data + 1, size - 1, u->main_pc));
	sg_describe_fini(&d);
	return 0;
}
