/* Lazy per-module index of type and variable names.

   A module's names are indexed one unit at a time, in .debug_info order,
   only as far as a lookup needs: a name found in the third unit costs three
   units, not the module.  Only the names a lookup by qualified name can
   reach are indexed: those at a unit's top level and in namespaces
   (classes are searched when a qualified name goes through one, see
   dwlookup.c), and never function bodies, which are skipped with
   DW_AT_sibling.

   The units are read from the raw sections with our own DIE decoder rather
   than libdw's, which takes a lock per abbreviation lookup and is several
   times slower on a walk like this one.  A unit the decoder does not
   understand (an unknown form, bad data) is indexed through libdw instead,
   which gives the same entries.  SPYGLASS_NAME_INDEX=libdw forces that path,
   for tests.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <gelf.h>

/* ---- string map ---- */

static uint32_t str_hash(const char *s)
{
	return sg_hash_bytes(s, strlen(s));
}

static uint32_t strmap_find(const struct sg_strmap *m, const char *key, uint32_t h)
{
	if (!m->cap)
		return UINT32_MAX;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct sg_strmap_slot *s = &m->slots[i];
		if (!s->key)
			return UINT32_MAX;
		if (s->hash == h && (s->key == key || !strcmp(s->key, key)))
			return s->value;
	}
}

uint32_t sg_strmap_get(const struct sg_strmap *m, const char *key)
{
	return strmap_find(m, key, str_hash(key));
}

static bool strmap_insert(struct sg_strmap *m, const char *key, uint32_t h, uint32_t value)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct sg_strmap_slot *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return false;
		for (size_t i = 0; i < m->cap; i++) {
			struct sg_strmap_slot *s = &m->slots[i];
			if (!s->key)
				continue;
			size_t j = s->hash & (ncap - 1);
			while (ns[j].key)
				j = (j + 1) & (ncap - 1);
			ns[j] = *s;
		}
		free(m->slots);
		m->slots = ns;
		m->cap = ncap;
	}
	size_t i = h & (m->cap - 1);
	while (m->slots[i].key)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (struct sg_strmap_slot){ .key = key, .hash = h, .value = value };
	m->n++;
	return true;
}

bool sg_strmap_put(struct sg_strmap *m, const char *key, uint32_t value)
{
	return strmap_insert(m, key, str_hash(key), value);
}

void sg_strmap_deinit(struct sg_strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- the index ---- */

#define NONE UINT32_MAX
#define MAX_NAMESPACE_DEPTH 8
#define MAX_DIE_DEPTH 256

struct name {
	const char *s;		/* in the DWARF sections, or libdw's strings */
	uint32_t head, tail;	/* entries, in DWARF order */
};

struct spec {
	Dwarf_Off decl, def;
};

struct section {
	const unsigned char *data;
	size_t size;
};

struct abbrevs;
static void abbrevs_destroy(struct abbrevs *t);

struct sg_name_index {
	Dwarf *dw;
	Dwarf_Addr bias;
	bool use_libdw;
	struct section info, abbrev, str, line_str, str_offsets;
	Dwarf_Off next_unit;
	bool done;
	size_t units_scanned, units_raw;

	struct sg_name_entry *entries;	/* by DIE offset */
	size_t nentries, entries_cap;
	struct name *names;
	size_t nnames, names_cap;
	struct sg_strmap name_map;
	char **scopes;			/* qualified; [0] is "" */
	size_t nscopes, scopes_cap;
	struct sg_strmap scope_map;
	struct spec *specs;		/* DW_AT_specification: declaration -> definition */
	size_t nspecs, specs_cap;
	bool specs_sorted;
	struct abbrevs *ab;		/* the last unit's abbreviations */
	/* Names recently committed, by string address: .debug_str holds each
	   string once, and every unit repeats the same type names.  */
	struct recent {
		const char *s;
		uint32_t name;
	} recent[1024];

	/* one unit's entries before they are committed */
	struct pending {
		Dwarf_Off off;
		const char *name;
		uint32_t scope;
		uint16_t tag;
		uint8_t flags;
	} *pending;
	size_t npending, pending_cap;
	size_t nspecs_before;
};

static bool get_section(Elf *elf, size_t shstrndx, const char *want, struct section *ret)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!name || strcmp(name, want))
			continue;
		/* libdw inflated it when it opened the file; a section still
		   compressed is one we cannot read raw.  */
		if (sh->sh_flags & SHF_COMPRESSED)
			return false;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return false;
		ret->data = d->d_buf;
		ret->size = d->d_size;
		return true;
	}
	ret->data = NULL;
	ret->size = 0;
	return true;
}

