/* info scope: the symbols of the block around an address and of its
   superblocks up to the function, as gdb 13 lists them
   (doc/research/info-scope.md, sections 1, 3 and 4), each with its
   class in gdb's words: a location (dwarf-describe.c), a constant, a
   label, a typedef, a function.  Which symbols a block holds, and their
   order, is scope-block.c's.  */
#include <config.h>
#include "internal.h"
#include "lookup.h"
#include "dwarf-describe.h"
#include "scope-info.h"
#include "scope-block.h"

#include <ctype.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

/* ---- one symbol ---- */

/* The byte size of DIE's type with typedefs stripped, as gdb's
   check_typedef (TYPE)->length (); a missing type is void (1), or int
   for a variable.  */
static uint64_t type_length(Dwarf_Die *die, Dwarf_Die *type)
{
	if (!type)
		return dwarf_tag(die) == DW_TAG_variable ? 4 : 1;
	Dwarf_Die t;
	strip(type, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_subroutine_type:
		return 1;
	case DW_TAG_unspecified_type:
		return 1;
	default:
		return type_size(&t);
	}
}

/* LOC_CONST and LOC_CONST_BYTES: DW_AT_const_value A of a symbol whose
   type is LENGTH bytes long.  */
static void describe_const(struct sg_buf *b, Dwarf_Attribute *a, uint64_t length)
{
	unsigned form = dwarf_whatform(a);
	Dwarf_Block blk;
	Dwarf_Word u;
	Dwarf_Sword s;
	int64_t v;
	switch (form) {
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
	case DW_FORM_exprloc:
		if (dwarf_formblock(a, &blk) != 0)
			blk.length = 0;
		sg_buf_puts(b, "constant bytes: ");
		for (uint64_t i = 0; i < length && i < 4096; i++)
			sg_buf_printf(b, " %02x", i < blk.length ? blk.data[i] : 0);
		return;
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		v = dwarf_formsdata(a, &s) == 0 ? s : 0;
		break;
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata:
		v = dwarf_formudata(a, &u) == 0 ? (int64_t)u : 0;
		break;
	default: {
		/* A string or an address: its bytes.  */
		const char *str = dwarf_formstring(a);
		sg_buf_puts(b, "constant bytes: ");
		for (uint64_t i = 0; str && i < length && i < 4096; i++) {
			sg_buf_printf(b, " %02x", (unsigned char)str[i]);
			if (!str[i])
				break;
		}
		return;
	}
	}
	sg_buf_printf(b, "a constant with value %" PRId64 " (0x%" PRIx64 ")", v, (uint64_t)v);
}

struct scope_walk {
	struct sg_session *session;
	struct sg_target *t;
	struct sg_module *mod;
	struct sg_describe d;
	struct sg_out *out;
	const char *what;
	unsigned count;
};

/* The description of variable S (gdb's symbol classes), into W->d.text;
   *NO_LENGTH when the line ends without ", length N".  */
static struct sg_error *describe_variable(struct scope_walk *w, struct sym *s, Dwarf_Addr block_pc,
					  uint64_t length, bool *no_length)
{
	struct sg_buf *b = &w->d.text;
	Dwarf_Attribute a, cv;
	bool have_cv = dwarf_attr_integrate(&s->die, DW_AT_const_value, &cv) != NULL;
	bool have_loc = dwarf_attr_integrate(&s->die, DW_AT_location, &a) != NULL;
	/* A variable's constant wins; a parameter's overrides its location.  */
	if (have_cv) {
		describe_const(b, &cv, length);
		return NULL;
	}
	if (!have_loc) {
		if (!s->parameter && scope_flag(&s->die, DW_AT_external) &&
		    dwarf_attr_integrate(&s->die, DW_AT_type, &a)) {
			/* LOC_UNRESOLVED: the ELF symbol's address.  */
			struct sg_symbol sym;
			struct sg_error *err = sg_lookup_symbol(w->t, s->name, &sym);
			if (!err)
				sg_buf_printf(b, "static storage at address 0x%" PRIx64, sym.address);
			else
				sg_buf_puts(b, "Unresolved Static");
			sg_error_destroy(err);
			return NULL;
		}
		sg_buf_puts(b, "optimized out.\n");
		*no_length = true;
		return NULL;
	}
	unsigned form = dwarf_whatform(&a);
	if (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block2 ||
	    form == DW_FORM_block4 || form == DW_FORM_block) {
		Dwarf_Block blk;
		if (dwarf_formblock(&a, &blk) != 0 || blk.length == 0) {
			sg_buf_puts(b, "optimized out.\n");
			*no_length = true;
			return NULL;
		}
		/* One DW_OP_addr (or addrx): gdb's LOC_STATIC.  */
		if (blk.data[0] == DW_OP_addr && blk.length == 1 + w->d.addr_size) {
			uint64_t addr = 0;
			for (unsigned i = 0; i < w->d.addr_size; i++)
				addr |= (uint64_t)blk.data[1 + i] << (8 * i);
			sg_buf_printf(b, "in static storage at address 0x%" PRIx64, addr + w->d.bias);
			return NULL;
		}
		if (blk.data[0] == DW_OP_addrx || blk.data[0] == DW_OP_GNU_addr_index) {
			Dwarf_Op *ops;
			size_t nops;
			Dwarf_Attribute res;
			Dwarf_Addr addr;
			size_t leb = 1;
			while (leb < blk.length && (blk.data[leb] & 0x80))
				leb++;
			if (leb + 1 == blk.length && dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 &&
			    dwarf_getlocation_attr(&a, ops, &res) == 0 && dwarf_formaddr(&res, &addr) == 0) {
				sg_buf_printf(b, "in static storage at address 0x%" PRIx64, addr + w->d.bias);
				return NULL;
			}
		}
		return sg_describe_expr(&w->d, blk.data, blk.length, block_pc);
	}
	return sg_describe_loclist(&w->d, &a);
}

