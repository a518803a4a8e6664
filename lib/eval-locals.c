/* info locals, info args, bt full and frame-line arguments: a frame's
   variables, located through DWARF with the frame's registers, CFA and
   frame base.  */
#include <config.h>
#include "eval.h"

#include <spyglass/eval.h>

#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The selected frame, whose variables the library locates
   (sg_stack_locate).  */
struct frame_ctx {
	struct sg_target *t;
	const struct sg_stack *st;
	size_t level;
	const struct sg_frame *f;
	Dwarf_Addr bias;
	uint64_t lookup;		/* the pc for location lists */
	bool cplus;			/* the frame's unit is C++ */
};

/* A variable the compiler folded into a constant (DW_AT_const_value): an
   integer form, or a block (a double, an array, a struct), read as the
   value's bytes.  */
struct sg_error *const_value(Dwarf_Die *var, Dwarf_Attribute *a, struct val *ret)
{
	(void)var;
	ret->lvalue = false;
	ret->constant = true;
	Dwarf_Block block;
	Dwarf_Sword sv;
	switch (dwarf_whatform(a)) {
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
		if (dwarf_formblock(a, &block) != 0)
			return &sg_not_found;
		ret->bits = ret->bits_hi = 0;
		if (block.length > MAX_RVALUE_SIZE) {
			ret->too_large = true;
			ret->nbytes = block.length;
			return NULL;
		}
		if (block.length > sizeof(ret->bits) + sizeof(ret->bits_hi)) {
			unsigned char *bytes;
			struct sg_error *err = val_bytes(block.length, &bytes);
			if (err)
				return err;
			memcpy(bytes, block.data, block.length);
			ret->bytes = bytes;
			ret->nbytes = block.length;
			return NULL;
		}
		memcpy(&ret->bits, block.data,
		       block.length < sizeof(ret->bits) ? block.length : sizeof(ret->bits));
		if (block.length > sizeof(ret->bits))
			memcpy(&ret->bits_hi, block.data + sizeof(ret->bits),
			       block.length - sizeof(ret->bits));
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

/* The DWARF register a one-operation location OP names, or -1.  */
static int op_register(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx && op->number < SG_NREGS)
		return (int)op->number;
	return -1;
}

/* The value the caller passed in DWARF register REG, as gdb finds it.  */
static struct sg_error *entry_value_reg(struct frame_ctx *fc, unsigned reg, struct val *ret)
{
	uint64_t v;
	struct sg_error *err = sg_stack_entry_value(fc->t, fc->st, fc->level, reg, &v);
	if (err)
		return err;
	ret->lvalue = false;
	ret->bits = v;
	ret->entry_value = true;
	return NULL;
}

/* The SIZE bytes LOC describes, as an rvalue: its bits when all are
   known and fit, else bytes with their states.  All lost: not found.  */
static struct sg_error *pieced_value(struct frame_ctx *fc, const struct sg_dwarf_location *loc,
				     uint64_t size, struct val *ret)
{
	unsigned char *buf, *state;
	bool *known = malloc(size);
	struct sg_error *err = known ? val_bytes(size, &buf) : &sg_enomem;
	if (!err)
		err = val_bytes(size, &state);
	if (err) {
		free(known);
		return err;
	}
	sg_dwarf_location_read(fc->t, fc->f->regs, loc, buf, known, size);
	/* Bytes no piece covers: gdb neither reads nor loses them.  */
	uint64_t covered = 0;
	for (size_t i = 0; i < loc->npieces && covered < size; i++)
		covered = loc->pieces[i].size == 0 ? size : covered + loc->pieces[i].size;
	bool all = true, none = true;
	for (uint64_t i = 0; i < size; i++) {
		state[i] = known[i] ? VAL_KNOWN : i >= covered ? VAL_UNCOVERED : VAL_LOST;
		all &= state[i] == VAL_KNOWN;
		none &= state[i] == VAL_LOST;
	}
	free(known);
	if (none)
		return &sg_not_found;
	ret->lvalue = false;
	ret->bits = ret->bits_hi = 0;
	if (all && size <= sizeof(ret->bits) + sizeof(ret->bits_hi)) {
		memcpy(&ret->bits, buf, size < 8 ? size : 8);
		if (size > 8)
			memcpy(&ret->bits_hi, buf + 8, size - 8);
		return NULL;
	}
	ret->bytes = buf;
	ret->nbytes = size;
	ret->known = all ? NULL : state;
	return NULL;
}

/* VAR's location at the frame's pc: NOPS > 0 operations, or false
   (optimized out).  */
static bool location_ops(struct frame_ctx *fc, Dwarf_Die *var, Dwarf_Op **ops, size_t *nops)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(var, DW_AT_location, &a) &&
	       dwarf_getlocation_addr(&a, fc->lookup - fc->bias, ops, nops, 1) > 0 && *nops > 0;
}

