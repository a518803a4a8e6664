/* The sampling profile's collector: strings, frames and stacks are
   interned in hash tables, and each thread keeps a run-length list of its
   stacks, so that memory grows with what differs, not with time.  */
#include <config.h>
#include "profile-impl.h"

#include <errno.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

/* The tables' entries: an id plus one (0 marks a free slot) and the hash
   of what it names, which the tables cannot recompute alone.  */
struct id_slot {
	uint64_t hash;
	uint32_t id1;
};

static bool id_slot_used(const void *e)
{
	return ((const struct id_slot *)e)->id1 != 0;
}

static uint64_t id_slot_hash(const void *e)
{
	return ((const struct id_slot *)e)->hash;
}

static const struct sg_table_type id_table = {
	.entry_size = sizeof(struct id_slot),
	.min_cap = 64,
	.used = id_slot_used,
	.hash = id_slot_hash,
};

struct table_key {
	const struct sg_profile *p;
	const void *what;
	uint64_t hash;
};

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct sg_error *sg_profile_create(struct sg_profile **ret)
{
	struct sg_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return &sg_enomem;
	char **none = sg_array_push(&p->strs.strings, &p->strs.n, &p->strs.cap, sizeof(*none));
	if (!none) {
		free(p);
		return &sg_enomem;
	}
	*none = NULL;
	p->realtime_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	*ret = p;
	return NULL;
}

void sg_profile_destroy(struct sg_profile *p)
{
	if (!p)
		return;
	sg_strpool_deinit(&p->strs);
	free(p->frames);
	free(p->frame_ids.slots);
	free(p->stack_frames);
	free(p->stacks);
	free(p->stack_ids.slots);
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].runs);
	free(p->threads);
	free(p->thread_ids.slots);
	free(p->scratch);
	sg_buf_deinit(&p->fixed);
	free(p);
}

void sg_profile_set_period(struct sg_profile *p, uint64_t period_ns)
{
	p->period_ns = period_ns;
}

size_t sg_profile_samples(const struct sg_profile *p)
{
	return p->nsamples;
}

void sg_profile_stats(const struct sg_profile *p, struct sg_profile_stats *ret)
{
	*ret = (struct sg_profile_stats){
		.strings = p->strs.n - 1,
		.frames = p->nframes,
		.stacks = p->nstacks,
		.stack_frames = p->nstack_frames,
		.threads = p->nthreads,
	};
	for (size_t i = 0; i < p->nthreads; i++)
		ret->runs += p->threads[i].nruns;
}

/* ---- interning ---- */

/* The length of the valid UTF-8 sequence at S (NUL-terminated), 0 if
   there is none: RFC 3629's table, where the first byte bounds the
   second (no overlong forms, surrogates or code points past U+10FFFF).  */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	}
	return n;
}

/* S, or a copy in P->fixed with each invalid byte made U+FFFD; NULL if
   out of memory.  */
static const char *valid_utf8(struct sg_profile *p, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	while (u[i] && (n = utf8_seq(u + i)))
		i += n;
	if (!u[i])
		return s;
	sg_buf_reset(&p->fixed);
	sg_buf_append(&p->fixed, s, i);
	while (u[i]) {
		n = utf8_seq(u + i);
		sg_buf_append(&p->fixed, n ? s + i : "\xef\xbf\xbd", n ? n : 3);
		i += n ? n : 1;
	}
	return p->fixed.failed ? NULL : p->fixed.data;
}

bool sg_strpool_intern(struct sg_strpool *sp, const char *s, uint32_t *ret)
{
	uint32_t id = sg_strmap_get(&sp->ids, s);
	if (id != UINT32_MAX) {
		*ret = id;
		return true;
	}
	if (sp->n >= UINT32_MAX - 1)
		return false;
	char *copy = strdup(s);
	char **slot = copy ? sg_array_push(&sp->strings, &sp->n, &sp->cap, sizeof(*slot)) : NULL;
	if (!slot) {
		free(copy);
		return false;
	}
	*slot = copy;
	id = sp->n - 1;
	if (!sg_strmap_put(&sp->ids, copy, id)) {
		sp->n--;
		free(copy);
		return false;
	}
	*ret = id;
	return true;
}

