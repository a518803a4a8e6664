/* Types as gdb 13 writes them: C declarations ("char *(*)[4]"), ptype's
   bodies including C++ classes (bases, access labels, static members,
   methods, typedefs, template arguments), ptype/o's offsets, and the
   small DWARF type helpers the value printer shares.  gdb spells types in
   its current language: C where an attached process usually stops (a
   system call in libc), C++ in a C++ frame; the *_lang variants take it.

   The printer follows gdb's c_print_type: SHOW > 0 spells a struct's body
   out, SHOW 0 spells out only unnamed ones, SHOW < 0 names them.  Inside a
   class body, types that equal a template parameter or a typedef of the
   class read as that name ("T data[4]"), as gdb's local typedef table does.
   doc/ptype.md lists the rules and the differences from gdb.  */
#include <config.h>
#include "eval.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- DWARF helpers ---- */

bool sg_die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

void strip(Dwarf_Die *in, Dwarf_Die *out)
{
	sg_type_strip(in, out);
}

uint64_t type_size(Dwarf_Die *type)
{
	return sg_type_size(type);
}

bool sg_die_is_cplus(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	int lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

static bool has_attr(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	return dwarf_attr(die, name, &a) != NULL;
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* ---- Names ---- */

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether S starts with one of the words base type names are made of.  */
static size_t base_word(const char *s)
{
	static const char *const words[] = { "long", "short", "int", "unsigned", "signed", "char" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(s, words[i], n) && !ident_char(s[n]))
			return n;
	}
	return 0;
}

/* NAME as gdb's canonical form spells template arguments: GCC writes
   "Box<long int>", gdb "Box<long>".  New string.  */
static char *canonical_name(const char *name)
{
	struct sg_buf_lite b = { 0 };
	const char *s = name;
	while (*s) {
		if (*s >= '0' && *s <= '9' && s > name && (s[-1] == '<' || s[-1] == ' ' || s[-1] == '-')) {
			/* clang's "3UL": gdb writes integer suffixes in lower case. */
			const char *e = s;
			while (*e >= '0' && *e <= '9')
				e++;
			size_t k = strspn(e, "ULul");
			if (k && (e[k] == ',' || e[k] == '>')) {
				while (s < e + k)
					sg_lite_putc(&b, (char)(*s >= 'A' && *s <= 'Z' ? *s++ - 'A' + 'a' : *s++));
				continue;
			}
		}
		size_t n = (s == name || !ident_char(s[-1])) ? base_word(s) : 0;
		if (!n) {
			sg_lite_putc(&b, *s++);
			continue;
		}
		/* A run of base type words: "long unsigned int".  */
		const char *end = s + n;
		while (end[0] == ' ' && (n = base_word(end + 1)))
			end += 1 + n;
		char run[64];
		snprintf(run, sizeof(run), "%.*s", (int)(end - s), s);
		sg_lite_puts(&b, sg_type_base_name(run));
		s = end;
	}
	return b.s ? b.s : strdup("");
}

/* DIE's name with its C++ scopes ("ns::Derived"), into a new string; the
   plain name in C.  NULL for an unnamed DIE.  */
char *qualified_name(Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	if (!name)
		return NULL;
	if (!sg_die_is_cplus(die))
		return strdup(name);
	char *q = sg_type_qualified_name(die);
	if (!q || !strchr(q, '<'))
		return q;
	char *c = canonical_name(q);
	free(q);
	return c;
}

/* Qualified names, found once per printing: a class body asks for the
   same few names hundreds of times, and each costs a walk of the CU.  */
struct name_cache {
	size_t cap, n;
	struct cached_name {
		Dwarf *dbg;
		Dwarf_Off off;
		char *name;
	} *v;
};

static void name_cache_free(struct name_cache *nc)
{
	for (size_t i = 0; i < nc->cap; i++)
		free(nc->v[i].name);
	free(nc->v);
}

/* DIE's scoped name as DWARF spells it ("std::vector<long int>"), owned
   by NC; NULL when unnamed.  */
static const char *raw_qname(struct name_cache *nc, Dwarf_Die *die)
{
	if (!dwarf_diename(die))
		return NULL;
	Dwarf *dbg = dwarf_cu_getdwarf(die->cu);
	Dwarf_Off off = dwarf_dieoffset(die);
	if (nc->n * 2 >= nc->cap) {
		struct name_cache big = { .cap = nc->cap ? 2 * nc->cap : 64 };
		big.v = calloc(big.cap, sizeof(*big.v));
		if (!big.v)
			return NULL;
		for (size_t i = 0; i < nc->cap; i++) {
			if (!nc->v[i].dbg)
				continue;
			size_t j = nc->v[i].off % big.cap;
			while (big.v[j].dbg)
				j = (j + 1) % big.cap;
			big.v[j] = nc->v[i];
			big.n++;
		}
		free(nc->v);
		*nc = big;
	}
	size_t j = off % nc->cap;
	for (; nc->v[j].dbg; j = (j + 1) % nc->cap)
		if (nc->v[j].dbg == dbg && nc->v[j].off == off)
			return nc->v[j].name;
	nc->v[j].dbg = dbg;
	nc->v[j].off = off;
	nc->v[j].name = sg_die_is_cplus(die) ? sg_type_qualified_name(die) : strdup(dwarf_diename(die));
	nc->n++;
	return nc->v[j].name;
}

/* DIE's name as gdb prints it (canonical template arguments), new
   string.  */
static char *cached_qualified_name(struct name_cache *nc, Dwarf_Die *die)
{
	const char *raw = raw_qname(nc, die);
	if (!raw)
		return NULL;
	return strchr(raw, '<') ? canonical_name(raw) : strdup(raw);
}

static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type: return "struct ";
	case DW_TAG_class_type: return "class ";
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	default: return "";
	}
}

/* ---- Local names: a class's template parameters and typedefs ----

   gdb prints a type inside a class body by the name the class gives it,
   found in a libiberty hash table of the class's template parameters, then
   its typedefs and its bases' typedefs (an enclosing class's table is
   copied first).  The table hashes a type's own name ("<unnamed type>"
   for a pointer) and compares with types_equal, which sees through
   typedefs; so whether "int" finds "typedef int value_type" depends on
   where the probe sequence runs, and gdb 13.1 prints an int member as
   "int" but an "Inner *" member as "ptr" when the class has "typedef
   Inner *ptr".  This emulates that table: same hash function, sizes,
   probing and insertion order.  */

struct local_entry {
	const char *name;	/* NULL: an empty slot */
	Dwarf_Die type;		/* the parameter's type, or the typedef */
};

struct local_names {
	size_t size, n;
	struct local_entry *slot;
	struct name_cache *nc;
};

static bool same_die(Dwarf_Die *a, Dwarf_Die *b)
{
	return dwarf_dieoffset(a) == dwarf_dieoffset(b) &&
	       dwarf_cu_getdwarf(a->cu) == dwarf_cu_getdwarf(b->cu);
}

static void strip_cv(Dwarf_Die *type)
{
	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(type);
		if ((tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		     tag != DW_TAG_restrict_type) || !sg_die_type(type, type))
			return;
	}
}

/* The name gdb gives TYPE (qualifiers share their type's name), as DWARF
   spells it; NULL when unnamed.  */