/* The value of a variable at OPS (NOPS > 0), its location.  */
static struct sg_error *locate_ops(struct frame_ctx *fc, const Dwarf_Op *ops, size_t nops,
				   struct val *ret)
{
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
	/* Pieces, entry values, computed values: the library's.  */
	struct sg_dwarf_location loc;
	struct sg_error *err = sg_stack_locate(fc->t, fc->st, fc->level, ops, nops, &loc);
	if (err) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	int reg = nops == 1 ? op_register(&ops[0]) : -1;
	ret->in_register = reg < 0 ? 0 : reg <= SG_REG_R15 ? reg + 1 : -1;
	if (loc.npieces == 1 && loc.pieces[0].kind == SG_PIECE_ADDRESS) {
		ret->lvalue = true;
		ret->address = loc.pieces[0].value;
		return NULL;
	}
	uint64_t size = type_size(&ret->type);
	if (size == 0)
		return &sg_not_found;
	if ((err = pieced_value(fc, &loc, size, ret)))
		return err;
	/* gdb's NAME@entry: the variable is the value the caller passed.
	   Not in an inlined call: gdb reads a parameter's entry value at the
	   physical function's entry, which the inlined block rarely covers,
	   and shows the plain value.  */
	ret->entry_value = !fc->f->inlined && nops == 2 && ops[1].atom == DW_OP_stack_value &&
			   (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value);
	return NULL;
}

static struct sg_error *locate(struct frame_ctx *fc, Dwarf_Die *var, struct val *ret)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return const_value(var, &a, ret);
	if (!location_ops(fc, var, &ops, &nops))
		return &sg_not_found;	/* <optimized out> */
	return locate_ops(fc, ops, nops, ret);
}

static void print_var(struct sg_session *s, struct frame_ctx *fc, Dwarf_Die *var, const char *indent,
		      struct sg_out *out)
{
	const char *name = dwarf_diename(var);
	Dwarf_Die type;
	if (!name || !sg_die_type(var, &type))
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
		err = sg_format_xval(s, fc->t, &x, 0, false, fc->cplus, false, &text);
		if (err) {
			text = sg_fault_text(err);
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
			sg_json_xval(s, fc->t, &x, 0, false, fc->cplus, out, "value");
		sg_out_string(out, "text", text);
		sg_out_object_end(out);
	}
	free(text);
	val_bytes_release();
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
	if (!f->scopes || f->scope_fn < 0 || f->signal_trampoline)
		return sg_error_create(SG_ERROR_LOOKUP, "No symbol table info available.");
	fs->chain = (Dwarf_Die *)f->scopes;
	fs->m = f->nscopes;
	fs->fn = f->scope_fn;
	fc->cplus = sg_die_is_cplus(&fs->chain[fs->fn]);
	fs->first = f->scope_first;
	fc->bias = f->dwarf_bias;
	/* Locations are evaluated by the library (sg_stack_locate), with
	   the frame's registers, CFA and frame base.  */
	return NULL;
}

