/* Source files of units and their line tables, as gdb's list, info line
   and info source see them (src-symtab.h); moved from the shell's
   cmd-source.c, which keeps the files' text, the source path and the
   commands.  */
#include <config.h>
#include "src-symtab.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

void sg_symtab_clear(struct symtab *s)
{
	free(s->name);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

struct sg_error *sg_symtab_copy(struct symtab *dst, const struct symtab *src)
{
	struct symtab s = *src;
	s.name = strdup(src->name);
	s.path = strdup(src->path);
	if (!s.name || !s.path) {
		free(s.name);
		free(s.path);
		return &sg_enomem;
	}
	sg_symtab_clear(dst);
	*dst = s;
	return NULL;
}

bool sg_symtab_same(const struct symtab *a, const struct symtab *b)
{
	/* By offset: the frames' units and the address lookups' may be
	   different handles on the same unit.  */
	return a->mod == b->mod &&
	       dwarf_dieoffset((Dwarf_Die *)&a->cu) == dwarf_dieoffset((Dwarf_Die *)&b->cu) &&
	       !strcmp(a->path, b->path);
}

static const char *comp_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	return dwarf_attr(cu, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
}

/* PATH (libdw's join of the compilation directory, the table's directory
   and the name) as gdb shows it: the name relative to the compilation
   directory where it climbs out of it ("../sysdeps/..." under "./posix"),
   and the unit's own file as DW_AT_name spells it when the compilation
   directory is absolute.  The same rule as the frame lines' (lib/frame.c),
   so that a frame's file and a symtab's name compare equal.  */
static const char *display_name(Dwarf_Die *cu, const char *path)
{
	const char *dir = comp_dir(cu);
	size_t len = dir ? strlen(dir) : 0;
	if (!len)
		return path;
	if (!strncmp(path, dir, len) && path[len] == '/' && !strncmp(path + len + 1, "../", 3))
		return path + len + 1;
	const char *name = dwarf_diename(cu);
	if (dir[0] != '/' || !name)
		return path;
	if (name[0] == '/')
		return !strcmp(name, path) ? name : path;
	if (!strncmp(path, dir, len) && path[len] == '/' && !strcmp(path + len + 1, name))
		return name;
	return path;
}

static struct sg_error *symtab_set(struct symtab *s, struct sg_module *mod, Dwarf_Die *cu,
				   Dwarf_Addr bias, const char *path)
{
	char *name = strdup(display_name(cu, path)), *p = strdup(path);
	if (!name || !p) {
		free(name);
		free(p);
		return &sg_enomem;
	}
	sg_symtab_clear(s);
	s->mod = mod;
	s->cu = *cu;
	s->bias = bias;
	s->name = name;
	s->path = p;
	return NULL;
}

/* The unit of MOD whose code covers ADDR (a target address).  Through
   libdw's aranges first, then each unit's ranges (clang writes no
   aranges).  */
static bool unit_at(struct sg_module *mod, uint64_t addr, Dwarf_Die *ret, Dwarf_Addr *bias_ret)
{
	Dwfl_Module *dm = mod ? sg_module_dwfl(mod) : NULL;
	if (!dm)
		return false;
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(dm, addr, &bias);
	if (cu && dwarf_haspc(cu, addr - bias) > 0) {
		*ret = *cu;
		*bias_ret = bias;
		return true;
	}
	Dwarf_Die *c = NULL;
	while ((c = dwfl_module_nextcu(dm, c, &bias))) {
		if (dwarf_haspc(c, addr - bias) > 0) {
			*ret = *c;
			*bias_ret = bias;
			return true;
		}
	}
	return false;
}

static bool row_end(Dwarf_Line *l)
{
	bool end = false;
	return dwarf_lineendsequence(l, &end) == 0 && end;
}

static bool row_stmt(Dwarf_Line *l)
{
	bool stmt = false;
	return dwarf_linebeginstatement(l, &stmt) == 0 && stmt;
}

static uint64_t row_addr(Dwarf_Line *l)
{
	Dwarf_Addr a = 0;
	dwarf_lineaddr(l, &a);
	return a;
}

static int row_line(Dwarf_Line *l)
{
	int n = 0;
	dwarf_lineno(l, &n);
	return n;
}

/* Which rows of the table gdb keeps, into a new array (NULL without
   memory: then all).  gdb reads each sequence with a fresh state: a row
   is kept when its file or line differs from the row before, or when no
   row of the line so far had a non-zero discriminator (PR 17276); rows
   of line 0 are dropped, and so is a non-statement row of a new file at
   the address of the row before.  A new file's row drops the rows of
   the file before at its address (gdb's end-of-file marker there).  */
static bool *kept_rows(Dwarf_Lines *lines, size_t n)
{
	bool *kept = malloc(n ? n : 1);
	if (!kept)
		return NULL;
	const char *last_file = NULL;
	int last_line = 0, prev_line = 0;
	uint64_t last_addr = 0;
	bool nonzero = false, fresh = true;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		if (row_end(row)) {
			kept[i] = true;
			fresh = true;
			continue;
		}
		const char *file = dwarf_linesrc(row, NULL, NULL);
		int line = row_line(row);
		unsigned int disc = 0;
		dwarf_linediscriminator(row, &disc);
		uint64_t addr = row_addr(row);
		if (fresh) {
			last_file = NULL;
			last_line = prev_line = 0;
			nonzero = false;
			fresh = false;
		}
		if (line != prev_line)
			nonzero = disc != 0;
		else
			nonzero |= disc != 0;
		prev_line = line;
		bool file_changed = !last_file || !file || strcmp(file, last_file);
		bool ignore = (file_changed && last_file && addr == last_addr && !row_stmt(row)) ||
			      line == 0;
		kept[i] = false;
		if (!ignore && file_changed && last_file) {
			/* gdb ends the previous file's run here with a line-0
			   marker, which deletes that file's rows at this
			   address.  */
			for (size_t j = i; j-- > 0;) {
				Dwarf_Line *r = dwarf_onesrcline(lines, j);
				const char *f = dwarf_linesrc(r, NULL, NULL);
				if (row_end(r) || row_addr(r) != addr)
					break;
				if (f && !strcmp(f, last_file))
					kept[j] = false;
			}
		}
		if (!ignore) {
			kept[i] = file_changed || line != last_line || !nonzero;
			last_file = file;
			last_line = line;
		}
		last_addr = addr;
	}
	return kept;
}

