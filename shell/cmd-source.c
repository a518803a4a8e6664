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
#include "complete.h"
#include "shell.h"
#include "src-symtab.h"
#include "scope-info.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	sg_symtab_clear(&state.visited);
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
	const char *dir = sg_symtab_comp_dir(s);
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
	const char *dir = sg_symtab_comp_dir(s);
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
	if (!state.have || !sg_symtab_same(&state.cur, s)) {
		if (sg_symtab_copy(&state.cur, s))
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
	if (!state.have || !sg_symtab_same(&state.cur, s)) {
		struct sg_error *err = sg_symtab_copy(&state.cur, s);
		if (err)
			return err;
		state.have = true;
	}
	state.centre = false;
	struct text x = { 0 };
	int e;
	if (state.visited.path && sg_symtab_same(&state.visited, s) && state.visited_error) {
		e = -1;		/* said before: "in FILE" */
	} else {
		e = open_source(s, &x);
		if (!state.visited.path || !sg_symtab_same(&state.visited, s))
			sg_symtab_copy(&state.visited, s);
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
	if (f && sg_frame_symtab(t, f, &s)) {
		set_current(&s, f->line);
		state.have_shown = !sg_symtab_copy(&state.shown, &s);
		/* gdb looked for the file then, and said if it was missing.  */
		struct text x = { 0 };
		int e = open_source(&s, &x);
		text_free(&x);
		sg_symtab_copy(&state.visited, &s);
		state.visited_error = e != 0;
	}
	sg_symtab_clear(&s);
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
	sg_symtab_clear(&state.cur);
	state.first = state.last = state.line = 0;
	forget_visited();
	forget_found();
	sg_symtab_clear(&state.shown);
	state.have_shown = false;
	if (!t)
		return;
	if (sg_target_set_data(t, &target_mark_key, &target_mark, NULL))
		return;
	attach_location(sh, t);
}

void shell_source_sync(struct shell *sh)
{
	sync_target(sh);
}

void shell_source_frame_line(struct shell *sh, const struct sg_frame *f, struct sg_out *out)
{
	sync_target(sh);
	struct sg_target *t = sg_session_target(sh->session);
	struct symtab s = { 0 };
	if (!t || !sg_frame_symtab(t, f, &s))
		return;
	state.have_shown = !sg_symtab_copy(&state.shown, &s);
	/* The line alone; the JSON of the frame has its file and line.  */
	if (sg_out_json(out)) {
		set_current(&s, f->line);
		sg_symtab_clear(&s);
		return;
	}
	struct sg_error *err = print_lines(sh, &s, f->line, f->line, out);
	sg_error_destroy(err);
	set_current(&s, f->line);
	sg_symtab_clear(&s);
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
		if (!inlined_ok || !sg_inlined_function(t, name, &sym.address))
			return sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined.", name);
	}
	ret->has_addr = true;
	ret->addr = sym.address;
	struct code_loc loc = { 0 };
	err = sg_code_loc_at(t, sym.address, &loc);
	if (err) {
		if (sg_error_code(err) != SG_ERROR_NOT_FOUND)
			return err;
		sg_error_destroy(err);
		ret->no_line = true;
		return NULL;
	}
	sg_symtab_clear(&ret->sym);
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
		err = sg_code_loc_at(t, addr, &loc);
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
		struct sg_error *err = sg_symtab_copy(&ret->sym, in);
		if (!err)
			err = parse_line_number(spec, &ret->line);
		if (err)
			sg_symtab_clear(&ret->sym);
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
	struct sg_error *err = sg_find_source_file(t, file, &ret->sym);
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
		if (!err && (fn.no_line || !sg_source_file_matches(file, fn.sym.name, fn.sym.path)))
			err = sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined in \"%s\".",
					      rest, file);
		if (!err) {
			sg_symtab_clear(&ret->sym);
			*ret = fn;
		} else {
			sg_symtab_clear(&fn.sym);
		}
	}
	free(file);
	/* On an error the caller has nothing to free.  */
	if (err)
		sg_symtab_clear(&ret->sym);
	return err;
}

static void spec_clear(struct linespec *l)
{
	sg_symtab_clear(&l->sym);
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
	if (!sg_code_loc_at(t, sym.address, &entry)) {
		bool after = entry.end > entry.start && !sg_code_loc_at(t, entry.end, &body) &&
			     sg_symtab_same(&body.sym, &entry.sym);
		int line = after ? body.line : entry.line;
		long first = (long)line - (long)listsize() + 1;
		set_current(&entry.sym, first < 1 ? 1 : (int)first);
	}
	sg_symtab_clear(&entry.sym);
	sg_symtab_clear(&body.sym);
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
	struct sg_error *err = sg_symtab_copy(&s, &state.cur);
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
	sg_symtab_clear(&s);
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
					err = sg_symtab_copy(&b.sym, &a.sym);
					if (!err)
						err = parse_line_number(right, &b.line);
				} else {
					err = spec_for_list(sh, right, &b);
				}
				if (!err && !sg_symtab_same(&a.sym, &b.sym))
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
	struct src_unit_info unit;
	sg_symtab_unit_info(cur, &unit);
	const char *dir = unit.comp_dir;
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
	sg_out_printf(out, "Source language is %s.\n", unit.language);
	sg_out_string(out, "language", unit.language);
	if (unit.producer)
		sg_out_printf(out, "Producer is %s.\n", unit.producer);
	sg_out_string(out, "producer", unit.producer);
	if (unit.dwarf_version) {
		sg_out_printf(out, "Compiled with DWARF %u debugging format.\n", unit.dwarf_version);
		sg_out_uint(out, "dwarf_version", unit.dwarf_version);
	}
	sg_out_printf(out, "%s preprocessor macro info.\n",
		      unit.macros ? "Includes" : "Does not include");
	sg_out_bool(out, "macro_info", unit.macros);
	return NULL;
}

