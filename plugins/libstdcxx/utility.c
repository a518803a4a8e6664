/* libstdc++ utilities: std::unique_ptr, std::shared_ptr, std::weak_ptr,
   std::pair, std::tuple, std::optional, std::variant, std::any, the
   container adapters (std::stack, std::queue, std::priority_queue) and
   std::atomic.

   gdb's optional and variant printers show a contained value that has a
   printer of its own through that printer (its summary after
   "containing", its children, its display hint); these readers do the
   same through the reader registered for the contained type.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>

/* ---- smart pointers ---- */

/* "std::unique_ptr<int>": the template's name with its first argument, as
   gdb's printers write it (str() of the type: "struct P").  */
static char *with_arg(const char *template_name, const struct sg_value *v)
{
	Dwarf_Die arg;
	char *an = NULL, *s;
	if (lsx_template_arg(sg_value_target(v), sg_value_type(v), 0, &arg))
		an = lsx_raw_type_name(&arg);
	if (asprintf(&s, "%s<%s>", template_name, an ? an : "?") < 0)
		s = NULL;
	free(an);
	return s;
}

static struct sg_error *pointer_child(const struct sg_value *v, const char *const *path,
				      lsx_child_fn *fn, void *fn_arg)
{
	struct sg_value *p;
	struct sg_error *err = lsx_member_path(v, path, &p);
	if (!err) {
		fn("get()", p, fn_arg);
		sg_value_destroy(p);
	}
	return err;
}

static struct sg_error *unique_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	*ret = with_arg("std::unique_ptr", v);
	return *ret ? NULL : &sg_enomem;
}

static struct sg_error *unique_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit SG_UNUSED,
					lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	/* The pointer is the first element of the tuple _M_t._M_t, or
	   before GCC 7 of the tuple _M_t.  */
	static const char *const path[] = { "_M_t", "_M_t", "_M_head_impl", NULL };
	static const char *const old_path[] = { "_M_t", "_M_head_impl", NULL };
	struct sg_error *err = pointer_child(v, path, fn, fn_arg);
	if (!err || sg_error_code(err) == SG_ERROR_NOMEM)
		return err;
	sg_error_destroy(err);
	return pointer_child(v, old_path, fn, fn_arg);
}

/* "NAME (use count 2, weak count 1)": the counts live in the control
   block PI (of type BLOCK_PTR, a pointer to _Sp_counted_base), in
   _M_use_count and _M_weak_count; gdb shows the weak count less the one
   the owners hold together, or "expired" when no owner is left.  */
static struct sg_error *shared_counts(struct sg_target *t, const char *name, uint64_t pi,
				      const Dwarf_Die *block_ptr, char **ret)
{
	static const char *const use_path[] = { "_M_use_count", NULL };
	static const char *const weak_path[] = { "_M_weak_count", NULL };
	uint64_t use_off = 0, weak_off = 0;
	Dwarf_Die pt, block;
	Dwarf_Attribute a;
	struct sg_error *err = NULL;
	sg_type_strip(block_ptr, &pt);
	if (pi) {
		if (!dwarf_attr(&pt, DW_AT_type, &a) || !dwarf_formref_die(&a, &block))
			err = sg_error_create(SG_ERROR_LOOKUP, "no control block type in the DWARF");
		if (!err)
			err = lsx_offset(t, &block, use_path, &use_off, NULL);
		if (!err)
			err = lsx_offset(t, &block, weak_path, &weak_off, NULL);
	}
	if (err)
		return err;
	int r;
	int32_t use = 0, weak = 0;	/* _Atomic_word: int */
	if (!pi) {
		r = asprintf(ret, "%s (empty)", name);
	} else if ((err = sg_target_read(t, pi + use_off, &use, sizeof(use))) ||
		   (err = sg_target_read(t, pi + weak_off, &weak, sizeof(weak)))) {
		return err;
	} else if (use == 0) {
		r = asprintf(ret, "%s (expired, weak count %d)", name, weak);
	} else {
		/* Corrupt counts are printed as read: gdb's Python has no
		   overflow either.  */
		r = asprintf(ret, "%s (use count %d, weak count %lld)", name, use,
			     (long long)weak - 1);
	}
	return r < 0 ? &sg_enomem : NULL;
}

/* The control block is _M_refcount._M_pi.  ARG is the name.  */
static struct sg_error *shared_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg)
{
	static const char *const pi_path[] = { "_M_refcount", "_M_pi", NULL };
	struct sg_value *piv;
	struct sg_error *err = lsx_member_path(v, pi_path, &piv);
	if (err)
		return err;
	uint64_t pi = 0;
	Dwarf_Die pt = *sg_value_type(piv);
	err = sg_value_read_uint(piv, &pi);
	sg_value_destroy(piv);
	char *name = err ? NULL : with_arg(arg, v);
	if (!err && !name)
		err = &sg_enomem;
	if (!err)
		err = shared_counts(sg_value_target(v), name, pi, &pt, ret);
	free(name);
	return err;
}

/* A scalar result of a container shortcut, of the base type TYPE.  */
static struct sg_error *scalar_result(struct sg_target *t, const char *type, uint64_t bits,
				      struct sg_value **ret)
{
	Dwarf_Die die;
	struct sg_error *err = sg_lookup_type(t, type, &die);
	if (err) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_LOOKUP, "No type \"%s\" in the program's DWARF.", type);
	}
	return sg_value_scalar(t, &die, bits, ret);
}