static struct sg_error *frame_scope_open(struct sg_session *s,
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

/* ---- a scope's symbols, as gdb's DWARF reader makes them ---- */

/* The DIEs of one scope gdb makes symbols of, in the order of its block's
   dictionary.  */
struct scope_syms {
	Dwarf_Die *v;
	size_t n, cap;
};

#define MAX_HOISTED_DEPTH 8
#define MAX_INHERITED 256

/* A lexical block with no code of its own: gdb reads its children as
   the enclosing scope's (GCC before 4.3 wrote such blocks, and clang
   keeps abstract ones with no concrete copy).  */
static bool rangeless_block(Dwarf_Die *d)
{
	return dwarf_tag(d) == DW_TAG_lexical_block && !dwarf_hasattr(d, DW_AT_low_pc) &&
	       !dwarf_hasattr(d, DW_AT_ranges);
}

static bool has_flag(Dwarf_Die *d, int name)
{
	Dwarf_Attribute a;
	bool flag = false;
	return dwarf_attr_integrate(d, name, &a) && dwarf_formflag(&a, &flag) == 0 && flag;
}

/* Whether gdb makes a symbol of the child D: a named variable (not a mere
   declaration), parameter, label or type, or an enumerator.  */
static bool makes_symbol(Dwarf_Die *d)
{
	if (!dwarf_diename(d))
		return false;
	switch (dwarf_tag(d)) {
	case DW_TAG_variable:
		return !has_flag(d, DW_AT_declaration) || has_flag(d, DW_AT_external);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		/* A declaration of a type defined elsewhere is none.  */
		return !has_flag(d, DW_AT_declaration) || dwarf_hasattr(d, DW_AT_byte_size);
	case DW_TAG_formal_parameter:
	case DW_TAG_label:
	case DW_TAG_typedef:
	case DW_TAG_enumerator:
		return true;
	}
	return false;
}

/* Whether D, a child of a function or block, is a symbol of that block:
   gdb files an external variable folded into a DW_AT_const_value (GCC's
   static local of a template instance at -O0) in the unit's global block
   instead.  */
static bool block_symbol(Dwarf_Die *d)
{
	return makes_symbol(d) && !(dwarf_tag(d) == DW_TAG_variable && has_flag(d, DW_AT_external) &&
				    dwarf_hasattr_integrate(d, DW_AT_const_value));
}

static void syms_add(struct scope_syms *s, Dwarf_Die *d)
{
	Dwarf_Die *slot = sg_array_push(&s->v, &s->n, &s->cap, sizeof(*slot));
	if (slot)
		*slot = *d;	/* out of memory: one symbol fewer */
}

/* The symbols among SCOPE's children, those of range-less blocks and the
   enumerators of enumerations included, in DIE order; the abstract DIEs
   the direct children stand for go to SEEN (when not NULL).  */
static void collect_children(Dwarf_Die *scope, struct scope_syms *out, Dwarf_Off *seen,
			     size_t *nseen, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_HOISTED_DEPTH || dwarf_child(scope, &child) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Die origin;
		if (seen && *nseen < MAX_INHERITED && dwarf_attr(&child, DW_AT_abstract_origin, &a) &&
		    dwarf_formref_die(&a, &origin))
			seen[(*nseen)++] = dwarf_dieoffset(&origin);
		if (block_symbol(&child))
			syms_add(out, &child);
		if (dwarf_tag(&child) == DW_TAG_enumeration_type || rangeless_block(&child))
			collect_children(&child, out, NULL, NULL, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* SCOPE's symbols in gdb's order: its concrete children first, then those
   of its abstract origin that no concrete child stands for (an inlined
   function's parameters and static locals the compiler did not repeat,
   labels it dropped), as gdb's inherit_abstract_dies adds them.  */
static void collect_scope(Dwarf_Die *scope, struct scope_syms *out)
{
	Dwarf_Off seen[MAX_INHERITED];
	size_t nseen = 0;
	collect_children(scope, out, seen, &nseen, 0);
	Dwarf_Attribute a;
	Dwarf_Die origin, child;
	if (!dwarf_attr(scope, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin) ||
	    dwarf_child(&origin, &child) != 0)
		return;
	do {
		Dwarf_Off off = dwarf_dieoffset(&child);
		bool found = false;
		for (size_t k = 0; k < nseen && !found; k++)
			found = seen[k] == off;
		if (found)
			continue;
		if (block_symbol(&child))
			syms_add(out, &child);
		if (dwarf_tag(&child) == DW_TAG_enumeration_type || rangeless_block(&child))
			collect_children(&child, out, NULL, NULL, 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* gdb's SYMBOL_HASH_NEXT.  */
static unsigned hash_next(unsigned hash, char c)
{
	return hash * 67 + (unsigned)tolower((unsigned char)c) - 113;
}

/* gdb's msymbol_hash_iw: NAME up to a '(', spaces skipped.  */
static unsigned hash_iw(const char *name)
{
	unsigned hash = 0;
	for (const char *p = name; *p && *p != '('; p++)
		if (*p != ' ')
			hash = hash_next(hash, *p);
	return hash;
}

/* The hash gdb files a C symbol's NAME under (its default search-name
   hash, which reads Ada's encodings): the hash of the part after the
   last "__" followed by a lower-case letter or 'O', stopping at other
   "__"s, '$', '.', 'X' and "TKB"; the whole name's for names starting
   with '_' (other than "_ada_").  */
static unsigned hash_c(const char *name)
{
	const char *p = name;
	if (*p == '_') {
		if (strncmp(p, "_ada_", 5))
			return hash_iw(name);
		p += 5;
	}
	unsigned hash = 0;
	while (*p) {
		switch (*p) {
		case '$':
		case '.':
		case 'X':
			return p == name ? hash_iw(name) : hash;
		case ' ':
		case '(':
			return hash_iw(name);
		case '_':
			if (p[1] == '_' && p != name) {
				if (p[2] == 'B' && p[3] == '_') {
					for (p += 4; isdigit((unsigned char)*p); p++)
						;
					continue;
				}
				if ((p[2] < 'a' || p[2] > 'z') && p[2] != 'O')
					return hash;
				hash = 0;
				p += 2;
				continue;
			}
			break;
		case 'T':
			if (!strcmp(p, "TKB"))
				return hash;
			break;
		}
		hash = hash_next(hash, *p++);
	}
	return hash;
}

/* The hash of a C++ symbol's NAME: its last component, up to a '(' or
   an ABI tag, spaces skipped.  */
static unsigned hash_cplus(const char *name)
{
	const char *last = name;
	int angle = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '<' || *p == '(')
			angle++;
		else if ((*p == '>' || *p == ')') && angle)
			angle--;
		else if (!angle && p[0] == ':' && p[1] == ':')
			last = p + 2;
	}
	unsigned hash = 0;
	for (const char *p = last; *p && *p != '('; p++) {
		if (*p == ' ')
			continue;
		if (*p == '[' && !strncmp(p + 1, "abi:", 4) && p[5] != ':')
			break;
		hash = hash_next(hash, *p);
	}
	return hash;
}

/* Put S in the order of gdb's hashed dictionary of a lexical block:
   N/5 + 1 buckets by the hash of each name, each bucket in DIE order.  */
static void hash_order(struct scope_syms *s, bool cplus)
{
	size_t nbuckets = s->n / 5 + 1;
	if (nbuckets < 2)
		return;
	unsigned *bucket = malloc(s->n * sizeof(*bucket));
	Dwarf_Die *sorted = malloc(s->n * sizeof(*sorted));
	if (!bucket || !sorted) {
		free(bucket);
		free(sorted);
		return;		/* DIE order, then */
	}
	for (size_t i = 0; i < s->n; i++) {
		const char *name = dwarf_diename(&s->v[i]);
		bucket[i] = (cplus ? hash_cplus(name) : hash_c(name)) % nbuckets;
	}
	size_t k = 0;
	for (size_t b = 0; b < nbuckets; b++)
		for (size_t i = 0; i < s->n; i++)
			if (bucket[i] == b)
				sorted[k++] = s->v[i];
	free(s->v);
	free(bucket);
	s->v = sorted;
	s->cap = s->n;
}

/* Scopes' symbol lists, kept with the target by the scope DIE's address:
   a backtrace of many threads lists the same function's arguments once
   per frame, and collecting them walks its DIEs and its abstract
   origin's.  The frame-line arguments of a scope at a pc (struct
   arg_desc) are kept there too, by the scope and the pc.  The target
   drops the cache with the DWARF it points into. */
struct syms_cache {
	struct syms_slot {
		const void *die;	/* NULL: empty */
		uint64_t pc;		/* SYMS_PC: the scope's symbols */
		void *v;		/* malloc'd array of N */
		size_t n;
	} *slots;
	size_t used, cap;	/* cap: a power of two */
};

#define SYMS_PC UINT64_MAX

#define MAX_CACHED_SCOPES 65536

static const char syms_cache_key;

static void syms_cache_destroy(void *p)
{
	struct syms_cache *c = p;
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].v);
	free(c->slots);
	free(c);
}

static struct syms_slot *syms_slot(struct syms_cache *c, const void *die, uint64_t pc)
{
	size_t h = (((uintptr_t)die >> 3) ^ pc) * 0x9e3779b97f4a7c15u;
	h ^= h >> 29;
	for (size_t i = 0;; i++) {
		struct syms_slot *sl = &c->slots[(h + i) & (c->cap - 1)];
		if (!sl->die || (sl->die == die && sl->pc == pc))
			return sl;
	}
}

/* T's cached entry for DIE at PC, or NULL.  */
static struct syms_slot *syms_cached(struct sg_target *t, const void *die, uint64_t pc)
{
	struct syms_cache *c = t ? sg_target_get_data(t, &syms_cache_key) : NULL;
	struct syms_slot *sl = c && c->cap ? syms_slot(c, die, pc) : NULL;
	return sl && sl->die ? sl : NULL;
}

/* Room for one more entry in T's cache (made on first use); NULL when
   memory is short or the cache is full.  */
static struct syms_cache *syms_cache_room(struct sg_target *t)
{
	struct syms_cache *c = sg_target_get_data(t, &syms_cache_key);
	if (!c) {
		if (!(c = calloc(1, sizeof(*c))))
			return NULL;
		if (sg_target_set_data(t, &syms_cache_key, c, syms_cache_destroy)) {
			free(c);
			return NULL;
		}
	}
	if (c->used >= MAX_CACHED_SCOPES)
		return NULL;
	if (2 * (c->used + 1) <= c->cap)
		return c;
	struct syms_cache big = { .used = c->used, .cap = c->cap ? 2 * c->cap : 64 };
	if (!(big.slots = calloc(big.cap, sizeof(*big.slots))))
		return NULL;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].die)
			*syms_slot(&big, c->slots[i].die, c->slots[i].pc) = c->slots[i];
	free(c->slots);
	*c = big;
	return c;
}

