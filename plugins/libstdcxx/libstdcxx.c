/* libstdcxx: typed readers for GCC's C++ library, printing what gdb's
   libstdc++ printers print.  Member names come from the program's DWARF
   (through base classes), not from offsets compiled in here.

   So far: std::string (the C++11 ABI), std::vector, std::list, std::set,
   std::multiset, std::map, std::multimap, std::unique_ptr, std::shared_ptr
   and std::weak_ptr; the other containers
   follow the same pattern.  Every walk is bounded by the container's own
   count, so cyclic or garbage links end it.  */
#define _GNU_SOURCE	/* asprintf */
#include <spyglass/spyglass.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vector or string claiming more than this is garbage.  */
#define MAX_SANE_COUNT (UINT64_C(1) << 32)

static size_t print_limit(struct sg_session *session)
{
	uint64_t n = sg_setting_uint(session, "print elements", 200);
	return n > (1u << 20) ? (1u << 20) : n;
}

/* The member at the path A.B.C (non-empty) of V, as a new value.  */
static struct sg_error *member_path(const struct sg_value *v, const char *const *path,
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

/* Read the member path A.B.C of V as an unsigned integer.  */
static struct sg_error *read_path(const struct sg_value *v, const char *const *path, uint64_t *ret)
{
	struct sg_value *m;
	struct sg_error *err = member_path(v, path, &m);
	if (err)
		return err;
	err = sg_value_read_uint(m, ret);
	sg_value_destroy(m);
	return err;
}

typedef int child_fn(const char *name, struct sg_value *child, void *fn_arg);

/* Hand FN the element of type ELEM at ADDR, named "[I]" as gdb names a
   container's children; *R gets FN's answer.  */
static struct sg_error *emit_element(struct sg_target *t, const Dwarf_Die *elem, uint64_t addr,
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

static void append(char **s, size_t *len, size_t *cap, const char *text)
{
	size_t n = strlen(text);
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		char *p = realloc(*s, ncap);
		if (!p)
			return;
		*s = p;
		*cap = ncap;
	}
	memcpy(*s + *len, text, n + 1);
	*len += n;
}

/* A byte inside double quotes as gdb writes it.  */
static void escape(char **s, size_t *len, size_t *cap, unsigned char c)
{
	char tmp[8];
	static const char named[] = { ['\a'] = 'a', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
				      ['\r'] = 'r', ['\t'] = 't', ['\v'] = 'v' };
	if (c == '"' || c == '\\')
		snprintf(tmp, sizeof(tmp), "\\%c", c);
	else if (c < sizeof(named) && named[c])
		snprintf(tmp, sizeof(tmp), "\\%c", named[c]);
	else if (c < 0x20 || c >= 0x7f)
		snprintf(tmp, sizeof(tmp), "\\%03o", c);
	else
		snprintf(tmp, sizeof(tmp), "%c", c);
	append(s, len, cap, tmp);
}

/* std::__cxx11::basic_string<char>: _M_dataplus._M_p points at the
   characters, _M_string_length counts them.  */
static struct sg_error *string_summary(struct sg_session *session, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	uint64_t p, len;
	struct sg_error *err = read_path(v, p_path, &p);
	if (!err)
		err = read_path(v, len_path, &len);
	if (err)
		return err;
	if (len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64 " is not sane",
				       len);
	size_t limit = print_limit(session), want = len < limit ? len : limit;
	unsigned char *buf = malloc(want ? want : 1);
	if (!buf)
		return &sg_enomem;
	err = sg_target_read(sg_value_target(v), p, buf, want);
	if (err) {
		free(buf);
		return err;
	}
	size_t cap = 0, n = 0;
	char *s = NULL;
	append(&s, &n, &cap, "\"");
	for (size_t i = 0; i < want; i++)
		escape(&s, &n, &cap, buf[i]);
	free(buf);
	append(&s, &n, &cap, want < len ? "\"..." : "\"");
	if (!s)
		return &sg_enomem;
	*ret = s;
	return NULL;
}

struct vec {
	uint64_t start, finish, end;
	uint64_t esize;
	Dwarf_Die elem;
};

static struct sg_error *vector_read(const struct sg_value *v, struct vec *vec)
{
	static const char *const start[] = { "_M_impl", "_M_start", NULL };
	static const char *const finish[] = { "_M_impl", "_M_finish", NULL };
	static const char *const end[] = { "_M_impl", "_M_end_of_storage", NULL };
	struct sg_error *err = read_path(v, start, &vec->start);
	if (!err)
		err = read_path(v, finish, &vec->finish);
	if (!err)
		err = read_path(v, end, &vec->end);
	if (!err)
		err = sg_value_template_type(v, 0, &vec->elem);
	if (err)
		return err;
	vec->esize = sg_type_size(&vec->elem);
	if (!vec->esize || vec->finish < vec->start || vec->end < vec->finish ||
	    (vec->finish - vec->start) % vec->esize || (vec->finish - vec->start) / vec->esize > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a valid std::vector (start 0x%" PRIx64 ", finish 0x%" PRIx64
				       ", end of storage 0x%" PRIx64 ")",
				       vec->start, vec->finish, vec->end);
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
		     (vec.finish - vec.start) / vec.esize, (vec.end - vec.start) / vec.esize) < 0)
		return &sg_enomem;
	return NULL;
}

