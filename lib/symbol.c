/* Symbols: address to name and name to address, with demangling.

   Demangled names are cached per target, keyed by the raw name's address in
   libdwfl's string table, which is stable until the target is destroyed.  */
#include <config.h>
#include "cache.h"

#include <ctype.h>
#include <gelf.h>
#include <libiberty/demangle.h>

struct demangled {
	const char *raw;	/* key: pointer into an ELF string table */
	char *full;		/* with parameters, or NULL: not mangled */
	char *base;		/* without parameters */
};

struct sg_demangle_cache {
	struct sg_table table;	/* of struct demangled */
};

char *sg_demangle(const char *name, bool params)
{
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	const char *at = strchr(name, '@');
	char *copy = NULL;
	if (at) {
		copy = strndup(name, at - name);
		if (!copy)
			return NULL;
		name = copy;
	}
	char *s = cplus_demangle(name, params ? DMGL_PARAMS | DMGL_ANSI : DMGL_ANSI);
	free(copy);
	return s;
}

void sg_demangle_cache_destroy(struct sg_demangle_cache *c)
{
	if (!c)
		return;
	struct demangled *slots = c->table.slots;
	for (size_t i = 0; i < c->table.cap; i++) {
		free(slots[i].full);
		free(slots[i].base);
	}
	free(slots);
	free(c);
}

static bool demangled_used(const void *e)
{
	return ((const struct demangled *)e)->raw != NULL;
}

static uint64_t demangled_hash(const void *e)
{
	return sg_hash64((uintptr_t)((const struct demangled *)e)->raw);
}

/* The pointer into the ELF string table is the key.  */
static bool demangled_eq(const void *e, const void *key)
{
	return ((const struct demangled *)e)->raw == key;
}

static const struct sg_table_type demangled_table = {
	sizeof(struct demangled), 256, demangled_used, demangled_hash,
};

/* The cache entry for RAW, demangling it on first use; NULL on allocation
   failure.  */
static struct demangled *demangle_entry(struct sg_target *t, const char *raw)
{
	struct sg_demangle_cache *c = t->demangled;
	if (!c && !(c = t->demangled = calloc(1, sizeof(*c))))
		return NULL;
	size_t n = c->table.n;
	struct demangled *d = sg_table_find(&c->table, &demangled_table, sg_hash64((uintptr_t)raw),
					    demangled_eq, raw, true);
	if (!d || c->table.n == n)
		return d;	/* out of memory, or already there */
	d->raw = raw;
	d->full = sg_demangle(raw, true);
	d->base = d->full ? sg_demangle(raw, false) : NULL;
	/* Function template instances demangle with their return type first,
	   "int ns::twice<int>(int)"; gdb shows them without it.  */
	char *p = d->full && d->base ? strstr(d->full, d->base) : NULL;
	if (p && p > d->full && p[-1] == ' ')
		memmove(d->full, p, strlen(p) + 1);
	if (!d->full) {
		/* Not mangled: show it without "@VERSION".  */
		const char *at = strchr(raw, '@');
		if (at)
			d->full = strndup(raw, at - raw);
	}
	return d;
}

const char *sg_demangle_cached(struct sg_target *t, const char *raw)
{
	struct demangled *d = demangle_entry(t, raw);
	return d && d->full ? d->full : raw;
}

const char *sg_demangle_base_cached(struct sg_target *t, const char *raw)
{
	struct demangled *d = demangle_entry(t, raw);
	if (!d)
		return raw;
	return d->base ? d->base : d->full ? d->full : raw;
}

static const char *section_name(Elf *elf, GElf_Word shndx)
{
	size_t shstrndx;
	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr shdr;
	if (!scn || !gelf_getshdr(scn, &shdr))
		return NULL;
	return elf_strptr(elf, shstrndx, shdr.sh_name);
}

