/* Readers of the rarer libstdc++ types: the C++20 comparison categories,
   std::span, the SGI extension __gnu_cxx::slist with its iterator,
   std::filesystem::path and the Filesystem TS's, std::error_code and
   std::error_condition.  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

/* ---- std::strong_ordering, weak_ordering, partial_ordering ---- */

/* "std::strong_ordering::less": _M_value is -1, 0, 1 or (partial
   ordering) 2; 0 is "equal" for strong_ordering only.  ARG is the
   category's name.  */
static struct sg_error *cmpcat_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       char **ret, void *arg)
{
	static const char *const path[] = { "_M_value", NULL };
	struct sg_value *m;
	struct sg_error *err = lsx_member_path(v, path, &m);
	if (err)
		return err;
	uint64_t size = sg_type_size(sg_value_type(m)), x;
	err = sg_value_read_uint(m, &x);
	sg_value_destroy(m);
	if (err)
		return err;
	if (size && size < 8 && x >> (8 * size - 1) & 1)
		x |= ~UINT64_C(0) << (8 * size);
	const char *cat = arg, *name;
	switch ((int64_t)x) {
	case -1: name = "less"; break;
	case 0: name = strcmp(cat, "strong_ordering") ? "equivalent" : "equal"; break;
	case 1: name = "greater"; break;
	case 2: name = "unordered"; break;
	default:
		return sg_error_format(SG_ERROR_BAD_DATA, "std::%s of value %" PRId64 " is none of its values",
				       cat, (int64_t)x);
	}
	return asprintf(ret, "std::%s::%s", cat, name) < 0 ? &sg_enomem : NULL;
}

static const struct sg_reader_ops cmpcat_ops = { .summary = cmpcat_summary, .hint = SG_HINT_NONE };

/* ---- std::span ---- */

/* The value of TYPE's template value parameter N (from 0, counting all
   template parameters).  */
static bool template_value(struct sg_target *t, const Dwarf_Die *type, unsigned n, uint64_t *ret)
{
	Dwarf_Die st, full, c;
	sg_type_strip(type, &st);
	sg_type_complete(t, &st, &full);
	if (dwarf_child(&full, &c) != 0)
		return false;
	unsigned i = 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag != DW_TAG_template_type_parameter && tag != DW_TAG_template_value_parameter)
			continue;
		if (i++ != n)
			continue;
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (tag != DW_TAG_template_value_parameter || !dwarf_attr(&c, DW_AT_const_value, &a) ||
		    dwarf_formudata(&a, &w) != 0)
			return false;
		*ret = w;
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* A span of dynamic extent keeps its length in _M_extent; a static one
   has it as its second template argument.  */
static struct sg_error *span_read(const struct sg_value *v, uint64_t *ptr, uint64_t *len, Dwarf_Die *elem)
{
	static const char *const ptr_path[] = { "_M_ptr", NULL };
	static const char *const len_path[] = { "_M_extent", "_M_extent_value", NULL };
	struct sg_target *t = sg_value_target(v);
	struct sg_error *err = lsx_read_path(v, ptr_path, ptr);
	if (err)
		return err;
	if (!lsx_template_arg(t, sg_value_type(v), 0, elem))
		return sg_error_create(SG_ERROR_LOOKUP, "no element type of std::span");
	uint64_t extent;
	if (!template_value(t, sg_value_type(v), 1, &extent))
		return sg_error_create(SG_ERROR_LOOKUP, "no extent of std::span in the DWARF");
	*len = extent;
	if (extent == UINT64_MAX && (err = lsx_read_path(v, len_path, len)))
		return err;
	if (*len > MAX_SANE_COUNT)
		return sg_error_format(SG_ERROR_BAD_DATA, "std::span of length %" PRIu64 " is not sane", *len);
	return NULL;
}

static struct sg_error *span_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				     char **ret, void *arg SG_UNUSED)
{
	uint64_t ptr, len;
	Dwarf_Die elem;
	struct sg_error *err = span_read(v, &ptr, &len, &elem);
	if (!err && asprintf(ret, "std::span of length %" PRIu64, len) < 0)
		err = &sg_enomem;
	return err;
}

static struct sg_error *span_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	uint64_t ptr, len;
	Dwarf_Die elem;
	struct sg_error *err = span_read(v, &ptr, &len, &elem);
	return err ? err : lsx_emit_array(sg_value_target(v), &elem, ptr, len, limit, fn, fn_arg);
}