/* sp.use_count() and sp.unique(): the control block's use count, 0
   without one.  get() is the child.  */
static struct sg_error *shared_method(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      const char *name, struct sg_value *const *args SG_UNUSED,
				      size_t nargs, struct sg_value **ret, void *arg SG_UNUSED)
{
	static const char *const pi_path[] = { "_M_refcount", "_M_pi", NULL };
	static const char *const use_path[] = { "_M_use_count", NULL };
	bool unique = !strcmp(name, "unique");
	if (nargs || (strcmp(name, "use_count") && !unique))
		return &sg_not_found;
	struct sg_target *t = sg_value_target(v);
	struct sg_value *piv;
	struct sg_error *err = lsx_member_path(v, pi_path, &piv);
	if (err)
		return err;
	uint64_t pi = 0, off = 0;
	Dwarf_Die pt, block;
	Dwarf_Attribute a;
	sg_type_strip(sg_value_type(piv), &pt);
	err = sg_value_read_uint(piv, &pi);
	sg_value_destroy(piv);
	int32_t use = 0;	/* _Atomic_word: int */
	if (!err && pi) {
		if (!dwarf_attr(&pt, DW_AT_type, &a) || !dwarf_formref_die(&a, &block))
			err = sg_error_create(SG_ERROR_LOOKUP, "no control block type in the DWARF");
		if (!err)
			err = lsx_offset(t, &block, use_path, &off, NULL);
		if (!err)
			err = sg_target_read(t, pi + off, &use, sizeof(use));
	}
	if (err)
		return err;
	return unique ? scalar_result(t, "bool", use == 1, ret)
		      : scalar_result(t, "long int", (uint64_t)(int64_t)use, ret);
}

static struct sg_error *shared_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit SG_UNUSED,
					lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	static const char *const path[] = { "_M_ptr", NULL };
	return pointer_child(v, path, fn, fn_arg);
}

/* ---- std::pair: no summary, children first and second ---- */

