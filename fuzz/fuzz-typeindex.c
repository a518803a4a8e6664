/* The name index's own DIE decoder (typeindex.c) over mutated DWARF.
   Input: the lengths of .debug_abbrev and .debug_str as two little-endian
   16-bit words, those sections, then .debug_info.  They go into an ELF
   image built here, which libdw opens; the index then scans every unit
   and looks names up.  */
#include <config.h>
#include "internal.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char shstrtab[] = "\0.debug_info\0.debug_abbrev\0.debug_str\0.shstrtab";
enum { SEC_NULL, SEC_INFO, SEC_ABBREV, SEC_STR, SEC_SHSTRTAB, NSEC };
static const unsigned name_off[NSEC] = { 0, 1, 13, 27, 38 };

/* An ELF64 relocatable file holding the sections.  */
static char *build_elf(const uint8_t *sec[NSEC], const size_t len[NSEC], size_t *size_ret)
{
	size_t off = sizeof(Elf64_Ehdr), offs[NSEC] = { 0 };
	for (int i = 1; i < NSEC; i++) {
		offs[i] = off;
		off += len[i];
	}
	off = (off + 7) & ~(size_t)7;
	size_t size = off + NSEC * sizeof(Elf64_Shdr);
	char *img = calloc(1, size);
	if (!img)
		return NULL;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = off;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSEC;
	eh->e_shstrndx = SEC_SHSTRTAB;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + off);
	for (int i = 1; i < NSEC; i++) {
		memcpy(img + offs[i], sec[i], len[i]);
		sh[i].sh_name = name_off[i];
		sh[i].sh_type = SHT_PROGBITS;
		sh[i].sh_offset = offs[i];
		sh[i].sh_size = len[i];
		sh[i].sh_addralign = 1;
	}
	sh[SEC_SHSTRTAB].sh_type = SHT_STRTAB;
	*size_ret = size;
	return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t alen = data[0] | data[1] << 8, slen = data[2] | data[3] << 8;
	if (4 + alen + slen > size)
		return 0;
	const uint8_t *sec[NSEC] = { NULL, data + 4 + alen + slen, data + 4, data + 4 + alen,
				     (const uint8_t *)shstrtab };
	const size_t len[NSEC] = { 0, size - 4 - alen - slen, alen, slen, sizeof(shstrtab) };
	size_t img_size;
	char *img = build_elf(sec, len, &img_size);
	if (!img)
		return 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(img, img_size);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	struct sg_name_index *idx = NULL;
	if (dw && !sg_name_index_create(dw, 0, &idx)) {
		static const char *const names[] = { "main", "g_s", "S", "int", "ns", "x" };
		for (size_t i = 0; i < SG_ARRAY_SIZE(names); i++) {
			uint32_t cursor = 0;
			struct sg_name_entry e;
			while (sg_name_index_next(idx, names[i], &cursor, &e)) {
				sg_name_index_scope(idx, e.scope);
				sg_name_index_definition(idx, e.off);
			}
		}
		sg_name_index_scan_all(idx);
		struct sg_name_index_stats st;
		sg_name_index_stats(idx, &st);
		sg_name_index_destroy(idx);
	}
	if (dw)
		dwarf_end(dw);
	elf_end(elf);
	free(img);
	return 0;
}
