/* libstdc++ strings: std::basic_string in the C++11 ABI (a pointer and a
   length), the old copy-on-write basic_string (the length in a _Rep
   header before the characters) and std::basic_string_view, of char,
   char8_t, wchar_t, char16_t and char32_t, and the Library Fundamentals
   TS's std::experimental::basic_string_view.  gdb's printers show the
   characters only, with the string display hint; other plugins get the
   bytes (UTF-8 for the wide ones).  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

/* How a character type prints: gdb's prefix (L"", u"", U"").  */
struct char_kind {
	const char *prefix;
};

/* Where a string's characters are and how many: one function per form. */
typedef struct sg_error *locate_fn(const struct sg_value *v, uint64_t *p, uint64_t *len);

/* The size of V's character type, its first template argument.  */
static uint64_t char_size(const struct sg_value *v)
{
	Dwarf_Die ch;
	struct sg_error *err = sg_value_template_type(v, 0, &ch);
	if (err) {
		sg_error_destroy(err);
		return 0;
	}
	return sg_type_size(&ch);
}

/* At most MAX of the characters of V as LOCATE finds them, into the new
   array *RET of *N code points (narrow strings: UTF-8 decoded, other bytes
   LSX_RAW); *MORE if the string is longer.  UTF-16 surrogate pairs become
   one character.  */
