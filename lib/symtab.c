/* A sorted address index of each module's symbols.

   libdwfl's dwfl_module_addrinfo() scans the whole symbol table on every
   call, which costs about 100 us against libc's full debug symbol table.  A
   backtrace or a sampling profiler looks up thousands of addresses, so the
   table is sorted once per module and searched in O(log n).  */
#include <config.h>
#include "internal.h"

#include <gelf.h>

/* How far back to look for a symbol that contains the address when the
   nearest one below does not (nested or overlapping symbols).  */
#define MAX_BACKTRACK 64

struct sg_symtab {
	struct sg_symtab_entry *e;
	size_t n;
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

static struct sg_error *symtab_build(Dwfl_Module *dwmod, struct sg_symtab **ret)
{
	struct sg_symtab *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	int n = dwfl_module_getsymtab(dwmod);
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
	*ret = st;
	return NULL;
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
			return &st->e[i];
	/* A sized symbol further down that still contains ADDR (nesting).  */
	for (size_t k = 0, i = first; i-- > 0 && k < MAX_BACKTRACK; k++) {
		const struct sg_symtab_entry *e = &st->e[i];
		if (e->size && addr < e->addr + e->size) {
			/* Its preferred alias is the first at its address.  */
			while (i > 0 && st->e[i - 1].addr == e->addr && st->e[i - 1].size)
				e = &st->e[--i];
			return e;
		}
	}
	/* A sizeless symbol (an assembler label) covers up to the next
	   symbol.  */
	for (size_t i = first; i <= top; i++)
		if (st->e[i].size == 0)
			return &st->e[i];
	return NULL;
}