static const struct sg_reader_ops span_ops = {
	.summary = span_summary, .children = span_children, .hint = SG_HINT_ARRAY,
};

/* ---- __gnu_cxx::slist ---- */

/* The node's links and value: _Slist_node<T> derives from
   _Slist_node_base (_M_next) and holds _M_data.  */
struct slist_node {
	uint64_t next_off, data_off;
	Dwarf_Die elem;
};

static struct sg_error *slist_node_layout(struct sg_target *t, const Dwarf_Die *node, struct slist_node *ret)
{
	static const char *const next[] = { "_M_next", NULL };
	static const char *const data[] = { "_M_data", NULL };
	struct sg_error *err = lsx_offset(t, node, next, &ret->next_off, NULL);
	return err ? err : lsx_offset(t, node, data, &ret->data_off, &ret->elem);
}

static struct sg_error *slist_read(const struct sg_value *v, uint64_t *first, struct slist_node *ret)
{
	static const char *const head[] = { "_M_head", "_M_next", NULL };
	struct sg_target *t = sg_value_target(v);
	Dwarf_Die node;
	struct sg_error *err = lsx_read_path(v, head, first);
	if (!err)
		err = lsx_node_type(t, sg_value_type(v), &node);
	return err ? err : slist_node_layout(t, &node, ret);
}

static struct sg_error *slist_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg SG_UNUSED)
{
	static const char *const head[] = { "_M_head", "_M_next", NULL };
	uint64_t first;
	struct sg_error *err = lsx_read_path(v, head, &first);
	if (err)
		return err;
	*ret = strdup(first ? "__gnu_cxx::slist" : "empty __gnu_cxx::slist");
	return *ret ? NULL : &sg_enomem;
}

/* No count is kept: the cycle check ends a cyclic list.  */
static struct sg_error *slist_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				       size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg SG_UNUSED)
{
	uint64_t node;
	struct slist_node nl;
	struct sg_error *err = slist_read(v, &node, &nl);
	if (err)
		return err;
	struct sg_target *t = sg_value_target(v);
	struct lsx_cycle cy = { 0 };
	for (uint64_t i = 0; node && i < limit; i++) {
		if (lsx_cycle_seen(&cy, node))
			return sg_error_create(SG_ERROR_BAD_DATA, "__gnu_cxx::slist is cyclic");
		int r;
		if ((err = lsx_emit_index(t, &nl.elem, node + nl.data_off, i, fn, fn_arg, &r)))
			return err;
		if (r != SG_CB_OK)
			break;
		if ((err = sg_target_read_u64(t, node + nl.next_off, &node)))
			return err;
	}
	return NULL;
}

static const struct sg_reader_ops slist_ops = {
	.summary = slist_summary, .children = slist_children, .hint = SG_HINT_NONE,
};

/* __gnu_cxx::_Slist_iterator<T, Ref, Ptr>: _M_node, a node base pointer.
   gdb prints the element it refers to; a null one is not
   dereferenceable.  */
static struct sg_error *slist_iter_node(const struct sg_value *v, uint64_t *node)
{
	static const char *const path[] = { "_M_node", NULL };
	return lsx_read_path(v, path, node);
}

static struct sg_error *slist_iter_summary(struct sg_session *session SG_UNUSED,
					   const struct sg_value *v, char **ret, void *arg SG_UNUSED)
{
	uint64_t node;
	struct sg_error *err = slist_iter_node(v, &node);
	if (err)
		return err;
	if (node)
		return sg_error_create(SG_ERROR_LOOKUP, "the element of a __gnu_cxx::slist iterator is "
				       "printed through deref");
	*ret = strdup("non-dereferenceable iterator for __gnu_cxx::slist");
	return *ret ? NULL : &sg_enomem;
}

/* The summary is for null iterators only: others are their element.  */
static bool slist_iter_null(struct sg_session *session SG_UNUSED, const struct sg_value *v,
			    void *arg SG_UNUSED)
{
	uint64_t node = 1;
	sg_error_destroy(slist_iter_node(v, &node));
	return node == 0;
}