/* Whether every in-bounds offset into S starts a NUL-terminated string.  */
static bool strings_ok(const struct section *s)
{
	return !s->size || s->data[s->size - 1] == '\0';
}

static void open_sections(struct sg_name_index *idx)
{
	Elf *elf = dwarf_getelf(idx->dw);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    !get_section(elf, shstrndx, ".debug_info", &idx->info) ||
	    !get_section(elf, shstrndx, ".debug_abbrev", &idx->abbrev) ||
	    !get_section(elf, shstrndx, ".debug_str", &idx->str) ||
	    !get_section(elf, shstrndx, ".debug_line_str", &idx->line_str) ||
	    !get_section(elf, shstrndx, ".debug_str_offsets", &idx->str_offsets) ||
	    !strings_ok(&idx->str) || !strings_ok(&idx->line_str) || !idx->info.data)
		idx->use_libdw = true;
}

struct sg_error *sg_module_name_index(struct sg_module *mod, struct sg_name_index **ret)
{
	if (mod->names) {
		*ret = mod->names;
		return NULL;
	}
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod->dwmod, &bias);
	if (!dw)
		return &sg_not_found;
	struct sg_error *err = sg_name_index_create(dw, bias, &mod->names);
	if (!err)
		*ret = mod->names;
	return err;
}

struct sg_error *sg_name_index_create(Dwarf *dw, Dwarf_Addr bias, struct sg_name_index **ret)
{
	struct sg_name_index *idx = calloc(1, sizeof(*idx));
	if (!idx)
		return &sg_enomem;
	idx->dw = dw;
	idx->bias = bias;
	const char *env = getenv("SPYGLASS_NAME_INDEX");
	idx->use_libdw = env && !strcmp(env, "libdw");
	if (!idx->use_libdw)
		open_sections(idx);
	idx->scopes = calloc(1, sizeof(*idx->scopes));
	if (!idx->scopes || !(idx->scopes[0] = strdup(""))) {
		sg_name_index_destroy(idx);
		return &sg_enomem;
	}
	idx->nscopes = idx->scopes_cap = 1;
	*ret = idx;
	return NULL;
}

void sg_name_index_destroy(struct sg_name_index *idx)
{
	if (!idx)
		return;
	free(idx->entries);
	free(idx->names);
	sg_strmap_deinit(&idx->name_map);
	for (size_t i = 0; i < idx->nscopes; i++)
		free(idx->scopes[i]);
	free(idx->scopes);
	sg_strmap_deinit(&idx->scope_map);
	free(idx->specs);
	free(idx->pending);
	abbrevs_destroy(idx->ab);
	free(idx);
}

Dwarf *sg_name_index_dwarf(const struct sg_name_index *idx, Dwarf_Addr *bias_ret)
{
	if (bias_ret)
		*bias_ret = idx->bias;
	return idx->dw;
}

const char *sg_name_index_scope(const struct sg_name_index *idx, uint32_t scope)
{
	return scope < idx->nscopes ? idx->scopes[scope] : "";
}

void sg_name_index_stats(const struct sg_name_index *idx, struct sg_name_index_stats *ret)
{
	ret->units_scanned = idx->units_scanned;
	ret->units_raw = idx->units_raw;
	ret->entries = idx->nentries;
	ret->names = idx->nnames;
	ret->complete = idx->done;
}

