/* Describing a physical frame: function, module, source line, and the
   inlined calls at its pc, each as a logical frame of its own (as gdb and
   eu-stack -i show them).

   Descriptions are cached per target by pc, since a backtrace of many
   threads, and every sample of a profiler, meets the same pcs again.  */
#include <config.h>
#include "internal.h"
#include "lookup.h"
#include "cache.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#define MAX_INLINE_DEPTH 64

struct desc_entry {
	uint64_t key;		/* 0: empty */
	struct sg_frame *frames;
	size_t n;
	Dwarf_Die *scopes;	/* the frames' scope chain, owned */
};

/* The name of a frame's function, by its DIE's address, or by its ELF
   symbol's name's for a function without DWARF.  */
struct scoped_entry {
	const void *decl;	/* the DIE or the name; NULL: empty */
	char *name;
};

/* The address ranges of one module's CUs, sorted, for DWARF without
   .debug_aranges.  */
struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die cu;
};
struct cu_ranges {
	Dwarf *dw;
	struct cu_range *r;
	size_t n;
};

struct sg_frame_cache {
	struct sg_table table;	/* of struct desc_entry */
	struct sg_table scoped;	/* of struct scoped_entry */
	struct cu_ranges *cus;	/* one per module searched so */
	size_t ncus;
};

void sg_frame_cache_destroy(struct sg_frame_cache *c)
{
	if (!c)
		return;
	struct desc_entry *slots = c->table.slots;
	for (size_t i = 0; i < c->table.cap; i++) {
		free(slots[i].frames);
		free(slots[i].scopes);
	}
	free(slots);
	struct scoped_entry *names = c->scoped.slots;
	for (size_t i = 0; i < c->scoped.cap; i++)
		free(names[i].name);
	free(names);
	for (size_t i = 0; i < c->ncus; i++)
		free(c->cus[i].r);
	free(c->cus);
	free(c);
}

static struct sg_frame_cache *frame_cache(struct sg_target *t)
{
	if (!t->frame_cache)
		t->frame_cache = calloc(1, sizeof(*t->frame_cache));
	return t->frame_cache;
}

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

#define MAX_CU_RANGES (1 << 20)

/* The ranges of every compilation unit of DW, from the units' own
   DW_AT_low_pc/high_pc or DW_AT_ranges.  */
static struct sg_error *collect_cu_ranges(Dwarf *dw, struct cu_ranges *ret)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	size_t cap = 0;
	ret->dw = dw;
	while (dwarf_get_units(dw, cu, &next, NULL, &unit_type, &cudie, NULL) == 0) {
		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (ret->n >= MAX_CU_RANGES)
				break;
			struct cu_range *r = sg_array_push(&ret->r, &ret->n, &cap, sizeof(*r));
			if (!r)
				return &sg_enomem;
			*r = (struct cu_range){ lo, hi, cudie };
		}
	}
	if (ret->n)
		qsort(ret->r, ret->n, sizeof(*ret->r), cmp_cu_range);
	return NULL;
}

/* The CU DIE around module address ADDR (relative to the module's DWARF,
   BIAS added), searched in the units' own ranges.  */