/* SCOPE's symbols in the order gdb iterates its block: a function's (or
   an inlined call's) in order, a lexical block's in hash order.  *OUT is
   T's cached list (cap 0) or a list of its own: syms_release() it.  */
static void scope_symbols(struct sg_target *t, Dwarf_Die *scope, struct scope_syms *out)
{
	memset(out, 0, sizeof(*out));
	struct syms_slot *sl = syms_cached(t, scope->addr, SYMS_PC);
	if (sl) {
		out->v = sl->v;
		out->n = sl->n;
		return;
	}
	struct syms_cache *c;
	collect_scope(scope, out);
	int tag = dwarf_tag(scope);
	if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block)
		hash_order(out, sg_die_is_cplus(scope));
	if (t && (c = syms_cache_room(t))) {
		sl = syms_slot(c, scope->addr, SYMS_PC);
		*sl = (struct syms_slot){ scope->addr, SYMS_PC, out->v, out->n };
		c->used++;
		out->cap = 0;	/* the cache's now */
	}
}

static void syms_release(struct scope_syms *s)
{
	if (s->cap)
		free(s->v);
}

/* Whether D's DW_AT_const_value is bytes (a block, a string, 16 bytes):
   gdb's LOC_CONST_BYTES, which info locals leaves out.  */
static bool const_bytes(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(d, DW_AT_const_value, &a))
		return false;
	switch (dwarf_whatform(&a)) {
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_string:
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_data16:
		return true;
	}
	return false;
}

/* A variable gdb leaves for the minimal symbols to resolve
   (LOC_UNRESOLVED): external, with a type, but no location or value
   (clang's static locals of inline functions and templates).  */
static bool unresolved(Dwarf_Die *d)
{
	return has_flag(d, DW_AT_external) && dwarf_hasattr_integrate(d, DW_AT_type) &&
	       !dwarf_hasattr_integrate(d, DW_AT_location) &&
	       !dwarf_hasattr_integrate(d, DW_AT_const_value);
}

enum sym_kind { SYM_NONE, SYM_ARG, SYM_LOCAL, SYM_LABEL };

/* What info args and info locals make of the symbol D.  */
static enum sym_kind sym_kind(Dwarf_Die *d)
{
	switch (dwarf_tag(d)) {
	case DW_TAG_formal_parameter:
		return SYM_ARG;
	case DW_TAG_variable:
		return const_bytes(d) || unresolved(d) ? SYM_NONE : SYM_LOCAL;
	case DW_TAG_label:
		/* A label the compiler left no address for (glibc's
		   start_thread has one) is optimized out: gdb lists it
		   among the locals.  */
		return dwarf_hasattr(d, DW_AT_low_pc) ? SYM_NONE : SYM_LABEL;
	}
	return SYM_NONE;
}

/* lib/dwlookup.c; here until include/spyglass/type.h, which another
   change owns, declares it.  */

/* V (of its type) wholly optimized out, as gdb prints it: every byte
   lost.  False when its size is unknown or too large.  */
