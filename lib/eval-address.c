/* info address for a variable of the selected frame: where it lives, in
   gdb's words, from its DWARF location.  */
#include <config.h>
#include "eval.h"

#include <dwarf.h>
#include <inttypes.h>
#include <string.h>

/* Whether SUB's frame base is the CFA (GCC's DW_OP_call_frame_cfa).  */
static bool frame_base_is_cfa(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	return dwarf_attr(sub, DW_AT_frame_base, &a) && dwarf_getlocation(&a, &ops, &nops) == 0 &&
	       nops == 1 && ops[0].atom == DW_OP_call_frame_cfa;
}

/* Where VAR, a variable of frame F, lives, in gdb's words, to OUT.  */
static void describe_local(const struct sg_frame *f, Dwarf_Die *var, const char *name,
			   struct sg_out *out)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	const char *kind = "computed";
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		kind = dwarf_attr(var, DW_AT_const_value, &a) ? "constant" : "optimized_out";
		sg_out_printf(out, "Symbol \"%s\" is %s.\n", name,
			      kind[0] == 'c' ? "constant" : "optimized out");
	} else if (dwarf_whatform(&a) != DW_FORM_exprloc && dwarf_whatform(&a) != DW_FORM_block1) {
		/* A location list: where it lives depends on the pc.  */
		kind = "multi_location";
		sg_out_printf(out, "Symbol \"%s\" is multi-location.\n", name);
	} else if (dwarf_getlocation(&a, &ops, &nops) != 0 || nops != 1) {
		sg_out_printf(out, "Symbol \"%s\" is a variable with a complex DWARF expression.\n",
			      name);
	} else if (ops[0].atom == DW_OP_addr) {
		kind = "static";
		sg_out_printf(out, "Symbol \"%s\" is static storage at address 0x%" PRIx64 ".\n", name,
			      ops[0].number + f->dwarf_bias);
		sg_out_hex(out, "address", ops[0].number + f->dwarf_bias);
	} else if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg16) {
		kind = "register";
		const char *reg = sg_reg_name(ops[0].atom - DW_OP_reg0);
		sg_out_printf(out, "Symbol \"%s\" is a variable in $%s.\n", name, reg);
		sg_out_string(out, "register", reg);
	} else if (ops[0].atom == DW_OP_fbreg &&
		   frame_base_is_cfa((Dwarf_Die *)&f->scopes[f->scope_fn])) {
		/* gdb shows a CFA-based frame base as the expression itself.  */
		kind = "frame_base";
		sg_out_printf(out, "Symbol \"%s\" is a complex DWARF expression:\n"
				   "     0: DW_OP_fbreg %" PRId64 "\n.\n", name, (int64_t)ops[0].number);
		sg_out_int(out, "frame_base_offset", (int64_t)ops[0].number);
	} else {
		sg_out_printf(out, "Symbol \"%s\" is a variable with a complex DWARF expression.\n",
			      name);
	}
	sg_out_string(out, "symbol", name);
	sg_out_string(out, "kind", kind);
}

/* NAME as a variable of the selected frame, innermost block first: those
   hide the globals, as in gdb.  */
bool sg_frame_local_address(struct sg_session *s, const char *name, struct sg_out *out)
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
				describe_local(f, &child, name, out);
				return true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}
