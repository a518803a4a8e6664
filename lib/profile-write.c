/* The sampling profile as text: folded stacks (flamegraph.pl's input) and
   speedscope's JSON file format.  */
#include <config.h>
#include "profile-impl.h"

#include <inttypes.h>

/* Text is gathered in a buffer written out every 64 KiB.  */
struct text_out {
	int fd;
	struct sg_buf b;
	struct sg_error *err;
};

static void text_flush(struct text_out *o, bool force)
{
	if (!force && o->b.len < 65536 && !o->b.failed)
		return;
	if (o->err)
		;	/* drop what follows an error */
	else if (o->b.failed)
		o->err = &sg_enomem;
	else
		o->err = sg_profile_write_all(o->fd, o->b.data, o->b.len);
	sg_buf_reset(&o->b);
}

static struct sg_error *text_finish(struct text_out *o)
{
	text_flush(o, true);
	sg_buf_deinit(&o->b);
	return o->err;
}

/* Each frame's display name, computed once: NAMES + OFFS[i] for frame i,
   NUL-terminated.  For folded output (FOLDED), ';' becomes ':' and control
   characters '?', which would split a frame or a line.  */
struct frame_names {
	struct sg_buf names;
	size_t *offs;
};

static bool frame_names_init(struct frame_names *fn, const struct sg_profile *p, bool folded)
{
	sg_buf_init(&fn->names);
	fn->offs = malloc((p->nframes ? p->nframes : 1) * sizeof(*fn->offs));
	if (!fn->offs)
		return false;
	struct sg_buf one;
	sg_buf_init(&one);
	for (size_t i = 0; i < p->nframes; i++) {
		sg_profile_frame_name(p, &p->frames[i], &one);
		if (one.failed)
			break;
		fn->offs[i] = fn->names.len;
		for (size_t j = 0; folded && j < one.len; j++) {
			if (one.data[j] == ';')
				one.data[j] = ':';
			else if ((unsigned char)one.data[j] < 0x20)
				one.data[j] = '?';
		}
		sg_buf_append(&fn->names, one.data ? one.data : "", one.len);
		sg_buf_putc(&fn->names, '\0');
	}
	bool ok = !one.failed && !fn->names.failed;
	sg_buf_deinit(&one);
	return ok;
}

static void frame_names_deinit(struct frame_names *fn)
{
	sg_buf_deinit(&fn->names);
	free(fn->offs);
}

static const char *frame_name(const struct frame_names *fn, uint32_t frame)
{
	return fn->names.data + fn->offs[frame];
}

/* ---- folded ---- */

struct folded_line {
	size_t off;		/* in the lines buffer */
	uint64_t count;
};

static int folded_cmp(const void *a, const void *b, void *text)
{
	const struct folded_line *x = a, *y = b;
	return strcmp((const char *)text + x->off, (const char *)text + y->off);
}

/* Every stack's sample count, over all threads.  */
static uint64_t *stack_counts(const struct sg_profile *p)
{
	uint64_t *counts = calloc(p->nstacks ? p->nstacks : 1, sizeof(*counts));
	if (!counts)
		return NULL;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct sg_pthread *t = &p->threads[i];
		for (size_t j = 0; j < t->nruns; j++)
			counts[t->runs[j].stack] += t->runs[j].weight;
	}
	return counts;
}

static struct sg_error *write_folded_lines(struct text_out *o, const struct sg_buf *text,
					   struct folded_line *lines, size_t n)
{
	qsort_r(lines, n, sizeof(*lines), folded_cmp, text->data);
	/* Stacks that differ only in what the names leave out (the pc, the
	   line of a native frame) make one line.  */
	for (size_t i = 0; i < n; i++) {
		uint64_t count = lines[i].count;
		while (i + 1 < n && !strcmp(text->data + lines[i].off, text->data + lines[i + 1].off))
			count += lines[++i].count;
		sg_buf_printf(&o->b, "%s %" PRIu64 "\n", text->data + lines[i].off, count);
		text_flush(o, false);
	}
	return text_finish(o);
}

struct sg_error *sg_profile_write_folded(const struct sg_profile *p, int fd)
{
	struct text_out o = { .fd = fd };
	struct frame_names fn;
	struct sg_buf text;
	sg_buf_init(&text);
	uint64_t *counts = stack_counts(p);
	struct folded_line *lines = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*lines));
	bool ok = frame_names_init(&fn, p, true) && counts && lines;
	size_t n = 0;
	for (size_t s = 0; ok && s < p->nstacks; s++) {
		if (!counts[s])
			continue;
		lines[n++] = (struct folded_line){ .off = text.len, .count = counts[s] };
		const uint32_t *ids = sg_pstack_frames(p, s);
		for (size_t i = p->stacks[s].n; i-- > 0;) {
			sg_buf_puts(&text, frame_name(&fn, ids[i]));
			if (i)
				sg_buf_putc(&text, ';');
		}
		sg_buf_putc(&text, '\0');
	}
	struct sg_error *err;
	if (!ok || text.failed) {
		sg_buf_deinit(&o.b);
		err = &sg_enomem;
	} else {
		err = write_folded_lines(&o, &text, lines, n);
	}
	free(lines);
	free(counts);
	sg_buf_deinit(&text);
	frame_names_deinit(&fn);
	return err;
}

/* ---- speedscope ---- */

/* Speedscope's frames: one per distinct (name, file, line), as its JSON
   text, which is unique to it.  INDEX maps a profile frame to one.  */