static struct sg_error *read_chars(const struct sg_value *v, locate_fn *locate, size_t max,
				   uint32_t **ret, size_t *n, bool *more)
{
	uint64_t p, len, unit = char_size(v);
	struct sg_error *err = locate(v, &p, &len);
	if (err)
		return err;
	if (len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64 " is not sane",
				       len);
	if (unit != 1 && unit != 2 && unit != 4)
		return sg_error_format(SG_ERROR_BAD_DATA, "characters of %" PRIu64 " bytes", unit);
	size_t want = len < max ? len : max;
	unsigned char *buf = malloc(want ? want * unit : 1);
	uint32_t *chars = malloc(want ? want * sizeof(*chars) : 1);
	err = !buf || !chars ? &sg_enomem : want ? sg_target_read(sg_value_target(v), p, buf, want * unit)
						 : NULL;
	size_t k = 0;
	if (!err && unit == 1)
		k = lsx_utf8_decode(buf, want, chars);
	for (size_t i = 0; !err && unit > 1 && i < want; i++) {
		uint32_t c = 0;
		memcpy(&c, buf + i * unit, unit);	/* little-endian, as on x86-64 */
		if (unit == 2 && c >= 0xd800 && c < 0xdc00 && i + 1 < want) {
			uint32_t lo = 0;
			memcpy(&lo, buf + (i + 1) * unit, unit);
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		chars[k++] = c;
	}
	free(buf);
	if (err) {
		free(chars);
		return err;
	}
	*ret = chars;
	*n = k;
	*more = want < len;
	return NULL;
}

/* gdb's quoted string, at most "print elements" characters.  */
static struct sg_error *summary_with(locate_fn *locate, struct sg_session *session,
				     const struct sg_value *v, const struct char_kind *kind, char **ret)
{
	uint32_t *chars;
	size_t n;
	bool more;
	struct sg_error *err = read_chars(v, locate, lsx_print_limit(session), &chars, &n, &more);
	if (err)
		return err;
	*ret = lsx_quote(chars, n, kind->prefix, more);
	free(chars);
	return *ret ? NULL : &sg_enomem;
}

/* The string's bytes, at most MAX characters: narrow strings as they are,
   wide ones as UTF-8.  */
static struct sg_error *bytes_with(locate_fn *locate, const struct sg_value *v, size_t max,
				   char **ret, size_t *len_ret)
{
	uint32_t *chars;
	size_t n;
	bool more;
	struct sg_error *err = read_chars(v, locate, max, &chars, &n, &more);
	if (err)
		return err;
	char *out = malloc(4 * n + 1);
	size_t k = 0;
	for (size_t i = 0; out && i < n; i++) {
		uint32_t c = chars[i];
		if (c & LSX_RAW || c < 0x80) {
			out[k++] = (char)(c & 0xff);
		} else if (c < 0x800) {
			out[k++] = (char)(0xc0 | c >> 6);
			out[k++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[k++] = (char)(0xe0 | c >> 12);
			out[k++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[k++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[k++] = (char)(0xf0 | (c >> 18 & 7));
			out[k++] = (char)(0x80 | (c >> 12 & 0x3f));
			out[k++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	free(chars);
	if (!out)
		return &sg_enomem;
	out[k] = '\0';
	*ret = out;
	*len_ret = k;
	return NULL;
}

/* std::__cxx11::basic_string: _M_dataplus._M_p points at the characters,
   _M_string_length counts them.  */
static struct sg_error *string_locate(const struct sg_value *v, uint64_t *p, uint64_t *len)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	struct sg_error *err = lsx_read_path(v, p_path, p);
	return err ? err : lsx_read_path(v, len_path, len);
}

bool lsx_nested_type(struct sg_target *t, const Dwarf_Die *type, const char *name, Dwarf_Die *ret)
{
	Dwarf_Die st, full, c;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	if (dwarf_child(&full, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);
		if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
		     tag == DW_TAG_enumeration_type) && n && !strcmp(n, name)) {
			sg_type_complete(t, &c, ret);
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The copy-on-write std::basic_string: _M_dataplus._M_p points at the
   characters, which follow a _Rep header holding _M_length.  */
static struct sg_error *cow_locate(const struct sg_value *v, uint64_t *p, uint64_t *len)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_length", NULL };
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die rep;
	uint64_t len_off;
	if (!lsx_nested_type(t, sg_value_type(v), "_Rep", &rep))
		return sg_error_create(SG_ERROR_LOOKUP, "no basic_string::_Rep in the DWARF");
	uint64_t rep_size = sg_type_size(&rep);
	struct sg_error *err = lsx_read_path(v, p_path, p);
	if (!err)
		err = lsx_offset(t, &rep, len_path, &len_off, NULL);
	if (err)
		return err;
	if (!rep_size || *p < rep_size)
		return sg_error_format(SG_ERROR_BAD_DATA, "not a valid std::string (characters at 0x%" PRIx64 ")",
				       *p);
	return sg_target_read_u64(t, *p - rep_size + len_off, len);
}

/* std::basic_string_view: _M_str and _M_len.  */
static struct sg_error *view_locate(const struct sg_value *v, uint64_t *p, uint64_t *len)
{
	static const char *const p_path[] = { "_M_str", NULL };
	static const char *const len_path[] = { "_M_len", NULL };
	struct sg_error *err = lsx_read_path(v, p_path, p);
	return err ? err : lsx_read_path(v, len_path, len);
}

/* The ops of each form; ARG is the character kind.  */
#define STRING_FORM(form)                                                                    \
	static struct sg_error *form##_summary(struct sg_session *session,                   \
					       const struct sg_value *v, char **ret, void *arg) \
	{                                                                                    \
		return summary_with(form##_locate, session, v, arg, ret);                    \
	}                                                                                    \
	static struct sg_error *form##_bytes(struct sg_session *session SG_UNUSED,           \
					     const struct sg_value *v, size_t max, char **ret,   \
					     size_t *len_ret, void *arg SG_UNUSED)              \
	{                                                                                    \
		return bytes_with(form##_locate, v, max, ret, len_ret);                      \
	}                                                                                    \
	static const struct sg_reader_ops form##_ops = {                                     \
		.summary = form##_summary, .bytes = form##_bytes, .hint = SG_HINT_STRING,    \
	}
STRING_FORM(string);
STRING_FORM(cow);
STRING_FORM(view);

struct sg_error *lsx_register_string(struct sg_session *session)
{
	static const struct char_kind narrow = { "" }, l = { "L" }, u = { "u" }, big_u = { "U" };
	static const struct {
		const char *ch, *name;
		const struct char_kind *kind;
	} chars[] = {
		{ "char", "string", &narrow }, { "char8_t", "u8string", &narrow },
		{ "wchar_t", "wstring", &l }, { "char16_t", "u16string", &u },
		{ "char32_t", "u32string", &big_u },
	};
	/* std::string, std::string (copy-on-write), std::string_view for
	   each character type.  */
	static const struct {
		const char *what, *templ;
		const struct sg_reader_ops *ops;
	} forms[] = {
		{ "", "std::__cxx11::basic_string", &string_ops },
		{ " (copy-on-write)", "std::basic_string", &cow_ops },
		{ "_view", "std::basic_string_view", &view_ops },
		{ "_view (experimental)", "std::experimental::fundamentals_v1::basic_string_view", &view_ops },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !err; i++) {
		for (size_t j = 0; j < sizeof(chars) / sizeof(chars[0]) && !err; j++) {
			char name[64], pattern[96];
			snprintf(name, sizeof(name), "std::%s%s", chars[j].name, forms[i].what);
			snprintf(pattern, sizeof(pattern), "%s<%s, *>", forms[i].templ, chars[j].ch);
			err = sg_reader_register(session, name, pattern, forms[i].ops,
						 (void *)chars[j].kind);
		}
	}
	return err;
}