/* The scope "PARENT::NAME", interned; NONE on allocation failure.  */
static uint32_t scope_intern(struct sg_name_index *idx, uint32_t parent, const char *name)
{
	char buf[1024];
	const char *p = idx->scopes[parent];
	int n = snprintf(buf, sizeof(buf), "%s%s%s", p, *p ? "::" : "", name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NONE;
	uint32_t id = sg_strmap_get(&idx->scope_map, buf);
	if (id != NONE)
		return id;
	char *copy = strdup(buf);
	char **slot = copy ? sg_array_push(&idx->scopes, &idx->nscopes, &idx->scopes_cap,
					   sizeof(*idx->scopes)) : NULL;
	if (!slot) {
		free(copy);
		return NONE;
	}
	*slot = copy;
	id = idx->nscopes - 1;
	if (!sg_strmap_put(&idx->scope_map, copy, id)) {
		idx->nscopes--;
		free(copy);
		return NONE;
	}
	return id;
}

static bool indexed_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type: case DW_TAG_typedef: case DW_TAG_structure_type:
	case DW_TAG_class_type: case DW_TAG_union_type: case DW_TAG_enumeration_type:
	case DW_TAG_variable:
		return true;
	default:
		return false;
	}
}

static bool add_pending(struct sg_name_index *idx, Dwarf_Off off, const char *name,
			uint32_t scope, int tag, uint8_t flags)
{
	struct pending *p = sg_array_push(&idx->pending, &idx->npending, &idx->pending_cap,
					  sizeof(*p));
	if (!p)
		return false;
	*p = (struct pending){ off, name, scope, tag, flags };
	return true;
}

static bool add_spec(struct sg_name_index *idx, Dwarf_Off decl, Dwarf_Off def)
{
	struct spec *s = sg_array_push(&idx->specs, &idx->nspecs, &idx->specs_cap, sizeof(*s));
	if (!s)
		return false;
	*s = (struct spec){ decl, def };
	idx->specs_sorted = false;
	return true;
}

/* Move the unit's pending entries into the index.  */
static bool commit(struct sg_name_index *idx)
{
	for (size_t i = 0; i < idx->npending; i++) {
		const struct pending *p = &idx->pending[i];
		struct recent *r = &idx->recent[((uintptr_t)p->name >> 2) % SG_ARRAY_SIZE(idx->recent)];
		uint32_t h = 0, ni = r->s == p->name ? r->name : NONE;
		if (ni == NONE)
			ni = strmap_find(&idx->name_map, p->name, h = str_hash(p->name));
		if (ni == NONE) {
			struct name *n = sg_array_push(&idx->names, &idx->nnames, &idx->names_cap,
						       sizeof(*n));
			if (!n)
				return false;
			*n = (struct name){ p->name, NONE, NONE };
			ni = idx->nnames - 1;
			if (!strmap_insert(&idx->name_map, p->name, h, ni)) {
				idx->nnames--;
				return false;
			}
		}
		r->s = p->name;
		r->name = ni;
		struct sg_name_entry *e = sg_array_push(&idx->entries, &idx->nentries,
							&idx->entries_cap, sizeof(*e));
		if (!e)
			return false;
		uint32_t ei = idx->nentries - 1;
		*e = (struct sg_name_entry){ .off = p->off, .scope = p->scope, .next = NONE,
					     .tag = p->tag, .flags = p->flags };
		struct name *n = &idx->names[ni];
		if (n->tail == NONE)
			n->head = ei;
		else
			idx->entries[n->tail].next = ei;
		n->tail = ei;
	}
	idx->npending = 0;
	return true;
}

/* ---- the raw decoder ---- */

struct attr_spec {
	uint16_t name, form;
};