struct sg_error *sg_symbolize(struct sg_target *target, uint64_t address, struct sg_symbol *ret)
{
	struct sg_module *mod = sg_target_module_at(target, address);
	if (!mod)
		return &sg_not_found;
	/* libdwfl can answer for an address far past every module (a double's
	   bits under print/a): outside the module is no symbol, as in gdb.  */
	Dwarf_Addr low, high;
	if (dwfl_module_info(mod->dwmod, NULL, &low, &high, NULL, NULL, NULL, NULL) &&
	    (address < low || address >= high))
		return &sg_not_found;
	const struct sg_symtab *st;
	struct sg_error *err = sg_module_symtab(mod, &st);
	if (err)
		return err;
	const struct sg_symtab_entry *e = sg_symtab_lookup(st, address);
	if (!e)
		return &sg_not_found;
	ret->raw_name = e->name;
	ret->name = sg_demangle_cached(target, e->name);
	ret->address = e->addr;
	ret->size = e->size;
	ret->offset = address - e->addr;
	ret->kind = e->type;
	ret->module = mod;
	ret->section = section_name(e->elf, e->shndx);
	return NULL;
}

/* The last identifier of a qualified name: "call_stack" in
   "zeek::detail::call_stack", "f" in "ns::f(int)".  */
static void last_identifier(const char *name, const char **start, size_t *len)
{
	/* "(anonymous namespace)::f(int)": the scope's parentheses are
	   part of the name, not its parameters.  */
	static const char anon[] = "(anonymous namespace)";
	size_t end = 0;
	for (;;) {
		end += strcspn(name + end, "(<");
		if (strncmp(name + end, anon, sizeof(anon) - 1))
			break;
		end += sizeof(anon) - 1;
	}
	size_t s = end;
	while (s > 0 && (isalnum((unsigned char)name[s - 1]) || name[s - 1] == '_'))
		s--;
	*start = name + s;
	*len = end - s;
}

static bool raw_equals(const char *raw, const char *name)
{
	/* Most symbols differ at once: spare them the scan for '@'.  */
	if (raw[0] != name[0])
		return false;
	size_t n = strcspn(raw, "@");
	return strlen(name) == n && !strncmp(raw, name, n);
}

/* Higher is better: defined in the executable, global binding.  */
static int symbol_rank(struct sg_target *t, struct sg_module *mod, const GElf_Sym *sym)
{
	int rank = 0;
	if (t->exe && !strcmp(mod->name, t->exe))
		rank += 4;
	int bind = GELF_ST_BIND(sym->st_info);
	if (bind == STB_GLOBAL)
		rank += 2;
	else if (bind == STB_WEAK)
		rank += 1;
	return rank;
}

/* NAME is D's demangled name, with or without parameters.  */
static bool demangled_matches(const struct demangled *d, const char *name)
{
	return !strcmp(d->full, name) || (d->base && !strcmp(d->base, name));
}

/* Plain names (no C++ demangling needed) are found through a hash of the
   raw names, without the "@VERSION", built on the first such lookup in
   the module: a scan of libc's debug symbol table costs a millisecond,
   and plugins look up several names when they start.  */
struct sg_symnames {
	uint32_t *slots;	/* symbol index + 1; 0 is empty */
	uint32_t *hashes;
	size_t cap;
	bool mangled;		/* some names are C++ */
	/* The identifiers of the mangled names (each <length><identifier>
	   source name), as hashes + 1; 0 is empty.  A plain name matches a
	   mangled symbol only through its last identifier, which is one of
	   them: where it is none, the scan of every mangled name is spared
	   (a non-Python process asked for _PyRuntime, libstdc++'s 5000).  */
	uint32_t *idents;
	size_t idents_cap, nidents;
	bool store;		/* built in this run: keep it in the cache */
};

/* The cache file's fixed part; the tables follow: slots[cap],
   hashes[cap], idents[idents_cap].  */
struct cached_symnames {
	uint64_t cap, idents_cap, nidents;
	uint32_t mangled, idents_failed;
};

void sg_symnames_destroy(struct sg_symnames *sn)
{
	if (!sn)
		return;
	free(sn->slots);
	free(sn->hashes);
	free(sn->idents);
	free(sn);
}

static bool ident_insert(struct sg_symnames *sn, uint32_t h)
{
	h = h ? h : 1;
	if (2 * (sn->nidents + 1) > sn->idents_cap) {
		size_t cap = sn->idents_cap ? 2 * sn->idents_cap : 1024;
		uint32_t *t = calloc(cap, sizeof(*t));
		if (!t)
			return false;
		for (size_t i = 0; i < sn->idents_cap; i++) {
			uint32_t v = sn->idents[i];
			if (!v)
				continue;
			size_t k = v & (cap - 1);
			while (t[k])
				k = (k + 1) & (cap - 1);
			t[k] = v;
		}
		free(sn->idents);
		sn->idents = t;
		sn->idents_cap = cap;
	}
	size_t k = h & (sn->idents_cap - 1);
	for (; sn->idents[k]; k = (k + 1) & (sn->idents_cap - 1))
		if (sn->idents[k] == h)
			return true;
	sn->idents[k] = h;
	sn->nidents++;
	return true;
}

