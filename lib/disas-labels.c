/* The labels of addresses in disassembly and x/i, as gdb writes them
   (" <main+4>", " <puts@plt>"), from the symbol tables and DWARF, and the
   extent of a function to disassemble (disas.h).  The shell's
   disassembler (shell/disas-insn.c) decodes; this names.  */
#include <config.h>
#include "disas.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- labels ---- */

/* Whether the section of MOD at runtime address ADDR is one of the PLT's
   (".plt", ".plt.sec", ".plt.got"); its file into *ELF_RET with its bias,
   its runtime start into *START, the size of its entries into
   *ENTSIZE.  */
static bool plt_section(Dwfl_Module *mod, uint64_t addr, Elf **elf_ret, GElf_Addr *bias_ret,
			uint64_t *start, uint64_t *entsize)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr + bias || addr - (sh.sh_addr + bias) >= sh.sh_size)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".plt", 4) != 0 || (name[4] && name[4] != '.'))
			return false;
		*elf_ret = elf;
		*bias_ret = bias;
		*start = sh.sh_addr + bias;
		/* 16 bytes an entry, 8 in .plt.got.  */
		*entsize = sh.sh_entsize >= 8 && sh.sh_entsize <= 16 ? sh.sh_entsize : 16;
		return true;
	}
	return false;
}

/* The name of the symbol whose GOT slot (ELF address GOT) a PLT entry
   jumps through, from the JUMP_SLOT and GLOB_DAT relocations of ELF, into
   BUF; an IRELATIVE one (libc's ifuncs) has no symbol, and BFD names it
   "*ABS*+0xADDEND", as gdb shows it.  */
static bool got_slot_name(Elf *elf, GElf_Addr got, char *buf, size_t size)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		GElf_Shdr symsh;
		Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!data || !syms || !gelf_getshdr(symscn, &symsh))
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			if (!gelf_getrela(data, (int)i, &r) || r.r_offset != got)
				continue;
			unsigned type = GELF_R_TYPE(r.r_info);
			if (type == R_X86_64_IRELATIVE) {
				snprintf(buf, size, "*ABS*+0x%" PRIx64, (uint64_t)r.r_addend);
				return true;
			}
			GElf_Sym sym;
			const char *name;
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
				return false;
			snprintf(buf, size, "%.*s", (int)strcspn(name, "@"), name);
			return true;
		}
	}
	return false;
}

/* " <puts@plt+4>" for ADDR in a PLT, as gdb names the entries (the
   synthetic symbols BFD makes): the entry around ADDR (16 bytes, 8 in
   .plt.got) holds a "jmp *GOT(%rip)", whose GOT slot a relocation
   names.  */
static bool plt_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	struct sg_module *m = sg_target_module_at(t, addr);
	Dwfl_Module *mod = m ? sg_module_dwfl(m) : NULL;
	Elf *elf;
	GElf_Addr bias;
	uint64_t start, entsize;
	if (!mod || !plt_section(mod, addr, &elf, &bias, &start, &entsize))
		return false;
	uint64_t entry = start + (addr - start) / entsize * entsize;
	unsigned char code[16];
	struct sg_error *err = sg_target_read(t, entry, code, entsize);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	for (int i = 0; i + 6 <= (int)entsize; i++) {
		if (code[i] != 0xff || code[i + 1] != 0x25)
			continue;
		int32_t disp;
		memcpy(&disp, code + i + 2, 4);
		char name[256];
		if (!got_slot_name(elf, entry + i + 6 + (int64_t)disp - bias, name, sizeof(name)))
			return false;
		if (addr > entry)
			snprintf(buf, size, " <%s@plt+%" PRIu64 ">", name, addr - entry);
		else
			snprintf(buf, size, " <%s@plt>", name);
		return true;
	}
	return false;
}

/* " <puts@got.plt>" for ADDR in a .got.plt slot, as gdb names the slots
   of the PLT's relocations.  */
static bool got_plt_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	struct sg_module *m = sg_target_module_at(t, addr);
	Dwfl_Module *mod = m ? sg_module_dwfl(m) : NULL;
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || addr < sh.sh_addr + bias ||
		    addr - (sh.sh_addr + bias) >= sh.sh_size)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".got.plt") != 0)
			return false;
		uint64_t slot = sh.sh_addr + (addr - bias - sh.sh_addr) / 8 * 8;
		char sym[256];
		if (!got_slot_name(elf, slot, sym, sizeof(sym)) || !strncmp(sym, "*ABS*", 5))
			return false;
		if (addr - bias > slot)
			snprintf(buf, size, " <%s@got.plt+%" PRIu64 ">", sym, addr - bias - slot);
		else
			snprintf(buf, size, " <%s@got.plt>", sym);
		return true;
	}
	return false;
}

