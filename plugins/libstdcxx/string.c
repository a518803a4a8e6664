/* libstdc++ strings: std::string in the C++11 ABI (a pointer and a
   length), the old copy-on-write std::string (the length in a _Rep header
   before the characters) and std::string_view.  gdb's printers show the
   characters only, with the string display hint.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

/* How a character type prints: gdb's prefix (L"", u"", U"").  */
struct char_kind {
	const char *prefix;
};

/* Quote the LEN characters of UNIT bytes each at P, at most "print
   elements" of them; UTF-16 surrogate pairs become one character.  */
static struct sg_error *quote_at(struct sg_session *session, struct sg_target *t, uint64_t p,
				 uint64_t len, uint64_t unit, const struct char_kind *kind, char **ret)
{
	if (len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64 " is not sane",
				       len);
	if (unit != 1 && unit != 2 && unit != 4)
		return sg_error_format(SG_ERROR_BAD_DATA, "characters of %" PRIu64 " bytes", unit);
	size_t limit = lsx_print_limit(session), want = len < limit ? len : limit;
	unsigned char *buf = malloc(want ? want * unit : 1);
	uint32_t *chars = malloc(want ? want * sizeof(*chars) : 1);
	struct sg_error *err = !buf || !chars ? &sg_enomem
			       : want ? sg_target_read(t, p, buf, want * unit) : NULL;
	size_t n = 0;
	if (!err && unit == 1)
		n = lsx_utf8_decode(buf, want, chars);
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
		chars[n++] = c;
	}
	if (!err && !(*ret = lsx_quote(chars, n, kind->prefix, want < len)))
		err = &sg_enomem;
	free(buf);
	free(chars);
	return err;
}

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

/* The characters at the member path P_PATH of V, LEN_PATH counting them. */
static struct sg_error *quote_members(struct sg_session *session, const struct sg_value *v,
				      const char *const *p_path, const char *const *len_path,
				      const struct char_kind *kind, char **ret)
{
	uint64_t p, len;
	struct sg_error *err = lsx_read_path(v, p_path, &p);
	if (!err)
		err = lsx_read_path(v, len_path, &len);
	if (err)
		return err;
	return quote_at(session, sg_value_target(v), p, len, char_size(v), kind, ret);
}

/* std::__cxx11::basic_string<char>: _M_dataplus._M_p points at the
   characters, _M_string_length counts them.  */
static struct sg_error *string_summary(struct sg_session *session, const struct sg_value *v,
				       char **ret, void *arg)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	return quote_members(session, v, p_path, len_path, arg, ret);
}

/* The class member type NAME of TYPE (such as basic_string::_Rep).  */
static bool nested_type(struct sg_target *t, const Dwarf_Die *type, const char *name, Dwarf_Die *ret)
{
	Dwarf_Die st, full, c;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	if (dwarf_child(&full, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);
		if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && n && !strcmp(n, name)) {
			sg_type_complete(t, &c, ret);
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The copy-on-write std::basic_string<char>: _M_dataplus._M_p points at
   the characters, which follow a _Rep header holding _M_length.  */
static struct sg_error *cow_summary(struct sg_session *session, const struct sg_value *v,
				    char **ret, void *arg)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_length", NULL };
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die rep;
	uint64_t p, len_off, len;
	if (!nested_type(t, sg_value_type(v), "_Rep", &rep))
		return sg_error_create(SG_ERROR_LOOKUP, "no basic_string::_Rep in the DWARF");
	uint64_t rep_size = sg_type_size(&rep);
	struct sg_error *err = lsx_read_path(v, p_path, &p);
	if (!err)
		err = lsx_offset(t, &rep, len_path, &len_off, NULL);
	if (err)
		return err;
	if (!rep_size || p < rep_size)
		return sg_error_format(SG_ERROR_BAD_DATA, "not a valid std::string (characters at 0x%" PRIx64 ")",
				       p);
	if ((err = sg_target_read_u64(t, p - rep_size + len_off, &len)))
		return err;
	return quote_at(session, t, p, len, char_size(v), arg, ret);
}

/* std::basic_string_view<char>: _M_str and _M_len.  */
static struct sg_error *view_summary(struct sg_session *session, const struct sg_value *v,
				     char **ret, void *arg)
{
	static const char *const p_path[] = { "_M_str", NULL };
	static const char *const len_path[] = { "_M_len", NULL };
	return quote_members(session, v, p_path, len_path, arg, ret);
}

static const struct sg_reader_ops string_ops = { .summary = string_summary, .hint = SG_HINT_STRING };
static const struct sg_reader_ops cow_ops = { .summary = cow_summary, .hint = SG_HINT_STRING };
static const struct sg_reader_ops view_ops = { .summary = view_summary, .hint = SG_HINT_STRING };

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
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !err; i++) {
		for (size_t j = 0; j < sizeof(chars) / sizeof(chars[0]) && !err; j++) {
			char name[64], pattern[80];
			snprintf(name, sizeof(name), "std::%s%s", chars[j].name, forms[i].what);
			snprintf(pattern, sizeof(pattern), "%s<%s, *>", forms[i].templ, chars[j].ch);
			err = sg_reader_register(session, name, pattern, forms[i].ops,
						 (void *)chars[j].kind);
		}
	}
	return err;
}
