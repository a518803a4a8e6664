/* Which symbols a gdb block holds, and in what order gdb 13 lists them
   (doc/research/info-scope.md, section 2.4).

   gdb's blocks are the DIEs with code: lexical blocks, inlined calls,
   functions; and each unit's static and global blocks.  A block holds
   the symbols of its DIE's children in DIE order: parameters, variables,
   typedefs and tags, enumerators (before their enum's tag), labels; a
   lexical block without addresses adds its children to its parent's.  A
   concrete instance (an inlined call, an out-of-line copy) then adds
   its abstract origin's children that none of its own children stands
   for.  Function blocks keep that order; the others are hash tables,
   listed bucket by bucket, so their order is gdb's hash of the names.  */
#include <config.h>
#include "eval.h"
#include "scope-block.h"

#include <ctype.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

void scope_symlist_free(struct symlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void add(struct symlist *l, Dwarf_Die *die, enum sym_class cls, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct sym *v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->failed = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy) {
		l->failed = true;
		return;
	}
	l->v[l->n++] = (struct sym){ .die = *die, .cls = cls, .name = copy,
				     .parameter = dwarf_tag(die) == DW_TAG_formal_parameter };
}

static bool own_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

bool scope_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr_integrate(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

/* gdb's die_is_declaration.  */
static bool is_declaration(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return own_flag(die, DW_AT_declaration) && !dwarf_attr(die, DW_AT_specification, &a);
}

/* The block's first non-empty range: gdb's entry pc.  */
bool scope_block_entry(Dwarf_Die *die, Dwarf_Addr *ret)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start < end) {
			*ret = start;
			return true;
		}
	return false;
}

/* Whether the DIE has addresses at all (gdb's PC_BOUNDS_NOT_PRESENT).  */
static bool has_bounds(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_attr(die, DW_AT_low_pc, &a) || dwarf_attr(die, DW_AT_ranges, &a);
}

/* gdb's name of a base type: "long unsigned int" is "unsigned long".  */
static char *base_type_name(const char *name)
{
	size_t n = strlen(name);
	bool sized = strstr(name, "long") || strstr(name, "short");
	if (!sized || n < 4 || strcmp(name + n - 4, " int"))
		return strdup(name);
	char *s = malloc(n + 1), *o = s;
	if (!s)
		return NULL;
	const char *u = strstr(name, " unsigned");
	if (u)
		o = stpcpy(o, "unsigned ");
	for (const char *q = name; q < name + n - 4; q++) {
		if (q == u)
			q += strlen(" unsigned");
		if (q < name + n - 4)
			*o++ = *q;
	}
	*o = '\0';
	return s;
}

static void collect(struct symlist *l, Dwarf_Die *die, int depth);

static void collect_children(struct symlist *l, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do
		collect(l, &child, depth);
	while (dwarf_siblingof(&child, &child) == 0);
}