static struct sg_error *pair_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      size_t limit SG_UNUSED, lsx_child_fn *fn, void *fn_arg,
				      void *arg SG_UNUSED)
{
	static const char *const names[] = { "first", "second" };
	for (int i = 0; i < 2; i++) {
		struct sg_value *m;
		struct sg_error *err = sg_value_member(v, names[i], &m);
		if (err)
			return err;
		int r = fn(names[i], m, fn_arg);
		sg_value_destroy(m);
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

/* ---- std::tuple ---- */

/* A class's fields as gdb lists them: base classes and data members, in
   order.  */
struct field {
	Dwarf_Die type;
	uint64_t off;
	const char *name;	/* NULL for a base class */
};
#define MAX_FIELDS 4
#define MAX_TUPLE 256

static size_t fields(struct sg_target *t, const Dwarf_Die *type, struct field *out)
{
	Dwarf_Die st, full, c;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	size_t n = 0;
	if (dwarf_child(&full, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute a;
		if ((tag != DW_TAG_inheritance && tag != DW_TAG_member) ||
		    dwarf_hasattr(&c, DW_AT_declaration) || !dwarf_attr(&c, DW_AT_type, &a))
			continue;
		if (n == MAX_FIELDS)
			return n + 1;
		Dwarf_Word off = 0;
		Dwarf_Attribute la;
		if (dwarf_attr(&c, DW_AT_data_member_location, &la))
			dwarf_formudata(&la, &off);
		if (!dwarf_formref_die(&a, &out[n].type))
			continue;
		out[n].off = off;
		out[n].name = tag == DW_TAG_member ? dwarf_diename(&c) : NULL;
		n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

static struct sg_error *tuple_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg SG_UNUSED)
{
	struct field f[MAX_FIELDS];
	*ret = strdup(fields(sg_value_target(v), sg_value_type(v), f) ? "std::tuple containing"
								     : "empty std::tuple");
	return *ret ? NULL : &sg_enomem;
}

/* std::tuple<A, B> derives from _Tuple_impl<0, A, B>, which derives from
   _Tuple_impl<1, B> (the rest) and _Head_base<0, A> (holding
   _M_head_impl, or deriving from an empty A); the last _Tuple_impl has the
   head only.  Children are named [1], [2], ... as gdb names them.  */
static struct sg_error *tuple_children(struct sg_session *session SG_UNUSED,
				       const struct sg_value *v, size_t limit, lsx_child_fn *fn,
				       void *fn_arg, void *arg SG_UNUSED)
{
	struct sg_target *t = sg_value_target(v);
	struct field f[MAX_FIELDS + 1];
	size_t n = fields(t, sg_value_type(v), f);
	if (n == 0)
		return NULL;
	if (n != 1 && n != 2)
		return sg_error_create(SG_ERROR_BAD_DATA, "not a std::tuple layout");
	Dwarf_Die head = f[0].type;
	uint64_t addr = sg_value_address(v) + f[0].off;
	/* GCC may leave the tuple's parameter pack empty in the DWARF, so the
	   depth is bounded by a constant, not by the pack.  */
	for (unsigned i = 1; i <= MAX_TUPLE && i <= limit; i++) {
		n = fields(t, &head, f);
		if (n == 0)
			break;
		if (n > 2)
			return sg_error_create(SG_ERROR_BAD_DATA, "not a std::tuple layout");
		struct field impl = f[n == 1 ? 0 : 1];
		uint64_t impl_addr = addr + impl.off;
		struct field hf[MAX_FIELDS + 1];
		size_t hn = fields(t, &impl.type, hf);
		char name[32];
		snprintf(name, sizeof(name), "[%u]", i);
		int r;
		struct sg_error *err;
		if (hn && hf[0].name && !strcmp(hf[0].name, "_M_head_impl"))
			err = lsx_emit(t, &hf[0].type, impl_addr + hf[0].off, name, fn, fn_arg, &r);
		else
			err = lsx_emit(t, &impl.type, impl_addr, name, fn, fn_arg, &r);
		if (err)
			return err;
		if (r != SG_CB_OK || n == 1)
			break;
		addr += f[0].off;
		head = f[0].type;
	}
	return NULL;
}

/* ---- std::optional and std::variant ---- */

/* A contained value: its type, address and the reader for its type.  */
struct contained {
	bool present;
	Dwarf_Die type;
	uint64_t address;
	bool delegate;		/* a reader with children shows it */
	struct lsx_reader reader;
	char *type_name;	/* as gdb's printer names the container (and index) */
	uint64_t index;		/* variants */
};

static void contained_fini(struct contained *c)
{
	free(c->type_name);
}

static void find_delegate(struct sg_session *session, const struct sg_value *v, struct contained *c)
{
	c->delegate = lsx_find_reader(session, sg_value_target(v), &c->type, c->address, &c->reader) &&
		      c->reader.ops->children;
}

/* The offset in TYPE of its anonymous union member, where every member
   of that union lies.  */
static bool anon_union_offset(struct sg_target *t, const Dwarf_Die *type, uint64_t *ret)
{
	Dwarf_Die st, full, c, mt;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	if (dwarf_child(&full, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off = 0;
		if (dwarf_tag(&c) != DW_TAG_member || dwarf_diename(&c) || !dwarf_attr(&c, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &mt))
			continue;
		sg_type_strip(&mt, &mt);
		if (dwarf_tag(&mt) != DW_TAG_union_type)
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &off);
		*ret = off;
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Where an optional's value lies: std::optional's in
   _M_payload._M_payload._M_value, or before GCC 9 in the anonymous union
   of _M_payload; std::experimental::optional's in the anonymous union of
   its _Optional_base.  */
static struct sg_error *optional_value(struct sg_target *t, const struct sg_value *v, bool experimental,
				       uint64_t *ret)
{
	static const char *const value_path[] = { "_M_payload", "_M_payload", "_M_value", NULL };
	static const char *const payload_path[] = { "_M_payload", NULL };
	Dwarf_Die holder;
	uint64_t holder_addr, off;
	struct sg_value *m;
	struct sg_error *err;
	if (experimental) {
		if (!lsx_find_base(t, sg_value_type(v), "std::experimental::fundamentals_v1::_Optional_base<",
				   &holder, &off))
			return sg_error_create(SG_ERROR_LOOKUP, "no _Optional_base in the DWARF");
		holder_addr = sg_value_address(v) + off;
	} else {
		if (!(err = lsx_member_path(v, value_path, &m))) {
			*ret = sg_value_address(m);
			sg_value_destroy(m);
			return NULL;
		}
		sg_error_destroy(err);
		if ((err = lsx_member_path(v, payload_path, &m)))
			return err;
		holder = *sg_value_type(m);
		holder_addr = sg_value_address(m);
		sg_value_destroy(m);
	}
	if (!anon_union_offset(t, &holder, &off))
		return sg_error_create(SG_ERROR_LOOKUP, "no payload of std::optional in the DWARF");
	*ret = holder_addr + off;
	return NULL;
}

/* std::optional keeps _M_engaged in its payload, std::experimental::optional
   in itself.  */
static struct sg_error *optional_read_as(struct sg_session *session, const struct sg_value *v,
					 bool named, bool experimental, struct contained *c)
{
	static const char *const engaged_path[] = { "_M_payload", "_M_engaged", NULL };
	static const char *const exp_engaged_path[] = { "_M_engaged", NULL };
	struct sg_target *t = sg_value_target(v);
	memset(c, 0, sizeof(*c));
	uint64_t engaged;
	struct sg_error *err = lsx_read_path(v, experimental ? exp_engaged_path : engaged_path, &engaged);
	if (err)
		return err;
	if (engaged > 1)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "std::optional's engaged flag is 0x%" PRIx64 ", not a bool", engaged);
	if ((err = optional_value(t, v, experimental, &c->address)))
		return err;
	if (!lsx_template_arg(t, sg_value_type(v), 0, &c->type))
		return sg_error_create(SG_ERROR_LOOKUP, "no template argument of std::optional");
	c->present = engaged;
	find_delegate(session, v, c);
	if (!named)
		return NULL;
	char *tn = lsx_type_name(t, &c->type);
	if (!tn || asprintf(&c->type_name, "std::%soptional<%s>", experimental ? "experimental::" : "",
			    tn) < 0)
		c->type_name = NULL;
	free(tn);
	return c->type_name ? NULL : &sg_enomem;
}

static struct sg_error *optional_read(struct sg_session *session, const struct sg_value *v, bool named,
				      struct contained *c)
{
	return optional_read_as(session, v, named, false, c);
}

static struct sg_error *exp_optional_read(struct sg_session *session, const struct sg_value *v,
					  bool named, struct contained *c)
{
	return optional_read_as(session, v, named, true, c);
}

/* "std::variant<int, std::string>": the N alternatives' names.  */
static char *variant_name(struct sg_target *t, const Dwarf_Die *type, unsigned n)
{
	char *names = NULL, *ret;
	size_t len = 0;
	FILE *f = open_memstream(&names, &len);
	if (!f)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		Dwarf_Die alt;
		char *an = lsx_template_arg(t, type, i, &alt) ? lsx_type_name(t, &alt) : NULL;
		fprintf(f, "%s%s", i ? ", " : "", an ? an : "?");
		free(an);
	}
	fclose(f);
	if (!names || asprintf(&ret, "std::variant<%s>", names) < 0)
		ret = NULL;
	free(names);
	return ret;
}

static struct sg_error *variant_read(struct sg_session *session, const struct sg_value *v, bool named,
				     struct contained *c)
{
	static const char *const index_path[] = { "_M_index", NULL };
	static const char *const storage_path[] = { "_M_u", NULL };
	struct sg_target *t = sg_value_target(v);
	memset(c, 0, sizeof(*c));
	struct sg_value *iv, *u;
	struct sg_error *err = lsx_member_path(v, index_path, &iv);
	if (err)
		return err;
	uint64_t isize = sg_type_size(sg_value_type(iv));
	err = sg_value_read_uint(iv, &c->index);
	sg_value_destroy(iv);
	if (err || (err = lsx_member_path(v, storage_path, &u)))
		return err;
	c->address = sg_value_address(u);
	sg_value_destroy(u);
	unsigned n = lsx_template_count(t, sg_value_type(v));
	if (named && !(c->type_name = variant_name(t, sg_value_type(v), n)))
		return &sg_enomem;
	/* All ones in the index is variant_npos: valueless by exception.  */
	uint64_t npos = isize >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * isize)) - 1;
	if (c->index == npos)
		return NULL;
	if (c->index >= n) {
		contained_fini(c);
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "std::variant index %" PRIu64 " is out of range (%u alternatives)",
				       c->index, n);
	}
	lsx_template_arg(t, sg_value_type(v), (unsigned)c->index, &c->type);
	char *with_index;
	if (named) {
		if (asprintf(&with_index, "%s [index %" PRIu64 "]", c->type_name, c->index) < 0) {
			contained_fini(c);
			return &sg_enomem;
		}
		free(c->type_name);
		c->type_name = with_index;
	}
	c->present = true;
	find_delegate(session, v, c);
	return NULL;
}

/* Read the contained value; NAMED: also the name the summary shows (type
   names cost DWARF walks, so match and children do without).  */
typedef struct sg_error *read_fn(struct sg_session *, const struct sg_value *, bool named,
				 struct contained *);

/* The contained value's own reader's summary.  */
static struct sg_error *delegate_summary(struct sg_session *session, struct sg_target *t,
					 const struct contained *c, char **ret)
{
	*ret = NULL;
	if (!c->reader.ops->summary)
		return NULL;
	struct sg_value *cv;
	struct sg_error *err = sg_value_at(t, &c->type, c->address, &cv);
	if (err)
		return err;
	if (!(err = sg_reader_enter(session))) {
		err = c->reader.ops->summary(session, cv, ret, c->reader.arg);
		sg_reader_leave(session);
	}
	sg_value_destroy(cv);
	return err;
}

/* "NAME [no contained value]", "NAME containing SUMMARY" (the contained
   value's reader's; "None", Python's, from a reader without one such as
   std::pair's), or "NAME".  ARG is the read function.  */
static struct sg_error *contained_summary(struct sg_session *session, const struct sg_value *v,
					  char **ret, void *arg)
{
	read_fn *read = (read_fn *)arg;
	struct contained c;
	struct sg_error *err = read(session, v, true, &c);
	if (err)
		return err;
	char *inner = NULL;
	int r = 0;
	if (!c.present)
		r = asprintf(ret, "%s [no contained value]", c.type_name);
	else if (c.delegate && !(err = delegate_summary(session, sg_value_target(v), &c, &inner)))
		r = asprintf(ret, "%s containing %s", c.type_name, inner ? inner : "None");
	else if (!err)
		r = asprintf(ret, "%s", c.type_name);
	free(inner);
	contained_fini(&c);
	return err ? err : r < 0 ? &sg_enomem : NULL;
}

/* The contained value's reader's children, or the value itself as
   "[contained value]".  ARG is the read function.  */
static struct sg_error *contained_children(struct sg_session *session, const struct sg_value *v,
					   size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg)
{
	read_fn *read = (read_fn *)arg;
	struct contained c;
	struct sg_error *err = read(session, v, false, &c);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	if (c.present) {
		struct sg_value *cv;
		if (!(err = sg_value_at(t, &c.type, c.address, &cv))) {
			if (c.delegate && !(err = sg_reader_enter(session))) {
				err = c.reader.ops->children(session, cv, limit, fn, fn_arg, c.reader.arg);
				sg_reader_leave(session);
			} else if (!c.delegate)
				fn("[contained value]", cv, fn_arg);
			sg_value_destroy(cv);
		}
	}
	contained_fini(&c);
	return err;
}

/* *opt: the contained value; &sg_not_found without one.  */
static struct sg_error *contained_deref(struct sg_session *session, const struct sg_value *v,
					struct sg_value **ret, void *arg)
{
	read_fn *read = (read_fn *)arg;
	if (read != optional_read && read != exp_optional_read)
		return &sg_not_found;
	struct contained c;
	struct sg_error *err = read(session, v, false, &c);
	if (err)
		return err;
	err = c.present ? sg_value_at(sg_value_target(v), &c.type, c.address, ret) : &sg_not_found;
	contained_fini(&c);
	return err;
}

/* opt.value() and opt.has_value() of an optional.  */
static struct sg_error *contained_method(struct sg_session *session, const struct sg_value *v,
					 const char *name, struct sg_value *const *args SG_UNUSED,
					 size_t nargs, struct sg_value **ret, void *arg)
{
	read_fn *read = (read_fn *)arg;
	if (nargs || (read != optional_read && read != exp_optional_read) ||
	    (strcmp(name, "value") && strcmp(name, "has_value")))
		return &sg_not_found;
	struct contained c;
	struct sg_error *err = read(session, v, false, &c);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	if (!strcmp(name, "has_value"))
		err = scalar_result(t, "bool", c.present, ret);
	else if (c.present)
		err = sg_value_at(t, &c.type, c.address, ret);
	else
		/* What the program would get: std::bad_optional_access.  */
		err = sg_error_create(SG_ERROR_USAGE, "bad optional access: the optional is empty");
	contained_fini(&c);
	return err;
}

/* The class of the member function at ADDR, from the DWARF of the code
   there: the subprogram's declaration's enclosing scope.  */
static bool method_class(struct sg_target *t, uint64_t addr, Dwarf_Die *ret)
{
	struct sg_module *mod = sg_target_module_at(t, addr);
	Dwfl_Module *dm = mod ? sg_module_dwfl(mod) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = dm ? dwfl_module_addrdie(dm, addr, &bias) : NULL, *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : -1;
	Dwarf_Die decl;
	Dwarf_Attribute a;
	bool found = false;
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		/* An out-of-line instance refers to its definition
		   (DW_AT_abstract_origin), which refers to the declaration in
		   the class (DW_AT_specification).  */
		if (dwarf_attr_integrate(&scopes[i], DW_AT_specification, &a) && dwarf_formref_die(&a, &decl))
			found = true;
		break;
	}
	free(scopes);
	if (!found)
		return false;
	n = dwarf_getscopes_die(&decl, &scopes);
	found = n > 1 && (dwarf_tag(&scopes[1]) == DW_TAG_structure_type ||
			  dwarf_tag(&scopes[1]) == DW_TAG_class_type);
	if (found)
		*ret = scopes[1];
	free(scopes);
	return found;
}

