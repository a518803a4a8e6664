/* libstdc++'s type printers: the names gdb gives its types through the
   typedefs and default template arguments libstdc++ declares, as Debian's
   printers.py registers them (FilteringTypePrinter: "std::string" for the
   basic_string the typedef names; TemplateTypePrinter: "std::vector<int>"
   without its default allocator).  The container summaries use the same
   names ("std::unique_ptr<long>").  */
#include <config.h>
#include "libstdcxx.h"

#include <dwarf.h>

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

/* The end of the template argument starting at P: the top-level ',' or
   closing '>'.  */
static const char *arg_end(const char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
	}
	return p;
}

/* NAME (N bytes) as gdb canonicalises C++ names: GCC writes some template
   arguments "const T" and others "T const"; gdb always "T const".  */
static void put_canonical(FILE *f, const char *name, size_t n)
{
	const char *end = name + n, *lt = memchr(name, '<', n);
	if (!lt) {
		fwrite(name, 1, n, f);
		return;
	}
	fwrite(name, 1, (size_t)(lt - name) + 1, f);
	const char *p = lt + 1;
	for (bool first = true; p < end && *p != '>'; first = false) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = arg_end(p);
		if (e > end)
			e = end;
		if (!first)
			fputs(", ", f);
		if (e - p > 6 && !strncmp(p, "const ", 6)) {
			/* "const T*" becomes "T const*".  */
			const char *q = e;
			while (q > p + 6 && (q[-1] == '*' || q[-1] == '&' || q[-1] == ' '))
				q--;
			put_canonical(f, p + 6, (size_t)(q - p - 6));
			fputs(" const", f);
			fwrite(q, 1, (size_t)(e - q), f);
		} else {
			put_canonical(f, p, (size_t)(e - p));
		}
		p = e;
	}
	if (p < end)
		put_canonical(f, p, (size_t)(end - p));	/* ">", "> >::_Rep" */
}

static char *canonical(const char *name)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	put_canonical(f, name, strlen(name));
	fclose(f);
	return out;
}

/* An array's element count from its subrange SUB: DW_AT_count, or
   DW_AT_upper_bound + 1 (GCC writes the latter).  */
static bool array_count(Dwarf_Die *sub, Dwarf_Word *ret)
{
	Dwarf_Attribute a;
	if (dwarf_attr(sub, DW_AT_count, &a) && dwarf_formudata(&a, ret) == 0)
		return true;
	if (dwarf_attr(sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, ret) == 0) {
		++*ret;
		return true;
	}
	return false;
}

char *lsx_raw_type_name(const Dwarf_Die *type)
{
	Dwarf_Die d = *type, target;
	char *s = NULL;
	switch (dwarf_tag(&d)) {
	case DW_TAG_base_type: {
		const char *n = dwarf_diename(&d);
		return strdup(n ? sg_type_base_name(n) : "?");
	}
	case DW_TAG_pointer_type:
	case DW_TAG_const_type:
	case DW_TAG_array_type: {
		int tag = dwarf_tag(&d);
		char *in = die_type(&d, &target) ? lsx_raw_type_name(&target) : strdup("void");
		Dwarf_Die sub;
		Dwarf_Word n = 0;
		bool bounded = tag == DW_TAG_array_type && dwarf_child(&d, &sub) == 0 &&
			       array_count(&sub, &n);
		if (bounded && in) {
			if (asprintf(&s, "%s [%" PRIu64 "]", in, (uint64_t)n) < 0)
				s = NULL;
		} else if (in && asprintf(&s, tag == DW_TAG_pointer_type ? "%s *"
					  : tag == DW_TAG_const_type ? "const %s" : "%s []", in) < 0) {
			s = NULL;
		}
		free(in);
		return s;
	}
	default: break;
	}
	char *name = sg_type_qualified_name(&d);
	if (!name)
		return strdup("?");
	s = canonical(name);
	free(name);
	return s;
}

/* TYPE as GCC spells it inside DWARF template names ("int*", "long int",
   "int const"), for comparing default template arguments.  */