static struct sg_error *slist_iter_deref(struct sg_session *session SG_UNUSED, const struct sg_value *v,
					 struct sg_value **ret, void *arg SG_UNUSED)
{
	struct sg_target *t = sg_value_target(v);
	uint64_t node;
	Dwarf_Die elem, node_type;
	struct sg_error *err = slist_iter_node(v, &node);
	if (err)
		return err;
	if (!node)
		return &sg_not_found;
	if (!lsx_template_arg(t, sg_value_type(v), 0, &elem))
		return sg_error_create(SG_ERROR_LOOKUP, "no element type of the __gnu_cxx::slist iterator");
	/* The node type is _Slist_node<T>, named after the element.  */
	char *tn = lsx_raw_type_name(&elem), *name;
	if (!tn || asprintf(&name, "__gnu_cxx::_Slist_node<%s>", tn) < 0)
		name = NULL;
	free(tn);
	if (!name)
		return &sg_enomem;
	err = sg_lookup_type(t, name, &node_type);
	free(name);
	struct slist_node nl;
	if (!err)
		err = slist_node_layout(t, &node_type, &nl);
	return err ? err : sg_value_at(t, &nl.elem, node + nl.data_off, ret);
}

static const struct sg_reader_ops slist_iter_ops = {
	.match = slist_iter_null, .summary = slist_iter_summary, .hint = SG_HINT_NONE,
	.deref = slist_iter_deref,
};

/* ---- std::filesystem::path, std::experimental::filesystem::path ---- */

/* The name of the enumerator of ENUM_TYPE whose value is VALUE, or NULL. */
static const char *enumerator_name(const Dwarf_Die *enum_type, int64_t value)
{
	Dwarf_Die e = *enum_type, c;
	if (dwarf_child(&e, &c) != 0)
		return NULL;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		if (dwarf_tag(&c) == DW_TAG_enumerator && dwarf_attr(&c, DW_AT_const_value, &a) &&
		    dwarf_formsdata(&a, &sv) == 0 && sv == value)
			return dwarf_diename(&c);
	} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

/* Where a path keeps its parts.  A path's kind (path::_Type: a list of
   components, a root name, a root directory, a file name) is the
   integer TAG_SIZE bytes at TAG_OFF masked by TAG_MASK, in paths and in
   components (_Cmpt derives from path) alike: the std one keeps it in the
   low bits of its components pointer _M_cmpts._M_impl, the Filesystem
   TS's in _M_type.  */
struct path_layout {
	bool experimental;
	Dwarf_Die kinds;		/* path::_Type */
	bool have_kinds;
	uint64_t tag_off, cmpt_tag_off, tag_size, tag_mask;
	uint64_t cmpt_size, name_off;	/* _Cmpt, its _M_pathname */
	Dwarf_Die name_type;
};

static struct sg_error *path_layout(struct sg_target *t, const Dwarf_Die *type, bool experimental,
				    struct path_layout *ret)
{
	static const char *const impl[] = { "_M_cmpts", "_M_impl", "_M_t", "_M_t", "_M_head_impl", NULL };
	static const char *const kind[] = { "_M_type", NULL };
	static const char *const name[] = { "_M_pathname", NULL };
	const char *const *tag = experimental ? kind : impl;
	Dwarf_Die cmpt, tag_type;
	ret->experimental = experimental;
	ret->have_kinds = lsx_nested_type(t, type, "_Type", &ret->kinds);
	if (!lsx_nested_type(t, type, "_Cmpt", &cmpt))
		return sg_error_create(SG_ERROR_LOOKUP, "no filesystem::path::_Cmpt in the DWARF");
	ret->cmpt_size = sg_type_size(&cmpt);
	struct sg_error *err = lsx_offset(t, type, tag, &ret->tag_off, &tag_type);
	if (!err)
		err = lsx_offset(t, &cmpt, tag, &ret->cmpt_tag_off, NULL);
	if (!err)
		err = lsx_offset(t, &cmpt, name, &ret->name_off, &ret->name_type);
	if (err)
		return err;
	ret->tag_size = sg_type_size(&tag_type);
	ret->tag_mask = experimental ? UINT64_MAX : 3;
	if (!ret->cmpt_size || !ret->tag_size || ret->tag_size > 8)
		return sg_error_create(SG_ERROR_BAD_DATA, "filesystem::path has no usable layout in the DWARF");
	return NULL;
}

