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
	if (!ctx->regs || reg >= SG_DWARF_NGPRS || !sg_regs_has(ctx->regs, reg))
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

/* A ULEB128 of at most 4 bytes at P (N bytes there), its length in *LEN;
   false when it runs over.  */
static bool uleb4(const unsigned char *p, size_t n, uint64_t *ret, size_t *len)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && i < 4; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*ret = v;
			*len = i + 1;
			return true;
		}
	}
	return false;
}

/* The bytes of OP's block (DW_OP_entry_value, DW_OP_implicit_value):
   libdw keeps its length in NUMBER and in NUMBER2 the address of that
   length, a ULEB128, which the block follows.  */
static const unsigned char *block_data(const Dwarf_Op *op)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)op->number2;
	uint64_t n;
	size_t len;
	if (!p || op->number == 0 || !uleb4(p, 4, &n, &len) || n != op->number)
		return NULL;
	return p + len;
}

/* The register DW_OP_entry_value's block names (DW_OP_regN, DW_OP_regx,
   or DW_OP_regval_type with its type's unit offset in *TYPE_OFF, else
   0), or -1: gdb resolves no other kind.  */
static int entry_register(const Dwarf_Op *op, uint64_t *type_off)
{
	const unsigned char *p = block_data(op);
	uint64_t n = op->number, reg;
	size_t len, len2;
	*type_off = 0;
	if (!p || n > 9)
		return -1;
	if (n == 1 && p[0] >= DW_OP_reg0 && p[0] <= DW_OP_reg31)
		return p[0] - DW_OP_reg0;
	if ((p[0] != DW_OP_regx && p[0] != DW_OP_regval_type && p[0] != DW_OP_GNU_regval_type) ||
	    !uleb4(p + 1, n - 1, &reg, &len) || reg >= 128)
		return -1;
	if (p[0] == DW_OP_regx)
		return len == n - 1 ? (int)reg : -1;
	if (!uleb4(p + 1 + len, n - 1 - len, type_off, &len2) || 1 + len + len2 != n ||
	    *type_off == 0)
		return -1;
	return (int)reg;
}

/* ---- the typed stack (DWARF 5's DW_OP_convert and kin) ---- */

/* A stack entry: the generic type (an address-sized integer, SIZE 0) or
   a base type's value, its SIZE bytes in LO and HI.  */
struct tv {
	uint64_t lo, hi;
	uint8_t size;
	uint8_t enc;	/* DW_ATE_* */
};

static bool is_float(const struct tv *v)
{
	return v->size && v->enc == DW_ATE_float;
}

static bool is_signed(const struct tv *v)
{
	return !v->size || v->enc == DW_ATE_signed || v->enc == DW_ATE_signed_char;
}

/* The base type at unit offset OFF of UNIT's unit (0: the generic type)
   into *RET's size and encoding.  Floating types are the host's (float,
   double, x87 long double); integers have at most 8 bytes.  */
static struct sg_error *base_type(Dwarf_Attribute *unit, uint64_t off, struct tv *ret)
{
	ret->size = 0;
	ret->enc = 0;
	if (off == 0)
		return NULL;
	Dwarf_Die cudie, type;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	int size;
	if (!unit || !unit->cu || !dwarf_cu_die(unit->cu, &cudie, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    !dwarf_offdie(dwarf_cu_getdwarf(unit->cu),
			  dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie) + off, &type) ||
	    dwarf_tag(&type) != DW_TAG_base_type || (size = dwarf_bytesize(&type)) <= 0 ||
	    !dwarf_attr(&type, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0)
		return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: bad base type");
	bool ok = enc == DW_ATE_float ? size == sizeof(float) || size == sizeof(double) ||
					(size == 16 && sizeof(long double) == 16)
				      : size <= 8 && (size & (size - 1)) == 0;
	if (!ok)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "DWARF expression: unsupported base type of %d bytes", size);
	ret->size = size;
	ret->enc = enc;
	return NULL;
}