static char *spelling(const Dwarf_Die *type)
{
	Dwarf_Die d = *type, target;
	int tag = dwarf_tag(&d);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_const_type) {
		char *in = die_type(&d, &target) ? spelling(&target) : strdup("void"), *s;
		if (!in || asprintf(&s, tag == DW_TAG_pointer_type ? "%s*" : "%s const", in) < 0)
			s = NULL;
		free(in);
		return s;
	}
	if (tag == DW_TAG_array_type) {
		/* "T []", "T [10]".  */
		Dwarf_Die sub;
		Dwarf_Word n;
		char *in = die_type(&d, &target) ? spelling(&target) : NULL, *s = NULL;
		int r = !in ? -1 : dwarf_child(&d, &sub) == 0 && array_count(&sub, &n)
			? asprintf(&s, "%s [%" PRIu64 "]", in, (uint64_t)n) : asprintf(&s, "%s []", in);
		free(in);
		return r < 0 ? NULL : s;
	}
	return sg_type_qualified_name(&d);
}

/* gcc's spelling of TEMPLATE<ARG> in DWARF names: "> >".  */
static char *spell(const char *templ, const char *arg)
{
	char *s;
	size_t n = strlen(arg);
	if (asprintf(&s, "%s<%s%s>", templ, arg, n && arg[n - 1] == '>' ? " " : "") < 0)
		return NULL;
	return s;
}

/* The libstdc++ type printers' default template arguments: {N} stands
   for argument N.  */
