/* Describing a physical frame: function, module, source line, and the
   inlined calls at its pc, each as a logical frame of its own (as gdb and
   eu-stack -i show them).

   Descriptions are cached per target by pc, since a backtrace of many
   threads, and every sample of a profiler, meets the same pcs again.  */
#include <config.h>
#include "internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#define MAX_INLINE_DEPTH 64

struct desc_entry {
	uint64_t key;		/* 0: empty */
	struct sg_frame *frames;
	size_t n;
	Dwarf_Die *scopes;	/* the frames' scope chain, owned */
};

/* A function's name built from its declaration's scopes, by the
   declaration DIE's address.  */
struct scoped_entry {
	const void *decl;	/* NULL: empty */
	char *name;
};

struct sg_frame_cache {
	struct sg_table table;	/* of struct desc_entry */
	struct sg_table scoped;	/* of struct scoped_entry */
};

void sg_frame_cache_destroy(struct sg_frame_cache *c)
{
	if (!c)
		return;
	struct desc_entry *slots = c->table.slots;
	for (size_t i = 0; i < c->table.cap; i++) {
		free(slots[i].frames);
		free(slots[i].scopes);
	}
	free(slots);
	struct scoped_entry *names = c->scoped.slots;
	for (size_t i = 0; i < c->scoped.cap; i++)
		free(names[i].name);
	free(names);
	free(c);
}

static bool scoped_used(const void *e)
{
	return ((const struct scoped_entry *)e)->decl != NULL;
}

static uint64_t scoped_hash(const void *e)
{
	return sg_hash64((uintptr_t)((const struct scoped_entry *)e)->decl);
}

static bool scoped_eq(const void *e, const void *key)
{
	return ((const struct scoped_entry *)e)->decl == key;
}

static const struct sg_table_type scoped_table = {
	sizeof(struct scoped_entry), 64, scoped_used, scoped_hash,
};

static bool desc_used(const void *e)
{
	return ((const struct desc_entry *)e)->key != 0;
}

static uint64_t desc_hash(const void *e)
{
	return sg_hash64(((const struct desc_entry *)e)->key);
}

static bool desc_eq(const void *e, const void *key)
{
	return ((const struct desc_entry *)e)->key == *(const uint64_t *)key;
}

static const struct sg_table_type desc_table = {
	sizeof(struct desc_entry), 256, desc_used, desc_hash,
};

static struct desc_entry *cache_find(struct sg_frame_cache *c, uint64_t key, bool insert)
{
	struct desc_entry *e = sg_table_find(&c->table, &desc_table, sg_hash64(key), desc_eq, &key,
					     insert);
	if (e && insert)
		e->key = key;
	return e;
}

/* DIE's declaration: through DW_AT_abstract_origin (an inlined or
   out-of-line instance) and DW_AT_specification (a definition outside its
   namespace or class), as far as they go.  */
static void die_declaration(Dwarf_Die *die, Dwarf_Die *ret)
{
	*ret = *die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die next;
		if (!(dwarf_attr(ret, DW_AT_abstract_origin, &attr) ||
		      dwarf_attr(ret, DW_AT_specification, &attr)) ||
		    !dwarf_formref_die(&attr, &next))
			return;
		*ret = next;
	}
}

/* NAME qualified by the namespaces and classes around DIE's declaration,
   as gdb names a C++ function that has no linkage name (one of internal
   linkage: "(anonymous namespace)::run"); NAME itself for C, or when
   there is no scope.  Kept per declaration in the frame cache.  */
static const char *scoped_name(struct sg_target *t, Dwarf_Die *die, const char *name)
{
	Dwarf_Die cu, decl;
	int lang = dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
	if (lang != DW_LANG_C_plus_plus && lang != DW_LANG_C_plus_plus_03 &&
	    lang != DW_LANG_C_plus_plus_11 && lang != DW_LANG_C_plus_plus_14)
		return name;
	die_declaration(die, &decl);
	struct sg_frame_cache *c = t->frame_cache;
	if (!c && !(c = t->frame_cache = calloc(1, sizeof(*c))))
		return name;
	size_t n = c->scoped.n;
	struct scoped_entry *e = sg_table_find(&c->scoped, &scoped_table,
					       sg_hash64((uintptr_t)decl.addr), scoped_eq, decl.addr,
					       true);
	if (!e)
		return name;
	if (c->scoped.n != n) {
		e->decl = decl.addr;
		e->name = sg_type_qualified_name(&decl);
	}
	return e->name ? e->name : name;
}

/* The name gdb shows for a function DIE: the demangled linkage name without
   parameters ("outer::inner::Worker<int>::run"), else DW_AT_name with
   the scopes of its declaration.  Both are followed through
   DW_AT_abstract_origin and DW_AT_specification.  */
static const char *die_function_name(struct sg_target *t, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		linkage = dwarf_formstring(&attr);
	if (linkage) {
		const char *base = sg_demangle_base_cached(t, linkage);
		if (base)
			return base;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &attr)) {
		const char *name = dwarf_formstring(&attr);
		return name ? scoped_name(t, die, name) : NULL;
	}
	return linkage;
}

