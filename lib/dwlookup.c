/* Finding variables and types by name in the modules' DWARF.

   Names at a unit's top level and in namespaces come from each module's
   lazy index (typeindex.c); a qualified name that goes through a class
   ("ns::Klass::Nested") finds the class there and searches its children.
   The executable is searched first, then the other modules, and a
   definition wins over a declaration.  Results, "not found" included, are
   cached per target until the modules change.  */
#include <config.h>
#include "internal.h"
#include "eval.h"

#include <ctype.h>

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>

#define MAX_NAMESPACE_DEPTH 8

struct want {
	const char *name;	/* the last component of a qualified name */
	const char *scopes[MAX_NAMESPACE_DEPTH];	/* the components before it */
	size_t nscopes;
	char scope[1024];	/* the scopes joined with "::" */
	bool any_scope;		/* match NAME in any namespace */
	int tag;		/* 0: a type of any tag with a plain name */
	bool variable;
	Dwarf_Die found;
	bool have;
};

static bool is_type_tag(int tag)
{
	return tag == DW_TAG_base_type || tag == DW_TAG_typedef || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static bool is_declaration(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	bool decl = false;
	if (dwarf_attr(die, DW_AT_declaration, &a))
		dwarf_formflag(&a, &decl);
	return decl;
}

static bool scope_tag(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type;
}

/* Does an entry's tag fit W?  struct and class are one kind, as in gdb.  */
static bool tag_match(const struct want *w, int tag)
{
	if (w->variable)
		return tag == DW_TAG_variable;
	if (!w->tag)
		return is_type_tag(tag);
	if (w->tag == DW_TAG_structure_type || w->tag == DW_TAG_class_type)
		return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
	return tag == w->tag;
}

/* Search the children of the class PARENT, whose qualified name matched the
   first MATCHED scopes of W.  Returns true when a definition is found. */
static bool search_class(Dwarf_Die *parent, struct want *w, size_t matched, int depth)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		if (!name)
			continue;
		if (matched < w->nscopes) {
			if (scope_tag(tag) && depth < MAX_NAMESPACE_DEPTH &&
			    !strcmp(name, w->scopes[matched]) &&
			    search_class(&child, w, matched + 1, depth + 1))
				return true;
			continue;
		}
		if (strcmp(name, w->name))
			continue;
		/* DWARF 4 has static data members as declared DW_TAG_members.  */
		bool match = tag_match(w, tag) ||
			     (w->variable && tag == DW_TAG_member && is_declaration(&child));
		if (!match)
			continue;
		Dwarf_Attribute a;
		bool definition = w->variable ? dwarf_attr(&child, DW_AT_location, &a) != NULL
					      : !is_declaration(&child);
		if (definition || !w->have) {
			w->found = child;
			w->have = true;
		}
		if (definition)
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Take the index entry E of IDX if it fits W; true if it is a definition.  */
static bool take_entry(struct sg_name_index *idx, Dwarf *dw, const struct sg_name_entry *e,
		       struct want *w)
{
	if (!tag_match(w, e->tag))
		return false;
	if (!w->any_scope && strcmp(sg_name_index_scope(idx, e->scope), w->scope))
		return false;
	Dwarf_Off off = e->off;
	bool definition;
	if (w->variable) {
		definition = e->flags & SG_NAME_LOCATION;
		Dwarf_Off def;
		if (!definition && (def = sg_name_index_definition(idx, e->off))) {
			off = def;
			definition = true;
		}
	} else {
		definition = !(e->flags & SG_NAME_DECLARATION);
	}
	if (!definition && w->have)
		return false;
	Dwarf_Die die;
	if (!dwarf_offdie(dw, off, &die))
		return false;
	w->found = die;
	w->have = true;
	return definition;
}

/* "A::B::name" where A::B is a class: find A::B in the index, then NAME
   among its children.  */
static bool search_through_class(struct sg_name_index *idx, Dwarf *dw, struct want *w)
{
	for (size_t k = w->nscopes; k-- > 0;) {
		struct want cw = { .name = w->scopes[k], .tag = DW_TAG_structure_type };
		size_t len = 0;
		for (size_t i = 0; i < k; i++)
			len += snprintf(cw.scope + len, sizeof(cw.scope) - len, "%s%s",
					i ? "::" : "", w->scopes[i]);
		uint32_t cursor = 0;
		struct sg_name_entry e;
		while (sg_name_index_next(idx, cw.name, &cursor, &e)) {
			if (e.tag != DW_TAG_union_type && !tag_match(&cw, e.tag))
				continue;
			Dwarf_Die cls;
			if ((e.flags & SG_NAME_DECLARATION) ||
			    strcmp(sg_name_index_scope(idx, e.scope), cw.scope) ||
			    !dwarf_offdie(dw, e.off, &cls))
				continue;
			bool had = w->have;
			if (search_class(&cls, w, k + 1, 0))
				return true;
			if (w->have && !had && w->variable) {
				/* A static member: defined at the top level.  */
				Dwarf_Off def = sg_name_index_definition(idx, dwarf_dieoffset(&w->found));
				if (def && dwarf_offdie(dw, def, &w->found))
					return true;
			}
		}
	}
	return false;
}

/* Search MOD; BIAS_RET gets the module's DWARF bias.  */
static bool search_module(struct sg_module *mod, struct want *w, Dwarf_Addr *bias_ret)
{
	struct sg_name_index *idx;
	if (sg_module_name_index(mod, &idx))
		return false;
	Dwarf *dw = sg_name_index_dwarf(idx, bias_ret);
	uint32_t cursor = 0;
	struct sg_name_entry e;
	while (sg_name_index_next(idx, w->name, &cursor, &e))
		if (take_entry(idx, dw, &e, w))
			return true;
	return w->nscopes && search_through_class(idx, dw, w);
}

/* Split NAME ("ns::Klass::member") into W's scopes and last component, in
   BUF (a copy).  "::" inside template arguments does not split.  */
static bool split_name(const char *name, struct want *w, char *buf, size_t size)
{
	if (strlen(name) >= size)
		return false;
	strcpy(buf, name);
	w->nscopes = 0;
	char *start = buf;
	int angle = 0;
	for (char *p = buf; *p; p++) {
		if (*p == '<')
			angle++;
		else if (*p == '>')
			angle--;
		else if (!angle && p[0] == ':' && p[1] == ':') {
			if (w->nscopes == MAX_NAMESPACE_DEPTH)
				return false;
			*p = '\0';
			w->scopes[w->nscopes++] = start;
			start = p + 2;
			p++;
		}
	}
	w->name = start;
	size_t len = 0;
	for (size_t i = 0; i < w->nscopes; i++)
		len += snprintf(w->scope + len, sizeof(w->scope) - len, "%s%s", i ? "::" : "",
				w->scopes[i]);
	w->any_scope = !w->nscopes;
	return true;
}

/* ---- results, cached per target ---- */

struct lookup_result {
	char *key;
	struct sg_module *mod;	/* NULL: not found */
	Dwarf_Die die;
	Dwarf_Addr bias;
};

struct sg_lookup_cache {
	struct lookup_result *v;
	size_t n, cap;
	struct sg_strmap map;
};

void sg_lookup_cache_destroy(struct sg_lookup_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].key);
	free(c->v);
	sg_strmap_deinit(&c->map);
	free(c);
}

