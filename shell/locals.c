/* info locals, info args, bt full and frame-line arguments: a frame's
   variables, located through DWARF with the frame's registers, CFA and
   frame base.  */
#include <config.h>
#include "data.h"

#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* valprint.c: X as a frame line shows it (SUMMARY: "print
   frame-arguments scalars").  Here until shell/data.h, which another
   change owns, declares it.  */
struct sg_error *format_frame_arg(struct shell *sh, struct sg_target *t, struct xval *x, bool cplus,
				  bool summary, char **ret);

/* Where the selected frame's variables live: registers, CFA, frame base. */
struct frame_ctx {
	struct sg_target *t;
	const struct sg_stack *st;
	size_t level;
	const struct sg_frame *f;
	Dwarf_Addr bias;
	uint64_t lookup;		/* the pc for location lists */
	bool cplus;			/* the frame's unit is C++ */
	struct sg_dwarf_expr_ctx ctx;
};

/* A variable the compiler folded into a constant (DW_AT_const_value): an
   integer form, or a block of at most 8 bytes (a double).  */
struct sg_error *const_value(Dwarf_Die *var, Dwarf_Attribute *a, struct val *ret)
{
	(void)var;
	ret->lvalue = false;
	Dwarf_Block block;
	Dwarf_Sword sv;
	switch (dwarf_whatform(a)) {
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
		if (dwarf_formblock(a, &block) != 0 || block.length > sizeof(ret->bits))
			return &sg_not_found;
		ret->bits = 0;
		memcpy(&ret->bits, block.data, block.length);
		return NULL;
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(a, &sv) != 0)
			return &sg_not_found;
		ret->bits = (uint64_t)sv;
		return NULL;
	default: {
		Dwarf_Word uv;
		if (dwarf_formudata(a, &uv) != 0)
			return &sg_not_found;
		ret->bits = uv;
		return NULL;
	}
	}
}

struct frame_scope {
	struct frame_ctx fc;
	Dwarf_Die *chain;
	int m, fn, first;
};

static struct sg_error *frame_scope_at(struct sg_target *t, const struct sg_stack *st, size_t level,
				       struct frame_scope *fs);
static void frame_scope_close(struct frame_scope *fs);

static struct sg_error *entry_value_reg(struct frame_ctx *fc, unsigned reg, struct val *ret);

#define MAX_OPS 32

/* N operations IN into OUT (room for MAX_OPS) with each DW_OP_addr, a
   file address, moved by the module's BIAS.  False when N is too many. */
static bool relocate_ops(const Dwarf_Op *in, size_t n, uint64_t bias, Dwarf_Op *out)
{
	if (n > MAX_OPS)
		return false;
	memcpy(out, in, n * sizeof(*in));
	for (size_t i = 0; i < n; i++)
		if (out[i].atom == DW_OP_addr)
			out[i].number += bias;
	return true;
}

/* The DWARF register a one-operation location OP names, or -1.  */
static int op_register(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx && op->number < SG_NREGS)
		return (int)op->number;
	return -1;
}

/* DW_OP_entry_value(REG): the value the caller passed in REG.  */
static struct sg_error *entry_value(struct frame_ctx *fc, Dwarf_Attribute *loc, Dwarf_Op *op,
				   struct val *ret)
{
	Dwarf_Attribute inner;
	Dwarf_Op *iops;
	size_t ni;
	if (dwarf_getlocation_attr(loc, op, &inner) != 0 || dwarf_getlocation(&inner, &iops, &ni) != 0 ||
	    ni != 1 || op_register(&iops[0]) < 0)
		return &sg_not_found;
	return entry_value_reg(fc, (unsigned)op_register(&iops[0]), ret);
}

/* The value the caller passed in DWARF register REG: the call site's
   DW_AT_call_value evaluated in the caller's frame, as gdb does.  */