struct defaults {
	const char *name;
	const char *args[5];	/* NULL: not defaulted */
};
static const struct defaults template_defaults[] = {
	{ "unique_ptr", { NULL, "std::default_delete<{0}>" } },
	/* printers.py registers "__cxx11::list" too: gcc's list is there. */
	{ "deque", { NULL, "std::allocator<{0}>" } },
	{ "forward_list", { NULL, "std::allocator<{0}>" } },
	{ "list", { NULL, "std::allocator<{0}>" } },
	{ "vector", { NULL, "std::allocator<{0}>" } },
	{ "map", { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "multimap", { NULL, NULL, "std::less<{0}>", "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "set", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "multiset", { NULL, "std::less<{0}>", "std::allocator<{0}>" } },
	{ "unordered_map", { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>",
			     "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "unordered_multimap", { NULL, NULL, "std::hash<{0}>", "std::equal_to<{0}>",
				  "std::allocator<std::pair<{0} const, {1}>>" } },
	{ "unordered_set", { NULL, "std::hash<{0}>", "std::equal_to<{0}>", "std::allocator<{0}>" } },
	{ "unordered_multiset", { NULL, "std::hash<{0}>", "std::equal_to<{0}>",
				  "std::allocator<{0}>" } },
};

/* Whether ARG (DWARF-spelled) is the default FMT given the first two
   arguments A0 and A1.  The formats nest at most two templates deep.  */
static bool is_default(const char *arg, const char *fmt, const char *a0, const char *a1)
{
	char *want = NULL;
	if (!strncmp(fmt, "std::allocator<std::pair<", 25)) {
		char *inner, *pair;
		if (asprintf(&inner, "%s const, %s", a0, a1 ? a1 : "?") < 0)
			return false;
		pair = spell("std::pair", inner);
		want = pair ? spell("std::allocator", pair) : NULL;
		free(inner);
		free(pair);
	} else {
		char templ[32];
		size_t n = strcspn(fmt, "<");
		snprintf(templ, sizeof(templ), "%.*s", (int)n, fmt);
		want = spell(templ, a0);
	}
	/* GCC writes "const T" in some names and "T const" in others.  */
	char *cw = want ? canonical(want) : NULL, *ca = canonical(arg);
	bool same = cw && ca && !strcmp(cw, ca);
	free(want);
	free(cw);
	free(ca);
	return same;
}

/* printers.py's strip_inline_namespaces: the names gdb shows.  */
static void strip_inline(char *s)
{
	static const char *const inline_ns[][2] = {
		{ "std::__cxx11::", "std::" },
		{ "std::experimental::fundamentals_v1::", "std::experimental::" },
		{ "std::experimental::fundamentals_v2::", "std::experimental::" },
		{ "std::experimental::filesystem::v1::", "std::experimental::filesystem::" },
	};
	for (size_t i = 0; i < sizeof(inline_ns) / sizeof(inline_ns[0]); i++) {
		size_t from = strlen(inline_ns[i][0]), to = strlen(inline_ns[i][1]);
		for (char *p = strstr(s, inline_ns[i][0]); p; p = strstr(p + to, inline_ns[i][0]))
			memmove(p + to, p + from, strlen(p + from) + 1);
	}
}

/* The type printers' names, for the arguments of a recognised template:
   pointers as "T*", arrays as "T[N]", references as "T&", recognised
   templates by their names, others as gdb's str(type).  */
static char *subtype_name(struct sg_target *t, const Dwarf_Die *type);

/* TemplateTypePrinter: a container without its default arguments.  */
static char *recognize(struct sg_target *t, const Dwarf_Die *type, const char *qname)
{
	Dwarf_Die a0d, a1d;
	const char *base = !strncmp(qname, "std::__cxx11::", 14) ? qname + 14
			   : !strncmp(qname, "std::__debug::", 14) ? qname + 14
			   : !strncmp(qname, "std::", 5) ? qname + 5 : NULL;
	const struct defaults *d = NULL;
	for (size_t i = 0; base && i < sizeof(template_defaults) / sizeof(template_defaults[0]); i++) {
		size_t n = strlen(template_defaults[i].name);
		if (!strncmp(base, template_defaults[i].name, n) && base[n] == '<')
			d = &template_defaults[i];
	}
	if (!d || !lsx_template_arg(t, type, 0, &a0d))
		return NULL;
	char *a0 = spelling(&a0d);
	if (!a0)
		return NULL;
	char *a1 = lsx_template_arg(t, type, 1, &a1d) ? spelling(&a1d) : NULL;
	unsigned n = lsx_template_count(t, type);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	bool ok = f != NULL, defaulted = false;
	if (f)
		fprintf(f, "%s%s<", !strncmp(qname, "std::__debug::", 14) ? "std::__debug::" : "std::",
			d->name);
	for (unsigned i = 0; ok && i < n && i < 5; i++) {
		Dwarf_Die ad;
		if (!lsx_template_arg(t, type, i, &ad)) {
			ok = false;
			break;
		}
		if (d->args[i]) {
			char *an = sg_type_qualified_name(&ad);
			ok = an && is_default(an, d->args[i], a0, a1);
			free(an);
			defaulted = true;
		} else if (defaulted) {
			ok = false;
		} else {
			char *an = subtype_name(t, &ad);
			fprintf(f, "%s%s", i ? ", " : "", an ? an : "?");
			free(an);
		}
	}
	if (f) {
		fputc('>', f);
		fclose(f);
	}
	free(a0);
	free(a1);
	if (!ok || n > 5) {
		free(out);
		return NULL;
	}
	return out;
}

/* FilteringTypePrinter: a typedef's name for the specialisation it
   names.  MATCH is the template (after "std::"), NAME the typedef, "%s"
   standing for each of CHARS in turn.  printers.py also registers the
   <chrono> durations against "std::duration", which no type's name
   starts with: gdb never shows them, nor does this.  */
static const char *const string_chars[] = { "", "w", "u8", "u16", "u32", NULL };
static const char *const stream_chars[] = { "", "w", NULL };
static const char *const match_chars[] = { "c", "s", "wc", "ws", NULL };
static const char *const no_chars[] = { "", NULL };
static const struct typedef_printer {
	const char *match, *name;
	const char *const *chars;
} typedef_printers[] = {
	{ "basic_string", "%sstring", string_chars },
	{ "__cxx11::basic_string", "%sstring", string_chars },
	{ "__cxx11::basic_string", "__cxx11::%sstring", string_chars },
	{ "basic_string_view", "%sstring_view", string_chars },
	{ "basic_ios", "%sios", stream_chars },
	{ "basic_streambuf", "%sstreambuf", stream_chars },
	{ "basic_istream", "%sistream", stream_chars },
	{ "basic_ostream", "%sostream", stream_chars },
	{ "basic_iostream", "%siostream", stream_chars },
	{ "basic_filebuf", "%sfilebuf", stream_chars },
	{ "basic_ifstream", "%sifstream", stream_chars },
	{ "basic_ofstream", "%sofstream", stream_chars },
	{ "basic_fstream", "%sfstream", stream_chars },
	{ "basic_stringbuf", "%sstringbuf", stream_chars },
	{ "__cxx11::basic_stringbuf", "%sstringbuf", stream_chars },
	{ "basic_istringstream", "%sistringstream", stream_chars },
	{ "__cxx11::basic_istringstream", "%sistringstream", stream_chars },
	{ "basic_ostringstream", "%sostringstream", stream_chars },
	{ "__cxx11::basic_ostringstream", "%sostringstream", stream_chars },
	{ "basic_stringstream", "%sstringstream", stream_chars },
	{ "__cxx11::basic_stringstream", "%sstringstream", stream_chars },
	{ "basic_regex", "%sregex", stream_chars },
	{ "__cxx11::basic_regex", "__cxx11::%sregex", stream_chars },
	{ "match_results", "%smatch", match_chars },
	{ "__cxx11::match_results", "__cxx11::%smatch", match_chars },
	{ "sub_match", "%ssub_match", match_chars },
	{ "__cxx11::sub_match", "__cxx11::%ssub_match", match_chars },
	{ "regex_iterator", "%sregex_iterator", match_chars },
	{ "__cxx11::regex_iterator", "__cxx11::%sregex_iterator", match_chars },
	{ "regex_token_iterator", "%sregex_token_iterator", match_chars },
	{ "__cxx11::regex_token_iterator", "__cxx11::%sregex_token_iterator", match_chars },
	{ "fpos", "streampos", no_chars },
	{ "linear_congruential_engine", "minstd_rand0", no_chars },
	{ "linear_congruential_engine", "minstd_rand", no_chars },
	{ "mersenne_twister_engine", "mt19937", no_chars },
	{ "mersenne_twister_engine", "mt19937_64", no_chars },
	{ "subtract_with_carry_engine", "ranlux24_base", no_chars },
	{ "subtract_with_carry_engine", "ranlux48_base", no_chars },
	{ "discard_block_engine", "ranlux24", no_chars },
	{ "discard_block_engine", "ranlux48", no_chars },
	{ "shuffle_order_engine", "knuth_b", no_chars },
	{ "experimental::fundamentals_v1::basic_string_view",
	  "experimental::fundamentals_v1::%sstring_view", string_chars },
};

/* Whether the typedef NAME names the type called QNAME
   (gdb.lookup_type(name).strip_typedefs() == type): 1 if it does, 0 if
   it names another, -1 if the program has no such typedef.  */
static int typedef_names(struct sg_target *t, const char *name, const char *qname)
{
	Dwarf_Die td, st;
	struct sg_error *err = sg_lookup_type(t, name, &td);
	if (err) {
		sg_error_destroy(err);
		return -1;
	}
	if (dwarf_tag(&td) != DW_TAG_typedef)
		return -1;
	sg_type_strip(&td, &st);
	char *n = sg_type_qualified_name(&st);
	bool same = n && !strcmp(n, qname);
	free(n);
	return same;
}

/* Without the typedef in the DWARF (GCC leaves unused ones out: the
   copy-on-write std::string of a program built with
   _GLIBCXX_USE_CXX11_ABI=0 often has none), a string with its default
   arguments is still named by it, as GCC's printer tests expect: whether
   QNAME is std::TEMPL<CH, std::char_traits<CH>, std::allocator<CH> >, CH
   the character type of the typedef prefix PREFIX.  */
static bool default_string(const char *qname, const char *templ, const char *prefix)
{
	static const char *const chars[][2] = {
		{ "", "char" }, { "w", "wchar_t" }, { "u8", "char8_t" }, { "u16", "char16_t" },
		{ "u32", "char32_t" },
	};
	const char *ch = NULL;
	for (size_t i = 0; i < sizeof(chars) / sizeof(chars[0]); i++)
		if (!strcmp(prefix, chars[i][0]))
			ch = chars[i][1];
	if (!ch)
		return false;
	char *want;
	if (asprintf(&want, "std::%s<%s, std::char_traits<%s>, std::allocator<%s> >", templ, ch, ch, ch) < 0)
		return false;
	bool same = !strcmp(want, qname);
	free(want);
	return same;
}

static char *typedef_name(struct sg_target *t, const char *qname)
{
	if (strncmp(qname, "std::", 5))
		return NULL;
	const char *tail = qname + 5;
	for (size_t i = 0; i < sizeof(typedef_printers) / sizeof(typedef_printers[0]); i++) {
		const struct typedef_printer *tp = &typedef_printers[i];
		size_t n = strlen(tp->match);
		if (strncmp(tail, tp->match, n) || tail[n] != '<')
			continue;
		bool is_string = n >= 12 && !strcmp(tp->match + n - 12, "basic_string");
		for (size_t c = 0; tp->chars[c]; c++) {
			/* NAME has one "%s", for the character prefix.  */
			size_t at = strcspn(tp->name, "%");
			char *full;
			if (asprintf(&full, "std::%.*s%s%s", (int)at, tp->name, tp->chars[c],
				     tp->name[at] ? tp->name + at + 2 : "") < 0)
				return NULL;
			int named = typedef_names(t, full, qname);
			if (named == 1 ||
			    (named < 0 && is_string && default_string(qname, tp->match, tp->chars[c]))) {
				strip_inline(full);
				return full;
			}
			free(full);
		}
	}
	return NULL;
}

/* A recognised class's name, or NULL.  */
static char *recognized_class(struct sg_target *t, const Dwarf_Die *type)
{
	int tag = dwarf_tag((Dwarf_Die *)type);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
		return NULL;
	char *qname = sg_type_qualified_name(type);
	char *s = qname ? recognize(t, type, qname) : NULL;
	if (!s && qname)
		s = typedef_name(t, qname);
	free(qname);
	return s;
}

static char *subtype_name(struct sg_target *t, const Dwarf_Die *type)
{
	Dwarf_Die d = *type, target;
	int tag = dwarf_tag(&d);
	const char *suffix = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&"
			     : tag == DW_TAG_rvalue_reference_type ? "&&" : NULL;
	if (suffix || tag == DW_TAG_array_type) {
		char *in = die_type(&d, &target) ? subtype_name(t, &target) : strdup("void"), *s = NULL;
		char dim[32] = "[]";
		Dwarf_Die sub;
		Dwarf_Word n;
		if (tag == DW_TAG_array_type && dwarf_child(&d, &sub) == 0 && array_count(&sub, &n))
			snprintf(dim, sizeof(dim), "[%" PRIu64 "]", (uint64_t)n);
		if (!in || asprintf(&s, "%s%s", in, suffix ? suffix : dim) < 0)
			s = NULL;
		free(in);
		return s;
	}
	char *s = recognized_class(t, &d);
	return s ? s : lsx_raw_type_name(&d);
}

char *lsx_type_name(struct sg_target *t, const Dwarf_Die *type)
{
	char *s = recognized_class(t, type);
	return s ? s : lsx_raw_type_name(type);
}

static struct sg_error *type_printer_name(struct sg_session *session SG_UNUSED,
					  struct sg_target *t, const Dwarf_Die *type, char **ret,
					  void *arg SG_UNUSED)
{
	char *s = recognized_class(t, type);
	if (!s)
		return &sg_not_found;
	*ret = s;
	return NULL;
}

static const struct sg_type_printer_ops type_printer_ops = {
	.name = type_printer_name,
};

struct sg_error *lsx_register_type_printer(struct sg_session *session)
{
	return sg_type_printer_register(session, "libstdc++", &type_printer_ops, NULL);
}