static const char *gdb_type_name(struct name_cache *nc, Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	strip_cv(&t);
	int tag = dwarf_tag(&t);
	if (!dwarf_diename(&t) || (tag != DW_TAG_typedef && tag != DW_TAG_base_type &&
				   tag != DW_TAG_enumeration_type && !is_aggregate_tag(tag)))
		return NULL;
	if (tag == DW_TAG_base_type)
		return dwarf_diename(&t);
	return raw_qname(nc, &t);
}

/* libiberty's htab_hash_string.  */
static uint32_t hash_string(const char *s)
{
	uint32_t r = 0;
	for (; *s; s++)
		r = r * 67 + (unsigned char)*s - 113;
	return r;
}

/* gdb's code classes, enough for types_equal.  */
static int type_code(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);
	if (tag == DW_TAG_class_type)
		return DW_TAG_structure_type;
	if (tag == DW_TAG_base_type) {
		Dwarf_Attribute a;
		Dwarf_Word enc = 0;
		if (dwarf_attr(t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		return enc == DW_ATE_float ? -1 : enc == DW_ATE_boolean ? -2 : -3;
	}
	return tag;
}

static void resolve(Dwarf_Die *t)
{
	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(t);
		if ((tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		     tag != DW_TAG_restrict_type) || !sg_die_type(t, t))
			return;
	}
}

static bool names_equal(struct name_cache *nc, Dwarf_Die *a, const char *b_name)
{
	const char *an = gdb_type_name(nc, a);
	return an && b_name && !strcmp(an, b_name);
}

/* gdb's types_equal (gdbtypes.c) of A and B, or of A and the type a name
   component TEXT stands for (a base type, else a class).  */
static bool types_equal(struct name_cache *nc, Dwarf_Die *a_in, Dwarf_Die *b_in, const char *text,
			int depth)
{
	if (depth > MAX_TYPE_DEPTH)
		return false;
	if (b_in && same_die(a_in, b_in))
		return true;
	Dwarf_Die a = *a_in, b;
	resolve(&a);
	int ac = type_code(&a);
	if (text) {
		bool base = base_word(text) > 0;
		if (base ? ac >= 0 : !is_aggregate_tag(ac) && ac != DW_TAG_enumeration_type)
			return false;
		return names_equal(nc, &a, base ? sg_type_base_name(text) : text);
	}
	b = *b_in;
	resolve(&b);
	if (ac != type_code(&b))
		return false;
	Dwarf_Die at, bt;
	if (ac == DW_TAG_pointer_type || ac == DW_TAG_reference_type) {
		bool ha = sg_die_type(&a, &at), hb = sg_die_type(&b, &bt);
		if (!ha || !hb)
			return ha == hb;
		return types_equal(nc, &at, &bt, NULL, depth + 1);
	}
	return names_equal(nc, &a, gdb_type_name(nc, &b)) || same_die(&a, &b);
}

static const size_t primes[] = { 7, 13, 31, 61, 127, 251, 509, 1021, 2039, 4093, 8191, 16381, 32749 };

static size_t higher_prime(size_t n)
{
	for (size_t i = 0; i < sizeof(primes) / sizeof(primes[0]); i++)
		if (primes[i] >= n)
			return primes[i];
	return primes[sizeof(primes) / sizeof(primes[0]) - 1];
}

static bool local_init(struct local_names *ln, struct name_cache *nc)
{
	ln->nc = nc;
	ln->size = higher_prime(10);
	ln->n = 0;
	ln->slot = calloc(ln->size, sizeof(*ln->slot));
	return ln->slot != NULL;
}

static void local_free(struct local_names *ln)
{
	free(ln->slot);
	ln->slot = NULL;
	ln->size = ln->n = 0;
}

static uint32_t entry_hash(struct name_cache *nc, Dwarf_Die *type, const char *text)
{
	const char *name = type ? gdb_type_name(nc, type) : NULL;
	return hash_string(name ? name : text ? text : "<unnamed type>");
}

/* The slot of TYPE (or TEXT): its entry, or the empty slot ending its
   probe sequence; NULL when the table is full.  */
static struct local_entry *probe(const struct local_names *ln, Dwarf_Die *type, const char *text,
				 bool compare)
{
	if (!ln->size)
		return NULL;
	uint32_t h = entry_hash(ln->nc, type, text);
	size_t idx = h % ln->size, step = 1 + h % (ln->size - 2);
	for (size_t i = 0; i < ln->size; i++) {
		struct local_entry *e = &ln->slot[idx];
		if (!e->name || (compare && types_equal(ln->nc, &e->type, type, text, 0)))
			return e;
		idx = (idx + step) % ln->size;
	}
	return NULL;
}

static void local_add(struct local_names *ln, const char *name, Dwarf_Die *type)
{
	if (!name || !ln->slot)
		return;
	if (ln->size * 3 <= ln->n * 4) {
		/* htab_expand: rehash in slot order.  */
		size_t nsize = ln->n * 2 > ln->size ? higher_prime(ln->n * 2) : ln->size;
		struct local_names big = { .size = nsize, .n = ln->n, .nc = ln->nc };
		big.slot = calloc(nsize, sizeof(*big.slot));
		if (!big.slot)
			return;
		for (size_t i = 0; i < ln->size; i++) {
			struct local_entry *e = ln->slot[i].name ? probe(&big, &ln->slot[i].type, NULL, false) : NULL;
			if (e)
				*e = ln->slot[i];
		}
		free(ln->slot);
		*ln = big;
	}
	struct local_entry *e = probe(ln, type, NULL, true);
	if (e && !e->name) {
		e->name = name;
		e->type = *type;
		ln->n++;
	}
}

/* A new table with ORIG's entries, as gdb copies one.  */
static bool local_copy(struct local_names *ln, const struct local_names *orig, struct name_cache *nc)
{
	if (!local_init(ln, nc))
		return false;
	for (size_t i = 0; orig && i < orig->size; i++)
		if (orig->slot[i].name)
			local_add(ln, orig->slot[i].name, &orig->slot[i].type);
	return true;
}

/* The local name of TYPE, or of the name component TEXT.  */
static const char *local_lookup(const struct local_names *ln, Dwarf_Die *type, const char *text)
{
	struct local_entry *e = ln ? probe(ln, type, text, true) : NULL;
	return e ? e->name : NULL;
}

/* ---- Declarations ---- */

/* One printing: where the text goes, the names local to the class being
   printed, and the indentation of the body being printed.  */
struct tprint {
	struct sg_target *t;
	struct sg_buf_lite *b;
	const struct local_names *names;
	int level;
	struct offsets *po;	/* ptype/o's state, NULL otherwise */
	struct name_cache *nc;
	bool cplus;		/* gdb's current language is C++, not C */
	struct printed *pr;	/* the type printers' names, NULL: raw */
};

/* ---- Type printers ----

   whatis and ptype name types as the registered type printers do
   ("std::string", "std::vector<int>"), print's value types do not: gdb
   applies its printers only where a command sets up its global typedef
   table.  A printer names a type itself, and each template argument of a
   name written out ("holder<std::string>"): gdb's
   print_name_maybe_canonical looks each argument up by its spelling and
   asks the printers about the type found.  The arguments looked up are
   the templated ones ("std::__cxx11::basic_string<char, ...>"), the only
   ones a printer has been seen to rename, each once per printing.  */

static struct sg_session *printers_session;
static struct sg_target *printers_target;
static bool printers_raw;

void sg_type_printers_begin(struct sg_session *s, struct sg_target *t, bool raw)
{
	printers_session = raw ? NULL : s;
	printers_target = raw ? NULL : t;
	printers_raw = raw;
}

