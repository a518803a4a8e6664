/* cfi-unwind: unwinding with DWARF call frame information.

   The rules come from .eh_frame, or .debug_frame when a module has no
   .eh_frame entry for the pc, through libdw (dwarf_cfi_addrframe).  We
   evaluate them ourselves, with the core's DWARF expression evaluator, so
   PLT stubs (DW_CFA_def_cfa_expression) and glibc's signal trampoline
   (registers restored from the ucontext by DW_CFA_expression) unwind too.

   Rules are cached per pc: a profiler unwinds the same pcs again and
   again, and computing a row runs the CIE and FDE programs.  */
#include <spyglass/spyglass.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NREGS 17	/* DWARF 0-15 and the return address column, 16 */

enum rule_kind { RULE_UNDEFINED, RULE_SAME, RULE_EXPR };

struct rule {
	enum rule_kind kind;
	uint16_t first, nops;	/* in the row's op pool */
};

struct row {
	uint64_t key;		/* lookup pc + 1; 0 marks an empty slot */
	bool found;		/* false: no CFI for this pc */
	bool signal;		/* a signal trampoline's frame */
	int ra;			/* the return address column */
	uint32_t active;	/* the registers cfi_step looks at */
	struct rule cfa;
	struct rule regs[NREGS];
	Dwarf_Op *ops;		/* the pool */
};

struct cfi_state {
	struct row *rows;
	size_t n, cap;
};

static void rows_clear(struct cfi_state *st)
{
	for (size_t i = 0; i < st->cap; i++)
		free(st->rows[i].ops);
	free(st->rows);
	st->rows = NULL;
	st->n = st->cap = 0;
}

static size_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static struct row *row_slot(struct cfi_state *st, uint64_t key, bool insert)
{
	if (insert && (st->n + 1) * 2 > st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 1024;
		struct row *rows = calloc(ncap, sizeof(*rows));
		if (!rows)
			return NULL;
		for (size_t i = 0; i < st->cap; i++) {
			if (!st->rows[i].key)
				continue;
			size_t j = hash(st->rows[i].key) & (ncap - 1);
			while (rows[j].key)
				j = (j + 1) & (ncap - 1);
			rows[j] = st->rows[i];
		}
		free(st->rows);
		st->rows = rows;
		st->cap = ncap;
	}
	if (!st->cap)
		return NULL;
	size_t j = hash(key) & (st->cap - 1);
	while (st->rows[j].key) {
		if (st->rows[j].key == key)
			return &st->rows[j];
		j = (j + 1) & (st->cap - 1);
	}
	if (!insert)
		return NULL;
	st->n++;
	return &st->rows[j];
}

/* Append OPS to the pool and describe them as RULE.  */
static bool pool_add(Dwarf_Op **pool, size_t *npool, size_t *cap, const Dwarf_Op *ops, size_t nops,
		     struct rule *rule)
{
	if (nops > UINT16_MAX || *npool + nops > UINT16_MAX)
		return false;
	if (*npool + nops > *cap) {
		size_t ncap = (*npool + nops) * 2;
		Dwarf_Op *p = realloc(*pool, ncap * sizeof(*p));
		if (!p)
			return false;
		*pool = p;
		*cap = ncap;
	}
	memcpy(*pool + *npool, ops, nops * sizeof(*ops));
	rule->kind = RULE_EXPR;
	rule->first = *npool;
	rule->nops = nops;
	*npool += nops;
	return true;
}

/* libdw cannot tell "undefined" from "unspecified"; the psABI's
   callee-saved registers are unchanged unless the CFI says where they were
   saved, as gdb assumes too.  */
static bool callee_saved(int r)
{
	return r == SG_REG_RBX || r == SG_REG_RBP || (r >= SG_REG_R12 && r <= SG_REG_R15);
}

/* Fill ROW from FRAME.  */
static struct sg_error *row_fill(struct row *row, Dwarf_Frame *frame)
{
	size_t npool = 0, cap = 0;
	Dwarf_Op *pool = NULL;
	bool signal = false;
	row->ra = dwarf_frame_info(frame, NULL, NULL, &signal);
	row->signal = signal;
	if (row->ra < 0 || row->ra >= NREGS)
		return sg_error_format(SG_ERROR_BAD_DATA, "CFI: return address column %d", row->ra);
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0)
		return sg_error_create(SG_ERROR_BAD_DATA, "CFI: no CFA rule");
	if (!pool_add(&pool, &npool, &cap, ops, nops, &row->cfa))
		goto nomem;
	for (int r = 0; r < NREGS; r++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(frame, r, mem, &ops, &nops) != 0) {
			row->regs[r].kind = RULE_UNDEFINED;
			continue;
		}
		if (nops == 0)
			row->regs[r].kind = ops == NULL ? RULE_SAME : RULE_UNDEFINED;
		else if (!pool_add(&pool, &npool, &cap, ops, nops, &row->regs[r]))
			goto nomem;
	}
	row->ops = pool;
	row->found = true;
	for (int r = 0; r < NREGS; r++)
		if (row->regs[r].kind != RULE_UNDEFINED || callee_saved(r))
			row->active |= UINT32_C(1) << r;
	return NULL;
