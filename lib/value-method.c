/* Container shortcuts (sg_value_method): "v[i]", "v.size()", "m[key]",
   what gdb's libstdc++ xmethods answer.  A reader's method op answers
   first; what it leaves, the library answers from the reader's children
   and display hint, so that every reader with children has them.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The most children a shortcut walks: "size" of a larger container
   says so rather than walk on.  */
#define MAX_WALK (UINT64_C(1) << 24)

static bool has_method(const struct sg_registry_entry *e)
{
	return e->abi_minor >= 7 && ((const struct sg_reader_ops *)e->ops)->method;
}

/* A copy of CHILD, which its callback only lends.  */
static struct sg_error *copy_value(const struct sg_value *child, struct sg_value **ret)
{
	uint64_t bits;
	if (sg_value_is_synthetic(child, &bits))
		return sg_value_scalar(sg_value_target(child), sg_value_type(child), bits, ret);
	return sg_value_at(sg_value_target(child), sg_value_type(child), sg_value_address(child), ret);
}

struct walk {
	struct sg_session *s;
	const char *child;	/* keep the child of this name ("get()") */
	uint64_t n;		/* children seen */
	uint64_t want;		/* the child to keep, UINT64_MAX: the last */
	bool map;
	const struct sg_value *key;	/* for a map's "[]" */
	bool key_found;
	/* Without a display hint, only children named "[0]", "[1]"...
	   make a sequence (gdb's std::list and std::set printers).  */
	bool check_names, not_seq;
	struct sg_value *got;
	struct sg_error *err;
};

/* Whether A and B hold the same key: the same bytes of an integer (A's
   size), or the same text through their readers (strings).  */
static bool same_key(struct sg_session *s, const struct sg_value *a, const struct sg_value *b)
{
	char *ta = NULL, *tb = NULL;
	size_t la, lb;
	struct sg_error *ea = sg_value_bytes(s, a, 1 << 20, &ta, &la);
	struct sg_error *eb = ea ? NULL : sg_value_bytes(s, b, 1 << 20, &tb, &lb);
	if (!ea && !eb) {
		bool same = la == lb && !memcmp(ta, tb, la);
		free(ta);
		free(tb);
		return same;
	}
	sg_error_destroy(ea);
	sg_error_destroy(eb);
	free(ta);
	free(tb);
	uint64_t va, vb;
	uint64_t size = sg_type_size(sg_value_type(a));
	struct sg_error *e1 = sg_value_read_uint(a, &va), *e2 = e1 ? NULL : sg_value_read_uint(b, &vb);
	bool same = !e1 && !e2;
	sg_error_destroy(e1);
	sg_error_destroy(e2);
	if (same && size && size < 8) {
		uint64_t mask = (UINT64_C(1) << (size * 8)) - 1;
		va &= mask;
		vb &= mask;
	}
	return same && va == vb;
}

static int walk_child(const char *name, struct sg_value *child, void *arg)
{
	(void)name;
	struct walk *w = arg;
	if (w->child) {
		if (++w->n > MAX_WALK)
			return SG_CB_ABORT;
		if (strcmp(name, w->child))
			return SG_CB_OK;
		w->err = copy_value(child, &w->got);
		return SG_CB_ABORT;
	}
	uint64_t i = w->n++;
	if (w->n > MAX_WALK)
		return SG_CB_ABORT;
	if (w->check_names) {
		char want[32];
		snprintf(want, sizeof(want), "[%" PRIu64 "]", i);
		if (strcmp(name, want)) {
			w->not_seq = true;
			return SG_CB_ABORT;
		}
	}
	if (w->key) {
		/* Keys and values alternate: the value after a key that
		   matches.  */
		if (i % 2 == 0) {
			w->key_found = same_key(w->s, child, w->key);
			return SG_CB_OK;
		}
		if (!w->key_found)
			return SG_CB_OK;
		w->err = copy_value(child, &w->got);
		return SG_CB_ABORT;
	}
	if (w->want != UINT64_MAX && i != w->want)
		return SG_CB_OK;
	sg_value_destroy(w->got);
	w->got = NULL;
	w->err = copy_value(child, &w->got);
	return w->err || w->want != UINT64_MAX ? SG_CB_ABORT : SG_CB_OK;
}

/* Walk V's children for W; the number of elements (a map's pairs) in
   *COUNT.  */
static struct sg_error *walk(struct sg_session *s, const struct sg_value *v, struct walk *w,
			     uint64_t *count)
{
	w->s = s;
	struct sg_error *err = sg_value_children(s, v, SIZE_MAX, walk_child, w);
	if (!err)
		err = w->err;
	else
		sg_error_destroy(w->err);
	if (!err && w->n > MAX_WALK)
		err = sg_error_format(SG_ERROR_BAD_DATA, "more than %" PRIu64 " elements", MAX_WALK);
	if (err) {
		sg_value_destroy(w->got);
		w->got = NULL;
	}
	*count = w->map ? w->n / 2 : w->n;
	return err;
}

