/* Source lines for "disassemble /s": the line table row of a pc, as gdb's
   find_pc_line gives it, and the text of source lines.  */
#include <config.h>
#include "disas.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files larger than this are not read: a source line is for a person.  */
#define SOURCE_MAX_BYTES (64u << 20)

/* A row of gdb's line table for a unit: what gdb keeps of libdw's.  */
struct row {
	uint64_t addr;		/* runtime */
	int line;		/* 0: the end of a sequence */
	const char *file;	/* borrowed from libdw */
};


/* The lines of FILE, read once per dump.  */
struct source_file {
	char *name;
	char *text;		/* NULL: unreadable */
	int error;		/* errno when unreadable */
	char **lines;		/* into TEXT, without their newlines */
	int nlines;
	bool reported;		/* the error was printed once */
};

struct disas_sources {
	struct source_file files[8];
	size_t nfiles;
	struct linetab_cache {
		Dwarf_Die *cu;
		struct row *rows;
		size_t n;
		Dwarf_Addr bias;
	} lines;
};

/* gdb's line table of unit CU (module bias BIAS) into *LT, from libdw's
   rows in address order: at an address that has a statement row, the
   other rows are not in it; a row of the same file and line as the row
   kept before it adds nothing (gdb records a line when it changes).  */
static bool linetab_build(Dwarf_Die *cu, Dwarf_Addr bias, struct linetab_cache *lt)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0 || n == 0)
		return false;
	lt->rows = calloc(n, sizeof(*lt->rows));
	if (!lt->rows)
		return false;
	lt->cu = cu;
	lt->n = 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr at;
		int line = 0;
		bool end = false, stmt = false;
		if (dwarf_lineaddr(l, &at) != 0 || dwarf_lineendsequence(l, &end) != 0)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		if (!end && !stmt) {
			/* A statement row at the same address hides it.  */
			bool hidden = false;
			for (size_t j = i; j-- > 0 && !hidden;) {
				Dwarf_Addr a;
				bool st = false;
				if (dwarf_lineaddr(dwarf_onesrcline(lines, j), &a) != 0 || a != at)
					break;
				hidden = dwarf_linebeginstatement(dwarf_onesrcline(lines, j), &st) == 0 && st;
			}
			for (size_t j = i + 1; j < n && !hidden; j++) {
				Dwarf_Addr a;
				bool st = false;
				if (dwarf_lineaddr(dwarf_onesrcline(lines, j), &a) != 0 || a != at)
					break;
				hidden = dwarf_linebeginstatement(dwarf_onesrcline(lines, j), &st) == 0 && st;
			}
			if (hidden)
				continue;
		}
		const char *file = end ? NULL : dwarf_linesrc(l, NULL, NULL);
		if (!end && (dwarf_lineno(l, &line) != 0 || line <= 0 || !file))
			continue;
		struct row r = { at + bias, end ? 0 : line, file };
		if (lt->n && r.line && lt->rows[lt->n - 1].line == r.line &&
		    !strcmp(lt->rows[lt->n - 1].file, r.file))
			continue;
		lt->rows[lt->n++] = r;
	}
	return true;
}

/* The line table of the unit around PC, built once.  */
static struct linetab_cache *linetab_at(struct disas_sources *s, struct sg_target *t, uint64_t pc)
{
	struct sg_module *m = sg_target_module_at(t, pc);
	Dwfl_Module *mod = m ? sg_module_dwfl(m) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, pc, &bias) : NULL;
	if (!cu)
		return NULL;
	struct linetab_cache *lt = &s->lines;
	if (lt->cu != cu || lt->bias != bias) {
		free(lt->rows);
		memset(lt, 0, sizeof(*lt));
		if (!linetab_build(cu, bias, lt))
			return NULL;
		lt->bias = bias;
	}
	return lt;
}

int sg_disas_first_line(struct disas_sources *s, struct sg_target *t, uint64_t low, uint64_t high)
{
	struct linetab_cache *lt = linetab_at(s, t, low);
	if (!lt)
		return 0;
	size_t lo = 0, hi = lt->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lt->rows[mid].addr < low)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lt->n && lt->rows[lo].addr < high ? lt->rows[lo].line : 0;
}

bool sg_disas_pc_line(struct disas_sources *s, struct sg_target *t, uint64_t pc,
		   struct disas_line *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct linetab_cache *lt = linetab_at(s, t, pc);
	if (!lt)
		return false;
	/* The last row at or before PC; the next row at a higher address
	   ends it.  */
	size_t lo = 0, hi = lt->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lt->rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !lt->rows[lo - 1].line)
		return false;
	const struct row *r = &lt->rows[lo - 1];
	ret->file = r->file;
	ret->line = r->line;
	for (size_t i = lo; i < lt->n; i++) {
		if (lt->rows[i].addr > r->addr) {
			ret->end = lt->rows[i].addr;
			break;
		}
	}
	return true;
}

struct disas_sources *sg_disas_sources_create(void)
{
	return calloc(1, sizeof(struct disas_sources));
}

static void source_free(struct source_file *f)
{
	free(f->name);
	free(f->text);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

void sg_disas_sources_destroy(struct disas_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		source_free(&s->files[i]);
	free(s->lines.rows);
	free(s);
}

static void source_read(struct source_file *f)
{
	FILE *fp = fopen(f->name, "r");
	if (!fp) {
		f->error = errno;
		return;
	}
	size_t cap = 0, len = 0;
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0 && len + got <= SOURCE_MAX_BYTES) {
		if (len + got + 1 > cap) {
			size_t ncap = cap ? cap * 2 : sizeof(buf) + 1;
			while (ncap < len + got + 1)
				ncap *= 2;
			char *p = realloc(f->text, ncap);
			if (!p)
				break;
			f->text = p;
			cap = ncap;
		}
		memcpy(f->text + len, buf, got);
		len += got;
	}
	fclose(fp);
	if (!f->text) {
		f->text = strdup("");
		if (!f->text) {
			f->error = ENOMEM;
			return;
		}
	}
	f->text[len] = '\0';
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += f->text[i] == '\n';
	if (len && f->text[len - 1] != '\n')
		n++;
	f->lines = calloc((size_t)n + 1, sizeof(char *));
	if (!f->lines)
		return;
	char *p = f->text;
	for (int i = 0; i < n; i++) {
		f->lines[i] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	f->nlines = n;
}

static struct source_file *source_get(struct disas_sources *s, const char *name)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].name, name))
			return &s->files[i];
	if (s->nfiles == sizeof(s->files) / sizeof(s->files[0])) {
		/* The oldest goes: a function's lines come from a few files.  */
		source_free(&s->files[0]);
		memmove(&s->files[0], &s->files[1], (s->nfiles - 1) * sizeof(s->files[0]));
		memset(&s->files[s->nfiles - 1], 0, sizeof(s->files[0]));
		s->nfiles--;
	}
	struct source_file *f = &s->files[s->nfiles];
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	s->nfiles++;
	source_read(f);
	return f;
}

void sg_disas_print_source(struct disas_sources *s, const char *file, int from, int to,
			struct sg_out *out)
{
	struct source_file *f = source_get(s, file);
	for (int l = from; f && l < to; l++) {
		if (!f->lines) {
			/* gdb names the error once, then says where.  */
			if (!f->reported)
				sg_out_printf(out, "%d\t%s: %s.\n", l, file, strerror(f->error));
			else
				sg_out_printf(out, "%d\tin %s\n", l, file);
			f->reported = true;
			continue;
		}
		if (l < 1 || l > f->nlines)
			break;
		sg_out_printf(out, "%d\t%s\n", l, f->lines[l - 1]);
	}
}