/* An attribute the index reads, at a fixed place in the DIE.  */
struct wanted {
	uint16_t name, form;
	uint32_t offset;	/* from the end of the abbreviation code */
	uint8_t size;
};
#define MAX_WANTED 6

struct abbrev {
	uint32_t tag;
	bool children;
	bool skip;		/* no children, not indexed: skip FIXED_SIZE bytes */
	uint8_t nwanted;	/* with FIXED_SIZE >= 0: WANTED lists what to read */
	struct wanted wanted[MAX_WANTED];
	uint32_t first, nattrs;	/* in the table's specs */
	int32_t fixed_size;	/* of the attributes, or -1 if it varies */
	unsigned sizes_for;	/* the abbrevs' SIZES_FOR when that was computed */
};

struct abbrevs {
	Dwarf_Off offset;
	struct abbrev *byc;	/* by code */
	size_t ncodes, cap;
	struct attr_spec *specs;
	size_t nspecs, specs_cap;
	bool valid;
	unsigned sizes_for;	/* the unit's address and offset sizes, as a key */
};

static void abbrevs_destroy(struct abbrevs *t)
{
	if (!t)
		return;
	free(t->byc);
	free(t->specs);
	free(t);
}

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static uint64_t fixed(struct cursor *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static void skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

static bool read_abbrevs(const struct section *sec, Dwarf_Off offset, struct abbrevs *t)
{
	if (t->valid && t->offset == offset)
		return true;
	t->valid = false;
	t->sizes_for = 0;
	t->ncodes = t->nspecs = 0;
	if (offset >= sec->size)
		return false;
	struct cursor c = { sec->data + offset, sec->data + sec->size, false };
	for (;;) {
		uint64_t code = uleb(&c);
		if (c.bad)
			return false;
		if (!code)
			break;
		if (code > 65536)
			return false;	/* sparse codes: let libdw have it */
		if (code >= t->cap) {
			size_t ncap = t->cap ? t->cap : 64;
			while (ncap <= code)
				ncap *= 2;
			struct abbrev *n = realloc(t->byc, ncap * sizeof(*n));
			if (!n)
				return false;
			t->byc = n;
			t->cap = ncap;
		}
		/* Not zeroed whole: these are big, and there are many.  */
		while (t->ncodes <= code) {
			t->byc[t->ncodes].tag = 0;
			t->byc[t->ncodes++].sizes_for = 0;
		}
		struct abbrev *a = &t->byc[code];
		a->sizes_for = 0;
		a->tag = uleb(&c);
		a->children = fixed(&c, 1) != 0;
		a->first = t->nspecs;
		for (;;) {
			uint64_t name = uleb(&c), form = uleb(&c);
			if (c.bad)
				return false;
			if (!name && !form)
				break;
			if (form == DW_FORM_implicit_const)
				(void)uleb(&c);	/* the value: in the abbreviation, not the DIE */
			struct attr_spec *s = sg_array_push(&t->specs, &t->nspecs, &t->specs_cap,
							    sizeof(*s));
			if (!s || name > UINT16_MAX || form > UINT16_MAX)
				return false;
			*s = (struct attr_spec){ name, form };
		}
		a->nattrs = t->nspecs - a->first;
	}
	t->offset = offset;
	t->valid = true;
	return true;
}

/* The size of FORM when it does not depend on the data, else -1.  */
static int form_size(uint16_t form, uint8_t version, uint8_t addr_size, uint8_t offset_size)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_strx4:
	case DW_FORM_addrx4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return addr_size;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return offset_size;
	case DW_FORM_ref_addr:
		return version == 2 ? addr_size : offset_size;
	default:
		return -1;
	}
}

/* Most DIEs the scan passes over (pointer and const types, members,
   parameters) have no children and only fixed-size attributes: find out
   whether A is one, for this unit's address and offset sizes.  Done on
   first use: small units have big tables of which they use a few.  */