nomem:
	free(pool);
	return &sg_enomem;
}

static struct sg_error *row_lookup(struct sg_target *target, uint64_t pc, struct row *row)
{
	struct sg_module *mod = sg_target_module_at(target, pc);
	if (!mod)
		return NULL;
	Dwfl_Module *dm = sg_module_dwfl(mod);
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(dm, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) {
		frame = NULL;
		cfi = dwfl_module_dwarf_cfi(dm, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
			return NULL;	/* no FDE: the next unwinder may know */
	}
	struct sg_error *err = row_fill(row, frame);
	free(frame);
	return err;
}

/* The rules compilers emit almost always, without the general evaluator:
   a register plus an offset (DW_OP_breg*, the CFA), or the CFA plus an
   offset (DW_OP_call_frame_cfa [DW_OP_plus_uconst], where a register was
   saved), either maybe a value (DW_OP_stack_value).  A backtrace of many
   threads evaluates these for every frame.  False: not one of them, or an
   input is missing; the evaluator then decides (and says why).  */
static bool quick_eval(const Dwarf_Op *ops, size_t nops, const struct sg_dwarf_expr_ctx *ctx,
		       struct sg_dwarf_result *ret)
{
	uint8_t a = ops[0].atom;
	uint64_t v;
	if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
		uint64_t reg = a == DW_OP_bregx ? ops[0].number : (uint64_t)(a - DW_OP_breg0);
		if (reg >= NREGS || !ctx->regs || !sg_regs_has(ctx->regs, reg))
			return false;
		v = ctx->regs->r[reg] + (a == DW_OP_bregx ? ops[0].number2 : ops[0].number);
	} else if (a == DW_OP_call_frame_cfa && ctx->has_cfa) {
		v = ctx->cfa;
	} else {
		return false;
	}
	size_t i = 1;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		v += ops[i++].number;
	enum sg_dwarf_result_kind kind = SG_DWARF_ADDRESS;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		kind = SG_DWARF_VALUE;
		i++;
	}
	if (i != nops)
		return false;
	*ret = (struct sg_dwarf_result){ kind, v };
	return true;
}

static struct sg_error *eval(const struct row *row, const struct rule *rule,
			     const struct sg_dwarf_expr_ctx *ctx, struct sg_dwarf_result *ret)
{
	if (quick_eval(row->ops + rule->first, rule->nops, ctx, ret))
		return NULL;
	return sg_dwarf_expr_eval(row->ops + rule->first, rule->nops, ctx, NULL, ret);
}

/* Whether the bytes before RA end in a call instruction: E8 rel32, or
   FF /2 (an indirect call) of 2, 3, 6 or 7 bytes with its prefix.  */
static bool after_call(struct sg_target *target, uint64_t ra)
{
	unsigned char b[7];
	if (ra < sizeof(b))
		return false;
	struct sg_error *err = sg_target_read(target, ra - sizeof(b), b, sizeof(b));
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	if (b[2] == 0xe8)
		return true;
	static const int len[] = { 2, 3, 6, 7 };
	for (size_t i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		const unsigned char *op = b + sizeof(b) - len[i];
		if (op[0] == 0xff && (op[1] & 0x38) == 0x10)
			return true;
	}
	return false;
}

/* An exact pc (frame 0, or a frame a signal interrupted) that no FDE
   covers, in a module: a leaf that has pushed nothing yet, or nothing
   left, such as glibc's clone3 after its system call (its FDE ends
   there: the child's rules would be wrong).  Taken as gdb's prologue
   analysis takes a frameless function, with the return address at the
   stack pointer, when that address is in a module and follows a call;
   anything else is left to the next unwinder.  */
static struct sg_error *frameless_step(struct sg_target *target,
				       const struct sg_unwind_frame *callee,
				       struct sg_unwind_frame *caller)
{
	if (!sg_regs_has(&callee->regs, SG_REG_RSP) ||
	    !sg_target_module_at(target, callee->regs.r[SG_REG_RIP]))
		return &sg_not_found;
	uint64_t sp = callee->regs.r[SG_REG_RSP], ra;
	struct sg_error *err = sg_target_read_u64(target, sp, &ra);
	if (err) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	if (!sg_target_module_at(target, ra) || !after_call(target, ra))
		return &sg_not_found;
	caller->regs.valid = 0;
	caller->activation = false;
	for (int r = 0; r < SG_NREGS; r++)
		if (callee_saved(r) && sg_regs_has(&callee->regs, r))
			sg_regs_set(&caller->regs, r, callee->regs.r[r]);
	sg_regs_set(&caller->regs, SG_REG_RSP, sp + 8);
	sg_regs_set(&caller->regs, SG_REG_RIP, ra);
	return NULL;
}