static struct sg_error *vector_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit,
					child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	uint64_t n = (vec.finish - vec.start) / vec.esize;
	for (uint64_t i = 0; i < n && i < limit; i++) {
		int r;
		if ((err = emit_element(sg_value_target(v), &vec.elem, vec.start + i * vec.esize, i, fn,
					fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

/* ---- std::list ---- */

/* The size of a named type of the program, for node layouts.  */
static uint64_t named_size(struct sg_target *t, const char *name)
{
	Dwarf_Die d;
	struct sg_error *err = sg_lookup_type(t, name, &d);
	if (err) {
		sg_error_destroy(err);
		return 0;
	}
	return sg_type_size(&d);
}

struct list {
	uint64_t head, first, count;
	uint64_t value_off;	/* the value after the node's two links */
	Dwarf_Die elem;
};

static struct sg_error *list_read(const struct sg_value *v, struct list *l)
{
	static const char *const next[] = { "_M_impl", "_M_node", "_M_next", NULL };
	static const char *const size[] = { "_M_impl", "_M_node", "_M_size", NULL };
	static const char *const head[] = { "_M_impl", "_M_node", NULL };
	struct sg_value *hdr;
	struct sg_error *err = member_path(v, head, &hdr);
	if (err)
		return err;
	l->head = sg_value_address(hdr);
	sg_value_destroy(hdr);
	if ((err = read_path(v, next, &l->first)) || (err = read_path(v, size, &l->count)) ||
	    (err = sg_value_template_type(v, 0, &l->elem)))
		return err;
	l->value_off = named_size(sg_value_target(v), "std::__detail::_List_node_base");
	if (!l->value_off)
		return sg_error_create(SG_ERROR_LOOKUP, "no std::__detail::_List_node_base in the DWARF");
	if (l->count > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::list of %" PRIu64 " elements is not sane",
				       l->count);
	return NULL;
}

static struct sg_error *list_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     char **ret, void *arg SG_UNUSED)
{
	struct list l;
	struct sg_error *err = list_read(v, &l);
	if (err)
		return err;
	*ret = strdup(l.first == l.head ? "empty std::__cxx11::list" : "std::__cxx11::list");
	return *ret ? NULL : &sg_enomem;
}

static struct sg_error *list_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      size_t limit,
				      child_fn *fn,
				      void *fn_arg, void *arg SG_UNUSED)
{
	struct list l;
	struct sg_error *err = list_read(v, &l);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = l.first;
	/* The count bounds the walk, so a cyclic list ends too.  */
	for (uint64_t i = 0; node != l.head && i < limit && i <= l.count; i++) {
		if (i == l.count)
			return sg_error_create(SG_ERROR_BAD_DATA, "std::list is longer than its size (cyclic?)");
		int r;
		if ((err = emit_element(t, &l.elem, node + l.value_off, i, fn, fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = sg_target_read_u64(t, node, &node)))
			return err;
	}
	return NULL;
}

/* ---- std::set (a red-black tree) ---- */

struct tree {
	uint64_t header, leftmost, count;
	uint64_t value_off;	/* after color, parent, left, right */
	Dwarf_Die elem;
};

static struct sg_error *tree_read(const struct sg_value *v, struct tree *tr)
{
	static const char *const left[] = { "_M_t", "_M_impl", "_M_header", "_M_left", NULL };
	static const char *const count[] = { "_M_t", "_M_impl", "_M_node_count", NULL };
	static const char *const hdr[] = { "_M_t", "_M_impl", "_M_header", NULL };
	struct sg_value *cur;
	struct sg_error *err = member_path(v, hdr, &cur);
	if (err)
		return err;
	tr->header = sg_value_address(cur);
	tr->value_off = sg_type_size(sg_value_type(cur));
	sg_value_destroy(cur);
	if ((err = read_path(v, left, &tr->leftmost)) || (err = read_path(v, count, &tr->count)))
		return err;
	/* The node's value type is _Rb_tree's second template argument: the
	   key for a set, std::pair<const K, V> for a map.  */
	struct sg_value *t;
	if ((err = sg_value_member(v, "_M_t", &t)))
		return err;
	err = sg_value_template_type(t, 1, &tr->elem);
	sg_value_destroy(t);
	if (err)
		return err;
	if (tr->count > MAX_SANE_COUNT || !tr->value_off)
		return sg_error_format(SG_ERROR_BAD_DATA, "red-black tree of %" PRIu64 " nodes is not sane",
				       tr->count);
	return NULL;
}

/* The in-order successor of NODE: the leftmost of its right subtree, or
   the first ancestor it is left of.  */
static struct sg_error *tree_next(struct sg_target *t, uint64_t node, uint64_t *ret)
{
	uint64_t links[3];	/* parent, left, right after the color word */
	struct sg_error *err = sg_target_read(t, node + 8, links, sizeof(links));
	if (err)
		return err;
	if (links[2]) {
		node = links[2];
		for (int i = 0; i < 64; i++) {
			uint64_t l;
			if ((err = sg_target_read_u64(t, node + 16, &l)))
				return err;
			if (!l)
				break;
			node = l;
		}
		*ret = node;
		return NULL;
	}
	uint64_t parent = links[0];
	for (int i = 0; i < 64; i++) {
		uint64_t pl[3];
		if ((err = sg_target_read(t, parent + 8, pl, sizeof(pl))))
			return err;
		if (pl[2] != node)
			break;
		node = parent;
		parent = pl[0];
	}
	*ret = parent;
	return NULL;
}

/* ARG is the container's name: std::set, std::multiset, std::map, ...  */
static struct sg_error *tree_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     char **ret, void *arg)
{
	struct tree tr;
	struct sg_error *err = tree_read(v, &tr);
	if (err)
		return err;
	if (asprintf(ret, "%s with %" PRIu64 " element%s", (const char *)arg, tr.count,
		     tr.count == 1 ? "" : "s") < 0)
		return &sg_enomem;
	return NULL;
}

/* The tree's values in order: one child each for a set, a key and a value
   for a map (MAP).  */
static struct sg_error *tree_walk(const struct sg_value *v, size_t limit, bool map,
				  child_fn *fn,
				  void *fn_arg)
{
	struct tree tr;
	struct sg_error *err = tree_read(v, &tr);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = tr.leftmost;
	/* At most COUNT nodes: a cyclic tree cannot keep us here.  */
	for (uint64_t i = 0; i < tr.count && i < limit && node != tr.header; i++) {
		struct sg_value *child;
		if ((err = sg_value_at(t, &tr.elem, node + tr.value_off, &child)))
			return err;
		char name[32];
		snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
		int r = SG_CB_OK;
		if (map) {
			struct sg_value *key = NULL, *val = NULL;
			if (!(err = sg_value_member(child, "first", &key)) &&
			    !(err = sg_value_member(child, "second", &val))) {
				r = fn(name, key, fn_arg);
				if (r == SG_CB_OK)
					r = fn(name, val, fn_arg);
			}
			sg_value_destroy(key);
			sg_value_destroy(val);
		} else {
			r = fn(name, child, fn_arg);
		}
		sg_value_destroy(child);
		if (err)
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = tree_next(t, node, &node)))
			return err;
	}
	return NULL;
}