static struct sg_error *path_tag(struct sg_target *t, const struct path_layout *pl, uint64_t addr,
				 uint64_t *ret)
{
	uint64_t x = 0;
	struct sg_error *err = sg_target_read(t, addr, &x, pl->tag_size);	/* little-endian */
	*ret = x;
	return err;
}

/* gdb's name of a path's kind: "root-name", "root-directory" or NULL.  */
static const char *path_kind(const struct path_layout *pl, uint64_t tag)
{
	const char *e = pl->have_kinds ? enumerator_name(&pl->kinds, (int64_t)(tag & pl->tag_mask)) : NULL;
	if (!e)
		return NULL;
	return !strcmp(e, "_Root_dir") ? "root-directory" : !strcmp(e, "_Root_name") ? "root-name" : NULL;
}

/* The components: COUNT _Cmpts at ARRAY.  The std path's _M_impl points
   at a header of two ints (_M_size, _M_capacity) that the (8-aligned)
   _Cmpt array follows; the Filesystem TS's is a std::vector<_Cmpt>.  */
static struct sg_error *path_components(const struct sg_value *v, const struct path_layout *pl,
					uint64_t tag, uint64_t *array, uint64_t *count)
{
	struct sg_target *t = sg_value_target(v);
	*array = *count = 0;
	if (pl->experimental) {
		static const char *const start[] = { "_M_cmpts", "_M_impl", "_M_start", NULL };
		static const char *const finish[] = { "_M_cmpts", "_M_impl", "_M_finish", NULL };
		uint64_t end;
		struct sg_error *err = lsx_read_path(v, start, array);
		if (!err)
			err = lsx_read_path(v, finish, &end);
		if (err)
			return err;
		if (end < *array || (end - *array) % pl->cmpt_size ||
		    (end - *array) / pl->cmpt_size > MAX_SANE_COUNT)
			return sg_error_create(SG_ERROR_BAD_DATA, "filesystem::path's components are not a valid vector");
		*count = (end - *array) / pl->cmpt_size;
		return NULL;
	}
	if (tag & pl->tag_mask || !tag)
		return NULL;	/* one part, or empty */
	int32_t hdr[2];
	struct sg_error *err = sg_target_read(t, tag, hdr, sizeof(hdr));
	if (err)
		return err;
	if (hdr[0] < 0 || hdr[0] > hdr[1])
		return sg_error_format(SG_ERROR_BAD_DATA, "filesystem::path of %" PRId32 " components "
				       "(capacity %" PRId32 ") is not sane", hdr[0], hdr[1]);
	*array = tag + 8;
	*count = (uint64_t)hdr[0];
	return NULL;
}

static struct sg_error *path_read(const struct sg_value *v, bool experimental, struct path_layout *pl,
				  uint64_t *tag)
{
	struct sg_target *t = sg_value_target(v);
	struct sg_error *err = path_layout(t, sg_value_type(v), experimental, pl);
	return err ? err : path_tag(t, pl, sg_value_address(v) + pl->tag_off, tag);
}

/* "filesystem::path "/dir/."": the whole path quoted, and the kind of a
   path of one part ("/" [root-directory]).  ARG is non-NULL for the
   Filesystem TS's path.  */
static struct sg_error *path_summary(struct sg_session *session, const struct sg_value *v, char **ret,
				     void *arg)
{
	static const char *const name[] = { "_M_pathname", NULL };
	struct path_layout pl;
	uint64_t tag, array, count;
	struct sg_value *m;
	char *quoted;
	struct sg_error *err = path_read(v, arg, &pl, &tag);
	if (!err)
		err = path_components(v, &pl, tag, &array, &count);
	if (err)
		count = 0;	/* the children say what is wrong */
	sg_error_destroy(err);
	if ((err = lsx_member_path(v, name, &m)))
		return err;
	err = sg_value_summary(session, m, &quoted);
	sg_value_destroy(m);
	if (err)
		return err;
	bool one_part = arg ? count == 0 : (tag & pl.tag_mask) != 0;
	const char *kind = one_part ? path_kind(&pl, tag) : NULL;
	if (asprintf(ret, "%sfilesystem::path %s%s%s%s", arg ? "experimental::" : "", quoted,
		     kind ? " [" : "", kind ? kind : "", kind ? "]" : "") < 0)
		err = &sg_enomem;
	free(quoted);
	return err;
}