static Dwarf_Die *cu_by_ranges(struct sg_target *t, Dwarf *dw, Dwarf_Addr addr)
{
	struct sg_frame_cache *c = frame_cache(t);
	if (!c)
		return NULL;
	struct cu_ranges *cr = NULL;
	for (size_t i = 0; i < c->ncus && !cr; i++)
		if (c->cus[i].dw == dw)
			cr = &c->cus[i];
	if (!cr) {
		struct cu_ranges fresh = { 0 };
		struct sg_error *err = collect_cu_ranges(dw, &fresh);
		size_t cap = c->ncus;	/* grown one at a time */
		cr = err ? NULL : sg_array_push(&c->cus, &c->ncus, &cap, sizeof(*cr));
		if (!cr) {
			sg_error_destroy(err);
			free(fresh.r);
			return NULL;
		}
		*cr = fresh;
	}
	size_t lo = 0, hi = cr->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cr->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges may nest (a partial unit inside another's span): look back a
	   little for the innermost one that holds ADDR.  */
	for (size_t k = lo, n = 0; k-- > 0 && n < 16; n++)
		if (addr < cr->r[k].hi)
			return &cr->r[k].cu;
	return NULL;
}

/* The CU DIE around ADDR (a target address) in MOD, and the DWARF's bias.
   dwfl_module_addrdie looks only in .debug_aranges, which clang does not
   write (libdw 0.188 does not fall back on the units' ranges): then the
   units' own ranges are searched, as gdb does.  NULL when no unit has
   code at ADDR.  */
Dwarf_Die *sg_frame_cudie(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			  Dwarf_Addr *bias)
{
	/* The persistent unit index (cache.h) spares libdw from interning
	   every unit of libc for the first lookup.  */
	Dwarf_Die *cudie = NULL;
	if (sg_unit_index_cudie(t, mod, addr, bias, &cudie) == SG_UNIT_NO_INDEX)
		cudie = dwfl_module_addrdie(mod->dwmod, addr, bias);
	/* libdwfl may answer with the unit whose range ends below ADDR
	   (_start, just past main in .text.startup).  A unit without
	   ranges of its own is trusted.  */
	if (cudie && (dwarf_haspc(cudie, addr - *bias) > 0 ||
		      (!dwarf_hasattr(cudie, DW_AT_ranges) && !dwarf_hasattr(cudie, DW_AT_low_pc))))
		return cudie;
	Dwarf *dw = dwfl_module_getdwarf(mod->dwmod, bias);
	if (!dw)
		return NULL;
	/* Also where .debug_aranges exist: a program may link units of
	   both compilers.  */
	return cu_by_ranges(t, dw, addr - *bias);
}

static bool scoped_used(const void *e)
{
	return ((const struct scoped_entry *)e)->decl != NULL;
}

static uint64_t scoped_hash(const void *e)
{
	return sg_hash64((uintptr_t)((const struct scoped_entry *)e)->decl);
}

static bool scoped_eq(const void *e, const void *key)
{
	return ((const struct scoped_entry *)e)->decl == key;
}

static const struct sg_table_type scoped_table = {
	sizeof(struct scoped_entry), 64, scoped_used, scoped_hash,
};

static bool desc_used(const void *e)
{
	return ((const struct desc_entry *)e)->key != 0;
}

static uint64_t desc_hash(const void *e)
{
	return sg_hash64(((const struct desc_entry *)e)->key);
}

static bool desc_eq(const void *e, const void *key)
{
	return ((const struct desc_entry *)e)->key == *(const uint64_t *)key;
}

static const struct sg_table_type desc_table = {
	sizeof(struct desc_entry), 256, desc_used, desc_hash,
};

static struct desc_entry *cache_find(struct sg_frame_cache *c, uint64_t key, bool insert)
{
	struct desc_entry *e = sg_table_find(&c->table, &desc_table, sg_hash64(key), desc_eq, &key,
					     insert);
	if (e && insert)
		e->key = key;
	return e;
}

/* DIE's declaration: through DW_AT_abstract_origin (an inlined or
   out-of-line instance) and DW_AT_specification (a definition outside its
   namespace or class), as far as they go.  */
static void die_declaration(Dwarf_Die *die, Dwarf_Die *ret)
{
	*ret = *die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die next;
		if (!(dwarf_attr(ret, DW_AT_abstract_origin, &attr) ||
		      dwarf_attr(ret, DW_AT_specification, &attr)) ||
		    !dwarf_formref_die(&attr, &next))
			return;
		*ret = next;
	}
}

static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	int lang = dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
	/* 0x2a and 0x2b: C++17 and C++20, which DWARF 6 adds.  */
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
	       lang == 0x2a || lang == 0x2b;
}

#define MAX_NAME_SCOPES 32

/* The scopes gdb puts before the name of DECL, a function's declaration,
   "ns::Klass<int>::" (determine_prefix): namespaces, named classes, and
   "(anonymous namespace)".  The prefix ends at a class without a name (a
   lambda's closure type) and at a function (a local class).  */