static struct sg_error *set_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit,
				     child_fn *fn,
				     void *fn_arg, void *arg SG_UNUSED)
{
	return tree_walk(v, limit, false, fn, fn_arg);
}

static struct sg_error *map_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit,
				     child_fn *fn,
				     void *fn_arg, void *arg SG_UNUSED)
{
	return tree_walk(v, limit, true, fn, fn_arg);
}

/* ---- smart pointers ---- */

/* "std::unique_ptr<int>": the template's name with its first argument, as
   gdb's printers write it.  */
static char *with_arg(const char *template_name, const struct sg_value *v)
{
	Dwarf_Die arg;
	struct sg_error *err = sg_value_template_type(v, 0, &arg);
	char *an = err ? NULL : sg_type_qualified_name(&arg);
	sg_error_destroy(err);
	char *s;
	if (asprintf(&s, "%s<%s>", template_name, an ? an : "?") < 0)
		s = NULL;
	free(an);
	return s;
}

static struct sg_error *pointer_child(const struct sg_value *v, const char *const *path,
				      child_fn *fn,
				      void *fn_arg)
{
	struct sg_value *cur = NULL;
	const struct sg_value *at = v;
	struct sg_error *err = NULL;
	for (size_t i = 0; path[i] && !err; i++) {
		struct sg_value *next;
		if (!(err = sg_value_member(at, path[i], &next))) {
			sg_value_destroy(cur);
			at = cur = next;
		}
	}
	if (!err)
		fn("get()", cur, fn_arg);
	sg_value_destroy(cur);
	return err;
}