static bool lost_value(const struct val *v, struct val *ret)
{
	uint64_t size = type_size((Dwarf_Die *)&v->type);
	unsigned char *bytes, *known;
	if (size > MAX_RVALUE_SIZE) {
		*ret = (struct val){ .type = v->type, .too_large = true, .nbytes = size };
		return true;
	}
	struct sg_error *err = size ? val_bytes(size, &bytes) : &sg_not_found;
	if (!err)
		err = val_bytes(size, &known);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	memset(known, VAL_LOST, size);
	*ret = (struct val){ .type = v->type, .bytes = bytes, .known = known, .nbytes = size };
	return true;
}

/* The global NAME when the compiler folded it away but DWARF keeps its
   value (DW_AT_const_value): gdb prints it, and whatis gives its type.
   ERR (consumed) when it is not one.  */
static struct sg_error *global_constant(struct sg_session *s, const char *name,
					struct sg_error *err, struct val *ret)
{
	Dwarf_Die var;
	Dwarf_Attribute a;
	struct val v;
	struct sg_symbol sym;
	memset(&v, 0, sizeof(v));
	struct sg_target *t = sg_session_target(s);
	if (sg_lookup_constant(t, name, &var) || !sg_die_type(&var, &v.type))
		return err;
	if (!dwarf_attr_integrate(&var, DW_AT_const_value, &a)) {
		/* Optimized away, value and all (clang -O1), unless the
		   symbol table still has it.  */
		struct sg_error *serr = sg_lookup_symbol(t, name, &sym);
		if (!serr)
			return err;
		sg_error_destroy(serr);
		if (!lost_value(&v, &v))
			return err;
	} else {
		/* Too large a constant is gdb's error, not a lookup's.  */
		struct sg_error *cerr = const_value(&var, &a, &v);
		if (cerr == &sg_not_found)
			return err;
		if (cerr) {
			sg_error_destroy(err);
			return cerr;
		}
	}
	sg_error_destroy(err);
	*ret = v;
	return NULL;
}

/* NAME among the variables of SCOPE (a function, its blocks) that gdb
   files in the unit's global block (see block_symbol), where print still
   finds them.  */
static struct sg_error *function_constant(Dwarf_Die *scope, const char *name, int depth,
					  struct val *ret)
{
	Dwarf_Die child;
	if (depth > MAX_HOISTED_DEPTH || dwarf_child(scope, &child) != 0)
		return &sg_not_found;
	do {
		Dwarf_Attribute a;
		const char *n = dwarf_diename(&child);
		if (dwarf_tag(&child) == DW_TAG_lexical_block &&
		    !function_constant(&child, name, depth + 1, ret))
			return NULL;
		if (!n || strcmp(n, name) || block_symbol(&child) || !makes_symbol(&child) ||
		    !dwarf_attr_integrate(&child, DW_AT_const_value, &a))
			continue;
		memset(ret, 0, sizeof(*ret));
		if (sg_die_type(&child, &ret->type) && !const_value(&child, &a, ret))
			return NULL;
	} while (dwarf_siblingof(&child, &child) == 0);
	return &sg_not_found;
}

/* Find NAME among the selected frame's variables and parameters,
   innermost block first, then among its constants gdb makes globals and
   the globals folded into constants.
   &sg_not_found if it is none of them.  */
struct sg_error *frame_variable(struct sg_session *s, const char *name,
				     struct val *ret)
{
	struct frame_scope fs;
	struct sg_error *err = frame_scope_open(s, &fs);
	if (err)
		return global_constant(s, name, err, ret);
	err = &sg_not_found;
	for (int i = fs.first + 1; i <= fs.fn && err == &sg_not_found; i++) {
		struct scope_syms syms;
		scope_symbols(fs.fc.t, &fs.chain[i], &syms);
		for (size_t k = 0; k < syms.n; k++) {
			Dwarf_Die *d = &syms.v[k];
			int tag = dwarf_tag(d);
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    unresolved(d) || strcmp(dwarf_diename(d), name))
				continue;
			struct val v;
			memset(&v, 0, sizeof(v));
			if (!sg_die_type(d, &v.type))
				continue;
			struct sg_error *loc = locate(&fs.fc, d, &v);
			if (loc) {
				sg_error_destroy(loc);
				err = lost_value(&v, ret) ? NULL
					: sg_error_format(SG_ERROR_LOOKUP, "\"%s\" is optimized out here", name);
			} else {
				*ret = v;
				err = NULL;
			}
			break;
		}
		syms_release(&syms);
	}
	if (err == &sg_not_found && fs.fn >= 0)
		err = function_constant(&fs.chain[fs.fn], name, 0, ret);
	frame_scope_close(&fs);
	return err == &sg_not_found ? global_constant(s, name, err, ret) : err;
}

/* Print the variables (or, with ARGS, the parameters) of a frame's
   function and, for locals, of the blocks around its pc, innermost first,
   as gdb does.  */
static void scope_vars(struct sg_session *s, struct frame_scope *fs, bool args, const char *indent,
		       struct sg_out *out)
{
	size_t count = 0;
	sg_out_array_begin(out, args ? "args" : "locals");
	int from = args ? fs->fn : fs->first + 1;
	for (int i = from; i <= fs->fn; i++) {
		struct scope_syms syms;
		scope_symbols(fs->fc.t, &fs->chain[i], &syms);
		for (size_t k = 0; k < syms.n; k++) {
			enum sym_kind kind = sym_kind(&syms.v[k]);
			if (kind == SYM_NONE || (kind == SYM_ARG) != args)
				continue;
			if (kind == SYM_LABEL)
				print_optimized_out(dwarf_diename(&syms.v[k]), indent, out);
			else
				print_var(s, &fs->fc, &syms.v[k], indent, out);
			count++;
		}
		syms_release(&syms);
	}
	sg_out_array_end(out);
	/* gdb writes these unindented, even under "bt full".  */
	if (!count)
		sg_out_printf(out, "%s\n", args ? "No arguments." : "No locals.");
}

