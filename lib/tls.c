/* Thread-local storage: where a module's thread-local variable lives in
   a thread, found as glibc's dynamic linker lays it out on x86-64, with
   no libthread_db.  The thread pointer is fs_base; at tp+8 is the
   thread's DTV, whose entry MODID (16 bytes each, entry -1 its size)
   holds the address of the module's block.  The executable's module ID
   is 1; a library's is its link_map's l_tls_modid, whose offset in the
   dynamic linker's private struct link_map comes from the linker's own
   DWARF (libc6-dbg).  Without it a library's variable is an error, not
   a guess.  */
#include <config.h>
#include "internal.h"
#include "eval.h"

#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>
#include <string.h>

#define MAX_DTV 65536	/* more modules than any process loads */

/* Whether MOD's ELF file has a TLS segment.  */
static bool has_tls(struct sg_module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod->dwmod, &bias);
	size_t n;
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_TLS)
			return true;
	}
	return false;
}

/* The offset of l_tls_modid in the struct link_map of LINKER's DWARF:
   the full definition, which has that member.  */
static bool modid_offset(struct sg_module *linker, uint64_t *ret)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(linker->dwmod, cu, &bias))) {
		Dwarf_Die die;
		if (dwarf_child(cu, &die) != 0)
			continue;
		do {
			const char *name = dwarf_diename(&die);
			Dwarf_Die m;
			if (dwarf_tag(&die) != DW_TAG_structure_type || !name ||
			    strcmp(name, "link_map") || dwarf_child(&die, &m) != 0)
				continue;
			do {
				const char *mn = dwarf_diename(&m);
				Dwarf_Attribute a;
				Dwarf_Word off;
				if (dwarf_tag(&m) == DW_TAG_member && mn && !strcmp(mn, "l_tls_modid") &&
				    dwarf_attr(&m, DW_AT_data_member_location, &a) &&
				    dwarf_formudata(&a, &off) == 0) {
					*ret = off;
					return true;
				}
			} while (dwarf_siblingof(&m, &m) == 0);
		} while (dwarf_siblingof(&die, &die) == 0);
	}
	return false;
}

/* The dynamic linker's module: the one whose name has "ld-linux".  */
static struct sg_module *linker_of(struct sg_target *t)
{
	for (size_t i = 0; i < t->nmodules; i++) {
		const char *base = strrchr(t->modules[i]->name, '/');
		if (strstr(base ? base : t->modules[i]->name, "ld-linux"))
			return t->modules[i];
	}
	return NULL;
}

static struct sg_error *module_id(struct sg_target *t, struct sg_module *mod, uint64_t *ret)
{
	if (!has_tls(mod))
		return sg_error_format(SG_ERROR_LOOKUP, "%s has no thread-local storage", mod->name);
	if (mod == sg_target_exe_module(t)) {
		*ret = 1;
		return NULL;
	}
	struct sg_module *linker = linker_of(t);
	uint64_t off, node = sg_link_map_of(t, mod);
	if (!linker || !node || !modid_offset(linker, &off))
		return sg_error_format(SG_ERROR_LOOKUP,
				       "the thread-local storage of %s needs its module ID, from the "
				       "dynamic linker's DWARF (libc6-dbg)", mod->name);
	return sg_target_read(t, node + off, ret, sizeof(*ret));
}

struct sg_error *sg_tls_address(struct sg_target *t, const struct sg_thread *th,
				struct sg_module *mod, uint64_t offset, uint64_t *ret)
{
	if (!th)
		return sg_error_create(SG_ERROR_TARGET,
				       "a thread-local variable's address depends on the thread: no thread");
	const struct sg_regs *regs = sg_thread_regs(th);
	if (!sg_regs_has(regs, SG_REG_FS_BASE) || !regs->r[SG_REG_FS_BASE])
		return sg_error_create(SG_ERROR_TARGET,
				       "Cannot find thread-local storage: the thread's fs_base is not known");
	uint64_t modid, dtv, size, block;
	struct sg_error *err = module_id(t, mod, &modid);
	if (err)
		return err;
	if ((err = sg_target_read(t, regs->r[SG_REG_FS_BASE] + 8, &dtv, sizeof(dtv))) ||
	    (err = sg_target_read(t, dtv - 16, &size, sizeof(size))))
		return err;
	if (!modid || modid > size || size > MAX_DTV)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "Cannot find thread-local storage: module ID %" PRIu64
				       " is not in the thread's DTV (%" PRIu64 " entries)", modid, size);
	if ((err = sg_target_read(t, dtv + 16 * modid, &block, sizeof(block))))
		return err;
	if (!block || block == ~(uint64_t)0)
		return sg_error_format(SG_ERROR_TARGET,
				       "Cannot access thread-local storage of %s: not allocated in "
				       "this thread yet", mod->name);
	*ret = block + offset;
	return NULL;
}
