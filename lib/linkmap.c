/* Module names from the dynamic linker's link_map, as gdb shows them.

   /proc/PID/maps names the files as the kernel resolved them
   (/usr/lib/x86_64-linux-gnu/libc.so.6); the dynamic linker and gdb name
   them as they were found (/lib/x86_64-linux-gnu/libc.so.6).  We follow
   DT_DEBUG in the executable's dynamic section to r_debug and walk
   r_map.  Target memory is hostile: every read is checked and the walk is
   capped.  */
#include <config.h>
#include "internal.h"

#include <elf.h>
#include <gelf.h>

#define MAX_LINK_MAPS 4096
#define MAX_DYNAMIC 1024

/* struct link_map's first fields: l_addr, l_name, l_ld, l_next.  */
struct lm {
	uint64_t addr, name, ld, next;
};

/* Whether SIZE bytes at ADDRESS were read into BUF; the error, if any,
   is dropped: a failed read ends the walk, which keeps the maps names.  */
static bool read_ok(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	struct sg_error *err = sg_target_read(t, address, buf, size);
	sg_error_destroy(err);
	return !err;
}

/* The runtime address of r_debug, or 0.  */
static uint64_t find_r_debug(struct sg_target *t, struct sg_module *exe)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(exe->dwmod, &bias);
	size_t phnum;
	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_DYNAMIC)
			continue;
		uint64_t dyn = ph.p_vaddr + bias;
		for (size_t k = 0; k < MAX_DYNAMIC; k++) {
			uint64_t d[2];
			if (!read_ok(t, dyn + 16 * k, d, sizeof(d)))
				return 0;
			if (d[0] == DT_NULL)
				return 0;
			if (d[0] == DT_DEBUG)
				return d[1];
		}
	}
	return 0;
}

void sg_target_link_map_names(struct sg_target *t)
{
	struct sg_module *exe = sg_target_exe_module(t);
	uint64_t r_debug = exe ? find_r_debug(t, exe) : 0;
	uint64_t map;
	if (!r_debug || !read_ok(t, r_debug + 8, &map, sizeof(map)))
		return;	/* static, or not yet relocated: keep the maps names */
	for (size_t n = 0; map && n < MAX_LINK_MAPS; n++) {
		struct lm lm;
		if (!read_ok(t, map, &lm, sizeof(lm)))
			return;
		char *name = NULL;
		struct sg_error *err = lm.name ? sg_target_read_string(t, lm.name, 4096, &name, NULL)
					       : &sg_not_found;
		sg_error_destroy(err);
		if (!err && name[0] == '/') {
			/* The module whose dynamic section is l_ld.  */
			for (size_t i = 0; i < t->nmodules; i++) {
				struct sg_module *m = t->modules[i];
				if (m != exe && lm.ld >= m->start && lm.ld < m->end &&
				    strcmp(m->name, name)) {
					free(m->link_name);
					m->link_name = name;
					m->name = name;
					name = NULL;
					break;
				}
			}
		}
		free(name);
		map = lm.next;
	}
}

uint64_t sg_link_map_of(struct sg_target *t, struct sg_module *mod)
{
	struct sg_module *exe = sg_target_exe_module(t);
	uint64_t r_debug = exe ? find_r_debug(t, exe) : 0;
	uint64_t map;
	if (!r_debug || !read_ok(t, r_debug + 8, &map, sizeof(map)))
		return 0;
	for (size_t n = 0; map && n < MAX_LINK_MAPS; n++) {
		struct lm lm;
		if (!read_ok(t, map, &lm, sizeof(lm)))
			return 0;
		/* The executable is the first node; a library's dynamic
		   section is in its module.  */
		if (mod == exe ? n == 0 : (lm.ld >= mod->start && lm.ld < mod->end))
			return map;
		map = lm.next;
	}
	return 0;
}
