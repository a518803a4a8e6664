/* Tail-call frames, as gdb shows them.

   A function that ends in a tail call leaves no frame: its callee returns
   straight to its caller.  The DWARF call-site records (DW_TAG_call_site)
   say what each call instruction calls and which calls are tail calls, so
   when the call site at a frame's return address calls X, but the frame
   below runs Y, and X reaches Y by tail calls along exactly one path, the
   functions on that path were there: gdb shows them as frames, and so do
   we.  Ambiguous paths add nothing.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#define MAX_CHAIN 4		/* tail calls between two real frames */
#define MAX_SCOPE_DEPTH 16

static bool return_pc(Dwarf_Die *site, Dwarf_Addr *ret)
{
	Dwarf_Attribute a;
	if (!dwarf_attr(site, DW_AT_call_return_pc, &a) && !dwarf_attr(site, DW_AT_low_pc, &a))
		return false;
	return dwarf_formaddr(&a, ret) == 0;
}

static bool is_call_site(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

static bool is_tail_call(Dwarf_Die *site)
{
	Dwarf_Attribute a;
	bool flag = false;
	if (dwarf_attr(site, DW_AT_call_tail_call, &a) || dwarf_attr(site, DW_AT_GNU_tail_call, &a))
		dwarf_formflag(&a, &flag);
	return flag;
}

/* Call FN for each call site in the subtree of SCOPE (lexical blocks and
   inlined calls included).  Stops when FN returns true.  */
static bool each_call_site(Dwarf_Die *scope, int depth,
			   bool (*fn)(Dwarf_Die *site, void *arg), void *arg)
{
	Dwarf_Die child;
	if (depth > MAX_SCOPE_DEPTH || dwarf_child(scope, &child) != 0)
		return false;
	do {
		if (is_call_site(&child)) {
			if (fn(&child, arg))
				return true;
		} else {
			int tag = dwarf_tag(&child);
			if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
			    each_call_site(&child, depth + 1, fn, arg))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The concrete subprogram DIE containing target address ADDR.  */
static bool subprogram_at(struct sg_target *t, struct sg_module *mod, uint64_t addr, Dwarf_Die *ret)
{
	Dwarf_Addr bias;
	Dwarf_Die *cudie = sg_frame_cudie(t, mod, addr, &bias);
	if (!cudie)
		return false;
	Dwarf_Die *chain = NULL;
	/* The concrete subprogram, which holds the call sites, is on the
	   chain of DIEs that contain the innermost scope.  */
	int m = sg_frame_scopes(cudie, addr - bias, &chain);
	bool found = false;
	for (int i = 0; i < m && !found; i++) {
		if (dwarf_tag(&chain[i]) == DW_TAG_subprogram) {
			*ret = chain[i];
			found = true;
		}
	}
	free(chain);
	return found;
}

/* The entry address of what SITE calls, or 0.  A declaration is found by
   its symbol, in any module: calls through the PLT name their target.  */
static uint64_t call_target(struct sg_target *t, Dwarf_Die *site, Dwarf_Addr bias)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	if (!dwarf_attr(site, DW_AT_call_origin, &a) && !dwarf_attr(site, DW_AT_abstract_origin, &a))
		return 0;
	if (!dwarf_formref_die(&a, &origin))
		return 0;
	Dwarf_Addr lo;
	if (dwarf_entrypc(&origin, &lo) == 0)
		return lo + bias;
	/* A declaration: the definition is found by its symbol.  */
	const char *name = NULL;
	if (dwarf_attr_integrate(&origin, DW_AT_linkage_name, &a))
		name = dwarf_formstring(&a);
	if (!name && dwarf_attr_integrate(&origin, DW_AT_name, &a))
		name = dwarf_formstring(&a);
	struct sg_symbol sym;
	struct sg_error *err = name ? sg_lookup_symbol(t, name, &sym) : &sg_not_found;
	if (err) {
		sg_error_destroy(err);
		return 0;
	}
	return sym.address;
}

struct search {
	struct sg_target *t;
	Dwarf_Addr bias;		/* of the function being searched */
	uint64_t goal;			/* the entry of the frame below */
	uint64_t path[MAX_CHAIN];	/* entry of each function on the path */
	uint64_t pcs[MAX_CHAIN];	/* its tail call's return address */
	size_t depth;
	size_t solutions;
	uint64_t best_path[MAX_CHAIN], best_pcs[MAX_CHAIN];
	size_t best_len;
};

static void search_from(struct search *s, uint64_t entry);

static bool visit_tail_site(Dwarf_Die *site, void *arg)
{
	struct search *s = arg;
	Dwarf_Addr ret;
	if (!is_tail_call(site) || !return_pc(site, &ret))
		return false;
	uint64_t target = call_target(s->t, site, s->bias);
	if (!target)
		return false;
	s->pcs[s->depth - 1] = ret + s->bias;
	if (target == s->goal) {
		if (++s->solutions == 1) {
			memcpy(s->best_path, s->path, sizeof(s->path));
			memcpy(s->best_pcs, s->pcs, sizeof(s->pcs));
			s->best_len = s->depth;
		}
	} else {
		search_from(s, target);
	}
	return s->solutions > 1;	/* ambiguous: stop looking */
}

static void search_from(struct search *s, uint64_t entry)
{
	if (s->depth >= MAX_CHAIN)
		return;
	for (size_t i = 0; i < s->depth; i++)
		if (s->path[i] == entry)
			return;	/* a cycle of tail calls */
	struct sg_module *mod = sg_target_module_at(s->t, entry);
	Dwarf_Die sub;
	Dwarf_Addr bias;
	if (!mod || !dwfl_module_getdwarf(mod->dwmod, &bias) || !subprogram_at(s->t, mod, entry, &sub))
		return;
	Dwarf_Addr saved_bias = s->bias;
	s->bias = bias;
	s->path[s->depth++] = entry;
	each_call_site(&sub, 0, visit_tail_site, s);
	s->depth--;
	s->bias = saved_bias;
}

struct find_site {
	Dwarf_Addr ret;
	Dwarf_Die site;
};

static bool match_return(Dwarf_Die *site, void *arg)
{
	struct find_site *f = arg;
	Dwarf_Addr ret;
	if (return_pc(site, &ret) && ret == f->ret) {
		f->site = *site;
		return true;
	}
	return false;
}

/* The tail-call path between a call site and a callee, cached per target:
   a profiler meets the same pair again and again.  */
struct tail_entry {
	uint64_t caller_pc, callee_entry;	/* caller_pc 0: empty */
	uint8_t n;
	uint64_t pcs[MAX_CHAIN];		/* innermost first */
};

/* The call site whose call returns to an address: asked for every frame
   with an entry-value argument, and for every tail-call search.  */
struct site_entry {
	uint64_t return_pc;	/* 0: empty */
	bool found;
	bool target_known;	/* TARGET is call_target's answer */
	Dwarf_Addr bias;
	Dwarf_Die site;
	uint64_t target;
};

/* site_param_value's answer for a call site DIE and a register: each
   thread's frames ask again.  */
struct param_entry {
	const void *site;	/* the DIE's address; NULL: empty */
	unsigned reg;
	bool found;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
};

struct sg_tailcall_cache {
	struct sg_table table;	/* of struct tail_entry */
	struct sg_table sites;	/* of struct site_entry */
	struct sg_table params;	/* of struct param_entry */
};

void sg_tailcall_cache_destroy(struct sg_tailcall_cache *c)
{
	if (c) {
		free(c->table.slots);
		free(c->sites.slots);
		free(c->params.slots);
	}
	free(c);
}

static bool site_used(const void *e)
{
	return ((const struct site_entry *)e)->return_pc != 0;
}

static uint64_t site_hash(const void *e)
{
	return sg_hash64(((const struct site_entry *)e)->return_pc);
}

static bool site_eq(const void *e, const void *key)
{
	return ((const struct site_entry *)e)->return_pc == *(const uint64_t *)key;
}

static const struct sg_table_type site_table = {
	sizeof(struct site_entry), 64, site_used, site_hash,
};

static bool find_call_site(struct sg_target *t, uint64_t return_pc, Dwarf_Die *site_ret,
			   Dwarf_Addr *bias_ret);


/* The call site that returns to RETURN_PC, remembered per target.  */
static bool call_site_at(struct sg_target *t, uint64_t return_pc, Dwarf_Die *site_ret,
			 Dwarf_Addr *bias_ret)
{
	if (!return_pc)
		return false;
	if (!t->tailcalls && !(t->tailcalls = calloc(1, sizeof(*t->tailcalls))))
		return find_call_site(t, return_pc, site_ret, bias_ret);
	struct sg_table *sites = &t->tailcalls->sites;
	struct site_entry *e = sg_table_find(sites, &site_table, sg_hash64(return_pc), site_eq,
					     &return_pc, false);
	if (!e) {
		struct site_entry fresh = { .return_pc = return_pc };
		fresh.found = find_call_site(t, return_pc, &fresh.site, &fresh.bias);
		e = sg_table_find(sites, &site_table, sg_hash64(return_pc), site_eq, &return_pc, true);
		if (!e)
			e = &fresh;	/* out of memory: answer without keeping it */
		else
			*e = fresh;
	}
	if (e->found) {
		*site_ret = e->site;
		*bias_ret = e->bias;
	}
	return e->found;
}

static uint64_t pair_hash(uint64_t a, uint64_t b)
{
	return sg_hash64(a * UINT64_C(0x9e3779b97f4a7c15) ^ b);
}

static bool tail_used(const void *e)
{
	return ((const struct tail_entry *)e)->caller_pc != 0;
}

static uint64_t tail_hash(const void *e)
{
	const struct tail_entry *t = e;
	return pair_hash(t->caller_pc, t->callee_entry);
}

static bool tail_eq(const void *e, const void *key)
{
	const struct tail_entry *t = e, *k = key;
	return t->caller_pc == k->caller_pc && t->callee_entry == k->callee_entry;
}

static const struct sg_table_type tail_table = {
	sizeof(struct tail_entry), 64, tail_used, tail_hash,
};

static struct tail_entry *tail_slot(struct sg_tailcall_cache *c, uint64_t a, uint64_t b, bool insert)
{
	struct tail_entry key = { .caller_pc = a, .callee_entry = b };
	struct tail_entry *e = sg_table_find(&c->table, &tail_table, pair_hash(a, b), tail_eq, &key,
					     insert);
	if (e && insert) {
		e->caller_pc = a;
		e->callee_entry = b;
	}
	return e;
}

/* Fill E with the tail-call path from the call site at CALLER_PC to the
   function at CALLEE_ENTRY.  */
/* The call site whose call returns to RETURN_PC, in the DWARF of the
   function around it.  */
static bool find_call_site(struct sg_target *t, uint64_t return_pc, Dwarf_Die *site_ret,
			   Dwarf_Addr *bias_ret)
{
	struct sg_module *mod = sg_target_module_at(t, return_pc - 1);
	Dwarf_Addr bias;
	Dwarf_Die caller;
	if (!mod || !dwfl_module_getdwarf(mod->dwmod, &bias) ||
	    !sg_frame_caller_subprogram(t, return_pc, &caller))
		return false;
	struct find_site fs = { .ret = return_pc - bias };
	if (!each_call_site(&caller, 0, match_return, &fs))
		return false;
	*site_ret = fs.site;
	*bias_ret = bias;
	return true;
}

static void find_path(struct sg_target *t, struct tail_entry *e)
{
	e->n = 0;
	Dwarf_Die site;
	Dwarf_Addr bias;
	if (!call_site_at(t, e->caller_pc, &site, &bias))
		return;
	uint64_t first = call_target(t, &site, bias);
	if (!first || first == e->callee_entry)
		return;
	struct search s = { .t = t, .goal = e->callee_entry };
	search_from(&s, first);
	if (s.solutions != 1)
		return;
	/* The path runs outward from the call site; frames run inward.  */
	for (size_t k = s.best_len; k-- > 0;)
		e->pcs[e->n++] = s.best_pcs[k];
}

struct sg_error *sg_frame_tailcalls(struct sg_target *t, uint64_t callee_entry, uint64_t caller_pc,
				    struct sg_frame **frames, size_t *nframes, size_t *cap,
				    size_t physical, const struct sg_regs *regs)
{
	if (!callee_entry || !caller_pc)
		return NULL;
	if (!t->tailcalls && !(t->tailcalls = calloc(1, sizeof(*t->tailcalls))))
		return &sg_enomem;
	struct tail_entry *e = tail_slot(t->tailcalls, caller_pc, callee_entry, false);
	if (!e) {
		struct tail_entry fresh = { .caller_pc = caller_pc, .callee_entry = callee_entry };
		find_path(t, &fresh);
		e = tail_slot(t->tailcalls, caller_pc, callee_entry, true);
		if (!e)
			return &sg_enomem;
		*e = fresh;
	}
	for (size_t k = 0; k < e->n; k++) {
		struct sg_unwind_frame uf = { .regs = *regs, .activation = false };
		sg_regs_set(&uf.regs, SG_REG_RIP, e->pcs[k]);
		size_t before = *nframes;
		struct sg_error *err = sg_frame_describe(t, &uf, false, "tailcall", physical, frames,
							 nframes, cap);
		if (err)
			return err;
		/* gdb shows a tail call as one frame, of the innermost
		   function at its pc: where the jump sits in a function
		   inlined into another, the outer one is not shown.  */
		if (*nframes > before + 1)
			*nframes = before + 1;
		if (*nframes > before) {
			(*frames)[before].regs = regs;
			(*frames)[before].tail_call = true;
			(*frames)[before].inlined = false;
		}
	}
	return NULL;
}

/* ---- entry values ---- */

static bool site_param_cached(struct sg_target *t, Dwarf_Die *site, unsigned reg,
			      Dwarf_Attribute *attr, Dwarf_Op **ops, size_t *nops);

struct sg_error *sg_call_site_value(struct sg_target *t, uint64_t return_pc, unsigned dwarf_reg,
				    Dwarf_Op **ops_ret, size_t *nops_ret)
{
	Dwarf_Die site;
	Dwarf_Addr bias;
	Dwarf_Attribute a;
	if (!call_site_at(t, return_pc, &site, &bias) ||
	    !site_param_cached(t, &site, dwarf_reg, &a, ops_ret, nops_ret))
		return &sg_not_found;
	return NULL;
}

/* ---- variables' locations in a frame of a stack ---- */

#define MAX_ENTRY_DEPTH 64	/* callers followed for nested entry values */

/* The registers of frame LEVEL.  A tail-call frame has those of the
   frame below it, the callee's, in the library; what it kept for its
   caller are the callee-saved registers its caller's frame has, as gdb
   takes them.  */
static const struct sg_regs *frame_regs(const struct sg_stack *st, size_t level)
{
	const struct sg_frame *f = sg_stack_frame(st, level);
	for (size_t k = level + 1; f->tail_call && k < sg_stack_count(st); k++)
		if (!sg_stack_frame(st, k)->tail_call)
			return sg_stack_frame(st, k)->regs;
	return f->regs;
}

/* The stack's memo (sg_stack_memo_get) of a frame's base, beside its
   entry values, which are keyed by DWARF register.  */
#define FRAME_BASE_MEMO 0xffffu

static void frame_base(const struct sg_frame *f, struct sg_dwarf_expr_ctx *ret);

void sg_stack_expr_ctx(struct sg_target *t, const struct sg_stack *st, size_t level,
		       struct sg_dwarf_expr_ctx *ret)
{
	memset(ret, 0, sizeof(*ret));
	const struct sg_frame *f = sg_stack_frame(st, level);
	ret->target = t;
	if (!f)
		return;
	ret->regs = frame_regs(st, level);
	ret->has_cfa = sg_stack_cfa(st, level, &ret->cfa);
	if (!f->scopes || f->scope_fn < 0)
		return;
	/* Each of a frame's variables asks: the stack remembers it.  */
	bool found;
	uint64_t base;
	if (sg_stack_memo_get(st, level, FRAME_BASE_MEMO, 0, &found, &base)) {
		ret->frame_base = base;
		ret->has_frame_base = found;
		return;
	}
	frame_base(f, ret);
	sg_stack_memo_put(st, level, FRAME_BASE_MEMO, 0, ret->has_frame_base, ret->frame_base);
}

/* F's frame base in RET, whose registers and CFA are set.  */
static void frame_base(const struct sg_frame *f, struct sg_dwarf_expr_ctx *ret)
{
	uint64_t lookup = (f->activation ? f->pc : f->pc - 1) - f->dwarf_bias;
	/* The frame base is the subprogram's: an inlined function has its
	   caller's.  */
	for (int i = f->scope_fn; i < f->nscopes; i++) {
		Dwarf_Die *d = (Dwarf_Die *)&f->scopes[i];
		if (dwarf_tag(d) != DW_TAG_subprogram)
			continue;
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;
		struct sg_dwarf_result r;
		if (!dwarf_attr(d, DW_AT_frame_base, &a) ||
		    dwarf_getlocation_addr(&a, lookup, &ops, &nops, 1) <= 0)
			return;
		struct sg_error *err = sg_dwarf_expr_eval(ops, nops, ret, NULL, &r);
		if (!err && r.kind == SG_DWARF_REGISTER) {
			if (r.value < SG_DWARF_NGPRS && f->regs && sg_regs_has(f->regs, r.value))
				r.value = f->regs->r[r.value];
			else
				err = &sg_not_found;
		}
		if (!err) {
			ret->frame_base = r.value;
			ret->has_frame_base = true;
		}
		sg_error_destroy(err);
		return;
	}
}

struct entry_arg {
	struct sg_target *t;
	const struct sg_stack *st;
	size_t level;
	int depth;
};

static struct sg_error *entry_value(struct sg_target *t, const struct sg_stack *st, size_t level,
				    unsigned reg, int depth, uint64_t *ret);

static struct sg_error *entry_cb(void *arg, unsigned reg, uint64_t *ret)
{
	struct entry_arg *e = arg;
	return entry_value(e->t, e->st, e->level, reg, e->depth, ret);
}

/* OPS, of attribute ATTR, evaluated in frame LEVEL, whose module's bias
   is BIAS.  */
static struct sg_error *locate_at(struct sg_target *t, const struct sg_stack *st, size_t level,
				  Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t nops,
				  uint64_t bias, int depth, struct sg_dwarf_location *ret)
{
	struct sg_dwarf_expr_ctx ctx;
	sg_stack_expr_ctx(t, st, level, &ctx);
	struct entry_arg e = { t, st, level, depth };
	const struct sg_frame *f = level < sg_stack_count(st) ? sg_stack_frame(st, level) : NULL;
	const struct sg_dwarf_tls tls = { t, sg_stack_thread(st), f ? f->module : NULL };
	return sg_dwarf_location_eval_tls(ops, nops, &ctx, bias, attr, entry_cb, &e,
					  tls.module ? &tls : NULL, ret);
}

struct sg_error *sg_stack_locate(struct sg_target *t, const struct sg_stack *st, size_t level,
				 const Dwarf_Op *ops, size_t nops, struct sg_dwarf_location *ret)
{
	const struct sg_frame *f = sg_stack_frame(st, level);
	if (!f)
		return &sg_not_found;
	/* A variable of the frame is in the unit of the frame's scopes:
	   DW_OP_addrx and DW_OP_constx index that unit's .debug_addr.  */
	Dwarf_Attribute unit = { .code = DW_AT_location, .form = DW_FORM_exprloc };
	if (f->scopes && f->nscopes > 0)
		unit.cu = f->scopes[0].cu;
	return locate_at(t, st, level, unit.cu ? &unit : NULL, ops, nops, f->dwarf_bias, 0, ret);
}

/* call_target of SITE, the call site returning to RETURN_PC, remembered
   with it: every frame of a recursion asks it again.  */
static uint64_t site_call_target(struct sg_target *t, uint64_t return_pc, Dwarf_Die *site,
				 Dwarf_Addr bias)
{
	struct site_entry *e = t->tailcalls
		? sg_table_find(&t->tailcalls->sites, &site_table, sg_hash64(return_pc), site_eq,
				&return_pc, false)
		: NULL;
	if (e && e->found && e->target_known)
		return e->target;
	uint64_t target = call_target(t, site, bias);
	if (e && e->found) {
		e->target = target;
		e->target_known = true;
	}
	return target;
}

/* The address SITE (returning to RETURN_PC) calls, as gdb finds it: its
   DW_AT_call_origin's entry, or DW_AT_call_target evaluated in the
   caller's frame CALLER.  0 when unknown.  */
static uint64_t site_target(struct sg_target *t, const struct sg_stack *st, size_t caller,
			    uint64_t return_pc, Dwarf_Die *site, Dwarf_Addr bias, int depth)
{
	uint64_t target = site_call_target(t, return_pc, site, bias);
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (target || (!dwarf_attr(site, DW_AT_call_target, &a) &&
		       !dwarf_attr(site, DW_AT_GNU_call_site_target, &a)) ||
	    dwarf_getlocation(&a, &ops, &nops) != 0)
		return target;
	struct sg_dwarf_location loc;
	struct sg_error *err = locate_at(t, st, caller, &a, ops, nops, bias, depth + 1, &loc);
	if (err || loc.npieces != 1) {
		sg_error_destroy(err);
		return 0;
	}
	/* DW_OP_bregN: the target is the address; DW_OP_regN: the register. */
	if (loc.pieces[0].kind == SG_PIECE_ADDRESS)
		return loc.pieces[0].value;
	uint64_t v = 0;
	bool known[8];
	sg_dwarf_location_read(t, frame_regs(st, caller), &loc, &v, known, sizeof(v));
	return known[0] ? v : 0;
}

/* SITE's parameter passed in DWARF register REG (its DW_AT_location is
   that register): its DW_AT_call_value *ATTR, an expression in the
   caller's frame.  */
static bool site_param_value(Dwarf_Die *site, unsigned reg, Dwarf_Attribute *attr,
			     Dwarf_Op **ops, size_t *nops)
{
	Dwarf_Die param;
	if (dwarf_child(site, &param) != 0)
		return false;
	do {
		int tag = dwarf_tag(&param);
		if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
			continue;
		Dwarf_Attribute a;
		Dwarf_Op *loc;
		size_t nloc;
		if (!dwarf_attr(&param, DW_AT_location, &a) || dwarf_getlocation(&a, &loc, &nloc) != 0 ||
		    nloc != 1 ||
		    !((loc[0].atom == DW_OP_regx && loc[0].number == reg) ||
		      (loc[0].atom >= DW_OP_reg0 && loc[0].atom <= DW_OP_reg31 &&
		       (unsigned)(loc[0].atom - DW_OP_reg0) == reg)))
			continue;
		return (dwarf_attr(&param, DW_AT_call_value, attr) ||
			dwarf_attr(&param, DW_AT_GNU_call_site_value, attr)) &&
		       dwarf_getlocation(attr, ops, nops) == 0;
	} while (dwarf_siblingof(&param, &param) == 0);
	return false;
}

static bool param_used(const void *e) { return ((const struct param_entry *)e)->site != NULL; }

static uint64_t param_hash(const void *e)
{
	const struct param_entry *p = e;
	return pair_hash((uintptr_t)p->site, p->reg);
}

static bool param_eq(const void *e, const void *key)
{
	const struct param_entry *p = e, *k = key;
	return p->site == k->site && p->reg == k->reg;
}

static const struct sg_table_type param_table = {
	sizeof(struct param_entry), 64, param_used, param_hash,
};

/* site_param_value, remembered with T.  */
static bool site_param_cached(struct sg_target *t, Dwarf_Die *site, unsigned reg,
			      Dwarf_Attribute *attr, Dwarf_Op **ops, size_t *nops)
{
	struct param_entry key = { .site = site->addr, .reg = reg };
	struct param_entry *e = NULL;
	if (t->tailcalls || (t->tailcalls = calloc(1, sizeof(*t->tailcalls)))) {
		uint64_t h = param_hash(&key);
		e = sg_table_find(&t->tailcalls->params, &param_table, h, param_eq, &key, false);
		if (!e && (e = sg_table_find(&t->tailcalls->params, &param_table, h, param_eq, &key,
					     true))) {
			*e = key;
			e->found = site_param_value(site, reg, &e->attr, &e->ops, &e->nops);
		}
	}
	if (!e)
		return site_param_value(site, reg, attr, ops, nops);
	if (e->found) {
		*attr = e->attr;
		*ops = e->ops;
		*nops = e->nops;
	}
	return e->found;
}

static struct sg_error *find_entry_value(struct sg_target *t, const struct sg_stack *st,
					 size_t level, unsigned reg, int depth, uint64_t *ret);

static struct sg_error *entry_value(struct sg_target *t, const struct sg_stack *st, size_t level,
				    unsigned reg, int depth, uint64_t *ret)
{
	if (depth > MAX_ENTRY_DEPTH)
		return &sg_not_found;
	int budget = MAX_ENTRY_DEPTH - depth;
	bool found;
	if (sg_stack_memo_get(st, level, reg, budget, &found, ret))
		return found ? NULL : &sg_not_found;
	struct sg_error *err = find_entry_value(t, st, level, reg, depth, ret);
	if (!err || err == &sg_not_found)
		sg_stack_memo_put(st, level, reg, budget, !err, err ? 0 : *ret);
	return err;
}

static struct sg_error *find_entry_value(struct sg_target *t, const struct sg_stack *st,
					 size_t level, unsigned reg, int depth, uint64_t *ret)
{
	/* An inlined frame's entry is its function's: the outermost logical
	   frame of the physical frame, before any tail-call frames.  */
	const struct sg_frame *f = sg_stack_frame(st, level);
	if (!f)
		return &sg_not_found;
	size_t top = level;
	while (!sg_stack_frame(st, top)->tail_call && top + 1 < sg_stack_count(st) &&
	       sg_stack_frame(st, top + 1)->physical == f->physical &&
	       !sg_stack_frame(st, top + 1)->tail_call)
		top++;
	size_t caller = top + 1;
	const struct sg_frame *fn = sg_stack_frame(st, top);
	const struct sg_frame *cf = sg_stack_frame(st, caller);
	/* A tail-call frame calls too: from the jump's call site.  */
	if (!cf || cf->activation || !fn->has_offset || !cf->regs)
		return &sg_not_found;
	Dwarf_Die site;
	Dwarf_Addr bias;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (!call_site_at(t, cf->pc, &site, &bias) ||
	    site_target(t, st, caller, cf->pc, &site, bias, depth) != fn->pc - fn->offset ||
	    !site_param_cached(t, &site, reg, &a, &ops, &nops))
		return &sg_not_found;
	struct sg_dwarf_location loc;
	struct sg_error *err = locate_at(t, st, caller, &a, ops, nops, bias, depth + 1, &loc);
	if (err)
		return err;
	/* The value itself, not where it lives: a register or memory
	   location names the register's or memory's contents.  */
	if (loc.npieces != 1)
		return &sg_not_found;
	bool known[8];
	uint64_t v = 0;
	if (loc.pieces[0].kind == SG_PIECE_ADDRESS)
		loc.pieces[0].kind = SG_PIECE_VALUE;
	sg_dwarf_location_read(t, frame_regs(st, caller), &loc, &v, known, sizeof(v));
	if (!known[0])
		return &sg_not_found;
	*ret = v;
	return NULL;
}

struct sg_error *sg_stack_entry_value(struct sg_target *t, const struct sg_stack *st, size_t level,
				      unsigned reg, uint64_t *ret)
{
	return entry_value(t, st, level, reg, 0, ret);
}