/* Each component's _M_pathname, named by its kind or its index.  */
static struct sg_error *path_children(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      size_t limit, lsx_child_fn *fn, void *fn_arg, void *arg)
{
	struct sg_target *t = sg_value_target(v);
	struct path_layout pl;
	uint64_t tag, array, count;
	struct sg_error *err = path_read(v, arg, &pl, &tag);
	if (!err)
		err = path_components(v, &pl, tag, &array, &count);
	for (uint64_t i = 0; !err && i < count && i < limit; i++) {
		uint64_t cmpt = array + i * pl.cmpt_size, ctag;
		if ((err = path_tag(t, &pl, cmpt + pl.cmpt_tag_off, &ctag)))
			break;
		const char *kind = path_kind(&pl, ctag);
		char name[32];
		if (kind)
			snprintf(name, sizeof(name), "[%s]", kind);
		else
			snprintf(name, sizeof(name), "[%" PRIu64 "]", i);
		int r;
		if ((err = lsx_emit(t, &pl.name_type, cmpt + pl.name_off, name, fn, fn_arg, &r)) ||
		    r != SG_CB_OK)
			break;
	}
	return err;
}

static const struct sg_reader_ops path_ops = {
	.summary = path_summary, .children = path_children, .hint = SG_HINT_NONE,
};

/* ---- std::error_code, std::error_condition ---- */

/* Linux's errno names (<errno.h>), as Python's errno.errorcode has them
   for the values that have two (EAGAIN, EDEADLOCK, ENOTSUP).  */
static const char *const errno_names[] = {
	[1] = "EPERM", [2] = "ENOENT", [3] = "ESRCH", [4] = "EINTR", [5] = "EIO", [6] = "ENXIO",
	[7] = "E2BIG", [8] = "ENOEXEC", [9] = "EBADF", [10] = "ECHILD", [11] = "EAGAIN",
	[12] = "ENOMEM", [13] = "EACCES", [14] = "EFAULT", [15] = "ENOTBLK", [16] = "EBUSY",
	[17] = "EEXIST", [18] = "EXDEV", [19] = "ENODEV", [20] = "ENOTDIR", [21] = "EISDIR",
	[22] = "EINVAL", [23] = "ENFILE", [24] = "EMFILE", [25] = "ENOTTY", [26] = "ETXTBSY",
	[27] = "EFBIG", [28] = "ENOSPC", [29] = "ESPIPE", [30] = "EROFS", [31] = "EMLINK",
	[32] = "EPIPE", [33] = "EDOM", [34] = "ERANGE", [35] = "EDEADLOCK", [36] = "ENAMETOOLONG",
	[37] = "ENOLCK", [38] = "ENOSYS", [39] = "ENOTEMPTY", [40] = "ELOOP", [42] = "ENOMSG",
	[43] = "EIDRM", [44] = "ECHRNG", [45] = "EL2NSYNC", [46] = "EL3HLT", [47] = "EL3RST",
	[48] = "ELNRNG", [49] = "EUNATCH", [50] = "ENOCSI", [51] = "EL2HLT", [52] = "EBADE",
	[53] = "EBADR", [54] = "EXFULL", [55] = "ENOANO", [56] = "EBADRQC", [57] = "EBADSLT",
	[59] = "EBFONT", [60] = "ENOSTR", [61] = "ENODATA", [62] = "ETIME", [63] = "ENOSR",
	[64] = "ENONET", [65] = "ENOPKG", [66] = "EREMOTE", [67] = "ENOLINK", [68] = "EADV",
	[69] = "ESRMNT", [70] = "ECOMM", [71] = "EPROTO", [72] = "EMULTIHOP", [73] = "EDOTDOT",
	[74] = "EBADMSG", [75] = "EOVERFLOW", [76] = "ENOTUNIQ", [77] = "EBADFD", [78] = "EREMCHG",
	[79] = "ELIBACC", [80] = "ELIBBAD", [81] = "ELIBSCN", [82] = "ELIBMAX", [83] = "ELIBEXEC",
	[84] = "EILSEQ", [85] = "ERESTART", [86] = "ESTRPIPE", [87] = "EUSERS", [88] = "ENOTSOCK",
	[89] = "EDESTADDRREQ", [90] = "EMSGSIZE", [91] = "EPROTOTYPE", [92] = "ENOPROTOOPT",
	[93] = "EPROTONOSUPPORT", [94] = "ESOCKTNOSUPPORT", [95] = "ENOTSUP",
	[96] = "EPFNOSUPPORT", [97] = "EAFNOSUPPORT", [98] = "EADDRINUSE", [99] = "EADDRNOTAVAIL",
	[100] = "ENETDOWN", [101] = "ENETUNREACH", [102] = "ENETRESET", [103] = "ECONNABORTED",
	[104] = "ECONNRESET", [105] = "ENOBUFS", [106] = "EISCONN", [107] = "ENOTCONN",
	[108] = "ESHUTDOWN", [109] = "ETOOMANYREFS", [110] = "ETIMEDOUT", [111] = "ECONNREFUSED",
	[112] = "EHOSTDOWN", [113] = "EHOSTUNREACH", [114] = "EALREADY", [115] = "EINPROGRESS",
	[116] = "ESTALE", [117] = "EUCLEAN", [118] = "ENOTNAM", [119] = "ENAVAIL",
	[120] = "EISNAM", [121] = "EREMOTEIO", [122] = "EDQUOT", [123] = "ENOMEDIUM",
	[124] = "EMEDIUMTYPE", [125] = "ECANCELED", [126] = "ENOKEY", [127] = "EKEYEXPIRED",
	[128] = "EKEYREVOKED", [129] = "EKEYREJECTED", [130] = "EOWNERDEAD",
	[131] = "ENOTRECOVERABLE", [132] = "ERFKILL", [133] = "EHWPOISON",
};