/* std::any's manager class (std::any::_Manager_internal<int>), from the
   function _M_manager points at (its _S_manage): by the DWARF of its code,
   else by the name the symbol table gives it, as gdb's printer looks it up.
   *INTERNAL: the value is stored inside the any.  */
static struct sg_error *any_manager(struct sg_target *t, uint64_t mgr, Dwarf_Die *ret, bool *internal)
{
	struct sg_symbol sym;
	struct sg_error *err = sg_symbolize(t, mgr, &sym);
	if (err) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_BAD_DATA, "std::any manager 0x%" PRIx64 " is not a function",
				       mgr);
	}
	const char *kind = strstr(sym.name, "::_Manager_internal<");
	*internal = kind != NULL;
	if (!kind)
		kind = strstr(sym.name, "::_Manager_external<");
	const char *lt = kind ? strchr(kind, '<') : NULL;
	const char *gt = lt ? lt + 1 : NULL;
	for (int depth = 0; gt && *gt && (*gt != '>' || depth); gt++)
		depth += *gt == '<' ? 1 : *gt == '>' ? -1 : 0;
	if (!gt || *gt != '>' || sym.offset)
		return sg_error_format(SG_ERROR_BAD_DATA, "unknown std::any manager %s", sym.name);
	if (method_class(t, mgr, ret))
		return NULL;
	char *mgr_type = strndup(sym.name, (size_t)(gt - sym.name) + 1);
	err = mgr_type ? sg_lookup_type(t, mgr_type, ret) : &sg_enomem;
	free(mgr_type);
	return err;
}

