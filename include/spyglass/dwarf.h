/* DWARF access for plugins: the libdwfl module behind a spyglass module,
   and a DWARF expression evaluator over the target's registers and
   memory (CFI rules now; variable locations later).  */
#ifndef SPYGLASS_DWARF_H
#define SPYGLASS_DWARF_H

#include <spyglass/common.h>
#include <spyglass/target.h>
#include <elfutils/libdwfl.h>

SG_BEGIN_DECLS

struct sg_module;

/* The libdwfl module behind MOD, valid as long as the target.  */
SG_PUBLIC Dwfl_Module *sg_module_dwfl(struct sg_module *mod);

/* What a DWARF expression evaluates against.  */
struct sg_dwarf_expr_ctx {
	struct sg_target *target;	/* for DW_OP_deref; may be NULL */
	const struct sg_regs *regs;	/* for DW_OP_breg*, DW_OP_reg*; may be NULL */
	uint64_t cfa;			/* DW_OP_call_frame_cfa */
	bool has_cfa;
	uint64_t frame_base;		/* DW_OP_fbreg */
	bool has_frame_base;
};

enum sg_dwarf_result_kind {
	SG_DWARF_ADDRESS,	/* the result is where the value lives in memory */
	SG_DWARF_VALUE,		/* DW_OP_stack_value: the result is the value */
	SG_DWARF_REGISTER,	/* DW_OP_reg*: the value lives in register NUMBER */
};

struct sg_dwarf_result {
	enum sg_dwarf_result_kind kind;
	uint64_t value;		/* address, value, or register number */
};

/* Evaluate NOPS operations OPS with INITIAL (may be NULL) pushed first.
   Every loop is bounded; an unsupported operation, a stack underflow, a
   register not in CTX->regs, or an unreadable address is an error.  */
SG_PUBLIC struct sg_error *sg_dwarf_expr_eval(const Dwarf_Op *ops, size_t nops,
					      const struct sg_dwarf_expr_ctx *ctx,
					      const uint64_t *initial,
					      struct sg_dwarf_result *ret);

/* DW_OP_entry_value: the value the caller passed in DWARF register REG at
   the call that returns to RETURN_PC, as the call site records it
   (DW_AT_call_value): an expression *OPS_RET to evaluate in the caller's
   frame.  &sg_not_found when no call-site record says.  */
SG_PUBLIC struct sg_error *sg_call_site_value(struct sg_target *target, uint64_t return_pc,
					      unsigned reg, Dwarf_Op **ops_ret, size_t *nops_ret);

SG_END_DECLS

#endif