/* Whether the identifier of N bytes at S may be in a mangled name; true
   when the set could not be built.  */
static bool ident_known(const struct sg_symnames *sn, const char *s, size_t n)
{
	if (!sn->idents)
		return true;
	uint32_t h = sg_hash_bytes(s, n);
	h = h ? h : 1;
	for (size_t k = h & (sn->idents_cap - 1); sn->idents[k]; k = (k + 1) & (sn->idents_cap - 1))
		if (sn->idents[k] == h)
			return true;
	return false;
}

/* Every <length><identifier> of the mangled name RAW into the set: each
   run of digits not preceded by a digit, read as a length, and as many
   characters after it.  Runs that are not lengths (template arguments)
   add names that never match, which costs nothing.  */
static bool add_idents(struct sg_symnames *sn, const char *raw)
{
	size_t len = strcspn(raw, "@");
	for (size_t i = 2; i < len; i++) {
		if (!isdigit((unsigned char)raw[i]) || isdigit((unsigned char)raw[i - 1]))
			continue;
		size_t n = 0, j = i;
		while (j < len && isdigit((unsigned char)raw[j]) && n < len)
			n = n * 10 + (size_t)(raw[j++] - '0');
		if (n == 0 || n > len - j)
			continue;
		if (!ident_insert(sn, sg_hash_bytes(raw + j, n)))
			return false;
	}
	return true;
}

/* Whether the open-addressing table T of CAP slots can be searched: CAP a
   power of two with a free slot, so that a probe ends; every entry below
   LIMIT (0: any).  */
static bool table_ok(const uint32_t *t, size_t cap, uint32_t limit)
{
	if (cap < 2 || (cap & (cap - 1)))
		return false;
	size_t used = 0;
	for (size_t i = 0; i < cap; i++) {
		if (limit && t[i] >= limit)
			return false;
		used += t[i] != 0;
	}
	return used < cap;
}

/* The cached table of ID (for N symbols), checked.  */
static struct sg_symnames *symnames_from_cache(const struct sg_cache_id *id, int n)
{
	void *data;
	size_t size;
	if (!sg_cache_read(id, SG_CACHE_SYMNAMES, &data, &size))
		return NULL;
	struct cached_symnames h;
	struct sg_symnames *sn = NULL;
	const char *why = "bad size";
	if (size < sizeof(h))
		goto out;
	memcpy(&h, data, sizeof(h));
	if (h.cap > size / 8 || h.idents_cap > size / 4 ||
	    size != sizeof(h) + 8 * h.cap + 4 * h.idents_cap)
		goto out;
	const uint32_t *slots = (const uint32_t *)((char *)data + sizeof(h));
	const uint32_t *idents = slots + 2 * h.cap;
	why = "bad tables";
	if (!table_ok(slots, h.cap, n + 1u) || (h.idents_cap && !table_ok(idents, h.idents_cap, 0)) ||
	    h.nidents >= (h.idents_cap ? h.idents_cap : 1) || h.mangled > 1 || h.idents_failed > 1)
		goto out;
	why = "out of memory";
	if (!(sn = calloc(1, sizeof(*sn))) || !(sn->slots = malloc(4 * h.cap)) ||
	    !(sn->hashes = malloc(4 * h.cap)) ||
	    (h.idents_cap && !(sn->idents = malloc(4 * h.idents_cap))))
		goto out;
	memcpy(sn->slots, slots, 4 * h.cap);
	memcpy(sn->hashes, slots + h.cap, 4 * h.cap);
	if (h.idents_cap)
		memcpy(sn->idents, idents, 4 * h.idents_cap);
	sn->cap = h.cap;
	sn->idents_cap = h.idents_failed ? SIZE_MAX : h.idents_cap;
	sn->nidents = h.nidents;
	sn->mangled = h.mangled;
	why = NULL;
out:
	free(data);
	if (why) {
		sg_trace("cache", "symnames %s: ignored: %s", id->hex, why);
		sg_symnames_destroy(sn);
		return NULL;
	}
	return sn;
}

