/* struct sg_out: text goes straight to the stream; JSON is built in a
   buffer and written as one line when the command ends.  */
#include <config.h>
#include "internal.h"

#include <math.h>

#include <inttypes.h>
#include <stdio.h>

#define SG_OUT_MAX_DEPTH 64

struct sg_out {
	FILE *stream;
	bool json;
	struct sg_buf buf;
	/* For each open container: has it a member yet?  */
	bool nonempty[SG_OUT_MAX_DEPTH];
	char closer[SG_OUT_MAX_DEPTH];
	int depth;
};

struct sg_error *sg_out_create(FILE *stream, bool json, struct sg_out **ret)
{
	struct sg_out *out = calloc(1, sizeof(*out));
	if (!out)
		return &sg_enomem;
	out->stream = stream;
	out->json = json;
	sg_buf_init(&out->buf);
	*ret = out;
	return NULL;
}

void sg_out_destroy(struct sg_out *out)
{
	if (!out)
		return;
	sg_buf_deinit(&out->buf);
	free(out);
}

bool sg_out_json(const struct sg_out *out) { return out->json; }
void sg_out_set_json(struct sg_out *out, bool json) { out->json = json; }
FILE *sg_out_file(struct sg_out *out) { return out->json ? NULL : out->stream; }

void sg_out_printf(struct sg_out *out, const char *fmt, ...)
{
	if (out->json)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out->stream, fmt, ap);
	va_end(ap);
}

void sg_out_puts(struct sg_out *out, const char *s)
{
	if (!out->json)
		fputs(s, out->stream);
}

static void close_container(struct sg_out *out, char c);

void sg_out_begin(struct sg_out *out)
{
	sg_buf_reset(&out->buf);
	sg_buf_putc(&out->buf, '{');
	out->depth = 1;
	out->nonempty[0] = false;
}

void sg_out_end(struct sg_out *out, const struct sg_error *err)
{
	if (!out->json) {
		fflush(out->stream);
		return;
	}
	if (err || out->buf.failed) {
		sg_buf_reset(&out->buf);
		sg_buf_puts(&out->buf, "{\"error\":");
		const char *msg = err ? sg_error_message(err) : "out of memory";
		sg_buf_json_string(&out->buf, msg, strlen(msg));
	} else {
		/* Close whatever a handler left open, so the line parses.  */
		while (out->depth > 1)
			close_container(out, out->closer[out->depth - 1]);
	}
	sg_buf_putc(&out->buf, '}');
	if (out->buf.failed) {
		fputs("{\"error\":\"out of memory\"}\n", out->stream);
	} else {
		fwrite(out->buf.data, 1, out->buf.len, out->stream);
		fputc('\n', out->stream);
	}
	fflush(out->stream);
	out->depth = 0;
}

/* Write the separator and the key for a new member.  */
static bool member(struct sg_out *out, const char *key)
{
	if (!out->json || out->depth == 0)
		return false;
	bool *ne = &out->nonempty[out->depth - 1];
	if (*ne)
		sg_buf_putc(&out->buf, ',');
	*ne = true;
	if (key) {
		sg_buf_json_string(&out->buf, key, strlen(key));
		sg_buf_putc(&out->buf, ':');
	}
	return true;
}

static void open_container(struct sg_out *out, const char *key, char c)
{
	if (!member(out, key))
		return;
	if (out->depth >= SG_OUT_MAX_DEPTH) {
		/* Deeper than any command nests; mark the output as failed
		   rather than writing unbalanced JSON.  */
		out->buf.failed = true;
		return;
	}
	sg_buf_putc(&out->buf, c);
	out->nonempty[out->depth] = false;
	out->closer[out->depth] = c == '{' ? '}' : ']';
	out->depth++;
}

static void close_container(struct sg_out *out, char c)
{
	if (!out->json || out->depth <= 1)
		return;
	out->depth--;
	sg_buf_putc(&out->buf, c);
}

void sg_out_object_begin(struct sg_out *out, const char *key) { open_container(out, key, '{'); }
void sg_out_object_end(struct sg_out *out) { close_container(out, '}'); }
void sg_out_array_begin(struct sg_out *out, const char *key) { open_container(out, key, '['); }
void sg_out_array_end(struct sg_out *out) { close_container(out, ']'); }

void sg_out_string_len(struct sg_out *out, const char *key, const char *value, size_t len)
{
	if (member(out, key))
		sg_buf_json_string(&out->buf, value, len);
}

void sg_out_string(struct sg_out *out, const char *key, const char *value)
{
	if (!value)
		sg_out_null(out, key);
	else
		sg_out_string_len(out, key, value, strlen(value));
}

void sg_out_int(struct sg_out *out, const char *key, int64_t value)
{
	if (member(out, key))
		sg_buf_printf(&out->buf, "%" PRId64, value);
}

void sg_out_uint(struct sg_out *out, const char *key, uint64_t value)
{
	if (member(out, key))
		sg_buf_printf(&out->buf, "%" PRIu64, value);
}

void sg_out_double(struct sg_out *out, const char *key, double value)
{
	if (!member(out, key))
		return;
	if (isfinite(value))
		sg_buf_printf(&out->buf, "%.17g", value);
	else
		sg_buf_puts(&out->buf, "null");	/* JSON has no NaN or infinity */
}

void sg_out_hex(struct sg_out *out, const char *key, uint64_t value)
{
	if (member(out, key))
		sg_buf_printf(&out->buf, "\"0x%" PRIx64 "\"", value);
}

void sg_out_bool(struct sg_out *out, const char *key, bool value)
{
	if (member(out, key))
		sg_buf_puts(&out->buf, value ? "true" : "false");
}

void sg_out_null(struct sg_out *out, const char *key)
{
	if (member(out, key))
		sg_buf_puts(&out->buf, "null");
}