/* Whether the symbol is one gdb drops: a static variable at address 0,
   removed by the linker.  */
static bool dropped(struct sym *s)
{
	Dwarf_Attribute a;
	Dwarf_Block blk;
	if (s->cls != SYM_VARIABLE || dwarf_attr_integrate(&s->die, DW_AT_const_value, &a) ||
	    !dwarf_attr_integrate(&s->die, DW_AT_location, &a) || dwarf_formblock(&a, &blk) != 0 ||
	    blk.length != 9 || blk.data[0] != DW_OP_addr)
		return false;
	for (int i = 1; i < 9; i++)
		if (blk.data[i])
			return false;
	return true;
}

static void emit(struct scope_walk *w, struct sym *s, uint64_t length, bool no_length)
{
	struct sg_out *out = w->out;
	if (sg_out_json(out)) {
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", s->name);
		const char *d = w->d.text.data ? w->d.text.data : "";
		size_t n = strlen(d);
		while (n && d[n - 1] == '\n')
			n--;
		if (no_length && n && d[n - 1] == '.')
			n--;
		sg_out_string_len(out, "description", d, n);
		if (no_length)
			sg_out_null(out, "length");
		else
			sg_out_uint(out, "length", length);
		sg_out_object_end(out);
		return;
	}
	if (no_length)
		sg_out_printf(out, "Symbol %s is %s", s->name, w->d.text.data);
	else
		sg_out_printf(out, "Symbol %s is %s, length %" PRIu64 ".\n", s->name, w->d.text.data,
			      length);
}

static struct sg_error *print_symbol(struct scope_walk *w, struct sym *s, Dwarf_Addr block_pc)
{
	if (w->count++ == 0) {
		if (sg_out_json(w->out)) {
			sg_out_string(w->out, "scope", w->what);
			sg_out_array_begin(w->out, "symbols");
		} else {
			sg_out_printf(w->out, "Scope for %s:\n", w->what);
		}
	}
	w->d.name = s->name;
	sg_buf_reset(&w->d.text);
	struct sg_buf *b = &w->d.text;
	bool no_length = false;
	uint64_t length = 1;
	Dwarf_Die type, *tp = sg_die_type(&s->die, &type) ? &type : NULL;
	struct sg_error *err = NULL;
	Dwarf_Addr addr;
	switch (s->cls) {
	case SYM_TYPEDEF:
		sg_buf_puts(b, "a typedef.\n");
		no_length = true;
		break;
	case SYM_ENUMERATOR: {
		Dwarf_Attribute a;
		length = type_size(&s->owner);
		if (dwarf_attr_integrate(&s->die, DW_AT_const_value, &a))
			describe_const(b, &a, length);
		else
			sg_buf_puts(b, "a constant with value 0 (0x0)");
		break;
	}
	case SYM_LABEL:
		length = 8;
		if (dwarf_lowpc(&s->die, &addr) == 0) {
			sg_buf_printf(b, "a label at address 0x%" PRIx64, addr + w->d.bias);
		} else {
			sg_buf_puts(b, "optimized out.\n");
			no_length = true;
		}
		break;
	case SYM_FUNCTION:
		length = 1;
		if (!scope_block_entry(&s->die, &addr))
			addr = 0;
		sg_buf_printf(b, "a function at address 0x%" PRIx64, addr + w->d.bias);
		break;
	case SYM_VARIABLE:
		length = type_length(&s->die, tp);
		err = describe_variable(w, s, block_pc, length, &no_length);
		break;
	}
	if (b->failed)
		return &sg_enomem;
	if (err) {
		/* gdb leaves what it said before the error.  */
		if (!sg_out_json(w->out) && b->data)
			sg_out_printf(w->out, "Symbol %s is %s", s->name, b->data);
		return err;
	}
	emit(w, s, length, no_length);
	return NULL;
}