void sg_strpool_deinit(struct sg_strpool *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->strings[i]);
	free(sp->strings);
	sg_strmap_deinit(&sp->ids);
}

static bool intern_string(struct sg_profile *p, const char *s, uint32_t *ret)
{
	*ret = 0;
	if (!s)
		return true;
	s = valid_utf8(p, s);
	return s && sg_strpool_intern(&p->strs, s, ret);
}

static uint64_t frame_hash(const struct sg_pframe *f)
{
	uint64_t h = sg_hash64(f->function ^ ((uint64_t)f->file << 32));
	h = sg_hash64(h ^ f->module ^ ((uint64_t)(uint32_t)f->line << 32));
	h = sg_hash64(h ^ f->address);
	return sg_hash64(h ^ f->module_start ^ ((uint64_t)f->kind << 56));
}

static bool frame_eq(const void *e, const void *key)
{
	const struct table_key *k = key;
	const struct id_slot *s = e;
	const struct sg_pframe *a = &k->p->frames[s->id1 - 1], *b = k->what;
	return s->hash == k->hash && a->function == b->function && a->file == b->file &&
	       a->module == b->module && a->line == b->line && a->address == b->address &&
	       a->module_start == b->module_start && a->kind == b->kind;
}

static bool intern_frame(struct sg_profile *p, const struct sg_profile_frame *in, uint32_t *ret)
{
	struct sg_pframe f = {
		.line = in->line > 0 ? in->line : 0,
		.address = in->address,
		.module_start = in->module_start,
		.kind = in->kind,
	};
	if (!intern_string(p, in->function, &f.function) || !intern_string(p, in->file, &f.file) ||
	    !intern_string(p, in->module, &f.module))
		return false;
	struct table_key key = { p, &f, frame_hash(&f) };
	struct id_slot *s = sg_table_find(&p->frame_ids, &id_table, key.hash, frame_eq, &key, false);
	if (s) {
		*ret = s->id1 - 1;
		return true;
	}
	if (p->nframes >= UINT32_MAX - 1)
		return false;
	struct sg_pframe *nf = sg_array_push(&p->frames, &p->nframes, &p->frames_cap, sizeof(*nf));
	if (!nf)
		return false;
	s = sg_table_find(&p->frame_ids, &id_table, key.hash, frame_eq, &key, true);
	if (!s) {
		p->nframes--;
		return false;
	}
	*nf = f;
	*s = (struct id_slot){ .hash = key.hash, .id1 = p->nframes };
	*ret = p->nframes - 1;
	return true;
}

static uint64_t stack_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = sg_hash64(n);
	for (size_t i = 0; i < n; i++)
		h = sg_hash64(h ^ ids[i]) + i;
	return h;
}

struct stack_key {
	const uint32_t *ids;
	size_t n;
};

static bool stack_eq(const void *e, const void *key)
{
	const struct table_key *k = key;
	const struct stack_key *sk = k->what;
	const struct id_slot *s = e;
	const struct sg_pstack *st = &k->p->stacks[s->id1 - 1];
	return s->hash == k->hash && st->n == sk->n &&
	       !memcmp(sg_pstack_frames(k->p, s->id1 - 1), sk->ids, sk->n * sizeof(*sk->ids));
}