static struct sg_symnames *symnames_build(Dwfl_Module *dwmod)
{
	int n = dwfl_module_getsymtab(dwmod);
	struct sg_cache_id id;
	bool cacheable = sg_cache_module_id(dwmod, n, &id);
	struct sg_symnames *sn = cacheable ? symnames_from_cache(&id, n) : NULL;
	sg_cache_id_fini(&id);
	if (sn)
		return sn;
	sn = calloc(1, sizeof(*sn));
	if (!sn || n < 0)
		goto fail;
	sn->store = cacheable;
	sn->cap = 16;
	while (sn->cap < 2 * (size_t)n)
		sn->cap *= 2;
	sn->slots = calloc(sn->cap, sizeof(*sn->slots));
	sn->hashes = calloc(sn->cap, sizeof(*sn->hashes));
	if (!sn->slots || !sn->hashes)
		goto fail;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *raw = dwfl_module_getsym(dwmod, i, &sym, NULL);
		if (!raw || !raw[0])
			continue;
		if (raw[0] == '_' && raw[1] == 'Z') {
			sn->mangled = true;
			if (sn->idents_cap != SIZE_MAX && !add_idents(sn, raw)) {
				/* Without memory, every plain name scans.  */
				free(sn->idents);
				sn->idents = NULL;
				sn->idents_cap = SIZE_MAX;
			}
		}
		uint32_t h = sg_hash_bytes(raw, strcspn(raw, "@"));
		size_t k = h & (sn->cap - 1);
		while (sn->slots[k])
			k = (k + 1) & (sn->cap - 1);
		sn->slots[k] = i + 1;
		sn->hashes[k] = h;
	}
	sg_trace("cache", "symnames: hashed %d symbols", n);
	return sn;
fail:
	sg_symnames_destroy(sn);
	return NULL;
}

void sg_symnames_cache_store(struct sg_module *mod)
{
	struct sg_symnames *sn = mod->symnames;
	if (!sn || !sn->store)
		return;
	sn->store = false;
	struct sg_cache_id id;
	if (!sg_cache_module_id(mod->dwmod, dwfl_module_getsymtab(mod->dwmod), &id))
		return;
	bool failed = sn->idents_cap == SIZE_MAX;
	struct cached_symnames h = {
		.cap = sn->cap,
		.idents_cap = failed ? 0 : sn->idents_cap,
		.nidents = failed ? 0 : sn->nidents,
		.mangled = sn->mangled,
		.idents_failed = failed,
	};
	struct iovec parts[] = {
		{ &h, sizeof(h) },
		{ sn->slots, 4 * sn->cap },
		{ sn->hashes, 4 * sn->cap },
		{ sn->idents, 4 * h.idents_cap },
	};
	sg_cache_write(&id, SG_CACHE_SYMNAMES, parts, SG_ARRAY_SIZE(parts));
	sg_cache_id_fini(&id);
}

/* Weigh symbol I of MOD against *RET (of rank *BEST_RANK), for NAME.  */
static void consider(struct sg_target *target, struct sg_module *mod, int i, const char *name,
		     const char *ident, size_t ident_len, bool qualified, struct sg_symbol *ret,
		     int *best_rank)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf;
	Dwarf_Addr bias;
	const char *raw = dwfl_module_getsym_info(mod->dwmod, i, &sym, &addr, &shndx, &elf, &bias);
	if (!raw || shndx == SHN_UNDEF)
		return;
	int type = GELF_ST_TYPE(sym.st_info);
	if (type == STT_SECTION || type == STT_FILE)
		return;
	bool match = raw_equals(raw, name);
	if (!match && raw[0] == '_' && raw[1] == 'Z' && (qualified || ident_len) && ident_len &&
	    memmem(raw, strcspn(raw, "@"), ident, ident_len)) {
		struct demangled *d = demangle_entry(target, raw);
		match = d && d->full && demangled_matches(d, name);
	}
	if (!match)
		return;
	int rank = symbol_rank(target, mod, &sym);
	if (rank <= *best_rank)
		return;
	*best_rank = rank;
	ret->raw_name = raw;
	ret->name = sg_demangle_cached(target, raw);
	ret->address = addr;
	ret->size = sym.st_size;
	ret->offset = 0;
	ret->kind = type;
	ret->module = mod;
	ret->section = section_name(elf, shndx);
}