static void gdb_prefix(Dwarf_Die *decl, struct sg_buf *b)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(decl, &scopes);
	const char *parts[MAX_NAME_SCOPES];
	int nparts = 0;
	for (int i = 1; i < n && nparts < MAX_NAME_SCOPES; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name = dwarf_diename(&scopes[i]);
		if (tag == DW_TAG_namespace)
			parts[nparts++] = name ? name : "(anonymous namespace)";
		else if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			 tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type) {
			if (!name)
				break;
			parts[nparts++] = name;
		} else if (tag != DW_TAG_lexical_block) {
			break;
		}
	}
	for (int i = nparts; i-- > 0;) {
		sg_buf_puts(b, parts[i]);
		sg_buf_puts(b, "::");
	}
	free(scopes);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Whether [P, END) is a pointer declarator, "*", "*&", "Klass::*" or
   "ns::K<int>::*", not a parameter list.  */
static bool is_declarator(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	if (p < end && (*p == '*' || *p == '&'))
		return true;
	/* A pointer to member: a qualified name, then "::*".  */
	int angle = 0;
	for (; p + 3 <= end; p++) {
		if (*p == '<')
			angle++;
		else if (*p == '>')
			angle--;
		else if (angle == 0 && (*p == ',' || *p == '('))
			return false;
		else if (angle == 0 && !strncmp(p, "::*", 3))
			return true;
	}
	return false;
}

/* Whether gdb's C++ name parser (cp-name-parser.y) fails on NAME, a
   demangled or DWARF-built function name: then gdb cannot take the
   parameters off and prints NAME whole.  It fails on lambdas, written
   "main()::<lambda(int)>" by GCC, "(lambda at f.cc:3:5)" by clang; on
   ">>", which it reads as a shift; on a function type among template
   arguments, "std::function<int (int)>" (a pointer to one,
   "int (*)(int)", parses); and on what is local to a function with
   parameters, "thread2(void*)::$_0::operator()(int) const".  */
static bool gdb_cannot_parse(const char *name)
{
	if (strstr(name, "<lambda") || strstr(name, "(lambda at ") || strstr(name, "{lambda(") ||
	    strstr(name, "{unnamed type#"))
		return true;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (!strncmp(p, "operator", 8) && !ident_char(p[8]) && (p == name || !ident_char(p[-1]))) {
			/* Skip the operator's symbol: "operator>>", "operator()".  */
			p += 8;
			while (*p == ' ')
				p++;
			if (*p == '(' && p[1] == ')')
				p += 2;
			while (*p && strchr("<>=!+-*/%^&|~[],", *p))
				p++;
			if (!*p)
				break;
		}
		if (*p == '<') {
			depth++;
		} else if (*p == '>') {
			if (p[1] == '>')
				return true;
			depth--;
		} else if (*p == '(' && !strncmp(p, "(anonymous namespace)", 21)) {
			p += 20;
		} else if (*p == '(' && depth == 0) {
			/* A function's parameters, then "::": something local
			   to it, "thread2(void*)::$_0::operator()".  */
			const char *q = p;
			for (int paren = 0; *q; q++) {
				if (*q == '(')
					paren++;
				else if (*q == ')' && --paren == 0)
					break;
			}
			if (*q && !strncmp(q + 1, "::", 2))
				return true;
		} else if (*p == '(' && depth > 0) {
			/* Find the parenthesis's end.  After a type, it holds
			   a declarator ("(*)", "(*&)", "(Klass::*)") or a
			   function type's parameters ("(int, du4*)").  */
			const char *q = p;
			int paren = 0;
			for (; *q; q++) {
				if (*q == '(')
					paren++;
				else if (*q == ')' && --paren == 0)
					break;
			}
			if (!*q)
				return true;
			const char *before = p;
			while (before > name && before[-1] == ' ')
				before--;
			bool after_type = before > name && (ident_char(before[-1]) || before[-1] == '>' ||
							    before[-1] == '*' || before[-1] == '&');
			if (after_type && !is_declarator(p + 1, q))
				return true;
			p = q;
		}
	}
	return false;
}

/* NAME with the integer types gdb's parser spells differently: it prints
   "long" for DWARF's "long int", "unsigned long" for "long unsigned int".  */