static struct sg_error *entry_value_reg(struct frame_ctx *fc, unsigned reg, struct val *ret)
{
	Dwarf_Op *cops;
	size_t nc;
	/* The caller: the next physical frame, whose pc is the return
	   address of the call.  */
	size_t caller = fc->level + 1;
	while (caller < sg_stack_count(fc->st) &&
	       sg_stack_frame(fc->st, caller)->physical == fc->f->physical)
		caller++;
	if (caller >= sg_stack_count(fc->st))
		return &sg_not_found;
	const struct sg_frame *cf = sg_stack_frame(fc->st, caller);
	if (cf->activation || sg_call_site_value(fc->t, cf->pc, reg, &cops, &nc))
		return &sg_not_found;
	struct frame_scope cfs;
	struct sg_dwarf_expr_ctx ctx = { .target = fc->t, .regs = cf->regs };
	struct sg_error *err = frame_scope_at(fc->t, fc->st, caller, &cfs);
	if (!err) {
		ctx = cfs.fc.ctx;
		frame_scope_close(&cfs);
	}
	sg_error_destroy(err);
	/* The call site is in the caller's module.  */
	Dwarf_Op ops[MAX_OPS];
	if (!relocate_ops(cops, nc, cf->dwarf_bias, ops))
		return &sg_not_found;
	struct sg_dwarf_result r;
	if ((err = sg_dwarf_expr_eval(ops, nc, &ctx, NULL, &r))) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	if (r.kind == SG_DWARF_REGISTER) {
		if (r.value >= SG_NREGS || !sg_regs_has(cf->regs, r.value))
			return &sg_not_found;
		r.value = cf->regs->r[r.value];
	}
	/* A call value's result is the value itself, not where it lives.  */
	ret->lvalue = false;
	ret->bits = r.value;
	ret->entry_value = true;
	return NULL;
}

static struct sg_error *locate(struct frame_ctx *fc, Dwarf_Die *var, struct val *ret)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return const_value(var, &a, ret);
	if (!dwarf_attr_integrate(var, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, fc->lookup - fc->bias, &ops, &nops, 1) <= 0 || nops == 0)
		return &sg_not_found;	/* <optimized out> */
	if (ops[0].atom == DW_OP_addr && nops == 1) {
		ret->lvalue = true;
		ret->address = ops[0].number + fc->bias;
		return NULL;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_implicit_pointer ||
			  ops[0].atom == DW_OP_GNU_implicit_pointer)) {
		ret->lvalue = false;
		ret->synthetic_ptr = true;
		return NULL;
	}
	if (nops == 2 && (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) &&
	    ops[1].atom == DW_OP_stack_value)
		return entry_value(fc, &a, &ops[0], ret);
	for (size_t i = 0; i < nops; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece ||
		    ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value ||
		    ops[i].atom == DW_OP_implicit_value || ops[i].atom == DW_OP_implicit_pointer ||
		    ops[i].atom == DW_OP_GNU_implicit_pointer)
			return &sg_not_found;	/* not yet: pieces, entry values */
	/* &global folded into a value: DW_OP_addr ... DW_OP_stack_value.  */
	Dwarf_Op local[MAX_OPS];
	if (!relocate_ops(ops, nops, fc->bias, local))
		return &sg_not_found;
	struct sg_dwarf_result r;
	struct sg_error *err = sg_dwarf_expr_eval(local, nops, &fc->ctx, NULL, &r);
	if (err) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	switch (r.kind) {
	case SG_DWARF_ADDRESS:
		ret->lvalue = true;
		ret->address = r.value;
		return NULL;
	case SG_DWARF_VALUE:
		ret->lvalue = false;
		ret->bits = r.value;
		return NULL;
	case SG_DWARF_REGISTER:
		if (r.value >= SG_NREGS || !sg_regs_has(fc->f->regs, r.value))
			return &sg_not_found;
		ret->lvalue = false;
		ret->bits = fc->f->regs->r[r.value];
		return NULL;
	}
	return &sg_not_found;
}