/* A source path as gdb shows it.  libdw joins the compilation directory,
   the line table's directory and the file name; gdb shows the directory
   and the name as the compiler wrote them.  The two agree except where the
   compiler wrote a path relative to the compilation directory that climbs
   out of it ("../sysdeps/unix/sysv/linux/clock_nanosleep.c" under
   "./time"): there gdb leaves the compilation directory out.  */
static const char *display_path(Dwarf_Die *cudie, const char *path)
{
	if (!path)
		return NULL;
	Dwarf_Attribute attr;
	const char *comp_dir = cudie && dwarf_attr(cudie, DW_AT_comp_dir, &attr)
		? dwarf_formstring(&attr) : NULL;
	size_t len = comp_dir ? strlen(comp_dir) : 0;
	if (len && !strncmp(path, comp_dir, len) && path[len] == '/' &&
	    !strncmp(path + len + 1, "../", 3))
		return path + len + 1;
	return path;
}

static const char *call_file(Dwarf_Die *cudie, Dwarf_Die *inlined)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	if (!dwarf_attr(inlined, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) != 0 ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return display_path(cudie, dwarf_filesrc(files, idx, NULL, NULL));
}

static int call_line(Dwarf_Die *inlined)
{
	Dwarf_Attribute attr;
	Dwarf_Word line;
	if (!dwarf_attr(inlined, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &line) != 0)
		return 0;
	return line > INT32_MAX ? 0 : (int)line;
}


static bool same_line(Dwarf_Line *a, Dwarf_Line *b)
{
	int la = 0, lb = 0;
	bool end = false;
	dwarf_lineendsequence(a, &end);
	if (end || dwarf_lineno(a, &la) != 0 || dwarf_lineno(b, &lb) != 0 || la != lb)
		return false;
	const char *fa = dwarf_linesrc(a, NULL, NULL), *fb = dwarf_linesrc(b, NULL, NULL);
	return fa && fb && !strcmp(fa, fb);
}

/* The line table row gdb would pick for ADDR (a module address), and the
   address where gdb's line starts.  gdb takes the last row at the highest
   address not above ADDR, preferring a statement row at that address; and
   it coalesces consecutive rows of one line once the line has had a
   non-zero discriminator (dwarf_record_line_p, PR 17276), so such a line
   starts at its first row.  */
#define MAX_LINE_RUN 256
static Dwarf_Line *gdb_row(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Addr *start_ret)
{
	Dwarf_Lines *lines;
	size_t n;
	if (!cudie || dwarf_getsrclines(cudie, &lines, &n) != 0 || n == 0)
		return NULL;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) != 0 || a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t idx = lo - 1;
	Dwarf_Line *row = dwarf_onesrcline(lines, idx);
	Dwarf_Addr at;
	bool end = false, stmt = false;
	if (dwarf_lineaddr(row, &at) != 0 || dwarf_lineendsequence(row, &end) != 0 || end)
		return NULL;
	for (size_t j = idx; ; j--) {
		Dwarf_Line *l = dwarf_onesrcline(lines, j);
		Dwarf_Addr a;
		if (dwarf_lineaddr(l, &a) != 0 || a != at)
			break;
		if (dwarf_linebeginstatement(l, &stmt) == 0 && stmt) {
			idx = j;
			row = l;
			break;
		}
		if (j == 0)
			break;
	}
	/* Walk back through the run of rows of this line.  */
	Dwarf_Addr start = at;
	size_t first = idx;
	unsigned int d = 0;
	bool discriminated = dwarf_linediscriminator(row, &d) == 0 && d;
	for (size_t k = 0; first > 0 && k < MAX_LINE_RUN; k++) {
		Dwarf_Line *prev = dwarf_onesrcline(lines, first - 1);
		if (!same_line(prev, row))
			break;
		if (dwarf_linediscriminator(prev, &d) == 0 && d)
			discriminated = true;
		first--;
	}
	if (discriminated && first != idx)
		dwarf_lineaddr(dwarf_onesrcline(lines, first), &start);
	*start_ret = start;
	return row;
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* Describe the frame at PC into a new array; *SCOPES_RET receives the
   scope chain the frames point into (the caller owns it).  */
static struct sg_error *describe(struct sg_target *t, uint64_t pc, bool activation, bool tramp,
				 struct sg_frame **ret, size_t *nret, Dwarf_Die **scopes_ret)
{
	struct sg_frame base = { 0 };
	base.pc = pc;
	base.activation = activation;
	uint64_t lookup = activation ? pc : pc - 1;
	base.module = sg_target_module_at(t, lookup);
	if (tramp) {
		base.signal_trampoline = true;
		base.function = "<signal handler called>";
	}
	struct sg_symbol sym;
	struct sg_error *err = base.module ? sg_symbolize(t, lookup, &sym) : &sg_not_found;
	if (!err) {
		base.has_offset = true;
		base.offset = pc - sym.address;
		if (!tramp)
			base.function = sg_demangle_base_cached(t, sym.raw_name);
	} else if (sg_error_code(err) != SG_ERROR_NOT_FOUND) {
		return err;
	}
	sg_error_destroy(err);