/* gdb's process_die for DIE inside a block: the symbols it adds.  */
static void collect(struct symlist *l, Dwarf_Die *die, int depth)
{
	const char *name = dwarf_diename(die);
	Dwarf_Attribute a;
	switch (dwarf_tag(die)) {
	case DW_TAG_formal_parameter:
		if (name)
			add(l, die, SYM_VARIABLE, name);
		break;
	case DW_TAG_variable:
		if (!name)
			break;
		/* A declaration is a symbol only when external (an "extern"
		   in a block); a variable the linker dropped is none.  */
		if (!dwarf_attr_integrate(die, DW_AT_const_value, &a) &&
		    !dwarf_attr_integrate(die, DW_AT_location, &a) && is_declaration(die) &&
		    !(scope_flag(die, DW_AT_external) && dwarf_attr_integrate(die, DW_AT_type, &a)))
			break;
		add(l, die, SYM_VARIABLE, name);
		break;
	case DW_TAG_typedef:
	case DW_TAG_subrange_type:
		if (name)
			add(l, die, SYM_TYPEDEF, name);
		break;
	case DW_TAG_base_type:
		if (name) {
			char *b = base_type_name(name);
			if (b)
				add(l, die, SYM_TYPEDEF, b);
			free(b);
		}
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (name && (dwarf_hasattr(die, DW_AT_byte_size) || !is_declaration(die)))
			add(l, die, SYM_TYPEDEF, name);
		break;
	case DW_TAG_enumeration_type: {
		Dwarf_Die e;
		if (dwarf_child(die, &e) == 0)
			do {
				const char *en = dwarf_diename(&e);
				if (dwarf_tag(&e) == DW_TAG_enumerator && en) {
					add(l, &e, SYM_ENUMERATOR, en);
					if (l->n && !strcmp(l->v[l->n - 1].name, en))
						l->v[l->n - 1].owner = *die;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		if (name && (dwarf_hasattr(die, DW_AT_byte_size) || !is_declaration(die)))
			add(l, die, SYM_TYPEDEF, name);
		break;
	}
	case DW_TAG_label:
		if (name)
			add(l, die, SYM_LABEL, name);
		break;
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		/* Without addresses, not a block: its children are ours.  */
		if (!has_bounds(die))
			collect_children(l, die, depth + 1);
		break;
	/* A nested function (GCC) is a block of its own, which starts with
	   its symbol; gdb lists none for it here.  */
	default:
		break;
	}
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;
	return x < y ? -1 : x > y;
}

/* gdb's inherit_abstract_dies: the children of DIE's abstract origin
   that none of DIE's own children stands for.  */
static void inherit(struct symlist *l, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, child;
	if (!dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &a), &origin))
		return;
	Dwarf_Off *refs = NULL;
	size_t n = 0, cap = 0;
	if (dwarf_child(die, &child) == 0)
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
				continue;
			Dwarf_Die o = child, next;
			int hops = 0;
			while (hops++ < 8 &&
			       dwarf_formref_die(dwarf_attr(&o, DW_AT_abstract_origin, &a), &next))
				o = next;
			if (hops == 1)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				Dwarf_Off *r = realloc(refs, cap * sizeof(*r));
				if (!r) {
					free(refs);
					l->failed = true;
					return;
				}
				refs = r;
			}
			refs[n++] = dwarf_dieoffset(&o);
		} while (dwarf_siblingof(&child, &child) == 0);
	if (refs)
		qsort(refs, n, sizeof(*refs), cmp_off);
	if (dwarf_child(&origin, &child) == 0)
		do {
			Dwarf_Off off = dwarf_dieoffset(&child);
			if (!refs || !bsearch(&off, refs, n, sizeof(*refs), cmp_off))
				collect(l, &child, depth + 1);
		} while (dwarf_siblingof(&child, &child) == 0);
	free(refs);
}

/* ---- gdb's hashed order ---- */

#define HASH_NEXT(h, c) ((h) * 67 + (unsigned)tolower((unsigned char)(c)) - 113)

static unsigned hash_iw(const char *s)
{
	unsigned h = 0;
	for (; *s && *s != '('; s++)
		if (!isspace((unsigned char)*s))
			h = HASH_NEXT(h, *s);
	return h;
}

/* gdb's default_search_name_hash (C and most languages).  */
static unsigned hash_c(const char *s0)
{
	const char *s = s0;
	if (*s == '_') {
		if (!strncmp(s, "_ada_", 5))
			s += 5;
		else
			return hash_iw(s0);
	}
	unsigned h = 0;
	while (*s) {
		switch (*s) {
		case '$':
		case '.':
		case 'X':
			return s == s0 ? hash_iw(s0) : h;
		case ' ':
		case '(':
			return hash_iw(s0);
		case '_':
			if (s[1] == '_' && s != s0) {
				int c = s[2];
				if ((c < 'a' || c > 'z') && c != 'O')
					return h;
				h = 0;
				s += 2;
				continue;
			}
			break;
		case 'T':
			if (!strcmp(s, "TKB"))
				return h;
			break;
		}
		h = HASH_NEXT(h, *s);
		s++;
	}
	return h;
}

/* gdb's cp_search_name_hash: the last component, up to its parameters
   or ABI tag.  */
static unsigned hash_cplus(const char *s)
{
	if (!strncmp(s, "::", 2))
		s += 2;
	int depth = 0;
	const char *last = s;
	for (const char *p = s; *p && *p != '('; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	unsigned h = 0;
	for (const char *p = last; *p; p++) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '(')
			break;
		if (*p == '[' && !strncmp(p + 1, "abi:", 4) && p[5] != ':')
			break;
		h = HASH_NEXT(h, *p);
	}
	return h;
}

