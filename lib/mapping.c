/* The target's memory map: /proc/PID/maps for a live process, parsed once
   per module report.  Unwinders use it to check that a stack pointer is in
   a stack and a return address in code.  */
#include <config.h>
#include "internal.h"

#include <stdlib.h>

static int mapping_cmp(const void *a, const void *b)
{
	const struct sg_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Parse one line of /proc/PID/maps, "start-end perms offset dev inode
   path", into M; the path is left to the caller.  Returns the offset of
   the path in LINE (LEN if none), or 0 if the line is not one.  By hand,
   not sscanf: a process with many threads has hundreds of lines, parsed
   before the stop.  */
static size_t parse_line(const char *line, size_t len, struct sg_mapping *m)
{
	char *end;
	m->start = strtoull(line, &end, 16);
	if (end == line || *end != '-')
		return 0;
	const char *q = end + 1;
	m->end = strtoull(q, &end, 16);
	if (end == q || *end != ' ' || (size_t)(end + 5 - line) > len)
		return 0;
	m->readable = end[1] == 'r';
	m->writable = end[2] == 'w';
	m->executable = end[3] == 'x';
	/* Skip the perms, offset, device and inode fields.  */
	q = end + 1;
	for (int field = 0; field < 4 && q < line + len; field++) {
		while (q < line + len && *q != ' ')
			q++;
		while (q < line + len && *q == ' ')
			q++;
	}
	return (size_t)(q - line);
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
	for (char *p = t->maps_lines; *p;) {
		char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		struct sg_mapping m;
		size_t path_off = parse_line(p, len, &m);
		if (path_off) {
			struct sg_mapping *slot = sg_array_push(&t->mappings, &t->nmappings, &cap,
								sizeof(*slot));
			if (!slot)
				return;
			/* Paths point into maps_lines: cut the line.  */
			m.path = p + path_off;
			p[len] = '\0';
			*slot = m;
		}
		p += len + (eol != NULL);
	}
	if (t->nmappings)
		qsort(t->mappings, t->nmappings, sizeof(*t->mappings), mapping_cmp);
}

long sg_target_mapping_index(struct sg_target *t, uint64_t addr)
{
	if (!t->mappings_parsed) {
		if (!t->maps && sg_target_load_modules(t) != NULL)
			return -1;
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
	return lo < t->nmappings && t->mappings[lo].start <= addr ? (long)lo : -1;
}

bool sg_target_mapping_at(struct sg_target *t, uint64_t addr, struct sg_mapping *ret)
{
	long i = sg_target_mapping_index(t, addr);
	if (i >= 0)
		*ret = t->mappings[i];
	return i >= 0;
}