static struct sg_error *print_list(struct scope_walk *w, struct symlist *l, Dwarf_Addr block_pc)
{
	if (l->failed)
		return &sg_enomem;
	for (size_t i = 0; i < l->n; i++) {
		if (dropped(&l->v[i]))
			continue;
		struct sg_error *err = print_symbol(w, &l->v[i], block_pc);
		if (err)
			return err;
	}
	return NULL;
}

/* The unit's static and global blocks, as gdb builds them for C.  */
struct sg_error *sg_info_scope(struct sg_session *s, const char *what, uint64_t pc,
			       struct sg_out *out)
{
	struct sg_target *t = sg_session_target(s);
	struct scope_walk w = { .session = s, .t = t, .out = out, .what = what };
	struct sg_error *err = NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	w.mod = t ? sg_target_module_at(t, pc) : NULL;
	if (w.mod)
		cu = sg_frame_cudie(t, w.mod, pc, &bias);
	if (cu) {
		struct sg_module_info info;
		sg_module_info(w.mod, &info);
		sg_describe_init(&w.d, cu, bias, info.name);
		bool cplus = sg_die_is_cplus(cu);
		Dwarf_Die *scopes = NULL;
		int n = sg_frame_scopes(cu, pc - bias, &scopes);
		bool in_function = false;
		for (int i = 0; i < n && !err; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit)
				break;
			if (tag != DW_TAG_lexical_block && tag != DW_TAG_try_block &&
			    tag != DW_TAG_catch_block && tag != DW_TAG_subprogram &&
			    tag != DW_TAG_inlined_subroutine)
				continue;
			struct symlist l = { 0 };
			/* A nested function's block starts with its own symbol,
			   as an inlined call's does.  */
			if (tag == DW_TAG_subprogram && i + 1 < n &&
			    dwarf_tag(&scopes[i + 1]) != DW_TAG_compile_unit &&
			    dwarf_tag(&scopes[i + 1]) != DW_TAG_partial_unit &&
			    dwarf_tag(&scopes[i + 1]) != DW_TAG_namespace && !cplus)
				scope_add_function(&l, &scopes[i], cplus);
			scope_block_symbols(&scopes[i], &l, cplus);
			Dwarf_Addr entry = pc - bias;
			scope_block_entry(&scopes[i], &entry);
			err = print_list(&w, &l, entry);
			scope_symlist_free(&l);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
				in_function = true;
				break;
			}
		}
		if (!err && !in_function && dwarf_haspc(cu, pc - bias) > 0) {
			/* Between functions: the unit's static block, then its
			   global one.  */
			struct symlist st = { 0 }, gl = { 0 };
			scope_unit_symbols(cu, &st, &gl, cplus);
			err = print_list(&w, &st, pc - bias);
			if (!err)
				err = print_list(&w, &gl, pc - bias);
			scope_symlist_free(&st);
			scope_symlist_free(&gl);
		}
		free(scopes);
		sg_describe_fini(&w.d);
	}
	if (w.count && sg_out_json(out))
		sg_out_array_end(out);
	sg_out_hex(out, "pc", pc);
	if (err)
		return err;
	if (!w.count) {
		if (sg_out_json(out)) {
			sg_out_string(out, "scope", what);
			sg_out_array_begin(out, "symbols");
			sg_out_array_end(out);
		} else {
			sg_out_printf(out, "Scope for %s contains no locals or arguments.\n", what);
		}
	}
	return NULL;
}

/* ---- the function a linespec names ---- */

/* Whether the function block DIE is the one sought.  */
typedef bool instance_match_fn(Dwarf_Die *die, const char *arg);

/* The first DIE under PARENT, in DIE order, that is a block of a function
   (its definition, or a call inlined from it) that MATCH accepts, with ARG;
   its entry in *RET.  The walk goes into functions, blocks and
   namespaces, and with IN_TYPES into classes and structures too.  */
