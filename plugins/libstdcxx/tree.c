/* libstdc++ red-black trees: std::set, std::multiset, std::map and
   std::multimap.  The layout (the header, the node's links and value) is
   resolved once per container; each step reads one node's links.  */
#include <config.h>
#include "libstdcxx.h"

#include <inttypes.h>

struct tree {
	uint64_t header, leftmost, count;
	uint64_t value_off;	/* the node's value */
	uint64_t parent_off, left_off, right_off, links_size;
	Dwarf_Die elem;
	struct lsx_pair pair;	/* maps only */
};

static struct sg_error *tree_read(const struct sg_value *v, struct tree *tr, bool map)
{
	static const char *const left[] = { "_M_t", "_M_impl", "_M_header", "_M_left", NULL };
	static const char *const count[] = { "_M_t", "_M_impl", "_M_node_count", NULL };
	static const char *const hdr[] = { "_M_t", "_M_impl", "_M_header", NULL };
	static const char *const impl[] = { "_M_t", "_M_impl", NULL };
	static const char *const parent_f[] = { "_M_parent", NULL };
	static const char *const left_f[] = { "_M_left", NULL };
	static const char *const right_f[] = { "_M_right", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_value *cur;
	struct sg_error *err = lsx_member_path(v, hdr, &cur);
	if (err)
		return err;
	tr->header = sg_value_address(cur);
	sg_value_destroy(cur);
	if ((err = lsx_read_path(v, left, &tr->leftmost)) || (err = lsx_read_path(v, count, &tr->count)))
		return err;
	/* The node's value type is _Rb_tree's second template argument: the
	   key for a set, std::pair<const K, V> for a map.  */
	if ((err = lsx_member_path(v, impl, &cur)))
		return err;
	Dwarf_Die node;
	err = lsx_node_type(t, sg_value_type(cur), &node);
	sg_value_destroy(cur);
	if (err)
		return err;
	if (!lsx_template_arg(t, &node, 0, &tr->elem))
		return sg_error_create(SG_ERROR_LOOKUP, "no value type of the red-black tree node");
	if ((err = lsx_value_offset(t, &node, "_M_value_field", &tr->value_off)) ||
	    (err = lsx_offset(t, &node, parent_f, &tr->parent_off, NULL)) ||
	    (err = lsx_offset(t, &node, left_f, &tr->left_off, NULL)) ||
	    (err = lsx_offset(t, &node, right_f, &tr->right_off, NULL)))
		return err;
	tr->links_size = tr->parent_off;
	if (tr->left_off > tr->links_size)
		tr->links_size = tr->left_off;
	if (tr->right_off > tr->links_size)
		tr->links_size = tr->right_off;
	tr->links_size += 8;
	if (map && (err = lsx_pair_layout(t, &tr->elem, &tr->pair)))
		return err;
	if (tr->count > MAX_SANE_COUNT || tr->links_size > 64)
		return sg_error_format(SG_ERROR_BAD_DATA, "red-black tree of %" PRIu64 " nodes is not sane",
				       tr->count);
	return NULL;
}

/* NODE's links, with one read.  */
static struct sg_error *links(struct sg_target *t, const struct tree *tr, uint64_t node,
			      uint64_t *parent, uint64_t *left, uint64_t *right)
{
	unsigned char buf[64];
	struct sg_error *err = sg_target_read(t, node, buf, tr->links_size);
	if (err)
		return err;
	memcpy(parent, buf + tr->parent_off, 8);
	memcpy(left, buf + tr->left_off, 8);
	memcpy(right, buf + tr->right_off, 8);
	return NULL;
}

/* The in-order successor of NODE: the leftmost of its right subtree, or
   the first ancestor it is left of.  Each climb is bounded.  */
static struct sg_error *tree_next(struct sg_target *t, const struct tree *tr, uint64_t node,
				  uint64_t *ret)
{
	uint64_t parent, left, right;
	struct sg_error *err = links(t, tr, node, &parent, &left, &right);
	if (err)
		return err;
	/* A node linked to itself would be visited again: a duplicate
	   element with no word of the damage.  */
	if (right == node || parent == node)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "tree node 0x%" PRIx64 " links to itself (cyclic?)", node);
	if (right) {
		node = right;
		for (int i = 0; i < 64; i++) {
			if ((err = links(t, tr, node, &parent, &left, &right)))
				return err;
			if (!left)
				break;
			node = left;
		}
		*ret = node;
		return NULL;
	}
	/* Climb while NODE is its parent's right child.  The climb from
	   the root reaches the header, whose parent is the root again:
	   libstdc++'s _Rb_tree_increment ends there when the node it
	   reached is not its parent's right (RIGHT is NODE's right).  */
	for (int i = 0; i < 64; i++) {
		uint64_t pp, pl, pr;
		if ((err = links(t, tr, parent, &pp, &pl, &pr)))
			return err;
		if (pr != node)
			break;
		node = parent;
		right = pr;
		parent = pp;
	}
	*ret = right != parent ? parent : node;
	return NULL;
}