	Dwarf_Die *scopes = NULL;
	int nscopes = 0;
	Dwarf_Die *cudie = NULL;
	Dwarf_Addr cu_bias = 0;
	bool asm_unit = false;
	if (base.module && !tramp) {
		Dwarf_Addr bias;
		cudie = dwfl_module_addrdie(base.module->dwmod, lookup, &bias);
		cu_bias = bias;
		/* Assembler units describe each alias of a function as a
		   subprogram of its own; like gdb, name those by the symbol
		   table (their scopes still serve "info locals").  */
		asm_unit = cudie && dwarf_srclang(cudie) == DW_LANG_Mips_Assembler;
		if (cudie) {
			Dwarf_Die *found = NULL;
			int n = dwarf_getscopes(cudie, lookup - bias, &found);
			/* dwarf_getscopes follows an inlined function into its
			   abstract definition; the chain of calls is the
			   concrete one that contains the innermost scope.  */
			if (n > 0)
				nscopes = dwarf_getscopes_die(&found[0], &scopes);
			free(found);
			if (nscopes < 0)
				nscopes = 0;
		}
	}
	Dwarf_Addr line_start;
	Dwarf_Line *row = gdb_row(cudie, lookup - cu_bias, &line_start);
	if (row) {
		int lineno = 0;
		dwarf_lineno(row, &lineno);
		base.file = display_path(cudie, dwarf_linesrc(row, NULL, NULL));
		base.line = lineno;
		base.line_start = activation && line_start + cu_bias == pc;
	}

	/* The function-like scopes, innermost first, up to the subprogram. */
	Dwarf_Die *funcs[MAX_INLINE_DEPTH];
	int func_index[MAX_INLINE_DEPTH];
	size_t nfuncs = 0;
	for (int i = 0; i < nscopes && nfuncs < MAX_INLINE_DEPTH; i++) {
		if (!is_function_scope(&scopes[i]))
			continue;
		func_index[nfuncs] = i;
		funcs[nfuncs++] = &scopes[i];
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			break;
	}
	base.dwarf_bias = cu_bias;
	base.scope_fn = base.scope_first = -1;
	size_t n = nfuncs ? nfuncs : 1;
	struct sg_frame *frames = calloc(n, sizeof(*frames));
	if (!frames) {
		free(scopes);
		return &sg_enomem;
	}
	for (size_t k = 0; k < n; k++) {
		frames[k] = base;
		if (!nfuncs)
			break;
		frames[k].scopes = scopes;
		frames[k].nscopes = nscopes;
		frames[k].scope_fn = func_index[k];
		frames[k].scope_first = k ? func_index[k - 1] : -1;
		const char *name = asm_unit ? NULL : die_function_name(t, funcs[k]);
		if (name)
			frames[k].function = name;
		/* Every frame but the innermost is an inlined call's caller:
		   its location is the call site.  */
		frames[k].inlined = dwarf_tag(funcs[k]) == DW_TAG_inlined_subroutine;
		if (k > 0) {
			frames[k].file = call_file(cudie, funcs[k - 1]);
			frames[k].line = call_line(funcs[k - 1]);
			frames[k].line_start = false;
		}
	}
	if (!nfuncs) {
		free(scopes);
		scopes = NULL;
	}
	*ret = frames;
	*nret = n;
	*scopes_ret = scopes;
	return NULL;
}

struct sg_error *sg_frame_describe(struct sg_target *t, const struct sg_unwind_frame *uf, bool tramp,
				   const char *unwinder, size_t physical, struct sg_frame **frames,
				   size_t *nframes, size_t *cap)
{
	uint64_t pc = uf->regs.r[SG_REG_RIP];
	/* PCs are below 2^62 on x86-64; the low bits hold the flags.  */
	uint64_t key = (pc << 2 | (uf->activation ? 2 : 0) | (tramp ? 1 : 0)) + 1;
	if (!t->frame_cache && !(t->frame_cache = calloc(1, sizeof(*t->frame_cache))))
		return &sg_enomem;
	struct desc_entry *e = cache_find(t->frame_cache, key, false);
	if (!e) {
		struct sg_frame *desc;
		size_t n;
		Dwarf_Die *scopes;
		struct sg_error *err = describe(t, pc, uf->activation, tramp, &desc, &n, &scopes);
		if (err)
			return err;
		e = cache_find(t->frame_cache, key, true);
		if (!e) {
			free(desc);
			free(scopes);
			return &sg_enomem;
		}
		e->frames = desc;
		e->n = n;
		e->scopes = scopes;
	}
	for (size_t i = 0; i < e->n; i++) {
		struct sg_frame *f = sg_array_push(frames, nframes, cap, sizeof(*f));
		if (!f)
			return &sg_enomem;
		*f = e->frames[i];
		f->level = *nframes - 1;
		f->physical = physical;
		f->regs = &uf->regs;
		f->unwinder = unwinder;
	}
	return NULL;
}