static struct sg_error *cfi_step(struct sg_target *target, const struct sg_unwind_frame *callee,
				 struct sg_unwind_frame *caller, void *arg)
{
	struct cfi_state *st = arg;
	if (!sg_regs_has(&callee->regs, SG_REG_RIP))
		return &sg_not_found;
	uint64_t pc = callee->regs.r[SG_REG_RIP];
	uint64_t lookup = callee->activation ? pc : pc - 1;
	struct row *row = row_slot(st, lookup + 1, false);
	if (!row) {
		struct row fresh = { .key = lookup + 1 };
		struct sg_error *err = row_lookup(target, lookup, &fresh);
		if (err) {
			free(fresh.ops);
			return err;
		}
		row = row_slot(st, lookup + 1, true);
		if (!row) {
			free(fresh.ops);
			return &sg_enomem;
		}
		*row = fresh;
	}
	if (!row->found)
		return callee->activation ? frameless_step(target, callee, caller) : &sg_not_found;

	struct sg_dwarf_expr_ctx ctx = { .target = target, .regs = &callee->regs };
	struct sg_dwarf_result res;
	struct sg_error *err = eval(row, &row->cfa, &ctx, &res);
	if (err)
		return sg_error_prefix(err, "CFA at pc 0x%" PRIx64, pc);
	if (res.kind != SG_DWARF_ADDRESS)
		return sg_error_format(SG_ERROR_BAD_DATA, "CFA at pc 0x%" PRIx64 " is not a value", pc);
	ctx.cfa = res.value;
	ctx.has_cfa = true;
	if (row->regs[row->ra].kind == RULE_UNDEFINED)
		return &sg_stop;	/* _start and clone: the outermost frame */

	/* Written in place: the driver reads *CALLER only on success.  */
	struct sg_unwind_frame *out = caller;
	out->regs.valid = 0;
	out->activation = false;
	for (uint32_t left = row->active; left; left &= left - 1) {
		int r = __builtin_ctz(left);
		const struct rule *rule = &row->regs[r];
		if (rule->kind == RULE_SAME || rule->kind == RULE_UNDEFINED) {	/* callee-saved */
			if (sg_regs_has(&callee->regs, r))
				sg_regs_set(&out->regs, r, callee->regs.r[r]);
			continue;
		}
		if (rule->kind != RULE_EXPR)
			continue;
		err = eval(row, rule, &ctx, &res);
		if (err) {
			/* A register this rule needs is unknown: the caller's
			   copy is unknown too, unless it is the return address. */
			if (r == row->ra || sg_error_code(err) == SG_ERROR_TARGET)
				return sg_error_prefix(err, "return address at pc 0x%" PRIx64, pc);
			sg_error_destroy(err);
			continue;
		}
		uint64_t v = res.value;
		if (res.kind == SG_DWARF_ADDRESS) {
			err = sg_target_read_u64(target, res.value, &v);
			if (err) {
				if (r == row->ra || sg_error_code(err) == SG_ERROR_TARGET)
					return err;
				sg_error_destroy(err);
				continue;
			}
		} else if (res.kind == SG_DWARF_REGISTER) {
			if (res.value >= SG_NREGS || !sg_regs_has(&callee->regs, res.value))
				continue;
			v = callee->regs.r[res.value];
		}
		sg_regs_set(&out->regs, r, v);
	}
	/* On x86-64 the CFA is the caller's stack pointer.  */
	sg_regs_set(&out->regs, SG_REG_RSP, ctx.cfa);
	if (row->ra != SG_REG_RIP && sg_regs_has(&out->regs, row->ra))
		sg_regs_set(&out->regs, SG_REG_RIP, out->regs.r[row->ra]);
	if (!sg_regs_has(&out->regs, SG_REG_RIP))
		return sg_error_format(SG_ERROR_BAD_DATA, "no return address at pc 0x%" PRIx64, pc);
	/* A signal trampoline's caller was interrupted, not calling: its pc
	   is exact.  */
	out->activation = row->signal;
	return NULL;
}

static void cfi_forget(struct sg_target *target, void *arg)
{
	rows_clear(arg);
}

static const struct sg_unwinder_ops cfi_ops = {
	.step = cfi_step,
	.forget = cfi_forget,
};

static struct sg_error *cfi_init(struct sg_session *session, void **state_ret)
{
	struct cfi_state *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	*state_ret = st;
	return sg_unwinder_register(session, "cfi", 10, &cfi_ops, st);
}

static void cfi_fini(struct sg_session *session SG_UNUSED, void *state)
{
	if (state)
		rows_clear(state);
	free(state);
}

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("stacks");
SG_PLUGIN_DEFINE("cfi-unwind", "1.0",
		 "Unwinds with DWARF call frame information (.eh_frame, .debug_frame)",
		 cfi_init, cfi_fini);