static void print_var(struct shell *sh, struct frame_ctx *fc, Dwarf_Die *var, const char *indent,
		      struct sg_out *out)
{
	const char *name = dwarf_diename(var);
	Dwarf_Die type;
	if (!name || !die_type(var, &type))
		return;
	struct val v = { .type = type };
	struct sg_error *err = locate(fc, var, &v);
	struct xval x = { .v = v };
	bool optimized_out = err != NULL;
	char *text = NULL;
	if (err) {
		sg_error_destroy(err);
		text = strdup("<optimized out>");
	} else {
		err = format_value(sh, fc->t, &x, 0, false, fc->cplus, false, &text);
		if (err) {
			text = fault_text(err);
			sg_error_destroy(err);
		}
	}
	sg_out_printf(out, "%s%s = %s\n", indent, name, text ? text : "?");
	if (sg_out_json(out)) {
		/* The value as in print (null when optimized out), and gdb's
		   text.  */
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", name);
		if (optimized_out)
			sg_out_null(out, "value");
		else
			json_value(sh, fc->t, &x, 0, false, fc->cplus, out, "value");
		sg_out_string(out, "text", text);
		sg_out_object_end(out);
	}
	free(text);
}

/* NAME = <optimized out>; JSON's value null.  */
static void print_optimized_out(const char *name, const char *indent, struct sg_out *out)
{
	sg_out_printf(out, "%s%s = <optimized out>\n", indent, name);
	if (!sg_out_json(out))
		return;
	sg_out_object_begin(out, NULL);
	sg_out_string(out, "name", name);
	sg_out_null(out, "value");
	sg_out_string(out, "text", "<optimized out>");
	sg_out_object_end(out);
}

/* The selected frame's scopes: the concrete chain of DIEs at its pc, the
   index of its function in the chain (FN; inlined calls have their own),
   and of the function below it (FIRST, -1 if none): the blocks in between
   are this frame's.  */

static struct sg_error *frame_scope_at(struct sg_target *t, const struct sg_stack *st, size_t level,
				       struct frame_scope *fs)
{
	memset(fs, 0, sizeof(*fs));
	const struct sg_frame *f = sg_stack_frame(st, level);
	struct frame_ctx *fc = &fs->fc;
	fc->t = t;
	fc->st = st;
	fc->level = level;
	fc->f = f;
	fc->lookup = f->activation ? f->pc : f->pc - 1;
	/* The scope chain comes with the frame's description, which the
	   library computed (before the stop, for the threads it could).  */
	if (!f->scopes || f->scope_fn < 0 || f->signal_trampoline || f->tail_call)
		return sg_error_create(SG_ERROR_LOOKUP, "No symbol table info available.");
	fs->chain = (Dwarf_Die *)f->scopes;
	fs->m = f->nscopes;
	fs->fn = f->scope_fn;
	fc->cplus = is_cplus(&fs->chain[fs->fn]);
	fs->first = f->scope_first;
	fc->bias = f->dwarf_bias;
	/* The CFA is the caller's stack pointer.  */
	fc->ctx.target = fc->t;
	fc->ctx.regs = f->regs;
	fc->ctx.has_cfa = sg_stack_cfa(st, level, &fc->ctx.cfa);
	/* The frame base comes from the subprogram (an inlined function uses
	   its caller's).  */
	for (int i = fs->fn; i < fs->m; i++) {
		if (dwarf_tag(&fs->chain[i]) != DW_TAG_subprogram)
			continue;
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;
		struct sg_dwarf_result r;
		if (dwarf_attr(&fs->chain[i], DW_AT_frame_base, &a) &&
		    dwarf_getlocation_addr(&a, fc->lookup - fc->bias, &ops, &nops, 1) > 0) {
			/* No frame base (say, no CFA in the outermost frame)
			   leaves the variables that need it optimized out.  */
			struct sg_error *err = sg_dwarf_expr_eval(ops, nops, &fc->ctx, NULL, &r);
			if (!err) {
				fc->ctx.frame_base = r.kind == SG_DWARF_REGISTER && r.value < SG_NREGS
					? f->regs->r[r.value] : r.value;
				fc->ctx.has_frame_base = true;
			}
			sg_error_destroy(err);
		}
		break;
	}
	return NULL;
}

static struct sg_error *frame_scope_open(struct sg_session *s, struct shell *sh,
				       struct frame_scope *fs)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	return frame_scope_at(sg_session_target(s), st, sg_session_frame(s), fs);
}

static void frame_scope_close(struct frame_scope *fs)
{
	(void)fs;	/* the chain belongs to the cache */
}

