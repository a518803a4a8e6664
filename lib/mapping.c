/* The target's memory map: /proc/PID/maps for a live process, parsed once
   per module report.  Unwinders use it to check that a stack pointer is in
   a stack and a return address in code.  */
#include <config.h>
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

static int mapping_cmp(const void *a, const void *b)
{
	const struct sg_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void parse_maps(struct sg_target *t)
{
	t->mappings_parsed = true;
	/* A copy, cut into lines that the mappings' paths point into; MAPS
	   itself is kept whole to notice changes.  */
	free(t->maps_lines);
	t->maps_lines = t->maps ? strdup(t->maps) : NULL;
	if (!t->maps_lines)
		return;
	size_t cap = 0;
	for (const char *p = t->maps_lines; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		uint64_t start, end;
		char perms[8];
		int path_off = 0;
		char line[4096];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n", &start, &end, perms,
			   &path_off) >= 3) {
			struct sg_mapping *m = sg_array_push(&t->mappings, &t->nmappings, &cap,
							     sizeof(*m));
			if (!m)
				return;
			m->start = start;
			m->end = end;
			m->readable = perms[0] == 'r';
			m->writable = perms[1] == 'w';
			m->executable = perms[2] == 'x';
			/* Paths point into maps_lines: cut the line.  */
			char *path = (char *)p + (path_off && (size_t)path_off <= len ? (size_t)path_off : len);
			m->path = path;
			if (eol)
				*(char *)eol = '\0';
		}
		p = eol ? eol + 1 : p + len;
	}
	if (t->nmappings)
		qsort(t->mappings, t->nmappings, sizeof(*t->mappings), mapping_cmp);
}

bool sg_target_mapping_at(struct sg_target *t, uint64_t addr, struct sg_mapping *ret)
{
	if (!t->mappings_parsed) {
		if (!t->maps && sg_target_load_modules(t) != NULL)
			return false;
		parse_maps(t);
	}
	size_t lo = 0, hi = t->nmappings;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->mappings[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nmappings && t->mappings[lo].start <= addr) {
		*ret = t->mappings[lo];
		return true;
	}
	return false;
}