/* ---- info line ---- */

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
	if (line <= 0 || !sg_symtab_line_rows(s, line, &start, &end, &found)) {
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
		err = sg_code_loc_at(sg_session_target(s), l.addr, &loc);
		if (!err) {
			print_line_range(sh, &loc.sym, loc.line, loc.start, loc.end, loc.start == loc.end, out);
			if (args[0] == '*' && loc.start != l.addr)
				sg_out_hex(out, "address", l.addr);
		}
		sg_symtab_clear(&loc.sym);
	} else {
		err = info_line_of(sh, &l.sym, l.line, out);
	}
	spec_clear(&l);
	return err;
}

/* ---- info scope ---- */

/* The linespec in ARGS, a new string: a ",", and gdb's keywords "if",
   "thread", "task" and "-force-condition", end it.  */
static char *scope_spec(const char *args)
{
	/* A comma inside a C++ parameter list or template is the name's.  */
	size_t n = 0;
	for (int depth = 0; args[n] && (depth || args[n] != ','); n++)
		depth += args[n] == '(' || args[n] == '<' ? 1 : args[n] == ')' || args[n] == '>' ? -1 : 0;
	static const char *const words[] = { "if", "thread", "task", "-force-condition" };
	for (const char *p = args; p < args + n; p++) {
		if (p != args && !isspace((unsigned char)p[-1]))
			continue;
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			size_t w = strlen(words[i]);
			if (!strncmp(p, words[i], w) && (!p[w] || isspace((unsigned char)p[w])) &&
			    p != args) {
				n = (size_t)(p - args);
				goto cut;
			}
		}
	}
cut:
	while (n && isspace((unsigned char)args[n - 1]))
		n--;
	return strndup(args, n);
}

static struct sg_error *scope_pc(struct shell *sh, const char *spec, uint64_t *ret);

/* gdb's explicit locations, "-source FILE -line N", "-function F",
   "-line N": as the linespec they stand for.  */
static struct sg_error *scope_explicit(struct shell *sh, const char *spec, uint64_t *ret)
{
	char *copy = strdup(spec), *save = NULL;
	if (!copy)
		return &sg_enomem;
	const char *source = NULL, *function = NULL, *line = NULL;
	struct sg_error *err = NULL;
	for (char *w = strtok_r(copy, " \t", &save); w && !err; w = strtok_r(NULL, " \t", &save)) {
		const char **slot = !strcmp(w, "-source") ? &source : !strcmp(w, "-function") ? &function
				    : !strcmp(w, "-line") ? &line : NULL;
		char *arg = slot ? strtok_r(NULL, " \t", &save) : NULL;
		if (!slot)
			err = sg_error_format(SG_ERROR_USAGE, "invalid explicit location argument, \"%s\"", w);
		else if (!arg)
			err = sg_error_format(SG_ERROR_USAGE, "missing argument for \"%s\"", w);
		else
			*slot = arg;
	}
	if (!err && source && !function && !line)
		err = sg_error_create(SG_ERROR_USAGE,
				      "Source filename requires function, label, or line offset.");
	if (!err) {
		char *linespec = NULL;
		if (asprintf(&linespec, "%s%s%s", source ? source : "", source ? ":" : "",
			     function ? function : line) < 0)
			linespec = NULL;
		err = linespec ? scope_pc(sh, linespec, ret) : &sg_enomem;
		free(linespec);
	}
	free(copy);
	return err;
}

/* Where gdb's "break SPEC" would stop: SPEC's address after the
   function's prologue; *ADDRESS exactly.  */
