/* A DWARF expression evaluator: CFA and register rules of call frame
   information, and (later) variable locations.  Stack depth and step count
   are bounded, so a hostile expression cannot hang or overflow us.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <inttypes.h>

#define STACK_MAX 64
#define STEPS_MAX 4096

Dwfl_Module *sg_module_dwfl(struct sg_module *mod) { return mod->dwmod; }

static struct sg_error *reg_value(const struct sg_dwarf_expr_ctx *ctx, unsigned reg, uint64_t *ret)
{
	if (!ctx->regs || reg >= SG_NREGS || !sg_regs_has(ctx->regs, reg))
		return sg_error_format(SG_ERROR_NOT_FOUND, "register %u is not known in this frame",
				       reg);
	*ret = ctx->regs->r[reg];
	return NULL;
}

static struct sg_error *read_sized(const struct sg_dwarf_expr_ctx *ctx, uint64_t addr, unsigned size,
				   uint64_t *ret)
{
	if (!ctx->target)
		return sg_error_create(SG_ERROR_OTHER, "DW_OP_deref without a target");
	if (size == 0 || size > 8)
		return sg_error_format(SG_ERROR_BAD_DATA, "DW_OP_deref_size %u", size);
	uint64_t v = 0;
	struct sg_error *err = sg_target_read(ctx->target, addr, &v, size);
	if (!err)
		*ret = v;
	return err;
}

struct sg_error *sg_dwarf_expr_eval(const Dwarf_Op *ops, size_t nops,
				    const struct sg_dwarf_expr_ctx *ctx, const uint64_t *initial,
				    struct sg_dwarf_result *ret)
{
	uint64_t stack[STACK_MAX];
	size_t sp = 0;
	if (initial)
		stack[sp++] = *initial;
	struct sg_dwarf_result result = { SG_DWARF_ADDRESS, 0 };
	bool have_result = false;
	struct sg_error *err = NULL;

#define NEED(n)								\
	do {								\
		if (sp < (n))						\
			return sg_error_format(SG_ERROR_BAD_DATA,	\
				"DWARF expression: stack underflow at op 0x%x", op->atom); \
	} while (0)
#define PUSH(v)								\
	do {								\
		if (sp >= STACK_MAX)					\
			return sg_error_create(SG_ERROR_BAD_DATA,	\
				"DWARF expression: stack overflow");	\
		uint64_t v_ = (v);					\
		stack[sp++] = v_;					\
	} while (0)

	size_t steps = 0;
	for (size_t i = 0; i < nops; i++) {
		if (++steps > STEPS_MAX)
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: too many steps");
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t x, y;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
			continue;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if ((err = reg_value(ctx, a - DW_OP_breg0, &x)))
				return err;
			PUSH(x + (int64_t)op->number);
			continue;
		}
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			result = (struct sg_dwarf_result){ SG_DWARF_REGISTER, a - DW_OP_reg0 };
			have_result = true;
			continue;
		}
		switch (a) {
		case DW_OP_addr:
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
		case DW_OP_constu:
			PUSH(op->number);
			break;
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
		case DW_OP_consts:
			PUSH((int64_t)op->number);
			break;
		case DW_OP_regx:
			result = (struct sg_dwarf_result){ SG_DWARF_REGISTER, op->number };
			have_result = true;
			break;
		case DW_OP_bregx:
			if ((err = reg_value(ctx, op->number, &x)))
				return err;
			PUSH(x + (int64_t)op->number2);
			break;
		case DW_OP_fbreg:
			if (!ctx->has_frame_base)
				return sg_error_create(SG_ERROR_NOT_FOUND, "no frame base for DW_OP_fbreg");
			PUSH(ctx->frame_base + (int64_t)op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!ctx->has_cfa)
				return sg_error_create(SG_ERROR_NOT_FOUND, "no CFA for DW_OP_call_frame_cfa");
			PUSH(ctx->cfa);
			break;
		case DW_OP_dup: NEED(1); PUSH(stack[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(stack[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= sp)
				return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: bad DW_OP_pick");
			PUSH(stack[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			NEED(2);
			x = stack[sp - 1], stack[sp - 1] = stack[sp - 2], stack[sp - 2] = x;
			break;
		case DW_OP_rot:
			NEED(3);
			x = stack[sp - 1];
			stack[sp - 1] = stack[sp - 2];
			stack[sp - 2] = stack[sp - 3];
			stack[sp - 3] = x;
			break;
		case DW_OP_deref:
			NEED(1);
			if ((err = read_sized(ctx, stack[sp - 1], 8, &stack[sp - 1])))
				return err;
			break;
		case DW_OP_deref_size:
			NEED(1);
			if ((err = read_sized(ctx, stack[sp - 1], op->number, &stack[sp - 1])))
				return err;
			break;
		case DW_OP_abs: NEED(1); if ((int64_t)stack[sp - 1] < 0) stack[sp - 1] = -stack[sp - 1]; break;
		case DW_OP_neg: NEED(1); stack[sp - 1] = -stack[sp - 1]; break;
		case DW_OP_not: NEED(1); stack[sp - 1] = ~stack[sp - 1]; break;
		case DW_OP_plus_uconst: NEED(1); stack[sp - 1] += op->number; break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
		case DW_OP_lt: case DW_OP_ne:
			NEED(2);
			y = stack[--sp];
			x = stack[sp - 1];
			switch (a) {
			case DW_OP_and: x &= y; break;
			case DW_OP_div:
				if (y == 0)
					return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: division by zero");
				x = (int64_t)x / (int64_t)y;
				break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mod:
				if (y == 0)
					return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: division by zero");
				x %= y;
				break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_plus: x += y; break;
			case DW_OP_shl: x = y >= 64 ? 0 : x << y; break;
			case DW_OP_shr: x = y >= 64 ? 0 : x >> y; break;
			case DW_OP_shra: x = y >= 64 ? ((int64_t)x < 0 ? UINT64_MAX : 0) : (uint64_t)((int64_t)x >> y); break;
			case DW_OP_xor: x ^= y; break;
			case DW_OP_eq: x = x == y; break;
			case DW_OP_ge: x = (int64_t)x >= (int64_t)y; break;
			case DW_OP_gt: x = (int64_t)x > (int64_t)y; break;
			case DW_OP_le: x = (int64_t)x <= (int64_t)y; break;
			case DW_OP_lt: x = (int64_t)x < (int64_t)y; break;
			case DW_OP_ne: x = x != y; break;
			}
			stack[sp - 1] = x;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (a == DW_OP_bra) {
				NEED(1);
				if (stack[--sp] == 0)
					break;
			}
			/* The target is a byte offset; libdw gives each op's
			   offset, so find the op that starts there.  */
			uint64_t target = op->offset + 3 + (int16_t)op->number;
			size_t j = 0;
			while (j < nops && ops[j].offset != target)
				j++;
			if (j == nops)
				return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: bad branch");
			i = j - 1;
			break;
		}
		case DW_OP_stack_value:
			NEED(1);
			result = (struct sg_dwarf_result){ SG_DWARF_VALUE, stack[sp - 1] };
			have_result = true;
			i = nops;	/* ends the expression */
			break;
		case DW_OP_nop:
			break;
		default:
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "DWARF expression: unsupported operation 0x%x", a);
		}
	}
	if (!have_result) {
		if (sp == 0)
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: empty stack");
		result = (struct sg_dwarf_result){ SG_DWARF_ADDRESS, stack[sp - 1] };
	}
	*ret = result;
	return NULL;
#undef NEED
#undef PUSH
}
