/* libstdcxx: typed readers for GCC's C++ library, printing what gdb's
   libstdc++ printers print.  Member names come from the program's DWARF
   (through base classes), not from offsets compiled in here.

   This first part covers std::string (the C++11 ABI) and std::vector;
   the other containers follow the same pattern.  */
#define _GNU_SOURCE	/* asprintf */
#include <spyglass/spyglass.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vector or string claiming more than this is garbage.  */
#define MAX_SANE_COUNT (UINT64_C(1) << 32)

static size_t print_limit(struct sg_session *session)
{
	uint64_t n = sg_setting_uint(session, "print elements", 200);
	return n > (1u << 20) ? (1u << 20) : n;
}

/* Read the member path A.B.C of V as an unsigned integer.  */
static struct sg_error *read_path(const struct sg_value *v, const char *const *path, uint64_t *ret)
{
	struct sg_value *cur = NULL;
	const struct sg_value *at = v;
	struct sg_error *err = NULL;
	for (size_t i = 0; path[i] && !err; i++) {
		struct sg_value *next;
		err = sg_value_member(at, path[i], &next);
		if (!err) {
			sg_value_destroy(cur);
			cur = next;
			at = cur;
		}
	}
	if (!err)
		err = sg_value_read_uint(at, ret);
	sg_value_destroy(cur);
	return err;
}

static void append(char **s, size_t *len, size_t *cap, const char *text)
{
	size_t n = strlen(text);
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		char *p = realloc(*s, ncap);
		if (!p)
			return;
		*s = p;
		*cap = ncap;
	}
	memcpy(*s + *len, text, n + 1);
	*len += n;
}

/* A byte inside double quotes as gdb writes it.  */
static void escape(char **s, size_t *len, size_t *cap, unsigned char c)
{
	char tmp[8];
	static const char named[] = { ['\a'] = 'a', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
				      ['\r'] = 'r', ['\t'] = 't', ['\v'] = 'v' };
	if (c == '"' || c == '\\')
		snprintf(tmp, sizeof(tmp), "\\%c", c);
	else if (c < sizeof(named) && named[c])
		snprintf(tmp, sizeof(tmp), "\\%c", named[c]);
	else if (c < 0x20 || c >= 0x7f)
		snprintf(tmp, sizeof(tmp), "\\%03o", c);
	else
		snprintf(tmp, sizeof(tmp), "%c", c);
	append(s, len, cap, tmp);
}

/* std::__cxx11::basic_string<char>: _M_dataplus._M_p points at the
   characters, _M_string_length counts them.  */
static struct sg_error *string_summary(struct sg_session *session, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	uint64_t p, len;
	struct sg_error *err = read_path(v, p_path, &p);
	if (!err)
		err = read_path(v, len_path, &len);
	if (err)
		return err;
	if (len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64 " is not sane",
				       len);
	size_t limit = print_limit(session), want = len < limit ? len : limit;
	unsigned char *buf = malloc(want ? want : 1);
	if (!buf)
		return &sg_enomem;
	err = sg_target_read(sg_value_target(v), p, buf, want);
	if (err) {
		free(buf);
		return err;
	}
	size_t cap = 0, n = 0;
	char *s = NULL;
	append(&s, &n, &cap, "\"");
	for (size_t i = 0; i < want; i++)
		escape(&s, &n, &cap, buf[i]);
	free(buf);
	append(&s, &n, &cap, want < len ? "\"..." : "\"");
	if (!s)
		return &sg_enomem;
	*ret = s;
	return NULL;
}

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
	struct sg_error *err = read_path(v, start, &vec->start);
	if (!err)
		err = read_path(v, finish, &vec->finish);
	if (!err)
		err = read_path(v, end, &vec->end);
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

static struct sg_error *vector_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	if (asprintf(ret, "std::vector of length %" PRIu64 ", capacity %" PRIu64,
		     (vec.finish - vec.start) / vec.esize, (vec.end - vec.start) / vec.esize) < 0)
		return &sg_enomem;
	return NULL;
}

static struct sg_error *vector_children(struct sg_session *session SG_UNUSED,
					const struct sg_value *v, size_t limit,
					int (*fn)(const char *name, struct sg_value *child, void *fn_arg),
					void *fn_arg, void *arg SG_UNUSED)
{
	struct vec vec;
	struct sg_error *err = vector_read(v, &vec);
	if (err)
		return err;
	uint64_t n = (vec.finish - vec.start) / vec.esize;
	for (uint64_t i = 0; i < n && i < limit; i++) {
		struct sg_value *child;
		if ((err = sg_value_at(sg_value_target(v), &vec.elem, vec.start + i * vec.esize, &child)))
			return err;
		char name[32];
		snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
		int r = fn(name, child, fn_arg);
		sg_value_destroy(child);
		if (r != SG_CB_OK)
			break;
	}
	return NULL;
}

static const struct sg_reader_ops string_ops = {
	.summary = string_summary,
	.hint = SG_HINT_STRING,
};

static const struct sg_reader_ops vector_ops = {
	.summary = vector_summary,
	.children = vector_children,
	.hint = SG_HINT_ARRAY,
};

static struct sg_error *libstdcxx_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	struct sg_error *err = sg_reader_register(session, "std::string", "std::__cxx11::basic_string<char, *>",
						  &string_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::vector", "std::vector<*>", &vector_ops, NULL);
	return err;
}

SG_PLUGIN_DEFINE("libstdcxx", "0.1", "Typed readers for libstdc++ (std::string, std::vector so far)",
		 libstdcxx_init, NULL);
