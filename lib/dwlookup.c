/* Finding variables and types by name in the modules' DWARF.

   This walks each unit's top-level DIEs (and namespaces) on demand, the
   executable first.  It does not yet build an index: see issue 4 for the
   lazy, cached index that big modules need.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>

#define MAX_NAMESPACE_DEPTH 8

struct want {
	const char *name;
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

/* Search the children of PARENT.  Returns true when a definition is found. */
static bool search_children(Dwarf_Die *parent, struct want *w, int depth)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_namespace && depth < MAX_NAMESPACE_DEPTH) {
			if (search_children(&child, w, depth + 1))
				return true;
			continue;
		}
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
		if (dwarf_offdie(dw, off + hsize, &cu) && search_children(&cu, w, 0))
			return true;
		off = next;
	}
	return false;
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
	struct want w = { .name = name, .variable = true };
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
	struct want w = { .name = name };
	for (size_t i = 0; i < SG_ARRAY_SIZE(kinds); i++) {
		size_t n = strlen(kinds[i].prefix);
		if (!strncmp(name, kinds[i].prefix, n)) {
			w.name = name + n;
			w.tag = kinds[i].tag;
			break;
		}
	}
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