/* The dynamic type of the polymorphic object at ADDR, from its RTTI
   (the vptr, the type_info before the vtable's first slot, its mangled
   name): libstdc++'s categories are in an anonymous namespace, with no
   symbol a stripped libstdc++ keeps, but their type_info names are there.
   A class local to a function ("Z4mainE3cat") is named by its own name, as
   gdb names local types.  */
static struct sg_error *dynamic_type_name(struct sg_target *t, uint64_t addr, char **ret)
{
	static const char prefix[] = "typeinfo name for ";
	uint64_t vptr, ti, name_ptr;
	char *mangled = NULL, *sym = NULL, *demangled = NULL;
	struct sg_error *err = sg_target_read_u64(t, addr, &vptr);
	if (!err)
		err = sg_target_read_u64(t, vptr - 8, &ti);
	if (!err)
		err = sg_target_read_u64(t, ti + 8, &name_ptr);
	if (!err)
		err = sg_target_read_string(t, name_ptr, 1024, &mangled, NULL);
	if (err)
		return err;
	const char *m = mangled + (mangled[0] == '*');	/* "*": compared by address */
	if (asprintf(&sym, "_ZTS%s", m) >= 0)
		demangled = sg_demangle(sym, false);
	free(sym);
	if (!demangled || strncmp(demangled, prefix, strlen(prefix))) {
		err = sg_error_format(SG_ERROR_BAD_DATA, "the object at 0x%" PRIx64 " has no run-time "
				      "type information (vptr 0x%" PRIx64 ")", addr, vptr);
		free(demangled);
		free(mangled);
		return err;
	}
	const char *cls = demangled + strlen(prefix);
	if (m[0] == 'Z') {
		int depth = 0;
		const char *last = cls;
		for (const char *p = cls; *p; p++) {
			if (*p == '<' || *p == '(')
				depth++;
			else if (*p == '>' || *p == ')')
				depth--;
			else if (depth == 0 && p[0] == ':' && p[1] == ':')
				last = p + 2;
		}
		cls = last;
	}
	*ret = strdup(cls);
	free(demangled);
	free(mangled);
	return *ret ? NULL : &sg_enomem;
}

/* The category _M_cat points at, by its dynamic type: *NAME is
   libstdc++'s short name of its own categories ("generic"), else NULL and
   *CLASS the category's class; *ENUM_NAME the enumeration naming the
   values, if any; *IS_ERRNO when they are errno values.  */
static struct sg_error *error_category(struct sg_target *t, uint64_t cat, const char **name, char **class,
				       const char **enum_name, bool *is_errno)
{
	static const struct {
		const char *suffix, *name, *enum_name;
		bool is_errno;
	} known[] = {
		{ "::generic_error_category", "generic", NULL, true },
		{ "::system_error_category", "system", NULL, true },
		{ "::future_error_category", "future", "std::future_errc", false },
		{ "::io_error_category", "io", "std::io_errc", false },
	};
	struct sg_error *err = dynamic_type_name(t, cat, class);
	if (err)
		return err;
	size_t n = strlen(*class);
	*name = *enum_name = NULL;
	*is_errno = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		size_t k = strlen(known[i].suffix);
		if (n > k && !strcmp(*class + n - k, known[i].suffix)) {
			*name = known[i].name;
			*enum_name = known[i].enum_name;
			*is_errno = known[i].is_errno;
		}
	}
	return NULL;
}