static void gdb_canonical(struct sg_buf *b, const char *name)
{
	static const char *const from[][2] = {
		{ "long long unsigned int", "unsigned long long" },
		{ "long long int", "long long" },
		{ "long unsigned int", "unsigned long" },
		{ "short unsigned int", "unsigned short" },
		{ "long int", "long" },
		{ "short int", "short" },
	};
	for (const char *p = name; *p;) {
		bool done = false;
		if (p == name || !ident_char(p[-1])) {
			for (size_t i = 0; i < SG_ARRAY_SIZE(from) && !done; i++) {
				size_t len = strlen(from[i][0]);
				if (!strncmp(p, from[i][0], len) && !ident_char(p[len])) {
					sg_buf_puts(b, from[i][1]);
					p += len;
					done = true;
				}
			}
		}
		if (!done)
			sg_buf_putc(b, *p++);
	}
}

#define MAX_TYPE_DEPTH 16

/* TYPE as gdb's type printer writes a parameter's type: "const
   std::_Any_data &", "int &&", "struct {...} &".  False for the types
   this does not spell (arrays, pointers to functions or members).  */
static bool gdb_param_type(Dwarf_Die *type, struct sg_buf *b, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die inner;
	bool has_inner = dwarf_attr_integrate(type, DW_AT_type, &attr) &&
			 dwarf_formref_die(&attr, &inner);
	if (depth > MAX_TYPE_DEPTH)
		return false;
	const char *suffix = NULL;
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
		suffix = "*";
		break;
	case DW_TAG_reference_type:
		suffix = "&";
		break;
	case DW_TAG_rvalue_reference_type:
		suffix = "&&";
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const char *q = dwarf_tag(type) == DW_TAG_const_type ? "const" : "volatile";
		int it = has_inner ? dwarf_tag(&inner) : 0;
		if (it == DW_TAG_pointer_type || it == DW_TAG_reference_type) {
			if (!gdb_param_type(&inner, b, depth + 1))
				return false;
			sg_buf_printf(b, " %s", q);
			return true;
		}
		sg_buf_printf(b, "%s ", q);
		if (!has_inner) {
			sg_buf_puts(b, "void");
			return true;
		}
		return gdb_param_type(&inner, b, depth + 1);
	}
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_unspecified_type: {
		const char *name = dwarf_diename(type);
		if (name) {
			gdb_prefix(type, b);
			sg_buf_puts(b, name);
		} else {
			int tag = dwarf_tag(type);
			sg_buf_puts(b, tag == DW_TAG_class_type ? "class {...}" :
				       tag == DW_TAG_union_type ? "union {...}" :
				       tag == DW_TAG_enumeration_type ? "enum {...}" : "struct {...}");
		}
		return true;
	}
	default:
		return false;
	}
	/* A pointer or reference: "T *", "T **", "T *&".  */
	if (!has_inner) {
		sg_buf_printf(b, "void %s", suffix);
		return true;
	}
	int it = dwarf_tag(&inner);
	if (it == DW_TAG_pointer_type || it == DW_TAG_reference_type ||
	    it == DW_TAG_rvalue_reference_type) {
		if (!gdb_param_type(&inner, b, depth + 1))
			return false;
		sg_buf_puts(b, suffix);
		return true;
	}
	if (it == DW_TAG_subroutine_type || it == DW_TAG_array_type || it == DW_TAG_ptr_to_member_type)
		return false;
	if (!gdb_param_type(&inner, b, depth + 1))
		return false;
	sg_buf_printf(b, " %s", suffix);
	return true;
}

/* FN's parameter list as gdb appends it to a name built from DWARF
   (dwarf2_compute_name): the types of its own DW_TAG_formal_parameter
   children but the artificial "this", "(void)" for none, " const" for a
   const member function.  Parameter packs are not formal parameters
   there.  */
static bool gdb_params(Dwarf_Die *fn, struct sg_buf *b)
{
	Dwarf_Die child;
	bool first = true, is_const = false, ok = true;
	sg_buf_putc(b, '(');
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_unspecified_parameters) {
				sg_buf_puts(b, first ? "..." : ", ...");
				first = false;
				continue;
			}
			if (tag != DW_TAG_formal_parameter)
				continue;
			Dwarf_Attribute attr;
			Dwarf_Die type;
			bool artificial = false;
			if (dwarf_attr_integrate(&child, DW_AT_artificial, &attr))
				dwarf_formflag(&attr, &artificial);
			bool typed = dwarf_attr_integrate(&child, DW_AT_type, &attr) &&
				     dwarf_formref_die(&attr, &type);
			if (artificial) {
				/* "this": a pointer to a const class.  */
				Dwarf_Die pointee;
				if (first && typed && dwarf_tag(&type) == DW_TAG_pointer_type &&
				    dwarf_attr_integrate(&type, DW_AT_type, &attr) &&
				    dwarf_formref_die(&attr, &pointee))
					is_const = dwarf_tag(&pointee) == DW_TAG_const_type;
				continue;
			}
			if (!first)
				sg_buf_puts(b, ", ");
			first = false;
			if (!typed || !gdb_param_type(&type, b, 0))
				ok = false;
		} while (ok && dwarf_siblingof(&child, &child) == 0);
	}
	if (first)
		sg_buf_puts(b, "void");
	sg_buf_putc(b, ')');
	if (is_const)
		sg_buf_puts(b, " const");
	return ok;
}