static bool intern_stack(struct sg_profile *p, const uint32_t *ids, size_t n, uint32_t *ret)
{
	struct stack_key sk = { ids, n };
	struct table_key key = { p, &sk, stack_hash(ids, n) };
	struct id_slot *s = sg_table_find(&p->stack_ids, &id_table, key.hash, stack_eq, &key, false);
	if (s) {
		*ret = s->id1 - 1;
		return true;
	}
	if (p->nstacks >= UINT32_MAX - 1)
		return false;
	size_t need = p->nstack_frames + n;
	if (need > p->stack_frames_cap) {
		size_t ncap = p->stack_frames_cap ? p->stack_frames_cap : 1024;
		while (ncap < need)
			ncap *= 2;
		uint32_t *a = realloc(p->stack_frames, ncap * sizeof(*a));
		if (!a)
			return false;
		p->stack_frames = a;
		p->stack_frames_cap = ncap;
	}
	struct sg_pstack *st = sg_array_push(&p->stacks, &p->nstacks, &p->stacks_cap, sizeof(*st));
	if (!st)
		return false;
	s = sg_table_find(&p->stack_ids, &id_table, key.hash, stack_eq, &key, true);
	if (!s) {
		p->nstacks--;
		return false;
	}
	*st = (struct sg_pstack){ .off = p->nstack_frames, .n = n };
	memcpy(p->stack_frames + p->nstack_frames, ids, n * sizeof(*ids));
	p->nstack_frames += n;
	*s = (struct id_slot){ .hash = key.hash, .id1 = p->nstacks };
	*ret = p->nstacks - 1;
	return true;
}

struct thread_slot {
	pid_t tid;
	uint32_t id1;
};

static bool thread_slot_used(const void *e)
{
	return ((const struct thread_slot *)e)->id1 != 0;
}

static uint64_t thread_slot_hash(const void *e)
{
	return sg_hash64((uint32_t)((const struct thread_slot *)e)->tid);
}

static bool thread_eq(const void *e, const void *key)
{
	return ((const struct thread_slot *)e)->tid == *(const pid_t *)key;
}

static const struct sg_table_type thread_table = {
	.entry_size = sizeof(struct thread_slot),
	.min_cap = 16,
	.used = thread_slot_used,
	.hash = thread_slot_hash,
};

static struct sg_pthread *get_thread(struct sg_profile *p, pid_t tid)
{
	uint64_t h = sg_hash64((uint32_t)tid);
	struct thread_slot *s = sg_table_find(&p->thread_ids, &thread_table, h, thread_eq, &tid,
					      false);
	if (s)
		return &p->threads[s->id1 - 1];
	struct sg_pthread *t = sg_array_push(&p->threads, &p->nthreads, &p->threads_cap,
					     sizeof(*t));
	if (!t)
		return NULL;
	s = sg_table_find(&p->thread_ids, &thread_table, h, thread_eq, &tid, true);
	if (!s) {
		p->nthreads--;
		return NULL;
	}
	*t = (struct sg_pthread){ .tid = tid };
	*s = (struct thread_slot){ .tid = tid, .id1 = p->nthreads };
	return t;
}

/* Count one sample of STACK at TIME_NS in T.  */
static bool add_run(struct sg_pthread *t, uint32_t stack, uint64_t time_ns)
{
	if (!t->nruns)
		t->first_ns = t->last_ns = time_ns;
	struct sg_prun *last = t->nruns ? &t->runs[t->nruns - 1] : NULL;
	if (last && last->stack == stack && last->weight < UINT32_MAX) {
		last->weight++;
	} else {
		struct sg_prun *r = sg_array_push(&t->runs, &t->nruns, &t->runs_cap, sizeof(*r));
		if (!r)
			return false;
		*r = (struct sg_prun){ .time_ns = time_ns, .stack = stack, .weight = 1 };
	}
	if (time_ns < t->first_ns)
		t->first_ns = time_ns;
	if (time_ns > t->last_ns)
		t->last_ns = time_ns;
	return true;
}