/* std::any and std::experimental::any (NAME): the contained type is the
   argument of the manager class; the value is in _M_storage._M_buffer
   (internal) or at _M_storage._M_ptr (external).  */
static struct sg_error *any_read_as(struct sg_session *session, const struct sg_value *v, bool named,
				    const char *name, struct contained *c)
{
	static const char *const mgr_path[] = { "_M_manager", NULL };
	static const char *const buf_path[] = { "_M_storage", "_M_buffer", NULL };
	static const char *const ptr_path[] = { "_M_storage", "_M_ptr", NULL };
	struct sg_target *t = sg_value_target(v);
	memset(c, 0, sizeof(*c));
	uint64_t mgr;
	bool internal;
	Dwarf_Die md;
	struct sg_error *err = lsx_read_path(v, mgr_path, &mgr);
	if (err)
		return err;
	if (!mgr)
		return !named || (c->type_name = strdup(name)) ? NULL : &sg_enomem;
	if ((err = any_manager(t, mgr, &md, &internal)))
		return err;
	if (!lsx_template_arg(t, &md, 0, &c->type))
		return sg_error_create(SG_ERROR_LOOKUP, "no template argument of the std::any manager");
	if (internal) {
		struct sg_value *b;
		if ((err = lsx_member_path(v, buf_path, &b)))
			return err;
		c->address = sg_value_address(b);
		sg_value_destroy(b);
	} else if ((err = lsx_read_path(v, ptr_path, &c->address))) {
		return err;
	}
	c->present = true;
	find_delegate(session, v, c);
	if (!named)
		return NULL;
	/* With a reader with children the summary is "std::any containing"
	   that reader's summary, else the contained type's name.  */
	char *tn = c->delegate ? NULL : lsx_type_name(t, &c->type);
	int r = c->delegate ? ((c->type_name = strdup(name)) ? 0 : -1)
			    : asprintf(&c->type_name, "%s containing %s", name, tn ? tn : "?");
	free(tn);
	return r < 0 ? &sg_enomem : NULL;
}