static struct sg_error *scope_pc(struct shell *sh, const char *spec, uint64_t *ret)
{
	struct sg_target *t = sg_session_target(sh->session);
	if (spec[0] == '-' && isalpha((unsigned char)spec[1]))
		return scope_explicit(sh, spec, ret);
	if (spec[0] == '*') {
		if (!spec[1])
			return sg_error_create(SG_ERROR_USAGE, "Argument required (expression to compute).");
		return sg_eval_address(sh->session, spec + 1, ret);
	}
	bool file_colon = false;
	for (const char *p = spec; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			p++;
			continue;
		}
		if (*p == ':')
			file_colon = true;
	}
	size_t len = strlen(spec);
	if (len > 2 && (spec[0] == '\'' || spec[0] == '"') && spec[len - 1] == spec[0] &&
	    !memchr(spec + 1, spec[0], len - 2)) {
		/* 'NAME' or "NAME": a function's name, quoted as gdb allows.  */
		char *name = strndup(spec + 1, len - 2);
		if (!name)
			return &sg_enomem;
		struct sg_error *err = scope_pc(sh, name, ret);
		free(name);
		return err;
	}
	if (!file_colon && !all_digits(spec)) {
		struct sg_error *err = sg_scope_function(t, spec, ret);
		if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
			sg_error_destroy(err);
			return sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined.", spec);
		}
		if (!err)
			*ret = sg_skip_prologue(t, *ret);
		return err;
	}
	/* FILE:FUNCTION: the function's own code, as list finds it; else a
	   name only the DWARF spells so (an anonymous namespace's), if its
	   code is in FILE.  */
	struct linespec l;
	struct sg_error *err = resolve_spec(sh, spec, false, &l);
	const char *colon = strrchr(spec, ':');
	if (err && sg_error_code(err) == SG_ERROR_LOOKUP && colon && colon > spec &&
	    colon[-1] != ':' && colon[1] && !all_digits(colon + 1) && spec[0] != '-' &&
	    strstr(sg_error_message(err), "not defined in")) {
		sg_error_destroy(err);
		char *file = strndup(spec, (size_t)(colon - spec));
		if (!file)
			return &sg_enomem;
		struct code_loc loc = { 0 };
		err = sg_scope_function(t, colon + 1, ret);
		if (!err && (err = sg_code_loc_at(t, *ret, &loc)) == NULL &&
		    !sg_source_file_matches(file, loc.sym.name, loc.sym.path))
			err = &sg_not_found;
		sg_symtab_clear(&loc.sym);
		if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
			sg_error_destroy(err);
			struct symtab any = { 0 };
			/* gdb first says so of an unknown file.  */
			err = sg_find_source_file(t, file, &any);
			sg_symtab_clear(&any);
			if (!err)
				err = sg_error_format(SG_ERROR_LOOKUP,
						      "Function \"%s\" not defined in \"%s\".", colon + 1,
						      file);
		}
		free(file);
		if (!err)
			*ret = sg_skip_prologue(t, *ret);
		return err;
	}
	if (err)
		return err;
	if (l.has_addr) {
		*ret = sg_skip_prologue(t, l.addr);
	} else {
		uint64_t start, end;
		int found;
		if (l.line <= 0 || !sg_symtab_line_rows(&l.sym, l.line, &start, &end, &found))
			err = strchr(spec, ':')
				      ? sg_error_format(SG_ERROR_LOOKUP, "No line %d in file \"%.*s\".", l.line,
							(int)(strrchr(spec, ':') - spec), spec)
				      : sg_error_format(SG_ERROR_LOOKUP, "No line %d in the current file.",
							l.line);
		else
			*ret = sg_skip_prologue(t, start);
	}
	spec_clear(&l);
	return err;
}

static struct sg_error *cmd_info_scope(struct sg_session *s, const char *args, struct sg_out *out,
				       void *arg)
{
	struct shell *sh = arg;
	sync_target(sh);
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE,
				       "requires an argument (function, line or *addr) to define a scope");
	char *spec = scope_spec(args);
	if (!spec)
		return &sg_enomem;
	uint64_t pc = 0;
	struct sg_error *err = scope_pc(sh, spec, &pc);
	free(spec);
	if (!err)
		err = sg_info_scope(s, args, pc, out);
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
	  .handler = cmd_list, .complete = sg_complete_linespec, .flags = SG_CMD_NEEDS_TARGET },
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
	{ .name = "info scope", .synopsis = "info scope LINESPEC",
	  .summary = "List the variables of the scope at a location, and where they live",
	  .details = "LINESPEC is FUNCTION, N, FILE:N, FILE:FUNCTION or *ADDRESS, taken where\n"
		     "\"break LINESPEC\" would stop in gdb: after a function's prologue.  Lists\n"
		     "the symbols of the innermost block there and of each enclosing block up to\n"
		     "the function, each with its location in gdb's words: a register, a frame\n"
		     "offset, static storage, a constant, or the DWARF expression itself; a\n"
		     "location list range by range.",
	  .handler = cmd_info_scope, .complete = sg_complete_linespec, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "directory", .aliases = "dir", .synopsis = "directory [DIR...]",
	  .summary = "Look for source files in DIR first",
	  .details = "DIRs (separated by blanks or ':') go to the front of the source path, which\n"
		     "always ends with $cdir (a unit's compilation directory) and $cwd.  Each\n"
		     "is searched for a file's recorded name, then for its base name.  Without\n"
		     "an argument, the path is reset to $cdir:$cwd.",
	  .handler = cmd_directory, .complete = sg_complete_filename },
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