void sg_type_printers_end(void)
{
	printers_session = NULL;
	printers_target = NULL;
	printers_raw = false;
}

/* The answers of one printing, by DIE ("\1" dbg offset) or spelling.  */
struct printed {
	struct sg_session *s;
	struct sg_target *t;
	size_t n, cap;
	struct printed_entry {
		char *key;
		char *name;	/* NULL: no printer renames it */
	} *v;
};

static struct printed *printed_new(void)
{
	if (!printers_session || !printers_target)
		return NULL;
	struct printed *pr = calloc(1, sizeof(*pr));
	if (pr) {
		pr->s = printers_session;
		pr->t = printers_target;
	}
	return pr;
}

static void printed_free(struct printed *pr)
{
	for (size_t i = 0; pr && i < pr->n; i++) {
		free(pr->v[i].key);
		free(pr->v[i].name);
	}
	if (pr)
		free(pr->v);
	free(pr);
}

/* The cached answer for KEY: its entry, or NULL when not asked yet.  */
static struct printed_entry *printed_find(struct printed *pr, const char *key)
{
	for (size_t i = 0; i < pr->n; i++)
		if (!strcmp(pr->v[i].key, key))
			return &pr->v[i];
	return NULL;
}

/* Remember NAME (taken) for KEY; returns NAME.  */
static const char *printed_add(struct printed *pr, const char *key, char *name)
{
	if (pr->n == pr->cap) {
		size_t nc = pr->cap ? 2 * pr->cap : 16;
		struct printed_entry *nv = realloc(pr->v, nc * sizeof(*nv));
		if (!nv) {
			free(name);
			return NULL;
		}
		pr->v = nv;
		pr->cap = nc;
	}
	char *k = strdup(key);
	if (!k) {
		free(name);
		return NULL;
	}
	pr->v[pr->n].key = k;
	pr->v[pr->n++].name = name;
	return name;
}

/* The printers' name for TYPE, or NULL; owned by P's cache.  */
static const char *printed_type(struct tprint *p, Dwarf_Die *type)
{
	int tag = dwarf_tag(type);
	if (!p->pr || (!is_aggregate_tag(tag) && tag != DW_TAG_enumeration_type && tag != DW_TAG_typedef))
		return NULL;
	char key[64];
	snprintf(key, sizeof(key), "\1%p:%" PRIx64, (void *)dwarf_cu_getdwarf(type->cu),
		 (uint64_t)dwarf_dieoffset(type));
	struct printed_entry *e = printed_find(p->pr, key);
	if (e)
		return e->name;
	char *name = NULL;
	struct sg_error *err = sg_type_printer_name(p->pr->s, p->pr->t, type, &name);
	if (err) {
		sg_error_destroy(err);
		name = NULL;
	}
	return printed_add(p->pr, key, name);
}

/* The printers' name for the type spelled TEXT (a template argument), or
   NULL.  */
static const char *printed_spelling(struct tprint *p, const char *text)
{
	if (!p->pr || !strchr(text, '<'))
		return NULL;
	struct printed_entry *e = printed_find(p->pr, text);
	if (e)
		return e->name;
	Dwarf_Die type;
	char *name = NULL;
	struct sg_error *err = sg_lookup_type(p->pr->t, text, &type);
	/* gdb's lookup by name does not find a class the program only
	   declares (std::basic_ios<char>, an extern template): holder<...>
	   keeps its spelling there.  */
	if (!err && is_aggregate_tag(dwarf_tag(&type)) && has_attr(&type, DW_AT_declaration))
		sg_type_complete(p->pr->t, &type, &type);
	if (!err && !(is_aggregate_tag(dwarf_tag(&type)) && has_attr(&type, DW_AT_declaration))) {
		const char *found = printed_type(p, &type);
		name = found ? strdup(found) : NULL;
	}
	sg_error_destroy(err);
	return printed_add(p->pr, text, name);
}

static void decl(struct tprint *p, Dwarf_Die *type, const char *inner, int show, int depth);
static void aggregate(struct tprint *p, Dwarf_Die *type, int show, int depth);
static void enumeration(struct tprint *p, Dwarf_Die *type, int show);

static void indent(struct tprint *p, int n)
{
	for (int i = 0; i < n; i++)
		sg_lite_putc(p->b, ' ');
}

/* gdb's c_print_type: TYPE around the declarator INNER; a type the class
   names locally reads as that name.  */
static void print_type(struct tprint *p, Dwarf_Die *type, const char *inner, int show, int depth)
{
	if (p->names && type) {
		const char *local = local_lookup(p->names, type, NULL);
		if (local) {
			/* The qualifiers stay: "const T".  */
			Dwarf_Die cur = *type, next;
			bool c_q = false, v_q = false;
			for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
				int tag = dwarf_tag(&cur);
				c_q |= tag == DW_TAG_const_type;
				v_q |= tag == DW_TAG_volatile_type;
				if ((tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
				     tag != DW_TAG_typedef) || !sg_die_type(&cur, &next))
					break;
				cur = next;
			}
			sg_lite_puts(p->b, c_q ? "const " : "");
			sg_lite_puts(p->b, v_q ? "volatile " : "");
			sg_lite_puts(p->b, local);
			if (*inner) {
				sg_lite_putc(p->b, ' ');
				sg_lite_puts(p->b, inner);
			}
			return;
		}
	}
	decl(p, type, inner, show, depth);
}

/* The parameter list of a function type or a method: "(int, char)".  A
   method pointer's artificial "this" shows, as the constant pointer gdb
   makes it.  */
static void params(struct tprint *p, Dwarf_Die *fn, int depth)
{
	sg_lite_putc(p->b, '(');
	Dwarf_Die child;
	bool any = false, varargs = false;
	bool prototyped = has_attr(fn, DW_AT_prototyped) || sg_die_is_cplus(fn);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_formal_parameter) {
				if (any)
					sg_lite_puts(p->b, ", ");
				Dwarf_Die pt;
				bool this_ptr = !any && has_attr(&child, DW_AT_artificial);
				if (!sg_die_type(&child, &pt))
					sg_lite_puts(p->b, "void");
				else if (this_ptr && dwarf_tag(&pt) == DW_TAG_pointer_type)
					print_type(p, &pt, " const", -1, depth + 1);
				else
					print_type(p, &pt, "", -1, depth + 1);
				any = true;
			} else if (tag == DW_TAG_unspecified_parameters) {
				varargs = true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (any && varargs)
		sg_lite_puts(p->b, ", ...");
	else if (!any && prototyped)
		sg_lite_puts(p->b, "void");
	sg_lite_putc(p->b, ')');
}

/* The length of the name at S: a base type's words ("unsigned long"),
   or an identifier with its scopes and template arguments.  */
static size_t name_token(const char *s)
{
	size_t n = base_word(s);
	if (n) {
		size_t more;
		while (s[n] == ' ' && (more = base_word(s + n + 1)))
			n += 1 + more;
		return n;
	}
	int depth = 0;
	for (n = 0; s[n]; n++) {
		char c = s[n];
		if (c == '<')
			depth++;
		else if (c == '>' && depth > 0)
			depth--;
		else if (depth == 0 && !ident_char(c) && !(c == ':' && s[n + 1] == ':') &&
			 !(c == ':' && n > 0 && s[n - 1] == ':'))
			break;
	}
	return n;
}