/* The index of ELF's allocated section holding ELF address ADDR, or
   SHN_UNDEF; whether it holds code into *CODE.  */
static size_t section_index(Elf *elf, GElf_Addr addr, bool *code)
{
	*code = false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size) {
			*code = sh.sh_flags & SHF_EXECINSTR;
			return elf_ndxscn(scn);
		}
	}
	return SHN_UNDEF;
}

/* ---- gdb's minimal symbols ----

   A module's symbols sorted as gdb sorts its minimal symbols, by address
   then name, built once per command (sg_disas_labels_begin/end) and
   searched as gdb searches them (lookup_minimal_symbol_by_pc_section).  */

struct msym {
	const char *name;	/* borrowed from the module's ELF */
	uint64_t start, size;	/* runtime */
	Elf *elf;		/* the file whose section SHNDX is */
	GElf_Addr bias;
	size_t shndx;
	bool text;		/* a global code symbol: gdb's mst_text */
	bool code;		/* in a code section */
};

struct msym_table {
	Dwfl_Module *mod;
	bool own;		/* the module's own file, not libdwfl's table */
	struct msym *v;
	size_t n;
};

#define MAX_TABLES 16
struct disas_labels {
	struct msym_table tables[MAX_TABLES];
	size_t ntables;
};

/* The cache of the command that runs, or NULL.  */
static struct disas_labels *labels;

void sg_disas_labels_begin(void)
{
	if (!labels)
		labels = calloc(1, sizeof(*labels));
}

void sg_disas_labels_end(void)
{
	if (!labels)
		return;
	for (size_t i = 0; i < labels->ntables; i++)
		free(labels->tables[i].v);
	free(labels);
	labels = NULL;
}

static bool section_is_code(Elf *elf, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Add SYM (NAME at runtime VALUE, section SHNDX of ELF) to T, if gdb makes
   a minimal symbol of it.  */
static void table_add(struct msym_table *t, size_t *cap, const GElf_Sym *sym, const char *name,
		      uint64_t value, size_t shndx, Elf *elf, GElf_Addr bias)
{
	int type = GELF_ST_TYPE(sym->st_info);
	if (!name || !*name || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE && type != STT_GNU_IFUNC))
		return;
	if (t->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 1024;
		struct msym *v = realloc(t->v, ncap * sizeof(*v));
		if (!v)
			return;
		t->v = v;
		*cap = ncap;
	}
	bool code = section_is_code(elf, shndx);
	t->v[t->n++] = (struct msym){ name, value, sym->st_size, elf, bias, shndx,
				      code && type != STT_GNU_IFUNC &&
					      GELF_ST_BIND(sym->st_info) != STB_LOCAL,
				      code };
}

static int msym_cmp(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* libdwfl's table of MOD (the debug file's when there is one).  */
static void table_fill_dwfl(struct msym_table *t, Dwfl_Module *mod)
{
	size_t cap = 0;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *s = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf, &bias);
		if (s && elf)
			table_add(t, &cap, &sym, s, value, shndx, elf, bias);
	}
}

/* The module's own file's table: its .symtab, or without one its
   .dynsym.  */
static void table_fill_own(struct msym_table *t, Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *symscn = NULL;
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			break;
		}
		if (sh.sh_type == SHT_DYNSYM)
			symscn = scn;
	}
	GElf_Shdr sh;
	Elf_Data *data = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!data || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return;
	size_t cap = 0, n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (gelf_getsym(data, (int)i, &sym))
			table_add(t, &cap, &sym, elf_strptr(elf, sh.sh_link, sym.st_name),
				  sym.st_value + bias, sym.st_shndx, elf, bias);
	}
}

static struct msym_table *table_of(struct disas_labels *l, Dwfl_Module *mod, bool own)
{
	for (size_t i = 0; i < l->ntables; i++)
		if (l->tables[i].mod == mod && l->tables[i].own == own)
			return &l->tables[i];
	if (l->ntables == MAX_TABLES) {
		free(l->tables[0].v);
		memmove(&l->tables[0], &l->tables[1], (MAX_TABLES - 1) * sizeof(l->tables[0]));
		l->ntables--;
	}
	struct msym_table *t = &l->tables[l->ntables++];
	*t = (struct msym_table){ .mod = mod, .own = own };
	if (own)
		table_fill_own(t, mod);
	else
		table_fill_dwfl(t, mod);
	if (t->n)
		qsort(t->v, t->n, sizeof(t->v[0]), msym_cmp);
	return t;
}

/* Whether M is in the section of ADDR (cached per file in *ELF, *SEC).  */
static bool in_section_of(const struct msym *m, uint64_t addr, Elf **elf, size_t *sec)
{
	if (m->elf != *elf) {
		bool code;
		*elf = m->elf;
		*sec = section_index(m->elf, addr - m->bias, &code);
	}
	return *sec != SHN_UNDEF && m->shndx == *sec;
}