static const struct lookup_result *cache_get(struct sg_target *t, const char *key)
{
	if (!t->lookups)
		return NULL;
	uint32_t i = sg_strmap_get(&t->lookups->map, key);
	return i == UINT32_MAX ? NULL : &t->lookups->v[i];
}

/* Remember a result; a failure to allocate only costs the next lookup.  */
static void cache_put(struct sg_target *t, const char *key, struct sg_module *mod,
		      const struct want *w, Dwarf_Addr bias)
{
	if (!t->lookups && !(t->lookups = calloc(1, sizeof(*t->lookups))))
		return;
	struct sg_lookup_cache *c = t->lookups;
	char *copy = strdup(key);
	struct lookup_result *r = copy ? sg_array_push(&c->v, &c->n, &c->cap, sizeof(*r)) : NULL;
	if (!r) {
		free(copy);
		return;
	}
	*r = (struct lookup_result){ copy, mod, w->found, bias };
	if (!sg_strmap_put(&c->map, copy, c->n - 1)) {
		c->n--;
		free(copy);
	}
}

/* Search the executable first, then every other module (but SKIP).  */
static struct sg_module *search_all(struct sg_target *t, struct want *w, struct sg_module *skip,
				    Dwarf_Addr *bias_ret)
{
	struct sg_module *first = NULL;
	Dwarf_Addr first_bias = 0;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < t->nmodules; i++) {
			struct sg_module *m = t->modules[i];
			bool is_exe = t->exe && !strcmp(m->name, t->exe);
			if ((pass == 0) != is_exe || m == skip)
				continue;
			bool had = w->have;
			Dwarf_Addr bias = 0;
			if (search_module(m, w, &bias)) {
				*bias_ret = bias;
				return m;
			}
			if (w->have && !had && !first) {
				first = m;
				first_bias = bias;
			}
		}
	}
	*bias_ret = first_bias;
	return w->have ? first : NULL;
}

