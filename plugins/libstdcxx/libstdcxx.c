/* libstdcxx: typed readers for GCC's C++ library, printing what the
   libstdc++ printers print in gdb.  This file registers the readers of the
   other files (one per container family) and holds their shared helpers.

   Every walk is bounded by "print elements" and by the container's own
   count (or a cycle check where it keeps none), so cyclic or garbage links
   end it with an error.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

#define REPEAT_THRESHOLD 10	/* gdb's "set print repeats" */
#define MAX_BASES 64

/* "print elements" for strings, which are read whole: "unlimited" stops
   at 16M characters, as the value printer's arrays do (then "...").  */
size_t lsx_print_limit(struct sg_session *session)
{
	uint64_t n = sg_setting_uint(session, "print elements", 200);
	return n > (1u << 24) ? (1u << 24) : n;
}

struct sg_error *lsx_member_path(const struct sg_value *v, const char *const *path,
				 struct sg_value **ret)
{
	struct sg_value *cur = NULL;
	const struct sg_value *at = v;
	for (size_t i = 0; path[i]; i++) {
		struct sg_value *next;
		struct sg_error *err = sg_value_member(at, path[i], &next);
		sg_value_destroy(cur);
		if (err)
			return err;
		at = cur = next;
	}
	*ret = cur;
	return NULL;
}

struct sg_error *lsx_read_path(const struct sg_value *v, const char *const *path, uint64_t *ret)
{
	struct sg_value *m;
	struct sg_error *err = lsx_member_path(v, path, &m);
	if (err)
		return err;
	err = sg_value_read_uint(m, ret);
	sg_value_destroy(m);
	return err;
}

/* A value at address 0 has its members at their offsets.  */
struct sg_error *lsx_offset(struct sg_target *t, const Dwarf_Die *type, const char *const *path,
			    uint64_t *off_ret, Dwarf_Die *type_ret)
{
	struct sg_value *v, *m;
	struct sg_error *err = sg_value_at(t, type, 0, &v);
	if (err)
		return err;
	err = lsx_member_path(v, path, &m);
	sg_value_destroy(v);
	if (err)
		return err;
	*off_ret = sg_value_address(m);
	if (type_ret)
		*type_ret = *sg_value_type(m);
	sg_value_destroy(m);
	return NULL;
}

struct sg_error *lsx_emit(struct sg_target *t, const Dwarf_Die *type, uint64_t addr,
			  const char *name, lsx_child_fn *fn, void *fn_arg, int *r)
{
	struct sg_value *child;
	struct sg_error *err = sg_value_at(t, type, addr, &child);
	if (err)
		return err;
	*r = fn(name, child, fn_arg);
	sg_value_destroy(child);
	return NULL;
}

struct sg_error *lsx_emit_index(struct sg_target *t, const Dwarf_Die *type, uint64_t addr,
				uint64_t i, lsx_child_fn *fn, void *fn_arg, int *r)
{
	char name[32];
	snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
	return lsx_emit(t, type, addr, name, fn, fn_arg, r);
}

struct sg_error *lsx_pair_layout(struct sg_target *t, const Dwarf_Die *pair, struct lsx_pair *ret)
{
	static const char *const first[] = { "first", NULL }, *const second[] = { "second", NULL };
	struct sg_error *err = lsx_offset(t, pair, first, &ret->first_off, &ret->first);
	if (!err)
		err = lsx_offset(t, pair, second, &ret->second_off, &ret->second);
	return err;
}

struct sg_error *lsx_emit_pair(struct sg_target *t, const struct lsx_pair *pl, uint64_t addr,
			       uint64_t i, lsx_child_fn *fn, void *fn_arg, int *r)
{
	struct sg_error *err = lsx_emit_index(t, &pl->first, addr + pl->first_off, i, fn, fn_arg, r);
	if (!err && *r == SG_CB_OK)
		err = lsx_emit_index(t, &pl->second, addr + pl->second_off, i, fn, fn_arg, r);
	return err;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

/* TYPE's definition, without typedefs and qualifiers.  */
static void definition(struct sg_target *t, const Dwarf_Die *type, Dwarf_Die *ret)
{
	Dwarf_Die st;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, ret);
}

/* Visit TYPE's template type arguments in order, packs flattened; stop
   at argument N (or count them all when N is UINT_MAX).  */