/* CB with variable VAR of a frame (LABEL: a label, which has no value):
   its value, NULL when optimized out; *STOP when CB says so.  Variables
   without a name or type are skipped, as print_var does.  */
static struct sg_error *report_var(struct frame_ctx *fc, Dwarf_Die *var, bool label,
				   sg_frame_variable_cb *cb, void *arg, bool *stop)
{
	const char *name = dwarf_diename(var);
	Dwarf_Die type;
	if (!name || (!label && !sg_die_type(var, &type)))
		return NULL;
	struct sg_value *value = NULL;
	struct val v = { .lvalue = false };
	struct sg_error *err = &sg_not_found;
	if (!label) {
		v.type = type;
		err = locate(fc, var, &v);
	}
	if (err) {
		sg_error_destroy(err);	/* <optimized out> */
	} else {
		struct xval x = { .v = v };
		if ((err = value_from_xval(fc->t, &x, &value)))
			return err;
	}
	*stop = cb(name, value, arg) != SG_CB_OK;
	sg_value_destroy(value);
	val_bytes_release();
	return NULL;
}

struct sg_error *sg_frame_variables(struct sg_session *s, bool args, sg_frame_variable_cb *cb,
				    void *arg)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	struct frame_scope fs;
	if (err || (err = frame_scope_at(sg_session_target(s), st, sg_session_frame(s), &fs)))
		return err;
	bool stop = false;
	for (int i = args ? fs.fn : fs.first + 1; i <= fs.fn && !err && !stop; i++) {
		struct scope_syms syms;
		scope_symbols(fs.fc.t, &fs.chain[i], &syms);
		for (size_t k = 0; k < syms.n && !err && !stop; k++) {
			enum sym_kind kind = sym_kind(&syms.v[k]);
			if (kind != SYM_NONE && (kind == SYM_ARG) == args)
				err = report_var(&fs.fc, &syms.v[k], kind == SYM_LABEL, cb, arg, &stop);
		}
		syms_release(&syms);
	}
	frame_scope_close(&fs);
	return err;
}

/* lib/dwlookup.c; here until a header another change owns declares it.  */
Dwarf_Die *sg_lookup_unit_at(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			     uint64_t *bias);

/* Whether gdb files the unit-level symbol D in the unit's global block
   (else its static block): external variables and functions, and in C++
   the types and enumerators too.  */
static bool in_global_block(Dwarf_Die *d, bool cplus)
{
	switch (dwarf_tag(d)) {
	case DW_TAG_variable:
	case DW_TAG_subprogram:
		return has_flag(d, DW_AT_external);
	}
	return cplus;
}

/* The unit's file-scope variables and enumerators gdb lists, of its
   static (GLOBAL false) or global block, in the block's hash order, whose
   bucket count counts the block's other symbols too (functions with code,
   types, enumerators).  Not yet: variables in namespaces (gdb names them
   qualified) and C++ functions defined out of their class.  */
