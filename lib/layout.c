/* Layout bindings: a plugin's declared members resolved to offsets once,
   from DWARF, or from the plugin's own table where no DWARF describes the
   type.  Names in a spec are slices of the plugin's strings ("frame|func"):
   alternatives split at '|', paths at '.'.  */
#include <config.h>
#include "internal.h"
#include <spyglass/layout.h>

#include <dwarf.h>
#include <inttypes.h>

#define MAX_PATH 8		/* components of "a.b.c" */
#define MAX_ANON_DEPTH 8	/* anonymous struct in anonymous union in ... */
#define MAX_BASES 64		/* classes searched per member, bases included */
#define MAX_NAME 1024
/* Member DIEs looked at per name: anonymous members of hostile DWARF
   could otherwise nest into an exponential walk.  */
#define MAX_VISITS 100000

/* A slice of a spec string.  */
struct slice {
	const char *s;
	size_t len;
};

static bool slice_is(struct slice a, const char *s)
{
	return s && strlen(s) == a.len && !memcmp(a.s, s, a.len);
}

/* The next part of *REST up to SEP, into *RET; false at the end.  */
static bool next_part(struct slice *rest, char sep, struct slice *ret)
{
	if (!rest->s)
		return false;
	const char *end = memchr(rest->s, sep, rest->len);
	ret->s = rest->s;
	ret->len = end ? (size_t)(end - rest->s) : rest->len;
	if (end) {
		rest->len -= ret->len + 1;
		rest->s = end + 1;
	} else {
		rest->s = NULL;
	}
	return true;
}

/* Every alternative non-empty, every path component too, at most
   MAX_PATH of them.  */
static bool well_formed(struct slice spec)
{
	struct slice alt;
	while (next_part(&spec, '|', &alt)) {
		struct slice comp;
		size_t n = 0;
		while (next_part(&alt, '.', &comp))
			if (!comp.len || ++n > MAX_PATH)
				return false;
		if (!n)
			return false;
	}
	return true;
}

static struct slice member_slice(const char *member, bool *optional_ret)
{
	*optional_ret = member[0] == '?';
	member += *optional_ret;
	return (struct slice){ member, strlen(member) };
}

/* ---- DWARF ---- */

/* Why an alternative did not resolve; the first reason other than
   MISSING is what the error reports.  */
enum status {
	FOUND,
	MISSING,
	VIRTUAL_BASE,		/* the member is in a virtual base */
	NO_OFFSET,		/* its location is not a constant */
	STATIC,
	NOT_AGGREGATE,		/* a path goes through a scalar or a pointer */
};

struct hit {
	Dwarf_Die type;		/* the member's type */
	uint64_t offset, size;
	unsigned bit_offset, bit_size;
};

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

static bool die_flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	bool flag = false;
	if (dwarf_attr(die, name, &a))
		dwarf_formflag(&a, &flag);
	return flag;
}

static bool die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr(die, name, &a) && dwarf_formudata(&a, ret) == 0;
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* TYPE without typedefs and qualifiers, and complete if it was a
   declaration.  */
static void type_resolve(struct sg_target *t, const Dwarf_Die *type, Dwarf_Die *ret)
{
	Dwarf_Die stripped;
	sg_type_strip(type, &stripped);
	sg_type_complete(t, &stripped, ret);
}

/* DW_AT_data_member_location of DIE: absent means 0 (union members);
   a constant, or an expression that is a single DW_OP_plus_uconst (old
   DWARF).  False when it is computed at run time (virtual bases).  */
static bool member_location(Dwarf_Die *die, uint64_t *ret)
{
	Dwarf_Attribute a;
	*ret = 0;
	if (!dwarf_attr(die, DW_AT_data_member_location, &a))
		return true;
	unsigned form = dwarf_whatform(&a);
	if (form != DW_FORM_exprloc && form != DW_FORM_block && form != DW_FORM_block1 &&
	    form != DW_FORM_block2 && form != DW_FORM_block4) {
		Dwarf_Word w;
		if (dwarf_formudata(&a, &w) != 0)
			return false;
		*ret = w;
		return true;
	}
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_getlocation(&a, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_plus_uconst)
		return false;
	*ret = ops[0].number;
	return true;
}

/* Size of the member type TYPE; references have no DW_AT_byte_size in
   some producers but are pointers underneath.  */
