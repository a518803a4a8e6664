/* A sorted address index of each module's symbols.

   libdwfl's dwfl_module_addrinfo() scans the whole symbol table on every
   call, which costs about 100 us against libc's full debug symbol table.  A
   backtrace or a sampling profiler looks up thousands of addresses, so the
   table is sorted once per module and searched in O(log n).

   The sorted order is kept in the persistent cache (cache.c), by build
   ID: a later run reads it instead of sorting, and asks libdwfl for the
   name of a symbol only when a lookup returns it.  */
#include <config.h>
#include "cache.h"

#include <gelf.h>

/* How far back to look for a symbol that contains the address when the
   nearest one below does not (nested or overlapping symbols).  */
#define MAX_BACKTRACK 64

struct sg_symtab {
	struct sg_symtab_entry *e;
	size_t n;
	Dwfl_Module *dwmod;	/* for the names of cached entries */
	bool store;		/* sorted in this run: keep it for the next */
};

/* A symbol in the cache file: the address relative to the module's start
   (ASLR moves the module), the rest as in struct sg_symtab_entry.  */
struct cached_sym {
	uint64_t rel, size;
	uint32_t index, shndx;
	uint8_t type, bind, pad[6];
};

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/* Address order; at one address the preferred name first: sized; exported
   (global or weak) before local; the public spelling before internal
   aliases ("read" before "__read", "getpid" before "__getpid", as gdb
   shows them); global before weak; then symbol table order.  */
static int entry_cmp(const void *a, const void *b)
{
	const struct sg_symtab_entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	bool lx = x->bind == STB_LOCAL, ly = y->bind == STB_LOCAL;
	if (lx != ly)
		return lx ? 1 : -1;
	size_t ux = leading_underscores(x->name), uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind == STB_GLOBAL ? -1 : y->bind == STB_GLOBAL ? 1 : 0;
	return x->index < y->index ? -1 : x->index > y->index;
}

void sg_symtab_destroy(struct sg_symtab *st)
{
	if (!st)
		return;
	free(st->e);
	free(st);
}

static uint64_t module_start(Dwfl_Module *dwmod)
{
	Dwarf_Addr low = 0;
	dwfl_module_info(dwmod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	return low;
}

/* Whether cached entry E agrees with symbol table entry E->index.  */
static bool matches_symtab(Dwfl_Module *dwmod, const struct sg_symtab_entry *e)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf;
	Dwarf_Addr bias;
	const char *name = dwfl_module_getsym_info(dwmod, e->index, &sym, &addr, &shndx, &elf,
						   &bias);
	return name && addr == e->addr && sym.st_size == e->size && shndx == e->shndx;
}

/* The cached sorted table of DWMOD (N symbols), checked: indexes in the
   table, addresses in order, and a few entries against libdwfl's.  */
static bool symtab_from_cache(Dwfl_Module *dwmod, const struct sg_cache_id *id, int n,
			      struct sg_symtab *st)
{
	void *data;
	size_t size;
	if (!sg_cache_read(id, SG_CACHE_SYMTAB, &data, &size))
		return false;
	const struct cached_sym *c = data;
	size_t count = size / sizeof(*c);
	const char *why = NULL;
	if (size % sizeof(*c) || count >= (size_t)n)
		why = "bad size";
	else if (count && !(st->e = calloc(count, sizeof(*st->e))))
		why = "out of memory";
	uint64_t start = module_start(dwmod);
	for (size_t i = 0; !why && i < count; i++) {
		struct sg_symtab_entry *e = &st->e[i];
		if (c[i].index == 0 || c[i].index >= (uint32_t)n)
			why = "symbol index out of range";
		e->addr = start + c[i].rel;
		if (i && e->addr < e[-1].addr)
			why = "not in address order";
		e->size = c[i].size;
		e->shndx = c[i].shndx;
		e->index = c[i].index;
		e->type = c[i].type;
		e->bind = c[i].bind;
	}
	for (size_t k = 0; !why && k < 3 && count; k++)
		if (!matches_symtab(dwmod, &st->e[k * (count - 1) / 2]))
			why = "entries differ from the symbol table";
	free(data);
	if (why) {
		sg_trace("cache", "symtab %s: ignored: %s", id->hex, why);
		free(st->e);
		st->e = NULL;
		return false;
	}
	st->n = count;
	return true;
}

