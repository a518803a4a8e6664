/* Reading the interpreter's objects: fields by their resolved offsets,
   strings of every kind, bytes and type names.  Every length read from the
   target is bounded before it is used.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct sg_error *absent(const struct py_proc *p, enum py_field f)
{
	const struct py_field_spec *s = &py_field_specs[f];
	return sg_error_format(SG_ERROR_LOOKUP, "%s has no member %s in Python %u.%u (%s)",
			       s->type, s->member ? s->member : "(size)", p->version >> 8,
			       p->version & 0xff, p->offs.source);
}

struct sg_error *py_read_field(struct py_proc *p, uint64_t addr, enum py_field f, uint64_t *ret)
{
	if (!py_has(p, f))
		return absent(p, f);
	uint32_t size = p->offs.size[f];
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	unsigned char buf[8] = { 0 };
	struct sg_error *err = sg_target_read(p->target, addr + p->offs.off[f], buf, size);
	if (err)
		return err;
	uint64_t v = 0;
	for (size_t i = size; i-- > 0;)
		v = v << 8 | buf[i];
	*ret = v;
	return NULL;
}

struct sg_error *py_read_ptr(struct py_proc *p, uint64_t addr, enum py_field f, uint64_t *ret)
{
	if (!py_has(p, f))
		return absent(p, f);
	return sg_target_read_u64(p->target, addr + p->offs.off[f], ret);
}

struct sg_error *py_type_name(struct py_proc *p, uint64_t obj, char **ret)
{
	uint64_t type, name;
	struct sg_error *err = py_read_ptr(p, obj, PY_OB_TYPE, &type);
	if (!err)
		err = py_read_ptr(p, type, PY_TP_NAME, &name);
	if (!err)
		err = sg_target_read_string(p->target, name, 128, ret, NULL);
	return err;
}

/* Append code point C as UTF-8.  */
static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = 0xc0 | c >> 6;
		out[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		out[0] = 0xe0 | c >> 12;
		out[1] = 0x80 | ((c >> 6) & 0x3f);
		out[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	out[0] = 0xf0 | c >> 18;
	out[1] = 0x80 | ((c >> 12) & 0x3f);
	out[2] = 0x80 | ((c >> 6) & 0x3f);
	out[3] = 0x80 | (c & 0x3f);
	return 4;
}

/* LEN code points of KIND bytes each at DATA, as UTF-8: at most MAX
   code points.  */
static struct sg_error *decode(struct py_proc *p, uint64_t data, uint64_t len, unsigned kind,
			       size_t max, char **ret, bool *truncated_ret)
{
	bool cut = max && len > max;
	size_t n = cut ? max : len;
	unsigned char *raw = malloc(n * kind + 1);
	char *out = malloc(n * 4 + 1);
	struct sg_error *err = raw && out ? NULL : &sg_enomem;
	if (!err && n)
		err = sg_target_read(p->target, data, raw, n * kind);
	if (err) {
		free(raw);
		free(out);
		return err;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = kind == 1 ? raw[i]
			   : kind == 2 ? (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8
				       : (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
					 (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		o += put_utf8(out + o, c);
	}
	out[o] = '\0';
	free(raw);
	*ret = out;
	if (truncated_ret)
		*truncated_ret = cut;
	return NULL;
}

/* Strings longer than this are garbage, not text (2^31 code points).  */
#define MAX_STR_LEN (UINT64_C(1) << 31)

static struct sg_error *bad_length(uint64_t obj, uint64_t len)
{
	return sg_error_format(SG_ERROR_BAD_DATA, "string at 0x%" PRIx64 " claims %" PRIu64
			       " characters", obj, len);
}

/* Python 3.3+: PEP 393 strings.  The state bits have kept their places
   since 3.3: interned 0-1, kind 2-4, compact 5, ascii 6.  */
static struct sg_error *read_unicode3(struct py_proc *p, uint64_t obj, size_t max, char **ret,
				      bool *truncated_ret)
{
	uint64_t len, state;
	struct sg_error *err = py_read_field(p, obj, PY_UNI_LENGTH, &len);
	if (!err)
		err = py_read_field(p, obj, PY_UNI_STATE, &state);
	if (err)
		return err;
	if (len > MAX_STR_LEN)
		return bad_length(obj, len);
	unsigned kind = (state >> 2) & 7;
	bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (kind != 1 && kind != 2 && kind != 4)
		return sg_error_format(SG_ERROR_BAD_DATA, "string at 0x%" PRIx64 " has kind %u",
				       obj, kind);
	uint64_t data;
	if (compact && ascii)
		data = obj + p->offs.off[PY_UNI_ASCII_SIZE];
	else if (compact)
		data = obj + p->offs.off[PY_UNI_COMPACT_SIZE];
	else if ((err = py_read_ptr(p, obj, PY_UNI_DATA, &data)))
		return err;
	return decode(p, data, len, kind, max, ret, truncated_ret);
}

struct sg_error *py_read_bytes(struct py_proc *p, uint64_t obj, size_t max, char **ret,
			       size_t *len_ret)
{
	uint64_t len;
	struct sg_error *err = py_read_field(p, obj, PY_VAR_SIZE, &len);
	if (err)
		return err;
	if (len > MAX_STR_LEN)
		return bad_length(obj, len);
	size_t n = max && len > max ? max : len;
	char *buf = malloc(n + 1);
	if (!buf)
		return &sg_enomem;
	if (n && (err = sg_target_read(p->target, obj + p->offs.off[PY_BYTES_SVAL], buf, n))) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*ret = buf;
	*len_ret = n;
	return NULL;
}

struct sg_error *py_read_str(struct py_proc *p, uint64_t obj, size_t max, char **ret,
			     bool *truncated_ret)
{
	if (!obj)
		return sg_error_create(SG_ERROR_BAD_DATA, "NULL string");
	if (p->version >= PY_V(3, 3))
		return read_unicode3(p, obj, max, ret, truncated_ret);
	/* 2.7: code objects hold str (bytes); unicode is an array of
	   Py_UNICODE behind a pointer.  */
	char *tname;
	struct sg_error *err = py_type_name(p, obj, &tname);
	if (err)
		return err;
	bool unicode = !strcmp(tname, "unicode");
	free(tname);
	if (!unicode) {
		size_t len;
		uint64_t full;
		err = py_read_field(p, obj, PY_VAR_SIZE, &full);
		if (!err)
			err = py_read_bytes(p, obj, max, ret, &len);
		if (!err && truncated_ret)
			*truncated_ret = full > len;
		return err;
	}
	uint64_t len, data;
	err = py_read_field(p, obj, PY_UNI_LENGTH, &len);
	if (!err)
		err = py_read_ptr(p, obj, PY_UNI_DATA, &data);
	if (err)
		return err;
	if (len > MAX_STR_LEN)
		return bad_length(obj, len);
	unsigned kind = py_has(p, PY_UNI_CHAR_SIZE) ? p->offs.off[PY_UNI_CHAR_SIZE] : 4;
	return decode(p, data, len, kind == 2 ? 2 : 4, max, ret, truncated_ret);
}