static long double tv_float(const struct tv *v)
{
	unsigned char b[16];
	memcpy(b, &v->lo, 8);
	memcpy(b + 8, &v->hi, 8);
	float f;
	double d;
	long double ld;
	switch (v->size) {
	case sizeof(float): memcpy(&f, b, sizeof(f)); return f;
	case sizeof(double): memcpy(&d, b, sizeof(d)); return d;
	default: memcpy(&ld, b, sizeof(ld)); return ld;
	}
}

/* V's integer value, sign- or zero-extended.  */
static uint64_t tv_int(const struct tv *v)
{
	if (is_float(v)) {
		/* Out of range (or NaN) is undefined in C: 0, for hostile DWARF. */
		long double f = tv_float(v);
		return f > -0x1p63L && f < 0x1p63L ? (uint64_t)(int64_t)f : 0;
	}
	if (!v->size || v->size >= 8)
		return v->lo;
	unsigned bits = v->size * 8;
	uint64_t x = v->lo & ((UINT64_C(1) << bits) - 1);
	if (is_signed(v) && (x >> (bits - 1)))
		x |= ~UINT64_C(0) << bits;
	return x;
}

/* *V holding X (an integer, or F for a floating type) as its type says. */
static void tv_set(struct tv *v, uint64_t x, long double f)
{
	unsigned char b[16] = { 0 };
	float ff = f;
	double d = f;
	switch (is_float(v) ? v->size : 0) {
	case sizeof(float): memcpy(b, &ff, sizeof(ff)); break;
	case sizeof(double): memcpy(b, &d, sizeof(d)); break;
	case 16: memcpy(b, &f, sizeof(f)); break;
	default:
		if (v->size && v->size < 8)
			x &= (UINT64_C(1) << (v->size * 8)) - 1;
		memcpy(b, &x, 8);
	}
	memcpy(&v->lo, b, 8);
	memcpy(&v->hi, b + 8, 8);
}

/* V converted to the type of TO (DW_OP_convert), into *TO.  */
static void tv_convert(const struct tv *v, struct tv *to)
{
	long double f = is_float(v) ? tv_float(v)
		      : is_signed(v) ? (long double)(int64_t)tv_int(v) : (long double)tv_int(v);
	tv_set(to, tv_int(v), f);
}

/* The type two operands are combined in: gdb wants them equal; GCC's
   mixes are resolved toward the floating or wider one.  */
static struct tv common_type(const struct tv *x, const struct tv *y)
{
	if (is_float(x) != is_float(y))
		return is_float(x) ? *x : *y;
	return x->size >= y->size ? *x : *y;
}

/* X = X op Y of a typed binary operation A; comparisons give the
   generic type.  */