static bool wanted_attr(unsigned name)
{
	return name == DW_AT_name || name == DW_AT_sibling || name == DW_AT_specification ||
	       name == DW_AT_declaration || name == DW_AT_location ||
	       name == DW_AT_str_offsets_base;
}

static void abbrev_sizes(const struct abbrevs *t, struct abbrev *a, uint8_t version,
			 uint8_t addr_size, uint8_t offset_size)
{
	int32_t size = 0;
	a->nwanted = 0;
	for (uint32_t j = 0; j < a->nattrs && size >= 0; j++) {
		const struct attr_spec *s = &t->specs[a->first + j];
		int n = form_size(s->form, version, addr_size, offset_size);
		if (n >= 0 && wanted_attr(s->name)) {
			if (a->nwanted == MAX_WANTED)
				n = -1;
			else
				a->wanted[a->nwanted++] = (struct wanted){ s->name, s->form, size, n };
		}
		size = n < 0 || size > INT32_MAX - 64 ? -1 : size + n;
	}
	a->fixed_size = size;
	a->skip = size >= 0 && !a->children && !indexed_tag(a->tag) && a->tag != DW_TAG_namespace;
	a->sizes_for = t->sizes_for;
}

struct unit {
	struct sg_name_index *idx;
	struct abbrevs *ab;
	Dwarf_Off start, end;	/* the unit, header included */
	uint8_t version, addr_size, offset_size;
	uint64_t str_base;	/* DW_AT_str_offsets_base, 0 if none */
};

/* What the index needs of one DIE.  */
struct die {
	Dwarf_Off off;
	const struct abbrev *a;
	const char *name;
	bool slow_name;		/* a name form we leave to libdw */
	bool decl, location;
	Dwarf_Off sibling, spec;
	uint64_t str_base;
};

static Dwarf_Off ref_target(const struct unit *u, uint16_t form, uint64_t v)
{
	switch (form) {
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		return u->start + v;
	case DW_FORM_ref_addr:
		return v;
	default:
		return 0;	/* another file (dwz, a type unit): not ours */
	}
}

static const char *section_string(const struct section *s, uint64_t off)
{
	return off < s->size ? (const char *)s->data + off : NULL;
}

/* String number I of the unit's DW_AT_str_offsets_base table.  */
static const char *indexed_string(const struct unit *u, uint64_t i)
{
	const struct section *so = &u->idx->str_offsets;
	if (!u->str_base || i > so->size / u->offset_size ||
	    u->str_base + (i + 1) * u->offset_size > so->size)
		return NULL;
	struct cursor c = { so->data + u->str_base + i * u->offset_size, so->data + so->size,
			    false };
	return section_string(&u->idx->str, fixed(&c, u->offset_size));
}

/* Note attribute NAME of D, of FORM, whose value is V (a constant,
   reference or offset) and whose data is at AT.  */
static void take_attr(const struct unit *u, struct die *d, uint16_t name, uint16_t form,
		      uint64_t v, const unsigned char *at)
{
	switch (name) {
	case DW_AT_name:
		if (form == DW_FORM_string)
			d->name = (const char *)at;
		else if (form == DW_FORM_strp)
			d->name = section_string(&u->idx->str, v);
		else if (form == DW_FORM_line_strp)
			d->name = section_string(&u->idx->line_str, v);
		else if (form == DW_FORM_strx || (form >= DW_FORM_strx1 && form <= DW_FORM_strx4))
			d->name = indexed_string(u, v);
		d->slow_name = !d->name;
		break;
	case DW_AT_sibling:
		d->sibling = ref_target(u, form, v);
		break;
	case DW_AT_specification:
		d->spec = ref_target(u, form, v);
		break;
	case DW_AT_declaration:
		d->decl = v != 0;
		break;
	case DW_AT_location:
		d->location = true;
		break;
	case DW_AT_str_offsets_base:
		d->str_base = v;
		break;
	}
}