/* search_all() through the cache, under KEY.  */
static struct sg_module *search(struct sg_target *t, const char *key, struct want *w,
				Dwarf_Addr *bias_ret)
{
	if (sg_target_load_modules(t))
		return NULL;
	const struct lookup_result *r = cache_get(t, key);
	if (r) {
		w->found = r->die;
		w->have = r->mod != NULL;
		*bias_ret = r->bias;
		return r->mod;
	}
	struct sg_module *m = search_all(t, w, NULL, bias_ret);
	cache_put(t, key, m, w, *bias_ret);
	return m;
}

/* The address in a one-operation location: DW_OP_addr, or DWARF 5's
   DW_OP_addrx (an index into .debug_addr, which clang emits by default).  */
static bool static_address(Dwarf_Attribute *loc, Dwarf_Op *op, Dwarf_Addr *ret)
{
	if (op->atom == DW_OP_addr) {
		*ret = op->number;
		return true;
	}
	Dwarf_Attribute addr;
	return (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index) &&
	       dwarf_getlocation_attr(loc, op, &addr) == 0 && dwarf_formaddr(&addr, ret) == 0;
}

/* The DIE of the variable NAME, definitions first, into W->found.  */
static bool find_variable(struct sg_target *t, const char *name, struct want *w, Dwarf_Addr *bias)
{
	char buf[1024], key[1100];
	*w = (struct want){ .variable = true };
	if (!split_name(name, w, buf, sizeof(buf)))
		return false;
	snprintf(key, sizeof(key), "v:%s", name);
	*bias = 0;
	return search(t, key, w, bias) != NULL;
}

/* A thread-local variable's location: its offset in its module's TLS
   block (DW_OP_addr or DW_OP_const8u, then DW_OP_GNU_push_tls_address
   or DW_OP_form_tls_address).  */
static bool tls_offset(const Dwarf_Op *ops, size_t nops, uint64_t *ret)
{
	if (nops != 2 || (ops[1].atom != DW_OP_GNU_push_tls_address &&
			  ops[1].atom != DW_OP_form_tls_address) ||
	    (ops[0].atom != DW_OP_addr && ops[0].atom != DW_OP_const8u &&
	     ops[0].atom != DW_OP_const4u && ops[0].atom != DW_OP_constu))
		return false;
	*ret = ops[0].number;
	return true;
}

struct sg_error *sg_lookup_variable(struct sg_target *t, const char *name, Dwarf_Die *type_ret,
				    uint64_t *address_ret)
{
	return sg_lookup_thread_variable(t, NULL, name, type_ret, address_ret);
}

struct sg_error *sg_lookup_thread_variable(struct sg_target *t, const struct sg_thread *thread,
					   const char *name, Dwarf_Die *type_ret, uint64_t *address_ret)
{
	struct want w;
	Dwarf_Addr bias;
	struct sg_module *mod;
	char key[1100];
	if (!find_variable(t, name, &w, &bias))
		return &sg_not_found;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr addr;
	uint64_t off;
	if (thread && dwarf_attr(&w.found, DW_AT_location, &a) &&
	    dwarf_getlocation(&a, &ops, &nops) == 0 && tls_offset(ops, nops, &off)) {
		/* The module that defines it: the cached search's.  */
		snprintf(key, sizeof(key), "v:%s", name);
		mod = search(t, key, &w, &bias);
		struct sg_error *err = mod ? sg_tls_address(t, thread, mod, off, &addr) : &sg_not_found;
		if (err)
			return err;
		if (!dwarf_attr_integrate(&w.found, DW_AT_type, &a) || !dwarf_formref_die(&a, type_ret))
			return sg_error_format(SG_ERROR_BAD_DATA, "variable \"%s\" has no type", name);
		*address_ret = addr;
		return NULL;
	}
	if (!dwarf_attr(&w.found, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) != 0 ||
	    nops != 1 || !static_address(&a, &ops[0], &addr)) {
		/* Only static storage for now: locals come with frames.  */
		return sg_error_format(SG_ERROR_LOOKUP,
				       "\"%s\" is not a variable with a static address", name);
	}
	Dwarf_Die type;
	if (!dwarf_attr_integrate(&w.found, DW_AT_type, &a) || !dwarf_formref_die(&a, &type))
		return sg_error_format(SG_ERROR_BAD_DATA, "variable \"%s\" has no type", name);
	*type_ret = type;
	*address_ret = addr + bias;
	return NULL;
}