static const char *const unique_path[] = { "_M_t", "_M_t", "_M_head_impl", NULL };

static struct sg_error *unique_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	*ret = with_arg("std::unique_ptr", v);
	return *ret ? NULL : &sg_enomem;
}

static struct sg_error *unique_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit SG_UNUSED,
					child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	return pointer_child(v, unique_path, fn, fn_arg);
}

static const char *const shared_path[] = { "_M_ptr", NULL };

/* std::shared_ptr and std::weak_ptr: the counts live in the control block
   _M_refcount._M_pi (_M_use_count, _M_weak_count); gdb shows the weak count
   less the one the owners hold together.  */
static struct sg_error *shared_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg)
{
	static const char *const pi_path[] = { "_M_refcount", "_M_pi", NULL };
	char *name = with_arg(arg, v);
	uint64_t pi;
	struct sg_error *err = read_path(v, pi_path, &pi);
	if (err || !name) {
		free(name);
		return err ? err : &sg_enomem;
	}
	int r;
	if (!pi) {
		r = asprintf(ret, "%s (empty)", name);
	} else {
		uint32_t counts[2];
		/* After the control block's vtable pointer: use, weak.  */
		if ((err = sg_target_read(sg_value_target(v), pi + 8, counts, sizeof(counts)))) {
			free(name);
			return err;
		}
		r = asprintf(ret, "%s (use count %u, weak count %d)", name, counts[0], (int)counts[1] - 1);
	}
	free(name);
	return r < 0 ? &sg_enomem : NULL;
}

static struct sg_error *shared_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit SG_UNUSED,
					child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	return pointer_child(v, shared_path, fn, fn_arg);
}

static const struct sg_reader_ops list_ops = {
	.summary = list_summary, .children = list_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops set_ops = {
	.summary = tree_summary, .children = set_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops map_ops = {
	.summary = tree_summary, .children = map_children, .hint = SG_HINT_MAP,
};
static const struct sg_reader_ops unique_ops = {
	.summary = unique_summary, .children = unique_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops shared_ops = {
	.summary = shared_summary, .children = shared_children, .hint = SG_HINT_NONE,
};

static const struct sg_reader_ops string_ops = {
	.summary = string_summary,
	.hint = SG_HINT_STRING,
};

static const struct sg_reader_ops vector_ops = {
	.summary = vector_summary,
	.children = vector_children,
	.hint = SG_HINT_ARRAY,
};

static struct sg_error *libstdcxx_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	struct sg_error *err = sg_reader_register(session, "std::string", "std::__cxx11::basic_string<char, *>",
						  &string_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::vector", "std::vector<*>", &vector_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::list", "std::__cxx11::list<*>", &list_ops, NULL);
	/* The reader's argument is the name its summary shows.  */
	static const struct { const char *name, *pattern; const struct sg_reader_ops *ops; } trees[] = {
		{ "std::set", "std::set<*>", &set_ops },
		{ "std::multiset", "std::multiset<*>", &set_ops },
		{ "std::map", "std::map<*>", &map_ops },
		{ "std::multimap", "std::multimap<*>", &map_ops },
	};
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]) && !err; i++)
		err = sg_reader_register(session, trees[i].name, trees[i].pattern, trees[i].ops,
					 (void *)trees[i].name);
	if (!err)
		err = sg_reader_register(session, "std::unique_ptr", "std::unique_ptr<*>", &unique_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::shared_ptr", "std::shared_ptr<*>", &shared_ops,
					 (void *)"std::shared_ptr");
	if (!err)
		err = sg_reader_register(session, "std::weak_ptr", "std::weak_ptr<*>", &shared_ops,
					 (void *)"std::weak_ptr");
	return err;
}

SG_PLUGIN_DEFINE("libstdcxx", "0.1",
		 "Typed readers for libstdc++: string, vector, list, set, map, smart pointers",
		 libstdcxx_init, NULL);
