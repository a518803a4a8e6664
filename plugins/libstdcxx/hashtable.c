/* libstdc++ hash tables: std::unordered_map, unordered_set and their
   multi- forms (and the TR1 ones, below).  gdb's printers walk the table's single list of nodes from
   _M_before_begin (not the buckets), in that order; so do we, bounded by
   the element count.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

struct table {
	uint64_t first, count;
	uint64_t next_off, value_off;	/* in the node */
	Dwarf_Die elem;
	struct lsx_pair pair;		/* maps only */
};

static struct sg_error *table_read(const struct sg_value *v, struct table *tb, bool map)
{
	static const char *const h[] = { "_M_h", NULL };
	static const char *const first[] = { "_M_h", "_M_before_begin", "_M_nxt", NULL };
	static const char *const count[] = { "_M_h", "_M_element_count", NULL };
	static const char *const next[] = { "_M_nxt", NULL };
	static const char *const storage[] = { "_M_storage", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_value *hv;
	struct sg_error *err = lsx_read_path(v, first, &tb->first);
	if (!err)
		err = lsx_read_path(v, count, &tb->count);
	if (!err)
		err = lsx_member_path(v, h, &hv);
	if (err)
		return err;
	/* The node type is the argument of the table's node allocator.  */
	Dwarf_Die alloc, node;
	uint64_t off;
	if (!lsx_find_base(t, sg_value_type(hv), "std::__detail::_Hashtable_alloc<", &alloc, &off))
		err = sg_error_create(SG_ERROR_LOOKUP, "no _Hashtable_alloc base in the DWARF");
	sg_value_destroy(hv);
	if (!err)
		err = lsx_node_type(t, &alloc, &node);
	if (!err && !lsx_template_arg(t, &node, 0, &tb->elem))
		err = sg_error_create(SG_ERROR_LOOKUP, "no value type of the hash table node");
	if (!err)
		err = lsx_offset(t, &node, next, &tb->next_off, NULL);
	if (!err)
		err = lsx_offset(t, &node, storage, &tb->value_off, NULL);
	if (!err && map)
		err = lsx_pair_layout(t, &tb->elem, &tb->pair);
	if (err)
		return err;
	if (tb->count > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "hash table of %" PRIu64 " elements is not sane",
				       tb->count);
	return NULL;
}


static struct sg_error *table_walk(const struct sg_value *v, size_t limit, bool map, lsx_child_fn *fn,
				   void *fn_arg)
{
	struct table tb;
	struct sg_error *err = table_read(v, &tb, map);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = tb.first;
	for (uint64_t i = 0; node && i < limit; i++) {
		if (i == tb.count)
			return sg_error_create(SG_ERROR_BAD_DATA,
					       "hash table is longer than its element count (cyclic?)");
		int r;
		if (map)
			err = lsx_emit_pair(t, &tb.pair, node + tb.value_off, i, fn, fn_arg, &r);
		else
			err = lsx_emit_index(t, &tb.elem, node + tb.value_off, i, fn, fn_arg, &r);
		if (err)
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = sg_target_read_u64(t, node + tb.next_off, &node)))
			return err;
	}
	return NULL;
}


/* ---- std::tr1::unordered_* ---- */

/* The TR1 table is the container itself: _M_buckets, an array of
   _M_bucket_count chains of _Hash_node (_M_v, _M_next); gdb's printers
   walk the buckets in order, each chain to its end.  */
struct tr1_table {
	uint64_t buckets, nbuckets, count;
	uint64_t next_off, value_off;
	Dwarf_Die elem;
	struct lsx_pair pair;		/* maps only */
};