/* "std::error_code = {"generic": EINVAL}", "{custom_cat: 42}",
   "{"io": stream}"; a zero value of the type's default category (system
   for error_code, generic for error_condition) is "std::error_code = { }".
   ARG is the type's name.  */
static struct sg_error *error_summary(struct sg_session *session SG_UNUSED, const struct sg_value *v,
				      char **ret, void *arg)
{
	static const char *const value_path[] = { "_M_value", NULL };
	static const char *const cat_path[] = { "_M_cat", NULL };
	struct sg_target *t = sg_value_target(v);
	const char *type = arg, *name, *enum_name;
	char *class, num[24];
	bool is_errno;
	uint64_t x, cat;
	struct sg_error *err = lsx_read_path(v, value_path, &x);
	if (!err)
		err = lsx_read_path(v, cat_path, &cat);
	if (!err)
		err = error_category(t, cat, &name, &class, &enum_name, &is_errno);
	if (err)
		return err;
	int32_t value = (int32_t)x;
	bool is_code = !strcmp(type, "std::error_code");
	if (value == 0 && name && !strcmp(name, is_code ? "system" : "generic")) {
		free(class);
		return asprintf(ret, "%s = { }", type) < 0 ? &sg_enomem : NULL;
	}
	snprintf(num, sizeof(num), "%" PRId32, value);
	const char *strval = num;
	Dwarf_Die en;
	if (is_errno && value > 0 && (size_t)value < sizeof(errno_names) / sizeof(errno_names[0]) &&
	    errno_names[value]) {
		strval = errno_names[value];
	} else if (!is_errno && enum_name) {
		struct sg_error *lerr = sg_lookup_type(t, enum_name, &en);
		const char *e = lerr ? NULL : enumerator_name(&en, value);
		sg_error_destroy(lerr);
		if (e)
			strval = e;
	}
	int r = name ? asprintf(ret, "%s = {\"%s\": %s}", type, name, strval)
		     : asprintf(ret, "%s = {%s: %s}", type, class, strval);
	free(class);
	return r < 0 ? &sg_enomem : NULL;
}

static const struct sg_reader_ops error_ops = { .summary = error_summary, .hint = SG_HINT_NONE };

struct sg_error *lsx_register_extra(struct sg_session *session)
{
	static const struct {
		const char *name, *pattern;
		const struct sg_reader_ops *ops;
		void *arg;
	} readers[] = {
		{ "std::strong_ordering", "std::strong_ordering", &cmpcat_ops, "strong_ordering" },
		{ "std::weak_ordering", "std::weak_ordering", &cmpcat_ops, "weak_ordering" },
		{ "std::partial_ordering", "std::partial_ordering", &cmpcat_ops, "partial_ordering" },
		{ "std::span", "std::span<*>", &span_ops, NULL },
		{ "__gnu_cxx::slist", "__gnu_cxx::slist<*>", &slist_ops, NULL },
		{ "__gnu_cxx::slist::iterator", "__gnu_cxx::_Slist_iterator<*>", &slist_iter_ops, NULL },
		{ "std::filesystem::path", "std::filesystem::__cxx11::path", &path_ops, NULL },
		{ "std::filesystem::path (old ABI)", "std::filesystem::path", &path_ops, NULL },
		{ "std::experimental::filesystem::path", "std::experimental::filesystem::v1::__cxx11::path",
		  &path_ops, "experimental" },
		{ "std::experimental::filesystem::path (old ABI)", "std::experimental::filesystem::v1::path",
		  &path_ops, "experimental" },
		{ "std::error_code", "std::error_code", &error_ops, "std::error_code" },
		{ "std::error_condition", "std::error_condition", &error_ops, "std::error_condition" },
	};
	struct sg_error *err = NULL;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]) && !err; i++)
		err = sg_reader_register(session, readers[i].name, readers[i].pattern, readers[i].ops,
					 readers[i].arg);
	return err;
}