/* The name gdb shows for the function of a frame whose DIE is FN (a
   concrete subprogram, or an inlined call), built afresh.  With a linkage
   name: the demangled name without its parameters.  Without one (C, or a
   C++ function of internal linkage): DW_AT_name after the scopes of its
   declaration.  In C++, when gdb's parser cannot read the name, gdb shows
   it with its parameters: the demangled ones, or for a subprogram without
   a linkage name the types of its parameters; an inlined call shows
   none.  */
static char *gdb_function_name(struct sg_target *t, Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	const char *linkage = NULL;
	if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &attr))
		linkage = dwarf_formstring(&attr);
	if (linkage) {
		/* Not mangled (C: "__GI___poll"): the name itself.  */
		const char *base = sg_demangle_base_cached(t, linkage);
		const char *full = sg_demangle_cached(t, linkage);
		if (full && full != base && gdb_cannot_parse(full))
			return strdup(full);
		return strdup(base ? base : linkage);
	}
	const char *name = dwarf_attr_integrate(fn, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
	if (!name)
		return linkage ? strdup(linkage) : NULL;
	if (!is_cxx(fn))
		return strdup(name);
	Dwarf_Die decl;
	die_declaration(fn, &decl);
	struct sg_buf qualified, b;
	sg_buf_init(&qualified);
	sg_buf_init(&b);
	gdb_prefix(&decl, &qualified);
	sg_buf_puts(&qualified, name);
	char *q = sg_buf_steal(&qualified);
	if (!q)
		return NULL;
	if (!gdb_cannot_parse(q)) {
		gdb_canonical(&b, q);
	} else {
		sg_buf_puts(&b, q);
		if (dwarf_tag(fn) == DW_TAG_subprogram) {
			size_t len = b.len;
			if (!gdb_params(fn, &b))
				b.len = len;	/* a type not spelt: no parameters */
			if (b.data)
				b.data[b.len] = '\0';
		}
	}
	free(q);
	return sg_buf_steal(&b);
}

/* gdb_function_name, kept per DIE in the frame cache.  */
static const char *die_function_name(struct sg_target *t, Dwarf_Die *fn)
{
	struct sg_frame_cache *c = frame_cache(t);
	if (!c)
		return NULL;
	size_t n = c->scoped.n;
	struct scoped_entry *e = sg_table_find(&c->scoped, &scoped_table,
					       sg_hash64((uintptr_t)fn->addr), scoped_eq, fn->addr,
					       true);
	if (!e)
		return NULL;
	if (c->scoped.n != n) {
		e->decl = fn->addr;
		e->name = gdb_function_name(t, fn);
	}
	return e->name;
}

/* The name gdb shows for a function known only by its ELF symbol RAW (a
   minimal symbol): demangled whole, with the parameters and the return
   type of a template instance ("void std::__invoke_impl<...>(...)"),
   without "@VERSION".  Kept in the frame cache by RAW's address.  */
static const char *symbol_function_name(struct sg_target *t, const char *raw)
{
	struct sg_frame_cache *c = frame_cache(t);
	if (strncmp(raw, "_Z", 2) != 0 || !c)
		return sg_demangle_base_cached(t, raw);
	size_t n = c->scoped.n;
	struct scoped_entry *e = sg_table_find(&c->scoped, &scoped_table,
					       sg_hash64((uintptr_t)raw), scoped_eq, raw, true);
	if (!e)
		return sg_demangle_base_cached(t, raw);
	if (c->scoped.n != n) {
		e->decl = raw;
		e->name = sg_demangle(raw, true);
	}
	return e->name ? e->name : sg_demangle_base_cached(t, raw);
}