static struct sg_error *typed_binary(uint8_t a, struct tv *x, const struct tv *y)
{
	struct tv t = common_type(x, y), cx = t, cy = t;
	tv_convert(x, &cx);
	tv_convert(y, &cy);
	if (is_float(&t)) {
		long double p = tv_float(&cx), q = tv_float(&cy), r;
		int c = -2;
		switch (a) {
		case DW_OP_plus: r = p + q; break;
		case DW_OP_minus: r = p - q; break;
		case DW_OP_mul: r = p * q; break;
		case DW_OP_div: r = p / q; break;
		case DW_OP_eq: c = p == q; break;
		case DW_OP_ne: c = p != q; break;
		case DW_OP_lt: c = p < q; break;
		case DW_OP_le: c = p <= q; break;
		case DW_OP_gt: c = p > q; break;
		case DW_OP_ge: c = p >= q; break;
		default:
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "DWARF expression: op 0x%x on a floating value", a);
		}
		if (c != -2)
			*x = (struct tv){ .lo = (uint64_t)c };
		else {
			*x = t;
			tv_set(x, 0, r);
		}
		return NULL;
	}
	uint64_t p = tv_int(&cx), q = tv_int(&cy), r = 0;
	bool sgn = is_signed(&t);
	int c = -2;
	switch (a) {
	case DW_OP_plus: r = p + q; break;
	case DW_OP_minus: r = p - q; break;
	case DW_OP_mul: r = p * q; break;
	case DW_OP_and: r = p & q; break;
	case DW_OP_or: r = p | q; break;
	case DW_OP_xor: r = p ^ q; break;
	case DW_OP_shl: r = q >= 64 ? 0 : p << q; break;
	case DW_OP_shr: r = q >= 64 ? 0 : p >> q; break;
	case DW_OP_shra: r = q >= 64 ? ((int64_t)p < 0 ? UINT64_MAX : 0) : (uint64_t)((int64_t)p >> q); break;
	case DW_OP_div: case DW_OP_mod:
		if (q == 0 || (sgn && (int64_t)q == -1 && p == (UINT64_C(1) << 63)))
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: division by zero");
		if (a == DW_OP_div)
			r = sgn ? (uint64_t)((int64_t)p / (int64_t)q) : p / q;
		else
			r = sgn ? (uint64_t)((int64_t)p % (int64_t)q) : p % q;
		break;
	case DW_OP_eq: c = p == q; break;
	case DW_OP_ne: c = p != q; break;
	case DW_OP_lt: c = sgn ? (int64_t)p < (int64_t)q : p < q; break;
	case DW_OP_le: c = sgn ? (int64_t)p <= (int64_t)q : p <= q; break;
	case DW_OP_gt: c = sgn ? (int64_t)p > (int64_t)q : p > q; break;
	case DW_OP_ge: c = sgn ? (int64_t)p >= (int64_t)q : p >= q; break;
	}
	if (c != -2)
		*x = (struct tv){ .lo = (uint64_t)c };
	else {
		*x = t;
		tv_set(x, r, 0);
	}
	return NULL;
}

/* SIZE bytes at P as a value of type *T.  */
static void tv_bytes(struct tv *t, const unsigned char *p, size_t size)
{
	unsigned char b[16] = { 0 };
	memcpy(b, p, size < 16 ? size : 16);
	memcpy(&t->lo, b, 8);
	memcpy(&t->hi, b + 8, 8);
}

/* What an evaluation may do besides sg_dwarf_expr_eval's: relocate
   DW_OP_addr, resolve entry values, split the result into pieces.  */
struct eval_opts {
	uint64_t bias;
	sg_dwarf_entry_fn *entry;
	void *entry_arg;
	struct sg_dwarf_location *loc;	/* NULL: no pieces */
	Dwarf_Attribute *unit;		/* for DW_OP_addrx, DW_OP_constx; may be NULL */
	const struct sg_dwarf_tls *tls;	/* DW_OP_form_tls_address; may be NULL */
};

/* DW_OP_addrx's address or DW_OP_constx's constant: the word at the
   op's index in .debug_addr, past the DW_AT_addr_base of UNIT's unit.  */
static struct sg_error *indexed_word(Dwarf_Attribute *unit, const Dwarf_Op *op, bool address,
				     uint64_t *ret)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Addr addr;
	if (!unit || dwarf_getlocation_attr(unit, op, &a) != 0)
		return sg_error_format(SG_ERROR_BAD_DATA, "DWARF expression: no .debug_addr entry %"
				       PRIu64 " for op 0x%x", op->number, op->atom);
	if (address ? dwarf_formaddr(&a, &addr) != 0 : dwarf_formudata(&a, &w) != 0)
		return sg_error_format(SG_ERROR_BAD_DATA, "DWARF expression: bad .debug_addr entry %"
				       PRIu64, op->number);
	*ret = address ? addr : w;
	return NULL;
}

static struct sg_error *add_piece(struct sg_dwarf_location *loc, const struct sg_dwarf_piece *p)
{
	if (loc->npieces >= SG_DWARF_MAX_PIECES)
		return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: too many pieces");
	loc->pieces[loc->npieces++] = *p;
	return NULL;
}