/* A global the compiler folded away, whose value DWARF still gives
   (DW_AT_const_value, no location) or not (a definition without either,
   gdb's <optimized out>): its DIE, which gdb prints from.  &sg_not_found
   for anything else.  */
struct sg_error *sg_lookup_constant(struct sg_target *t, const char *name, Dwarf_Die *ret)
{
	struct want w;
	Dwarf_Addr bias;
	if (!find_variable(t, name, &w, &bias) || dwarf_hasattr(&w.found, DW_AT_location) ||
	    (!dwarf_hasattr_integrate(&w.found, DW_AT_const_value) &&
	     dwarf_hasattr(&w.found, DW_AT_declaration)))
		return &sg_not_found;
	*ret = w.found;
	return NULL;
}

SG_PUBLIC Dwarf_Die *sg_lookup_unit_at(struct sg_target *t, struct sg_module *mod, uint64_t addr,
				       uint64_t *bias);

/* The unit whose code covers ADDR (a target address) in MOD, and its
   DWARF's bias; NULL when none does.  gdb's blocks there: a frame whose
   pc is in a unit but in none of its functions has the unit's static
   block.  */
Dwarf_Die *sg_lookup_unit_at(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			     uint64_t *bias)
{
	Dwarf_Addr b = 0;
	Dwarf_Die *cu = mod ? sg_frame_cudie(t, mod, addr, &b) : NULL;
	*bias = b;
	return cu;
}

/* A run of base type keywords in GCC's DWARF spelling: "long" and "long
   int" are "long int", "unsigned long" is "long unsigned int".  */
static const char *gcc_base_name(unsigned nlong, bool is_short, bool is_unsigned, bool is_signed,
				 bool is_char, bool is_int)
{
	if (is_char)
		return is_unsigned ? "unsigned char" : is_signed ? "signed char" : "char";
	if (nlong >= 2)
		return is_unsigned ? "long long unsigned int" : "long long int";
	if (nlong == 1)
		return is_unsigned ? "long unsigned int" : "long int";
	if (is_short)
		return is_unsigned ? "short unsigned int" : "short int";
	if (is_unsigned)
		return "unsigned int";
	return is_int || is_signed ? "int" : NULL;
}

/* NAME with its template arguments spelled as GCC's DWARF spells them
   ("Box<long>" is DWARF's "Box<long int>", ">>" its "> >"), into OUT;
   false when nothing changes or OUT is too small.  */
static bool gcc_spelling(const char *name, char *out, size_t size)
{
	struct sg_buf b;
	sg_buf_init(&b);
	int depth = 0;
	for (const char *p = name; *p;) {
		if (*p == '<' || *p == '>') {
			depth += *p == '<' ? 1 : -1;
			if (*p == '>' && b.len && b.data[b.len - 1] == '>')
				sg_buf_puts(&b, " ");
			sg_buf_printf(&b, "%c", *p++);
			continue;
		}
		if (depth <= 0 || !(isalpha((unsigned char)*p) || *p == '_')) {
			sg_buf_printf(&b, "%c", *p++);
			continue;
		}
		/* A run of words: base type keywords, or a name to copy.  */
		unsigned nlong = 0, nwords = 0;
		bool is_short = false, is_unsigned = false, is_signed = false, is_char = false;
		bool is_int = false, keyword = true;
		const char *q = p, *end = p;
		while (keyword && (isalpha((unsigned char)*q) || *q == '_')) {
			const char *w = q;
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			size_t n = (size_t)(q - w);
#define IS(kw) (n == sizeof(kw) - 1 && !strncmp(w, kw, n))
			if (IS("long"))
				nlong++;
			else if (IS("short"))
				is_short = true;
			else if (IS("unsigned"))
				is_unsigned = true;
			else if (IS("signed"))
				is_signed = true;
			else if (IS("char"))
				is_char = true;
			else if (IS("int"))
				is_int = true;
			else
				keyword = false;
#undef IS
			if (keyword) {
				nwords++;
				end = q;
				while (*q == ' ')
					q++;
			}
		}
		const char *gcc = nwords ? gcc_base_name(nlong, is_short, is_unsigned, is_signed,
							  is_char, is_int) : NULL;
		if (gcc) {
			sg_buf_puts(&b, gcc);
			p = end;
		} else {
			/* Not a base type: copy the word.  */
			const char *w = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			sg_buf_printf(&b, "%.*s", (int)(p - w), w);
		}
	}
	char *s = sg_buf_steal(&b);
	bool changed = s && strcmp(s, name) && strlen(s) < size;
	if (changed)
		strcpy(out, s);
	free(s);
	return changed;
}