static struct sg_error *symtab_build(Dwfl_Module *dwmod, struct sg_symtab **ret)
{
	struct sg_symtab *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	st->dwmod = dwmod;
	int n = dwfl_module_getsymtab(dwmod);
	struct sg_cache_id id;
	bool cacheable = sg_cache_module_id(dwmod, n, &id);
	if (cacheable && symtab_from_cache(dwmod, &id, n, st)) {
		sg_cache_id_fini(&id);
		*ret = st;
		return NULL;
	}
	sg_cache_id_fini(&id);
	if (n > 1) {
		st->e = calloc(n, sizeof(*st->e));
		if (!st->e) {
			free(st);
			return &sg_enomem;
		}
	}
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(dwmod, i, &sym, &addr, &shndx, &elf,
							   &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		/* TLS values are offsets, not addresses; sections and files
		   have no code or data of their own.  */
		if (!name || !name[0] || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		struct sg_symtab_entry *e = &st->e[st->n++];
		e->addr = addr;
		e->size = sym.st_size;
		e->name = name;
		e->elf = elf;
		e->shndx = shndx;
		e->type = type;
		e->bind = GELF_ST_BIND(sym.st_info);
		e->index = i;
	}
	if (st->n)
		qsort(st->e, st->n, sizeof(*st->e), entry_cmp);
	st->store = cacheable;
	sg_trace("cache", "symtab: sorted %zu symbols", st->n);
	*ret = st;
	return NULL;
}

void sg_symtab_cache_store(struct sg_module *mod)
{
	struct sg_symtab *st = mod->symtab;
	if (!st || !st->store)
		return;
	st->store = false;
	struct sg_cache_id id;
	if (!sg_cache_module_id(st->dwmod, dwfl_module_getsymtab(st->dwmod), &id))
		return;
	struct cached_sym *c = calloc(st->n ? st->n : 1, sizeof(*c));
	uint64_t start = module_start(st->dwmod);
	for (size_t i = 0; c && i < st->n; i++) {
		const struct sg_symtab_entry *e = &st->e[i];
		c[i].rel = e->addr - start;
		c[i].size = e->size;
		c[i].index = e->index;
		c[i].shndx = e->shndx;
		c[i].type = e->type;
		c[i].bind = e->bind;
	}
	if (c) {
		struct iovec part = { c, st->n * sizeof(*c) };
		sg_cache_write(&id, SG_CACHE_SYMTAB, &part, 1);
	}
	free(c);
	sg_cache_id_fini(&id);
}

struct sg_error *sg_module_symtab(struct sg_module *mod, const struct sg_symtab **ret)
{
	if (!mod->symtab) {
		struct sg_error *err = symtab_build(mod->dwmod, &mod->symtab);
		if (err)
			return err;
	}
	*ret = mod->symtab;
	return NULL;
}

/* E with its name, which a cached table looks up only now; NULL if the
   symbol table does not have it (a cache that lied).  */
static const struct sg_symtab_entry *named(const struct sg_symtab *st, struct sg_symtab_entry *e)
{
	if (e->name)
		return e;
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf;
	Dwarf_Addr bias;
	const char *name = dwfl_module_getsym_info(st->dwmod, e->index, &sym, &addr, &shndx, &elf,
						   &bias);
	if (!name || !name[0] || addr != e->addr || shndx != e->shndx)
		return NULL;
	e->name = name;
	e->elf = elf;
	return e;
}

const struct sg_symtab_entry *sg_symtab_lookup(const struct sg_symtab *st, uint64_t addr)
{
	/* The last entry at or below ADDR.  */
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->e[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t top = lo - 1;
	/* The nearest group of symbols below: entries are sorted with the
	   preferred name first, so walk to the group's first entry.  */
	size_t first = top;
	while (first > 0 && st->e[first - 1].addr == st->e[top].addr)
		first--;
	for (size_t i = first; i <= top; i++)
		if (st->e[i].size && addr < st->e[i].addr + st->e[i].size)
			return named(st, &st->e[i]);
	/* A sized symbol further down that still contains ADDR (nesting).  */
	for (size_t k = 0, i = first; i-- > 0 && k < MAX_BACKTRACK; k++) {
		struct sg_symtab_entry *e = &st->e[i];
		if (e->size && addr < e->addr + e->size) {
			/* Its preferred alias is the first at its address.  */
			while (i > 0 && st->e[i - 1].addr == e->addr && st->e[i - 1].size)
				e = &st->e[--i];
			return named(st, e);
		}
	}
	/* A sizeless symbol (an assembler label) covers up to the next
	   symbol.  */
	for (size_t i = first; i <= top; i++)
		if (st->e[i].size == 0)
			return named(st, &st->e[i]);
	return NULL;
}