static uint64_t member_size(Dwarf_Die *type)
{
	uint64_t size = sg_type_size(type);
	Dwarf_Die st;
	sg_type_strip(type, &st);
	int tag = dwarf_tag(&st);
	if (!size && (tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type))
		size = 8;
	return size;
}

/* Fill HIT for the data member DIE of a class at byte OFF.  */
static enum status member_hit(Dwarf_Die *die, uint64_t off, struct hit *hit)
{
	uint64_t loc;
	if (!die_type(die, &hit->type))
		return MISSING;
	if (!member_location(die, &loc))
		return NO_OFFSET;
	Dwarf_Word bits;
	if (!die_udata(die, DW_AT_bit_size, &bits)) {
		hit->offset = off + loc;
		hit->size = member_size(&hit->type);
		hit->bit_offset = hit->bit_size = 0;
		return FOUND;
	}
	uint64_t bitpos, width;
	if (!sg_member_bit_field(die, &bitpos, &width))
		return MISSING;
	bitpos += off * 8;
	hit->offset = bitpos / 8;
	hit->bit_offset = bitpos % 8;
	hit->bit_size = bits;
	hit->size = (hit->bit_offset + bits + 7) / 8;
	return FOUND;
}

struct base {
	Dwarf_Die type;
	uint64_t off;
	bool virt;		/* reached through a virtual base: no fixed offset */
};

struct search {
	struct sg_target *t;
	struct slice name;
	struct base queue[MAX_BASES];
	size_t tail;
	size_t visits;
};

/* NAME among the members of CLS at OFF, its anonymous members included
   (they belong to the same scope).  Bases are queued when BASE is not
   NULL, that is, for the class itself but not inside anonymous members.  */
