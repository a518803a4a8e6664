/* The chain of scopes around an address in a CU: the DIEs that contain
   it, innermost first, down to the CU.

   One walk finds the innermost DIE with code at the address and keeps
   the path to it.  It descends only into DIEs that contain the address,
   and asks for addresses only of tags that can have them: a CU's many
   types, variables and other functions cost a tag read and a sibling
   step each (GCC's DW_AT_sibling makes the step skip the children).
   dwarf_getscopes followed by dwarf_getscopes_die took three walks of
   the CU for a pc in an inlined call (the second one, after the
   abstract origin, unpruned), which was most of the cost of describing
   a frame in a large CU such as libc's.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#define MAX_SCOPE_DEPTH 64	/* nested DIEs on a path */
#define MAX_IMPORT_DEPTH 8	/* nested DW_TAG_imported_unit */

bool sg_die_is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* Tags whose DIEs may have addresses (dwarf_getscopes asks every DIE;
   only these have them).  */
static bool may_have_pc(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_entry_point:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_module:
		return true;
	default:
		return false;
	}
}

struct path {
	Dwarf_Addr addr;
	Dwarf_Die dies[MAX_SCOPE_DEPTH];
	int n;
	bool imported;	/* the innermost DIE is in an imported unit */
};

/* Find the first child of PARENT with code at P->addr and descend into
   it, as dwarf_getscopes does: an imported unit's children count as
   PARENT's own, and DIEs without addresses (namespaces, classes) are
   not entered.  Returns whether one was found.  */
static bool descend(struct path *p, Dwarf_Die *parent, int imports)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die unit;
			if (imports < MAX_IMPORT_DEPTH &&
			    dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit) &&
			    dwarf_tag(&unit) != DW_TAG_compile_unit && descend(p, &unit, imports + 1)) {
				p->imported = true;
				return true;
			}
			continue;
		}
		if (!may_have_pc(tag) || dwarf_haspc(&child, p->addr) <= 0)
			continue;
		if (p->n == MAX_SCOPE_DEPTH)
			return true;	/* deeper than any real program */
		p->dies[p->n++] = child;
		if (dwarf_haschildren(&child))
			descend(p, &child, imports);
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The innermost scope with code at ADDR under PARENT, into *RET.  Unlike
   dwarf_getscopes, look inside namespaces and classes, which have no
   addresses of their own: clang defines functions in their namespace's
   DIE, GCC a lambda's call operator in its closure type, itself in the
   function that holds the lambda.  */
static bool find_pc_scope(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *ret, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_module) {
			if (find_pc_scope(&child, addr, ret, depth + 1))
				return true;
		} else if (may_have_pc(tag)) {
			if (dwarf_haspc(&child, addr) > 0) {
				*ret = child;
				find_pc_scope(&child, addr, ret, depth + 1);
				return true;
			}
			/* A local class's functions lie outside its
			   function's addresses.  */
			if (find_pc_scope(&child, addr, ret, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int sg_frame_scopes(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Die **scopes)
{
	*scopes = NULL;
	struct path *p = malloc(sizeof(*p));
	if (!p)
		return 0;
	p->addr = addr;
	p->n = 0;
	p->imported = false;
	descend(p, cudie, 0);
	bool have = false;
	for (int i = 0; i < p->n && !have; i++)
		have = sg_die_is_function(&p->dies[i]);
	Dwarf_Die inner;
	if (have && !p->imported) {
		/* The path is the chain: innermost first, then the CU.  */
		Dwarf_Die *chain = malloc((p->n + 1) * sizeof(*chain));
		if (chain) {
			for (int i = 0; i < p->n; i++)
				chain[i] = p->dies[p->n - 1 - i];
			chain[p->n] = *cudie;
			*scopes = chain;
		}
		int n = chain ? p->n + 1 : 0;
		free(p);
		return n;
	}
	if (have)
		inner = p->dies[p->n - 1];
	else
		have = find_pc_scope(cudie, addr, &inner, 0);
	free(p);
	if (!have)
		return 0;
	/* Found in an imported unit or off the pruned walk: its chain is
	   that of its own unit.  */
	int n = dwarf_getscopes_die(&inner, scopes);
	return n < 0 ? 0 : n;
}

int sg_scopes_subprogram(const Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag((Dwarf_Die *)&scopes[i]) == DW_TAG_subprogram)
			return i;
	return -1;
}