static struct sg_error *any_read(struct sg_session *session, const struct sg_value *v, bool named,
				 struct contained *c)
{
	return any_read_as(session, v, named, "std::any", c);
}

static struct sg_error *exp_any_read(struct sg_session *session, const struct sg_value *v, bool named,
				     struct contained *c)
{
	return any_read_as(session, v, named, "std::experimental::any", c);
}

/* std::stack, std::queue and std::priority_queue wrap the container c:
   "std::stack wrapping: std::deque with 2 elements = {1, 2}", its children
   and display hint.  */
static struct sg_error *adapter_read(struct sg_session *session, const struct sg_value *v, bool named,
				     struct contained *c)
{
	static const char *const c_path[] = { "c", NULL };
	memset(c, 0, sizeof(*c));
	struct sg_value *m;
	struct sg_error *err = lsx_member_path(v, c_path, &m);
	if (err)
		return err;
	c->type = *sg_value_type(m);
	c->address = sg_value_address(m);
	sg_value_destroy(m);
	c->present = true;
	find_delegate(session, v, c);
	if (!named)
		return NULL;
	Dwarf_Die st;
	sg_type_strip(sg_value_type(v), &st);
	if (!(c->type_name = sg_type_qualified_name(&st)))
		return &sg_enomem;
	c->type_name[strcspn(c->type_name, "<")] = '\0';
	return NULL;
}

static struct sg_error *adapter_summary(struct sg_session *session, const struct sg_value *v,
					char **ret, void *arg SG_UNUSED)
{
	struct contained c;
	struct sg_error *err = adapter_read(session, v, true, &c);
	if (err)
		return err;
	char *inner = NULL;
	struct lsx_reader r;
	if (lsx_find_reader(session, sg_value_target(v), &c.type, c.address, &r)) {
		c.reader = r;
		err = delegate_summary(session, sg_value_target(v), &c, &inner);
	}
	if (!err && asprintf(ret, "%s wrapping: %s", c.type_name, inner ? inner : "None") < 0)
		err = &sg_enomem;
	free(inner);
	contained_fini(&c);
	return err;
}

/* gdb takes the display hint from the contained value's printer when it
   has children, else the container's own (none for optional, array for
   variant): one reader per hint, told apart by match.  */
static enum sg_display_hint contained_hint(struct sg_session *session, const struct sg_value *v,
					   read_fn *read, enum sg_display_hint own)
{
	struct contained c;
	struct sg_error *err = read(session, v, false, &c);
	if (err) {
		sg_error_destroy(err);
		return own;
	}
	enum sg_display_hint h = c.present && c.delegate ? c.reader.ops->hint : own;
	contained_fini(&c);
	return h;
}

/* ARG is the read function.  */
#define HINT_MATCH(fn_name, own, want)                                                      \
	static bool fn_name(struct sg_session *session, const struct sg_value *v, void *arg)  \
	{                                                                                   \
		return contained_hint(session, v, (read_fn *)arg, own) == want;             \
	}
HINT_MATCH(single_none, SG_HINT_NONE, SG_HINT_NONE)
HINT_MATCH(single_array, SG_HINT_NONE, SG_HINT_ARRAY)
HINT_MATCH(single_map, SG_HINT_NONE, SG_HINT_MAP)
HINT_MATCH(variant_none, SG_HINT_ARRAY, SG_HINT_NONE)
HINT_MATCH(variant_array, SG_HINT_ARRAY, SG_HINT_ARRAY)
HINT_MATCH(variant_map, SG_HINT_ARRAY, SG_HINT_MAP)

/* ---- std::atomic<T> for integers, bools and pointers ---- */

/* The value member of std::atomic<T> by T's kind, as gdb's printer picks
   it, and its base type's encoding (0 for a pointer).  */
