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

/* The list is capped: a cycle in hostile memory ends there.  */
#define MAX_LINK_MAPS 4096

size_t sg_target_link_map_modules(struct sg_target *t, struct sg_module **ret, size_t max)
{
	/* r_debug is the dynamic linker's _r_debug: r_version, then r_map.
	   Each struct link_map starts l_addr, l_name, l_ld, l_next; the
	   module is the one holding l_ld, its dynamic section.  */
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, "_r_debug", &sym);
	uint64_t map = 0;
	if (!err)
		err = sg_target_read_u64(t, sym.address + 8, &map);
	if (err) {
		sg_error_destroy(err);
		return 0;
	}
	size_t n = 0;
	for (size_t k = 0; map && k < MAX_LINK_MAPS && n < max; k++) {
		uint64_t lm[4];
		err = sg_target_read(t, map, lm, sizeof(lm));
		if (err) {
			sg_error_destroy(err);
			break;
		}
		struct sg_module *mod = lm[2] ? sg_target_module_at(t, lm[2]) : NULL;
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = ret[i] == mod;
		if (mod && !seen && mod->name[0] == '/' && mod != sg_target_exe_module(t))
			ret[n++] = mod;
		map = lm[3];
	}
	return n;
}
