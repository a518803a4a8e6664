/* libstdc++ strings: std::string in the C++11 ABI (a pointer and a
   length), the old copy-on-write std::string (the length in a _Rep header
   before the characters) and std::string_view.  gdb's printers show the
   characters only, with the string display hint.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

/* Quote the LEN bytes at P, at most "print elements" of them.  */
static struct sg_error *quote_at(struct sg_session *session, struct sg_target *t, uint64_t p,
				 uint64_t len, char **ret)
{
	if (len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::string of length %" PRIu64 " is not sane",
				       len);
	size_t limit = lsx_print_limit(session), want = len < limit ? len : limit;
	unsigned char *buf = malloc(want ? want : 1);
	if (!buf)
		return &sg_enomem;
	struct sg_error *err = want ? sg_target_read(t, p, buf, want) : NULL;
	if (!err && !(*ret = lsx_quote(buf, want, want < len)))
		err = &sg_enomem;
	free(buf);
	return err;
}

/* The characters at the member path P_PATH of V, LEN_PATH counting them. */
static struct sg_error *quote_members(struct sg_session *session, const struct sg_value *v,
				      const char *const *p_path, const char *const *len_path, char **ret)
{
	uint64_t p, len;
	struct sg_error *err = lsx_read_path(v, p_path, &p);
	if (!err)
		err = lsx_read_path(v, len_path, &len);
	if (err)
		return err;
	return quote_at(session, sg_value_target(v), p, len, ret);
}

/* std::__cxx11::basic_string<char>: _M_dataplus._M_p points at the
   characters, _M_string_length counts them.  */
static struct sg_error *string_summary(struct sg_session *session, const struct sg_value *v,
				       char **ret, void *arg SG_UNUSED)
{
	static const char *const p_path[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const len_path[] = { "_M_string_length", NULL };
	return quote_members(session, v, p_path, len_path, ret);
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
				    char **ret, void *arg SG_UNUSED)
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
	return quote_at(session, t, p, len, ret);
}

/* std::basic_string_view<char>: _M_str and _M_len.  */
static struct sg_error *view_summary(struct sg_session *session, const struct sg_value *v,
				     char **ret, void *arg SG_UNUSED)
{
	static const char *const p_path[] = { "_M_str", NULL };
	static const char *const len_path[] = { "_M_len", NULL };
	return quote_members(session, v, p_path, len_path, ret);
}

static const struct sg_reader_ops string_ops = { .summary = string_summary, .hint = SG_HINT_STRING };
static const struct sg_reader_ops cow_ops = { .summary = cow_summary, .hint = SG_HINT_STRING };
static const struct sg_reader_ops view_ops = { .summary = view_summary, .hint = SG_HINT_STRING };

struct sg_error *lsx_register_string(struct sg_session *session)
{
	struct sg_error *err = sg_reader_register(session, "std::string",
						  "std::__cxx11::basic_string<char, *>", &string_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::string (copy-on-write)",
					 "std::basic_string<char, *>", &cow_ops, NULL);
	if (!err)
		err = sg_reader_register(session, "std::string_view", "std::basic_string_view<char, *>",
					 &view_ops, NULL);
	return err;
}
