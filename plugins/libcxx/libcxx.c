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

static size_t print_limit(struct sg_session *session)
{
	uint64_t n = sg_setting_uint(session, "print elements", 200);
	return n > (1u << 20) ? (1u << 20) : n;
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
   and structs and base classes (nearest first), into *RET with its place
   counted from TYPE's start.  */
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

/* The scalar member NAME of V; when NAME is a libc++ compressed pair,
   its first element (__value_).  Newer libc++ declares plain members
   where older versions have pairs, so this reads both.  */
static struct sg_error *pair_first(const struct sg_value *v, const char *name, uint64_t *ret)
{
	struct sg_value *m, *inner;
	struct sg_error *err = sg_value_member(v, name, &m);
	if (err)
		return err;
	Dwarf_Die st;
	sg_type_strip(sg_value_type(m), &st);
	int tag = dwarf_tag(&st);
	if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type) {
		err = sg_value_member(m, "__value_", &inner);
		sg_value_destroy(m);
		if (err)
			return err;
		m = inner;
	}
	err = sg_value_read_uint(m, ret);
	sg_value_destroy(m);
	return err;
}

/* Does V's class have data members named NAMES (through bases)?  This is
   how a reader tells libc++'s layout from another library's.  */
static bool has_fields(const struct sg_value *v, const char *const *names)
{
	struct field f;
	for (size_t i = 0; names[i]; i++)
		if (!find_field(sg_value_target(v), sg_value_type(v), names[i], &f, 0))
			return false;
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
		if (!mask || mask & (mask - 1) || mask >> lay->s_size.bits)
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
		uint64_t room = lay.size - lay.s_data.bit / 8;
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

static const char *const vector_fields[] = { "__begin_", "__end_", NULL };

static bool vector_match(struct sg_session *session SG_UNUSED, const struct sg_value *v,
			 void *arg SG_UNUSED)
{
	return has_fields(v, vector_fields);
}

static struct sg_error *vector_read(const struct sg_value *v, struct vec *vec)
{
	struct sg_error *err = pair_first(v, "__begin_", &vec->begin);
	if (!err)
		err = pair_first(v, "__end_", &vec->end);
	if (!err && (err = pair_first(v, "__end_cap_", &vec->cap)) &&
	    sg_error_catch(&err, SG_ERROR_LOOKUP))
		err = pair_first(v, "__cap_", &vec->cap);
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

/* ---- registration ---- */

static const struct sg_reader_ops string_ops = {
	.match = string_match, .summary = string_summary, .hint = SG_HINT_STRING,
};
static const struct sg_reader_ops vector_ops = {
	.match = vector_match, .summary = vector_summary, .children = vector_children,
	.hint = SG_HINT_ARRAY,
};

static struct sg_error *libcxx_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	/* Readers are tried in registration order: vector<bool> before
	   vector<*>.  */
	static const struct { const char *name, *pattern; const struct sg_reader_ops *ops; } readers[] = {
		{ "libc++ std::string", "std::__1::basic_string<char, *>", &string_ops },
		{ "libc++ std::vector", "std::__1::vector<*>", &vector_ops },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]) && !err; i++)
		err = sg_reader_register(session, readers[i].name, readers[i].pattern, readers[i].ops,
					 NULL);
	return err;
}

SG_PLUGIN_DEFINE("libcxx", "0.1", "Typed readers for LLVM libc++: string, vector", libcxx_init, NULL);
