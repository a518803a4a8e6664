/* libcxx: typed readers for LLVM's libc++ (std::__1), printing what gdb's
   libstdc++ printers print for the same libstdc++ types, so that users see
   one shape whichever library the program uses.

   The layout comes from the program's DWARF: member names and offsets
   (through anonymous unions and base classes), bit-fields, and the
   constants libc++ declares as static members (the string's
   __short_mask).  Nothing depends on which compiler built the program.
   Every walk is bounded by the container's own count.  */
#define _GNU_SOURCE	/* asprintf */
#include <spyglass/spyglass.h>

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A container claiming more than this is garbage.  */
#define MAX_SANE_COUNT (UINT64_C(1) << 32)
/* Nesting of anonymous unions and bases searched for a member.  */
#define MAX_FIELD_DEPTH 8

typedef int child_fn(const char *name, struct sg_value *child, void *fn_arg);

/* "print elements" for strings, which are read whole: "unlimited" stops
   at 16M characters, as the value printer's arrays do (then "...").  */
static size_t print_limit(struct sg_session *session)
{
	uint64_t n = sg_setting_uint(session, "print elements", 200);
	return n > (1u << 24) ? (1u << 24) : n;
}

/* ---- DWARF: fields, constants, template arguments ---- */

/* The class TYPE itself, without typedefs, qualifiers or declarations.  */
static void class_of(struct sg_target *t, const Dwarf_Die *type, Dwarf_Die *ret)
{
	Dwarf_Die st;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, ret);
}

/* A data member: where it starts in bits from the outer object, how many
   bits it has (a bit-field's width, else its type's), and its type.  */
struct field {
	uint64_t bit;
	uint64_t bits;
	Dwarf_Die type;
};

/* Where member C starts, in bits from its class, and its width.  */
static bool field_place(Dwarf_Die *c, struct field *f)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	uint64_t size = sg_type_size(&f->type);
	f->bits = size * 8;
	if (dwarf_attr(c, DW_AT_bit_size, &a) && dwarf_formudata(&a, &w) == 0)
		f->bits = w;
	if (dwarf_attr(c, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &w) == 0) {
		f->bit = w;
		return true;
	}
	f->bit = 0;
	if (dwarf_attr(c, DW_AT_data_member_location, &a)) {
		if (dwarf_formudata(&a, &w) != 0)
			return false;	/* a location expression: a virtual base */
		f->bit = w * 8;
	}
	/* DWARF 2's bit offset counts from the storage unit's top bit.  */
	if (dwarf_attr(c, DW_AT_bit_offset, &a) && dwarf_formudata(&a, &w) == 0)
		f->bit += size * 8 - w - f->bits;
	return true;
}

/* The data member NAME of the class TYPE, also inside anonymous unions
   and structs and base classes (depth first, in declaration order), into
   *RET with its place counted from TYPE's start.  */