/* The line-table row gdb takes for ADDR (a unit address): the last one at
   or below it, a statement row where one shares its address.  Its index
   into *IDX_RET; false when ADDR is outside every sequence.  */
static bool row_at(Dwarf_Lines *lines, size_t n, const bool *kept, uint64_t addr,
		   size_t *idx_ret)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (row_addr(dwarf_onesrcline(lines, mid)) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t idx = lo;
	while (idx > 0 && kept && !kept[idx - 1])
		idx--;
	if (idx == 0)
		return false;
	idx--;
	if (row_end(dwarf_onesrcline(lines, idx)))
		return false;
	uint64_t at = row_addr(dwarf_onesrcline(lines, idx));
	for (size_t j = idx; !row_stmt(dwarf_onesrcline(lines, j)) && j > 0; j--) {
		Dwarf_Line *prev = dwarf_onesrcline(lines, j - 1);
		if (kept && !kept[j - 1])
			continue;
		if (row_end(prev) || row_addr(prev) != at)
			break;
		if (row_stmt(prev)) {
			idx = j - 1;
			break;
		}
	}
	*idx_ret = idx;
	return true;
}

/* Where the range of row IDX ends: the address of the first kept row
   above ADDR (an end of sequence included).  */
static uint64_t row_range_end(Dwarf_Lines *lines, size_t n, const bool *kept, size_t idx,
			      uint64_t addr)
{
	for (size_t j = idx + 1; j < n; j++) {
		uint64_t a = row_addr(dwarf_onesrcline(lines, j));
		if (a > addr && (!kept || kept[j]))
			return a;
	}
	return addr;
}


struct sg_error *sg_code_loc_at(struct sg_target *t, uint64_t addr, struct code_loc *ret)
{
	struct sg_module *mod = sg_target_module_at(t, addr);
	Dwarf_Die cu;
	Dwarf_Addr bias;
	Dwarf_Lines *lines;
	size_t n, idx;
	if (!unit_at(mod, addr, &cu, &bias) || dwarf_getsrclines(&cu, &lines, &n) != 0)
		return &sg_not_found;
	bool *kept = kept_rows(lines, n);
	if (!row_at(lines, n, kept, addr - bias, &idx)) {
		free(kept);
		return &sg_not_found;
	}
	Dwarf_Line *row = dwarf_onesrcline(lines, idx);
	const char *path = dwarf_linesrc(row, NULL, NULL);
	struct sg_error *err = !path || !row_line(row) ? &sg_not_found
			       : symtab_set(&ret->sym, mod, &cu, bias, path);
	if (!err) {
		ret->line = row_line(row);
		ret->start = row_addr(row) + bias;
		ret->end = row_range_end(lines, n, kept, idx, addr - bias) + bias;
	}
	free(kept);
	return err;
}

