/* Names the shell shows that come from DWARF: a C++ function's linkage
   name, x's labels, a frame's source language.  */
#include <config.h>
#include "eval.h"
#include "src-symtab.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The linkage name gdb gives a C++ function SUB: DW_AT_linkage_name, or
   for one without (main, extern "C") its name and parameter types,
   "main()".  New string, NULL if unnamed.  Disassembly labels use it
   too (disas-labels.c).  */
char *sg_cplus_linkage_name(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(sub, DW_AT_linkage_name, &a));
	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(sub, DW_AT_MIPS_linkage_name, &a));
	if (ln)
		return strdup(ln);
	const char *name = dwarf_diename(sub);
	if (!name)
		return NULL;
	struct sg_buf_lite b = { 0 };
	sg_lite_puts(&b, name);
	sg_lite_putc(&b, '(');
	Dwarf_Die child, type;
	bool first = true;
	if (dwarf_child(sub, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			char *ts = sg_die_type(&child, &type) ? sg_type_string_lang(&type, "", true) : NULL;
			if (!first)
				sg_lite_puts(&b, ", ");
			sg_lite_puts(&b, ts ? ts : "?");
			free(ts);
			first = false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	sg_lite_putc(&b, ')');
	return b.s;
}

/* " <name+off>" as gdb's x labels an address: with the names of the
   object file (its "print asm-demangle" is off), so a C++ function is
   named by its linkage name and a C++ global by its mangled symbol
   (<_Z1gB5cxx11>); C names are as print shows them.  */
void sg_x_label_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	struct sg_symbol sym;
	struct sg_error *err = addr ? sg_symbolize(t, addr, &sym) : &sg_not_found;
	buf[0] = '\0';
	if (err) {
		sg_error_destroy(err);
		return;
	}
	Dwarf_Addr bias = 0, low;
	Dwarf_Die *cu = sym.module && sym.kind == STT_FUNC
				? dwfl_module_addrdie(sg_module_dwfl(sym.module), addr, &bias)
				: NULL;
	if (cu && !sg_die_is_cplus(cu)) {
		sg_symbol_suffix(t, addr, buf, size);
		return;
	}
	const char *name = sym.raw_name;
	uint64_t offset = sym.offset;
	char *owned = NULL;
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	for (int i = n - 1; i >= 0; i--) {
		/* The outermost subprogram: inlined calls are not named.  */
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (dwarf_lowpc(&scopes[i], &low) == 0 && low + bias <= addr &&
		    (owned = sg_cplus_linkage_name(&scopes[i]))) {
			name = owned;
			offset = addr - (low + bias);
		}
		break;
	}
	free(scopes);
	size_t len = strcspn(name, "@");
	if (offset)
		snprintf(buf, size, " <%.*s+%" PRIu64 ">", (int)len, name, offset);
	else
		snprintf(buf, size, " <%.*s>", (int)len, name);
	free(owned);
}

/* gdb's name for the source language of F's unit; NULL without DWARF.  */
const char *sg_frame_language(const struct sg_frame *f)
{
	if (!f->scopes || f->scope_fn < 0 || f->scope_fn >= f->nscopes)
		return NULL;
	Dwarf_Die cu;
	if (!dwarf_diecu((Dwarf_Die *)&f->scopes[f->scope_fn], &cu, NULL, NULL))
		return NULL;
	return sg_unit_language(&cu);
}

bool sg_type_declared_only(struct sg_target *t, Dwarf_Die *type)
{
	Dwarf_Die full;
	sg_type_complete(t, type, &full);
	return dwarf_hasattr(&full, DW_AT_declaration);
}

char *sg_whatis_text(struct xval *x, bool is_type, bool cplus)
{
	if (!is_type || dwarf_tag(&x->v.type) != DW_TAG_typedef)
		return sg_xval_type(x, cplus);
	/* gdb's whatis on a typedef name shows one level down.  */
	Dwarf_Die next;
	return sg_die_type(&x->v.type, &next) ? sg_type_string_lang(&next, "", cplus) : strdup("void");
}