/* ARG is the container's name: std::set, std::multiset, std::map, ...  */
static struct sg_error *tree_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     char **ret, void *arg)
{
	struct tree tr;
	struct sg_error *err = tree_read(v, &tr, false);
	if (err)
		return err;
	return lsx_with_elements(arg, tr.count, ret);
}

/* The tree's values in order: one child each for a set, a key and a value
   for a map (MAP).  */
static struct sg_error *tree_walk(const struct sg_value *v, size_t limit, bool map, lsx_child_fn *fn,
				  void *fn_arg)
{
	struct tree tr;
	struct sg_error *err = tree_read(v, &tr, map);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = tr.leftmost;
	/* At most COUNT nodes: a cyclic tree cannot keep us here.  */
	for (uint64_t i = 0; i < tr.count && i < limit && node != tr.header; i++) {
		int r;
		if (map)
			err = lsx_emit_pair(t, &tr.pair, node + tr.value_off, i, fn, fn_arg, &r);
		else
			err = lsx_emit_index(t, &tr.elem, node + tr.value_off, i, fn, fn_arg, &r);
		if (err)
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = tree_next(t, &tr, node, &node)))
			return err;
		if (i + 1 == tr.count && node != tr.header)
			return sg_error_create(SG_ERROR_BAD_DATA,
					       "tree is longer than its element count (cyclic?)");
	}
	return NULL;
}

static struct sg_error *set_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	return tree_walk(v, limit, false, fn, fn_arg);
}

static struct sg_error *map_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	return tree_walk(v, limit, true, fn, fn_arg);
}

static const struct sg_reader_ops set_ops = {
	.summary = tree_summary, .children = set_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops map_ops = {
	.summary = tree_summary, .children = map_children, .hint = SG_HINT_MAP,
};

struct sg_error *lsx_register_tree(struct sg_session *session)
{
	/* The reader's argument is the name its summary shows.  */
	static const struct { const char *name, *pattern; const struct sg_reader_ops *ops; } trees[] = {
		{ "std::set", "std::set<*>", &set_ops },
		{ "std::multiset", "std::multiset<*>", &set_ops },
		{ "std::map", "std::map<*>", &map_ops },
		{ "std::multimap", "std::multimap<*>", &map_ops },
		{ "std::__debug::set", "std::__debug::set<*>", &set_ops },
		{ "std::__debug::multiset", "std::__debug::multiset<*>", &set_ops },
		{ "std::__debug::map", "std::__debug::map<*>", &map_ops },
		{ "std::__debug::multimap", "std::__debug::multimap<*>", &map_ops },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]) && !err; i++)
		err = sg_reader_register(session, trees[i].name, trees[i].pattern, trees[i].ops,
					 (void *)trees[i].name);
	return err;
}
