/* Reading the interpreter's objects: fields by their resolved offsets,
   strings of every kind, bytes and type names, and the reads of object
   walks, counted against the command's budget.  Every length read from
   the target is bounded before it is used.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Strings (and bytes) longer than this are garbage, not text: 2^40
   characters.  Longer than PY_READ_MAX is read in part.  */
#define MAX_STR_LEN (UINT64_C(1) << 40)

static struct sg_error *absent(const struct py_proc *p, enum py_field f)
{
	const struct py_field_spec *s = &py_field_specs[f];
	return sg_error_format(SG_ERROR_LOOKUP, "%s has no member %s in Python %u.%u (%s)",
			       s->type, s->member ? s->member : "(size)", p->version >> 8,
			       p->version & 0xff, p->offs.source);
}

struct sg_error *py_need_fields(const struct py_proc *p, const enum py_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (py_has(p, f[i]))
			continue;
		const struct py_field_spec *s = &py_field_specs[f[i]];
		return sg_error_format(SG_ERROR_LOOKUP, "no offset for %s%s%s in Python %u.%u (%s)",
				       s->member ? s->member : "sizeof ", s->member ? " of " : "",
				       s->type, p->version >> 8, p->version & 0xff, p->offs.source);
	}
	return NULL;
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

/* ---- counted reads ---- */

struct sg_error *py_count_reads(struct py_proc *p, uint64_t n)
{
	if (p->reads_left < n) {
		p->reads_left = 0;
		return sg_error_create(SG_ERROR_BAD_DATA, PY_TOO_MANY_READS);
	}
	p->reads_left -= n;
	return NULL;
}

struct sg_error *py_obj_read(struct py_proc *p, uint64_t addr, void *buf, size_t n)
{
	struct sg_error *err = py_count_reads(p, 1);
	return err ? err : sg_target_read(p->target, addr, buf, n);
}

struct sg_error *py_obj_u64(struct py_proc *p, uint64_t addr, uint64_t *ret)
{
	struct sg_error *err = py_count_reads(p, 1);
	return err ? err : sg_target_read_u64(p->target, addr, ret);
}

struct sg_error *py_obj_field(struct py_proc *p, uint64_t obj, enum py_field f, uint64_t *ret)
{
	struct sg_error *err = py_count_reads(p, 1);
	return err ? err : py_read_field(p, obj, f, ret);
}

struct sg_error *py_obj_ptr(struct py_proc *p, uint64_t obj, enum py_field f, uint64_t *ret)
{
	struct sg_error *err = py_count_reads(p, 1);
	return err ? err : py_read_ptr(p, obj, f, ret);
}

/* ---- strings ---- */

size_t py_put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static struct sg_error *bad_length(uint64_t obj, uint64_t len)
{
	return sg_error_format(SG_ERROR_BAD_DATA, "string at 0x%" PRIx64 " claims %" PRIu64
			       " characters", obj, len);
}

/* MAX as the readers take it: 0 and more than PY_READ_MAX are
   PY_READ_MAX.  */
static size_t cap(size_t max)
{
	return !max || max > PY_READ_MAX ? PY_READ_MAX : max;
}

struct sg_error *py_read_code_points(struct py_proc *p, uint64_t obj, size_t max, uint32_t **ret,
				     size_t *n_ret, bool *more_ret)
{
	uint64_t len, data;
	unsigned kind;
	struct sg_error *err = py_read_field(p, obj, PY_UNI_LENGTH, &len);
	if (err)
		return err;
	if (len > MAX_STR_LEN)
		return bad_length(obj, len);
	if (p->version >= PY_V(3, 3)) {
		/* PEP 393: the state bits have kept their places since 3.3:
		   interned 0-1, kind 2-4, compact 5, ascii 6.  A compact
		   string's characters follow its header: PyASCIIObject for
		   an ASCII one, PyCompactUnicodeObject for the others.  */
		uint64_t state;
		if ((err = py_read_field(p, obj, PY_UNI_STATE, &state)))
			return err;
		kind = (state >> 2) & 7;
		bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
		if (kind != 1 && kind != 2 && kind != 4)
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "string at 0x%" PRIx64 " has kind %u", obj, kind);
		enum py_field head = ascii ? PY_UNI_ASCII_SIZE : PY_UNI_COMPACT_SIZE;
		if (compact && (err = PY_NEED(p, head)))
			return err;
		if (compact)
			data = obj + p->offs.off[head];
		else if ((err = py_read_ptr(p, obj, PY_UNI_DATA, &data)))
			return err;
	} else {
		/* 2.7: an array of Py_UNICODE (UCS-2 or UCS-4, as the
		   build chose) behind a pointer.  */
		if ((err = py_read_ptr(p, obj, PY_UNI_DATA, &data)))
			return err;
		kind = py_has(p, PY_UNI_CHAR_SIZE) && p->offs.off[PY_UNI_CHAR_SIZE] == 2 ? 2 : 4;
	}
	max = cap(max);
	size_t n = len > max ? max : (size_t)len;
	unsigned char *raw = malloc(n * kind + 1);
	uint32_t *cp = malloc((n + 1) * sizeof(*cp));
	if (!raw || !cp)
		err = &sg_enomem;
	else if (n)
		err = sg_target_read(p->target, data, raw, n * kind);
	if (err) {
		free(raw);
		free(cp);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char *b = raw + i * kind;
		cp[i] = kind == 1   ? b[0]
			: kind == 2 ? (uint32_t)b[0] | (uint32_t)b[1] << 8
				    : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
					      (uint32_t)b[3] << 24;
	}
	free(raw);
	*ret = cp;
	*n_ret = n;
	*more_ret = n < len;
	return NULL;
}

struct sg_error *py_read_bytes(struct py_proc *p, uint64_t obj, size_t max, char **ret,
			       size_t *len_ret)
{
	uint64_t len;
	struct sg_error *err = py_read_field(p, obj, PY_VAR_SIZE, &len);
	if (!err)
		err = PY_NEED(p, PY_BYTES_SVAL);
	if (err)
		return err;
	if (len > MAX_STR_LEN)
		return bad_length(obj, len);
	max = cap(max);
	size_t n = len > max ? max : (size_t)len;
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
	struct sg_error *err;
	if (p->version < PY_V(3, 0)) {
		/* 2.7: code objects hold str (bytes); unicode is the other
		   kind.  */
		char *tname;
		if ((err = py_type_name(p, obj, &tname)))
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
	}
	uint32_t *cp;
	size_t n;
	bool more;
	if ((err = py_read_code_points(p, obj, max, &cp, &n, &more)))
		return err;
	char *out = malloc(4 * n + 1);
	if (!out) {
		free(cp);
		return &sg_enomem;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		o += py_put_utf8(out + o, cp[i]);
	out[o] = '\0';
	free(cp);
	*ret = out;
	if (truncated_ret)
		*truncated_ret = more;
	return NULL;
}
