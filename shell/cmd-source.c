/* Source code: list, info source, info line, directory, set substitute-path,
   set listsize, and the source line that frame, up, down and thread print.

   gdb keeps a "current source line": a file (a unit's line-table file)
   and a line, set whenever a frame is printed with its source line, and
   moved by each list.  This file keeps the same, with the lines the last
   list showed (the first of them 0 until a list runs: the next list then
   centres on the current line), so that a repeated "list" goes on where
   the last one stopped, and "list -" goes back from where it started.

   The file a unit names is looked up as gdb does: the recorded path
   (joined to the compilation directory) rewritten by "set
   substitute-path", then as it is, then in each "directory" (gdb's
   $cdir and $cwd last), by its whole name and by its base name.  */
#include <config.h>
#include "eval.h"
#include "shell.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- source files of units ("symtabs") ---- */

/* One file of one unit's line table: what gdb calls a symtab.  */
struct symtab {
	struct sg_module *mod;
	Dwarf_Die cu;		/* valid as long as the target */
	Dwarf_Addr bias;	/* the module's DWARF bias */
	char *name;		/* as gdb shows it ("../sysdeps/x.c", "/abs/y.c") */
	char *path;		/* libdw's path: the compilation directory joined */
};

static void symtab_clear(struct symtab *s)
{
	free(s->name);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

static struct sg_error *symtab_copy(struct symtab *dst, const struct symtab *src)
{
	struct symtab s = *src;
	s.name = strdup(src->name);
	s.path = strdup(src->path);
	if (!s.name || !s.path) {
		free(s.name);
		free(s.path);
		return &sg_enomem;
	}
	symtab_clear(dst);
	*dst = s;
	return NULL;
}

static bool symtab_same(const struct symtab *a, const struct symtab *b)
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
	symtab_clear(s);
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
   the address of the row before.  */
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

/* A location in the code: its symtab and line, for ADDR (a target
   address, exact: not a return address).  */
struct code_loc {
	struct symtab sym;
	int line;
	uint64_t start, end;	/* the row's range, target addresses */
};

static struct sg_error *loc_at(struct sg_target *t, uint64_t addr, struct code_loc *ret)
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
static bool frame_symtab(struct sg_target *t, const struct sg_frame *f, struct symtab *ret)
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
static bool file_matches(const char *name, const char *display, const char *path)
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
			if (!path || !file_matches(fs->name, display_name(cu, path), path) ||
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
static struct sg_error *find_file(struct sg_target *t, const char *name, struct symtab *ret)
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

/* ---- the settings and the current source line ---- */

struct subst {
	char *from, *to;
};

static struct source_state {
	/* The target the location belongs to: a new one starts afresh.  */
	struct sg_target *target;
	bool have;		/* a current source line */
	struct symtab cur;
	int line;		/* where the next "list" goes on */
	int first, last;	/* the last list's first line (gdb's "last" is it too) */
	bool centre;		/* no list since the line was set */
	/* The file the last print tried, and whether it was missing: gdb says
	   "No such file" once, then "N\tin FILE".  */
	struct symtab visited;
	bool visited_error;
	/* The last frame shown (or gdb's at the attach): where "info line N"
	   looks for line N.  */
	struct symtab shown;
	bool have_shown;
	/* Where each file was found (recorded path, found path), as gdb
	   keeps a symtab's full name: "directory" and "set|unset
	   substitute-path" forget them.  */
	char **found;
	size_t nfound;
	unsigned listsize;	/* 0: unlimited */
	char **dirs;		/* "directory": before $cdir and $cwd */
	size_t ndirs;
	struct subst *subs;
	size_t nsubs;
} state = { .listsize = 10 };

/* The key of the mark left on a target this file has seen.  */
static const char target_mark_key = 0;
static char target_mark = 1;

static void forget_visited(void)
{
	symtab_clear(&state.visited);
	state.visited_error = false;
}

static void forget_found(void)
{
	for (size_t i = 0; i < 2 * state.nfound; i++)
		free(state.found[i]);
	free(state.found);
	state.found = NULL;
	state.nfound = 0;
}

static const char *found_path(const char *path)
{
	for (size_t i = 0; i < state.nfound; i++)
		if (!strcmp(state.found[2 * i], path))
			return state.found[2 * i + 1];
	return NULL;
}

static void remember_found(const char *path, const char *where)
{
	for (size_t i = 0; i < state.nfound; i++)
		if (!strcmp(state.found[2 * i], path)) {
			char *w = strdup(where);
			if (w) {
				free(state.found[2 * i + 1]);
				state.found[2 * i + 1] = w;
			}
			return;
		}
	char **f = realloc(state.found, 2 * (state.nfound + 1) * sizeof(*f));
	if (!f)
		return;
	state.found = f;
	char *a = strdup(path), *b = strdup(where);
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	f[2 * state.nfound] = a;
	f[2 * state.nfound + 1] = b;
	state.nfound++;
}

/* ---- finding and reading the file ---- */

/* PATH with the first matching substitute-path rule applied, as a new
   string, or NULL when none applies.  A rule's FROM matches whole
   leading components.  */
static char *rewrite_path(const char *path)
{
	for (size_t i = 0; i < state.nsubs; i++) {
		size_t n = strlen(state.subs[i].from);
		if (strncmp(path, state.subs[i].from, n) || (path[n] && path[n] != '/'))
			continue;
		char *s;
		if (asprintf(&s, "%s%s", state.subs[i].to, path + n) < 0)
			return NULL;
		return s;
	}
	return NULL;
}

struct text {
	char *path;		/* as found */
	char *data;
	size_t size;
	size_t *starts;		/* each line's offset */
	size_t nlines;
};

static void text_free(struct text *x)
{
	free(x->path);
	free(x->data);
	free(x->starts);
	memset(x, 0, sizeof(*x));
}

/* Read the regular file PATH whole (at most 256 MiB).  */
static int read_text(const char *path, struct text *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno;
	struct stat st = { 0 };
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (256 << 20)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		close(fd);
		return e;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *data = malloc(size + 1);
	if (!data) {
		close(fd);
		return ENOMEM;
	}
	while (got < size) {
		ssize_t r = read(fd, data + got, size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	data[got] = '\0';
	size_t nlines = 0;
	for (size_t i = 0; i < got; i++)
		if (data[i] == '\n' && i + 1 < got)
			nlines++;
	nlines += got > 0;
	size_t *starts = malloc((nlines ? nlines : 1) * sizeof(*starts));
	char *p = strdup(path);
	if (!starts || !p) {
		free(starts);
		free(p);
		free(data);
		return ENOMEM;
	}
	size_t k = 0;
	if (got)
		starts[k++] = 0;
	for (size_t i = 0; i < got && k < nlines; i++)
		if (data[i] == '\n' && i + 1 < got)
			starts[k++] = i + 1;
	ret->path = p;
	ret->data = data;
	ret->size = got;
	ret->starts = starts;
	ret->nlines = nlines;
	return 0;
}

/* Open the file of S as gdb looks for it; its errno when it is nowhere
   (the first candidate's: the recorded path's).  */
static int search_source(const struct symtab *s, struct text *ret);

static int open_source(const struct symtab *s, struct text *ret)
{
	/* Keyed by the compilation directory too: "main.c" of two units
	   built in two folders are two files.  */
	const char *dir = comp_dir((Dwarf_Die *)&s->cu);
	char *key;
	if (asprintf(&key, "%s\n%s", dir ? dir : "", s->path) < 0)
		key = NULL;
	const char *known = key ? found_path(key) : NULL;
	if (known && read_text(known, ret) == 0) {
		free(key);
		return 0;
	}
	int e = search_source(s, ret);
	if (!e && key)
		remember_found(key, ret->path);
	free(key);
	return e;
}

/* Try NAME under each directory of the source path (DIRNAME for $cdir,
   NULL: none); an absolute NAME first as it is.  */
static int try_in_path(const char *name, const char *dirname, struct text *ret)
{
	if (name[0] == '/' && read_text(name, ret) == 0)
		return 0;
	char cwd[PATH_MAX];
	size_t ndirs = state.ndirs + 2;
	for (size_t i = 0; i < ndirs; i++) {
		const char *d = i < state.ndirs ? state.dirs[i] : i == state.ndirs ? "$cdir" : "$cwd";
		if (!strcmp(d, "$cdir")) {
			if (!dirname)
				continue;
			d = dirname;
		} else if (!strcmp(d, "$cwd")) {
			if (!getcwd(cwd, sizeof(cwd)))
				continue;
			d = cwd;
		}
		char *p;
		if (asprintf(&p, "%s/%s", d, name + (name[0] == '/')) < 0)
			continue;
		int e = read_text(p, ret);
		free(p);
		if (!e)
			return 0;
	}
	return ENOENT;
}

/* Look for the file of S as gdb does: the compilation directory and the
   name rewritten by the substitute-path rules; the name in each
   directory of the source path; the compilation directory joined to the
   name, literally then in each directory; the base name in each; and
   last the joined path rewritten as a whole (gdb's fallback full name,
   which it opens when a line number was asked for).  */
static int search_source(const struct symtab *s, struct text *ret)
{
	const char *dir = comp_dir((Dwarf_Die *)&s->cu);
	char *dir_re = dir ? rewrite_path(dir) : NULL;
	const char *dirname = dir_re ? dir_re : dir;
	char *name_re = rewrite_path(s->path);
	const char *name = name_re ? name_re : s->path;
	int e = try_in_path(name, dirname, ret);
	char *joined = NULL;
	if (e && dirname && name[0] != '/' && asprintf(&joined, "%s/%s", dirname, name) >= 0)
		e = try_in_path(joined, dirname, ret);
	if (e) {
		const char *base = strrchr(name, '/');
		if (base)
			e = try_in_path(base + 1, dirname, ret);
	}
	if (e && joined) {
		char *whole = rewrite_path(joined);
		if (whole)
			e = read_text(whole, ret);
		free(whole);
	}
	free(joined);
	free(name_re);
	free(dir_re);
	return e ? ENOENT : 0;
}

/* The found file's full name as gdb shows it ("Located in"): its
   directory resolved, its own name kept.  */
static char *full_name(const char *found)
{
	const char *slash = strrchr(found, '/');
	char *dir = slash ? strndup(found, (size_t)(slash - found)) : strdup(".");
	if (!dir)
		return NULL;
	char *real = realpath(*dir ? dir : "/", NULL);
	free(dir);
	char *s = NULL;
	if (real && asprintf(&s, "%s/%s", strcmp(real, "/") ? real : "",
			     slash ? slash + 1 : found) < 0)
		s = NULL;
	free(real);
	return s ? s : strdup(found);
}

/* ---- the current line ---- */

static void set_current(const struct symtab *s, int line)
{
	if (!state.have || !symtab_same(&state.cur, s)) {
		if (symtab_copy(&state.cur, s))
			return;
	}
	state.have = true;
	state.line = line;
	state.first = state.last = 0;
	state.centre = true;
}

/* Print lines [FIRST, LAST] of S (none when LAST < FIRST) as gdb does, and make them the last listed.  A missing file gives one
   "FIRST\tFILE: error" message on stderr, then "FIRST\tin FILE".  An
   error if FIRST is past the end of the file.  */
static struct sg_error *print_lines(struct shell *sh, const struct symtab *s, int first, int last,
				    struct sg_out *out)
{
	if (!state.have || !symtab_same(&state.cur, s)) {
		struct sg_error *err = symtab_copy(&state.cur, s);
		if (err)
			return err;
		state.have = true;
	}
	state.centre = false;
	struct text x = { 0 };
	int e;
	if (state.visited.path && symtab_same(&state.visited, s) && state.visited_error) {
		e = -1;		/* said before: "in FILE" */
	} else {
		e = open_source(s, &x);
		if (!state.visited.path || !symtab_same(&state.visited, s))
			symtab_copy(&state.visited, s);
		state.visited_error = e != 0;
	}
	sg_out_string(out, "file", s->name);
	if (e) {
		state.line = state.first = state.last = first;
		sg_out_null(out, "fullname");
		sg_out_int(out, "line", first);
		sg_out_array_begin(out, "lines");
		sg_out_array_end(out);
		if (e > 0) {
			sg_out_string(out, "error", strerror(e));
			if (!sg_out_json(out)) {
				fflush(stdout);
				fprintf(stderr, "%d\t%s: %s.\n", first, s->name, strerror(e));
			}
		} else {
			sg_out_printf(out, "%d\tin %s\n", first, s->name);
		}
		return NULL;
	}
	if ((size_t)first > x.nlines) {
		struct sg_error *err = sg_error_format(SG_ERROR_USAGE,
						       "Line number %d out of range; %s has %zu lines.",
						       first, s->name, x.nlines);
		text_free(&x);
		return err;
	}
	if ((size_t)last > x.nlines)
		last = (int)x.nlines;
	char *full = full_name(x.path);
	sg_out_string(out, "fullname", full);
	free(full);
	sg_out_array_begin(out, "lines");
	FILE *f = sg_out_file(out);
	for (int l = first; l <= last; l++) {
		size_t start = x.starts[l - 1];
		size_t end = (size_t)l < x.nlines ? x.starts[l] : x.size;
		size_t len = end - start;
		if (len && x.data[start + len - 1] == '\n')
			len--;
		if (f) {
			fprintf(f, "%d\t", l);
			fwrite(x.data + start, 1, len, f);
			fputc('\n', f);
		} else {
			sg_out_object_begin(out, NULL);
			sg_out_int(out, "line", l);
			sg_out_string_len(out, "text", x.data + start, len);
			sg_out_object_end(out);
		}
	}
	sg_out_array_end(out);
	text_free(&x);
	state.first = state.last = first;
	state.line = last >= first ? last + 1 : first;
	(void)sh;
	return NULL;
}

/* The frame that gdb printed when it attached: frame 0 of the first
   thread, with its source line.  */
static void attach_location(struct shell *sh, struct sg_target *t)
{
	struct sg_thread *th = sg_target_thread(t, 0);
	if (!th)
		return;
	struct sg_stack *st = NULL;
	struct sg_error *err;
	bool own = th != sg_session_thread(sh->session);
	if (own)
		err = sg_stack_unwind(sh->session, th, NULL, 1, 0, &st);
	else
		err = sg_session_stack(sh->session, &st);
	if (err) {
		sg_error_destroy(err);
		return;
	}
	struct symtab s = { 0 };
	const struct sg_frame *f = sg_stack_count(st) ? sg_stack_frame(st, 0) : NULL;
	if (f && frame_symtab(t, f, &s)) {
		set_current(&s, f->line);
		state.have_shown = !symtab_copy(&state.shown, &s);
		/* gdb looked for the file then, and said if it was missing.  */
		struct text x = { 0 };
		int e = open_source(&s, &x);
		text_free(&x);
		symtab_copy(&state.visited, &s);
		state.visited_error = e != 0;
	}
	symtab_clear(&s);
	if (own)
		sg_stack_destroy(st);
}

/* The state, for the current target: a new target starts afresh, with
   the location gdb's attach gave it.  */
static void sync_target(struct shell *sh)
{
	struct sg_target *t = sg_session_target(sh->session);
	if (t && state.target == t && sg_target_get_data(t, &target_mark_key))
		return;
	state.target = t;
	state.have = false;
	symtab_clear(&state.cur);
	state.first = state.last = state.line = 0;
	forget_visited();
	forget_found();
	symtab_clear(&state.shown);
	state.have_shown = false;
	if (!t)
		return;
	if (sg_target_set_data(t, &target_mark_key, &target_mark, NULL))
		return;
	attach_location(sh, t);
}

void shell_source_frame_line(struct shell *sh, const struct sg_frame *f, struct sg_out *out)
{
	sync_target(sh);
	struct sg_target *t = sg_session_target(sh->session);
	struct symtab s = { 0 };
	if (!t || !frame_symtab(t, f, &s))
		return;
	state.have_shown = !symtab_copy(&state.shown, &s);
	/* The line alone; the JSON of the frame has its file and line.  */
	if (sg_out_json(out)) {
		set_current(&s, f->line);
		symtab_clear(&s);
		return;
	}
	struct sg_error *err = print_lines(sh, &s, f->line, f->line, out);
	sg_error_destroy(err);
	set_current(&s, f->line);
	symtab_clear(&s);
}

/* ---- linespecs ---- */

struct linespec {
	struct symtab sym;
	int line;
	bool has_addr;		/* a function or *ADDR */
	uint64_t addr;
	bool no_line;		/* *ADDR or a function without line information */
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static struct sg_error *parse_line_number(const char *s, int *ret)
{
	errno = 0;
	long v = strtol(s, NULL, 10);
	if (errno || v > INT_MAX)
		return sg_error_format(SG_ERROR_USAGE, "Line number %s out of range.", s);
	*ret = (int)v;
	return NULL;
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
static bool inlined_function(struct sg_target *t, const char *name, uint64_t *ret)
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

/* The function NAME: where it starts, and the line there.  */
static struct sg_error *function_spec(struct sg_target *t, const char *name, bool inlined_ok,
				      struct linespec *ret)
{
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, name, &sym);
	if (!err && sym.kind != STT_FUNC && sym.kind != STT_GNU_IFUNC)
		err = &sg_not_found;
	if (err) {
		if (sg_error_code(err) != SG_ERROR_NOT_FOUND)
			return err;
		sg_error_destroy(err);
		if (!inlined_ok || !inlined_function(t, name, &sym.address))
			return sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined.", name);
	}
	ret->has_addr = true;
	ret->addr = sym.address;
	struct code_loc loc = { 0 };
	err = loc_at(t, sym.address, &loc);
	if (err) {
		if (sg_error_code(err) != SG_ERROR_NOT_FOUND)
			return err;
		sg_error_destroy(err);
		ret->no_line = true;
		return NULL;
	}
	symtab_clear(&ret->sym);
	ret->sym = loc.sym;
	ret->line = loc.line;
	return NULL;
}

static void default_to_main(struct shell *sh);

/* Where SPEC points: N, FUNCTION, FILE:N, FILE:FUNCTION or *ADDRESS; N
   in the current file.  */
static struct sg_error *resolve_spec(struct shell *sh, const char *spec, bool shown,
				     struct linespec *ret)
{
	struct sg_target *t = sg_session_target(sh->session);
	memset(ret, 0, sizeof(*ret));
	if (!strcmp(spec, "*"))
		return sg_error_create(SG_ERROR_USAGE, "Argument required (expression to compute).");
	if (spec[0] == ':')
		return sg_error_create(SG_ERROR_USAGE, "malformed linespec error: unexpected colon");
	/* One linespec: a word after it is gdb's parse error (not in an
	   expression or a parameter list).  */
	size_t word = strcspn(spec, " \t");
	if (spec[0] != '*' && spec[word] && !strchr(spec, '(') && strncmp(spec, "operator", 8)) {
		const char *next = spec + word;
		while (isspace((unsigned char)*next))
			next++;
		int n = (int)strcspn(next, " \t");
		char tok[64];
		snprintf(tok, sizeof(tok), "%.*s", n, next);
		return sg_error_format(SG_ERROR_USAGE, "malformed linespec error: unexpected %s, \"%s\"",
				       all_digits(tok) ? "number" : "string", tok);
	}
	if (spec[0] == '*') {
		uint64_t addr;
		struct sg_error *err = sg_eval_address(sh->session, spec + 1, &addr);
		if (err)
			return err;
		ret->has_addr = true;
		ret->addr = addr;
		struct code_loc loc = { 0 };
		err = loc_at(t, addr, &loc);
		if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
			sg_error_destroy(err);
			ret->no_line = true;
			return NULL;
		}
		if (err)
			return err;
		ret->sym = loc.sym;
		ret->line = loc.line;
		return NULL;
	}
	if (all_digits(spec)) {
		default_to_main(sh);
		/* In the current file; for info line, in the last frame's.  */
		const struct symtab *in = shown && state.have_shown ? &state.shown : &state.cur;
		if (!state.have && !(shown && state.have_shown))
			return sg_error_create(SG_ERROR_LOOKUP, "No symbol table is loaded.  Use the \"file\" command.");
		struct sg_error *err = symtab_copy(&ret->sym, in);
		if (!err)
			err = parse_line_number(spec, &ret->line);
		return err;
	}
	/* FILE:REST, not a C++ "ns::f".  */
	const char *colon = NULL;
	for (const char *p = spec; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			p++;
			continue;
		}
		if (*p == ':')
			colon = p;
	}
	if (!colon)
		return function_spec(t, spec, true, ret);
	if (!colon[1])
		return sg_error_create(SG_ERROR_USAGE, "malformed linespec error: unexpected end of input");
	char *file = strndup(spec, (size_t)(colon - spec));
	if (!file)
		return &sg_enomem;
	const char *rest = colon + 1;
	struct sg_error *err = find_file(t, file, &ret->sym);
	if (!err && all_digits(rest)) {
		err = parse_line_number(rest, &ret->line);
	} else if (!err) {
		struct linespec fn = { 0 };
		/* gdb's FILE:FUNCTION takes no function that is only
		   inlined.  */
		err = function_spec(t, rest, false, &fn);
		if (err && sg_error_code(err) == SG_ERROR_LOOKUP) {
			sg_error_destroy(err);
			err = NULL;
			fn.no_line = true;
		}
		if (!err && (fn.no_line || !file_matches(file, fn.sym.name, fn.sym.path)))
			err = sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined in \"%s\".",
					      rest, file);
		if (!err) {
			symtab_clear(&ret->sym);
			*ret = fn;
		} else {
			symtab_clear(&fn.sym);
		}
	}
	free(file);
	return err;
}

static void spec_clear(struct linespec *l)
{
	symtab_clear(&l->sym);
}

/* Without a current line (frame 0 has no line information: a library
   without DWARF), list starts near main, as gdb: its line after the
   prologue (the line of the row that ends the entry's row), less the
   list size minus one.  */
static unsigned listsize(void);

static void default_to_main(struct shell *sh)
{
	if (state.have)
		return;
	struct sg_target *t = sg_session_target(sh->session);
	struct sg_symbol sym;
	struct sg_error *err = t ? sg_lookup_symbol(t, "main", &sym) : &sg_not_found;
	if (err) {
		sg_error_destroy(err);
		return;
	}
	struct code_loc entry = { 0 }, body = { 0 };
	if (!loc_at(t, sym.address, &entry)) {
		bool after = entry.end > entry.start && !loc_at(t, entry.end, &body) &&
			     symtab_same(&body.sym, &entry.sym);
		int line = after ? body.line : entry.line;
		long first = (long)line - (long)listsize() + 1;
		set_current(&entry.sym, first < 1 ? 1 : (int)first);
	}
	symtab_clear(&entry.sym);
	symtab_clear(&body.sym);
}

/* ---- list ---- */

static unsigned listsize(void)
{
	return state.listsize ? state.listsize : INT_MAX / 2;
}

/* Lines around LINE, as gdb centres them.  */
static int centred_first(int line)
{
	long first = (long)line - (long)(listsize() / 2);
	return first < 1 ? 1 : (int)first;
}

static int last_of(int first)
{
	long last = (long)first + listsize() - 1;
	return last > INT_MAX ? INT_MAX : (int)last;
}

static struct sg_error *list_default(struct shell *sh, bool back, struct sg_out *out)
{
	if (!state.have)
		return sg_error_create(SG_ERROR_LOOKUP, "No symbol table is loaded.  Use the \"file\" command.");
	struct symtab s = { 0 };
	struct sg_error *err = symtab_copy(&s, &state.cur);
	if (err)
		return err;
	if (state.centre) {
		int first = centred_first(state.line);
		err = print_lines(sh, &s, first, last_of(first), out);
	} else if (back) {
		if (state.first == 1)
			err = sg_error_format(SG_ERROR_USAGE, "Already at the start of %s.", s.name);
		else {
			long first = (long)state.first - (long)listsize();
			if (first < 1)
				first = 1;
			err = print_lines(sh, &s, (int)first, state.first - 1, out);
		}
	} else {
		err = print_lines(sh, &s, state.line, last_of(state.line), out);
	}
	symtab_clear(&s);
	return err;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static struct sg_error *spec_for_list(struct shell *sh, const char *text, struct linespec *ret)
{
	struct sg_error *err = resolve_spec(sh, text, false, ret);
	if (!err && ret->no_line) {
		/* A function without line information: gdb lists nothing,
		   and says nothing.  */
		spec_clear(ret);
		err = &sg_stop;
	}
	return err;
}

/* "0x... is in f (file.c:12)." before the lines of "list *ADDR".  */
static void say_where(struct shell *sh, uint64_t addr, const struct linespec *l, struct sg_out *out)
{
	/* The function as gdb names it after an address (the DWARF name,
	   not an alias of the symbol table): " <name+off>" without the
	   rest.  */
	char sym[1024];
	sg_symbol_suffix(sg_session_target(sh->session), addr, sym, sizeof(sym));
	size_t n = strlen(sym);
	if (n > 3 && !strncmp(sym, " <", 2) && sym[n - 1] == '>') {
		sym[n - 1] = '\0';
		char *plus = strrchr(sym, '+');
		if (plus && plus[1] && strspn(plus + 1, "0123456789") == strlen(plus + 1))
			*plus = '\0';
		sg_out_printf(out, "0x%" PRIx64 " is in %s (%s:%d).\n", addr, sym + 2, l->sym.name,
			      l->line);
	} else {
		sg_out_printf(out, "0x%" PRIx64 " is at %s:%d.\n", addr, l->sym.name, l->line);
	}
	sg_out_hex(out, "address", addr);
}

static struct sg_error *cmd_list(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	if (!*args || !strcmp(args, "+") || !strcmp(args, "-")) {
		default_to_main(sh);
		return list_default(sh, args[0] == '-', out);
	}
	char *copy = strdup(args);
	if (!copy)
		return &sg_enomem;
	struct sg_error *err = NULL;
	char *comma = strchr(copy, ',');
	struct linespec a = { 0 }, b = { 0 };
	if (!comma) {
		err = spec_for_list(sh, trim(copy), &a);
		if (!err && a.has_addr && trim(copy)[0] == '*')
			say_where(sh, a.addr, &a, out);
		if (!err) {
			int first = centred_first(a.line);
			err = print_lines(sh, &a.sym, first, last_of(first), out);
		}
	} else {
		*comma = '\0';
		char *left = trim(copy), *right = trim(comma + 1);
		if (!*left && !*right) {
			err = sg_error_create(SG_ERROR_USAGE, "Two empty args do not say what lines to list.");
		} else if (!*left) {
			err = spec_for_list(sh, right, &b);
			if (!err) {
				long first = (long)b.line - (long)listsize() + 1;
				err = print_lines(sh, &b.sym, first < 1 ? 1 : (int)first, b.line, out);
			}
		} else {
			err = spec_for_list(sh, left, &a);
			if (!err && *right) {
				/* A bare number after the comma is in the first one's
				   file.  */
				if (all_digits(right)) {
					err = symtab_copy(&b.sym, &a.sym);
					if (!err)
						err = parse_line_number(right, &b.line);
				} else {
					err = spec_for_list(sh, right, &b);
				}
				if (!err && !symtab_same(&a.sym, &b.sym))
					err = sg_error_create(SG_ERROR_USAGE,
							      "Specified first and last lines are in different files.");
				/* FIRST above LAST lists nothing, but says a missing
				   file is missing, as gdb.  */
				if (!err)
					err = print_lines(sh, &a.sym, a.line,
							  b.line >= a.line ? b.line : a.line - 1, out);
			} else if (!err) {
				err = print_lines(sh, &a.sym, a.line, last_of(a.line), out);
			}
		}
	}
	spec_clear(&a);
	spec_clear(&b);
	free(copy);
	return err == &sg_stop ? NULL : err;
}

/* ---- info source ---- */

static const char *language_name(Dwarf_Die *cu)
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

static struct sg_error *cmd_info_source(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	if (!state.have) {
		sg_out_printf(out, "No current source file.\n");
		sg_out_null(out, "file");
		return NULL;
	}
	struct symtab *cur = &state.cur;
	Dwarf_Die *cu = &cur->cu;
	const char *dir = comp_dir(cu);
	sg_out_printf(out, "Current source file is %s\n", cur->name);
	sg_out_string(out, "file", cur->name);
	if (dir)
		sg_out_printf(out, "Compilation directory is %s\n", dir);
	sg_out_string(out, "compilation_directory", dir);
	struct text x = { 0 };
	if (open_source(cur, &x) == 0) {
		char *full = full_name(x.path);
		sg_out_printf(out, "Located in %s\n", full ? full : x.path);
		sg_out_string(out, "fullname", full ? full : x.path);
		free(full);
		sg_out_printf(out, "Contains %zu line%s.\n", x.nlines, x.nlines == 1 ? "" : "s");
		sg_out_uint(out, "lines", x.nlines);
	} else {
		sg_out_null(out, "fullname");
		sg_out_null(out, "lines");
	}
	text_free(&x);
	const char *lang = language_name(cu);
	sg_out_printf(out, "Source language is %s.\n", lang);
	sg_out_string(out, "language", lang);
	Dwarf_Attribute attr;
	const char *producer = dwarf_attr(cu, DW_AT_producer, &attr) ? dwarf_formstring(&attr) : NULL;
	if (producer)
		sg_out_printf(out, "Producer is %s.\n", producer);
	sg_out_string(out, "producer", producer);
	Dwarf_Half version = 0;
	if (dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) == 0 && version) {
		sg_out_printf(out, "Compiled with DWARF %u debugging format.\n", version);
		sg_out_uint(out, "dwarf_version", version);
	}
	bool macros = dwarf_hasattr(cu, DW_AT_macros) || dwarf_hasattr(cu, DW_AT_GNU_macros) ||
		      dwarf_hasattr(cu, DW_AT_macro_info);
	sg_out_printf(out, "%s preprocessor macro info.\n", macros ? "Includes" : "Does not include");
	sg_out_bool(out, "macro_info", macros);
	return NULL;
}

/* ---- info line ---- */

/* The first row of line LINE of S (lowest address), or of the next line
   that has code; *EXACT says which.  */
static bool line_rows(const struct symtab *s, int line, uint64_t *start, uint64_t *end,
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

static void print_line_range(struct shell *sh, const struct symtab *s, int line, uint64_t start,
			     uint64_t end, bool no_code, struct sg_out *out)
{
	struct sg_target *t = sg_session_target(sh->session);
	char ssym[1024], esym[1024];
	sg_symbol_suffix(t, start, ssym, sizeof(ssym));
	sg_symbol_suffix(t, end, esym, sizeof(esym));
	if (no_code)
		sg_out_printf(out, "Line %d of \"%s\" is at address 0x%" PRIx64 "%s but contains no code.\n",
			      line, s->name, start, ssym);
	else
		sg_out_printf(out, "Line %d of \"%s\" starts at address 0x%" PRIx64 "%s and ends at 0x%" PRIx64 "%s.\n",
			      line, s->name, start, ssym, end, esym);
	sg_out_string(out, "file", s->name);
	sg_out_int(out, "line", line);
	sg_out_hex(out, "start", start);
	if (no_code)
		sg_out_null(out, "end");
	else
		sg_out_hex(out, "end", end);
	sg_out_bool(out, "has_code", !no_code);
	/* As gdb: x/i then starts there.  */
	sh->x_next = start;
	sh->x_next_valid = true;
}

static struct sg_error *info_line_of(struct shell *sh, const struct symtab *s, int line,
				     struct sg_out *out)
{
	uint64_t start, end;
	int found;
	if (line <= 0 || !line_rows(s, line, &start, &end, &found)) {
		/* Said, not an error, in gdb.  */
		sg_out_printf(out, "Line number %d is out of range for \"%s\".\n", line, s->name);
		sg_out_string(out, "file", s->name);
		sg_out_int(out, "line", line);
		sg_out_null(out, "start");
		return NULL;
	}
	print_line_range(sh, s, line, start, end, found != line, out);
	return NULL;
}

static struct sg_error *cmd_info_line(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	if (!*args) {
		if (!state.have) {
			sg_out_printf(out, "No line number information available.\n");
			sg_out_null(out, "line");
			return NULL;
		}
		/* gdb's default: the first line the last list showed, or the
		   current line.  */
		return info_line_of(sh, &state.cur, state.last ? state.last : state.line, out);
	}
	struct linespec l;
	struct sg_error *err = resolve_spec(sh, args, true, &l);
	if (err)
		return err;
	if (l.no_line) {
		char sym[1024];
		sg_symbol_suffix(sg_session_target(s), l.addr, sym, sizeof(sym));
		if (l.addr)
			sg_out_printf(out, "No line number information available for address 0x%" PRIx64 "%s\n",
				      l.addr, sym);
		else
			sg_out_printf(out, "No line number information available.\n");
		sg_out_hex(out, "address", l.addr);
		sg_out_null(out, "line");
	} else if (l.has_addr) {
		/* The row of the address itself.  */
		struct code_loc loc = { 0 };
		err = loc_at(sg_session_target(s), l.addr, &loc);
		if (!err) {
			print_line_range(sh, &loc.sym, loc.line, loc.start, loc.end, loc.start == loc.end, out);
			if (args[0] == '*' && loc.start != l.addr)
				sg_out_hex(out, "address", l.addr);
		}
		symtab_clear(&loc.sym);
	} else {
		err = info_line_of(sh, &l.sym, l.line, out);
	}
	spec_clear(&l);
	return err;
}

/* ---- directory ---- */

static void show_dirs(struct sg_out *out)
{
	sg_out_printf(out, "Source directories searched: ");
	sg_out_array_begin(out, "directories");
	for (size_t i = 0; i < state.ndirs; i++) {
		sg_out_printf(out, "%s:", state.dirs[i]);
		sg_out_string(out, NULL, state.dirs[i]);
	}
	sg_out_printf(out, "$cdir:$cwd\n");
	sg_out_string(out, NULL, "$cdir");
	sg_out_string(out, NULL, "$cwd");
	sg_out_array_end(out);
}

static void clear_dirs(void)
{
	for (size_t i = 0; i < state.ndirs; i++)
		free(state.dirs[i]);
	free(state.dirs);
	state.dirs = NULL;
	state.ndirs = 0;
}

/* Put DIR first (once), made absolute.  */
static struct sg_error *add_dir(const char *dir)
{
	char *abs = NULL;
	if (!strcmp(dir, "$cdir") || !strcmp(dir, "$cwd"))
		return NULL;	/* always there, last */
	if (dir[0] == '~' && (dir[1] == '/' || !dir[1]) && getenv("HOME")) {
		if (asprintf(&abs, "%s%s", getenv("HOME"), dir + 1) < 0)
			return &sg_enomem;
	} else if (dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return sg_error_os(errno, "cannot get the working directory");
		if (asprintf(&abs, "%s/%s", cwd, dir) < 0)
			return &sg_enomem;
	} else {
		abs = strdup(dir);
		if (!abs)
			return &sg_enomem;
	}
	size_t n = strlen(abs);
	while (n > 1 && abs[n - 1] == '/')
		abs[--n] = '\0';
	struct stat st;
	if (stat(abs, &st) != 0) {
		fflush(stdout);
		fprintf(stderr, "Warning: %s: %s.\n", abs, strerror(errno));
	}
	for (size_t i = 0; i < state.ndirs; i++) {
		if (!strcmp(state.dirs[i], abs)) {
			free(state.dirs[i]);
			memmove(state.dirs + i, state.dirs + i + 1, (state.ndirs - i - 1) * sizeof(char *));
			state.ndirs--;
			break;
		}
	}
	char **d = realloc(state.dirs, (state.ndirs + 1) * sizeof(*d));
	if (!d) {
		free(abs);
		return &sg_enomem;
	}
	memmove(d + 1, d, state.ndirs * sizeof(*d));
	d[0] = abs;
	state.dirs = d;
	state.ndirs++;
	return NULL;
}

static struct sg_error *cmd_directory(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	forget_visited();
	forget_found();
	if (!*args) {
		clear_dirs();
	} else {
		/* Several at once, separated by blanks or ':', keep their order
		   at the front.  */
		char *copy = strdup(args), *save = NULL;
		if (!copy)
			return &sg_enomem;
		char **words = NULL;
		size_t n = 0;
		for (char *w = strtok_r(copy, " \t:", &save); w; w = strtok_r(NULL, " \t:", &save)) {
			char **nw = realloc(words, (n + 1) * sizeof(*nw));
			if (!nw) {
				free(words);
				free(copy);
				return &sg_enomem;
			}
			words = nw;
			words[n++] = w;
		}
		struct sg_error *err = NULL;
		for (size_t i = n; i-- > 0 && !err;)
			err = add_dir(words[i]);
		free(words);
		free(copy);
		if (err)
			return err;
	}
	/* gdb shows the path to a user at the prompt, not to -batch.  */
	if (!sh->batch || sg_out_json(out))
		show_dirs(out);
	return NULL;
}

static struct sg_error *cmd_show_directories(struct sg_session *s, const char *args,
					     struct sg_out *out, void *arg)
{
	show_dirs(out);
	return NULL;
}

/* ---- substitute-path ---- */

static struct sg_error *split_args(const char *args, char ***ret, size_t *n)
{
	char *copy = strdup(args), *save = NULL;
	if (!copy)
		return &sg_enomem;
	char **w = NULL;
	*n = 0;
	for (char *p = strtok_r(copy, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		char **nw = realloc(w, (*n + 2) * sizeof(*nw));
		char *d = strdup(p);
		if (!nw || !d) {
			free(d);
			free(nw ? nw : w);
			free(copy);
			return &sg_enomem;
		}
		w = nw;
		w[(*n)++] = d;
	}
	free(copy);
	*ret = w;
	return NULL;
}

static void free_args(char **w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

/* gdb compares a rule's FROM with trailing '/' ignored.  */
static bool same_from(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

static void delete_rule(size_t i)
{
	free(state.subs[i].from);
	free(state.subs[i].to);
	memmove(state.subs + i, state.subs + i + 1, (state.nsubs - i - 1) * sizeof(*state.subs));
	state.nsubs--;
}

static struct sg_error *cmd_set_substitute_path(struct sg_session *s, const char *args,
						struct sg_out *out, void *arg)
{
	/* What the attach found stays found, or not, until now.  */
	sync_target(arg);
	char **w;
	size_t n;
	struct sg_error *err = split_args(args, &w, &n);
	if (err)
		return err;
	if (n != 2) {
		free_args(w, n);
		return sg_error_format(SG_ERROR_USAGE, "Incorrect usage, too %s arguments in command",
				       n < 2 ? "few" : "many");
	}
	if (!*w[0]) {
		free_args(w, n);
		return sg_error_create(SG_ERROR_USAGE, "First argument must be at least one character long");
	}
	/* gdb keeps FROM and TO without their trailing '/'.  */
	for (int k = 0; k < 2; k++) {
		size_t len = strlen(w[k]);
		while (len > 1 && w[k][len - 1] == '/')
			w[k][--len] = '\0';
	}
	/* A rule for the same FROM is replaced, and goes last.  */
	for (size_t i = 0; i < state.nsubs; i++)
		if (same_from(state.subs[i].from, w[0])) {
			delete_rule(i);
			break;
		}
	struct subst *ns = realloc(state.subs, (state.nsubs + 1) * sizeof(*ns));
	if (!ns) {
		free_args(w, n);
		return &sg_enomem;
	}
	state.subs = ns;
	state.subs[state.nsubs].from = w[0];
	state.subs[state.nsubs].to = w[1];
	state.nsubs++;
	free(w);
	forget_visited();
	forget_found();
	return NULL;
}

static struct sg_error *cmd_show_substitute_path(struct sg_session *s, const char *args,
						 struct sg_out *out, void *arg)
{
	if (*args)
		sg_out_printf(out, "Source path substitution rule matching `%s':\n", args);
	else
		sg_out_printf(out, "List of all source path substitution rules:\n");
	sg_out_array_begin(out, "rules");
	for (size_t i = 0; i < state.nsubs; i++) {
		const char *from = state.subs[i].from;
		size_t fl = strlen(from);
		if (*args && (strncmp(args, from, fl) || (args[fl] && args[fl] != '/')))
			continue;
		sg_out_printf(out, "  `%s' -> `%s'.\n", from, state.subs[i].to);
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "from", from);
		sg_out_string(out, "to", state.subs[i].to);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	return NULL;
}

static struct sg_error *cmd_unset_substitute_path(struct sg_session *s, const char *args,
						  struct sg_out *out, void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	char **w;
	size_t n;
	struct sg_error *err = split_args(args, &w, &n);
	if (err)
		return err;
	if (n > 1) {
		free_args(w, n);
		return sg_error_create(SG_ERROR_USAGE, "Incorrect usage, too many arguments in command");
	}
	if (n == 0) {
		forget_visited();
		forget_found();
		/* gdb asks; without a terminal it says so and goes on.  */
		if (!sh->interactive)
			sg_out_printf(out, "Delete all source path substitution rules? (y or n) "
					   "[answered Y; input not from terminal]\n");
		while (state.nsubs)
			delete_rule(state.nsubs - 1);
		free_args(w, n);
		return NULL;
	}
	bool found = false;
	for (size_t i = 0; i < state.nsubs;) {
		if (same_from(state.subs[i].from, w[0])) {
			delete_rule(i);
			found = true;
		} else {
			i++;
		}
	}
	if (!found) {
		err = sg_error_format(SG_ERROR_USAGE, "No substitution rule defined for `%s'", w[0]);
	} else {
		forget_visited();
		forget_found();
	}
	free_args(w, n);
	return err;
}

/* ---- listsize ---- */

static struct sg_error *cmd_set_listsize(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE,
				       "Argument required (integer to set it to, or \"unlimited\").");
	if (!strcmp(args, "unlimited")) {
		state.listsize = 0;
		return NULL;
	}
	char *end;
	errno = 0;
	long v = strtol(args, &end, 0);
	while (isspace((unsigned char)*end))
		end++;
	if (end == args || *end) {
		if (isalpha((unsigned char)args[0]) || args[0] == '_')
			return sg_error_format(SG_ERROR_LOOKUP, "No symbol \"%.*s\" in current context.",
					       (int)strcspn(args, " \t"), args);
		return sg_error_format(SG_ERROR_USAGE, "Invalid number \"%s\".", args);
	}
	if (errno || v > INT_MAX || v < -1)
		return sg_error_format(SG_ERROR_USAGE, "integer %ld out of range", v);
	/* 0 and -1 mean unlimited, as in gdb.  */
	state.listsize = v <= 0 ? 0 : (unsigned)v;
	return NULL;
}

static struct sg_error *cmd_show_listsize(struct sg_session *s, const char *args,
					  struct sg_out *out, void *arg)
{
	if (state.listsize)
		sg_out_printf(out, "Number of source lines gdb will list by default is %u.\n",
			      state.listsize);
	else
		sg_out_printf(out, "Number of source lines gdb will list by default is unlimited.\n");
	if (state.listsize)
		sg_out_uint(out, "listsize", state.listsize);
	else
		sg_out_string(out, "listsize", "unlimited");
	return NULL;
}

static const struct sg_command source_cmds[] = {
	{ .name = "list", .aliases = "l", .synopsis = "list [LINESPEC | FIRST,LAST | ,LAST | - | +]",
	  .summary = "List source lines",
	  .details = "Without an argument: the lines around the selected frame's line the first\n"
		     "time after a frame is shown, then the next lines; \"list -\" the lines before\n"
		     "the last ones listed.  LINESPEC is N (a line of the current file), FUNCTION,\n"
		     "FILE:N, FILE:FUNCTION or *ADDRESS: the lines around it.  FIRST,LAST lists\n"
		     "from FIRST to LAST, \",LAST\" the lines that end at LAST, \"FIRST,\" those\n"
		     "that start at FIRST.  \"set listsize\" says how many (10).  The file is the\n"
		     "one the line table names, looked for as gdb does: see \"directory\" and\n"
		     "\"set substitute-path\".",
	  .handler = cmd_list, .complete = sg_complete_symbol, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info source", .synopsis = "info source",
	  .summary = "Describe the current source file",
	  .details = "Its name, compilation directory, where it was found and its lines, its\n"
		     "language, producer and DWARF version: the file of the last list, or of the\n"
		     "last frame shown.",
	  .handler = cmd_info_source },
	{ .name = "info line", .synopsis = "info line [LINESPEC]",
	  .summary = "Show the addresses of a source line's code",
	  .details = "LINESPEC is N, FUNCTION, FILE:N, FILE:FUNCTION or *ADDRESS; without one, the\n"
		     "line list showed last, or the current line.  x then starts at the line's\n"
		     "first address.",
	  .handler = cmd_info_line, .complete = sg_complete_symbol, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "directory", .aliases = "dir", .synopsis = "directory [DIR...]",
	  .summary = "Look for source files in DIR first",
	  .details = "DIRs (separated by blanks or ':') go to the front of the source path, which\n"
		     "always ends with $cdir (a unit's compilation directory) and $cwd.  Each\n"
		     "is searched for a file's recorded name, then for its base name.  Without\n"
		     "an argument, the path is reset to $cdir:$cwd.",
	  .handler = cmd_directory },
	{ .name = "show directories", .synopsis = "show directories",
	  .summary = "Show the source path",
	  .details = "The directories \"directory\" added, then $cdir (a unit's compilation\n"
		     "directory) and $cwd, in the order they are searched.",
	  .handler = cmd_show_directories,
	  .flags = SG_CMD_NO_STACKS },
	{ .name = "set substitute-path", .synopsis = "set substitute-path FROM TO",
	  .summary = "Look for source files under TO where their path starts with FROM",
	  .details = "FROM matches whole leading components of a file's recorded path (its\n"
		     "compilation directory joined); the first matching rule applies.  A new rule\n"
		     "for the same FROM replaces the old one.",
	  .handler = cmd_set_substitute_path },
	{ .name = "show substitute-path", .synopsis = "show substitute-path [PATH]",
	  .summary = "Show the path substitution rules (those matching PATH)",
	  .details = "Each rule as `FROM' -> `TO', in the order they were set; with PATH, the\n"
		     "rules whose FROM is a whole leading part of PATH.",
	  .handler = cmd_show_substitute_path, .flags = SG_CMD_NO_STACKS },
	{ .name = "unset", .synopsis = "unset SUBCOMMAND", .summary = "Undo a setting",
	  .details = "unset substitute-path [FROM] is the one there is." },
	{ .name = "unset substitute-path", .synopsis = "unset substitute-path [FROM]",
	  .summary = "Delete the substitution rule of FROM, or all of them",
	  .details = "Files already found are looked for again.",
	  .handler = cmd_unset_substitute_path },
	{ .name = "set listsize", .synopsis = "set listsize N|unlimited",
	  .summary = "Set how many lines list shows",
	  .details = "0 and unlimited list the whole file.",
	  .handler = cmd_set_listsize, .flags = SG_CMD_NO_STACKS },
	{ .name = "show listsize", .synopsis = "show listsize",
	  .summary = "Show how many lines list shows",
	  .details = "\"set listsize\" changes it; 10 at the start.",
	  .handler = cmd_show_listsize,
	  .flags = SG_CMD_NO_STACKS },
};

struct sg_error *shell_register_source_commands(struct shell *sh)
{
	return shell_register_table(sh, source_cmds, sizeof(source_cmds) / sizeof(source_cmds[0]));
}