struct sg_error *sg_profile_add(struct sg_profile *p, pid_t tid, const char *name, uint64_t time_ns,
				const struct sg_profile_frame *frames, size_t n)
{
	if (n == 0 || !frames)
		return sg_error_create(SG_ERROR_USAGE, "a profile sample needs at least one frame");
	if (n > UINT32_MAX / 2)
		return sg_error_format(SG_ERROR_USAGE, "a profile sample of %zu frames is too deep", n);
	if (n > p->scratch_cap) {
		uint32_t *a = realloc(p->scratch, n * sizeof(*a));
		if (!a)
			return &sg_enomem;
		p->scratch = a;
		p->scratch_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		if (!intern_frame(p, &frames[i], &p->scratch[i]))
			return &sg_enomem;
	}
	uint32_t stack, name_id;
	if (!intern_stack(p, p->scratch, n, &stack) || !intern_string(p, name, &name_id))
		return &sg_enomem;
	struct sg_pthread *t = get_thread(p, tid);
	if (!t || !add_run(t, stack, time_ns))
		return &sg_enomem;
	if (name_id)
		t->name = name_id;
	p->nsamples++;
	return NULL;
}

/* ---- names ---- */

void sg_profile_address_name(const struct sg_profile *p, const struct sg_pframe *f,
			     struct sg_buf *b)
{
	sg_buf_reset(b);
	const char *module = sg_pstr(p, f->module);
	if (!module) {
		sg_buf_puts(b, "??");
		return;
	}
	const char *slash = strrchr(module, '/');
	uint64_t off = f->module_start <= f->address ? f->address - f->module_start : f->address;
	sg_buf_printf(b, "%s+%#" PRIx64, slash ? slash + 1 : module, off);
}

void sg_profile_frame_name(const struct sg_profile *p, const struct sg_pframe *f,
			   struct sg_buf *b)
{
	const char *function = sg_pstr(p, f->function), *file = sg_pstr(p, f->file);
	if (!function) {
		sg_profile_address_name(p, f, b);
		if (f->kind == SG_PROFILE_NATIVE)
			return;
	} else {
		sg_buf_reset(b);
		sg_buf_puts(b, function);
		if (f->kind == SG_PROFILE_NATIVE)
			return;
	}
	/* Python and Zeek frames as py-spy names them: "function (file:line)".  */
	if (!file)
		return;
	sg_buf_printf(b, " (%s", file);
	if (f->line)
		sg_buf_printf(b, ":%d", f->line);
	sg_buf_putc(b, ')');
}

void sg_profile_thread_name(const struct sg_profile *p, const struct sg_pthread *t,
			    struct sg_buf *b)
{
	sg_buf_reset(b);
	const char *name = sg_pstr(p, t->name);
	if (name)
		sg_buf_printf(b, "%s (%d)", name, (int)t->tid);
	else
		sg_buf_printf(b, "%d", (int)t->tid);
}

/* ---- writing ---- */

struct sg_error *sg_profile_write_all(int fd, const void *data, size_t len)
{
	const char *s = data;
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sg_error_os(n < 0 ? errno : ENOSPC, "cannot write the profile");
		s += n;
		len -= n;
	}
	return NULL;
}

static const char *const format_names[] = {
	[SG_PROFILE_FOLDED] = "folded",
	[SG_PROFILE_SPEEDSCOPE] = "speedscope",
	[SG_PROFILE_PPROF] = "pprof",
};

struct sg_error *sg_profile_format_parse(const char *name, enum sg_profile_format *ret)
{
	for (size_t i = 0; name && i < SG_ARRAY_SIZE(format_names); i++) {
		if (!strcmp(name, format_names[i])) {
			*ret = i;
			return NULL;
		}
	}
	return sg_error_format(SG_ERROR_USAGE,
			       "unknown profile format '%s': expected folded, speedscope or pprof",
			       name ? name : "");
}

struct sg_error *sg_profile_write(const struct sg_profile *p, enum sg_profile_format format, int fd)
{
	switch (format) {
	case SG_PROFILE_FOLDED:
		return sg_profile_write_folded(p, fd);
	case SG_PROFILE_SPEEDSCOPE:
		return sg_profile_write_speedscope(p, fd);
	case SG_PROFILE_PPROF:
		return sg_profile_write_pprof(p, fd);
	}
	return sg_error_format(SG_ERROR_USAGE, "unknown profile format %d", (int)format);
}