/* Find NAME among the selected frame's variables and parameters,
   innermost block first.  &sg_not_found if it is not one of them.  */
struct sg_error *frame_variable(struct sg_session *s, struct shell *sh, const char *name,
				     struct val *ret)
{
	struct frame_scope fs;
	struct sg_error *err = frame_scope_open(s, sh, &fs);
	if (err)
		return err;
	err = &sg_not_found;
	for (int i = fs.first + 1; i <= fs.fn && err == &sg_not_found; i++) {
		Dwarf_Die child;
		if (dwarf_child(&fs.chain[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			const char *n = dwarf_diename(&child);
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !n ||
			    strcmp(n, name))
				continue;
			struct val v;
			memset(&v, 0, sizeof(v));
			if (!die_type(&child, &v.type))
				continue;
			struct sg_error *loc = locate(&fs.fc, &child, &v);
			if (loc) {
				sg_error_destroy(loc);
				err = sg_error_format(SG_ERROR_LOOKUP, "\"%s\" is optimized out here", name);
			} else {
				*ret = v;
				err = NULL;
			}
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	frame_scope_close(&fs);
	return err;
}

/* Print the variables (or, with ARGS, the parameters) of a frame's
   function and, for locals, of the blocks around its pc, innermost first,
   as gdb does.  */
#define MAX_INHERITED 256

/* A lexical block with no code of its own: gdb reads its children as
   the enclosing scope's (GCC before 4.3 wrote such blocks, and clang
   keeps abstract ones with no concrete copy).  */
static bool rangeless_block(Dwarf_Die *d)
{
	return dwarf_tag(d) == DW_TAG_lexical_block && !dwarf_hasattr(d, DW_AT_low_pc) &&
	       !dwarf_hasattr(d, DW_AT_ranges);
}

#define MAX_HOISTED_DEPTH 8

/* The variables of the abstract block BLOCK, which has no concrete copy,
   and of the blocks in it: gdb reads them into the enclosing scope.  */
static size_t hoisted_vars(struct shell *sh, struct frame_scope *fs, Dwarf_Die *block,
			   const char *indent, struct sg_out *out, int depth)
{
	Dwarf_Die child;
	size_t count = 0;
	if (depth > MAX_HOISTED_DEPTH || dwarf_child(block, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_variable) {
			print_var(sh, &fs->fc, &child, indent, out);
			count++;
		} else if (rangeless_block(&child)) {
			count += hoisted_vars(sh, fs, &child, indent, out, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return count;
}

/* An out-of-line copy of an inlined function (or a block of it) names its
   variables through DW_AT_abstract_origin; those it does not repeat, such
   as static locals, live only in the abstract tree.  Print them, as gdb
   does.  SEEN lists the abstract DIEs the concrete children refer to.  */
static size_t inherited_vars(struct shell *sh, struct frame_scope *fs, Dwarf_Die *scope,
			     const Dwarf_Off *seen, size_t nseen, const char *indent,
			     struct sg_out *out)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, child;
	size_t count = 0;
	if (nseen >= MAX_INHERITED || !dwarf_attr(scope, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &origin) || dwarf_child(&origin, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		if (tag != DW_TAG_variable && !rangeless_block(&child))
			continue;
		Dwarf_Off off = dwarf_dieoffset(&child);
		bool found = false;
		for (size_t k = 0; k < nseen && !found; k++)
			found = seen[k] == off;
		if (found)
			continue;
		if (tag == DW_TAG_variable) {
			print_var(sh, &fs->fc, &child, indent, out);
			count++;
		} else {
			count += hoisted_vars(sh, fs, &child, indent, out, 0);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return count;
}


/* Print the variables (or parameters) among SCOPE's children, those of
   range-less blocks included, in DIE order; their abstract origins go to
   SEEN.  */
static size_t block_vars(struct shell *sh, struct frame_scope *fs, Dwarf_Die *scope, bool args,
			 Dwarf_Off *seen, size_t *nseen, const char *indent, struct sg_out *out,
			 int depth)
{
	Dwarf_Die child;
	size_t count = 0;
	if (depth > MAX_HOISTED_DEPTH || dwarf_child(scope, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Die origin;
		if (*nseen < MAX_INHERITED && dwarf_attr(&child, DW_AT_abstract_origin, &a) &&
		    dwarf_formref_die(&a, &origin))
			seen[(*nseen)++] = dwarf_dieoffset(&origin);
		if ((args && tag == DW_TAG_formal_parameter) || (!args && tag == DW_TAG_variable)) {
			print_var(sh, &fs->fc, &child, indent, out);
			count++;
		} else if (!args && tag == DW_TAG_label && !dwarf_hasattr(&child, DW_AT_low_pc) &&
			   dwarf_diename(&child)) {
			/* gdb lists a label the compiler left no address
			   for (glibc's start_thread has one) among the
			   locals, optimized out.  */
			print_optimized_out(dwarf_diename(&child), indent, out);
			count++;
		} else if (!args && rangeless_block(&child)) {
			count += block_vars(sh, fs, &child, args, seen, nseen, indent, out,
					    depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return count;
}

static void scope_vars(struct shell *sh, struct frame_scope *fs, bool args, const char *indent,
		       struct sg_out *out)
{
	size_t count = 0;
	sg_out_array_begin(out, args ? "args" : "locals");
	int from = args ? fs->fn : fs->first + 1;
	for (int i = from; i <= fs->fn; i++) {
		Dwarf_Off seen[MAX_INHERITED];
		size_t nseen = 0;
		count += block_vars(sh, fs, &fs->chain[i], args, seen, &nseen, indent, out, 0);
		if (!args)
			count += inherited_vars(sh, fs, &fs->chain[i], seen, nseen, indent, out);
	}
	sg_out_array_end(out);
	/* gdb writes these unindented, even under "bt full".  */
	if (!count)
		sg_out_printf(out, "%s\n", args ? "No arguments." : "No locals.");
}

static struct sg_error *frame_vars(struct sg_session *s, struct shell *sh, struct sg_out *out,
				   bool args)
{
	struct frame_scope fs;
	struct sg_error *err = frame_scope_open(s, sh, &fs);
	if (err)
		return err;
	scope_vars(sh, &fs, args, "", out);
	frame_scope_close(&fs);
	return NULL;
}

void shell_frame_locals(struct shell *sh, const struct sg_stack *st, size_t level, struct sg_out *out)
{
	struct frame_scope fs;
	struct sg_error *err = frame_scope_at(sg_session_target(sh->session), st, level, &fs);
	if (err) {
		sg_out_printf(out, "%s\n", sg_error_message(err));
		sg_out_null(out, "locals");	/* no DWARF for the frame */
		sg_error_destroy(err);
		return;
	}
	scope_vars(sh, &fs, false, "        ", out);
	frame_scope_close(&fs);
}

/* gdb's PARAM@entry: the value the caller passed in parameter PARAM of
   the frame's function (not an inlined one), when PARAM lives in a
   register at the function's entry and the call site says what the
   caller put there.  */
static bool param_entry_value(struct frame_scope *fs, Dwarf_Die *param, struct val *ret)
{
	Dwarf_Die *fn = &fs->chain[fs->fn];
	Dwarf_Addr low;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_tag(fn) != DW_TAG_subprogram || dwarf_lowpc(fn, &low) != 0 ||
	    !dwarf_attr_integrate(param, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, low, &ops, &nops, 1) <= 0 || nops != 1 ||
	    op_register(&ops[0]) < 0)
		return false;
	struct sg_error *err = entry_value_reg(&fs->fc, (unsigned)op_register(&ops[0]), ret);
	sg_error_destroy(err);
	return !err;
}

/* Whether V, a scalar of TYPE, holds the bits of the entry value E.  */
static bool same_scalar(struct sg_target *t, Dwarf_Die *type, const struct val *v,
			const struct val *e)
{
	uint64_t size = type_size(type), cur = 0, want = e->bits;
	if (!size || size > 8 || read_value(t, v, &cur, size))
		return false;
	if (size < 8)
		want &= (UINT64_C(1) << (size * 8)) - 1;
	return cur == want;
}

/* Whether TYPE, or what it refers to, is an aggregate: a frame line under
   "print frame-arguments scalars" shows no more of it than "...".  */
static bool is_aggregate_arg(Dwarf_Die *type)
{
	Dwarf_Die st, referred;
	strip(type, &st);
	int tag = dwarf_tag(&st);
	if ((tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) &&
	    die_type(&st, &referred)) {
		strip(&referred, &st);
		tag = dwarf_tag(&st);
	}
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_array_type;
}

char *shell_frame_args(struct shell *sh, const struct sg_stack *st, size_t level)
{
	/* gdb's "set print frame-arguments": scalars (0), all, none, presence. */
	uint64_t mode = sg_setting_uint(sh->session, "print frame-arguments", 0);
	struct frame_scope fs;
	struct sg_error *err = frame_scope_at(sg_session_target(sh->session), st, level, &fs);
	if (err) {
		sg_error_destroy(err);
		return NULL;
	}
	struct sg_buf_lite b = { 0 };
	Dwarf_Die child;
	bool any = false;
	if (dwarf_child(&fs.chain[fs.fn], &child) == 0) {
		do {
			const char *name = dwarf_diename(&child);
			Dwarf_Die type;
			if (dwarf_tag(&child) != DW_TAG_formal_parameter || !name || !die_type(&child, &type))
				continue;
			if (mode == 3) {	/* presence: "..." for all of them */
				if (!any)
					lite_puts(&b, "...");
				any = true;
				continue;
			}
			lite_puts(&b, any ? ", " : "");
			any = true;
			if (mode == 2) {	/* none: names only */
				lite_puts(&b, name);
				lite_puts(&b, "=...");
				continue;
			}
			lite_puts(&b, name);
			lite_putc(&b, '=');
			struct val v = { .type = type }, ev = { .type = type };
			char *text = NULL;
			err = locate(&fs.fc, &child, &v);
			/* gdb's "print entry-values default": NAME=NAME@entry=V
			   when the value is still the one passed, NAME@entry=V
			   when only that one is known.  */
			bool entry = (err || !v.entry_value) && !is_aggregate_arg(&type) &&
				     param_entry_value(&fs, &child, &ev);
			if (entry && err) {
				sg_error_destroy(err);
				err = NULL;
				v = ev;
			} else if (entry && same_scalar(fs.fc.t, &type, &v, &ev)) {
				lite_puts(&b, name);
				lite_puts(&b, "@entry=");
			}
			if (!err && v.entry_value) {
				/* gdb: the value is the one passed at entry.  */
				lite_puts(&b, name);
				lite_puts(&b, "@entry=");
			}
			if (err) {
				/* gdb: "..." for an aggregate even then.  */
				sg_error_destroy(err);
				text = strdup(mode == 0 && is_aggregate_arg(&type) ? "..."
										    : "<optimized out>");
			} else {
				struct xval x = { .v = v };
				if ((err = format_frame_arg(sh, fs.fc.t, &x, fs.fc.cplus, mode == 0,
							    &text))) {
					text = fault_text(err);
					sg_error_destroy(err);
				}
			}
			lite_puts(&b, text ? text : "?");
			free(text);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	frame_scope_close(&fs);
	return b.s ? b.s : strdup("");
}

static struct sg_error *cmd_info_locals(struct sg_session *s, const char *args, struct sg_out *out,
					void *arg)
{
	return frame_vars(s, arg, out, false);
}

static struct sg_error *cmd_info_args(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	return frame_vars(s, arg, out, true);
}

static const struct sg_command frame_var_cmds[] = {
	{ .name = "info locals", .synopsis = "info locals",
	  .summary = "Print the selected frame's local variables",
	  .details = "Innermost block first, as gdb.  Variables whose location needs DWARF\n"
		     "pieces or entry values print <optimized out> for now.",
	  .handler = cmd_info_locals, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info args", .synopsis = "info args",
	  .summary = "Print the selected frame's arguments",
	  .handler = cmd_info_args, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_frame_var_commands(struct shell *sh)
{
	return shell_register_table(sh, frame_var_cmds,
				    sizeof(frame_var_cmds) / sizeof(frame_var_cmds[0]));
}