/* Decode the DIE at C; false at the end of a sibling list (D->a NULL) or on
   bad data (C->bad).  */
static bool read_die(const struct unit *u, struct cursor *c, struct die *d)
{
	d->off = c->p - u->idx->info.data;
	d->a = NULL;
	if (c->p == c->end)
		return false;	/* the unit ends without its null entries */
	uint64_t code = uleb(c);
	if (c->bad || !code)
		return false;
	if (code >= u->ab->ncodes || !u->ab->byc[code].tag) {
		c->bad = true;
		return false;
	}
	struct abbrev *a = &u->ab->byc[code];
	if (a->sizes_for != u->ab->sizes_for)
		abbrev_sizes(u->ab, a, u->version, u->addr_size, u->offset_size);
	d->a = a;
	d->name = NULL;
	d->slow_name = d->decl = d->location = false;
	d->sibling = d->spec = d->str_base = 0;
	if (a->skip) {
		skip(c, a->fixed_size);
		return !c->bad;
	}
	if (a->fixed_size >= 0) {
		/* Every attribute has a fixed size: read only the wanted ones.  */
		const unsigned char *base = c->p;
		if ((size_t)(c->end - base) < (size_t)a->fixed_size) {
			c->bad = true;
			return false;
		}
		for (uint8_t k = 0; k < a->nwanted; k++) {
			const struct wanted *w = &a->wanted[k];
			struct cursor wc = { base + w->offset, c->end, false };
			uint64_t v = w->size ? fixed(&wc, w->size) : 1;	/* flag_present, implicit_const */
			take_attr(u, d, w->name, w->form, v, base + w->offset);
		}
		c->p = base + a->fixed_size;
		return true;
	}
	const struct attr_spec *s = &u->ab->specs[a->first];
	for (uint32_t i = 0; i < a->nattrs && !c->bad; i++) {
		uint16_t form = s[i].form;
		uint64_t v = 0;
		const unsigned char *at = c->p;
	again:
		switch (form) {
		case DW_FORM_addr: v = fixed(c, u->addr_size); break;
		case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
		case DW_FORM_addrx1:
			v = fixed(c, 1); break;
		case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
			v = fixed(c, 2); break;
		case DW_FORM_strx3: case DW_FORM_addrx3: v = fixed(c, 3); break;
		case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_strx4:
		case DW_FORM_addrx4:
			v = fixed(c, 4); break;
		case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
			v = fixed(c, 8); break;
		case DW_FORM_data16: skip(c, 16); break;
		case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
		case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
		case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
			v = uleb(c); break;
		case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
		case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
			v = fixed(c, u->offset_size); break;
		case DW_FORM_ref_addr:
			v = fixed(c, u->version == 2 ? u->addr_size : u->offset_size); break;
		case DW_FORM_string: {
			const unsigned char *nul = memchr(c->p, '\0', c->end - c->p);
			if (!nul)
				c->bad = true;
			else
				c->p = nul + 1;
			break;
		}
		case DW_FORM_block1: skip(c, fixed(c, 1)); break;
		case DW_FORM_block2: skip(c, fixed(c, 2)); break;
		case DW_FORM_block4: skip(c, fixed(c, 4)); break;
		case DW_FORM_block: case DW_FORM_exprloc: skip(c, uleb(c)); break;
		case DW_FORM_flag_present: v = 1; break;
		case DW_FORM_implicit_const: v = 1; break;	/* only flags matter here */
		case DW_FORM_indirect:
			form = uleb(c);
			if (form == DW_FORM_indirect || form == DW_FORM_implicit_const)
				c->bad = true;
			else
				goto again;
			break;
		default:
			c->bad = true;	/* a form we do not know: libdw's turn */
			break;
		}
		if (c->bad)
			break;
		take_attr(u, d, s[i].name, form, v, at);
	}
	return !c->bad;
}