static struct sg_error *atomic_value(const struct sg_value *v, struct sg_value **ret, Dwarf_Word *enc)
{
	static const char *const int_path[] = { "_M_i", NULL };
	static const char *const bool_path[] = { "_M_base", "_M_i", NULL };
	static const char *const ptr_path[] = { "_M_b", "_M_p", NULL };
	Dwarf_Die arg, st;
	Dwarf_Attribute a;
	if (!lsx_template_arg(sg_value_target(v), sg_value_type(v), 0, &arg))
		return sg_error_create(SG_ERROR_LOOKUP, "no template argument of std::atomic");
	sg_type_strip(&arg, &st);
	*enc = 0;
	if (dwarf_tag(&st) == DW_TAG_pointer_type)
		return lsx_member_path(v, ptr_path, ret);
	if (dwarf_tag(&st) != DW_TAG_base_type || !dwarf_attr(&st, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, enc) != 0 || *enc == DW_ATE_float)
		return sg_error_create(SG_ERROR_BAD_DATA, "std::atomic of this type is not read");
	return lsx_member_path(v, *enc == DW_ATE_boolean ? bool_path : int_path, ret);
}

static bool atomic_match(struct sg_session *session SG_UNUSED, const struct sg_value *v,
			 void *arg SG_UNUSED)
{
	struct sg_value *m;
	Dwarf_Word enc;
	struct sg_error *err = atomic_value(v, &m, &enc);
	sg_error_destroy(err);
	if (!err)
		sg_value_destroy(m);
	return !err;
}

/* "std::atomic<int> = { 5 }": the value as gdb writes it (97 'a' for a
   char, a pointer with its symbol).  */
static struct sg_error *atomic_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	struct sg_value *m;
	Dwarf_Word enc;
	uint64_t x;
	struct sg_error *err = atomic_value(v, &m, &enc);
	if (err)
		return err;
	uint64_t size = sg_type_size(sg_value_type(m));
	err = sg_value_read_uint(m, &x);
	sg_value_destroy(m);
	if (err)
		return err;
	Dwarf_Die targ;
	lsx_template_arg(sg_value_target(v), sg_value_type(v), 0, &targ);
	char *tn = lsx_raw_type_name(&targ), *val = NULL;
	int64_t sx = size && size < 8 && (x >> (8 * size - 1) & 1) ? (int64_t)(x | ~UINT64_C(0) << (8 * size))
								      : (int64_t)x;
	struct sg_symbol sym;
	int r;
	if (enc == DW_ATE_boolean) {
		r = asprintf(&val, "%s", x ? "true" : "false");
	} else if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) {
		uint32_t ch = (uint32_t)(x & 0xff);
		char *q = lsx_quote(&ch, 1, "", false);
		/* 'a', not "a" */
		r = q ? asprintf(&val, "%" PRId64 " '%.*s'", enc == DW_ATE_signed_char ? sx : (int64_t)x,
				 (int)strlen(q) - 2, q + 1) : -1;
		free(q);
	} else if (enc == DW_ATE_signed) {
		r = asprintf(&val, "%" PRId64, sx);
	} else if (enc) {
		r = asprintf(&val, "%" PRIu64, x);
	} else if (x && !(err = sg_symbolize(sg_value_target(v), x, &sym))) {
		r = sym.offset ? asprintf(&val, "0x%" PRIx64 " <%s+%" PRIu64 ">", x, sym.name, sym.offset)
			       : asprintf(&val, "0x%" PRIx64 " <%s>", x, sym.name);
	} else {
		sg_error_destroy(err);
		err = NULL;
		r = asprintf(&val, "0x%" PRIx64, x);
	}
	if (r < 0 || !tn || asprintf(ret, "std::atomic<%s> = { %s }", tn, val) < 0)
		err = &sg_enomem;
	free(tn);
	free(val);
	return err;
}

/* ---- std::atomic<std::shared_ptr<T>>, std::atomic<std::weak_ptr<T>> ---- */

/* _M_impl holds _M_ptr and _M_refcount._M_val._M_i, the control block's
   address with a lock in bit 0.  The block's type is that of the smart
   pointer's own _M_refcount._M_pi.  */
static bool atomic_smart_pointer(struct sg_target *t, const struct sg_value *v, Dwarf_Die *ret)
{
	if (!lsx_template_arg(t, sg_value_type(v), 0, ret))
		return false;
	Dwarf_Die st;
	sg_type_strip(ret, &st);
	char *name = sg_type_qualified_name(&st);
	bool yes = name && (!strncmp(name, "std::shared_ptr<", 16) || !strncmp(name, "std::weak_ptr<", 14));
	free(name);
	return yes;
}

static bool atomic_sp_match(struct sg_session *session SG_UNUSED, const struct sg_value *v,
			    void *arg SG_UNUSED)
{
	Dwarf_Die sp;
	return atomic_smart_pointer(sg_value_target(v), v, &sp);
}

static struct sg_error *atomic_sp_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
					  char **ret, void *arg SG_UNUSED)
{
	static const char *const tagged[] = { "_M_impl", "_M_refcount", "_M_val", "_M_i", NULL };
	static const char *const pi_path[] = { "_M_refcount", "_M_pi", NULL };
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die sp, block_ptr;
	uint64_t pi, off;
	if (!atomic_smart_pointer(t, v, &sp))
		return sg_error_create(SG_ERROR_LOOKUP, "no smart pointer type of std::atomic");
	struct sg_error *err = lsx_read_path(v, tagged, &pi);
	if (!err)
		err = lsx_offset(t, &sp, pi_path, &off, &block_ptr);
	if (err)
		return err;
	char *sn = lsx_raw_type_name(&sp), *name;
	if (!sn || asprintf(&name, "std::atomic<%s>", sn) < 0)
		name = NULL;
	free(sn);
	if (!name)
		return &sg_enomem;
	err = shared_counts(t, name, pi & ~UINT64_C(1), &block_ptr, ret);
	free(name);
	return err;
}