static struct sg_error *eval(const Dwarf_Op *ops, size_t nops, const struct sg_dwarf_expr_ctx *ctx,
			     const uint64_t *initial, const struct eval_opts *opts,
			     struct sg_dwarf_result *ret, struct tv *typed_ret)
{
	struct tv stack[STACK_MAX];
	size_t sp = 0;
	if (initial)
		stack[sp++] = (struct tv){ .lo = *initial };
	struct sg_dwarf_result result = { SG_DWARF_ADDRESS, 0 };
	struct tv typed = { 0 };	/* a DW_OP_stack_value result's */
	bool have_result = false;
	struct sg_error *err = NULL;
	/* A piece's value (DW_OP_implicit_value): its bytes.  */
	const unsigned char *implicit = NULL;
	uint64_t implicit_size = 0;
	struct sg_dwarf_location *loc = opts->loc;

#define NEED(n)								\
	do {								\
		if (sp < (n))						\
			return sg_error_format(SG_ERROR_BAD_DATA,	\
				"DWARF expression: stack underflow at op 0x%x", op->atom); \
	} while (0)
#define PUSH_TV(v)							\
	do {								\
		if (sp >= STACK_MAX)					\
			return sg_error_create(SG_ERROR_BAD_DATA,	\
				"DWARF expression: stack overflow");	\
		struct tv v_ = (v);					\
		stack[sp++] = v_;					\
	} while (0)
#define PUSH(v)								\
	do {								\
		if (sp >= STACK_MAX)					\
			return sg_error_create(SG_ERROR_BAD_DATA,	\
				"DWARF expression: stack overflow");	\
		uint64_t v_ = (v);					\
		stack[sp++] = (struct tv){ .lo = v_ };			\
	} while (0)