static bool find_field(struct sg_target *t, const Dwarf_Die *type, const char *name,
		       struct field *ret, int depth)
{
	Dwarf_Die cls, c;
	if (depth > MAX_FIELD_DEPTH)
		return false;
	class_of(t, type, &cls);
	if (dwarf_child(&cls, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		if (dwarf_hasattr(&c, DW_AT_declaration) || dwarf_hasattr(&c, DW_AT_external))
			continue;	/* a static member */
		struct field f;
		Dwarf_Attribute a;
		if (!dwarf_formref_die(dwarf_attr_integrate(&c, DW_AT_type, &a), &f.type) ||
		    !field_place(&c, &f))
			continue;
		const char *n = dwarf_diename(&c);
		if (tag == DW_TAG_member && n) {
			if (strcmp(n, name))
				continue;
			*ret = f;
			return true;
		}
		/* An anonymous union or struct, or a base class.  */
		if (find_field(t, &f.type, name, ret, depth + 1)) {
			ret->bit += f.bit;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The path of members A.B.C of TYPE, as one field.  */
static bool find_path(struct sg_target *t, const Dwarf_Die *type, const char *const *path,
		      struct field *ret)
{
	struct field f = { .type = *type };
	uint64_t bit = 0;
	for (size_t i = 0; path[i]; i++) {
		if (!find_field(t, &f.type, path[i], &f, 0))
			return false;
		bit += f.bit;
	}
	*ret = f;
	ret->bit = bit;
	return true;
}

/* The constant value of the static member NAME of the class TYPE.  */
static bool class_constant(struct sg_target *t, const Dwarf_Die *type, const char *name,
			   uint64_t *ret)
{
	Dwarf_Die cls, c;
	class_of(t, type, &cls);
	if (dwarf_child(&cls, &c) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&c);
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (n && !strcmp(n, name) && dwarf_attr(&c, DW_AT_const_value, &a) &&
		    dwarf_formudata(&a, &w) == 0) {
			*ret = w;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Template type argument N of the class TYPE.  */
static bool template_arg(struct sg_target *t, const Dwarf_Die *type, unsigned n, Dwarf_Die *ret)
{
	Dwarf_Die cls, c;
	class_of(t, type, &cls);
	if (dwarf_child(&cls, &c) != 0)
		return false;
	unsigned i = 0;
	do {
		Dwarf_Attribute a;
		if (dwarf_tag(&c) == DW_TAG_template_type_parameter && i++ == n)
			return dwarf_formref_die(dwarf_attr_integrate(&c, DW_AT_type, &a), ret);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Bits [BIT, BIT + BITS) of the little-endian bytes BUF (LEN long).  */
static uint64_t get_bits(const unsigned char *buf, size_t len, uint64_t bit, uint64_t bits)
{
	uint64_t x = 0;
	for (uint64_t i = 0; i < bits && i < 64; i++) {
		uint64_t b = bit + i;
		if (b / 8 < len && (buf[b / 8] >> (b % 8)) & 1)
			x |= UINT64_C(1) << i;
	}
	return x;
}

/* ---- values ---- */

/* The member NAME of V; when it is a libc++ compressed pair, its first
   element (__value_).  Newer libc++ declares plain members where older
   versions have pairs, so this reads both.  */
static struct sg_error *pair_member(const struct sg_value *v, const char *name,
				    struct sg_value **ret)
{
	struct sg_value *m;
	struct sg_error *err = sg_value_member(v, name, &m);
	if (err)
		return err;
	Dwarf_Die st;
	sg_type_strip(sg_value_type(m), &st);
	int tag = dwarf_tag(&st);
	if (tag != DW_TAG_class_type && tag != DW_TAG_structure_type) {
		*ret = m;
		return NULL;
	}
	err = sg_value_member(m, "__value_", ret);
	sg_value_destroy(m);
	return err;
}

/* The scalar pair_member() NAME of V, or else ALT (may be NULL): the name
   a newer libc++ gives it.  */
static struct sg_error *pair_first(const struct sg_value *v, const char *name, const char *alt,
				   uint64_t *ret)
{
	struct sg_value *m;
	struct sg_error *err = pair_member(v, name, &m);
	if (err && alt && sg_error_catch(&err, SG_ERROR_LOOKUP))
		err = pair_member(v, alt, &m);
	if (err)
		return err;
	err = sg_value_read_uint(m, ret);
	sg_value_destroy(m);
	return err;
}

/* What a reader is registered with: the name its summary shows, and the
   member paths ("__tree_.__begin_node_") that tell libc++'s layout from
   another library's.  */
struct kind {
	const char *shown;
	const char *const *fields;
};

/* Does V's class have the data members KIND names (through bases and
   anonymous unions)?  */
static bool fields_match(struct sg_session *session SG_UNUSED, const struct sg_value *v, void *arg)
{
	const struct kind *k = arg;
	for (size_t i = 0; k->fields[i]; i++) {
		char buf[128];
		const char *path[8];
		size_t n = 0;
		snprintf(buf, sizeof(buf), "%s", k->fields[i]);
		for (char *save, *w = strtok_r(buf, ".", &save); w && n < 7; w = strtok_r(NULL, ".", &save))
			path[n++] = w;
		path[n] = NULL;
		struct field f;
		if (!find_path(sg_value_target(v), sg_value_type(v), path, &f))
			return false;
	}
	return true;
}

/* Hand FN the element of type ELEM at ADDR, named "[I]" as gdb names a
   container's children; *R gets FN's answer.  */
static struct sg_error *emit_at(struct sg_target *t, const Dwarf_Die *elem, uint64_t addr,
				uint64_t i, child_fn *fn, void *fn_arg, int *r)
{
	struct sg_value *child;
	struct sg_error *err = sg_value_at(t, elem, addr, &child);
	if (err)
		return err;
	char name[32];
	snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
	*r = fn(name, child, fn_arg);
	sg_value_destroy(child);
	return NULL;
}

/* ---- std::string ---- */

/* The escape gdb writes for C, or 0 when it writes C itself.  */
static char named_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '"': return '"';
	case '\\': return '\\';
	default: return 0;
	}
}

/* BYTES as a C string literal the way gdb prints one: named escapes for
   the usual control characters, three octal digits for the others.  */
static char *quote(const unsigned char *bytes, size_t n, bool more)
{
	char *s = malloc(n * 4 + 6);
	if (!s)
		return NULL;
	char *p = s;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = bytes[i];
		char e = named_escape(c);
		if (e) {
			*p++ = '\\';
			*p++ = e;
		} else if (c < 0x20 || c >= 0x7f) {
			p += sprintf(p, "\\%03o", c);
		} else {
			*p++ = (char)c;
		}
	}
	strcpy(p, more ? "\"..." : "\"");
	return s;
}

/* Where libc++'s string keeps what, in bits from the object's start.  The
   "alternate" layout (_LIBCPP_ABI_ALTERNATE_STRING_LAYOUT) puts the data
   pointer first and the short size last; libc++ up to 14 marks the long
   mode with a mask (static __short_mask, __long_mask), later versions with
   an __is_long_ bit-field.  */
struct str_layout {
	uint64_t size;			/* the whole object, bytes */
	struct field l_size, l_cap, l_data, s_size, s_data;
	struct field flag;		/* one bit: long mode */
	bool masked;			/* short size shares its byte with the flag */
	uint64_t long_mask;		/* cleared from the capacity */
};

static struct sg_error *str_layout(const struct sg_value *v, struct str_layout *lay)
{
	static const char *const rep_old[] = { "__r_", "__value_", NULL };
	static const char *const rep_new[] = { "__rep_", NULL };
	static const char *const ls[] = { "__l", "__size_", NULL }, *const lc[] = { "__l", "__cap_", NULL },
			  *const ld[] = { "__l", "__data_", NULL }, *const ss[] = { "__s", "__size_", NULL },
			  *const sd[] = { "__s", "__data_", NULL }, *const sl[] = { "__s", "__is_long_", NULL };
	struct sg_target *t = sg_value_target(v);
	const Dwarf_Die *type = sg_value_type(v);
	struct field rep;
	lay->size = sg_type_size(type);
	if ((!find_path(t, type, rep_old, &rep) && !find_path(t, type, rep_new, &rep)) ||
	    !find_path(t, &rep.type, ls, &lay->l_size) || !find_path(t, &rep.type, lc, &lay->l_cap) ||
	    !find_path(t, &rep.type, ld, &lay->l_data) || !find_path(t, &rep.type, ss, &lay->s_size) ||
	    !find_path(t, &rep.type, sd, &lay->s_data))
		return sg_error_create(SG_ERROR_LOOKUP, "not a libc++ string: no __rep with __l and __s");
	struct field *all[] = { &lay->l_size, &lay->l_cap, &lay->l_data, &lay->s_size, &lay->s_data };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]->bit += rep.bit;
	uint64_t mask;
	lay->masked = class_constant(t, type, "__short_mask", &mask);
	if (lay->masked) {
		/* The flag is the one bit of __short_mask in the short size's
		   byte: bit 0 in the default layout (the size is shifted up),
		   bit 7 in the alternate one.  */
		if (!mask || mask & (mask - 1) || (lay->s_size.bits < 64 && mask >> lay->s_size.bits))
			return sg_error_format(SG_ERROR_BAD_DATA, "libc++ string __short_mask 0x%" PRIx64
					       " is not one bit of __size_", mask);
		lay->flag = lay->s_size;
		lay->flag.bit += (uint64_t)__builtin_ctzll(mask);
		lay->flag.bits = 1;
		if (!class_constant(t, type, "__long_mask", &lay->long_mask))
			lay->long_mask = 0;
	} else if (find_path(t, &rep.type, sl, &lay->flag)) {
		lay->flag.bit += rep.bit;
		lay->long_mask = 0;
	} else {
		return sg_error_create(SG_ERROR_LOOKUP,
				       "libc++ string without __short_mask or __is_long_: unknown layout");
	}
	if (lay->flag.bits != 1 || lay->size > 64 || lay->s_data.bit / 8 >= lay->size)
		return sg_error_create(SG_ERROR_BAD_DATA, "libc++ string layout not understood");
	return NULL;
}

static bool string_match(struct sg_session *session SG_UNUSED, const struct sg_value *v,
			 void *arg SG_UNUSED)
{
	struct str_layout lay;
	struct sg_error *err = str_layout(v, &lay);
	sg_error_destroy(err);
	return !err;
}

static struct sg_error *string_summary(struct sg_session *session, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	struct str_layout lay;
	struct sg_error *err = str_layout(v, &lay);
	if (err)
		return err;
	unsigned char rep[64];
	struct sg_target *t = sg_value_target(v);
	if ((err = sg_target_read(t, sg_value_address(v), rep, lay.size)))
		return err;
	uint64_t len, data;
	if (get_bits(rep, lay.size, lay.flag.bit, 1)) {
		len = get_bits(rep, lay.size, lay.l_size.bit, lay.l_size.bits);
		data = get_bits(rep, lay.size, lay.l_data.bit, lay.l_data.bits);
		uint64_t cap = get_bits(rep, lay.size, lay.l_cap.bit, lay.l_cap.bits) & ~lay.long_mask;
		if (len > MAX_SANE_COUNT)
			return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64
					       " is not sane", len);
		/* Newer libc++ may store the capacity halved: allow for it
		   when the layout is not the masked one.  */
		if (lay.masked ? len > cap : len / 2 > cap)
			return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64
					       " exceeds its capacity %" PRIu64, len, cap);
	} else {
		uint64_t raw = get_bits(rep, lay.size, lay.s_size.bit, lay.s_size.bits);
		/* With a mask, the size is the byte without the flag: shifted
		   down when the flag is bit 0.  */
		len = !lay.masked ? raw : lay.flag.bit == lay.s_size.bit ? raw >> 1
			: raw & ~(UINT64_C(1) << (lay.flag.bit - lay.s_size.bit));
		data = sg_value_address(v) + lay.s_data.bit / 8;
		/* The inline array holds the characters and a NUL.  */
		uint64_t room = sg_type_size(&lay.s_data.type);
		if (len >= room)
			return sg_error_format(SG_ERROR_BAD_DATA, "short std::string of length %" PRIu64
					       " does not fit its %" PRIu64 " bytes", len, room);
	}
	size_t limit = print_limit(session), want = len < limit ? len : limit;
	unsigned char *buf = malloc(want ? want : 1);
	if (!buf)
		return &sg_enomem;
	if ((err = sg_target_read(t, data, buf, want))) {
		free(buf);
		return err;
	}
	*ret = quote(buf, want, want < len);
	free(buf);
	return *ret ? NULL : &sg_enomem;
}

/* ---- std::vector ---- */

struct vec {
	uint64_t begin, end, cap;
	uint64_t esize;
	Dwarf_Die elem;
};

static struct sg_error *vector_read(const struct sg_value *v, struct vec *vec)
{
	struct sg_error *err = pair_first(v, "__begin_", NULL, &vec->begin);
	if (!err)
		err = pair_first(v, "__end_", NULL, &vec->end);
	if (!err)
		err = pair_first(v, "__end_cap_", "__cap_", &vec->cap);
	if (!err)
		err = sg_value_template_type(v, 0, &vec->elem);
	if (err)
		return err;
	vec->esize = sg_type_size(&vec->elem);
	if (!vec->esize || vec->end < vec->begin || vec->cap < vec->end ||
	    (vec->end - vec->begin) % vec->esize || (vec->end - vec->begin) / vec->esize > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a valid std::vector (begin 0x%" PRIx64 ", end 0x%" PRIx64
				       ", end of capacity 0x%" PRIx64 ")", vec->begin, vec->end, vec->cap);
	return NULL;
}

static struct sg_error *vector_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	if (asprintf(ret, "std::vector of length %" PRIu64 ", capacity %" PRIu64,
		     (vec.end - vec.begin) / vec.esize, (vec.cap - vec.begin) / vec.esize) < 0)
		return &sg_enomem;
	return NULL;
}

static struct sg_error *vector_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit, child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	uint64_t n = (vec.end - vec.begin) / vec.esize;
	for (uint64_t i = 0; i < n && i < limit; i++) {
		int r;
		if ((err = emit_at(sg_value_target(v), &vec.elem, vec.begin + i * vec.esize, i, fn,
				   fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

/* ---- std::vector<bool> ---- */

/* Bits packed in words: __begin_ points at the words, __size_ counts the
   bits, the capacity counts words.  */
struct bitvec {
	uint64_t begin, size, cap_words, word_bits;
	Dwarf_Die word;		/* an integer: gdb shows the bits as 0 and 1 */
};

static struct sg_error *bitvec_read(const struct sg_value *v, struct bitvec *bv)
{
	struct sg_target *t = sg_value_target(v);
	struct field begin;
	Dwarf_Die ptr;
	Dwarf_Attribute a;
	struct sg_error *err = pair_first(v, "__begin_", NULL, &bv->begin);
	if (!err)
		err = pair_first(v, "__size_", NULL, &bv->size);
	if (!err)
		err = pair_first(v, "__cap_alloc_", "__cap_", &bv->cap_words);
	if (err)
		return err;
	/* The word is what __begin_ points at.  */
	bv->word_bits = 0;
	if (find_field(t, sg_value_type(v), "__begin_", &begin, 0)) {
		sg_type_strip(&begin.type, &ptr);
		if (dwarf_formref_die(dwarf_attr_integrate(&ptr, DW_AT_type, &a), &bv->word))
			bv->word_bits = sg_type_size(&bv->word) * 8;
	}
	if (!bv->word_bits || bv->word_bits > 64 || bv->size > MAX_SANE_COUNT ||
	    bv->cap_words > MAX_SANE_COUNT / bv->word_bits || bv->size > bv->cap_words * bv->word_bits)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a valid std::vector<bool> (%" PRIu64 " bits in %" PRIu64
				       " words)", bv->size, bv->cap_words);
	return NULL;
}

static struct sg_error *bitvec_summary(struct sg_session *session SG_UNUSED,
				       const struct sg_value *v, char **ret, void *arg SG_UNUSED)
{
	struct bitvec bv;
	struct sg_error *err = bitvec_read(v, &bv);
	if (err)
		return err;
	if (asprintf(ret, "std::vector<bool> of length %" PRIu64 ", capacity %" PRIu64, bv.size,
		     bv.cap_words * bv.word_bits) < 0)
		return &sg_enomem;
	return NULL;
}

static struct sg_error *bitvec_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit, child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	struct bitvec bv;
	struct sg_error *err = bitvec_read(v, &bv);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t word = 0;
	for (uint64_t i = 0; i < bv.size && i < limit; i++) {
		if (i % bv.word_bits == 0) {
			unsigned char w[8];
			if ((err = sg_target_read(t, bv.begin + i / 8, w, bv.word_bits / 8)))
				return err;
			word = get_bits(w, bv.word_bits / 8, 0, bv.word_bits);
		}
		struct sg_value *child;
		if ((err = sg_value_scalar(t, &bv.word, (word >> (i % bv.word_bits)) & 1, &child)))
			return err;
		char name[32];
		snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
		int r = fn(name, child, fn_arg);
		sg_value_destroy(child);
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

/* ---- node containers: list, set, map ---- */

/* The node type of a node container: the template argument of its node
   allocator, which is the second element of the compressed pair PAIR
   (libc++ up to 18) or the member ALLOC (later).  */
static bool node_type(const struct sg_value *v, const char *pair, const char *alloc, Dwarf_Die *ret)
{
	struct sg_target *t = sg_value_target(v);
	struct field f;
	Dwarf_Die a;
	if (find_field(t, sg_value_type(v), pair, &f, 0) && template_arg(t, &f.type, 1, &a))
		return template_arg(t, &a, 0, ret);
	return find_field(t, sg_value_type(v), alloc, &f, 0) && template_arg(t, &f.type, 0, ret);
}

/* Where the node type NODE keeps MEMBER, in bytes.  */
static bool node_offset(struct sg_target *t, const Dwarf_Die *node, const char *member,
			uint64_t *ret)
{
	struct field f;
	if (!find_field(t, node, member, &f, 0) || f.bit % 8)
		return false;
	*ret = f.bit / 8;
	return true;
}

/* A node container as the walk sees it.  */
struct nodes {
	uint64_t first;		/* the first node */
	uint64_t stop;		/* the node after the last: a sentinel, the end node or 0 */
	uint64_t count;
	uint64_t value_off;	/* the value in a node */
	Dwarf_Die elem;		/* its type */
	bool tree;		/* linked by __left_, __right_, __parent_, else by next */
	uint64_t next_off, left, right, parent;	/* the links in a node */
	/* The error when the links go on past the count; NULL to stop at the
	   count quietly (a tree, whose walk cannot tell a cycle).  */
	const char *longer;
};

/* The node type's member __value_ (the element) and the link LINK.  */
static struct sg_error *node_value(struct sg_target *t, const Dwarf_Die *node, const char *link,
				   uint64_t *link_ret, struct nodes *n)
{
	struct field value;
	if (!node_offset(t, node, link, link_ret) || !find_field(t, node, "__value_", &value, 0))
		return sg_error_format(SG_ERROR_LOOKUP, "libc++ node without %s or __value_", link);
	n->value_off = value.bit / 8;
	n->elem = value.type;
	if (n->count > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "container of %" PRIu64 " elements is not sane",
				       n->count);
	return NULL;
}

/* std::list: a ring of nodes through the sentinel __end_ ({__prev_,
   __next_}).  */
static struct sg_error *list_read(const struct sg_value *v, struct nodes *n)
{
	struct sg_value *end;
	Dwarf_Die node;
	struct sg_error *err = sg_value_member(v, "__end_", &end);
	if (err)
		return err;
	*n = (struct nodes){ .stop = sg_value_address(end),
			     .longer = "std::list is longer than its size (cyclic?)" };
	err = pair_first(end, "__next_", NULL, &n->first);
	sg_value_destroy(end);
	if (!err)
		err = pair_first(v, "__size_alloc_", "__size_", &n->count);
	if (!err && !node_type(v, "__size_alloc_", "__node_alloc_", &node))
		err = sg_error_create(SG_ERROR_LOOKUP, "no libc++ list node type in the DWARF");
	return err ? err : node_value(sg_value_target(v), &node, "__next_", &n->next_off, n);
}

/* std::set, multiset, map, multimap: __tree_ holds the leftmost node
   (__begin_node_), the end node whose __left_ is the root, and the count.  */
static struct sg_error *tree_read(const struct sg_value *v, struct nodes *n)
{
	struct sg_target *t = sg_value_target(v);
	struct sg_value *tree, *end;
	Dwarf_Die node;
	struct sg_error *err = sg_value_member(v, "__tree_", &tree);
	if (err)
		return err;
	*n = (struct nodes){ .tree = true };
	if (!(err = pair_first(tree, "__begin_node_", NULL, &n->first)) &&
	    !(err = pair_first(tree, "__pair3_", "__size_", &n->count)) &&
	    (err = pair_member(tree, "__pair1_", &end)) && sg_error_catch(&err, SG_ERROR_LOOKUP))
		err = pair_member(tree, "__end_node_", &end);
	bool have_node = !err && node_type(tree, "__pair1_", "__node_alloc_", &node);
	sg_value_destroy(tree);
	if (err)
		return err;
	n->stop = sg_value_address(end);
	sg_value_destroy(end);
	if (!have_node || !node_offset(t, &node, "__right_", &n->right) ||
	    !node_offset(t, &node, "__parent_", &n->parent))
		return sg_error_create(SG_ERROR_LOOKUP, "no libc++ tree node type in the DWARF");
	return node_value(t, &node, "__left_", &n->left, n);
}

/* std::unordered_set, map and their multi forms: __table_ chains every
   node in one list from __p1_'s __next_, in iteration order, and keeps
   the count in __p2_.  */
static struct sg_error *hash_read(const struct sg_value *v, struct nodes *n)
{
	struct sg_value *table, *head = NULL;
	Dwarf_Die node;
	struct sg_error *err = sg_value_member(v, "__table_", &table);
	if (err)
		return err;
	*n = (struct nodes){ .longer = "hash table is longer than its element count (cyclic?)" };
	if ((err = pair_member(table, "__p1_", &head)) && sg_error_catch(&err, SG_ERROR_LOOKUP))
		err = pair_member(table, "__first_node_", &head);
	if (!err)
		err = pair_first(head, "__next_", NULL, &n->first);
	if (!err)
		err = pair_first(table, "__p2_", "__size_", &n->count);
	if (!err && !node_type(table, "__p1_", "__node_alloc_", &node))
		err = sg_error_create(SG_ERROR_LOOKUP, "no libc++ hash node type in the DWARF");
	sg_value_destroy(head);
	sg_value_destroy(table);
	return err ? err : node_value(sg_value_target(v), &node, "__next_", &n->next_off, n);
}

/* A tree this deep is garbage: a red-black tree of 2^32 nodes is at most
   64 deep.  */
#define MAX_TREE_DEPTH 128

/* The in-order successor of NODE: the leftmost of its right subtree, or
   the first ancestor whose left subtree it is in.  */
static struct sg_error *tree_next(struct sg_target *t, const struct nodes *n, uint64_t node,
				  uint64_t *ret)
{
	uint64_t x, up;
	struct sg_error *err = sg_target_read_u64(t, node + n->right, &x);
	if (err)
		return err;
	if (x) {
		for (int i = 0; i < MAX_TREE_DEPTH; i++) {
			node = x;
			if ((err = sg_target_read_u64(t, node + n->left, &x)))
				return err;
			if (!x) {
				*ret = node;
				return NULL;
			}
		}
	} else {
		for (int i = 0; i < MAX_TREE_DEPTH; i++) {
			uint64_t left;
			if ((err = sg_target_read_u64(t, node + n->parent, &up)) ||
			    (err = sg_target_read_u64(t, up + n->left, &left)))
				return err;
			if (left == node) {
				*ret = up;
				return NULL;
			}
			node = up;
		}
	}
	return sg_error_create(SG_ERROR_BAD_DATA, "red-black tree deeper than it can be");
}

/* A map's key and value, from the node value __value_type<K, V> (or
   __hash_value_type): its pair __cc (__cc_ in later libc++), or the pair
   itself.  */
static struct sg_error *map_pair(const struct sg_value *elem, child_fn *fn, void *fn_arg,
				 const char *name, int *r)
{
	struct sg_value *pair = NULL, *key = NULL, *val = NULL;
	struct sg_error *err = sg_value_member(elem, "__cc", &pair);
	if (err && sg_error_catch(&err, SG_ERROR_LOOKUP) &&
	    (err = sg_value_member(elem, "__cc_", &pair)) && sg_error_catch(&err, SG_ERROR_LOOKUP))
		pair = NULL;
	const struct sg_value *p = pair ? pair : elem;
	if (!err && !(err = sg_value_member(p, "first", &key)) &&
	    !(err = sg_value_member(p, "second", &val))) {
		*r = fn(name, key, fn_arg);
		if (*r == SG_CB_OK)
			*r = fn(name, val, fn_arg);
	}
	sg_value_destroy(pair);
	sg_value_destroy(key);
	sg_value_destroy(val);
	return err;
}

/* What a node container's reader is registered with.  */
struct node_kind {
	struct kind kind;	/* first: fields_match() reads it */
	struct sg_error *(*read)(const struct sg_value *v, struct nodes *n);
	bool map;		/* children are keys and values */
};

/* "std::map with 2 elements", or for a list "std::list" and "empty
   std::list", as gdb's printers say.  */
static struct sg_error *nodes_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	const struct node_kind *k = arg;
	struct nodes n;
	struct sg_error *err = k->read(v, &n);
	if (err)
		return err;
	int r;
	if (k->read == list_read)
		r = asprintf(ret, "%s%s", n.first == n.stop ? "empty " : "", k->kind.shown);
	else
		r = asprintf(ret, "%s with %" PRIu64 " element%s", k->kind.shown, n.count,
			     n.count == 1 ? "" : "s");
	return r < 0 ? &sg_enomem : NULL;
}

/* The values in order: one child each, or a key and a value for a map.
   At most the count, so a cyclic container ends too.  */
static struct sg_error *nodes_children(struct sg_session *session SG_UNUSED,
				       const struct sg_value *v, size_t limit, child_fn *fn,
				       void *fn_arg, void *arg)
{
	const struct node_kind *k = arg;
	struct nodes n;
	struct sg_error *err = k->read(v, &n);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = n.first;
	for (uint64_t i = 0; node != n.stop && i < limit; i++) {
		if (i == n.count)
			return n.longer ? sg_error_create(SG_ERROR_BAD_DATA, n.longer) : NULL;
		int r = SG_CB_OK;
		if (k->map) {
			struct sg_value *elem;
			char name[32];
			snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
			if ((err = sg_value_at(t, &n.elem, node + n.value_off, &elem)))
				return err;
			err = map_pair(elem, fn, fn_arg, name, &r);
			sg_value_destroy(elem);
		} else {
			err = emit_at(t, &n.elem, node + n.value_off, i, fn, fn_arg, &r);
		}
		if (!err && r == SG_CB_OK)
			err = n.tree ? tree_next(t, &n, node, &node)
				: sg_target_read_u64(t, node + n.next_off, &node);
		if (err || r != SG_CB_OK)
			return err;
	}
	return NULL;
}

/* ---- smart pointers ---- */

/* "std::unique_ptr<int>": the template's name with its first argument, as
   gdb's printers write it.  */
static char *with_arg(const char *template_name, const struct sg_value *v)
{
	Dwarf_Die arg;
	char *an = NULL, *s;
	if (template_arg(sg_value_target(v), sg_value_type(v), 0, &arg))
		an = sg_type_qualified_name(&arg);
	if (asprintf(&s, "%s<%s>", template_name, an ? an : "?") < 0)
		s = NULL;
	free(an);
	return s;
}

/* The one child, "get()": the pointer __ptr_ (a compressed pair in
   unique_ptr).  */
static struct sg_error *pointer_children(struct sg_session *session SG_UNUSED,
					 const struct sg_value *v, size_t limit SG_UNUSED, child_fn *fn,
					 void *fn_arg, void *arg SG_UNUSED)
{
	struct sg_value *p;
	struct sg_error *err = pair_member(v, "__ptr_", &p);
	if (err)
		return err;
	fn("get()", p, fn_arg);
	sg_value_destroy(p);
	return NULL;
}

static struct sg_error *unique_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	*ret = with_arg("std::unique_ptr", v);
	return *ret ? NULL : &sg_enomem;
}

/* The counts of the control block at CNTRL, whose type is what the member
   __cntrl_ points at.  libc++ keeps both less one: __shared_owners_ is the
   owners - 1, __shared_weak_owners_ the weak references - 1, where the
   owners together hold one weak reference.  */
static struct sg_error *shared_counts(const struct sg_value *v, uint64_t cntrl, int64_t *owners,
				      int64_t *weak)
{
	struct field f;
	Dwarf_Die ptr, block;
	Dwarf_Attribute a;
	struct sg_value *cb, *m;
	struct sg_target *t = sg_value_target(v);
	if (!find_field(t, sg_value_type(v), "__cntrl_", &f, 0))
		return sg_error_create(SG_ERROR_LOOKUP, "no __cntrl_");
	sg_type_strip(&f.type, &ptr);
	if (!dwarf_formref_die(dwarf_attr_integrate(&ptr, DW_AT_type, &a), &block))
		return sg_error_create(SG_ERROR_BAD_DATA, "__cntrl_ is not a pointer to a type");
	struct sg_error *err = sg_value_at(t, &block, cntrl, &cb);
	if (err)
		return err;
	const char *names[] = { "__shared_owners_", "__shared_weak_owners_" };
	int64_t *rets[] = { owners, weak };
	for (int i = 0; i < 2 && !err; i++) {
		uint64_t x;
		if (!(err = sg_value_member(cb, names[i], &m))) {
			err = sg_value_read_uint(m, &x);
			sg_value_destroy(m);
			*rets[i] = (int64_t)x;
		}
	}
	sg_value_destroy(cb);
	return err;
}

/* ARG is std::shared_ptr or std::weak_ptr.  gdb's printers show the use
   count and the weak pointers other than the owners' share, or "expired"
   and the weak count once no owner is left.  */
static struct sg_error *shared_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg)
{
	uint64_t cntrl;
	int64_t owners, weak;
	struct sg_error *err = pair_first(v, "__cntrl_", NULL, &cntrl);
	if (!err && cntrl)
		err = shared_counts(v, cntrl, &owners, &weak);
	if (err)
		return err;
	char *name = with_arg(((const struct kind *)arg)->shown, v);
	if (!name)
		return &sg_enomem;
	int r;
	if (!cntrl)
		r = asprintf(ret, "%s (empty)", name);
	else if (owners + 1 <= 0)
		r = asprintf(ret, "%s (expired, weak count %" PRId64 ")", name, weak + 1);
	else
		r = asprintf(ret, "%s (use count %" PRId64 ", weak count %" PRId64 ")", name, owners + 1,
			     weak);
	free(name);
	return r < 0 ? &sg_enomem : NULL;
}

/* sp.use_count() and sp.unique() (the container shortcuts): the
   control block's owners + 1, 0 without one.  get() is the child.  */
static struct sg_error *shared_method(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      const char *name, struct sg_value *const *args SG_UNUSED,
				      size_t nargs, struct sg_value **ret, void *arg SG_UNUSED)
{
	bool unique = !strcmp(name, "unique");
	if (nargs || (strcmp(name, "use_count") && !unique))
		return &sg_not_found;
	uint64_t cntrl;
	int64_t owners = -1, weak;
	struct sg_error *err = pair_first(v, "__cntrl_", NULL, &cntrl);
	if (!err && cntrl)
		err = shared_counts(v, cntrl, &owners, &weak);
	if (err)
		return err;
	/* libc++ counts owners less one; a corrupt count saturates.  */
	int64_t use = owners < 0 ? 0 : owners == INT64_MAX ? INT64_MAX : owners + 1;
	const char *type = unique ? "bool" : "long";
	Dwarf_Die die;
	struct sg_target *t = sg_value_target(v);
	if ((err = sg_lookup_type(t, type, &die))) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_LOOKUP, "No type \"%s\" in the program's DWARF.", type);
	}
	return sg_value_scalar(t, &die, unique ? use == 1 : (uint64_t)use, ret);
}

/* ---- registration ---- */

static const struct sg_reader_ops string_ops = {
	.match = string_match, .summary = string_summary, .hint = SG_HINT_STRING,
};
static const struct sg_reader_ops vector_ops = {
	.match = fields_match, .summary = vector_summary, .children = vector_children,
	.hint = SG_HINT_ARRAY,
};
static const struct sg_reader_ops bitvec_ops = {
	.match = fields_match, .summary = bitvec_summary, .children = bitvec_children,
	.hint = SG_HINT_ARRAY,
};
/* Node containers: the summary comes first, as gdb's printers have it;
   maps show [key] = value.  */
static const struct sg_reader_ops nodes_ops = {
	.match = fields_match, .summary = nodes_summary, .children = nodes_children,
	.hint = SG_HINT_NONE,
};
static const struct sg_reader_ops map_ops = {
	.match = fields_match, .summary = nodes_summary, .children = nodes_children,
	.hint = SG_HINT_MAP,
};
static const struct sg_reader_ops unique_ops = {
	.match = fields_match, .summary = unique_summary, .children = pointer_children,
	.hint = SG_HINT_NONE,
};
static const struct sg_reader_ops shared_ops = {
	.match = fields_match, .summary = shared_summary, .children = pointer_children,
	.hint = SG_HINT_NONE, .method = shared_method,
};

static struct sg_error *libcxx_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	/* The first reader whose pattern matches is used: vector<bool>
	   before vector<*>.  */
	static const char *const vector[] = { "__begin_", "__end_", NULL },
			  *const bitvec[] = { "__begin_", "__size_", NULL },
			  *const list[] = { "__end_.__prev_", "__end_.__next_", NULL },
			  *const tree[] = { "__tree_.__begin_node_", NULL },
			  *const hash[] = { "__table_.__bucket_list_", NULL },
			  *const unique[] = { "__ptr_", NULL }, *const shared[] = { "__ptr_", "__cntrl_", NULL };
	static const struct kind k_vector = { "std::vector", vector }, k_bitvec = { "std::vector<bool>", bitvec },
				 k_unique = { "std::unique_ptr", unique }, k_shared = { "std::shared_ptr", shared },
				 k_weak = { "std::weak_ptr", shared };
	static const struct node_kind k_list = { { "std::list", list }, list_read, false },
		k_set = { { "std::set", tree }, tree_read, false },
		k_mset = { { "std::multiset", tree }, tree_read, false },
		k_map = { { "std::map", tree }, tree_read, true },
		k_mmap = { { "std::multimap", tree }, tree_read, true },
		k_uset = { { "std::unordered_set", hash }, hash_read, false },
		k_umset = { { "std::unordered_multiset", hash }, hash_read, false },
		k_umap = { { "std::unordered_map", hash }, hash_read, true },
		k_ummap = { { "std::unordered_multimap", hash }, hash_read, true };
	static const struct {
		const char *name, *pattern;
		const struct sg_reader_ops *ops;
		const void *kind;
	} readers[] = {
		{ "libc++ std::string", "std::__1::basic_string<char, *>", &string_ops, NULL },
		{ "libc++ std::vector<bool>", "std::__1::vector<bool, *>", &bitvec_ops, &k_bitvec },
		{ "libc++ std::vector", "std::__1::vector<*>", &vector_ops, &k_vector },
		{ "libc++ std::list", "std::__1::list<*>", &nodes_ops, &k_list },
		{ "libc++ std::set", "std::__1::set<*>", &nodes_ops, &k_set },
		{ "libc++ std::multiset", "std::__1::multiset<*>", &nodes_ops, &k_mset },
		{ "libc++ std::map", "std::__1::map<*>", &map_ops, &k_map },
		{ "libc++ std::multimap", "std::__1::multimap<*>", &map_ops, &k_mmap },
		{ "libc++ std::unordered_set", "std::__1::unordered_set<*>", &nodes_ops, &k_uset },
		{ "libc++ std::unordered_multiset", "std::__1::unordered_multiset<*>", &nodes_ops, &k_umset },
		{ "libc++ std::unordered_map", "std::__1::unordered_map<*>", &map_ops, &k_umap },
		{ "libc++ std::unordered_multimap", "std::__1::unordered_multimap<*>", &map_ops, &k_ummap },
		{ "libc++ std::unique_ptr", "std::__1::unique_ptr<*>", &unique_ops, &k_unique },
		{ "libc++ std::shared_ptr", "std::__1::shared_ptr<*>", &shared_ops, &k_shared },
		{ "libc++ std::weak_ptr", "std::__1::weak_ptr<*>", &shared_ops, &k_weak },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]) && !err; i++)
		err = sg_reader_register(session, readers[i].name, readers[i].pattern, readers[i].ops,
					 (void *)readers[i].kind);
	return err;
}

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("module=libc++.so*");
SG_PLUGIN_DEFINE("libcxx", "0.1",
		 "Typed readers for LLVM libc++: string, vector, list, set, map, unordered, smart pointers",
		 libcxx_init, NULL);