static struct sg_error *lookup_type(struct sg_target *t, const char *name, Dwarf_Die *ret);

struct sg_error *sg_lookup_type(struct sg_target *t, const char *name, Dwarf_Die *ret)
{
	struct sg_error *err = lookup_type(t, name, ret);
	char gcc[1024];
	if (err == &sg_not_found && strchr(name, '<') && gcc_spelling(name, gcc, sizeof(gcc)))
		err = lookup_type(t, gcc, ret);
	return err;
}

static struct sg_error *lookup_type(struct sg_target *t, const char *name, Dwarf_Die *ret)
{
	static const struct { const char *prefix; int tag; } kinds[] = {
		{ "struct ", DW_TAG_structure_type }, { "class ", DW_TAG_class_type },
		{ "union ", DW_TAG_union_type }, { "enum ", DW_TAG_enumeration_type },
	};
	struct want w = { 0 };
	for (size_t i = 0; i < SG_ARRAY_SIZE(kinds); i++) {
		size_t n = strlen(kinds[i].prefix);
		if (!strncmp(name, kinds[i].prefix, n)) {
			name += n;
			w.tag = kinds[i].tag;
			break;
		}
	}
	char buf[1024], key[1100];
	if (!split_name(name, &w, buf, sizeof(buf)))
		return &sg_not_found;
	snprintf(key, sizeof(key), "t%d:%s", w.tag, name);
	Dwarf_Addr bias;
	if (!search(t, key, &w, &bias))
		return &sg_not_found;
	*ret = w.found;
	return NULL;
}

/* The module whose DWARF is DW, or NULL (say, a dwz file).  */
static struct sg_module *module_of(struct sg_target *t, Dwarf *dw)
{
	for (size_t i = 0; i < t->nmodules; i++) {
		struct sg_module *m = t->modules[i];
		if (m->names && sg_name_index_dwarf(m->names, NULL) == dw)
			return m;
	}
	return NULL;
}

void sg_type_complete(struct sg_target *t, Dwarf_Die *die, Dwarf_Die *ret)
{
	*ret = *die;
	const char *name = dwarf_diename(die);
	if (!is_declaration(die) || !name || sg_target_load_modules(t))
		return;
	Dwarf *dw = dwarf_cu_getdwarf(die->cu);
	Dwarf_Off off = dwarf_dieoffset(die);
	char key[64];
	snprintf(key, sizeof(key), "c%p:%" PRIx64, (void *)dw, (uint64_t)off);
	const struct lookup_result *r = cache_get(t, key);
	if (r) {
		if (r->mod)
			*ret = r->die;
		return;
	}
	/* The declaration's own namespace when the index has it; any
	   namespace otherwise (a class nested in another).  */
	struct want w = { .name = name, .tag = dwarf_tag(die), .any_scope = true };
	struct sg_module *own = module_of(t, dw), *m = NULL;
	struct sg_name_entry e;
	if (own && sg_name_index_at(own->names, off, &e)) {
		snprintf(w.scope, sizeof(w.scope), "%s", sg_name_index_scope(own->names, e.scope));
		w.any_scope = false;
	}
	Dwarf_Addr bias = 0;
	if (own && search_module(own, &w, &bias))
		m = own;
	else
		m = search_all(t, &w, own, &bias);
	if (m && is_declaration(&w.found))
		m = NULL;
	cache_put(t, key, m, &w, bias);
	if (m)
		*ret = w.found;
}

struct sg_error *sg_lookup_function(struct sg_target *t, const char *name, Dwarf_Die *ret,
				    uint64_t *address_ret)
{
	/* The symbol table names functions in every module, the DWARF at
	   their address says their type.  */
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, name, &sym);
	if (err)
		return err;
	if (sym.kind != STT_FUNC && sym.kind != STT_GNU_IFUNC)
		return &sg_not_found;
	Dwarf_Addr bias;
	/* Not dwfl_module_addrdie and dwarf_getscopes: clang writes no
	   .debug_aranges and puts definitions inside namespaces.  */
	Dwarf_Die *cudie = sg_frame_cudie(t, sym.module, sym.address, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cudie ? sg_frame_scopes(cudie, sym.address - bias, &scopes) : 0;
	bool found = false;
	for (int i = 0; i < n && !found; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*ret = scopes[i];
			found = true;
		}
	free(scopes);
	if (!found)
		return &sg_not_found;
	*address_ret = sym.address;
	return NULL;
}