static void unit_symbols(Dwarf_Die *cu, bool cplus, bool global, struct scope_syms *out)
{
	memset(out, 0, sizeof(*out));
	struct scope_syms all = { 0 };
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		/* Functions with code (not declarations, not abstract
		   instances).  */
		bool sym = tag == DW_TAG_base_type ||
			   (tag == DW_TAG_subprogram && dwarf_diename(&child) &&
			    (dwarf_hasattr(&child, DW_AT_low_pc) ||
			     dwarf_hasattr(&child, DW_AT_ranges))) ||
			   makes_symbol(&child);
		if (sym && in_global_block(&child, cplus) == global)
			syms_add(&all, &child);
		if (tag == DW_TAG_enumeration_type && cplus == global) {
			Dwarf_Die e;
			if (dwarf_child(&child, &e) == 0)
				do
					if (makes_symbol(&e))
						syms_add(&all, &e);
				while (dwarf_siblingof(&e, &e) == 0);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	hash_order(&all, cplus);
	/* Enumerators are constants (LOC_CONST) too.  */
	for (size_t k = 0; k < all.n; k++)
		if (dwarf_tag(&all.v[k]) == DW_TAG_enumerator ||
		    (dwarf_tag(&all.v[k]) == DW_TAG_variable && sym_kind(&all.v[k]) == SYM_LOCAL))
			syms_add(out, &all.v[k]);
	free(all.v);
}

/* The unit-level enumeration type of CU that ENUMERATOR belongs to.  */
static bool enumerator_type(Dwarf_Die *cu, Dwarf_Die *enumerator, Dwarf_Die *ret)
{
	Dwarf_Off off = dwarf_dieoffset(enumerator);
	Dwarf_Die child, e;
	if (dwarf_child(cu, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_enumeration_type || dwarf_child(&child, &e) != 0)
			continue;
		do
			if (dwarf_dieoffset(&e) == off) {
				*ret = child;
				return true;
			}
		while (dwarf_siblingof(&e, &e) == 0);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* NAME = VALUE of a unit's enumerator, as its enumeration prints it.  */
static void print_enumerator(struct sg_session *s, struct frame_ctx *fc, Dwarf_Die *cu,
			     Dwarf_Die *enumerator, const char *indent, struct sg_out *out)
{
	struct xval x;
	Dwarf_Attribute a;
	char *text = NULL;
	memset(&x, 0, sizeof(x));
	if (!enumerator_type(cu, enumerator, &x.v.type) ||
	    !dwarf_attr(enumerator, DW_AT_const_value, &a) || const_value(enumerator, &a, &x.v))
		return;
	struct sg_error *err = sg_format_xval(s, fc->t, &x, 0, false, fc->cplus, false, &text);
	if (err) {
		text = sg_fault_text(err);
		sg_error_destroy(err);
	}
	const char *name = dwarf_diename(enumerator);
	sg_out_printf(out, "%s%s = %s\n", indent, name, text ? text : "?");
	if (sg_out_json(out)) {
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", name);
		sg_json_xval(s, fc->t, &x, 0, false, fc->cplus, out, "value");
		sg_out_string(out, "text", text);
		sg_out_object_end(out);
	}
	free(text);
}

/* info locals (and bt full) in a frame whose pc is in a unit's code but
   in no function, the signal trampoline in glibc's unit of sigaction.c:
   gdb's block is the unit's static block, so it lists the unit's
   file-scope variables, the static block's then the global block's, or
   says "No locals.".  false when no unit covers the pc (then gdb has no
   symbol table there).  */
static bool unit_vars(struct sg_session *s, const struct sg_stack *st, size_t level,
		      const char *indent, struct sg_out *out)
{
	struct frame_ctx fc = { .t = sg_session_target(s), .st = st, .level = level };
	fc.f = sg_stack_frame(st, level);
	/* gdb looks a trampoline's or an interrupted frame's pc up as is.  */
	fc.lookup = fc.f->activation || fc.f->signal_trampoline ? fc.f->pc : fc.f->pc - 1;
	Dwarf_Die *cu = sg_lookup_unit_at(fc.t, fc.f->module, fc.lookup, &fc.bias);
	if (!cu)
		return false;
	fc.cplus = sg_die_is_cplus(cu);
	size_t count = 0;
	sg_out_array_begin(out, "locals");
	for (int global = 0; global < 2; global++) {
		struct scope_syms syms;
		unit_symbols(cu, fc.cplus, global, &syms);
		for (size_t k = 0; k < syms.n; k++)
			if (dwarf_tag(&syms.v[k]) == DW_TAG_enumerator)
				print_enumerator(s, &fc, cu, &syms.v[k], indent, out);
			else
				print_var(s, &fc, &syms.v[k], indent, out);
		count += syms.n;
		free(syms.v);
	}
	sg_out_array_end(out);
	if (!count)
		sg_out_printf(out, "No locals.\n");
	return true;
}

struct sg_error *sg_frame_vars(struct sg_session *s, struct sg_out *out, bool args)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	struct frame_scope fs;
	err = frame_scope_at(sg_session_target(s), st, sg_session_frame(s), &fs);
	if (err && !args && unit_vars(s, st, sg_session_frame(s), "", out)) {
		sg_error_destroy(err);
		return NULL;
	}
	if (err)
		return err;
	scope_vars(s, &fs, args, "", out);
	frame_scope_close(&fs);
	return NULL;
}

void sg_frame_locals_print(struct sg_session *s, const struct sg_stack *st, size_t level, struct sg_out *out)
{
	struct frame_scope fs;
	struct sg_error *err = frame_scope_at(sg_session_target(s), st, level, &fs);
	if (err && unit_vars(s, st, level, "        ", out)) {
		sg_error_destroy(err);
		return;
	}
	if (err) {
		sg_out_printf(out, "%s\n", sg_error_message(err));
		sg_out_null(out, "locals");	/* no DWARF for the frame */
		sg_error_destroy(err);
		return;
	}
	scope_vars(s, &fs, false, "        ", out);
	frame_scope_close(&fs);
}

/* gdb's PARAM@entry: the value the caller passed in parameter PARAM of
   the frame's function (not an inlined one), when PARAM lives in a
   register at the function's entry and the call site says what the
   caller put there.  This is that register, or -1.  */
static int param_entry_reg(struct frame_scope *fs, Dwarf_Die *param)
{
	Dwarf_Die *fn = &fs->chain[fs->fn];
	Dwarf_Addr low;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_tag(fn) != DW_TAG_subprogram || dwarf_lowpc(fn, &low) != 0 ||
	    !dwarf_attr_integrate(param, DW_AT_location, &a) ||
	    dwarf_getlocation_addr(&a, low, &ops, &nops, 1) <= 0 || nops != 1)
		return -1;
	return op_register(&ops[0]);
}

/* The value the caller passed in REG (param_entry_reg), if known.  */
static bool param_entry_value(struct frame_scope *fs, int reg, struct val *ret)
{
	if (reg < 0)
		return false;
	struct sg_error *err = entry_value_reg(&fs->fc, (unsigned)reg, ret);
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
	    sg_die_type(&st, &referred)) {
		strip(&referred, &st);
		tag = dwarf_tag(&st);
	}
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_array_type;
}

/* What a frame line needs of one argument of a scope at a pc, from DWARF
   alone: the same functions' frames repeat across threads and recursion,
   and libdw finds each attribute by scanning its DIE.  */
struct arg_desc {
	Dwarf_Die die, type;
	const char *name;
	Dwarf_Attribute const_attr;	/* DW_AT_const_value; code 0: none */
	Dwarf_Op *ops;			/* the location at the pc; NULL: none */
	size_t nops;
	int entry_reg;			/* param_entry_reg() */
	bool aggregate;			/* is_aggregate_arg() */
};