/* NAME with the class's local names put in its template arguments, as
   gdb's canonical form does: "std::vector<_Tp, _Alloc>".  */
static void put_local_name(struct tprint *p, const char *name, int depth)
{
	struct sg_buf_lite *b = p->b;
	const char *s = name;
	while (*s) {
		if (!ident_char(*s) || (*s >= '0' && *s <= '9')) {
			if (*s == '>') {
				/* "<_Tp, _Alloc>" but "<A<int> >".  */
				while (b->len && b->s[b->len - 1] == ' ')
					b->s[--b->len] = '\0';
				if (b->len && b->s[b->len - 1] == '>')
					sg_lite_putc(b, ' ');
				sg_lite_putc(b, '>');
				s++;
				continue;
			}
			sg_lite_putc(b, *s++);
			continue;
		}
		size_t n = name_token(s);
		char *tok = strndup(s, n);
		const char *local = depth ? local_lookup(p->names, NULL, tok) : NULL;
		if (!local && depth)
			local = printed_spelling(p, tok);
		if (local) {
			sg_lite_puts(b, local);
		} else {
			/* Its scopes as they are, its template arguments renamed.  */
			char *lt = strchr(tok, '<');
			if (lt && depth < MAX_TYPE_DEPTH) {
				for (char *c = tok; c <= lt; c++)
					sg_lite_putc(b, *c);
				put_local_name(p, lt + 1, depth + 1);
			} else {
				sg_lite_puts(b, tok);
			}
		}
		free(tok);
		s += n;
	}
}

/* TYPE's qualified name, its template arguments renamed by the local
   names, in gdb's canonical spelling.  */
static void put_name(struct tprint *p, Dwarf_Die *type)
{
	if ((!p->names && !p->pr) || !sg_die_is_cplus(type)) {
		char *q = cached_qualified_name(p->nc, type);
		sg_lite_puts(p->b, q ? q : "(null)");
		free(q);
		return;
	}
	const char *raw = raw_qname(p->nc, type);
	struct sg_buf_lite tmp = { 0 };
	struct tprint tp = *p;
	tp.b = &tmp;
	put_local_name(&tp, raw ? raw : "(null)", 0);
	char *c = canonical_name(tmp.s ? tmp.s : "");
	sg_lite_puts(p->b, c);
	free(c);
	free(tmp.s);
}

/* A named type as gdb names it at SHOW <= 0: the keyword in C, the
   qualified name, or the class's local name for it.  */
static void type_name(struct tprint *p, Dwarf_Die *type)
{
	int tag = dwarf_tag(type);
	/* C names "struct x"; C++ just "x".  */
	if (!p->cplus)
		sg_lite_puts(p->b, tag_keyword(tag));
	const char *local = local_lookup(p->names, type, NULL);
	if (local) {
		sg_lite_puts(p->b, local);
		return;
	}
	if (tag == DW_TAG_base_type) {
		sg_lite_puts(p->b, sg_type_base_name(dwarf_diename(type)));
		return;
	}
	put_name(p, type);
}

/* The C declaration of INNER (a declarator, maybe empty) with TYPE (NULL
   for void): "int *p", "int a[3]", "int (*fp)(int)", "const char *".  */
/* Whether the elements of ARRAY (through nested arrays) carry every one
   of the qualifiers C_Q and V_Q already.  */
static bool element_has_quals(Dwarf_Die *array, bool c_q, bool v_q)
{
	Dwarf_Die t = *array;
	for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(&t) == DW_TAG_array_type; i++)
		if (!sg_die_type(&t, &t))
			return false;
	bool c = false, v = false;
	for (int i = 0; i < 4; i++) {
		int tag = dwarf_tag(&t);
		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			break;
		c |= tag == DW_TAG_const_type;
		v |= tag == DW_TAG_volatile_type;
		if (!sg_die_type(&t, &t))
			break;
	}
	return (c || !c_q) && (v || !v_q);
}

static void decl(struct tprint *p, Dwarf_Die *type, const char *inner, int show, int depth)
{
	struct sg_buf_lite *b = p->b;
	if (depth > MAX_TYPE_DEPTH) {
		sg_lite_puts(b, "...");
		return;
	}
	int tag = type ? dwarf_tag(type) : DW_TAG_unspecified_type;
	Dwarf_Die target, *tp = NULL;
	if (type && sg_die_type(type, &target))
		tp = &target;
	struct sg_buf_lite in = { 0 };
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *mark = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&" : "&&";
		int ttag = tp ? dwarf_tag(tp) : 0;
		bool wrap = ttag == DW_TAG_array_type || ttag == DW_TAG_subroutine_type ||
			    ttag == DW_TAG_subprogram;
		if (wrap)
			sg_lite_putc(&in, '(');
		sg_lite_puts(&in, mark);
		sg_lite_puts(&in, inner);
		if (wrap)
			sg_lite_putc(&in, ')');
		decl(p, tp, in.s ? in.s : "", show, depth + 1);
		break;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		/* gdb writes "const volatile restrict" whatever order DWARF
		   nests them in.  */
		bool c_q = tag == DW_TAG_const_type, v_q = tag == DW_TAG_volatile_type;
		bool r_q = tag == DW_TAG_restrict_type;
		for (int i = 0; tp && i < 4; i++) {
			int t2 = dwarf_tag(tp);
			if (t2 != DW_TAG_const_type && t2 != DW_TAG_volatile_type &&
			    t2 != DW_TAG_restrict_type)
				break;
			c_q |= t2 == DW_TAG_const_type;
			v_q |= t2 == DW_TAG_volatile_type;
			r_q |= t2 == DW_TAG_restrict_type;
			if (!sg_die_type(tp, tp))
				tp = NULL;
		}
		char qbuf[32];
		snprintf(qbuf, sizeof(qbuf), "%s%s%s%s%s", c_q ? "const" : "",
			 c_q && (v_q || r_q) ? " " : "", v_q ? "volatile" : "",
			 v_q && r_q ? " " : "", !r_q ? "" : p->cplus ? "__restrict__" : "restrict");
		const char *q = qbuf;
		int ttag = tp ? dwarf_tag(tp) : 0;
		if (ttag == DW_TAG_pointer_type) {
			/* "char * const p": the qualifier follows the star.  */
			sg_lite_puts(&in, " ");
			sg_lite_puts(&in, q);
			if (*inner) {
				sg_lite_putc(&in, ' ');
				sg_lite_puts(&in, inner);
			}
			decl(p, tp, in.s ? in.s : "", show, depth + 1);
		} else {
			/* gdb moves an array's qualifiers to its elements: gcc's
			   const (array of const int) is "const int [7]", once. */
			if (!(ttag == DW_TAG_array_type && element_has_quals(tp, c_q, v_q))) {
				sg_lite_puts(b, q);
				sg_lite_putc(b, ' ');
			}
			decl(p, tp, inner, show, depth + 1);
		}
		break;
	}
	case DW_TAG_array_type: {
		sg_lite_puts(&in, inner);
		Dwarf_Die sub;
		if (dwarf_child(type, &sub) == 0) {
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				Dwarf_Attribute a;
				Dwarf_Word n = 0;
				char dim[32] = "";
				if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
					snprintf(dim, sizeof(dim), "%" PRIu64, (uint64_t)n);
				else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
					 dwarf_formudata(&a, &n) == 0)
					snprintf(dim, sizeof(dim), "%" PRIu64, (uint64_t)n + 1);
				sg_lite_putc(&in, '[');
				sg_lite_puts(&in, dim);
				sg_lite_putc(&in, ']');
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		/* An abstract array type reads "int [3]", as in gdb.  */
		decl(p, tp, in.s ? in.s : "", show, depth + 1);
		break;
	}
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:	/* a function itself: "int (int, char **)" */ {
		sg_lite_puts(&in, inner);
		struct sg_buf_lite pb = { 0 };
		struct tprint pp = *p;
		pp.b = &pb;
		params(&pp, type, depth);
		sg_lite_puts(&in, pb.s ? pb.s : "()");
		free(pb.s);
		decl(p, tp, in.s ? in.s : "", show, depth + 1);
		break;
	}
	case DW_TAG_ptr_to_member_type: {
		/* "int ns::C::*mp", "int (ns::C::*mfp)(const class ns::C * const)".  */
		Dwarf_Attribute a;
		Dwarf_Die cls;
		bool method = tp && dwarf_tag(tp) == DW_TAG_subroutine_type;
		if (method)
			sg_lite_putc(&in, '(');
		if (dwarf_attr(type, DW_AT_containing_type, &a) && dwarf_formref_die(&a, &cls)) {
			char *q = cached_qualified_name(p->nc, &cls);
			sg_lite_puts(&in, q ? q : "{...}");
			free(q);
		}
		sg_lite_puts(&in, "::*");
		sg_lite_puts(&in, inner);
		if (method)
			sg_lite_putc(&in, ')');
		decl(p, tp, in.s ? in.s : "", show, depth + 1);
		break;
	}
	case DW_TAG_typedef:
		if (show > 0 && tp) {
			/* ptype sees through typedefs.  */
			decl(p, tp, inner, show, depth + 1);
			break;
		}
		/* fall through */
	default:
		if (!type) {
			sg_lite_puts(b, "void");
		} else if (printed_type(p, type)) {
			/* No keyword, even in C, and no body: gdb's find_typedef
			   answers before the type is printed.  */
			sg_lite_puts(b, printed_type(p, type));
		} else if ((show > 0 || !dwarf_diename(type)) && is_aggregate_tag(tag)) {
			aggregate(p, type, show, depth);
		} else if (tag == DW_TAG_enumeration_type && (show > 0 || !dwarf_diename(type))) {
			enumeration(p, type, show);
		} else if (!dwarf_diename(type)) {
			sg_lite_puts(b, tag_keyword(tag));
			sg_lite_puts(b, "{...}");
		} else {
			type_name(p, type);
		}
		if (*inner) {
			sg_lite_putc(b, ' ');
			sg_lite_puts(b, inner);
		}
	}
	free(in.s);
}

