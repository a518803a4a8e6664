/* The sampling profile as pprof's profile.proto, gzipped.  The protobuf
   is encoded by hand: varints and length-delimited fields.  The top-level
   message has no length, so its fields stream through zlib one by one;
   the string table, which the others fill, comes last (field order does
   not matter to a protobuf reader).  */
#include <config.h>
#include "profile-impl.h"

#include <zlib.h>

/* profile.proto's field numbers.  */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS,
	PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL,
	LABEL_KEY = 1, LABEL_STR,
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void pb_varint(struct sg_buf *b, uint64_t v)
{
	unsigned char bytes[10];
	size_t n = 0;
	do {
		bytes[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	sg_buf_append(b, bytes, n);
}

static void pb_key(struct sg_buf *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zeros out.  */
static void pb_uint(struct sg_buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct sg_buf *b, unsigned field, const void *data, size_t len)
{
	pb_key(b, field, WIRE_LEN);
	pb_varint(b, len);
	if (len)
		sg_buf_append(b, data, len);
}

/* SUB as an embedded message; SUB is emptied.  */
static void pb_message(struct sg_buf *b, unsigned field, struct sg_buf *sub)
{
	if (sub->failed)
		b->failed = true;
	pb_bytes(b, field, sub->data, sub->len);
	sg_buf_reset(sub);
}

/* ---- the gzip stream ---- */

struct gz_out {
	int fd;
	z_stream z;
	struct sg_error *err;
	unsigned char out[65536];
};

/* Compress LEN bytes at DATA, LEN fitting zlib's uInt (with FLUSH
   Z_FINISH: and end the stream).  */
static void gz_chunk(struct gz_out *g, const void *data, size_t len, int flush)
{
	g->z.next_in = (unsigned char *)data;
	g->z.avail_in = len;
	for (;;) {
		int ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR) {
			g->err = sg_error_create(SG_ERROR_OTHER, "cannot compress the profile");
			return;
		}
		if (!g->z.avail_out || ret == Z_STREAM_END) {
			g->err = sg_profile_write_all(g->fd, g->out, sizeof(g->out) - g->z.avail_out);
			g->z.next_out = g->out;
			g->z.avail_out = sizeof(g->out);
			if (g->err || ret == Z_STREAM_END)
				return;
		} else if (!g->z.avail_in && flush != Z_FINISH) {
			return;
		}
	}
}

static void gz_write(struct gz_out *g, const void *data, size_t len, int flush)
{
	const char *s = data;
	for (; len > 1u << 30 && !g->err; s += 1u << 30, len -= 1u << 30)
		gz_chunk(g, s, 1u << 30, Z_NO_FLUSH);
	if (!g->err)
		gz_chunk(g, s, len, flush);
}

/* ---- the encoder's state ---- */

struct pprof {
	const struct sg_profile *p;
	struct gz_out *gz;
	struct sg_buf top, sub, sub2, name;
	struct sg_strpool strs;	/* the output's string table, [0] is "" */
	uint64_t *pstring;	/* the profile's string id -> output index plus one */
	struct sg_table functions;
	uint32_t nfunctions;
	uint32_t *mappings;	/* the profile's string id of a module -> mapping id */
	bool nomem;
};

/* Flush TOP to the gzip stream when it has grown.  */
static void pp_flush(struct pprof *pp, bool force)
{
	if (!force && pp->top.len < 65536)
		return;
	if (pp->top.failed)
		pp->nomem = true;
	else
		gz_write(pp->gz, pp->top.data, pp->top.len, Z_NO_FLUSH);
	sg_buf_reset(&pp->top);
}

/* The output index of S (not NULL).  */
static uint64_t pp_string(struct pprof *pp, const char *s)
{
	uint32_t id;
	if (!sg_strpool_intern(&pp->strs, s, &id)) {
		pp->nomem = true;
		return 0;
	}
	return id;
}

/* The output index of the profile's string ID; 0 ("") for none.  */
static uint64_t pp_pstring(struct pprof *pp, uint32_t id)
{
	if (!id)
		return 0;
	if (!pp->pstring[id])
		pp->pstring[id] = pp_string(pp, sg_pstr(pp->p, id)) + 1;
	return pp->pstring[id] - 1;
}

static void pp_value_type(struct pprof *pp, unsigned field, const char *type, const char *unit)
{
	pb_uint(&pp->sub, VALUE_TYPE_TYPE, pp_string(pp, type));
	pb_uint(&pp->sub, VALUE_TYPE_UNIT, pp_string(pp, unit));
	pb_message(&pp->top, field, &pp->sub);
}

/* ---- samples: one per thread and distinct stack ---- */

struct stack_weight {
	uint32_t stack;
	uint64_t weight;
};

static int stack_weight_cmp(const void *a, const void *b)
{
	const struct stack_weight *x = a, *y = b;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static void pp_sample(struct pprof *pp, uint32_t stack, uint64_t weight, uint64_t thread_name)
{
	const struct sg_pstack *st = &pp->p->stacks[stack];
	const uint32_t *ids = sg_pstack_frames(pp->p, stack);
	/* Innermost first, as pprof wants; a location's id is its frame's
	   plus one.  */
	for (size_t i = 0; i < st->n; i++)
		pb_varint(&pp->sub2, ids[i] + 1);
	pb_message(&pp->sub, SAMPLE_LOCATION_ID, &pp->sub2);
	pb_varint(&pp->sub2, weight);
	if (pp->p->period_ns)
		pb_varint(&pp->sub2, weight * pp->p->period_ns);
	pb_message(&pp->sub, SAMPLE_VALUE, &pp->sub2);
	pb_uint(&pp->sub2, LABEL_KEY, pp_string(pp, "thread"));
	pb_uint(&pp->sub2, LABEL_STR, thread_name);
	pb_message(&pp->sub, SAMPLE_LABEL, &pp->sub2);
	pb_message(&pp->top, PROFILE_SAMPLE, &pp->sub);
	pp_flush(pp, false);
}

static void pp_thread_samples(struct pprof *pp, const struct sg_pthread *t)
{
	struct stack_weight *sw = malloc((t->nruns ? t->nruns : 1) * sizeof(*sw));
	if (!sw) {
		pp->nomem = true;
		return;
	}
	for (size_t i = 0; i < t->nruns; i++)
		sw[i] = (struct stack_weight){ t->runs[i].stack, t->runs[i].weight };
	qsort(sw, t->nruns, sizeof(*sw), stack_weight_cmp);
	sg_profile_thread_name(pp->p, t, &pp->name);
	pp->nomem |= pp->name.failed;
	uint64_t thread_name = pp_string(pp, pp->name.data ? pp->name.data : "");
	for (size_t i = 0; i < t->nruns; i++) {
		uint64_t weight = sw[i].weight;
		while (i + 1 < t->nruns && sw[i + 1].stack == sw[i].stack)
			weight += sw[++i].weight;
		pp_sample(pp, sw[i].stack, weight, thread_name);
	}
	free(sw);
}

/* ---- mappings, functions, locations ---- */

/* The mapping id of native frame F's module, emitting the mapping the
   first time; 0 without a module.  */
static uint64_t pp_mapping(struct pprof *pp, const struct sg_pframe *f, uint32_t *nmappings)
{
	if (f->kind != SG_PROFILE_NATIVE || !f->module)
		return 0;
	if (!pp->mappings[f->module]) {
		pp->mappings[f->module] = ++*nmappings;
		pb_uint(&pp->sub2, MAPPING_ID, *nmappings);
		pb_uint(&pp->sub2, MAPPING_MEMORY_START, f->module_start);
		pb_uint(&pp->sub2, MAPPING_FILENAME, pp_pstring(pp, f->module));
		/* Every location has a function, if only "module+0xOFF": none
		   for pprof to symbolize again.  */
		pb_uint(&pp->sub2, MAPPING_HAS_FUNCTIONS, 1);
		pb_message(&pp->top, PROFILE_MAPPING, &pp->sub2);
	}
	return pp->mappings[f->module];
}

struct function_slot {
	uint64_t key;		/* name index << 32 | file index */
	uint32_t id;		/* 0: free */
};

static bool function_slot_used(const void *e)
{
	return ((const struct function_slot *)e)->id != 0;
}

static uint64_t function_slot_hash(const void *e)
{
	return sg_hash64(((const struct function_slot *)e)->key);
}

static bool function_eq(const void *e, const void *key)
{
	return ((const struct function_slot *)e)->key == *(const uint64_t *)key;
}

static const struct sg_table_type function_table = {
	.entry_size = sizeof(struct function_slot),
	.min_cap = 64,
	.used = function_slot_used,
	.hash = function_slot_hash,
};

/* The id of the function NAME in FILE (output string indexes), emitting
   it the first time.  */
static uint64_t pp_function(struct pprof *pp, uint64_t name, uint64_t file)
{
	uint64_t key = name << 32 | file;
	struct function_slot *s = sg_table_find(&pp->functions, &function_table, sg_hash64(key),
						function_eq, &key, true);
	if (!s) {
		pp->nomem = true;
		return 0;
	}
	if (!s->id) {
		*s = (struct function_slot){ .key = key, .id = ++pp->nfunctions };
		pb_uint(&pp->sub2, FUNCTION_ID, s->id);
		pb_uint(&pp->sub2, FUNCTION_NAME, name);
		pb_uint(&pp->sub2, FUNCTION_SYSTEM_NAME, name);
		pb_uint(&pp->sub2, FUNCTION_FILENAME, file);
		pb_message(&pp->top, PROFILE_FUNCTION, &pp->sub2);
	}
	return s->id;
}

static void pp_location(struct pprof *pp, uint32_t frame, uint32_t *nmappings)
{
	const struct sg_pframe *f = &pp->p->frames[frame];
	uint64_t mapping = pp_mapping(pp, f, nmappings);
	uint64_t name;
	if (f->function) {
		name = pp_pstring(pp, f->function);
	} else {
		sg_profile_address_name(pp->p, f, &pp->name);
		pp->nomem |= pp->name.failed;
		name = pp_string(pp, pp->name.data ? pp->name.data : "");
	}
	uint64_t function = pp_function(pp, name, pp_pstring(pp, f->file));
	pb_uint(&pp->sub, LOCATION_ID, frame + 1);
	pb_uint(&pp->sub, LOCATION_MAPPING_ID, mapping);
	pb_uint(&pp->sub, LOCATION_ADDRESS, f->address);
	pb_uint(&pp->sub2, LINE_FUNCTION_ID, function);
	pb_uint(&pp->sub2, LINE_LINE, f->line);
	pb_message(&pp->sub, LOCATION_LINE, &pp->sub2);
	pb_message(&pp->top, PROFILE_LOCATION, &pp->sub);
	pp_flush(pp, false);
}

/* ---- the profile ---- */

static void pp_times(struct pprof *pp)
{
	const struct sg_profile *p = pp->p;
	if (!p->nthreads)
		return;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		if (p->threads[i].first_ns < first)
			first = p->threads[i].first_ns;
		if (p->threads[i].last_ns > last)
			last = p->threads[i].last_ns;
	}
	pb_uint(&pp->top, PROFILE_TIME_NANOS, first + p->realtime_offset_ns);
	pb_uint(&pp->top, PROFILE_DURATION_NANOS, last - first + p->period_ns);
}

static void pp_encode(struct pprof *pp)
{
	const struct sg_profile *p = pp->p;
	pp_value_type(pp, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (p->period_ns)
		pp_value_type(pp, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	for (size_t i = 0; i < p->nthreads && !pp->nomem && !pp->gz->err; i++)
		pp_thread_samples(pp, &p->threads[i]);
	uint32_t nmappings = 0;
	for (size_t i = 0; i < p->nframes && !pp->nomem && !pp->gz->err; i++)
		pp_location(pp, i, &nmappings);
	pp_times(pp);
	pp_value_type(pp, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	pb_uint(&pp->top, PROFILE_PERIOD, p->period_ns);
	for (size_t i = 0; i < pp->strs.n && !pp->nomem && !pp->gz->err; i++) {
		pb_bytes(&pp->top, PROFILE_STRING_TABLE, pp->strs.strings[i], strlen(pp->strs.strings[i]));
		pp_flush(pp, false);
	}
	pp_flush(pp, true);
}

static void pp_deinit(struct pprof *pp)
{
	sg_buf_deinit(&pp->top);
	sg_buf_deinit(&pp->sub);
	sg_buf_deinit(&pp->sub2);
	sg_buf_deinit(&pp->name);
	sg_strpool_deinit(&pp->strs);
	free(pp->pstring);
	free(pp->functions.slots);
	free(pp->mappings);
}

struct sg_error *sg_profile_write_pprof(const struct sg_profile *p, int fd)
{
	struct gz_out *gz = calloc(1, sizeof(*gz));
	if (!gz)
		return &sg_enomem;
	gz->fd = fd;
	if (deflateInit2(&gz->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(gz);
		return &sg_enomem;
	}
	gz->z.next_out = gz->out;
	gz->z.avail_out = sizeof(gz->out);
	struct pprof pp = {
		.p = p,
		.gz = gz,
		.pstring = calloc(p->strs.n, sizeof(*pp.pstring)),
		.mappings = calloc(p->strs.n, sizeof(*pp.mappings)),
	};
	pp.nomem = !pp.pstring || !pp.mappings;
	pp_string(&pp, "");
	if (!pp.nomem)
		pp_encode(&pp);
	if (!pp.nomem)
		gz_write(gz, NULL, 0, Z_FINISH);
	deflateEnd(&gz->z);
	struct sg_error *err = pp.nomem ? &sg_enomem : gz->err;
	if (pp.nomem)
		sg_error_destroy(gz->err);
	pp_deinit(&pp);
	free(gz);
	return err;
}