static struct sg_error *atomic_sp_children(struct sg_session *session SG_UNUSED,
					   const struct sg_value *v, size_t limit SG_UNUSED,
					   lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	static const char *const path[] = { "_M_impl", "_M_ptr", NULL };
	return pointer_child(v, path, fn, fn_arg);
}

static const struct sg_reader_ops atomic_sp_ops = {
	.match = atomic_sp_match, .summary = atomic_sp_summary, .children = atomic_sp_children,
	.hint = SG_HINT_NONE,
};

static const struct sg_reader_ops atomic_ops = {
	.match = atomic_match, .summary = atomic_summary, .hint = SG_HINT_NONE,
};

static const struct sg_reader_ops unique_ops = {
	.summary = unique_summary, .children = unique_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops shared_ops = {
	.summary = shared_summary, .children = shared_children, .hint = SG_HINT_NONE,
	.method = shared_method,
};
static const struct sg_reader_ops pair_ops = { .children = pair_children, .hint = SG_HINT_NONE };
static const struct sg_reader_ops tuple_ops = {
	.summary = tuple_summary, .children = tuple_children, .hint = SG_HINT_NONE,
};
#define CONTAINED_OPS(name, match_fn, sum, h)                                               \
	static const struct sg_reader_ops name = {                                          \
		.match = match_fn, .summary = sum, .children = contained_children, .hint = h, \
		.deref = contained_deref, .method = contained_method,                         \
	}
/* optional, any: one value or none.  */
CONTAINED_OPS(single_none_ops, single_none, contained_summary, SG_HINT_NONE);
CONTAINED_OPS(single_array_ops, single_array, contained_summary, SG_HINT_ARRAY);
CONTAINED_OPS(single_map_ops, single_map, contained_summary, SG_HINT_MAP);
CONTAINED_OPS(variant_array_ops, variant_array, contained_summary, SG_HINT_ARRAY);
CONTAINED_OPS(variant_none_ops, variant_none, contained_summary, SG_HINT_NONE);
CONTAINED_OPS(variant_map_ops, variant_map, contained_summary, SG_HINT_MAP);
CONTAINED_OPS(adapter_array_ops, single_array, adapter_summary, SG_HINT_ARRAY);
CONTAINED_OPS(adapter_none_ops, single_none, adapter_summary, SG_HINT_NONE);
CONTAINED_OPS(adapter_map_ops, single_map, adapter_summary, SG_HINT_MAP);

struct sg_error *lsx_register_utility(struct sg_session *session)
{
	static const struct {
		const char *name, *pattern;
		const struct sg_reader_ops *ops;
		void *arg;
	} readers[] = {
		{ "std::unique_ptr", "std::unique_ptr<*>", &unique_ops, NULL },
		{ "std::shared_ptr", "std::shared_ptr<*>", &shared_ops, "std::shared_ptr" },
		{ "std::weak_ptr", "std::weak_ptr<*>", &shared_ops, "std::weak_ptr" },
		{ "std::pair", "std::pair<*>", &pair_ops, NULL },
		{ "std::tuple", "std::tuple<*>", &tuple_ops, NULL },
		/* The most common hint first: it is the one shown if the
		   shell does not call match.  */
#define SINGLE(n, pattern, read)                                                            \
		{ n, pattern, &single_none_ops, (void *)read },                             \
		{ n " (array)", pattern, &single_array_ops, (void *)read },                 \
		{ n " (map)", pattern, &single_map_ops, (void *)read }
		SINGLE("std::optional", "std::optional<*>", optional_read),
		SINGLE("std::experimental::optional", "std::experimental::fundamentals_v1::optional<*>",
		       exp_optional_read),
		SINGLE("std::any", "std::any", any_read),
		SINGLE("std::experimental::any", "std::experimental::fundamentals_v1::any", exp_any_read),
#undef SINGLE
		{ "std::variant", "std::variant<*>", &variant_array_ops, (void *)variant_read },
		{ "std::variant (struct)", "std::variant<*>", &variant_none_ops, (void *)variant_read },
		{ "std::variant (map)", "std::variant<*>", &variant_map_ops, (void *)variant_read },
#define ADAPTER(n)                                                                          \
		{ n, n "<*>", &adapter_array_ops, (void *)adapter_read },                   \
		{ n " (struct)", n "<*>", &adapter_none_ops, (void *)adapter_read },        \
		{ n " (map)", n "<*>", &adapter_map_ops, (void *)adapter_read }
		ADAPTER("std::stack"), ADAPTER("std::queue"), ADAPTER("std::priority_queue"),
#undef ADAPTER
		{ "std::atomic", "std::atomic<*>", &atomic_ops, NULL },
		{ "std::atomic<std::shared_ptr>", "std::atomic<*>", &atomic_sp_ops, NULL },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]) && !err; i++)
		err = sg_reader_register(session, readers[i].name, readers[i].pattern, readers[i].ops,
					 readers[i].arg);
	return err;
}