char *type_string(Dwarf_Die *type, const char *inner)
{
	return sg_type_string_lang(type, inner, false);
}

char *sg_type_string_lang(Dwarf_Die *type, const char *inner, bool cplus)
{
	struct sg_buf_lite b = { 0 };
	struct name_cache nc = { 0 };
	struct tprint p = { .b = &b, .nc = &nc, .cplus = cplus, .pr = printed_new() };
	decl(&p, type, inner, -1, 0);
	name_cache_free(&nc);
	printed_free(p.pr);
	return b.s ? b.s : strdup("");
}

/* ---- Enumerations ---- */

static void enumeration(struct tprint *p, Dwarf_Die *type, int show)
{
	Dwarf_Die full = *type;
	if (p->t)
		sg_type_complete(p->t, type, &full);
	struct sg_buf_lite *b = p->b;
	sg_lite_puts(b, "enum ");
	if (has_attr(&full, DW_AT_enum_class))
		sg_lite_puts(b, "class ");
	char *name = cached_qualified_name(p->nc, &full);
	if (name) {
		sg_lite_puts(b, name);
		if (show > 0)
			sg_lite_putc(b, ' ');
		free(name);
	}
	if (show < 0) {
		if (!dwarf_diename(&full))
			sg_lite_puts(b, "{...}");
		return;
	}
	Dwarf_Die under;
	if (p->cplus && sg_die_type(&full, &under)) {
		/* In C++ gdb shows the underlying type: "enum E : short {".  */
		strip(&under, &under);
		if (dwarf_diename(&under)) {
			sg_lite_puts(b, ": ");
			sg_lite_puts(b, dwarf_tag(&under) == DW_TAG_base_type ? sg_type_base_name(dwarf_diename(&under))
									  : dwarf_diename(&under));
			sg_lite_putc(b, ' ');
		}
	}
	/* C++ enumerators are named in the enum's scope ("ns::RED"), or in
	   the enum itself for an enum class ("ns::Level::Low").  */
	char *scope = NULL;
	const char *own = dwarf_diename(&full);
	if (own && sg_die_is_cplus(&full)) {
		scope = cached_qualified_name(p->nc, &full);
		size_t len = scope ? strlen(scope) : 0, own_len = strlen(own);
		if (has_attr(&full, DW_AT_enum_class)) {
			char *s2 = NULL;
			if (asprintf(&s2, "%s::", scope ? scope : "") < 0)
				s2 = NULL;
			free(scope);
			scope = s2;
		} else if (scope && len >= own_len) {
			scope[len - own_len] = '\0';
		}
	}
	sg_lite_putc(b, '{');
	int64_t next = 0;
	bool first = true;
	Dwarf_Die child;
	if (dwarf_child(&full, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator)
				continue;
			Dwarf_Attribute a;
			Dwarf_Sword v = 0;
			if (dwarf_attr(&child, DW_AT_const_value, &a))
				dwarf_formsdata(&a, &v);
			sg_lite_puts(b, first ? "" : ", ");
			sg_lite_puts(b, scope ? scope : "");
			const char *en = dwarf_diename(&child);
			sg_lite_puts(b, en ? en : "?");
			if (v != next) {
				char num[32];
				snprintf(num, sizeof(num), " = %" PRId64, (int64_t)v);
				sg_lite_puts(b, num);
			}
			next = v + 1;
			first = false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	sg_lite_putc(b, '}');
	free(scope);
}

/* ---- Structs, unions and classes ---- */

enum access { ACCESS_NONE, ACCESS_PUBLIC, ACCESS_PROTECTED, ACCESS_PRIVATE };

/* A member's access: DW_AT_accessibility, else DWARF 3's default for its
   class (private in a class, public in a struct or union).  gdb makes
   artificial data members (the vtable pointer) private.  */
static enum access member_access(Dwarf_Die *m, bool is_class)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	if (dwarf_attr(m, DW_AT_accessibility, &a) && dwarf_formudata(&a, &v) == 0) {
		if (v == DW_ACCESS_protected)
			return ACCESS_PROTECTED;
		return v == DW_ACCESS_private ? ACCESS_PRIVATE : ACCESS_PUBLIC;
	}
	int tag = dwarf_tag(m);
	if ((tag == DW_TAG_member || tag == DW_TAG_variable) && has_attr(m, DW_AT_artificial))
		return ACCESS_PRIVATE;
	return is_class ? ACCESS_PRIVATE : ACCESS_PUBLIC;
}

static bool is_field(Dwarf_Die *m)
{
	int tag = dwarf_tag(m);
	return tag == DW_TAG_member || tag == DW_TAG_variable;
}

static bool is_static_field(Dwarf_Die *m)
{
	return dwarf_tag(m) == DW_TAG_variable ||
	       (has_attr(m, DW_AT_external) && has_attr(m, DW_AT_declaration));
}