static struct sg_error *tr1_read(const struct sg_value *v, struct tr1_table *tb, bool map)
{
	static const char *const buckets[] = { "_M_buckets", NULL };
	static const char *const nbuckets[] = { "_M_bucket_count", NULL };
	static const char *const count[] = { "_M_element_count", NULL };
	static const char *const next[] = { "_M_next", NULL };
	static const char *const value[] = { "_M_v", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_value *bv;
	struct sg_error *err = lsx_read_path(v, nbuckets, &tb->nbuckets);
	if (!err)
		err = lsx_read_path(v, count, &tb->count);
	if (!err)
		err = lsx_member_path(v, buckets, &bv);
	if (err)
		return err;
	/* The node type, from _M_buckets' type: _Node **.  */
	Dwarf_Die node = *sg_value_type(bv);
	Dwarf_Attribute a;
	for (int i = 0; i < 2 && !err; i++) {
		sg_type_strip(&node, &node);
		if (!dwarf_attr(&node, DW_AT_type, &a) || !dwarf_formref_die(&a, &node))
			err = sg_error_create(SG_ERROR_LOOKUP, "no node type of the hash table in the DWARF");
	}
	if (!err)
		err = sg_value_read_uint(bv, &tb->buckets);
	sg_value_destroy(bv);
	if (!err)
		err = lsx_offset(t, &node, next, &tb->next_off, NULL);
	if (!err)
		err = lsx_offset(t, &node, value, &tb->value_off, &tb->elem);
	if (!err && map)
		err = lsx_pair_layout(t, &tb->elem, &tb->pair);
	if (err)
		return err;
	if (tb->count > MAX_SANE_COUNT || tb->nbuckets > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "hash table of %" PRIu64 " elements in %" PRIu64
				       " buckets is not sane", tb->count, tb->nbuckets);
	return NULL;
}

/* At most the element count of nodes: a cyclic chain cannot keep us.  */
static struct sg_error *tr1_walk(const struct sg_value *v, size_t limit, bool map, lsx_child_fn *fn,
				 void *fn_arg)
{
	struct tr1_table tb;
	struct sg_error *err = tr1_read(v, &tb, map);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t chunk[64], i = 0;
	for (uint64_t b = 0; b < tb.nbuckets && i < limit && i < tb.count; b++) {
		if (b % 64 == 0) {
			uint64_t n = tb.nbuckets - b < 64 ? tb.nbuckets - b : 64;
			if ((err = sg_target_read(t, tb.buckets + 8 * b, chunk, 8 * n)))
				return err;
		}
		for (uint64_t node = chunk[b % 64]; node && i < limit; i++) {
			if (i == tb.count)
				return sg_error_create(SG_ERROR_BAD_DATA,
						       "hash table is longer than its element count (cyclic?)");
			int r;
			if (map)
				err = lsx_emit_pair(t, &tb.pair, node + tb.value_off, i, fn, fn_arg, &r);
			else
				err = lsx_emit_index(t, &tb.elem, node + tb.value_off, i, fn, fn_arg, &r);
			if (err)
				return err;
			if (r != SG_CB_OK)
				return NULL;
			if ((err = sg_target_read_u64(t, node + tb.next_off, &node)))
				return err;
		}
	}
	return NULL;
}

/* ARG is the container's name, which tells the TR1 tables apart.  */
static bool is_tr1(const void *arg)
{
	return !strncmp(arg, "std::tr1::", 10);
}

static struct sg_error *table_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	static const char *const tr1_count[] = { "_M_element_count", NULL };
	static const char *const count[] = { "_M_h", "_M_element_count", NULL };
	uint64_t n;
	struct sg_error *err = lsx_read_path(v, is_tr1(arg) ? tr1_count : count, &n);
	if (!err && n > MAX_SANE_COUNT)
		err = sg_error_format(SG_ERROR_BAD_DATA, "hash table of %" PRIu64 " elements is not sane", n);
	return err ? err : lsx_with_elements(arg, n, ret);
}

static struct sg_error *set_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg)
{
	return (is_tr1(arg) ? tr1_walk : table_walk)(v, limit, false, fn, fn_arg);
}

static struct sg_error *map_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg)
{
	return (is_tr1(arg) ? tr1_walk : table_walk)(v, limit, true, fn, fn_arg);
}

static const struct sg_reader_ops set_ops = {
	.summary = table_summary, .children = set_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops map_ops = {
	.summary = table_summary, .children = map_children, .hint = SG_HINT_MAP,
};

struct sg_error *lsx_register_hashtable(struct sg_session *session)
{
	static const struct { const char *name, *pattern; const struct sg_reader_ops *ops; } tables[] = {
		{ "std::unordered_set", "std::unordered_set<*>", &set_ops },
		{ "std::unordered_multiset", "std::unordered_multiset<*>", &set_ops },
		{ "std::unordered_map", "std::unordered_map<*>", &map_ops },
		{ "std::unordered_multimap", "std::unordered_multimap<*>", &map_ops },
		{ "std::__debug::unordered_set", "std::__debug::unordered_set<*>", &set_ops },
		{ "std::__debug::unordered_multiset", "std::__debug::unordered_multiset<*>", &set_ops },
		{ "std::__debug::unordered_map", "std::__debug::unordered_map<*>", &map_ops },
		{ "std::__debug::unordered_multimap", "std::__debug::unordered_multimap<*>", &map_ops },
		{ "std::tr1::unordered_set", "std::tr1::unordered_set<*>", &set_ops },
		{ "std::tr1::unordered_multiset", "std::tr1::unordered_multiset<*>", &set_ops },
		{ "std::tr1::unordered_map", "std::tr1::unordered_map<*>", &map_ops },
		{ "std::tr1::unordered_multimap", "std::tr1::unordered_multimap<*>", &map_ops },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !err; i++)
		err = sg_reader_register(session, tables[i].name, tables[i].pattern, tables[i].ops,
					 (void *)tables[i].name);
	return err;
}