/* L in the order gdb's hashed dictionary lists it.  */
static void order_hashed(struct symlist *l, bool cplus)
{
	if (l->n < 2)
		return;
	/* As many buckets as gdb 13 makes: checked against its orders.  */
	size_t nb = l->n / 5 + 1;
	struct sym *v = malloc(l->n * sizeof(*v));
	unsigned *bucket = malloc(l->n * sizeof(*bucket));
	if (!v || !bucket) {
		free(v);
		free(bucket);
		return;
	}
	for (size_t i = 0; i < l->n; i++)
		bucket[i] = (cplus ? hash_cplus(l->v[i].name) : hash_c(l->v[i].name)) % nb;
	size_t k = 0;
	for (size_t b = 0; b < nb; b++)
		for (size_t i = 0; i < l->n; i++)
			if (bucket[i] == b)
				v[k++] = l->v[i];
	memcpy(l->v, v, l->n * sizeof(*v));
	free(v);
	free(bucket);
}

static void unit_symbols(Dwarf_Die *cu, struct symlist *stat, struct symlist *glob, bool cplus)
{
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		Dwarf_Attribute a;
		Dwarf_Addr entry;
		if (!name && tag != DW_TAG_enumeration_type)
			continue;
		switch (tag) {
		case DW_TAG_subprogram:
			if (scope_block_entry(&child, &entry))
				scope_add_function(scope_flag(&child, DW_AT_external) ? glob : stat, &child, cplus);
			break;
		case DW_TAG_variable:
			if (scope_flag(&child, DW_AT_external) &&
			    (dwarf_attr_integrate(&child, DW_AT_location, &a) ||
			     dwarf_attr_integrate(&child, DW_AT_const_value, &a) ||
			     (is_declaration(&child) && dwarf_attr_integrate(&child, DW_AT_type, &a))))
				add(glob, &child, SYM_VARIABLE, name);
			else
				collect(stat, &child, 0);
			break;
		default:
			collect(stat, &child, 0);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* A function's symbol, named as gdb names it: in C++ with its scopes
   and parameters.  */
char *scope_cplus_function_name(Dwarf_Die *die)
{
	/* An inlined call is named by the function it inlines.  */
	Dwarf_Attribute a;
	Dwarf_Die origin;
	if (dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &a), &origin)) {
		char *full = sg_cplus_function_name(&origin);
		if (full)
			return full;
	}
	return sg_cplus_function_name(die);
}

/* Where a C++ name's parameters start: its '(' outside template
   arguments, or its end.  */
size_t scope_params_at(const char *s)
{
	int depth = 0;
	size_t i = 0;
	for (; s[i]; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>')
			depth--;
		else if (s[i] == '(' && i >= 8 && !strncmp(s + i - 8, "operator", 8) && s[i + 1] == ')')
			i++;	/* operator(): the name's own parentheses */
		else if (s[i] == '(' && !depth && i && strncmp(s + i, "(anonymous namespace)", 21))
			break;
	}
	return i;
}

void scope_add_function(struct symlist *l, Dwarf_Die *die, bool cplus)
{
	char *full = cplus ? scope_cplus_function_name(die) : NULL;
	/* gdb names an inlined call's block by its linkage name, demangled
	   with parameters; a function without one (internal linkage: GCC
	   writes none) by its qualified name alone.  */
	Dwarf_Attribute a;
	if (full && dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    !dwarf_attr_integrate(die, DW_AT_linkage_name, &a) &&
	    !dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		full[scope_params_at(full)] = '\0';
	const char *name = full ? full : dwarf_diename(die);
	if (name)
		add(l, die, SYM_FUNCTION, name);
	free(full);
}

/* The symbols of block DIE (not the unit), in gdb's order.  */
void scope_block_symbols(Dwarf_Die *die, struct symlist *l, bool cplus)
{
	int tag = dwarf_tag(die);
	bool function = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
	if (tag == DW_TAG_inlined_subroutine)
		scope_add_function(l, die, cplus);
	collect_children(l, die, 0);
	inherit(l, die, 0);
	if (!function)
		order_hashed(l, cplus);
}


void scope_unit_symbols(Dwarf_Die *cu, struct symlist *stat, struct symlist *glob, bool cplus)
{
	unit_symbols(cu, stat, glob, cplus);
	order_hashed(stat, cplus);
	order_hashed(glob, cplus);
}
