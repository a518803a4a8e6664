/* Readers of libstdc++'s iterators: what they print ("non-dereferenceable
   iterator for std::vector" or the element) and what "*it" gives.

   gdb's printers print an iterator as the element it points at, and a
   singular one (a null pointer) as "non-dereferenceable iterator for ...".
   Here the element is the deref op's answer and the summary says why there
   is none; the value printer prints the element in place.  An end iterator
   is not singular: like gdb, deref gives what lies where the element would
   be.  Node types come from the DWARF, by name as gdb's printers find
   them (std::_List_node<T>) or from the iterator's pointer member.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

enum iter_kind {
	IT_POINTER,	/* __normal_iterator, _Deque_iterator: a pointer MEMBER */
	IT_NODE,	/* list, forward_list, slist, tree: a node base pointer MEMBER */
	IT_HASH,	/* hash table node iterators: _M_cur points at the node */
	IT_BIT,		/* vector<bool>'s _Bit_iterator: _M_p and _M_offset */
	IT_BIT_REF,	/* vector<bool>::reference: _M_p and _M_mask */
	IT_DEBUG,	/* __gnu_debug::_Safe_iterator: the iterator it wraps */
};

/* A reader's argument.  */
struct iter_desc {
	enum iter_kind kind;
	const char *member;	/* the pointer member */
	const char *node;	/* the node template, in the iterator's namespace */
	const char *what;	/* "std::vector": "non-dereferenceable iterator for" it */
};

/* A type's name as GCC spells it inside template names ("int*").  */
static char *dwarf_spelling(const Dwarf_Die *type)
{
	Dwarf_Die d = *type, target;
	Dwarf_Attribute a;
	int tag = dwarf_tag(&d);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_const_type) {
		bool has = dwarf_attr_integrate(&d, DW_AT_type, &a) && dwarf_formref_die(&a, &target);
		char *in = has ? dwarf_spelling(&target) : strdup("void"), *s;
		if (!in || asprintf(&s, tag == DW_TAG_pointer_type ? "%s*" : "%s const", in) < 0)
			s = NULL;
		free(in);
		return s;
	}
	return sg_type_qualified_name(&d);
}

/* The member typedef NAME of class TYPE, resolved (GCC often leaves a
   class's template parameters out of the DWARF, but keeps the typedefs
   its member functions use, as gdb's printers find value_type).  */