/* Whether A and B name one file, a relative name being under DIR.  */
static bool same_file(const char *dir, size_t len, const char *a, const char *b)
{
	if ((a[0] == '/') == (b[0] == '/'))
		return !strcmp(a, b);
	if (b[0] == '/') {
		const char *t = a;
		a = b;
		b = t;
	}
	return !strncmp(a, dir, len) && a[len] == '/' && !strcmp(a + len + 1, b);
}

/* A source path as gdb shows it.  libdw joins the compilation directory,
   the line table's directory and the file name; gdb shows the directory
   and the name as the compiler wrote them.  The two agree except where the
   compiler wrote a path relative to the compilation directory that climbs
   out of it ("../sysdeps/unix/sysv/linux/clock_nanosleep.c" under
   "./time"), and the unit's own file: there gdb leaves the compilation
   directory out.  */
static const char *display_path(Dwarf_Die *cudie, const char *path)
{
	if (!path)
		return NULL;
	Dwarf_Attribute attr;
	const char *comp_dir = cudie && dwarf_attr(cudie, DW_AT_comp_dir, &attr)
		? dwarf_formstring(&attr) : NULL;
	size_t len = comp_dir ? strlen(comp_dir) : 0;
	if (!len)
		return path;
	if (!strncmp(path, comp_dir, len) && path[len] == '/' && !strncmp(path + len + 1, "../", 3))
		return path + len + 1;
	/* The unit's own source: gdb shows it as DW_AT_name spells it,
	   "x.c" for "gcc x.c", "/abs/sub/y.c" where clang wrote "sub/y.c"
	   in the line table, when the compilation directory is absolute
	   (glibc's are relative, "./nptl": there gdb shows libdw's join).  */
	const char *name = dwarf_diename(cudie);
	if (comp_dir[0] == '/' && name && same_file(comp_dir, len, path, name))
		return name;
	return path;
}

const char *sg_display_path(Dwarf_Die *cudie, const char *path)
{
	return display_path(cudie, path);
}

const char *sg_die_function_name(struct sg_target *t, Dwarf_Die *die)
{
	return die_function_name(t, die);
}

static const char *call_file(Dwarf_Die *cudie, Dwarf_Die *inlined)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	if (!dwarf_attr(inlined, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) != 0 ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return display_path(cudie, dwarf_filesrc(files, idx, NULL, NULL));
}

static int call_line(Dwarf_Die *inlined)
{
	Dwarf_Attribute attr;
	Dwarf_Word line;
	if (!dwarf_attr(inlined, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &line) != 0)
		return 0;
	return line > INT32_MAX ? 0 : (int)line;
}


static bool same_line(Dwarf_Line *a, Dwarf_Line *b)
{
	int la = 0, lb = 0;
	bool end = false;
	dwarf_lineendsequence(a, &end);
	if (end || dwarf_lineno(a, &la) != 0 || dwarf_lineno(b, &lb) != 0 || la != lb)
		return false;
	const char *fa = dwarf_linesrc(a, NULL, NULL), *fb = dwarf_linesrc(b, NULL, NULL);
	return fa && fb && !strcmp(fa, fb);
}

/* The line table row gdb would pick for ADDR (a module address), and the
   address where gdb's line starts.  Of a run of rows of one line, gdb's
   table keeps the first row and those after it up to the first row with
   a non-zero discriminator (dwarf_record_line_p, PR 17276: the flag is
   set by any discriminator since the line changed).  gdb takes the last row
   of its table at the highest address not above ADDR; when that row is
   no statement, the last statement row before it at the same address
   (find_pc_sect_line; a non-statement row of another file at an address
   that has a statement row is not even in gdb's table).  So a return address in the middle of an
   inlined call whose rows are one discriminated run gets the line of the
   statement row where the run starts (the inlined function's opening
   line), not the run's own line.  */
#define MAX_LINE_RUN 256
static bool row_is_stmt(Dwarf_Line *l)
{
	bool stmt = false;
	return dwarf_linebeginstatement(l, &stmt) == 0 && stmt;
}