/* The symtab of frame F: its unit's file that the frame line names.  */
bool sg_frame_symtab(struct sg_target *t, const struct sg_frame *f, struct symtab *ret)
{
	if (!f->file || f->line <= 0 || f->signal_trampoline)
		return false;
	Dwarf_Die cu;
	Dwarf_Addr bias = f->dwarf_bias;
	bool have = false;
	if (f->scopes && f->scope_fn >= 0 && f->scope_fn < f->nscopes)
		have = dwarf_diecu((Dwarf_Die *)&f->scopes[f->scope_fn], &cu, NULL, NULL) != NULL;
	if (!have)
		have = unit_at(f->module, f->activation ? f->pc : f->pc - 1, &cu, &bias);
	Dwarf_Files *files;
	size_t nfiles;
	if (!have || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		return false;
	for (size_t i = 1; i < nfiles; i++) {
		const char *path = dwarf_filesrc(files, i, NULL, NULL);
		if (path && !strcmp(display_name(&cu, path), f->file))
			return symtab_set(ret, f->module, &cu, bias, path) == NULL;
	}
	/* DWARF 5 tables name the unit's file at index 0 too.  */
	const char *path = nfiles ? dwarf_filesrc(files, 0, NULL, NULL) : NULL;
	return path && !strcmp(display_name(&cu, path), f->file) &&
	       symtab_set(ret, f->module, &cu, bias, path) == NULL;
}

/* Whether NAME, as the user typed it, names the file PATH shown as
   DISPLAY: the same path, or its last components ("bt.c",
   "fixtures/bt.c").  */
bool sg_source_file_matches(const char *name, const char *display, const char *path)
{
	const char *cands[2] = { display, path };
	size_t nl = strlen(name);
	for (int i = 0; i < 2; i++) {
		const char *c = cands[i];
		size_t cl = strlen(c);
		if (!strcmp(c, name))
			return true;
		if (name[0] != '/' && cl > nl && !strcmp(c + cl - nl, name) && c[cl - nl - 1] == '/')
			return true;
	}
	return false;
}

/* Whether the line table has a row of PATH.  */
static bool unit_has_rows(Dwarf_Die *cu, const char *path)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *p = dwarf_linesrc(dwarf_onesrcline(lines, i), NULL, NULL);
		if (p && !strcmp(p, path))
			return true;
	}
	return false;
}

struct file_search {
	const char *name;
	struct symtab *ret;
	bool found;
	struct sg_module *skip;
	struct sg_error *err;
};

static bool search_module(struct sg_module *mod, struct file_search *fs)
{
	Dwfl_Module *dm = sg_module_dwfl(mod);
	if (!dm || !sg_module_has_dwarf(mod, NULL))
		return false;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(dm, cu, &bias))) {
		Dwarf_Files *files;
		size_t nfiles;
		if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			continue;
		for (size_t i = 0; i < nfiles; i++) {
			const char *path = dwarf_filesrc(files, i, NULL, NULL);
			if (!path || !sg_source_file_matches(fs->name, display_name(cu, path), path) ||
			    !unit_has_rows(cu, path))
				continue;
			fs->err = symtab_set(fs->ret, mod, cu, bias, path);
			fs->found = true;
			return true;
		}
	}
	return false;
}

static int search_module_cb(struct sg_module *mod, void *arg)
{
	struct file_search *fs = arg;
	if (mod == fs->skip)
		return SG_CB_OK;
	return search_module(mod, fs) ? SG_CB_ABORT : SG_CB_OK;
}

static int count_module(struct sg_module *mod SG_UNUSED, void *arg SG_UNUSED)
{
	return SG_CB_OK;
}

/* The symtab of the file NAME: the first unit with rows of it, the
   executable's first.  */
struct sg_error *sg_find_source_file(struct sg_target *t, const char *name, struct symtab *ret)
{
	struct file_search fs = { .name = name, .ret = ret };
	/* sg_target_exe_module knows the modules reported so far.  */
	struct sg_error *err = sg_target_modules(t, count_module, NULL);
	sg_error_destroy(err);
	struct sg_module *exe = sg_target_exe_module(t);
	if (exe && search_module(exe, &fs))
		return fs.err;
	fs.skip = exe;
	err = sg_target_modules(t, search_module_cb, &fs);
	if (err)
		return err;
	if (!fs.found)
		return sg_error_format(SG_ERROR_LOOKUP, "No source file named %s.", name);
	return fs.err;
}

