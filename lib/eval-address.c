/* info address for a variable of the selected frame: where it lives, in
   gdb's words, from its DWARF location.  */
#include <config.h>
#include "eval.h"
#include "dwarf-describe.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <string.h>

/* Where VAR, a variable of frame F, lives, in gdb's words, to OUT: a
   location (a register, an expression, a location list range by range)
   as info scope says it (dwarf-describe.c), after the frame's pc.  */
static struct sg_error *describe_local(const struct sg_frame *f, Dwarf_Die *var,
				       const char *name, struct sg_out *out)
{
	Dwarf_Attribute a;
	Dwarf_Block blk;
	const char *kind = "computed";
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		kind = dwarf_attr(var, DW_AT_const_value, &a) ? "constant" : "optimized_out";
		sg_out_printf(out, "Symbol \"%s\" is %s.\n", name,
			      kind[0] == 'c' ? "constant" : "optimized out");
	} else if (dwarf_formblock(&a, &blk) == 0 && blk.length == 9 && blk.data[0] == DW_OP_addr) {
		uint64_t addr = 0;
		for (int i = 0; i < 8; i++)
			addr |= (uint64_t)blk.data[1 + i] << (8 * i);
		kind = "static";
		sg_out_printf(out, "Symbol \"%s\" is static storage at address 0x%" PRIx64 ".\n", name,
			      addr + f->dwarf_bias);
		sg_out_hex(out, "address", addr + f->dwarf_bias);
	} else {
		Dwarf_Die cu;
		if (!dwarf_diecu(var, &cu, NULL, NULL))
			return sg_error_create(SG_ERROR_BAD_DATA, "no unit for the variable");
		struct sg_module_info info = { 0 };
		if (f->module)
			sg_module_info(f->module, &info);
		struct sg_describe d;
		sg_describe_init(&d, &cu, f->dwarf_bias, info.name);
		d.name = name;
		bool list = dwarf_formblock(&a, &blk) != 0;
		if (list)
			kind = "multi_location";
		struct sg_error *err = list ? sg_describe_loclist(&d, &a)
					    : blk.length == 0 ? NULL
					    : sg_describe_expr(&d, blk.data, blk.length,
							       f->pc - f->dwarf_bias);
		if (d.text.failed)
			err = &sg_enomem;
		/* gdb leaves what it said before an error.  */
		sg_out_printf(out, "Symbol \"%s\" is %s%s", name, d.text.data ? d.text.data : "",
			      err ? "" : ".\n");
		if (!err)
			sg_out_string(out, "description", d.text.data ? d.text.data : "");
		sg_describe_fini(&d);
		if (err)
			return err;
	}
	sg_out_string(out, "symbol", name);
	sg_out_string(out, "kind", kind);
	return NULL;
}

/* NAME as a variable of the selected frame, innermost block first: those
   hide the globals, as in gdb.  */
bool sg_frame_local_address(struct sg_session *s, const char *name, struct sg_out *out,
			    struct sg_error **err)
{
	const struct sg_frame *f = selected_frame(s);
	if (!f || !f->scopes || f->scope_fn < 0 || f->signal_trampoline || f->tail_call)
		return false;
	for (int i = f->scope_first + 1; i <= f->scope_fn; i++) {
		Dwarf_Die child;
		if (dwarf_child((Dwarf_Die *)&f->scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			const char *n = dwarf_diename(&child);
			if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) && n &&
			    !strcmp(n, name)) {
				*err = describe_local(f, &child, name, out);
				return true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}

/* The name's last component: "f" of "ns::f(int) const".  */
static void last_component(const char *name, const char **ret, size_t *len)
{
	static const char anon[] = "(anonymous namespace)";
	size_t end = 0;
	for (;;) {
		end += strcspn(name + end, "(");
		if (strncmp(name + end, anon, sizeof(anon) - 1))
			break;
		end += sizeof(anon) - 1;
	}
	const char *start = name;
	for (const char *p = name; p < name + end; p++)
		if (p[0] == ':' && p[1] == ':')
			start = p + 2;
	*ret = start;
	*len = (size_t)(name + end - start);
}

/* A function DIE named NAME (LEN bytes) whose code starts at SYM's
   address, in a unit of SYM's module with code there, into *RET.  */
static bool named_function_in(Dwarf_Die *parent, Dwarf_Addr pc, const char *name, size_t len,
			      int depth, Dwarf_Die *ret)
{
	Dwarf_Die child;
	if (depth > 8 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
		    tag == DW_TAG_class_type) {
			if (named_function_in(&child, pc, name, len, depth + 1, ret))
				return true;
			continue;
		}
		Dwarf_Addr low;
		const char *n = dwarf_diename(&child);
		if (tag == DW_TAG_subprogram && n && strlen(n) == len && !strncmp(n, name, len) &&
		    (dwarf_entrypc(&child, &low) == 0 || dwarf_lowpc(&child, &low) == 0) && low == pc) {
			*ret = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static bool named_function(const struct sg_symbol *sym, const char *name, size_t len,
			   Dwarf_Die *ret)
{
	Dwfl_Module *dm = sym->module ? sg_module_dwfl(sym->module) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	while (dm && (cu = dwfl_module_nextcu(dm, cu, &bias)))
		if (dwarf_haspc(cu, sym->address - bias) > 0 &&
		    named_function_in(cu, sym->address - bias, name, len, 0, ret))
			return true;
	return false;
}

char *sg_symbol_debug_name(struct sg_session *s, const struct sg_symbol *sym)
{
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return NULL;
	if (sym->kind == STT_FUNC || sym->kind == STT_GNU_IFUNC) {
		Dwarf_Die die;
		const char *last;
		size_t len;
		last_component(sym->name, &last, &len);
		/* An alias (pause for __libc_pause) is not the DWARF's name.  */
		if (!named_function(sym, last, len, &die))
			return NULL;
		char *full = sg_die_is_cplus(&die) ? sg_cplus_function_name(&die) : NULL;
		return full ? full : strdup(sym->name);
	}
	/* DWARF names a variable without its ABI tag ("g" of g[abi:cxx11]).  */
	char *plain = strdup(sym->name), *tag;
	if (!plain)
		return NULL;
	while ((tag = strstr(plain, "[abi:")) && strchr(tag, ']'))
		memmove(tag, strchr(tag, ']') + 1, strlen(strchr(tag, ']') + 1) + 1);
	Dwarf_Die type;
	uint64_t addr;
	struct sg_error *err = sg_lookup_variable(t, plain, &type, &addr);
	bool found = !err || sg_error_code(err) != SG_ERROR_NOT_FOUND;
	sg_error_destroy(err);
	free(plain);
	return found ? strdup(sym->name) : NULL;
}