	size_t steps = 0;
	for (size_t i = 0; i < nops; i++) {
		if (++steps > STEPS_MAX)
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: too many steps");
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t x, y;
		struct tv tv;
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
			PUSH(op->number + opts->bias);
			break;
		case DW_OP_form_tls_address:
		case DW_OP_GNU_push_tls_address:
			/* The offset in the module's TLS block: its address in
			   the frame's thread.  */
			if (!opts->tls)
				return sg_error_create(SG_ERROR_NOT_FOUND,
						       "thread-local storage needs a thread");
			NEED(1);
			if ((err = sg_tls_address(opts->tls->target, opts->tls->thread, opts->tls->module,
						  stack[sp - 1].lo, &x)))
				return err;
			stack[sp - 1] = (struct tv){ .lo = x };
			break;
		case DW_OP_addrx:
		case DW_OP_GNU_addr_index:
			if ((err = indexed_word(opts->unit, op, true, &x)))
				return err;
			PUSH(x + opts->bias);
			break;
		case DW_OP_constx:
		case DW_OP_GNU_const_index:
			/* A constant the linker relocates (a TLS offset): not
			   moved by the module's bias.  */
			if ((err = indexed_word(opts->unit, op, false, &x)))
				return err;
			PUSH(x);
			break;
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
		case DW_OP_dup: NEED(1); PUSH_TV(stack[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH_TV(stack[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= sp)
				return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: bad DW_OP_pick");
			PUSH_TV(stack[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			NEED(2);
			tv = stack[sp - 1], stack[sp - 1] = stack[sp - 2], stack[sp - 2] = tv;
			break;
		case DW_OP_rot:
			NEED(3);
			tv = stack[sp - 1];
			stack[sp - 1] = stack[sp - 2];
			stack[sp - 2] = stack[sp - 3];
			stack[sp - 3] = tv;
			break;
		case DW_OP_deref:
			NEED(1);
			if ((err = read_sized(ctx, stack[sp - 1].lo, 8, &x)))
				return err;
			stack[sp - 1] = (struct tv){ .lo = x };
			break;
		case DW_OP_deref_size:
			NEED(1);
			if ((err = read_sized(ctx, stack[sp - 1].lo, op->number, &x)))
				return err;
			stack[sp - 1] = (struct tv){ .lo = x };
			break;
		case DW_OP_deref_type:
		case DW_OP_GNU_deref_type: {
			/* A base type's value in memory: NUMBER bytes.  */
			NEED(1);
			if ((err = base_type(opts->unit, op->number2, &tv)))
				return err;
			unsigned char b[16];
			if (op->number != tv.size || !tv.size)
				return sg_error_create(SG_ERROR_BAD_DATA,
						       "DWARF expression: bad DW_OP_deref_type");
			if (!ctx->target)
				return sg_error_create(SG_ERROR_OTHER, "DW_OP_deref without a target");
			if ((err = sg_target_read(ctx->target, stack[sp - 1].lo, b, tv.size)))
				return err;
			tv_bytes(&tv, b, tv.size);
			stack[sp - 1] = tv;
			break;
		}
		case DW_OP_const_type:
		case DW_OP_GNU_const_type: {
			/* libdw: the block's length byte at NUMBER2, its bytes
			   after.  */
			const unsigned char *b = (const unsigned char *)(uintptr_t)op->number2;
			if ((err = base_type(opts->unit, op->number, &tv)))
				return err;
			if (!b || !tv.size || b[0] != tv.size)
				return sg_error_create(SG_ERROR_BAD_DATA,
						       "DWARF expression: bad DW_OP_const_type");
			tv_bytes(&tv, b + 1, tv.size);
			PUSH_TV(tv);
			break;
		}
		case DW_OP_regval_type:
		case DW_OP_GNU_regval_type:
			if ((err = base_type(opts->unit, op->number2, &tv)))
				return err;
			if (tv.size > 8 || (err = reg_value(ctx, op->number, &x)))
				return err ? err : sg_error_format(SG_ERROR_NOT_FOUND,
							"register %" PRIu64 " is not known in this frame",
							op->number);
			tv_bytes(&tv, (const unsigned char *)&x, tv.size ? tv.size : 8);
			PUSH_TV(tv);
			break;
		case DW_OP_convert:
		case DW_OP_GNU_convert:
		case DW_OP_reinterpret:
		case DW_OP_GNU_reinterpret:
			NEED(1);
			if ((err = base_type(opts->unit, op->number, &tv)))
				return err;
			if (a == DW_OP_convert || a == DW_OP_GNU_convert) {
				tv_convert(&stack[sp - 1], &tv);
			} else {
				/* The same bytes, another type of their size. */
				unsigned from = stack[sp - 1].size ? stack[sp - 1].size : 8;
				if (from != (tv.size ? tv.size : 8U))
					return sg_error_create(SG_ERROR_BAD_DATA,
							       "DWARF expression: DW_OP_reinterpret of another size");
				tv.lo = stack[sp - 1].lo;
				tv.hi = stack[sp - 1].hi;
			}
			stack[sp - 1] = tv;
			break;
		case DW_OP_abs:
		case DW_OP_neg:
			NEED(1);
			if (is_float(&stack[sp - 1])) {
				long double f = tv_float(&stack[sp - 1]);
				tv_set(&stack[sp - 1], 0, a == DW_OP_neg || f < 0 ? -f : f);
			} else {
				x = tv_int(&stack[sp - 1]);
				if (a == DW_OP_neg || (is_signed(&stack[sp - 1]) && (int64_t)x < 0))
					x = -x;
				tv_set(&stack[sp - 1], x, 0);
			}
			break;
		case DW_OP_not:
			NEED(1);
			if (is_float(&stack[sp - 1]))
				goto unsupported;
			tv_set(&stack[sp - 1], ~stack[sp - 1].lo, 0);
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			if (is_float(&stack[sp - 1]))
				goto unsupported;
			tv_set(&stack[sp - 1], stack[sp - 1].lo + op->number, 0);
			break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
		case DW_OP_lt: case DW_OP_ne:
			NEED(2);
			if (stack[sp - 1].size || stack[sp - 2].size) {
				sp--;
				if ((err = typed_binary(a, &stack[sp - 1], &stack[sp])))
					return err;
				break;
			}
			y = stack[--sp].lo;
			x = stack[sp - 1].lo;
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
			stack[sp - 1].lo = x;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (a == DW_OP_bra) {
				NEED(1);
				sp--;
				if (stack[sp].lo == 0 && stack[sp].hi == 0)
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
			result = (struct sg_dwarf_result){ SG_DWARF_VALUE, stack[sp - 1].lo };
			typed = stack[sp - 1];
			have_result = true;
			if (!loc)
				i = nops;	/* ends the expression */
			break;
		case DW_OP_implicit_value:
			if (!loc || !(implicit = block_data(op)))
				goto unsupported;
			implicit_size = op->number;
			have_result = true;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value: {
			uint64_t type_off;
			int reg = entry_register(op, &type_off);
			if (!opts->entry || reg < 0)
				return sg_error_create(SG_ERROR_NOT_FOUND,
						       "DW_OP_entry_value cannot be resolved here");
			/* DW_OP_regval_type: the register's value as that
			   type (a float passed in xmm0).  */
			if ((err = base_type(opts->unit, type_off, &tv)))
				return err;
			if (tv.size > 8)
				return sg_error_create(SG_ERROR_NOT_FOUND,
						       "DW_OP_entry_value of more than a register");
			if ((err = opts->entry(opts->entry_arg, (unsigned)reg, &x)))
				return err;
			if (loc)
				loc->entry_value = true;
			tv_bytes(&tv, (const unsigned char *)&x, tv.size ? tv.size : 8);
			PUSH_TV(tv);
			break;
		}
		case DW_OP_piece: {
			if (!loc)
				goto unsupported;
			struct sg_dwarf_piece p = { .kind = SG_PIECE_UNAVAILABLE, .size = op->number };
			if (implicit) {
				p.kind = implicit_size < p.size ? SG_PIECE_UNAVAILABLE : SG_PIECE_IMPLICIT;
				p.data = implicit;
			} else if (have_result) {
				p.kind = (enum sg_dwarf_piece_kind)result.kind;
				p.value = result.value;
				if (p.kind == SG_PIECE_VALUE)
					p.value_hi = typed.hi, p.value_size = typed.size;
			} else if (sp) {
				p.kind = SG_PIECE_ADDRESS;
				p.value = stack[sp - 1].lo;
			}
			if (p.size == 0)
				return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: empty piece");
			if ((err = add_piece(loc, &p)))
				return err;
			sp = 0;
			have_result = false;
			implicit = NULL;
			break;
		}
		case DW_OP_nop:
			break;
		default:
		unsupported:
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "DWARF expression: unsupported operation 0x%x", a);
		}
	}
	if (loc && loc->npieces)
		return NULL;
	if (loc && implicit) {
		struct sg_dwarf_piece p = { .kind = SG_PIECE_IMPLICIT, .size = implicit_size,
					    .data = implicit };
		if (implicit_size == 0)
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: empty value");
		return add_piece(loc, &p);
	}
	if (!have_result) {
		if (sp == 0)
			return sg_error_create(SG_ERROR_BAD_DATA, "DWARF expression: empty stack");
		result = (struct sg_dwarf_result){ SG_DWARF_ADDRESS, stack[sp - 1].lo };
	}
	*ret = result;
	if (typed_ret)
		*typed_ret = result.kind == SG_DWARF_VALUE ? typed : (struct tv){ 0 };
	return NULL;
#undef NEED
#undef PUSH
#undef PUSH_TV
}

struct sg_error *sg_dwarf_expr_eval(const Dwarf_Op *ops, size_t nops,
				    const struct sg_dwarf_expr_ctx *ctx, const uint64_t *initial,
				    struct sg_dwarf_result *ret)
{
	const struct eval_opts opts = { 0 };
	return eval(ops, nops, ctx, initial, &opts, ret, NULL);
}

struct sg_error *sg_dwarf_location_eval(const Dwarf_Op *ops, size_t nops,
					const struct sg_dwarf_expr_ctx *ctx, uint64_t bias,
					sg_dwarf_entry_fn *entry, void *entry_arg,
					struct sg_dwarf_location *ret)
{
	return sg_dwarf_location_eval_unit(ops, nops, ctx, bias, NULL, entry, entry_arg, ret);
}

struct sg_error *sg_dwarf_location_eval_unit(const Dwarf_Op *ops, size_t nops,
					     const struct sg_dwarf_expr_ctx *ctx, uint64_t bias,
					     Dwarf_Attribute *unit, sg_dwarf_entry_fn *entry,
					     void *entry_arg, struct sg_dwarf_location *ret)
{
	return sg_dwarf_location_eval_tls(ops, nops, ctx, bias, unit, entry, entry_arg, NULL, ret);
}

struct sg_error *sg_dwarf_location_eval_tls(const Dwarf_Op *ops, size_t nops,
					    const struct sg_dwarf_expr_ctx *ctx, uint64_t bias,
					    Dwarf_Attribute *unit, sg_dwarf_entry_fn *entry,
					    void *entry_arg, const struct sg_dwarf_tls *tls,
					    struct sg_dwarf_location *ret)
{
	ret->npieces = 0;
	ret->entry_value = false;
	const struct eval_opts opts = { bias, entry, entry_arg, ret, unit, tls };
	struct sg_dwarf_result r;
	struct tv typed;
	struct sg_error *err = eval(ops, nops, ctx, NULL, &opts, &r, &typed);
	if (err || ret->npieces)
		return err;
	struct sg_dwarf_piece whole = { (enum sg_dwarf_piece_kind)r.kind, r.value, 0, NULL,
					typed.hi, typed.size };
	return add_piece(ret, &whole);
}

/* Piece P's bytes into BUF (SIZE of them), KNOWN set where they could be
   had.  */
static void read_piece(struct sg_target *t, const struct sg_regs *regs,
		       const struct sg_dwarf_piece *p, unsigned char *buf, bool *known, size_t size)
{
	uint64_t word;
	switch (p->kind) {
	case SG_PIECE_ADDRESS:
		if (t && !sg_target_read(t, p->value, buf, size))
			memset(known, 1, size);
		return;
	case SG_PIECE_IMPLICIT:
		memcpy(buf, p->data, size);
		memset(known, 1, size);
		return;
	case SG_PIECE_REGISTER:
		if (!regs || p->value >= SG_DWARF_NGPRS || !sg_regs_has(regs, p->value))
			return;
		word = regs->r[p->value];
		break;
	case SG_PIECE_VALUE:
		if (p->value_size > sizeof(word)) {
			/* A typed value: all its bytes.  */
			size_t n = size < p->value_size ? size : p->value_size;
			unsigned char b[16];
			memcpy(b, &p->value, 8);
			memcpy(b + 8, &p->value_hi, 8);
			memcpy(buf, b, n);
			memset(known, 1, n);
			return;
		}
		word = p->value;
		break;
	default:
		return;
	}
	/* A register or a computed value has 8 bytes; gdb counts more as
	   unavailable.  */
	size_t n = size < sizeof(word) ? size : sizeof(word);
	memcpy(buf, &word, n);
	memset(known, 1, n);
}

void sg_dwarf_location_read(struct sg_target *t, const struct sg_regs *regs,
			    const struct sg_dwarf_location *loc, void *buf, bool *known, size_t size)
{
	memset(buf, 0, size);
	memset(known, 0, size * sizeof(*known));
	size_t off = 0;
	for (size_t i = 0; i < loc->npieces && off < size; i++) {
		const struct sg_dwarf_piece *p = &loc->pieces[i];
		size_t n = p->size == 0 || p->size > size - off ? size - off : p->size;
		read_piece(t, regs, p, (unsigned char *)buf + off, known + off, n);
		off += n;
	}
}
