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
	Dwarf_Addr bias;
	Dwarf_Die site;
};

struct sg_tailcall_cache {
	struct sg_table table;	/* of struct tail_entry */
	struct sg_table sites;	/* of struct site_entry */
};

void sg_tailcall_cache_destroy(struct sg_tailcall_cache *c)
{
	if (c) {
		free(c->table.slots);
		free(c->sites.slots);
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
	    !subprogram_at(t, mod, return_pc - 1, &caller))
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

struct sg_error *sg_call_site_value(struct sg_target *t, uint64_t return_pc, unsigned dwarf_reg,
				    Dwarf_Op **ops_ret, size_t *nops_ret)
{
	Dwarf_Die site, param;
	Dwarf_Addr bias;
	if (!call_site_at(t, return_pc, &site, &bias) || dwarf_child(&site, &param) != 0)
		return &sg_not_found;
	do {
		int tag = dwarf_tag(&param);
		if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
			continue;
		/* The parameter passed in DWARF_REG: its location is that
		   register, its value an expression in the caller's frame.  */
		Dwarf_Attribute a;
		Dwarf_Op *loc;
		size_t nloc;
		if (!dwarf_attr(&param, DW_AT_location, &a) || dwarf_getlocation(&a, &loc, &nloc) != 0 ||
		    nloc != 1 ||
		    !((loc[0].atom == DW_OP_regx && loc[0].number == dwarf_reg) ||
		      (loc[0].atom >= DW_OP_reg0 && loc[0].atom <= DW_OP_reg31 &&
		       (unsigned)(loc[0].atom - DW_OP_reg0) == dwarf_reg)))
			continue;
		if ((!dwarf_attr(&param, DW_AT_call_value, &a) &&
		     !dwarf_attr(&param, DW_AT_GNU_call_site_value, &a)) ||
		    dwarf_getlocation(&a, ops_ret, nops_ret) != 0)
			return &sg_not_found;
		return NULL;
	} while (dwarf_siblingof(&param, &param) == 0);
	return &sg_not_found;
}