/* The first address of the first inlined call of NAME below DIE (depth
   bounded), into *RET.  */
static bool find_inlined(Dwarf_Die *die, const char *name, int depth, Dwarf_Addr *ret)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute attr;
			Dwarf_Die origin;
			const char *n = dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &attr),
							  &origin) ? dwarf_diename(&origin) : NULL;
			Dwarf_Addr base, start, end;
			if (n && !strcmp(n, name) &&
			    (dwarf_entrypc(&child, ret) == 0 ||
			     dwarf_ranges(&child, 0, &base, &start, &end) > 0)) {
				if (dwarf_entrypc(&child, ret) != 0)
					*ret = start;
				return true;
			}
		}
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block || tag == DW_TAG_namespace) &&
		    find_inlined(&child, name, depth + 1, ret))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* A function that exists only inlined (no symbol), as gdb finds it:
   its first inlined call in the executable.  */
bool sg_inlined_function(struct sg_target *t, const char *name, uint64_t *ret)
{
	struct sg_module *exe = sg_target_exe_module(t);
	Dwfl_Module *dm = exe ? sg_module_dwfl(exe) : NULL;
	if (!dm)
		return false;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(dm, cu, &bias))) {
		Dwarf_Addr a;
		if (find_inlined(cu, name, 0, &a)) {
			*ret = a + bias;
			return true;
		}
	}
	return false;
}

/* The first row of line LINE of S (lowest address), or of the next line
   that has code; *EXACT says which.  */
bool sg_symtab_line_rows(const struct symtab *s, int line, uint64_t *start, uint64_t *end,
		      int *found_line)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines((Dwarf_Die *)&s->cu, &lines, &n) != 0)
		return false;
	int best = 0;
	size_t best_idx = 0;
	bool *kept = kept_rows(lines, n);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		int l = row_line(row);
		if (row_end(row) || !row_stmt(row) || l < line || (kept && !kept[i]))
			continue;
		const char *p = dwarf_linesrc(row, NULL, NULL);
		if (!p || strcmp(p, s->path))
			continue;
		if (!best || l < best || (l == best && row_addr(row) < row_addr(dwarf_onesrcline(lines, best_idx)))) {
			best = l;
			best_idx = i;
		}
	}
	if (!best) {
		free(kept);
		return false;
	}
	uint64_t a = row_addr(dwarf_onesrcline(lines, best_idx));
	*start = a + s->bias;
	*end = row_range_end(lines, n, kept, best_idx, a) + s->bias;
	*found_line = best;
	/* gdb then looks the address up again: where a later row at the same
	   address names another line (an inlined call's), the line has no
	   code of its own.  */
	size_t at;
	if (row_at(lines, n, kept, a, &at)) {
		Dwarf_Line *row = dwarf_onesrcline(lines, at);
		const char *p = dwarf_linesrc(row, NULL, NULL);
		if (row_line(row) != best || !p || strcmp(p, s->path))
			*found_line = -1;
	}
	free(kept);
	return true;
}

const char *sg_symtab_comp_dir(const struct symtab *s)
{
	return comp_dir((Dwarf_Die *)&s->cu);
}

const char *sg_unit_language(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
		return "c";
	case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03: case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return "c++";
	case DW_LANG_Mips_Assembler:
		return "asm";
	case DW_LANG_Rust:
		return "rust";
	case DW_LANG_Go:
		return "go";
	case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
	case DW_LANG_Fortran03: case DW_LANG_Fortran08:
		return "fortran";
	default:
		return "unknown";
	}
}

void sg_symtab_unit_info(const struct symtab *s, struct src_unit_info *ret)
{
	Dwarf_Die *cu = (Dwarf_Die *)&s->cu;
	Dwarf_Attribute attr;
	Dwarf_Half version = 0;
	ret->comp_dir = comp_dir(cu);
	ret->language = sg_unit_language(cu);
	ret->producer = dwarf_attr(cu, DW_AT_producer, &attr) ? dwarf_formstring(&attr) : NULL;
	ret->dwarf_version =
		dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) == 0 ? version : 0;
	ret->macros = dwarf_hasattr(cu, DW_AT_macros) || dwarf_hasattr(cu, DW_AT_GNU_macros) ||
		      dwarf_hasattr(cu, DW_AT_macro_info);
}