/* gdb's minimal symbol for ADDR in T: from the last symbol at or before
   ADDR, walking back over other sections' symbols, a local code symbol
   whose alias before it is global, and symbols without a size (the first
   of them is kept); a sized symbol that does not cover ADDR gives the
   sizeless one seen, or nothing.  A sizeless data symbol names nothing
   (gdb's build_address_symbolic).  */
static const struct msym *table_lookup(const struct msym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	Elf *elf = NULL;
	size_t sec = SHN_UNDEF;
	ptrdiff_t i = (ptrdiff_t)lo - 1, zero = -1;
	for (unsigned steps = 0; i >= 0 && steps < 100000; steps++) {
		const struct msym *m = &t->v[i];
		if (!in_section_of(m, addr, &elf, &sec)) {
			i--;
			continue;
		}
		if (i > 0 && !m->text && t->v[i - 1].text && m->size == t->v[i - 1].size &&
		    m->start == t->v[i - 1].start && m->shndx == t->v[i - 1].shndx) {
			i--;
			continue;
		}
		if (!m->size) {
			if (zero < 0)
				zero = i;
			i--;
			continue;
		}
		if (i > 0 && addr >= m->start + m->size && addr < t->v[i - 1].start + t->v[i - 1].size) {
			i--;
			continue;
		}
		break;
	}
	if (zero >= 0 && (i < 0 || !t->v[i].size))
		i = zero;
	if (i >= 0 && t->v[i].size && addr >= t->v[i].start + t->v[i].size) {
		if (zero < 0)
			return NULL;
		i = zero;
	}
	if (i < 0 || (!t->v[i].size && !t->v[i].code))
		return NULL;
	return &t->v[i];
}

/* The symbol gdb names ADDR by (its "minimal symbol"): the module's own
   file is searched first (libc.so.6's .dynsym), its separate debug
   file's table wins only with a later symbol: __libc_single_threaded,
   not the debug file's __libc_single_threaded_internal.  Its name into
   *NAME (a new string, without a default version "@@VER"), its start
   into *START.  */
static bool minimal_symbol(Dwfl_Module *mod, uint64_t addr, char **name, uint64_t *start)
{
	bool temporary = !labels;
	sg_disas_labels_begin();
	if (!labels)
		return false;
	const struct msym *own = table_lookup(table_of(labels, mod, true), addr);
	const struct msym *debug = table_lookup(table_of(labels, mod, false), addr);
	const struct msym *m = own && (!debug || debug->start <= own->start) ? own : debug;
	bool found = false;
	if (m) {
		const char *at = strstr(m->name, "@@");
		*name = at ? strndup(m->name, (size_t)(at - m->name)) : strdup(m->name);
		*start = m->start;
		found = *name != NULL;
	}
	if (temporary)
		sg_disas_labels_end();
	return found;
}

/* The module whose file covers ADDR: its mappings, or past them its
   .bss (libc's __libc_single_threaded), as libdwfl reported it.  */
struct module_search {
	uint64_t addr;
	Dwfl_Module *found;
};

static int module_covering(struct sg_module *m, void *arg)
{
	struct module_search *ms = arg;
	Dwfl_Module *mod = sg_module_dwfl(m);
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t n;
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return SG_CB_OK;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ms->addr >= ph.p_vaddr + bias && ms->addr - (ph.p_vaddr + bias) < ph.p_memsz) {
			ms->found = mod;
			return SG_CB_ABORT;
		}
	}
	return SG_CB_OK;
}

static Dwfl_Module *module_of(struct sg_target *t, uint64_t addr)
{
	struct sg_module *m = sg_target_module_at(t, addr);
	if (m)
		return sg_module_dwfl(m);
	struct module_search ms = { addr, NULL };
	sg_error_destroy(sg_target_modules(t, module_covering, &ms));
	return ms.found;
}

/* Where gdb takes function FN to start (its entry pc): its low_pc, or
   the start of its first range (GCC's main in .text.startup with a .cold
   part).  */
static bool entry_pc(Dwarf_Die *fn, Dwarf_Addr *ret)
{
	Dwarf_Addr base, end;
	return dwarf_lowpc(fn, ret) == 0 || dwarf_ranges(fn, 0, &base, ret, &end) > 0;
}

struct func_search {
	Dwarf_Addr pc;		/* in the module's DWARF addresses */
	Dwarf_Die found;
	bool ok;
};

static int func_covering(Dwarf_Die *fn, void *arg)
{
	struct func_search *fs = arg;
	/* The last one: GNU as gives an assembler function one
	   DW_TAG_subprogram per alias (__mprotect, __GI___mprotect,
	   mprotect, __GI_mprotect), and gdb names it by the last.  */
	if (dwarf_haspc(fn, fs->pc) > 0) {
		fs->found = *fn;
		fs->ok = true;
	}
	return DWARF_CB_OK;
}