/* Search MOD for NAME, keeping the best match in *RET; *BEST_RANK is the
   rank of what *RET holds (-1: nothing yet).  */
static void lookup_in_module(struct sg_target *target, struct sg_module *mod, const char *name,
			     const char *ident, size_t ident_len, bool qualified,
			     struct sg_symbol *ret, int *best_rank)
{
	if (!qualified && !mod->symnames)
		mod->symnames = symnames_build(mod->dwmod);
	const struct sg_symnames *sn = qualified ? NULL : mod->symnames;
	if (sn) {
		/* A plain name is a raw name; C++ names are mangled, and
		   "f" matches the demangled base of "_Z1fv" too.  */
		uint32_t h = sg_hash_bytes(name, strlen(name));
		for (size_t k = h & (sn->cap - 1); sn->slots[k]; k = (k + 1) & (sn->cap - 1))
			if (sn->hashes[k] == h)
				consider(target, mod, sn->slots[k] - 1, name, ident, ident_len,
					 qualified, ret, best_rank);
		/* A mangled name of higher rank may still match through its
		   demangled base ("foo" and a global "foo()"), if its last
		   identifier is in some mangled name.  */
		if (!sn->mangled || !ident_len || !ident_known(sn, ident, ident_len))
			return;
	}
	int n = dwfl_module_getsymtab(mod->dwmod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *raw = dwfl_module_getsym(mod->dwmod, i, &sym, NULL);
		/* Cheap tests first: a mangled name can match; the name
		   itself, unless the hash has already offered it.  */
		bool mangled = raw && raw[0] == '_' && raw[1] == 'Z';
		if (!raw || (!mangled && (sn || raw[0] != name[0])))
			continue;
		consider(target, mod, i, name, ident, ident_len, qualified, ret, best_rank);
	}
}

struct sg_error *sg_lookup_symbol(struct sg_target *target, const char *name, struct sg_symbol *ret)
{
	struct sg_error *err = sg_target_load_modules(target);
	if (err)
		return err;
	const char *ident;
	size_t ident_len;
	last_identifier(name, &ident, &ident_len);
	bool qualified = strpbrk(name, ":(<") != NULL;
	int best_rank = -1;
	for (size_t m = 0; m < target->nmodules; m++)
		lookup_in_module(target, target->modules[m], name, ident, ident_len, qualified, ret,
				 &best_rank);
	return best_rank < 0 ? &sg_not_found : NULL;
}

struct sg_error *sg_module_lookup_symbol(struct sg_target *target, struct sg_module *mod,
					 const char *name, struct sg_symbol *ret)
{
	const char *ident;
	size_t ident_len;
	last_identifier(name, &ident, &ident_len);
	int best_rank = -1;
	lookup_in_module(target, mod, name, ident, ident_len, strpbrk(name, ":(<") != NULL, ret,
			 &best_rank);
	return best_rank < 0 ? &sg_not_found : NULL;
}

struct sg_error *sg_symbol_names(struct sg_target *target, const char *prefix,
				 int (*fn)(const char *name, void *arg), void *arg)
{
	struct sg_error *err = sg_target_load_modules(target);
	if (err)
		return err;
	size_t plen = strlen(prefix);
	for (size_t m = 0; m < target->nmodules; m++) {
		struct sg_module *mod = target->modules[m];
		int n = dwfl_module_getsymtab(mod->dwmod);
		for (int i = 1; i < n; i++) {
			GElf_Sym sym;
			GElf_Word shndx;
			const char *raw = dwfl_module_getsym(mod->dwmod, i, &sym, &shndx);
			if (!raw || !raw[0] || shndx == SHN_UNDEF)
				continue;
			int type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC &&
			    type != STT_TLS)
				continue;
			/* Cheap test before demangling: a plain name must
			   match as is.  */
			if (!(raw[0] == '_' && raw[1] == 'Z') && strncmp(raw, prefix, plen))
				continue;
			const char *base = sg_demangle_base_cached(target, raw);
			if (!strncmp(base, prefix, plen) && fn(base, arg) != SG_CB_OK)
				return NULL;
		}
	}
	return NULL;
}
