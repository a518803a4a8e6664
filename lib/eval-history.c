/* The value history ($1, $, $$, $$N) and convenience variables ($name),
   as gdb keeps them.  Both are kept with the target, whose DWARF their
   types point into, and go with it (sg_target_set_data): a new target
   starts with none.  A value keeps its own copy of the bytes a value
   not in memory has; one in memory is read again when used, which is
   the same while the target stays stopped.  */
#include <config.h>
#include "eval.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct conv {
	char *name;
	struct xval_saved s;
};

struct values {
	struct xval_saved *hist;
	size_t nhist, hist_cap;
	struct conv *conv;
	size_t nconv, conv_cap;
};

static const char values_key;

void xval_saved_free(struct xval_saved *s)
{
	free(s->bytes);
	free(s->known);
}

static void values_destroy(void *arg)
{
	struct values *v = arg;
	for (size_t i = 0; i < v->nhist; i++)
		xval_saved_free(&v->hist[i]);
	for (size_t i = 0; i < v->nconv; i++) {
		free(v->conv[i].name);
		xval_saved_free(&v->conv[i].s);
	}
	free(v->hist);
	free(v->conv);
	free(v);
}

void *sg_eval_target_data(struct sg_session *s, const void *key, size_t size,
			void (*destroy)(void *), bool create)
{
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return NULL;
	void *v = sg_target_get_data(t, key);
	if (v || !create)
		return v;
	if (!(v = calloc(1, size)))
		return NULL;
	struct sg_error *err = sg_target_set_data(t, key, v, destroy);
	if (err) {
		sg_error_destroy(err);
		free(v);
		return NULL;
	}
	return v;
}

static struct values *values_of(struct sg_session *s, bool create)
{
	return sg_eval_target_data(s, &values_key, sizeof(struct values), values_destroy,
				 create);
}

static unsigned char *dup_bytes(const unsigned char *p, uint64_t n)
{
	unsigned char *d = malloc(n ? n : 1);
	if (d && n)
		memcpy(d, p, n);
	return d;
}

/* X into S, with its bytes copied: the evaluation's own are released
   when the next command evaluates.  */
struct sg_error *xval_save(const struct xval *x, struct xval_saved *s)
{
	memset(s, 0, sizeof(*s));
	s->x = *x;
	if (x->v.bytes && !(s->bytes = dup_bytes(x->v.bytes, x->v.nbytes)))
		return &sg_enomem;
	if (x->v.known && !(s->known = dup_bytes(x->v.known, x->v.nbytes))) {
		free(s->bytes);
		return &sg_enomem;
	}
	s->x.v.bytes = s->bytes;
	s->x.v.known = s->known;
	return NULL;
}

unsigned sg_history_count(struct sg_session *s)
{
	struct values *v = values_of(s, false);
	return v ? (unsigned)v->nhist : 0;
}

struct sg_error *sg_history_add(struct sg_session *s, const struct xval *x, unsigned *num)
{
	struct values *v = values_of(s, true);
	if (!v)
		return &sg_enomem;
	struct xval_saved *sv = sg_array_push(&v->hist, &v->nhist, &v->hist_cap, sizeof(*sv));
	if (!sv)
		return &sg_enomem;
	struct sg_error *err = xval_save(x, sv);
	if (err) {
		v->nhist--;
		return err;
	}
	*num = (unsigned)v->nhist;
	return NULL;
}

struct sg_error *sg_history_value(struct sg_session *s, uint64_t n, bool relative, struct xval *ret)
{
	struct values *v = values_of(s, false);
	size_t count = v ? v->nhist : 0;
	/* $ and $0 are the last value, as $$0.  */
	if (!relative && n == 0)
		relative = true;
	if (relative && n == 0 && !count)
		return sg_error_create(SG_ERROR_USAGE, "The history is empty.");
	if (relative && n >= count)
		return sg_error_format(SG_ERROR_USAGE, "History does not go back to $$%" PRIu64 ".", n);
	if (!relative && n > count)
		return sg_error_format(SG_ERROR_USAGE, "History has not yet reached $%" PRIu64 ".", n);
	*ret = v->hist[relative ? count - 1 - n : n - 1].x;
	return NULL;
}

struct sg_error *sg_history_void(struct xval *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->is_void = true;
	return NULL;
}

static struct conv *conv_find(struct values *v, const char *name)
{
	for (size_t i = 0; v && i < v->nconv; i++)
		if (!strcmp(v->conv[i].name, name))
			return &v->conv[i];
	return NULL;
}

bool sg_convenience_get(struct sg_session *s, const char *name, struct xval *ret)
{
	struct conv *c = conv_find(values_of(s, false), name);
	if (!c)
		return false;
	*ret = c->s.x;
	return true;
}

struct sg_error *sg_convenience_set(struct sg_session *s, const char *name, const struct xval *x)
{
	struct values *v = values_of(s, true);
	if (!v)
		return &sg_enomem;
	struct xval_saved sv;
	struct sg_error *err = xval_save(x, &sv);
	if (err)
		return err;
	struct conv *c = conv_find(v, name);
	if (c) {
		xval_saved_free(&c->s);
		c->s = sv;
		return NULL;
	}
	char *copy = strdup(name);
	if (!copy || !(c = sg_array_push(&v->conv, &v->nconv, &v->conv_cap, sizeof(*c)))) {
		free(copy);
		xval_saved_free(&sv);
		return &sg_enomem;
	}
	c->name = copy;
	c->s = sv;
	return NULL;
}

size_t sg_convenience_count(struct sg_session *s)
{
	struct values *v = values_of(s, false);
	return v ? v->nconv : 0;
}

const char *sg_convenience_name(struct sg_session *s, size_t i, struct xval *ret)
{
	struct values *v = values_of(s, false);
	/* gdb lists the newest first.  */
	struct conv *c = &v->conv[v->nconv - 1 - i];
	*ret = c->s.x;
	return c->name;
}
