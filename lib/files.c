/* What gdb's "info files" lists of a module: its ELF file's sections in
   memory and its entry point (sg_module_sections, sg_module_entry).  */
#include <config.h>
#include "internal.h"

#include <gelf.h>

static Elf *module_elf(struct sg_module *mod, uint64_t *bias)
{
	Dwarf_Addr b = 0;
	Elf *elf = dwfl_module_getelf(mod->dwmod, &b);
	*bias = b;
	return elf;
}

struct sg_error *sg_module_sections(struct sg_module *mod, sg_section_fn *fn, void *arg)
{
	uint64_t bias;
	Elf *elf = module_elf(mod, &bias);
	size_t shstrndx;
	if (!elf)
		return sg_error_format(SG_ERROR_NOT_FOUND, "no ELF file for %s", mod->name);
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;	/* no section headers: nothing to list */
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		struct sg_section sec = {
			.start = sh.sh_addr + bias, .end = sh.sh_addr + bias + sh.sh_size,
			.name = name ? name : "",
		};
		if (fn(&sec, arg) != SG_CB_OK)
			break;
	}
	return NULL;
}

bool sg_module_entry(struct sg_module *mod, uint64_t *ret)
{
	uint64_t bias;
	Elf *elf = module_elf(mod, &bias);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh))
		return false;
	*ret = eh.e_entry + bias;
	return true;
}
