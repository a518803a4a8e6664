/* Finding variables and types by name in the modules' DWARF.

   This walks each unit's top-level DIEs (and namespaces) on demand, the
   executable first.  It does not yet build an index: see issue 4 for the
   lazy, cached index that big modules need.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>

#define MAX_NAMESPACE_DEPTH 8

struct want {
	const char *name;	/* the last component of a qualified name */
	const char *scopes[MAX_NAMESPACE_DEPTH];	/* the components before it */
	size_t nscopes;
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

/* Search the children of PARENT, whose qualified name matched the first
   MATCHED scopes of W.  An unqualified name is looked for in every
   namespace.  Returns true when a definition is found. */
static bool search_children(Dwarf_Die *parent, struct want *w, size_t matched, int depth)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (scope_tag(tag) && depth < MAX_NAMESPACE_DEPTH) {
			const char *sname = dwarf_diename(&child);
			if (matched < w->nscopes) {
				if (sname && !strcmp(sname, w->scopes[matched]) &&
				    search_children(&child, w, matched + 1, depth + 1))
					return true;
			} else if (tag == DW_TAG_namespace && !w->nscopes &&
				   search_children(&child, w, matched, depth + 1)) {
				return true;
			}
			if (tag == DW_TAG_namespace)
				continue;
		}
		if (matched < w->nscopes)
			continue;
		const char *name = dwarf_diename(&child);
		if (!name || strcmp(name, w->name))
			continue;
		bool match = w->variable ? tag == DW_TAG_variable
			   : w->tag ? tag == w->tag : is_type_tag(tag);
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

/* Search MOD's units; BIAS_RET gets the module's DWARF bias.  */
static bool search_module(struct sg_module *mod, struct want *w, Dwarf_Addr *bias_ret)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod->dwmod, &bias);
	if (!dw)
		return false;
	*bias_ret = bias;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) && search_children(&cu, w, 0, 0))
			return true;
		off = next;
	}
	return false;
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
	return true;
}

/* Search the executable first, then every other module.  */
static struct sg_module *search(struct sg_target *t, struct want *w, Dwarf_Addr *bias_ret)
{
	if (sg_target_load_modules(t))
		return NULL;
	struct sg_module *first = NULL;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < t->nmodules; i++) {
			struct sg_module *m = t->modules[i];
			bool is_exe = t->exe && !strcmp(m->name, t->exe);
			if ((pass == 0) != is_exe)
				continue;
			if (search_module(m, w, bias_ret))
				return m;
			if (w->have && !first)
				first = m;
		}
	}
	return w->have ? first : NULL;
}

struct sg_error *sg_lookup_variable(struct sg_target *t, const char *name, Dwarf_Die *type_ret,
				    uint64_t *address_ret)
{
	struct want w = { .variable = true };
	char buf[1024];
	if (!split_name(name, &w, buf, sizeof(buf)))
		return &sg_not_found;
	Dwarf_Addr bias = 0;
	if (!search(t, &w, &bias))
		return &sg_not_found;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (!dwarf_attr(&w.found, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) != 0 ||
	    nops != 1 || ops[0].atom != DW_OP_addr) {
		/* Only static storage for now: locals come with frames.  */
		return sg_error_format(SG_ERROR_LOOKUP,
				       "\"%s\" is not a variable with a static address", name);
	}
	Dwarf_Die type;
	if (!dwarf_attr_integrate(&w.found, DW_AT_type, &a) || !dwarf_formref_die(&a, &type))
		return sg_error_format(SG_ERROR_BAD_DATA, "variable \"%s\" has no type", name);
	*type_ret = type;
	*address_ret = ops[0].number + bias;
	return NULL;
}

struct sg_error *sg_lookup_type(struct sg_target *t, const char *name, Dwarf_Die *ret)
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
	char buf[1024];
	if (!split_name(name, &w, buf, sizeof(buf)))
		return &sg_not_found;
	Dwarf_Addr bias;
	if (!search(t, &w, &bias))
		return &sg_not_found;
	*ret = w.found;
	return NULL;
}

void sg_type_complete(struct sg_target *t, Dwarf_Die *die, Dwarf_Die *ret)
{
	*ret = *die;
	const char *name = dwarf_diename(die);
	if (!is_declaration(die) || !name)
		return;
	struct want w = { .name = name, .tag = dwarf_tag(die) };
	Dwarf_Addr bias;
	if (search(t, &w, &bias) && !is_declaration(&w.found))
		*ret = w.found;
}