static bool member_typedef(struct sg_target *t, const Dwarf_Die *type, const char *name, Dwarf_Die *ret)
{
	Dwarf_Die st, full, c;
	Dwarf_Attribute a;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	if (dwarf_child(&full, &c) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&c);
		if (dwarf_tag(&c) == DW_TAG_typedef && n && !strcmp(n, name))
			return dwarf_attr_integrate(&c, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* What the pointer type PTR (typedefs stripped) points to.  */
static bool pointee_of(const Dwarf_Die *ptr, Dwarf_Die *ret)
{
	Dwarf_Die pt;
	Dwarf_Attribute a;
	sg_type_strip(ptr, &pt);
	return dwarf_tag(&pt) == DW_TAG_pointer_type && dwarf_attr_integrate(&pt, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, ret);
}

/* The node type of the node iterator V: its typedef _Node or _Link_type,
   or else D->node<T> for its value type T, in its namespace (std::, or
   std::__cxx1998:: in debug mode), as the program's DWARF names it.  */
static struct sg_error *node_type(const struct sg_value *v, const struct iter_desc *d, Dwarf_Die *ret)
{
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die st, elem, link;
	sg_type_strip(sg_value_type(v), &st);
	if (member_typedef(t, &st, "_Node", ret))
		return NULL;
	if (member_typedef(t, &st, "_Link_type", &link) && pointee_of(&link, ret))
		return NULL;
	char *self = sg_type_qualified_name(&st);
	bool has_elem = (member_typedef(t, &st, "pointer", &link) && pointee_of(&link, &elem)) ||
			lsx_template_arg(t, &st, 0, &elem);
	if (has_elem) {
		/* The node's argument is the value type, without the const
		   of a const_iterator's.  */
		sg_type_strip(&elem, &elem);
	}
	char *arg = has_elem ? dwarf_spelling(&elem) : NULL;
	char *name = NULL;
	if (self && arg) {
		self[strcspn(self, "<")] = '\0';
		char *colon = strrchr(self, ':');
		size_t ns = colon ? (size_t)(colon - self) + 1 : 0;
		size_t n = strlen(arg);
		if (asprintf(&name, "%.*s%s<%s%s>", (int)ns, self, d->node, arg,
			     n && arg[n - 1] == '>' ? " " : "") < 0)
			name = NULL;
	}
	free(self);
	free(arg);
	if (!name)
		return sg_error_format(SG_ERROR_LOOKUP, "no node type of the %s iterator in the DWARF",
				       d->what);
	struct sg_error *err = sg_lookup_type(t, name, ret);
	if (err == &sg_not_found)
		err = sg_error_format(SG_ERROR_LOOKUP, "no type %s in the DWARF", name);
	free(name);
	return err;
}

/* The pointer member M of V and the type it points to.  */
static struct sg_error *pointer_member(const struct sg_value *v, const char *m, uint64_t *ptr,
				       Dwarf_Die *pointee)
{
	struct sg_value *p;
	struct sg_error *err = sg_value_member(v, m, &p);
	if (err)
		return err;
	bool typed = pointee_of(sg_value_type(p), pointee);
	err = sg_value_read_uint(p, ptr);
	sg_value_destroy(p);
	if (!err && !typed)
		err = sg_error_format(SG_ERROR_LOOKUP, "%s is not a typed pointer", m);
	return err;
}

/* Where NODE keeps its value: C++11's _M_storage (a buffer; the caller
   finds the value type), or C++98's _M_data (lists) or _M_value_field
   (trees), of the value type: *TYPED, and *TYPE.  */
static struct sg_error *node_value(struct sg_target *t, const Dwarf_Die *node, uint64_t *off,
				   bool *typed, Dwarf_Die *type)
{
	static const char *const fields[][2] = { { "_M_data", NULL }, { "_M_value_field", NULL } };
	static const char *const storage[] = { "_M_storage", NULL };
	struct sg_error *err = lsx_offset(t, node, storage, off, NULL);
	*typed = false;
	for (size_t i = 0; err && i < sizeof(fields) / sizeof(fields[0]); i++) {
		struct sg_error *e2 = lsx_offset(t, node, fields[i], off, type);
		if (e2) {
			sg_error_destroy(e2);
			continue;
		}
		sg_error_destroy(err);
		err = NULL;
		*typed = true;
	}
	return err;
}

/* The element the pointer or node iterator V refers to: its address
   (*ADDR 0: singular) and type.  */
static struct sg_error *element(const struct sg_value *v, const struct iter_desc *d, uint64_t *addr,
				Dwarf_Die *type)
{
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die pointee, decl, node;
	uint64_t ptr, off;
	struct sg_error *err = pointer_member(v, d->member, &ptr, &pointee);
	if (err || d->kind == IT_POINTER) {
		*addr = ptr;
		*type = pointee;
		return err;
	}
	*addr = 0;
	if (!ptr)
		return NULL;
	/* The node must be there: one error for a garbage iterator, not one
	   for each member of its element.  */
	unsigned char probe;
	if ((err = sg_target_read(t, ptr, &probe, 1)))
		return err;
	if (d->kind == IT_HASH)
		decl = pointee;
	else if ((err = node_type(v, d, &decl)))
		return err;
	/* A lookup by name may find a declaration.  */
	sg_type_complete(t, &decl, &node);
	bool typed;
	if ((err = node_value(t, &node, &off, &typed, type)))
		return err;
	Dwarf_Die ptype;
	if (!typed &&
	    !(member_typedef(t, sg_value_type(v), "pointer", &ptype) && pointee_of(&ptype, type)) &&
	    !lsx_template_arg(t, &node, 0, type))
		return sg_error_create(SG_ERROR_LOOKUP, "no value type of the iterator's node");
	if (ptr + off < ptr)
		return sg_error_format(SG_ERROR_BAD_DATA, "iterator node 0x%" PRIx64 " is not sane", ptr);
	*addr = ptr + off;
	return NULL;
}

/* The bit a vector<bool> iterator or reference V designates: *VALID false
   for a singular one.  */
static struct sg_error *bit(const struct sg_value *v, enum iter_kind kind, bool *valid, bool *ret)
{
	static const char *const p_path[] = { "_M_p", NULL };
	static const char *const off_path[] = { "_M_offset", NULL };
	static const char *const mask_path[] = { "_M_mask", NULL };
	uint64_t p, n, word = 0;
	struct sg_error *err = lsx_read_path(v, p_path, &p);
	if (!err)
		err = lsx_read_path(v, kind == IT_BIT ? off_path : mask_path, &n);
	if (err)
		return err;
	*valid = p != 0;
	if (!p)
		return NULL;
	if (kind == IT_BIT && n >= 64)
		return sg_error_format(SG_ERROR_BAD_DATA, "bit iterator offset %" PRIu64 " is not sane", n);
	if ((err = sg_target_read(sg_value_target(v), p, &word, sizeof(word))))
		return err;
	*ret = (word & (kind == IT_BIT ? UINT64_C(1) << n : n)) != 0;
	return NULL;
}

/* A debug-mode iterator: the iterator it wraps (its first template
   argument, a base class), and whether it is still valid: gdb's printer
   calls one whose version differs from its sequence's "invalid".  */
static struct sg_error *debug_read(const struct sg_value *v, struct sg_value **wrapped, bool *invalid)
{
	static const char *const version[] = { "_M_version", NULL };
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die st, it, base, seq;
	uint64_t off, seq_addr, mine, theirs;
	sg_type_strip(sg_value_type(v), &st);
	char *name = lsx_template_arg(t, &st, 0, &it) ? sg_type_qualified_name(&it) : NULL;
	bool found = name && lsx_find_base(t, &st, name, &base, &off);
	free(name);
	if (!found)
		return sg_error_create(SG_ERROR_LOOKUP, "no wrapped iterator in the debug iterator's DWARF");
	struct sg_error *err = pointer_member(v, "_M_sequence", &seq_addr, &seq);
	if (!err)
		err = lsx_read_path(v, version, &mine);
	if (err)
		return err;
	*invalid = false;
	if (seq_addr) {
		struct sg_value *sv;
		if ((err = sg_value_at(t, &seq, seq_addr, &sv)))
			return err;
		err = lsx_read_path(sv, version, &theirs);
		sg_value_destroy(sv);
		if (err)
			return err;
		*invalid = mine != theirs;
	}
	return sg_value_at(t, &base, sg_value_address(v) + off, wrapped);
}

/* The reader of the debug iterator's wrapped iterator W.  */
static struct sg_error *wrapped_reader(struct sg_session *session, const struct sg_value *w,
				       struct lsx_reader *r)
{
	if (!lsx_find_reader(session, sg_value_target(w), sg_value_type(w), sg_value_address(w), r))
		return sg_error_create(SG_ERROR_LOOKUP, "no reader of the wrapped iterator");
	return NULL;
}

static struct sg_error *debug_summary(struct sg_session *session, const struct sg_value *v, char **ret)
{
	struct sg_value *w;
	bool invalid;
	struct lsx_reader r;
	struct sg_error *err = debug_read(v, &w, &invalid);
	if (err)
		return err;
	if (invalid) {
		*ret = strdup("invalid iterator");
		err = *ret ? NULL : &sg_enomem;
	} else if (!(err = wrapped_reader(session, w, &r))) {
		/* Hash table iterators have none (gdb prints them as
		   structs); the singular ones come here.  */
		if (r.ops->summary)
			err = r.ops->summary(session, w, ret, r.arg);
		else if (!(*ret = strdup("non-dereferenceable iterator")))
			err = &sg_enomem;
	}
	sg_value_destroy(w);
	return err;
}

static struct sg_error *iter_summary(struct sg_session *session, const struct sg_value *v, char **ret,
				     void *arg)
{
	const struct iter_desc *d = arg;
	struct sg_error *err;
	if (d->kind == IT_DEBUG)
		return debug_summary(session, v, ret);
	if (d->kind == IT_BIT || d->kind == IT_BIT_REF) {
		bool valid, b;
		if ((err = bit(v, d->kind, &valid, &b)))
			return err;
		*ret = strdup(!valid ? d->what : b ? "true" : "false");
		return *ret ? NULL : &sg_enomem;
	}
	uint64_t addr;
	Dwarf_Die type;
	if ((err = element(v, d, &addr, &type)))
		return err;
	/* A printer that does not print the element itself gets its
	   address; the singular iterator's words are gdb's.  */
	int r = addr ? asprintf(ret, "iterator to 0x%" PRIx64, addr)
		     : asprintf(ret, "non-dereferenceable iterator for %s", d->what);
	return r < 0 ? &sg_enomem : NULL;
}

/* The bool type, for a bit iterator's element.  */
static struct sg_error *bool_value(struct sg_target *t, bool b, struct sg_value **ret)
{
	Dwarf_Die type;
	struct sg_error *err = sg_lookup_type(t, "bool", &type);
	if (err == &sg_not_found)
		err = sg_error_create(SG_ERROR_LOOKUP, "no type bool in the DWARF");
	return err ? err : sg_value_scalar(t, &type, b, ret);
}

static struct sg_error *iter_deref(struct sg_session *session, const struct sg_value *v,
				   struct sg_value **ret, void *arg)
{
	const struct iter_desc *d = arg;
	struct sg_error *err;
	if (d->kind == IT_DEBUG) {
		struct sg_value *w;
		bool invalid;
		struct lsx_reader r;
		if ((err = debug_read(v, &w, &invalid)))
			return err;
		if (invalid)
			err = &sg_not_found;
		else if (!(err = wrapped_reader(session, w, &r)))
			err = r.ops->deref ? r.ops->deref(session, w, ret, r.arg) : &sg_not_found;
		sg_value_destroy(w);
		return err;
	}
	if (d->kind == IT_BIT || d->kind == IT_BIT_REF) {
		bool valid, b;
		if ((err = bit(v, d->kind, &valid, &b)))
			return err;
		return valid ? bool_value(sg_value_target(v), b, ret) : &sg_not_found;
	}
	uint64_t addr;
	Dwarf_Die type;
	if ((err = element(v, d, &addr, &type)))
		return err;
	return addr ? sg_value_at(sg_value_target(v), &type, addr, ret) : &sg_not_found;
}

/* Iterators: a summary for the singular ones, deref for the others.  */
static const struct sg_reader_ops iter_ops = {
	.summary = iter_summary, .hint = SG_HINT_NONE, .deref = iter_deref,
};
/* gdb prints hash table iterators as plain structs: deref only.  */
static const struct sg_reader_ops hash_ops = {
	.hint = SG_HINT_NONE, .deref = iter_deref,
};
/* vector<bool>::reference prints as its bit (a bool in JSON).  */
static const struct sg_reader_ops bit_ref_ops = {
	.summary = iter_summary, .hint = SG_HINT_NONE, .deref = iter_deref,
};

static const struct iter_desc vector_it = { IT_POINTER, "_M_current", NULL, "std::vector" };
static const struct iter_desc deque_it = { IT_POINTER, "_M_cur", NULL, "std::deque" };
static const struct iter_desc list_it = { IT_NODE, "_M_node", "_List_node", "std::list" };
static const struct iter_desc flist_it = { IT_NODE, "_M_node", "_Fwd_list_node", "std::forward_list" };
static const struct iter_desc slist_it = { IT_NODE, "_M_node", "_Slist_node", "__gnu_cxx::slist" };
static const struct iter_desc tree_it = { IT_NODE, "_M_node", "_Rb_tree_node", "associative container" };
static const struct iter_desc hash_it = { IT_HASH, "_M_cur", NULL, "hash table" };
static const struct iter_desc bit_it = { IT_BIT, NULL, NULL,
					 "non-dereferenceable iterator for std::vector<bool>" };
static const struct iter_desc bit_ref = { IT_BIT_REF, NULL, NULL, "invalid std::vector<bool>::reference" };
static const struct iter_desc debug_it = { IT_DEBUG, NULL, NULL, NULL };

struct sg_error *lsx_register_iterator(struct sg_session *session)
{
	/* The containers' own types are also in std::__cxx1998 in debug
	   mode (the namespace the debug containers wrap).  */
	static const struct {
		const char *pattern;
		const struct sg_reader_ops *ops;
		const struct iter_desc *d;
		bool container;
	} its[] = {
		{ "__gnu_cxx::__normal_iterator<*>", &iter_ops, &vector_it, false },
		{ "_Deque_iterator<*>", &iter_ops, &deque_it, true },
		{ "_List_iterator<*>", &iter_ops, &list_it, true },
		{ "_List_const_iterator<*>", &iter_ops, &list_it, true },
		{ "_Fwd_list_iterator<*>", &iter_ops, &flist_it, true },
		{ "_Fwd_list_const_iterator<*>", &iter_ops, &flist_it, true },
		{ "__gnu_cxx::_Slist_iterator<*>", &iter_ops, &slist_it, false },
		{ "std::_Rb_tree_iterator<*>", &iter_ops, &tree_it, false },
		{ "std::_Rb_tree_const_iterator<*>", &iter_ops, &tree_it, false },
		{ "std::__detail::_Node_iterator<*>", &hash_ops, &hash_it, false },
		{ "std::__detail::_Node_const_iterator<*>", &hash_ops, &hash_it, false },
		{ "std::__detail::_Local_iterator<*>", &hash_ops, &hash_it, false },
		{ "std::__detail::_Local_const_iterator<*>", &hash_ops, &hash_it, false },
		{ "_Bit_iterator", &iter_ops, &bit_it, true },
		{ "_Bit_const_iterator", &iter_ops, &bit_it, true },
		{ "_Bit_reference", &bit_ref_ops, &bit_ref, true },
		{ "__gnu_debug::_Safe_iterator<*>", &iter_ops, &debug_it, false },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(its) / sizeof(its[0]) && !err; i++) {
		for (int ns = 0; ns < (its[i].container ? 2 : 1) && !err; ns++) {
			char *pattern;
			if (asprintf(&pattern, "%s%s", !its[i].container ? "" : ns ? "std::__cxx1998::" : "std::",
				     its[i].pattern) < 0)
				return &sg_enomem;
			err = sg_reader_register(session, pattern, pattern, its[i].ops, (void *)its[i].d);
			free(pattern);
		}
	}
	return err;
}