/* Skip the children of D, which C is just after.  */
static void skip_children(const struct unit *u, struct cursor *c, const struct die *d)
{
	const unsigned char *base = u->idx->info.data;
	if (d->sibling > d->off && d->sibling <= u->end) {
		c->p = base + d->sibling;
		return;
	}
	size_t depth = 1;
	struct die k;
	while (depth && !c->bad) {
		if (!read_die(u, c, &k)) {
			if (!c->bad)
				depth--;
			continue;
		}
		if (!k.a->children)
			continue;
		if (k.sibling > k.off && k.sibling <= u->end)
			c->p = base + k.sibling;
		else if (++depth > MAX_DIE_DEPTH)
			c->bad = true;
	}
}

/* Index the children of a unit or namespace, C just after its DIE.  */
static bool scan_children(const struct unit *u, struct cursor *c, uint32_t scope, int depth)
{
	struct sg_name_index *idx = u->idx;
	struct die d;
	while (read_die(u, c, &d)) {
		int tag = d.a->tag;
		if (tag == DW_TAG_namespace && d.a->children && depth < MAX_NAMESPACE_DEPTH) {
			if (d.slow_name)
				return false;
			uint32_t inner = scope_intern(idx, scope, d.name ?: "(anonymous namespace)");
			if (inner == NONE || !scan_children(u, c, inner, depth + 1))
				return false;
			continue;
		}
		if (indexed_tag(tag)) {
			if (d.slow_name)
				return false;
			uint8_t flags = (d.decl ? SG_NAME_DECLARATION : 0) |
					(d.location ? SG_NAME_LOCATION : 0);
			if (d.name && !add_pending(idx, d.off, d.name, scope, tag, flags))
				return false;
			if (!d.name && d.spec && d.location && tag == DW_TAG_variable &&
			    !add_spec(idx, d.spec, d.off))
				return false;
		}
		if (d.a->children)
			skip_children(u, c, &d);
	}
	return !c->bad;
}

static bool scan_unit_raw(struct sg_name_index *idx, Dwarf_Off off, Dwarf_Off next,
			  size_t hsize, Dwarf_Half version, Dwarf_Off abbrev_off, uint8_t addr_size,
			  uint8_t offset_size)
{
	if (!idx->ab && !(idx->ab = calloc(1, sizeof(*idx->ab))))
		return false;
	if (next > idx->info.size || off + hsize >= next || (offset_size != 4 && offset_size != 8) ||
	    !read_abbrevs(&idx->abbrev, abbrev_off, idx->ab))
		return false;
	idx->ab->sizes_for = 1 + (version == 2) + 2u * addr_size + 64u * offset_size;
	struct unit u = { idx, idx->ab, off, next, version, addr_size, offset_size, 0 };
	struct cursor c = { idx->info.data + off + hsize, idx->info.data + next, false };
	struct die d;
	if (!read_die(&u, &c, &d))
		return false;
	u.str_base = d.str_base;
	if (!d.a->children)
		return true;
	return scan_children(&u, &c, 0, 0);
}

/* ---- the same through libdw ---- */

