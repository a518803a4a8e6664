/* libstdc++ sequences: std::vector (and the bit vector std::vector<bool>),
   std::list, std::deque, std::forward_list, std::initializer_list and
   std::bitset.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

/* The template name of V's type ("std::__cxx11::list"), as gdb's printers
   name the container.  */
static char *template_name(const struct sg_value *v)
{
	Dwarf_Die st;
	sg_type_strip(sg_value_type(v), &st);
	char *name = sg_type_qualified_name(&st);
	if (name)
		name[strcspn(name, "<")] = '\0';
	return name;
}

/* ---- std::vector ---- */

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
	struct sg_error *err = lsx_read_path(v, start, &vec->start);
	if (!err)
		err = lsx_read_path(v, finish, &vec->finish);
	if (!err)
		err = lsx_read_path(v, end, &vec->end);
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

/* std::vector<bool>: _M_start and _M_finish are bit iterators (_M_p, a
   word pointer, and _M_offset, a bit in it).  */
struct bitvec {
	uint64_t start, finish, finish_bit, end;
	uint64_t wsize;		/* bytes per word */
	uint64_t length, capacity;
	Dwarf_Die bit_type;	/* bool: the printer's Python bools are C++ bools */
};

static bool is_bool(const struct sg_value *v)
{
	Dwarf_Die elem, st;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	if (sg_value_template_type(v, 0, &elem))
		return false;
	sg_type_strip(&elem, &st);
	return dwarf_tag(&st) == DW_TAG_base_type && dwarf_attr(&st, DW_AT_encoding, &a) &&
	       dwarf_formudata(&a, &enc) == 0 && enc == DW_ATE_boolean;
}

static struct sg_error *bitvec_read(const struct sg_value *v, struct bitvec *b)
{
	static const char *const start[] = { "_M_impl", "_M_start", "_M_p", NULL };
	static const char *const finish[] = { "_M_impl", "_M_finish", "_M_p", NULL };
	static const char *const finish_bit[] = { "_M_impl", "_M_finish", "_M_offset", NULL };
	static const char *const end[] = { "_M_impl", "_M_end_of_storage", NULL };
	struct sg_value *p;
	struct sg_error *err = lsx_member_path(v, start, &p);
	if (err)
		return err;
	Dwarf_Die pt, word;
	sg_type_strip(sg_value_type(p), &pt);
	Dwarf_Attribute a;
	b->wsize = dwarf_attr(&pt, DW_AT_type, &a) && dwarf_formref_die(&a, &word) ? sg_type_size(&word) : 0;
	err = sg_value_read_uint(p, &b->start);
	sg_value_destroy(p);
	if (!err)
		err = lsx_read_path(v, finish_bit, &b->finish_bit);
	if (!err)
		err = sg_value_template_type(v, 0, &b->bit_type);
	if (!err)
		err = lsx_read_path(v, finish, &b->finish);
	if (!err)
		err = lsx_read_path(v, end, &b->end);
	if (err)
		return err;
	if (!b->wsize || b->wsize > 8 || b->finish < b->start || b->end < b->finish ||
	    (b->finish - b->start) % b->wsize || (b->end - b->start) % b->wsize ||
	    b->finish_bit >= 8 * b->wsize || (b->end - b->start) / b->wsize > MAX_SANE_COUNT / 64)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a valid std::vector<bool> (start 0x%" PRIx64 ", finish 0x%" PRIx64
				       ", end of storage 0x%" PRIx64 ")",
				       b->start, b->finish, b->end);
	b->length = (b->finish - b->start) / b->wsize * 8 * b->wsize + b->finish_bit;
	b->capacity = (b->end - b->start) / b->wsize * 8 * b->wsize;
	return NULL;
}

/* ARG is the container's name, for this and the other summaries.  */
static struct sg_error *vector_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg)
{
	int r;
	if (is_bool(v)) {
		struct bitvec b;
		struct sg_error *err = bitvec_read(v, &b);
		if (err)
			return err;
		r = asprintf(ret, "%s<bool> of length %" PRIu64 ", capacity %" PRIu64, (const char *)arg,
			     b.length, b.capacity);
	} else {
		struct vec vec;
		struct sg_error *err = vector_read(v, &vec);
		if (err)
			return err;
		r = asprintf(ret, "%s of length %" PRIu64 ", capacity %" PRIu64, (const char *)arg,
			     (vec.finish - vec.start) / vec.esize, (vec.end - vec.start) / vec.esize);
	}
	return r < 0 ? &sg_enomem : NULL;
}