static unsigned template_walk(struct sg_target *t, const Dwarf_Die *type, unsigned n, Dwarf_Die *ret)
{
	Dwarf_Die full, c, p;
	definition(t, type, &full);
	unsigned i = 0;
	if (dwarf_child(&full, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_template_type_parameter) {
			if (i++ == n)
				return die_type(&c, ret) ? i : 0;
		} else if (tag == DW_TAG_GNU_template_parameter_pack && dwarf_child(&c, &p) == 0) {
			do {
				if (dwarf_tag(&p) == DW_TAG_template_type_parameter && i++ == n)
					return die_type(&p, ret) ? i : 0;
			} while (dwarf_siblingof(&p, &p) == 0);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return i;
}

bool lsx_template_arg(struct sg_target *t, const Dwarf_Die *type, unsigned n, Dwarf_Die *ret)
{
	return template_walk(t, type, n, ret) == n + 1;
}

unsigned lsx_template_count(struct sg_target *t, const Dwarf_Die *type)
{
	Dwarf_Die unused;
	return template_walk(t, type, ~0u, &unused);
}

bool lsx_find_base(struct sg_target *t, const Dwarf_Die *type, const char *prefix, Dwarf_Die *ret,
		   uint64_t *off_ret)
{
	struct { Dwarf_Die type; uint64_t off; } queue[MAX_BASES];
	size_t head = 0, tail = 1;
	queue[0].type = *type;
	queue[0].off = 0;
	while (head < tail) {
		Dwarf_Die full, c, bt;
		uint64_t off = queue[head].off;
		definition(t, &queue[head++].type, &full);
		if (dwarf_child(&full, &c) != 0)
			continue;
		do {
			if (dwarf_tag(&c) != DW_TAG_inheritance || !die_type(&c, &bt))
				continue;
			Dwarf_Attribute a;
			Dwarf_Word boff = 0;
			if (dwarf_attr(&c, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &boff);
			/* Bases are often typedefs (_Node_alloc_type).  */
			definition(t, &bt, &bt);
			char *name = sg_type_qualified_name(&bt);
			bool hit = name && !strncmp(name, prefix, strlen(prefix));
			free(name);
			if (hit) {
				*ret = bt;
				*off_ret = off + boff;
				return true;
			}
			if (tail < MAX_BASES) {
				queue[tail].type = bt;
				queue[tail++].off = off + boff;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return false;
}

/* The type an allocator class allocates, from its own DWARF: GCC often
   leaves std::allocator<Node>'s template parameter out, but its
   __new_allocator base declares "pointer" or allocate(), returning Node *. */
static bool allocated_type(struct sg_target *t, const Dwarf_Die *alloc, int depth, Dwarf_Die *ret)
{
	Dwarf_Die full, c, pt;
	definition(t, alloc, &full);
	if (depth > 4 || dwarf_child(&full, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *name = dwarf_diename(&c);
		if (tag == DW_TAG_inheritance && die_type(&c, &pt) && allocated_type(t, &pt, depth + 1, ret))
			return true;
		if (!name || !((tag == DW_TAG_typedef && !strcmp(name, "pointer")) ||
			       (tag == DW_TAG_subprogram && !strcmp(name, "allocate"))))
			continue;
		if (die_type(&c, &pt)) {
			sg_type_strip(&pt, &pt);
			if (dwarf_tag(&pt) == DW_TAG_pointer_type && die_type(&pt, ret))
				return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

struct sg_error *lsx_node_type(struct sg_target *t, const Dwarf_Die *impl, Dwarf_Die *ret)
{
	Dwarf_Die alloc;
	uint64_t off;
	if (!lsx_find_base(t, impl, "std::allocator<", &alloc, &off) ||
	    (!lsx_template_arg(t, &alloc, 0, ret) && !allocated_type(t, &alloc, 0, ret))) {
		char *name = sg_type_qualified_name(impl);
		struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP,
						       "no node allocator in the DWARF of %s",
						       name ? name : "the container");
		free(name);
		return err;
	}
	definition(t, ret, ret);
	return NULL;
}

/* One character as gdb writes it inside QUOTE, with the host in a UTF-8
   locale: printable characters past ASCII as they are, raw bytes (LSX_RAW)
   and control characters as octal escapes.  */
static void put_char(FILE *f, uint32_t c, char quote)
{
	static const char named[] = { ['\a'] = 'a', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
				      ['\r'] = 'r', ['\t'] = 't', ['\v'] = 'v', [033] = 'e' };
	if (c & LSX_RAW)
		fprintf(f, "\\%03" PRIo32, c & 0xff);
	else if (c == (unsigned char)quote || c == '\\')
		fprintf(f, "\\%c", (char)c);
	else if (c < sizeof(named) && named[c])
		fprintf(f, "\\%c", named[c]);
	else if (c >= 0x20 && c < 0x7f)
		fputc((int)c, f);
	else if (c < 0xa0 || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		fprintf(f, "\\%03" PRIo32, c);
	else if (c < 0x800)
		fprintf(f, "%c%c", 0xc0 | c >> 6, 0x80 | (c & 0x3f));
	else if (c < 0x10000)
		fprintf(f, "%c%c%c", 0xe0 | c >> 12, 0x80 | (c >> 6 & 0x3f), 0x80 | (c & 0x3f));
	else
		fprintf(f, "%c%c%c%c", 0xf0 | c >> 18, 0x80 | (c >> 12 & 0x3f), 0x80 | (c >> 6 & 0x3f),
			0x80 | (c & 0x3f));
}

size_t lsx_utf8_decode(const unsigned char *s, size_t n, uint32_t *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		unsigned char b = s[i];
		size_t len = b >= 0xf0 && b < 0xf5 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 1;
		uint32_t c = len == 4 ? b & 7 : len == 3 ? b & 0xf : b & 0x1f;
		bool ok = b >= 0xc2 && b < 0xf5 && i + len <= n;
		for (size_t j = 1; ok && j < len; j++) {
			ok = (s[i + j] & 0xc0) == 0x80;
			c = c << 6 | (s[i + j] & 0x3f);
		}
		/* Overlong forms, surrogates and C1 controls stay bytes.  */
		ok = ok && c >= 0xa0 && !(c >= 0xd800 && c < 0xe000) && c <= 0x10ffff &&
		     !(len == 3 && c < 0x800) && !(len == 4 && c < 0x10000);
		if (b < 0x80) {
			out[k++] = b;
			i++;
		} else if (ok) {
			out[k++] = c;
			i += len;
		} else {
			out[k++] = LSX_RAW | b;
			i++;
		}
	}
	return k;
}

char *lsx_quote(const uint32_t *s, size_t n, const char *prefix, bool more)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	bool in_quote = false;
	if (n == 0)
		fprintf(f, "%s\"\"", prefix);
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		while (i + run < n && s[i + run] == s[i])
			run++;
		if (run > REPEAT_THRESHOLD) {
			fprintf(f, "%s%s'", in_quote ? "\", " : i ? ", " : "", i ? "" : prefix);
			put_char(f, s[i], '\'');
			fprintf(f, "' <repeats %zu times>", run);
			in_quote = false;
		} else {
			if (!in_quote)
				fprintf(f, "%s%s\"", i ? ", " : "", i ? "" : prefix);
			in_quote = true;
			for (size_t k = 0; k < run; k++)
				put_char(f, s[i], '"');
		}
		i += run;
	}
	if (in_quote)
		fputc('"', f);
	if (more)
		fputs("...", f);
	fclose(f);
	return out;
}

struct sg_error *lsx_with_elements(const char *name, uint64_t n, char **ret)
{
	if (asprintf(ret, "%s with %" PRIu64 " element%s", name, n, n == 1 ? "" : "s") < 0)
		return &sg_enomem;
	return NULL;
}

bool lsx_find_reader(struct sg_session *session, struct sg_target *t, const Dwarf_Die *type,
		     uint64_t address, struct lsx_reader *ret)
{
	struct sg_value *v;
	struct sg_error *err = sg_value_at(t, type, address, &v);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	const struct sg_registry_entry *e = sg_reader_lookup(session, v);
	sg_value_destroy(v);
	if (!e)
		return false;
	ret->ops = e->ops;
	ret->arg = e->arg;
	return true;
}

static struct sg_error *libstdcxx_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	struct sg_error *err = lsx_register_string(session);
	if (!err)
		err = lsx_register_sequence(session);
	if (!err)
		err = lsx_register_tree(session);
	if (!err)
		err = lsx_register_hashtable(session);
	if (!err)
		err = lsx_register_utility(session);
	if (!err)
		err = lsx_register_iterator(session);
	if (!err)
		err = lsx_register_extra(session);
	if (!err)
		err = lsx_register_type_printer(session);
	return err;
}

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("module=libstdc++.so*");
SG_PLUGIN_DEFINE("libstdcxx", "0.2",
		 "Typed readers for libstdc++: strings, sequences, trees, hash tables, "
		 "smart pointers, pair, tuple, optional, variant",
		 libstdcxx_init, NULL);