struct ss_frames {
	struct sg_buf json;
	size_t *offs;		/* per profile frame, in JSON */
	uint32_t *index;	/* per profile frame */
	uint32_t *unique;	/* the first profile frame of each speedscope frame */
	size_t nunique;
};

static void ss_frame_json(const struct sg_profile *p, const struct sg_pframe *f,
			  const char *name, struct sg_buf *b)
{
	sg_buf_puts(b, "{\"name\":");
	sg_buf_json_string(b, name, strlen(name));
	const char *file = sg_pstr(p, f->file);
	if (file) {
		sg_buf_puts(b, ",\"file\":");
		sg_buf_json_string(b, file, strlen(file));
	}
	if (f->line)
		sg_buf_printf(b, ",\"line\":%d", f->line);
	sg_buf_puts(b, "}");
}

static bool ss_frames_init(struct ss_frames *sf, const struct sg_profile *p,
			   const struct frame_names *fn)
{
	size_t n = p->nframes ? p->nframes : 1;
	*sf = (struct ss_frames){
		.offs = malloc(n * sizeof(*sf->offs)),
		.index = malloc(n * sizeof(*sf->index)),
		.unique = malloc(n * sizeof(*sf->unique)),
	};
	sg_buf_init(&sf->json);
	if (!sf->offs || !sf->index || !sf->unique)
		return false;
	for (size_t i = 0; i < p->nframes; i++) {
		sf->offs[i] = sf->json.len;
		ss_frame_json(p, &p->frames[i], frame_name(fn, i), &sf->json);
		sg_buf_putc(&sf->json, '\0');
	}
	if (sf->json.failed)
		return false;
	/* The keys point into JSON, which no longer moves.  */
	struct sg_strmap seen = { 0 };
	bool ok = true;
	for (size_t i = 0; ok && i < p->nframes; i++) {
		const char *key = sf->json.data + sf->offs[i];
		uint32_t idx = sg_strmap_get(&seen, key);
		if (idx == UINT32_MAX) {
			idx = sf->nunique;
			sf->unique[sf->nunique++] = i;
			ok = sg_strmap_put(&seen, key, idx);
		}
		sf->index[i] = idx;
	}
	sg_strmap_deinit(&seen);
	return ok;
}

static void ss_frames_deinit(struct ss_frames *sf)
{
	sg_buf_deinit(&sf->json);
	free(sf->offs);
	free(sf->index);
	free(sf->unique);
}

static void ss_write_profile(struct text_out *o, const struct sg_profile *p,
			     const struct sg_pthread *t, const struct ss_frames *sf,
			     struct sg_buf *name)
{
	uint64_t total = 0;
	for (size_t i = 0; i < t->nruns; i++)
		total += t->runs[i].weight;
	sg_profile_thread_name(p, t, name);
	if (name->failed)
		o->b.failed = true;
	sg_buf_puts(&o->b, "{\"type\":\"sampled\",\"name\":");
	sg_buf_json_string(&o->b, name->data, name->len);
	sg_buf_printf(&o->b, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%" PRIu64
		      ",\n\"samples\":[", total);
	for (size_t i = 0; i < t->nruns; i++) {
		const struct sg_pstack *st = &p->stacks[t->runs[i].stack];
		const uint32_t *ids = sg_pstack_frames(p, t->runs[i].stack);
		sg_buf_puts(&o->b, i ? ",\n[" : "\n[");
		for (size_t j = st->n; j-- > 0;)
			sg_buf_printf(&o->b, j + 1 < st->n ? ",%" PRIu32 : "%" PRIu32,
				      sf->index[ids[j]]);
		sg_buf_putc(&o->b, ']');
		text_flush(o, false);
	}
	sg_buf_puts(&o->b, "],\n\"weights\":[");
	for (size_t i = 0; i < t->nruns; i++) {
		sg_buf_printf(&o->b, i ? ",%" PRIu32 : "%" PRIu32, t->runs[i].weight);
		text_flush(o, false);
	}
	sg_buf_puts(&o->b, "]}");
}

struct sg_error *sg_profile_write_speedscope(const struct sg_profile *p, int fd)
{
	struct text_out o = { .fd = fd };
	struct frame_names fn;
	struct ss_frames sf = { 0 };
	if (!frame_names_init(&fn, p, false) || !ss_frames_init(&sf, p, &fn)) {
		ss_frames_deinit(&sf);
		frame_names_deinit(&fn);
		return &sg_enomem;
	}
	sg_buf_puts(&o.b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		    "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < sf.nunique; i++) {
		sg_buf_puts(&o.b, i ? ",\n" : "\n");
		sg_buf_puts(&o.b, sf.json.data + sf.offs[sf.unique[i]]);
		text_flush(&o, false);
	}
	sg_buf_puts(&o.b, "]},\n\"profiles\":[");
	struct sg_buf name;
	sg_buf_init(&name);
	for (size_t i = 0; i < p->nthreads; i++) {
		sg_buf_puts(&o.b, i ? ",\n" : "\n");
		ss_write_profile(&o, p, &p->threads[i], &sf, &name);
	}
	sg_buf_deinit(&name);
	sg_buf_puts(&o.b, "],\n\"name\":\"spyglass profile\",\"activeProfileIndex\":0,"
		    "\"exporter\":\"spyglass " SG_VERSION_STRING "\"}\n");
	struct sg_error *err = text_finish(&o);
	ss_frames_deinit(&sf);
	frame_names_deinit(&fn);
	return err;
}