/* Whether TYPE is a signed integer (DW_ATE_signed, signed char).  */
static bool is_signed(const Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	sg_type_strip(type, &t);
	if (dwarf_tag(&t) != DW_TAG_base_type || !dwarf_attr(&t, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

static struct sg_error *integer(struct sg_session *s, const struct sg_value *v, const char *type,
				uint64_t bits, struct sg_value **ret)
{
	(void)s;
	Dwarf_Die die;
	struct sg_target *t = sg_value_target(v);
	struct sg_error *err = sg_lookup_type(t, type, &die);
	if (err) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_LOOKUP, "No type \"%s\" in the program's DWARF.", type);
	}
	return sg_value_scalar(t, &die, bits, ret);
}

static struct sg_error *from_children(struct sg_session *s, const struct sg_value *v,
				      enum sg_display_hint hint, const char *name,
				      struct sg_value *const *args, size_t nargs, struct sg_value **ret)
{
	struct walk w = { .want = UINT64_MAX, .map = hint == SG_HINT_MAP };
	uint64_t count, index = 0;
	/* A child the reader names as a call ("get()" of std::unique_ptr)
	   is that call's answer.  */
	char call[64];
	if (hint == SG_HINT_NONE && !nargs && strcmp(name, "[]") &&
	    snprintf(call, sizeof(call), "%s()", name) < (int)sizeof(call)) {
		w.child = call;
		struct sg_error *err = walk(s, v, &w, &count);
		if (err || w.got) {
			if (!err)
				*ret = w.got;
			return err;
		}
		w.child = NULL;
		w.n = 0;
	}
	bool indexed = !strcmp(name, "[]") || !strcmp(name, "at");
	if (indexed != (nargs == 1))
		return &sg_not_found;
	if (indexed && w.map) {
		if (strcmp(name, "[]"))
			return &sg_not_found;
		w.key = args[0];
		struct sg_error *err = walk(s, v, &w, &count);
		if (err)
			return err;
		if (!w.got)
			return sg_error_create(SG_ERROR_LOOKUP, "no element has that key");
		*ret = w.got;
		return NULL;
	}
	if (indexed) {
		struct sg_error *err = sg_value_read_uint(args[0], &index);
		if (err)
			return err;
		uint64_t size = sg_type_size(sg_value_type(args[0]));
		if (size && size < 8 && is_signed(sg_value_type(args[0])) &&
		    (index >> (size * 8 - 1)) & 1)
			index |= ~UINT64_C(0) << (size * 8);
		w.want = index;
	} else if (!strcmp(name, "front")) {
		w.want = 0;
	} else if (strcmp(name, "back") && strcmp(name, "size") && strcmp(name, "empty")) {
		return &sg_not_found;
	}
	if (w.map && strcmp(name, "size") && strcmp(name, "empty"))
		return &sg_not_found;
	w.check_names = hint == SG_HINT_NONE;
	struct sg_error *err = walk(s, v, &w, &count);
	if (err)
		return err;
	if (w.not_seq) {
		sg_value_destroy(w.got);
		return &sg_not_found;
	}
	if (!strcmp(name, "size") || !strcmp(name, "empty")) {
		sg_value_destroy(w.got);
		return !strcmp(name, "size") ? integer(s, v, "long unsigned int", count, ret)
					     : integer(s, v, "bool", count == 0, ret);
	}
	if (!w.got || (indexed && (int64_t)index < 0)) {
		sg_value_destroy(w.got);
		if (!indexed)
			return sg_error_create(SG_ERROR_USAGE, "the container is empty");
		return sg_error_format(SG_ERROR_USAGE, "index %" PRId64 " is out of range: %" PRIu64
				       " element%s", (int64_t)index, count, count == 1 ? "" : "s");
	}
	*ret = w.got;
	return NULL;
}

struct sg_error *sg_value_method(struct sg_session *s, const struct sg_value *v, const char *name,
				 struct sg_value *const *args, size_t nargs, struct sg_value **ret)
{
	const struct sg_registry_entry *e = sg_reader_lookup(s, v);
	if (!e)
		return &sg_not_found;
	struct sg_error *err = sg_reader_enter(s);
	if (err)
		return err;
	const struct sg_reader_ops *ops = e->ops;
	err = &sg_not_found;
	if (has_method(e))
		err = ops->method(s, v, name, args, nargs, ret, e->arg);
	if (err == &sg_not_found && ops->children)
		err = from_children(s, v, ops->hint, name, args, nargs, ret);
	sg_reader_leave(s);
	return err;
}