/* The bits, read a block of words at a time, as computed values.  */
static struct sg_error *bitvec_children(const struct sg_value *v, size_t limit, lsx_child_fn *fn,
					void *fn_arg)
{
	struct bitvec b;
	struct sg_error *err = bitvec_read(v, &b);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t words[64];
	uint64_t bits_per_word = 8 * b.wsize, per_block = 64 * bits_per_word;
	for (uint64_t i = 0; i < b.length && i < limit; i++) {
		if (i % per_block == 0) {
			uint64_t nwords = (b.length - i + bits_per_word - 1) / bits_per_word;
			if (nwords > 64)
				nwords = 64;
			memset(words, 0, sizeof(words));
			for (uint64_t w = 0; w < nwords && !err; w++)
				err = sg_target_read(t, b.start + (i / bits_per_word + w) * b.wsize, &words[w],
						     b.wsize);
			if (err)
				return err;
		}
		uint64_t k = i % per_block;
		struct sg_value *bit;
		if ((err = sg_value_scalar(t, &b.bit_type, words[k / bits_per_word] >> (k % bits_per_word) & 1,
					   &bit)))
			return err;
		char name[32];
		snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
		int r = fn(name, bit, fn_arg);
		sg_value_destroy(bit);
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

static struct sg_error *vector_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit, lsx_child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	if (is_bool(v))
		return bitvec_children(v, limit, fn, fn_arg);
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	uint64_t n = (vec.finish - vec.start) / vec.esize;
	for (uint64_t i = 0; i < n && i < limit; i++) {
		int r;
		if ((err = lsx_emit_index(sg_value_target(v), &vec.elem, vec.start + i * vec.esize, i, fn,
					  fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

/* ---- std::list ---- */

struct sg_error *lsx_value_offset(struct sg_target *t, const Dwarf_Die *node, const char *old_name,
				  uint64_t *ret)
{
	static const char *const storage[] = { "_M_storage", NULL };
	const char *const old[] = { old_name, NULL };
	struct sg_error *err = lsx_offset(t, node, storage, ret, NULL);
	if (!err || sg_error_code(err) == SG_ERROR_NOMEM)
		return err;
	sg_error_destroy(err);
	return lsx_offset(t, node, old, ret, NULL);
}

struct list {
	uint64_t head, first;
	uint64_t count;		/* UINT64_MAX: not kept (the old ABI) */
	uint64_t value_off;	/* the node's value */
	uint64_t next_off;	/* the node's _M_next */
	Dwarf_Die elem;
};

static struct sg_error *list_read(const struct sg_value *v, struct list *l)
{
	static const char *const next[] = { "_M_impl", "_M_node", "_M_next", NULL };
	static const char *const size[] = { "_M_impl", "_M_node", "_M_size", NULL };
	static const char *const impl[] = { "_M_impl", NULL };
	static const char *const head[] = { "_M_impl", "_M_node", NULL };
	static const char *const next_f[] = { "_M_next", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_value *hdr, *im;
	struct sg_error *err = lsx_member_path(v, head, &hdr);
	if (err)
		return err;
	l->head = sg_value_address(hdr);
	sg_value_destroy(hdr);
	if ((err = lsx_read_path(v, next, &l->first)) || (err = sg_value_template_type(v, 0, &l->elem)) ||
	    (err = lsx_member_path(v, impl, &im)))
		return err;
	if ((err = lsx_read_path(v, size, &l->count))) {
		sg_error_destroy(err);
		l->count = UINT64_MAX;
	}
	Dwarf_Die node;
	err = lsx_node_type(t, sg_value_type(im), &node);
	sg_value_destroy(im);
	if (!err)
		err = lsx_value_offset(t, &node, "_M_data", &l->value_off);
	if (!err)
		err = lsx_offset(t, &node, next_f, &l->next_off, NULL);
	if (err)
		return err;
	if (l->count > MAX_SANE_COUNT && l->count != UINT64_MAX)
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
	char *name = template_name(v);
	int r = asprintf(ret, "%s%s", l.first == l.head ? "empty " : "", name ? name : "std::list");
	free(name);
	return r < 0 ? &sg_enomem : NULL;
}

static struct sg_error *list_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	struct list l;
	struct sg_error *err = list_read(v, &l);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = l.first;
	struct lsx_cycle cy = { 0 };
	/* The count, or the cycle check in the old ABI without one, bounds
	   the walk, so a cyclic list ends too.  */
	for (uint64_t i = 0; node != l.head && i < limit; i++) {
		if (i == l.count)
			return sg_error_create(SG_ERROR_BAD_DATA, "std::list is longer than its size (cyclic?)");
		if (l.count == UINT64_MAX && lsx_cycle_seen(&cy, node))
			return sg_error_create(SG_ERROR_BAD_DATA, "std::list is cyclic");
		int r;
		if ((err = lsx_emit_index(t, &l.elem, node + l.value_off, i, fn, fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = sg_target_read_u64(t, node + l.next_off, &node)))
			return err;
	}
	return NULL;
}

/* ---- std::deque ---- */

/* A deque's elements live in buffers of 512 bytes (or one element when
   larger), listed in a map; the start and finish iterators each hold the
   current element, their buffer's bounds and their place in the map.  */
struct deque_it {
	uint64_t cur, first, last, node;
};

struct deque {
	struct deque_it start, finish;
	uint64_t esize, per_buf, count;
	Dwarf_Die elem;
};

static struct sg_error *deque_it_read(const struct sg_value *v, const char *which, struct deque_it *it)
{
	const char *path[] = { "_M_impl", which, NULL, NULL };
	static const char *const fields[] = { "_M_cur", "_M_first", "_M_last", "_M_node" };
	uint64_t *out[] = { &it->cur, &it->first, &it->last, &it->node };
	struct sg_error *err = NULL;
	for (size_t i = 0; i < 4 && !err; i++) {
		path[2] = fields[i];
		err = lsx_read_path(v, path, out[i]);
	}
	return err;
}

static struct sg_error *deque_read(const struct sg_value *v, struct deque *d)
{
	struct sg_error *err = deque_it_read(v, "_M_start", &d->start);
	if (!err)
		err = deque_it_read(v, "_M_finish", &d->finish);
	if (!err)
		err = sg_value_template_type(v, 0, &d->elem);
	if (err)
		return err;
	d->esize = sg_type_size(&d->elem);
	if (!d->esize)
		return sg_error_create(SG_ERROR_BAD_DATA, "std::deque of elements of unknown size");
	d->per_buf = d->esize < 512 ? 512 / d->esize : 1;
	const struct deque_it *s = &d->start, *f = &d->finish;
	uint64_t span = d->per_buf * d->esize;
	bool ok = f->node >= s->node && (f->node - s->node) % 8 == 0 &&
		  s->first <= s->cur && s->cur <= s->last && s->last - s->first == span &&
		  f->first <= f->cur && f->cur <= f->last && f->last - f->first == span &&
		  (s->last - s->cur) % d->esize == 0 && (f->cur - f->first) % d->esize == 0 &&
		  (f->node - s->node) / 8 <= MAX_SANE_COUNT / d->per_buf;
	if (ok) {
		uint64_t nodes = (f->node - s->node) / 8;
		d->count = (s->last - s->cur) / d->esize + (f->cur - f->first) / d->esize;
		if (nodes)
			d->count += d->per_buf * (nodes - 1);
		else
			ok = f->cur >= s->cur && s->first == f->first;
		if (!nodes)
			d->count = (f->cur - s->cur) / d->esize;
		ok = ok && d->count <= MAX_SANE_COUNT;
	}
	if (!ok)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a valid std::deque (start node 0x%" PRIx64 ", finish node 0x%" PRIx64
				       ")", s->node, f->node);
	return NULL;
}

static struct sg_error *deque_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	struct deque d;
	struct sg_error *err = deque_read(v, &d);
	if (err)
		return err;
	return lsx_with_elements(arg, d.count, ret);
}

static struct sg_error *deque_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	struct deque d;
	struct sg_error *err = deque_read(v, &d);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t p = d.start.cur, end = d.start.last, node = d.start.node;
	for (uint64_t i = 0; i < d.count && i < limit; i++) {
		if (p == end) {
			/* The next buffer, from the map; a garbage buffer
			   address ends the walk with one error.  */
			node += 8;
			unsigned char probe;
			if ((err = sg_target_read_u64(t, node, &p)) || (err = sg_target_read(t, p, &probe, 1)))
				return err;
			end = p + d.per_buf * d.esize;
		}
		int r;
		if ((err = lsx_emit_index(t, &d.elem, p, i, fn, fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
		p += d.esize;
	}
	return NULL;
}

/* ---- std::forward_list ---- */

struct flist {
	uint64_t first;
	uint64_t next_off, value_off;
	Dwarf_Die elem;
};

static struct sg_error *flist_read(const struct sg_value *v, struct flist *fl)
{
	static const char *const head[] = { "_M_impl", "_M_head", "_M_next", NULL };
	static const char *const impl[] = { "_M_impl", NULL };
	static const char *const next[] = { "_M_next", NULL };
	static const char *const storage[] = { "_M_storage", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_value *im;
	struct sg_error *err = lsx_read_path(v, head, &fl->first);
	if (!err)
		err = sg_value_template_type(v, 0, &fl->elem);
	if (!err)
		err = lsx_member_path(v, impl, &im);
	if (err)
		return err;
	Dwarf_Die node;
	err = lsx_node_type(t, sg_value_type(im), &node);
	sg_value_destroy(im);
	if (!err)
		err = lsx_offset(t, &node, next, &fl->next_off, NULL);
	if (!err)
		err = lsx_offset(t, &node, storage, &fl->value_off, NULL);
	return err;
}

static struct sg_error *flist_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	struct flist fl;
	struct sg_error *err = flist_read(v, &fl);
	if (err)
		return err;
	return asprintf(ret, "%s%s", fl.first ? "" : "empty ", (const char *)arg) < 0 ? &sg_enomem : NULL;
}

/* A forward_list keeps no count: the cycle check ends a cyclic list.  */
static struct sg_error *flist_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	struct flist fl;
	struct sg_error *err = flist_read(v, &fl);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	uint64_t node = fl.first;
	struct lsx_cycle cy = { 0 };
	for (uint64_t i = 0; node && i < limit; i++) {
		if (lsx_cycle_seen(&cy, node))
			return sg_error_create(SG_ERROR_BAD_DATA, "std::forward_list is cyclic");
		int r;
		if ((err = lsx_emit_index(t, &fl.elem, node + fl.value_off, i, fn, fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = sg_target_read_u64(t, node + fl.next_off, &node)))
			return err;
	}
	return NULL;
}

/* ---- std::initializer_list: _M_array and _M_len ---- */

struct sg_error *lsx_emit_array(struct sg_target *t, const Dwarf_Die *elem, uint64_t array, uint64_t len,
				size_t limit, lsx_child_fn *fn, void *fn_arg)
{
	uint64_t esize = sg_type_size(elem);
	struct sg_error *err = NULL;
	for (uint64_t i = 0; !err && i < len && i < limit; i++) {
		int r = SG_CB_OK;
		err = lsx_emit_index(t, elem, array + i * esize, i, fn, fn_arg, &r);
		if (r != SG_CB_OK)
			break;
	}
	return err;
}

static struct sg_error *ilist_read(const struct sg_value *v, uint64_t *array, uint64_t *len,
				   Dwarf_Die *elem)
{
	static const char *const array_path[] = { "_M_array", NULL };
	static const char *const len_path[] = { "_M_len", NULL };
	struct sg_error *err = lsx_read_path(v, array_path, array);
	if (!err)
		err = lsx_read_path(v, len_path, len);
	if (!err)
		err = sg_value_template_type(v, 0, elem);
	if (!err && *len > MAX_SANE_COUNT)
		err = sg_error_format(SG_ERROR_BAD_DATA,
				      "std::initializer_list of %" PRIu64 " elements is not sane", *len);
	return err;
}

static struct sg_error *ilist_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg SG_UNUSED)
{
	uint64_t array, len;
	Dwarf_Die elem;
	struct sg_error *err = ilist_read(v, &array, &len, &elem);
	if (!err && asprintf(ret, "std::initializer_list of length %" PRIu64, len) < 0)
		err = &sg_enomem;
	return err;
}

static struct sg_error *ilist_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	uint64_t array, len;
	Dwarf_Die elem;
	struct sg_error *err = ilist_read(v, &array, &len, &elem);
	return err ? err : lsx_emit_array(sg_value_target(v), &elem, array, len, limit, fn, fn_arg);
}

/* ---- std::bitset ---- */

static struct sg_error *bitset_summary(struct sg_session *session SG_UNUSED,
				       const struct sg_value *v SG_UNUSED, char **ret, void *arg)
{
	*ret = strdup(arg);
	return *ret ? NULL : &sg_enomem;
}

/* Each set bit N as "[N] = 1", from the words _M_w (one word, or an
   array of them; none in std::bitset<0>).  */
static struct sg_error *bitset_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit, lsx_child_fn *fn,
					void *fn_arg, void *arg SG_UNUSED)
{
	struct sg_value *w;
	struct sg_error *err = sg_value_member(v, "_M_w", &w);
	if (err) {
		sg_error_destroy(err);
		return NULL;
	}
	Dwarf_Die wt, word;
	Dwarf_Attribute a;
	sg_type_strip(sg_value_type(w), &wt);
	uint64_t addr = sg_value_address(w), total = sg_type_size(&wt);
	sg_value_destroy(w);
	if (dwarf_tag(&wt) != DW_TAG_array_type)
		word = wt;
	else if (!dwarf_attr(&wt, DW_AT_type, &a) || !dwarf_formref_die(&a, &word))
		return sg_error_create(SG_ERROR_LOOKUP, "no word type of std::bitset");
	uint64_t wsize = sg_type_size(&word);
	if (!wsize || wsize > 8 || total % wsize || total / wsize > MAX_SANE_COUNT / 64)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::bitset of %" PRIu64 " bytes in %" PRIu64
				       "-byte words", total, wsize);
	struct sg_target *t = sg_value_target(v);
	size_t shown = 0;
	for (uint64_t i = 0; i < total / wsize && shown < limit; i++) {
		uint64_t x = 0;
		if ((err = sg_target_read(t, addr + i * wsize, &x, wsize)))
			return err;
		for (unsigned bit = 0; x && shown < limit; bit++, x >>= 1) {
			if (!(x & 1))
				continue;
			struct sg_value *one;
			if ((err = sg_value_scalar(t, &word, 1, &one)))
				return err;
			char name[32];
			snprintf(name, sizeof(name), "[%" PRIu64 "]", i * wsize * 8 + bit);
			int r = fn(name, one, fn_arg);
			sg_value_destroy(one);
			shown++;
			if (r != SG_CB_OK)
				return NULL;
		}
	}
	return NULL;
}

static const struct sg_reader_ops vector_ops = {
	.summary = vector_summary, .children = vector_children, .hint = SG_HINT_ARRAY,
};
static const struct sg_reader_ops list_ops = {
	.summary = list_summary, .children = list_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops deque_ops = {
	.summary = deque_summary, .children = deque_children, .hint = SG_HINT_ARRAY,
};
static const struct sg_reader_ops flist_ops = {
	.summary = flist_summary, .children = flist_children, .hint = SG_HINT_NONE,
};
static const struct sg_reader_ops ilist_ops = {
	.summary = ilist_summary, .children = ilist_children, .hint = SG_HINT_ARRAY,
};
static const struct sg_reader_ops bitset_ops = {
	.summary = bitset_summary, .children = bitset_children, .hint = SG_HINT_NONE,
};

/* Each under its name and, for debug mode (_GLIBCXX_DEBUG), as
   std::__debug::NAME, which derives from the normal container
   (std::__cxx1998::NAME): the members are found through that base.  The
   argument is the name the summary shows.  */
struct sg_error *lsx_register_sequence(struct sg_session *session)
{
	static const struct {
		const char *name, *pattern;
		const struct sg_reader_ops *ops;
	} readers[] = {
		{ "std::vector", "std::vector<*>", &vector_ops },
		{ "std::__debug::vector", "std::__debug::vector<*>", &vector_ops },
		{ "std::list", "std::__cxx11::list<*>", &list_ops },
		{ "std::list (old ABI)", "std::list<*>", &list_ops },
		{ "std::__debug::list", "std::__debug::list<*>", &list_ops },
		{ "std::deque", "std::deque<*>", &deque_ops },
		{ "std::__debug::deque", "std::__debug::deque<*>", &deque_ops },
		{ "std::forward_list", "std::forward_list<*>", &flist_ops },
		{ "std::__debug::forward_list", "std::__debug::forward_list<*>", &flist_ops },
		{ "std::bitset", "std::bitset<*>", &bitset_ops },
		{ "std::__debug::bitset", "std::__debug::bitset<*>", &bitset_ops },
		{ "std::initializer_list", "std::initializer_list<*>", &ilist_ops },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]) && !err; i++)
		err = sg_reader_register(session, readers[i].name, readers[i].pattern, readers[i].ops,
					 (void *)readers[i].name);
	return err;
}