static enum status search_members(struct search *s, Dwarf_Die *cls, const struct base *base,
				  uint64_t off, int depth, struct hit *hit)
{
	Dwarf_Die c;
	if (dwarf_child(cls, &c) != 0)
		return MISSING;
	do {
		if (++s->visits > MAX_VISITS)
			return MISSING;
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);
		Dwarf_Die mt, full;
		uint64_t loc;
		if ((tag == DW_TAG_member || tag == DW_TAG_variable) && slice_is(s->name, name)) {
			/* DWARF 4 spells a static member as a declared member,
			   DWARF 5 as a variable.  */
			if (tag == DW_TAG_variable || die_flag(&c, DW_AT_declaration) ||
			    die_flag(&c, DW_AT_external))
				return STATIC;
			if (base && base->virt)
				return VIRTUAL_BASE;
			enum status st = member_hit(&c, off, hit);
			if (st != MISSING)
				return st;
		} else if (tag == DW_TAG_member && !name && depth < MAX_ANON_DEPTH &&
			   die_type(&c, &mt)) {
			type_resolve(s->t, &mt, &full);
			if (!is_aggregate(dwarf_tag(&full)))
				continue;
			if (!member_location(&c, &loc))
				continue;
			enum status st = search_members(s, &full, NULL, off + loc, depth + 1, hit);
			if (st != MISSING)
				return base && base->virt && st == FOUND ? VIRTUAL_BASE : st;
		} else if (tag == DW_TAG_inheritance && base && s->tail < MAX_BASES &&
			   die_type(&c, &mt)) {
			struct base *b = &s->queue[s->tail++];
			b->type = mt;
			b->virt = base->virt || !member_location(&c, &loc) ||
				  dwarf_hasattr(&c, DW_AT_virtuality);
			b->off = b->virt ? 0 : off + loc;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return MISSING;
}

/* NAME in the class TYPE at OFF or its bases, nearest first.  */
static enum status find_member(struct sg_target *t, const Dwarf_Die *type, uint64_t off,
			       struct slice name, struct hit *hit)
{
	struct search search, *s = &search;
	s->t = t;
	s->name = name;
	s->queue[0] = (struct base){ .type = *type, .off = off };
	s->tail = 1;
	s->visits = 0;
	enum status st = MISSING;
	for (size_t head = 0; head < s->tail && st == MISSING; head++) {
		Dwarf_Die full;
		type_resolve(t, &s->queue[head].type, &full);
		struct base b = s->queue[head];
		st = search_members(s, &full, &b, b.off, 0, hit);
	}
	return st;
}

/* The path PATH ("a.b.c") in the class TYPE.  On NOT_AGGREGATE,
   *PREFIX_RET is the part of PATH that is not a class.  */
static enum status find_path(struct sg_target *t, const Dwarf_Die *type, struct slice path,
			     struct hit *hit, struct slice *prefix_ret)
{
	Dwarf_Die cur = *type;
	uint64_t off = 0;
	struct slice comp, rest = path;
	bool first = true;
	while (next_part(&rest, '.', &comp)) {
		if (!first) {
			Dwarf_Die full;
			type_resolve(t, &cur, &full);
			if (hit->bit_size || !is_aggregate(dwarf_tag(&full))) {
				prefix_ret->s = path.s;
				prefix_ret->len = (size_t)(comp.s - path.s) - 1;
				return NOT_AGGREGATE;
			}
			cur = full;
		}
		first = false;
		enum status st = find_member(t, &cur, off, comp, hit);
		if (st != FOUND)
			return st;
		cur = hit->type;
		off = hit->offset;
	}
	return FOUND;
}

/* ---- results ---- */

struct result {
	struct slice member;	/* without the '?' */
	struct slice name;	/* the alternative that matched */
	unsigned alternative;
	bool present;
	uint64_t offset, size;
	unsigned bit_offset, bit_size;
};

static size_t pool_put(char *pool, size_t *used, struct slice s)
{
	size_t at = *used;
	memcpy(pool + at, s.s, s.len);
	pool[at + s.len] = '\0';
	*used += s.len + 1;
	return at;
}

/* One allocation holding the layout, its fields and copies of its
   strings.  */
static struct sg_error *build_layout(struct slice type, unsigned type_alt, uint64_t size,
				     const struct sg_layout_table *table, const struct result *res,
				     size_t n, struct sg_layout **ret)
{
	static const char note_fmt[] = "layout from built-in table %s: no DWARF for %.*s";
	size_t pool = type.len + 1;
	if (table)
		pool += 2 * strlen(table->label) + sizeof(note_fmt) + 2 * type.len + 2;
	for (size_t i = 0; i < n; i++)
		pool += res[i].member.len + res[i].name.len + 2;
	struct sg_layout *l = malloc(sizeof(*l) + n * sizeof(l->fields[0]) + pool);
	if (!l)
		return &sg_enomem;
	l->fields = (struct sg_layout_field *)(l + 1);
	char *p = (char *)(l->fields + n);
	size_t used = 0;
	l->type = p + pool_put(p, &used, type);
	l->type_alternative = type_alt;
	l->size = size;
	l->nfields = n;
	l->table = l->note = NULL;
	if (table) {
		l->table = p + pool_put(p, &used, (struct slice){ table->label, strlen(table->label) });
		l->note = p + used;
		used += (size_t)snprintf(p + used, pool - used, note_fmt, table->label,
					 (int)type.len, type.s) + 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct sg_layout_field *f = &l->fields[i];
		f->member = p + pool_put(p, &used, res[i].member);
		f->name = res[i].present ? p + pool_put(p, &used, res[i].name) : NULL;
		f->alternative = res[i].alternative;
		f->present = res[i].present;
		f->offset = res[i].offset;
		f->size = res[i].size;
		f->bit_offset = res[i].bit_offset;
		f->bit_size = res[i].bit_size;
	}
	*ret = l;
	return NULL;
}

static struct sg_error *no_member(struct slice type, struct slice member,
				  const struct sg_layout_table *table)
{
	return sg_error_format(SG_ERROR_LOOKUP, "%.*s has no member %.*s%s%s", (int)type.len,
			       type.s, (int)member.len, member.s, table ? " in built-in table " : "",
			       table ? table->label : "");
}

/* Resolve one member in the DWARF type TYPE, spelled TNAME.  */
static struct sg_error *resolve_dwarf_member(struct sg_target *t, const Dwarf_Die *type,
					     struct slice tname, const char *spec,
					     struct result *r)
{
	bool optional;
	struct slice member = member_slice(spec, &optional), rest = member, alt;
	enum status why = MISSING;
	struct slice why_alt = { 0 }, prefix = { 0 };
	r->member = member;
	for (unsigned i = 0; next_part(&rest, '|', &alt); i++) {
		struct hit hit = { 0 };
		struct slice pre = { 0 };
		enum status st = find_path(t, type, alt, &hit, &pre);
		if (st == FOUND) {
			*r = (struct result){ .member = member, .name = alt, .alternative = i,
					      .present = true, .offset = hit.offset, .size = hit.size,
					      .bit_offset = hit.bit_offset, .bit_size = hit.bit_size };
			return NULL;
		}
		if (st != MISSING && why == MISSING) {
			why = st;
			why_alt = alt;
			prefix = pre;
		}
	}
	int tl = (int)tname.len, al = (int)why_alt.len;
	switch (why) {
	case MISSING:
		if (optional) {
			r->present = false;
			return NULL;
		}
		return no_member(tname, member, NULL);
	case VIRTUAL_BASE:
		return sg_error_format(SG_ERROR_LOOKUP,
				       "%.*s member %.*s is in a virtual base: no fixed offset", tl,
				       tname.s, al, why_alt.s);
	case NO_OFFSET:
		return sg_error_format(SG_ERROR_LOOKUP, "%.*s member %.*s has no fixed offset", tl,
				       tname.s, al, why_alt.s);
	case STATIC:
		return sg_error_format(SG_ERROR_LOOKUP,
				       "%.*s member %.*s is static: no offset in the object", tl,
				       tname.s, al, why_alt.s);
	case NOT_AGGREGATE:
		return sg_error_format(SG_ERROR_LOOKUP,
				       "%.*s member %.*s: %.*s is not a struct, class or union", tl,
				       tname.s, al, why_alt.s, (int)prefix.len, prefix.s);
	case FOUND:
		break;
	}
	return NULL;
}

/* Resolve one member from TABLE's rows for TNAME.  */
static struct sg_error *resolve_table_member(const struct sg_layout_table *table,
					     struct slice tname, const char *spec,
					     struct result *r)
{
	bool optional;
	struct slice member = member_slice(spec, &optional), rest = member, alt;
	*r = (struct result){ .member = member };
	for (unsigned i = 0; next_part(&rest, '|', &alt); i++) {
		for (const struct sg_layout_row *row = table->rows; row->type; row++) {
			if (!row->member || !slice_is(tname, row->type) || !slice_is(alt, row->member))
				continue;
			if (row->bit_size > 64 || row->bit_offset > 7 ||
			    (!row->bit_size && row->bit_offset))
				return sg_error_format(SG_ERROR_USAGE,
						       "bad row %s.%s in built-in table %s",
						       row->type, row->member, table->label);
			*r = (struct result){ .member = member, .name = alt, .alternative = i,
					      .present = true, .offset = row->offset,
					      .size = row->size, .bit_offset = row->bit_offset,
					      .bit_size = row->bit_size };
			return NULL;
		}
	}
	return optional ? NULL : no_member(tname, member, table);
}

/* The first spelling in TYPES that some module's DWARF defines.  */
static struct sg_error *lookup_dwarf_type(struct sg_target *t, struct slice types,
					  Dwarf_Die *ret, struct slice *name_ret,
					  unsigned *alt_ret)
{
	struct slice alt;
	for (unsigned i = 0; next_part(&types, '|', &alt); i++) {
		char buf[MAX_NAME];
		if (alt.len >= sizeof(buf))
			continue;
		memcpy(buf, alt.s, alt.len);
		buf[alt.len] = '\0';
		Dwarf_Die die;
		struct sg_error *err = sg_lookup_type(t, buf, &die);
		if (sg_error_catch(&err, SG_ERROR_NOT_FOUND))
			continue;
		if (err)
			return err;
		type_resolve(t, &die, ret);
		/* A declaration whose definition is nowhere is no layout.  */
		if (die_flag(ret, DW_AT_declaration))
			continue;
		*name_ret = alt;
		*alt_ret = i;
		return NULL;
	}
	return &sg_not_found;
}

/* The first spelling in TYPES that TABLE has rows for.  */
static bool lookup_table_type(const struct sg_layout_table *table, struct slice types,
			      struct slice *name_ret, unsigned *alt_ret, uint64_t *size_ret)
{
	struct slice alt;
	for (unsigned i = 0; next_part(&types, '|', &alt); i++) {
		bool any = false;
		*size_ret = 0;
		for (const struct sg_layout_row *row = table->rows; row->type; row++) {
			if (!slice_is(alt, row->type))
				continue;
			any = true;
			if (!row->member)
				*size_ret = row->size;
		}
		if (any) {
			*name_ret = alt;
			*alt_ret = i;
			return true;
		}
	}
	return false;
}

/* SPEC's type spellings into *TYPES and its member count into *N, or a
   usage error for a malformed spec.  */
static struct sg_error *check_spec(const struct sg_layout_spec *spec, struct slice *types, size_t *n)
{
	*types = (struct slice){ spec->type ? spec->type : "", spec->type ? strlen(spec->type) : 0 };
	if (!well_formed(*types) || memchr(types->s, '.', types->len))
		return sg_error_format(SG_ERROR_USAGE, "bad layout type \"%.*s\"", (int)types->len,
				       types->s);
	for (*n = 0; spec->members && spec->members[*n]; (*n)++) {
		bool optional;
		if (!well_formed(member_slice(spec->members[*n], &optional)))
			return sg_error_format(SG_ERROR_USAGE, "bad layout member \"%s\"",
					       spec->members[*n]);
	}
	return NULL;
}

struct sg_error *sg_layout_resolve(struct sg_target *t, const struct sg_layout_spec *spec,
				   const struct sg_layout_table *fallback, struct sg_layout **ret)
{
	struct slice types;
	size_t n;
	struct sg_error *err = check_spec(spec, &types, &n);
	if (err)
		return err;

	Dwarf_Die type;
	struct slice tname;
	unsigned talt;
	uint64_t size = 0;
	const struct sg_layout_table *table = NULL;
	err = lookup_dwarf_type(t, types, &type, &tname, &talt);
	if (err == &sg_not_found) {
		if (!fallback || !lookup_table_type(fallback, types, &tname, &talt, &size))
			return sg_error_format(SG_ERROR_LOOKUP,
					       "no type %.*s in the target's DWARF%s%s",
					       (int)types.len, types.s,
					       fallback ? " or in built-in table " : "",
					       fallback ? fallback->label : "");
		table = fallback;
		err = NULL;
	} else if (err) {
		return err;
	} else {
		size = sg_type_size(&type);
	}

	struct result *res = calloc(n ? n : 1, sizeof(*res));
	if (!res)
		return &sg_enomem;
	for (size_t i = 0; i < n && !err; i++)
		err = table ? resolve_table_member(table, tname, spec->members[i], &res[i])
			    : resolve_dwarf_member(t, &type, tname, spec->members[i], &res[i]);
	if (!err)
		err = build_layout(tname, talt, size, table, res, n, ret);
	free(res);
	return err;
}

struct sg_error *sg_layout_resolve_table(const struct sg_layout_spec *spec,
					 const struct sg_layout_table *table, struct sg_layout **ret)
{
	struct slice types;
	size_t n;
	struct sg_error *err = check_spec(spec, &types, &n);
	if (err)
		return err;
	struct slice tname;
	unsigned talt;
	uint64_t size;
	if (!lookup_table_type(table, types, &tname, &talt, &size))
		return sg_error_format(SG_ERROR_LOOKUP, "no type %.*s in built-in table %s",
				       (int)types.len, types.s, table->label);
	struct result *res = calloc(n ? n : 1, sizeof(*res));
	if (!res)
		return &sg_enomem;
	for (size_t i = 0; i < n && !err; i++)
		err = resolve_table_member(table, tname, spec->members[i], &res[i]);
	if (!err)
		err = build_layout(tname, talt, size, table, res, n, ret);
	free(res);
	return err;
}

void sg_layout_destroy(struct sg_layout *layout)
{
	free(layout);
}

struct sg_error *sg_layout_read_uint(struct sg_target *t, const struct sg_layout *l, size_t index,
				     uint64_t address, uint64_t *ret)
{
	if (index >= l->nfields)
		return sg_error_format(SG_ERROR_USAGE, "layout of %s has no field %zu", l->type,
				       index);
	const struct sg_layout_field *f = &l->fields[index];
	if (!f->present)
		return sg_error_format(SG_ERROR_LOOKUP, "%s has no member %s", l->type, f->member);
	if (!f->bit_size && (f->size == 0 || f->size > 8))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "%s member %s is %" PRIu64 " bytes, not a scalar of at most 8",
				       l->type, f->name, f->size);
	/* A bit field of up to 64 bits may span 9 bytes.  */
	unsigned char buf[16] = { 0 };
	size_t size = f->bit_size ? (f->bit_offset + f->bit_size + 7) / 8 : f->size;
	struct sg_error *err = sg_target_read(t, address + f->offset, buf, size);
	if (err)
		return err;
	unsigned __int128 x = 0;
	for (size_t i = size; i-- > 0;)
		x = x << 8 | buf[i];
	if (f->bit_size) {
		x >>= f->bit_offset;
		if (f->bit_size < 64)
			x &= (((unsigned __int128)1) << f->bit_size) - 1;
	}
	*ret = (uint64_t)x;
	return NULL;
}