/* gdb prints access labels only when some member's access differs from
   the class's default ("for a class, if all members are private, there's
   no need for a private: label").  */
static bool need_access_labels(Dwarf_Die *cls, bool is_class)
{
	enum access dflt = is_class ? ACCESS_PRIVATE : ACCESS_PUBLIC;
	Dwarf_Die m;
	if (dwarf_child(cls, &m) != 0)
		return false;
	do {
		int tag = dwarf_tag(&m);
		if ((is_field(&m) || tag == DW_TAG_subprogram || tag == DW_TAG_typedef) &&
		    member_access(&m, is_class) != dflt)
			return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* ---- ptype/o: offsets, sizes and holes ----

   gdb's print_offset_data: each data member's offset and size in a
   column before it, holes and padding, the total size after each
   struct.  END_BITPOS is where the previous member ended; OFFSET_BITPOS
   is the offset of the struct being printed within the outermost one.
   gdb's quirk is kept: a nested struct starts with END_BITPOS at its own
   offset but compares it with its members' offsets within it.  */

#define OFFSET_COLUMN 27	/* the width of the column, without its two spaces */

#define MAX_PTYPE_TEXT (16u << 20)

struct offsets {
	uint64_t offset_bitpos, end_bitpos;
};

static void offset_printf(struct tprint *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void offset_printf(struct tprint *p, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sg_lite_puts(p->b, line);
}

static void maybe_hole(struct tprint *p, uint64_t bitpos, const char *what)
{
	struct offsets *po = p->po;
	if (po->end_bitpos == 0 || po->end_bitpos >= bitpos)
		return;
	uint64_t hole = bitpos - po->end_bitpos;
	if (hole % 8)
		offset_printf(p, "/* XXX %2u-bit %-7s    */\n", (unsigned)(hole % 8), what);
	if (hole / 8)
		offset_printf(p, "/* XXX %2u-byte %-7s   */\n", (unsigned)(hole / 8), what);
}

/* TYPE's size; GCC gives member pointers no DW_AT_byte_size: the
   Itanium ABI makes a data member pointer one word, a method pointer
   two.  */
static uint64_t member_type_size(Dwarf_Die *type)
{
	Dwarf_Die st, target;
	strip(type, &st);
	Dwarf_Attribute a;
	Dwarf_Word size;
	if (dwarf_tag(&st) != DW_TAG_ptr_to_member_type)
		return type_size(type);
	if (dwarf_attr(&st, DW_AT_byte_size, &a) && dwarf_formudata(&a, &size) == 0)
		return size;
	bool method = sg_die_type(&st, &target) && dwarf_tag(&target) == DW_TAG_subroutine_type;
	return method ? 16 : 8;
}

/* The bit offset of the data member M in its struct.  */
static uint64_t member_bitpos(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0, loc = 0;
	uint64_t pos, bits;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &v) == 0)
		return v;
	if (sg_member_bit_field(m, &pos, &bits))
		return pos;
	if (dwarf_attr(m, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &loc);
	return loc * 8;
}

/* The column before the data member M of CLS.  */
static void offset_column(struct tprint *p, Dwarf_Die *cls, Dwarf_Die *m)
{
	struct offsets *po = p->po;
	if (is_static_field(m)) {
		indent(p, OFFSET_COLUMN);
		return;
	}
	Dwarf_Die mt;
	uint64_t size = sg_die_type(m, &mt) ? member_type_size(&mt) : 0;
	if (dwarf_tag(cls) == DW_TAG_union_type) {
		offset_printf(p, "/*                %6" PRIu64 " */", size);
		return;
	}
	uint64_t bitpos = member_bitpos(m), fieldsize_bit = size * 8;
	maybe_hole(p, bitpos, "hole");
	Dwarf_Attribute a;
	Dwarf_Word bits;
	if ((dwarf_attr(m, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bits) == 0) ||
	    po->offset_bitpos % 8) {
		if (!dwarf_attr(m, DW_AT_bit_size, &a) || dwarf_formudata(&a, &bits) != 0)
			bits = 0;
		fieldsize_bit = bits;
		uint64_t real = bitpos + po->offset_bitpos;
		offset_printf(p, "/* %6u:%2u  ", (unsigned)(real / 8), (unsigned)(real % 8));
	} else {
		offset_printf(p, "/* %6u     ", (unsigned)((bitpos + po->offset_bitpos) / 8));
	}
	offset_printf(p, " |  %6u */", (unsigned)size);
	po->end_bitpos = bitpos + fieldsize_bit;
}

/* After a struct's members: the padding and the total size.  */
static void offset_total(struct tprint *p, Dwarf_Die *cls)
{
	uint64_t size = type_size(cls);
	maybe_hole(p, size * 8, "padding");
	sg_lite_putc(p->b, '\n');
	indent(p, p->level + 4 + OFFSET_COLUMN);
	offset_printf(p, "/* total size (bytes): %4" PRIu64 " */\n", size);
}

static enum access access_label(struct tprint *p, enum access last, enum access now)
{
	static const char *const labels[] = { "", "public:\n", "protected:\n", "private:\n" };
	if (now != last) {
		indent(p, p->level + 2 + (p->po ? OFFSET_COLUMN : 0));
		sg_lite_puts(p->b, labels[now]);
	}
	return now;
}

/* The typedefs of CLS and, recursively, of its bases; *BUDGET bounds the
   classes visited (hostile DWARF can make a class its own base twice).  */
static void add_typedefs(struct tprint *p, Dwarf_Die *cls, struct local_names *ln, int depth,
			 int *budget)
{
	Dwarf_Die m;
	if (depth > MAX_TYPE_DEPTH || --*budget < 0 || dwarf_child(cls, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) == DW_TAG_typedef)
			local_add(ln, dwarf_diename(&m), &m);
	} while (dwarf_siblingof(&m, &m) == 0);
	dwarf_child(cls, &m);
	do {
		Dwarf_Die bt, full;
		if (dwarf_tag(&m) != DW_TAG_inheritance || !sg_die_type(&m, &bt))
			continue;
		strip(&bt, &full);
		if (p->t)
			sg_type_complete(p->t, &full, &full);
		add_typedefs(p, &full, ln, depth + 1, budget);
	} while (dwarf_siblingof(&m, &m) == 0);
}

/* "[with T = int, U = struct ns::X] ": the type template parameters.  */
static void template_args(struct tprint *p, Dwarf_Die *cls, struct local_names *ln, int depth)
{
	Dwarf_Die m;
	bool first = true;
	if (dwarf_child(cls, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_template_type_parameter)
			continue;
		const char *name = dwarf_diename(&m);
		Dwarf_Die pt;
		bool typed = sg_die_type(&m, &pt);
		sg_lite_puts(p->b, first ? "[with " : ", ");
		sg_lite_puts(p->b, name ? name : "?");
		sg_lite_puts(p->b, " = ");
		print_type(p, typed ? &pt : NULL, "", -1, depth + 1);
		if (typed)
			local_add(ln, name, &pt);
		first = false;
	} while (dwarf_siblingof(&m, &m) == 0);
	if (!first)
		sg_lite_puts(p->b, "] ");
}

/* ": public ns::Base, private virtual ns::Mixin ".  */
static void base_classes(struct tprint *p, Dwarf_Die *cls, bool is_class)
{
	Dwarf_Die m;
	bool first = true;
	if (dwarf_child(cls, &m) != 0)
		return;
	do {
		Dwarf_Die bt;
		if (dwarf_tag(&m) != DW_TAG_inheritance || !sg_die_type(&m, &bt))
			continue;
		enum access acc = member_access(&m, is_class);
		sg_lite_puts(p->b, first ? ": " : ", ");
		sg_lite_puts(p->b, acc == ACCESS_PUBLIC ? "public" : acc == ACCESS_PROTECTED ? "protected" : "private");
		Dwarf_Attribute a;
		Dwarf_Word virt = 0;
		if (dwarf_attr(&m, DW_AT_virtuality, &a))
			dwarf_formudata(&a, &virt);
		sg_lite_puts(p->b, virt ? " virtual " : " ");
		Dwarf_Die st;
		strip(&bt, &st);
		const char *local = local_lookup(p->names, &st, NULL);
		if (local)
			sg_lite_puts(p->b, local);
		else
			put_name(p, &st);
		first = false;
	} while (dwarf_siblingof(&m, &m) == 0);
	if (!first)
		sg_lite_putc(p->b, ' ');
}

/* One data member: "    static int count;", "    unsigned a : 3;".  */
static void field(struct tprint *p, Dwarf_Die *cls, Dwarf_Die *m, int show, int depth)
{
	bool is_static = is_static_field(m);
	Dwarf_Die mt;
	bool typed = sg_die_type(m, &mt);
	struct tprint fp = *p;
	struct offsets nested;
	int newshow = show - 1;
	if (p->po) {
		offset_column(p, cls, m);
		/* ptype/o spells out struct and union members (not typedefs of
		   them), their offsets counted from the outermost struct.  */
		Dwarf_Die bare = mt;
		if (typed)
			strip_cv(&bare);
		int tag = typed ? dwarf_tag(&bare) : 0;
		if (!is_static && is_aggregate_tag(tag)) {
			newshow++;
			nested.offset_bitpos = p->po->offset_bitpos + member_bitpos(m);
			nested.end_bitpos = p->po->end_bitpos - type_size(&mt) * 8;
			fp.po = &nested;
		}
	}
	indent(p, p->level + 4);
	if (is_static)
		sg_lite_puts(p->b, "static ");
	const char *name = dwarf_diename(m);
	fp.level = p->level + 4;
	print_type(&fp, typed ? &mt : NULL, name ? name : "", newshow, depth + 1);
	Dwarf_Attribute a;
	Dwarf_Word bits;
	if (!is_static && dwarf_attr(m, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bits) == 0) {
		char num[32];
		snprintf(num, sizeof(num), " : %" PRIu64, (uint64_t)bits);
		sg_lite_puts(p->b, num);
	}
	sg_lite_puts(p->b, ";\n");
}

/* Whether the method named NAME of class CLS_NAME is a constructor
   ("Box" in "Box<long>" too), a destructor or a conversion operator, the
   methods gdb prints without a return type.  */
static bool no_return_type(const char *name, const char *cls_name)
{
	size_t n = strlen(name);
	if (name[0] == '~')
		return true;
	if (cls_name && !strncmp(cls_name, name, n) && (cls_name[n] == '\0' || cls_name[n] == '<'))
		return true;
	if (strncmp(name, "operator", 8) || !strchr(" \t", name[8]))
		return false;
	const char *s = name + 8;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!ident_char(*s) || (*s >= '0' && *s <= '9'))
		return false;
	for (const char *kw = "new"; kw; kw = strcmp(kw, "new") ? NULL : "delete") {
		size_t k = strlen(kw);
		if (!strncmp(s, kw, k) && !ident_char(s[k]))
			return false;
	}
	return true;
}

