/* libstdc++ hash tables: std::unordered_map, unordered_set and their
   multi- forms.  gdb's printers walk the table's single list of nodes from
   _M_before_begin (not the buckets), in that order; so do we, bounded by
   the element count.  */
#include <config.h>
#include "libstdcxx.h"

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

/* ARG is the container's name.  */
static struct sg_error *table_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	struct table tb;
	struct sg_error *err = table_read(v, &tb, false);
	if (err)
		return err;
	return lsx_with_elements(arg, tb.count, ret);
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

static struct sg_error *set_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	return table_walk(v, limit, false, fn, fn_arg);
}

static struct sg_error *map_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	return table_walk(v, limit, true, fn, fn_arg);
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
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !err; i++)
		err = sg_reader_register(session, tables[i].name, tables[i].pattern, tables[i].ops,
					 (void *)tables[i].name);
	return err;
}
