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

/* Resolves DW_OP_entry_value: the value the frame's caller passed in
   DWARF register REG.  ARG is the resolver's.  */
typedef struct sg_error *sg_dwarf_entry_fn(void *arg, unsigned reg, uint64_t *ret);

/* Where a piece of a variable's value is.  */
enum sg_dwarf_piece_kind {
	SG_PIECE_ADDRESS = SG_DWARF_ADDRESS,	/* in memory at VALUE */
	SG_PIECE_VALUE = SG_DWARF_VALUE,	/* VALUE itself */
	SG_PIECE_REGISTER = SG_DWARF_REGISTER,	/* in register VALUE */
	SG_PIECE_UNAVAILABLE,			/* an empty piece: optimized out */
	SG_PIECE_IMPLICIT,			/* DW_OP_implicit_value: DATA */
};

struct sg_dwarf_piece {
	enum sg_dwarf_piece_kind kind;
	uint64_t value;		/* address, value, or register number */
	uint64_t size;		/* in bytes; 0: the whole object (no DW_OP_piece) */
	const unsigned char *data;	/* SG_PIECE_IMPLICIT: SIZE bytes, libdw's */
	uint64_t value_hi;	/* SG_PIECE_VALUE of a typed value: bytes 8-15 */
	unsigned value_size;	/* SG_PIECE_VALUE: its bytes; 0 for the generic type's 8 */
};

#define SG_DWARF_MAX_PIECES 32

struct sg_dwarf_location {
	size_t npieces;
	struct sg_dwarf_piece pieces[SG_DWARF_MAX_PIECES];
	bool entry_value;	/* a DW_OP_entry_value was resolved */
};

/* Evaluate the location description OPS: one piece, or the pieces that
   DW_OP_piece separates (an empty one is SG_PIECE_UNAVAILABLE).  Each
   DW_OP_addr is moved by BIAS (the module's).  ENTRY (may be NULL: an
   error) resolves DW_OP_entry_value and DW_OP_GNU_entry_value of a
   register.  */
SG_PUBLIC struct sg_error *sg_dwarf_location_eval(const Dwarf_Op *ops, size_t nops,
						  const struct sg_dwarf_expr_ctx *ctx,
						  uint64_t bias, sg_dwarf_entry_fn *entry,
						  void *entry_arg, struct sg_dwarf_location *ret);

/* The SIZE bytes of the object LOC describes into BUF, with REGS the
   registers of its frame (for SG_PIECE_REGISTER pieces).  KNOWN[i] says
   whether byte i could be had (an unavailable piece, an unknown register,
   unreadable memory leave it 0).  Pieces beyond SIZE are ignored.  */
SG_PUBLIC void sg_dwarf_location_read(struct sg_target *target, const struct sg_regs *regs,
				      const struct sg_dwarf_location *loc, void *buf,
				      bool *known, size_t size);

struct sg_stack;

/* The evaluation context of frame LEVEL of ST: its registers, the CFA
   (its caller's stack pointer) and the frame base of its function, each
   when known.  */
SG_PUBLIC void sg_stack_expr_ctx(struct sg_target *target, const struct sg_stack *st,
				 size_t level, struct sg_dwarf_expr_ctx *ret);

/* Evaluate OPS, a location of a variable of frame LEVEL of ST, with its
   registers, CFA and frame base, and DW_OP_entry_value resolved as gdb
   does (sg_stack_entry_value).  */
SG_PUBLIC struct sg_error *sg_stack_locate(struct sg_target *target, const struct sg_stack *st,
					   size_t level, const Dwarf_Op *ops, size_t nops,
					   struct sg_dwarf_location *ret);

/* The value the caller of frame LEVEL of ST passed in DWARF register REG
   (DW_OP_entry_value), as gdb finds it: the call site that the caller's
   pc returns from must call this frame's function (DW_AT_call_origin, or
   DW_AT_call_target evaluated in the caller); its parameter whose
   DW_AT_location is REG gives DW_AT_call_value, evaluated in the caller's
   frame, entry values of the caller in turn.  Inlined frames use their
   function's; the caller must be a real frame (not a tail call, not
   interrupted by a signal).  &sg_not_found when no record says.  */
SG_PUBLIC struct sg_error *sg_stack_entry_value(struct sg_target *target, const struct sg_stack *st,
						size_t level, unsigned reg, uint64_t *ret);

/* DW_OP_entry_value: the value the caller passed in DWARF register REG at
   the call that returns to RETURN_PC, as the call site records it
   (DW_AT_call_value): an expression *OPS_RET to evaluate in the caller's
   frame.  &sg_not_found when no call-site record says.  */
SG_PUBLIC struct sg_error *sg_call_site_value(struct sg_target *target, uint64_t return_pc,
					      unsigned reg, Dwarf_Op **ops_ret, size_t *nops_ret);

SG_END_DECLS

#endif