/* The concrete DWARF function around ADDR in MOD (a subprogram of its
   unit: not the abstract function an inlined call at ADDR comes from):
   its DIE into *FN, its runtime entry into *ENTRY, the module's bias into
   *BIAS, and its name as gdb's symbol has it (new string).  NULL when
   there is none.  */
static char *dwarf_function(Dwfl_Module *mod, uint64_t addr, Dwarf_Die *fn, uint64_t *entry,
			    Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	if (!cu)
		return NULL;
	struct func_search fs = { .pc = addr - *bias };
	Dwarf_Addr low;
	if (dwarf_getfuncs(cu, func_covering, &fs, 0) < 0 || !fs.ok || !entry_pc(&fs.found, &low))
		return NULL;
	*fn = fs.found;
	*entry = low + *bias;
	if (sg_die_is_cplus(cu))
		return sg_cplus_linkage_name(fn);
	/* glibc's asm names: DW_AT_linkage_name "__GI___nanosleep" for
	   DW_AT_name "__nanosleep".  */
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_diename(fn);
	return s ? strdup(s) : NULL;
}

/* The name of ADDR, as sg_disas_symbol_suffix explains, into *NAME (new
   string) and the address it counts from into *START.  */
static bool symbolic(struct sg_target *t, uint64_t addr, char **name, uint64_t *start,
		     Dwarf_Die *fn, Dwarf_Addr *bias)
{
	Dwfl_Module *mod = module_of(t, addr);
	if (!mod)
		return false;
	char *msym = NULL;
	uint64_t mstart = 0;
	bool have_msym = minimal_symbol(mod, addr, &msym, &mstart);
	uint64_t entry;
	char *dname = dwarf_function(mod, addr, fn, &entry, bias);
	/* gdb prefers the DWARF function, unless a symbol starts right at
	   ADDR and the function does not: "<main.cold>", then
	   "<main()-46>" further in.  */
	if (dname && !(have_msym && mstart == addr && entry != addr)) {
		free(msym);
		*name = dname;
		*start = entry;
		return true;
	}
	free(dname);
	if (!have_msym)
		return false;
	*name = msym;
	*start = mstart;
	return true;
}

void sg_disas_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!addr || plt_suffix(t, addr, buf, size) || got_plt_suffix(t, addr, buf, size))
		return;
	char *name;
	uint64_t start;
	Dwarf_Die fn;
	Dwarf_Addr bias;
	if (!symbolic(t, addr, &name, &start, &fn, &bias))
		return;
	if (addr > start)
		snprintf(buf, size, " <%s+%" PRIu64 ">", name, addr - start);
	else if (addr < start)
		snprintf(buf, size, " <%s-%" PRIu64 ">", name, start - addr);
	else
		snprintf(buf, size, " <%s>", name);
	free(name);
}

struct sg_error *sg_disas_function_at(struct sg_target *t, uint64_t addr, struct disas_function *ret)
{
	memset(ret, 0, sizeof(*ret));
	Dwfl_Module *mod = module_of(t, addr);
	Dwarf_Die fn;
	Dwarf_Addr bias;
	uint64_t entry;
	char *dname = mod ? dwarf_function(mod, addr, &fn, &entry, &bias) : NULL;
	if (dname) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&fn, off, &base, &start, &end)) > 0 &&
		       ret->nranges < DISAS_MAX_RANGES) {
			ret->ranges[ret->nranges].start = start + bias;
			ret->ranges[ret->nranges].end = end + bias;
			ret->nranges++;
		}
		if (ret->nranges) {
			ret->name = dname;
			ret->entry = entry;
			return NULL;
		}
		free(dname);
	}
	/* Without DWARF: the symbol's extent, named as targets are.  */
	struct sg_symbol sym;
	struct sg_error *err = sg_symbolize(t, addr, &sym);
	if (err || sym.kind != STT_FUNC || !sym.size || sym.offset >= sym.size) {
		sg_error_destroy(err);
		return sg_error_create(SG_ERROR_LOOKUP, "No function contains specified address.");
	}
	char label[1024];
	sg_disas_symbol_suffix(t, sym.address, label, sizeof(label));
	size_t len = strlen(label);
	ret->name = len > 3 ? strndup(label + 2, len - 3)
			    : strndup(sym.raw_name, strcspn(sym.raw_name, "@"));
	ret->entry = sym.address;
	ret->ranges[0].start = sym.address;
	ret->ranges[0].end = sym.address + sym.size;
	ret->nranges = 1;
	return ret->name ? NULL : &sg_enomem;
}