static void arg_descs_collect(struct frame_scope *fs, struct arg_desc **v, size_t *n, size_t *cap)
{
	struct scope_syms syms;
	scope_symbols(fs->fc.t, &fs->chain[fs->fn], &syms);
	for (size_t k = 0; k < syms.n; k++) {
		Dwarf_Die child = syms.v[k];
		Dwarf_Die type;
		if (sym_kind(&child) != SYM_ARG || !sg_die_type(&child, &type))
			continue;
		struct arg_desc *d = sg_array_push(v, n, cap, sizeof(*d));
		if (!d)
			break;	/* out of memory: fewer arguments */
		memset(d, 0, sizeof(*d));
		d->die = child;
		d->type = type;
		d->name = dwarf_diename(&child);
		if (!dwarf_attr_integrate(&child, DW_AT_const_value, &d->const_attr)) {
			d->const_attr.code = 0;
			if (!location_ops(&fs->fc, &child, &d->ops, &d->nops))
				d->ops = NULL;
		}
		d->entry_reg = param_entry_reg(fs, &child);
		d->aggregate = is_aggregate_arg(&type);
	}
	syms_release(&syms);
}

/* The arguments of FS's scope at its pc, T's cached list (*OWN false) or
   one to free.  */
static struct arg_desc *arg_descs(struct frame_scope *fs, size_t *n, bool *own)
{
	const void *scope = fs->chain[fs->fn].addr;
	struct syms_slot *sl = syms_cached(fs->fc.t, scope, fs->fc.lookup);
	*own = false;
	if (sl) {
		*n = sl->n;
		return sl->v;
	}
	struct arg_desc *v = NULL;
	size_t cap = 0;
	*n = 0;
	arg_descs_collect(fs, &v, n, &cap);
	struct syms_cache *c = fs->fc.t ? syms_cache_room(fs->fc.t) : NULL;
	if (c && fs->fc.lookup != SYMS_PC) {
		*syms_slot(c, scope, fs->fc.lookup) = (struct syms_slot){ scope, fs->fc.lookup, v, *n };
		c->used++;
	} else {
		*own = true;
	}
	return v;
}

char *sg_frame_args_text(struct sg_session *s, const struct sg_stack *st, size_t level)
{
	/* Most frames of a big backtrace have no debug information: no
	   error to make and drop for them.  */
	const struct sg_frame *f = sg_stack_frame(st, level);
	if (!f->scopes || f->scope_fn < 0 || f->signal_trampoline)
		return NULL;
	/* gdb's "set print frame-arguments": scalars (0), all, none, presence. */
	uint64_t mode = sg_setting_uint(s, "print frame-arguments", 0);
	struct frame_scope fs;
	struct sg_error *err = frame_scope_at(sg_session_target(s), st, level, &fs);
	if (err) {
		sg_error_destroy(err);
		return NULL;
	}
	struct sg_buf_lite b = { 0 };
	bool any = false;
	size_t nargs;
	bool own;
	struct arg_desc *args = arg_descs(&fs, &nargs, &own);
	for (size_t k = 0; k < nargs; k++) {
		struct arg_desc *d = &args[k];
		const char *name = d->name;
		Dwarf_Die type = d->type;
		if (mode == 3) {	/* presence: "..." for all of them */
			if (!any)
				sg_lite_puts(&b, "...");
			any = true;
			continue;
		}
		sg_lite_puts(&b, any ? ", " : "");
		any = true;
		if (mode == 2) {	/* none: names only */
			sg_lite_puts(&b, name);
			sg_lite_puts(&b, "=...");
			continue;
		}
		sg_lite_puts(&b, name);
		sg_lite_putc(&b, '=');
		struct val v = { .type = type }, ev = { .type = type };
		char *text = NULL;
		if (d->const_attr.code)
			err = const_value(&d->die, &d->const_attr, &v);
		else
			err = d->ops ? locate_ops(&fs.fc, d->ops, d->nops, &v) : &sg_not_found;
		/* gdb's "print entry-values default": NAME=NAME@entry=V
		   when the value is still the one passed, NAME@entry=V
		   when only that one is known.  */
		bool entry = (err || !v.entry_value) && !d->aggregate &&
			     param_entry_value(&fs, d->entry_reg, &ev);
		if (entry && err) {
			sg_error_destroy(err);
			err = NULL;
			v = ev;
		} else if (entry && same_scalar(fs.fc.t, &type, &v, &ev)) {
			sg_lite_puts(&b, name);
			sg_lite_puts(&b, "@entry=");
		}
		if (!err && v.entry_value && dwarf_tag(&fs.chain[fs.fn]) == DW_TAG_subprogram) {
			/* gdb: the value is the one passed at entry; it says
			   so of a function's own frame only, not of an
			   inlined call's ("__pthread_kill_internal (signo=6,
			   ..." under abort).  */
			sg_lite_puts(&b, name);
			sg_lite_puts(&b, "@entry=");
		}
		if (err) {
			/* gdb: "..." for an aggregate even then.  */
			sg_error_destroy(err);
			text = strdup(mode == 0 && d->aggregate ? "..."
									    : "<optimized out>");
		} else {
			struct xval x = { .v = v };
			if ((err = sg_format_frame_arg(s, fs.fc.t, &x, fs.fc.cplus, mode == 0,
						    &text))) {
				text = sg_fault_text(err);
				sg_error_destroy(err);
			}
		}
		sg_lite_puts(&b, text ? text : "?");
		free(text);
		val_bytes_release();
	}
	if (own)
		free(args);
	frame_scope_close(&fs);
	return b.s ? b.s : strdup("");
}