static bool flag_attr(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

static bool scan_children_libdw(struct sg_name_index *idx, Dwarf_Die *parent, uint32_t scope,
				int depth)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return true;
	do {
		int tag = dwarf_tag(&child);
		/* The DIE's own name: dwarf_diename() would follow
		   DW_AT_specification, which the raw decoder does not.  */
		Dwarf_Attribute na;
		const char *name = dwarf_formstring(dwarf_attr(&child, DW_AT_name, &na));
		if (tag == DW_TAG_namespace && depth < MAX_NAMESPACE_DEPTH) {
			uint32_t inner = scope_intern(idx, scope, name ?: "(anonymous namespace)");
			if (inner == NONE || !scan_children_libdw(idx, &child, inner, depth + 1))
				return false;
			continue;
		}
		if (!indexed_tag(tag))
			continue;
		bool location = dwarf_hasattr(&child, DW_AT_location);
		uint8_t flags = (flag_attr(&child, DW_AT_declaration) ? SG_NAME_DECLARATION : 0) |
				(location ? SG_NAME_LOCATION : 0);
		if (name && !add_pending(idx, dwarf_dieoffset(&child), name, scope, tag, flags))
			return false;
		Dwarf_Attribute a;
		Dwarf_Die spec;
		if (!name && location && tag == DW_TAG_variable &&
		    dwarf_attr(&child, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec) &&
		    dwarf_cu_getdwarf(spec.cu) == idx->dw &&
		    !add_spec(idx, dwarf_dieoffset(&spec), dwarf_dieoffset(&child)))
			return false;
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

/* Index the next unit.  False when there is none left.  */
static bool scan_more(struct sg_name_index *idx)
{
	if (idx->done)
		return false;
	Dwarf_Off off = idx->next_unit, next;
	size_t hsize;
	Dwarf_Half version;
	Dwarf_Off abbrev_off;
	uint8_t addr_size, offset_size;
	if (dwarf_next_unit(idx->dw, off, &next, &hsize, &version, &abbrev_off, &addr_size,
			    &offset_size, NULL, NULL) != 0) {
		idx->done = true;
		return false;
	}
	idx->next_unit = next;
	idx->units_scanned++;
	idx->npending = 0;
	idx->nspecs_before = idx->nspecs;
	if (!idx->use_libdw && scan_unit_raw(idx, off, next, hsize, version, abbrev_off,
					     addr_size, offset_size)) {
		idx->units_raw++;
	} else {
		idx->npending = 0;
		idx->nspecs = idx->nspecs_before;
		Dwarf_Die cu;
		if (dwarf_offdie(idx->dw, off + hsize, &cu))
			scan_children_libdw(idx, &cu, 0, 0);
	}
	/* On allocation failure the unit keeps what was committed.  */
	commit(idx);
	return true;
}

bool sg_name_index_next(struct sg_name_index *idx, const char *name, uint32_t *cursor,
			struct sg_name_entry *ret)
{
	uint32_t e;
	for (;;) {
		if (*cursor == 0) {
			uint32_t ni = sg_strmap_get(&idx->name_map, name);
			e = ni == NONE ? NONE : idx->names[ni].head;
		} else {
			e = idx->entries[*cursor - 1].next;
		}
		if (e != NONE || !scan_more(idx))
			break;
	}
	if (e == NONE)
		return false;
	*cursor = e + 1;
	*ret = idx->entries[e];
	return true;
}

void sg_name_index_scan_all(struct sg_name_index *idx)
{
	while (scan_more(idx))
		;
}

bool sg_name_index_at(struct sg_name_index *idx, Dwarf_Off off, struct sg_name_entry *ret)
{
	while (!idx->done && idx->next_unit <= off && scan_more(idx))
		;
	size_t lo = 0, hi = idx->nentries;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx->entries[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == idx->nentries || idx->entries[lo].off != off)
		return false;
	*ret = idx->entries[lo];
	return true;
}

static int spec_cmp(const void *a, const void *b)
{
	const struct spec *x = a, *y = b;
	return x->decl < y->decl ? -1 : x->decl > y->decl;
}

Dwarf_Off sg_name_index_definition(struct sg_name_index *idx, Dwarf_Off decl)
{
	/* GCC puts the definition in the declaration's unit.  */
	while (!idx->done && idx->next_unit <= decl && scan_more(idx))
		;
	/* qsort and bsearch take no NULL array, even of no elements.  */
	if (!idx->nspecs)
		return 0;
	if (!idx->specs_sorted) {
		qsort(idx->specs, idx->nspecs, sizeof(*idx->specs), spec_cmp);
		idx->specs_sorted = true;
	}
	struct spec key = { decl, 0 };
	struct spec *s = bsearch(&key, idx->specs, idx->nspecs, sizeof(*idx->specs), spec_cmp);
	return s ? s->def : 0;
}