static Dwarf_Line *gdb_row(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Addr *start_ret)
{
	Dwarf_Lines *lines;
	size_t n;
	if (!cudie || dwarf_getsrclines(cudie, &lines, &n) != 0 || n == 0)
		return NULL;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) != 0 || a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t idx = lo - 1;
	Dwarf_Line *row = dwarf_onesrcline(lines, idx);
	bool end = false;
	if (dwarf_lineendsequence(row, &end) != 0 || end)
		return NULL;
	/* The first row of the run of this line.  */
	size_t first = idx;
	for (size_t k = 0; first > 0 && k < MAX_LINE_RUN; k++) {
		if (!same_line(dwarf_onesrcline(lines, first - 1), row))
			break;
		first--;
	}
	/* gdb records the rows of a run until one has a non-zero
	   discriminator (that one and the rest of the run are dropped), and
	   always the run's first row.  */
	for (size_t j = first; j <= idx; j++) {
		unsigned int d = 0;
		if (dwarf_linediscriminator(dwarf_onesrcline(lines, j), &d) == 0 && d) {
			idx = j > first ? j - 1 : first;
			row = dwarf_onesrcline(lines, idx);
			break;
		}
	}
	Dwarf_Addr at;
	if (dwarf_lineaddr(row, &at) != 0)
		return NULL;
	for (size_t j = idx; !row_is_stmt(dwarf_onesrcline(lines, j)) && j > 0 && idx - j < MAX_LINE_RUN; j--) {
		Dwarf_Line *prev = dwarf_onesrcline(lines, j - 1);
		Dwarf_Addr a;
		int lineno = 0;
		end = false;
		dwarf_lineendsequence(prev, &end);
		if (end || dwarf_lineaddr(prev, &a) != 0 || a != at || dwarf_lineno(prev, &lineno) != 0 ||
		    !lineno)
			break;
		if (row_is_stmt(prev)) {
			row = prev;
			break;
		}
	}
	*start_ret = at;
	return row;
}

/* Describe the frame at PC into a new array; *SCOPES_RET receives the
   scope chain the frames point into (the caller owns it).  */
static struct sg_error *describe(struct sg_target *t, uint64_t pc, bool activation, bool tramp,
				 struct sg_frame **ret, size_t *nret, Dwarf_Die **scopes_ret)
{
	struct sg_frame base = { 0 };
	base.pc = pc;
	base.activation = activation;
	uint64_t lookup = activation ? pc : pc - 1;
	base.module = sg_target_module_at(t, lookup);
	if (tramp) {
		base.signal_trampoline = true;
		base.function = "<signal handler called>";
	}
	struct sg_symbol sym;
	struct sg_error *err = base.module ? sg_symbolize(t, lookup, &sym) : &sg_not_found;
	if (!err) {
		base.has_offset = true;
		base.offset = pc - sym.address;
		if (!tramp)
			base.function = symbol_function_name(t, sym.raw_name);
	} else if (sg_error_code(err) != SG_ERROR_NOT_FOUND) {
		return err;
	}
	sg_error_destroy(err);

	Dwarf_Die *scopes = NULL;
	int nscopes = 0;
	Dwarf_Die *cudie = NULL;
	Dwarf_Addr cu_bias = 0;
	bool asm_unit = false;
	if (base.module && !tramp) {
		Dwarf_Addr bias;
		cudie = sg_frame_cudie(t, base.module, lookup, &bias);
		cu_bias = bias;
		/* Assembler units describe each alias of a function as a
		   subprogram of its own; like gdb, name those by the symbol
		   table (their scopes still serve "info locals").  */
		asm_unit = cudie && dwarf_srclang(cudie) == DW_LANG_Mips_Assembler;
		if (cudie)
			nscopes = sg_frame_scopes(cudie, lookup - bias, &scopes);
	}
	Dwarf_Addr line_start;
	Dwarf_Line *row = gdb_row(cudie, lookup - cu_bias, &line_start);
	if (row) {
		int lineno = 0;
		dwarf_lineno(row, &lineno);
		base.file = display_path(cudie, dwarf_linesrc(row, NULL, NULL));
		base.line = lineno;
		base.line_start = activation && line_start + cu_bias == pc;
	}

