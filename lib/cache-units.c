/* The unit address index of a module's DWARF, kept in the persistent
   cache.

   libdw answers its first address lookup (dwfl_module_addrdie) by reading
   .debug_aranges and interning every unit it names: 7 M instructions for
   libc, on every run that describes a frame in libc.  The ranges and the
   offset of each unit's DIE depend only on the file: they are kept in
   sg_cache_dir()/index/BUILDID.units, and a later run takes the unit at
   an address from there with dwarf_offdie(), which interns the units up
   to that one only.

   Hook: sg_frame_cudie() (frame.c) calls sg_unit_index_cudie() first and
   uses its unit if it finds one; with SG_UNIT_NONE it skips
   dwfl_module_addrdie (no arange covers the address) for its own search
   of the units' ranges.  */
#include <config.h>
#include "cache.h"

#include <dwarf.h>

struct unit_range {
	uint64_t low, high;	/* relative to the DWARF's bias */
	uint64_t die;		/* the unit's DIE offset */
};

struct unit_index {
	struct sg_module *mod;
	struct unit_range *r;
	size_t n;
	Dwarf_Die *dies;	/* r[i]'s DIE once looked up; stable for frame.c */
	bool *have;
	bool store;		/* built in this run */
	struct unit_index *next;
};

/* The target's indexes, one per module that has been asked for.  */
struct unit_indexes {
	struct unit_index *list;
};

static const char key;

static void indexes_destroy(void *data)
{
	struct unit_indexes *x = data;
	while (x && x->list) {
		struct unit_index *u = x->list;
		x->list = u->next;
		free(u->r);
		free(u->dies);
		free(u->have);
		free(u);
	}
	free(x);
}

static int range_cmp(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;
	return x->low < y->low ? -1 : x->low > y->low;
}

/* From libdw's aranges, as dwfl_module_addrdie would read them.  */
static bool build(Dwarf *dw, struct unit_index *u)
{
	Dwarf_Aranges *ar;
	size_t n;
	if (dwarf_getaranges(dw, &ar, &n) != 0)
		return false;
	u->r = calloc(n ? n : 1, sizeof(*u->r));
	if (!u->r)
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr addr;
		Dwarf_Word len;
		Dwarf_Off off;
		Dwarf_Arange *a = dwarf_onearange(ar, i);
		if (!a || dwarf_getarangeinfo(a, &addr, &len, &off) != 0 || !len)
			continue;
		u->r[u->n++] = (struct unit_range){ addr, addr + len, off };
	}
	qsort(u->r, u->n, sizeof(*u->r), range_cmp);
	u->store = true;
	return true;
}

/* The cached index, checked: ranges in order, not overlapping.  */
static bool load(const struct sg_cache_id *id, struct unit_index *u)
{
	void *data;
	size_t size;
	if (!sg_cache_read(id, SG_CACHE_UNITS, &data, &size))
		return false;
	const struct unit_range *r = data;
	size_t n = size / sizeof(*r);
	bool ok = size % sizeof(*r) == 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = r[i].low < r[i].high && (!i || r[i - 1].high <= r[i].low);
	if (!ok) {
		sg_trace("cache", "units %s: ignored: bad ranges", id->hex);
		free(data);
		return false;
	}
	u->r = data;
	u->n = n;
	return true;
}

static struct unit_index *index_of(struct sg_target *t, struct sg_module *mod, Dwarf *dw)
{
	struct unit_indexes *x = sg_target_get_data(t, &key);
	if (!x) {
		if (!(x = calloc(1, sizeof(*x))) || sg_target_set_data(t, &key, x, indexes_destroy)) {
			free(x);
			return NULL;
		}
	}
	for (struct unit_index *u = x->list; u; u = u->next)
		if (u->mod == mod)
			return u->r ? u : NULL;
	struct unit_index *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->mod = mod;
	u->next = x->list;
	x->list = u;
	struct sg_cache_id id;
	bool cacheable = sg_cache_module_id(mod->dwmod, dwfl_module_getsymtab(mod->dwmod), &id);
	bool ok = (cacheable && load(&id, u)) || build(dw, u);
	u->store = u->store && cacheable;
	sg_cache_id_fini(&id);
	if (ok) {
		u->dies = calloc(u->n ? u->n : 1, sizeof(*u->dies));
		u->have = calloc(u->n ? u->n : 1, sizeof(*u->have));
	}
	if (!ok || !u->dies || !u->have) {
		free(u->r);
		u->r = NULL;
		return NULL;
	}
	return u;
}

int sg_unit_index_cudie(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			Dwarf_Addr *bias, Dwarf_Die **ret)
{
	Dwarf *dw = dwfl_module_getdwarf(mod->dwmod, bias);
	struct unit_index *u = dw ? index_of(t, mod, dw) : NULL;
	if (!u)
		return SG_UNIT_NO_INDEX;
	uint64_t rel = addr - *bias;
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->r[mid].low <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || rel >= u->r[lo - 1].high)
		return SG_UNIT_NONE;
	size_t i = lo - 1;
	if (!u->have[i]) {
		/* A cached offset that is no unit's DIE is the cache's fault:
		   let libdwfl answer.  */
		Dwarf_Die *d = dwarf_offdie(dw, u->r[i].die, &u->dies[i]);
		int tag = d ? dwarf_tag(d) : -1;
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit &&
		    tag != DW_TAG_skeleton_unit)
			return SG_UNIT_NO_INDEX;
		u->have[i] = true;
	}
	*ret = &u->dies[i];
	return SG_UNIT_FOUND;
}

void sg_unit_index_cache_store(struct sg_target *t)
{
	struct unit_indexes *x = sg_target_get_data(t, &key);
	for (struct unit_index *u = x ? x->list : NULL; u; u = u->next) {
		if (!u->r || !u->store)
			continue;
		u->store = false;
		struct sg_cache_id id;
		if (sg_cache_module_id(u->mod->dwmod, dwfl_module_getsymtab(u->mod->dwmod), &id)) {
			struct iovec part = { u->r, u->n * sizeof(*u->r) };
			sg_cache_write(&id, SG_CACHE_UNITS, &part, 1);
		}
		sg_cache_id_fini(&id);
	}
}