static bool find_instance(Dwarf_Die *parent, instance_match_fn *match, const char *arg,
			  bool in_types, int depth, Dwarf_Addr *ret)
{
	Dwarf_Die child;
	if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		bool function = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
		Dwarf_Addr entry;
		if (function && scope_block_entry(&child, &entry) && match(&child, arg)) {
			*ret = entry;
			return true;
		}
		if ((function || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
		     (in_types && (tag == DW_TAG_structure_type || tag == DW_TAG_class_type))) &&
		    find_instance(&child, match, arg, in_types, depth + 1, ret))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The DIE's name is NAME, exactly.  */
static bool named(Dwarf_Die *die, const char *name)
{
	const char *n = dwarf_diename(die);
	return n && !strcmp(n, name);
}

/* The first block under PARENT of the function NAME.  */
static bool first_instance(Dwarf_Die *parent, const char *name, Dwarf_Addr *ret)
{
	return find_instance(parent, named, name, false, 0, ret);
}

/* Whether the first N bytes of CAND are SPEC, or end with "::" SPEC
   (gdb's linespec leaves leading scopes out).  */
static bool tail_equal(const char *cand, size_t n, const char *spec, size_t len)
{
	if (n < len || strncmp(cand + n - len, spec, len))
		return false;
	return n == len || (n >= len + 2 && cand[n - len - 1] == ':' && cand[n - len - 2] == ':');
}

/* Whether the function gdb names CAND ("ns::tmax<double>(double, double)")
   is what the linespec SPEC names, as gdb matches them: SPEC's
   parameters, when it has some, must be CAND's; template arguments SPEC
   leaves out match any; leading scopes may be left out.  */
static bool spec_matches(const char *cand, const char *spec)
{
	size_t sp = scope_params_at(spec), cp = scope_params_at(cand);
	if (spec[sp])
		return tail_equal(cand, strlen(cand), spec, strlen(spec));
	if (tail_equal(cand, cp, spec, sp))
		return true;
	/* "ns::tmax" for "ns::tmax<double>": the last component's template
	   arguments, when SPEC gives none.  */
	if (cp && cand[cp - 1] == '>' && !memchr(spec, '<', sp)) {
		int depth = 0;
		size_t i = cp;
		while (i-- > 0) {
			if (cand[i] == '>')
				depth++;
			else if (cand[i] == '<' && !--depth)
				break;
		}
		return i < cp && tail_equal(cand, i, spec, sp);
	}
	return false;
}

/* The function gdb names as the linespec SPEC names (a qualified C++
   name, a template, parameters).  */
static bool spec_names(Dwarf_Die *die, const char *spec)
{
	char *cand = scope_cplus_function_name(die);
	bool match = cand && spec_matches(cand, spec);
	free(cand);
	return match;
}

/* The first block of a C++ function SPEC names in MOD's C++ units.  */
static bool qualified_function(struct sg_module *mod, const char *spec, uint64_t *ret)
{
	Dwfl_Module *dm = mod ? sg_module_dwfl(mod) : NULL;
	Dwarf_Addr bias, a;
	Dwarf_Die *cu = NULL;
	while (dm && (cu = dwfl_module_nextcu(dm, cu, &bias)))
		if (sg_die_is_cplus(cu) && find_instance(cu, spec_names, spec, true, 0, &a)) {
			*ret = a + bias;
			return true;
		}
	return false;
}

struct sg_error *sg_scope_function(struct sg_target *t, const char *name, uint64_t *ret)
{
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, name, &sym);
	bool have_sym = !err && (sym.kind == STT_FUNC || sym.kind == STT_GNU_IFUNC);
	sg_error_destroy(err);
	struct sg_module *mod = have_sym ? sym.module : sg_target_exe_module(t);
	Dwfl_Module *dm = mod ? sg_module_dwfl(mod) : NULL;
	if (dm && !strpbrk(name, ":(<")) {
		Dwarf_Addr bias, a;
		/* The unit that defines it first, else any unit in order.  */
		Dwarf_Die *cu = have_sym ? sg_frame_cudie(t, mod, sym.address, &bias) : NULL;
		if (cu && first_instance(cu, name, &a)) {
			*ret = a + bias;
			return NULL;
		}
		cu = NULL;
		while ((cu = dwfl_module_nextcu(dm, cu, &bias)))
			if (first_instance(cu, name, &a)) {
				*ret = a + bias;
				return NULL;
			}
	}
	/* A C++ name as gdb's linespec takes it: "ns::tmax", "Widget::get",
	   "overload(int)", and the names of functions only inlined.  */
	if (qualified_function(mod, name, ret) ||
	    (mod != sg_target_exe_module(t) && qualified_function(sg_target_exe_module(t), name, ret)))
		return NULL;
	if (!have_sym)
		return &sg_not_found;
	*ret = sym.address;
	return NULL;
}