	/* The function-like scopes, innermost first, up to the subprogram. */
	Dwarf_Die *funcs[MAX_INLINE_DEPTH];
	int func_index[MAX_INLINE_DEPTH];
	size_t nfuncs = 0;
	for (int i = 0; i < nscopes && nfuncs < MAX_INLINE_DEPTH; i++) {
		if (!sg_die_is_function(&scopes[i]))
			continue;
		func_index[nfuncs] = i;
		funcs[nfuncs++] = &scopes[i];
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			break;
	}
	base.dwarf_bias = cu_bias;
	base.scope_fn = base.scope_first = -1;
	size_t n = nfuncs ? nfuncs : 1;
	struct sg_frame *frames = calloc(n, sizeof(*frames));
	if (!frames) {
		free(scopes);
		return &sg_enomem;
	}
	for (size_t k = 0; k < n; k++) {
		frames[k] = base;
		if (!nfuncs)
			break;
		frames[k].scopes = scopes;
		frames[k].nscopes = nscopes;
		frames[k].scope_fn = func_index[k];
		frames[k].scope_first = k ? func_index[k - 1] : -1;
		const char *name = asm_unit ? NULL : die_function_name(t, funcs[k]);
		if (name)
			frames[k].function = name;
		/* Every frame but the innermost is an inlined call's caller:
		   its location is the call site.  */
		frames[k].inlined = dwarf_tag(funcs[k]) == DW_TAG_inlined_subroutine;
		if (k > 0) {
			frames[k].file = call_file(cudie, funcs[k - 1]);
			frames[k].line = call_line(funcs[k - 1]);
			frames[k].line_start = false;
		}
	}
	if (!nfuncs) {
		free(scopes);
		scopes = NULL;
	}
	*ret = frames;
	*nret = n;
	*scopes_ret = scopes;
	return NULL;
}

/* The description of a frame at PC, from T's cache or made there.  */
static struct sg_error *described(struct sg_target *t, uint64_t pc, bool activation, bool tramp,
				  struct desc_entry **ret)
{
	/* PCs are below 2^62 on x86-64; the low bits hold the flags.  */
	uint64_t key = (pc << 2 | (activation ? 2 : 0) | (tramp ? 1 : 0)) + 1;
	if (!t->frame_cache && !(t->frame_cache = calloc(1, sizeof(*t->frame_cache))))
		return &sg_enomem;
	struct desc_entry *e = cache_find(t->frame_cache, key, false);
	if (!e) {
		struct sg_frame *desc;
		size_t n;
		Dwarf_Die *scopes;
		struct sg_error *err = describe(t, pc, activation, tramp, &desc, &n, &scopes);
		if (err)
			return err;
		e = cache_find(t->frame_cache, key, true);
		if (!e) {
			free(desc);
			free(scopes);
			return &sg_enomem;
		}
		e->frames = desc;
		e->n = n;
		e->scopes = scopes;
	}
	*ret = e;
	return NULL;
}

/* The concrete subprogram around the call that returns to RETURN_PC (a
   caller frame's pc), from that frame's description, which the unwinder
   needs next anyway: no second walk of the unit's DIEs for the tail-call
   search.  */
bool sg_frame_caller_subprogram(struct sg_target *t, uint64_t return_pc, Dwarf_Die *ret)
{
	struct desc_entry *e;
	struct sg_error *err = described(t, return_pc, false, false, &e);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	if (!e->scopes || !e->n)
		return false;
	for (int i = 0; i < e->frames[0].nscopes; i++) {
		if (dwarf_tag(&e->scopes[i]) == DW_TAG_subprogram) {
			*ret = e->scopes[i];
			return true;
		}
	}
	return false;
}

struct sg_error *sg_frame_describe(struct sg_target *t, const struct sg_unwind_frame *uf, bool tramp,
				   const char *unwinder, size_t physical, struct sg_frame **frames,
				   size_t *nframes, size_t *cap)
{
	struct desc_entry *e;
	struct sg_error *err = described(t, uf->regs.r[SG_REG_RIP], uf->activation, tramp, &e);
	if (err)
		return err;
	for (size_t i = 0; i < e->n; i++) {
		struct sg_frame *f = sg_array_push(frames, nframes, cap, sizeof(*f));
		if (!f)
			return &sg_enomem;
		*f = e->frames[i];
		f->level = *nframes - 1;
		f->physical = physical;
		f->regs = &uf->regs;
		f->unwinder = unwinder;
	}
	return NULL;
}