/* One method: "    virtual int get() const;", "    static int count();".  */
static void method(struct tprint *p, Dwarf_Die *m, const char *cls_name, int depth)
{
	const char *name = dwarf_diename(m);
	Dwarf_Die first, pt;
	/* A method has an artificial first parameter, "this"; a static one
	   does not.  Template parameters may come before it.  */
	bool found = dwarf_child(m, &first) == 0;
	while (found && dwarf_tag(&first) != DW_TAG_formal_parameter)
		found = dwarf_siblingof(&first, &first) == 0;
	bool has_this = found && has_attr(&first, DW_AT_artificial);
	indent(p, p->level + 4);
	if (has_attr(m, DW_AT_vtable_elem_location))
		sg_lite_puts(p->b, "virtual ");
	else if (!has_this)
		sg_lite_puts(p->b, "static ");
	if (!no_return_type(name, cls_name)) {
		print_type(p, sg_die_type(m, &pt) ? &pt : NULL, "", -1, depth + 1);
		sg_lite_putc(p->b, ' ');
	}
	sg_lite_puts(p->b, name);
	sg_lite_putc(p->b, '(');
	Dwarf_Die c;
	int printed = 0;
	bool varargs = false;
	if (dwarf_child(m, &c) == 0) {
		do {
			int tag = dwarf_tag(&c);
			if (tag == DW_TAG_unspecified_parameters)
				varargs = true;
			if (tag != DW_TAG_formal_parameter || has_attr(&c, DW_AT_artificial))
				continue;
			if (printed++)
				sg_lite_puts(p->b, ", ");
			print_type(p, sg_die_type(&c, &pt) ? &pt : NULL, "", 0, depth + 1);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (varargs)
		sg_lite_puts(p->b, printed ? ", ..." : "...");
	else if (!printed && p->cplus)
		sg_lite_puts(p->b, "void");
	sg_lite_putc(p->b, ')');
	/* The qualifiers of *this: "const", "volatile".  */
	if (has_this && sg_die_type(&first, &pt) && dwarf_tag(&pt) == DW_TAG_pointer_type &&
	    sg_die_type(&pt, &pt)) {
		bool c_q = false, v_q = false;
		for (int i = 0; i < 4; i++) {
			int tag = dwarf_tag(&pt);
			if (tag == DW_TAG_const_type)
				c_q = true;
			else if (tag == DW_TAG_volatile_type)
				v_q = true;
			else
				break;
			if (!sg_die_type(&pt, &pt))
				break;
		}
		sg_lite_puts(p->b, c_q ? " const" : "");
		sg_lite_puts(p->b, v_q ? " volatile" : "");
	}
	sg_lite_puts(p->b, ";\n");
}

/* The methods of CLS, overloads together in the order of their first
   declaration, as gdb groups them; artificial ones hidden.  */
static enum access methods(struct tprint *p, Dwarf_Die *cls, bool is_class, enum access section,
			   int depth)
{
	size_t n = 0, cap = 0;
	Dwarf_Die *v = NULL, m;
	if (dwarf_child(cls, &m) == 0) {
		do {
			if (dwarf_tag(&m) != DW_TAG_subprogram || !dwarf_diename(&m))
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				Dwarf_Die *nv = realloc(v, nc * sizeof(*nv));
				if (!nv)
					break;
				v = nv;
				cap = nc;
			}
			v[n++] = m;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	bool *done = calloc(n ? n : 1, sizeof(*done));
	const char *cls_name = dwarf_diename(cls);
	for (size_t i = 0; done && i < n; i++) {
		if (done[i])
			continue;
		const char *name = dwarf_diename(&v[i]);
		for (size_t j = i; j < n; j++) {
			if (done[j] || strcmp(dwarf_diename(&v[j]), name))
				continue;
			done[j] = true;
			if (has_attr(&v[j], DW_AT_artificial))
				continue;
			section = access_label(p, section, member_access(&v[j], is_class));
			method(p, &v[j], cls_name, depth);
		}
	}
	free(done);
	free(v);
	return section;
}

/* The body of the class CLS (a full definition) at SHOW > 0, or of an
   unnamed one.  */
static void class_body(struct tprint *p, Dwarf_Die *cls, int show, int depth)
{
	bool is_class = dwarf_tag(cls) == DW_TAG_class_type;
	struct local_names ln, semi = { 0 };
	if (has_attr(cls, DW_AT_declaration)) {
		/* No definition anywhere (clang declares a class whose key
		   function is inline): gdb reads none of the declaration's
		   members, its type is a stub.  */
		sg_lite_puts(p->b, "{\n");
		indent(p, p->level + 4 + (p->po ? OFFSET_COLUMN : 0));
		sg_lite_puts(p->b, "<incomplete type>\n");
		indent(p, p->level);
		sg_lite_putc(p->b, '}');
		return;
	}
	if (!local_copy(&ln, p->names, p->nc)) {
		sg_lite_puts(p->b, "{...}");
		return;
	}
	/* ptype/r: no local names, nor the "[with T = int]" that
	   introduces them.  */
	if (!printers_raw)
		template_args(p, cls, &ln, depth);
	struct tprint inner = *p, semi_p = *p;
	inner.names = printers_raw ? NULL : &ln;
	semi_p.names = printers_raw ? NULL : &semi;
	base_classes(&inner, cls, is_class);
	/* Typedef lines see the template parameters, not the class's own
	   typedefs.  */
	local_copy(&semi, &ln, p->nc);
	int budget = 256;
	add_typedefs(p, cls, &ln, depth, &budget);
	sg_lite_puts(p->b, "{\n");

	size_t n_fields = 0, n_methods = 0, n_typedefs = 0, n_shown_methods = 0;
	Dwarf_Die m;
	if (dwarf_child(cls, &m) == 0) {
		do {
			int tag = dwarf_tag(&m);
			if (is_field(&m) || tag == DW_TAG_inheritance)
				n_fields++;
			else if (tag == DW_TAG_subprogram && dwarf_diename(&m)) {
				n_methods++;
				n_shown_methods += !has_attr(&m, DW_AT_artificial);
			} else if (tag == DW_TAG_typedef)
				n_typedefs++;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	if (!n_fields && !n_methods && !n_typedefs) {
		indent(p, p->level + 4 + (p->po ? OFFSET_COLUMN : 0));
		sg_lite_puts(p->b, "<no data fields>\n");
	}
	bool labels = need_access_labels(cls, is_class);
	enum access section = ACCESS_NONE;
	if (dwarf_child(cls, &m) == 0) {
		do {
			if (!is_field(&m) || has_attr(&m, DW_AT_artificial))
				continue;
			if (labels)
				section = access_label(p, section, member_access(&m, is_class));
			field(&inner, cls, &m, show, depth);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	/* ptype/o leaves out methods and typedefs.  */
	if (n_shown_methods && section != ACCESS_NONE && !p->po)
		sg_lite_putc(p->b, '\n');
	if (!p->po)
		section = methods(&inner, cls, is_class, section, depth);
	if (n_typedefs && !p->po) {
		if (n_fields || n_methods)
			sg_lite_putc(p->b, '\n');
		dwarf_child(cls, &m);
		do {
			Dwarf_Die target;
			if (dwarf_tag(&m) != DW_TAG_typedef)
				continue;
			if (labels)
				section = access_label(p, section, member_access(&m, is_class));
			indent(p, p->level + 4);
			sg_lite_puts(p->b, "typedef ");
			const char *name = dwarf_diename(&m);
			semi_p.level = p->level + 4;
			print_type(&semi_p, sg_die_type(&m, &target) ? &target : NULL, name ? name : "",
				   show - 1, depth + 1);
			sg_lite_puts(p->b, ";\n");
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	if (p->po) {
		if (show > 0)
			offset_total(p, cls);
		indent(p, OFFSET_COLUMN + (p->level ? 0 : 2));
	}
	indent(p, p->level);
	sg_lite_putc(p->b, '}');
	local_free(&ln);
	local_free(&semi);
}

/* A struct, union or class at SHOW > 0, or an unnamed one: "struct
   ns::D : public ns::B {...}", "union {...}".  */
static void aggregate(struct tprint *p, Dwarf_Die *type, int show, int depth)
{
	Dwarf_Die full = *type;
	if (p->t)
		sg_type_complete(p->t, type, &full);
	sg_lite_puts(p->b, tag_keyword(dwarf_tag(&full)));
	if (dwarf_diename(&full)) {
		/* A nested class's tag, in the enclosing class's names.  */
		const char *local = local_lookup(p->names, &full, NULL);
		if (local)
			sg_lite_puts(p->b, local);
		else
			put_name(p, &full);
		if (show > 0)
			sg_lite_putc(p->b, ' ');
	}
	if (show < 0) {
		if (!dwarf_diename(&full))
			sg_lite_puts(p->b, "{...}");
		return;
	}
	/* Bounded nesting and text: hostile DWARF can nest a struct in
	   itself, which ptype/o would spell out at every level.  */
	if (depth > MAX_TYPE_DEPTH || p->b->len > MAX_PTYPE_TEXT) {
		sg_lite_puts(p->b, "{...}");
		return;
	}
	class_body(p, &full, show, depth);
}

/* "ptype T": typedefs resolved, struct bodies spelled out, the
   declarator kept: "struct node {...} *".  */
char *ptype_string(struct sg_target *t, Dwarf_Die *type)
{
	return sg_ptype_string_lang(t, type, false);
}

char *sg_ptype_string_lang(struct sg_target *t, Dwarf_Die *type, bool cplus)
{
	Dwarf_Die cur = *type;
	for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(&cur) == DW_TAG_typedef; i++) {
		Dwarf_Die next;
		if (!sg_die_type(&cur, &next))
			break;
		cur = next;
	}
	struct sg_buf_lite b = { 0 };
	struct name_cache nc = { 0 };
	struct tprint p = { .t = t, .b = &b, .nc = &nc, .cplus = cplus, .pr = printed_new() };
	decl(&p, &cur, "", 1, 0);
	name_cache_free(&nc);
	printed_free(p.pr);
	return b.s ? b.s : strdup("");
}

char *sg_ptype_offsets_string(struct sg_target *t, Dwarf_Die *type, bool cplus, bool *header_ret)
{
	Dwarf_Die cur = *type, st;
	for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(&cur) == DW_TAG_typedef; i++) {
		Dwarf_Die next;
		if (!sg_die_type(&cur, &next))
			break;
		cur = next;
	}
	/* gdb's header comes for a struct or union, not for a typedef of
	   one (std::string).  */
	st = *type;
	strip_cv(&st);
	*header_ret = is_aggregate_tag(dwarf_tag(&st));
	struct sg_buf_lite b = { 0 };
	struct offsets po = { 0 };
	struct name_cache nc = { 0 };
	struct tprint p = { .t = t, .b = &b, .po = &po, .nc = &nc, .cplus = cplus,
			    .pr = printed_new() };
	decl(&p, &cur, "", 1, 0);
	name_cache_free(&nc);
	printed_free(p.pr);
	return b.s ? b.s : strdup("");
}
