/* What was found about an interpreter, kept per build ID in the cache
   folder: its version, its anchors (as offsets from the module's load
   bias), its build and the resolved offsets.  A second run on the same
   binary reads one small file instead of symbol tables and DWARF.

   The file is text, one fact a line, written to a temporary name and
   renamed so that a concurrent run never reads half of it.  Its name holds
   a hash of PY_FIELDS and of the file format: a plugin that reads other
   fields, or finds them another way, does not read it.  */
#include <config.h>
#include "cache.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when what is stored, or how it is found, changes.  */
#define CACHE_FORMAT 4

static uint32_t hash_str(uint32_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t spec_hash(void)
{
	uint32_t h = 2166136261u ^ CACHE_FORMAT;
	for (size_t f = 0; f < PY_NFIELDS; f++) {
		h = hash_str(h, py_field_specs[f].type);
		h = hash_str(h, py_field_specs[f].member ? py_field_specs[f].member : "-");
		h = (h ^ py_field_specs[f].first ^ py_field_specs[f].last << 16) * 16777619u;
	}
	return h;
}

static char *cache_path(struct sg_module *mod)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	if (!info.build_id)
		return NULL;
	char *dir = sg_cache_dir(), *path = NULL;
	if (dir && asprintf(&path, "%s/cpython/%s-%08x", dir, info.build_id, spec_hash()) < 0)
		path = NULL;
	free(dir);
	return path;
}

/* "KEY VALUE\n" with VALUE the rest of the line, into BUF.  */
static bool read_line(FILE *f, const char *key, char *buf, size_t size)
{
	char line[256];
	size_t n = strlen(key);
	if (!fgets(line, sizeof(line), f) || strncmp(line, key, n) || line[n] != ' ')
		return false;
	line[strcspn(line, "\n")] = '\0';
	snprintf(buf, size, "%s", line + n + 1);
	return true;
}

bool py_cache_load(struct py_proc *p, struct sg_module *mod)
{
	char *path = cache_path(mod);
	FILE *f = path ? fopen(path, "re") : NULL;
	free(path);
	if (!f)
		return false;
	struct sg_module_info info;
	sg_module_info(mod, &info);
	char buf[256];
	uint64_t runtime, interp_head, tstate_current;
	unsigned debug, free_threaded;
	bool ok = read_line(f, "version", buf, sizeof(buf)) &&
		  sscanf(buf, "%" SCNx32, &p->hexversion) == 1 &&
		  read_line(f, "version_from", p->how_version, sizeof(p->how_version)) &&
		  read_line(f, "anchors", buf, sizeof(buf)) &&
		  sscanf(buf, "%" SCNx64 " %" SCNx64 " %" SCNx64, &runtime, &interp_head,
			 &tstate_current) == 3 &&
		  read_line(f, "anchors_from", p->how_runtime, sizeof(p->how_runtime)) &&
		  read_line(f, "build", buf, sizeof(buf)) &&
		  sscanf(buf, "%u %u", &debug, &free_threaded) == 2 &&
		  read_line(f, "offsets_from", p->offs.source, sizeof(p->offs.source));
	for (size_t i = 0; ok && i < PY_NFIELDS; i++)
		ok = fscanf(f, "%" SCNu32 " %" SCNu32, &p->offs.off[i], &p->offs.size[i]) == 2;
	fclose(f);
	if (!ok)
		return false;
	p->version = PY_V(p->hexversion >> 24, (p->hexversion >> 16) & 0xff);
	p->runtime = runtime ? runtime + info.bias : 0;
	p->interp_head = interp_head ? interp_head + info.bias : 0;
	p->tstate_current = tstate_current ? tstate_current + info.bias : 0;
	p->debug_build = debug;
	p->free_threaded = free_threaded;
	p->offs.cached = true;
	return true;
}

static void mkdir_parents(char *path)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
}

static uint64_t relative(uint64_t addr, uint64_t bias)
{
	return addr ? addr - bias : 0;
}

void py_cache_store(const struct py_proc *p)
{
	char *path = cache_path(p->module), *tmp = NULL;
	if (!path || asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0) {
		free(path);
		return;
	}
	mkdir_parents(path);
	struct sg_module_info info;
	sg_module_info(p->module, &info);
	FILE *f = fopen(tmp, "we");
	if (f) {
		fprintf(f, "version %08" PRIx32 "\nversion_from %s\n", p->hexversion, p->how_version);
		fprintf(f, "anchors %" PRIx64 " %" PRIx64 " %" PRIx64 "\nanchors_from %s\n",
			relative(p->runtime, info.bias), relative(p->interp_head, info.bias),
			relative(p->tstate_current, info.bias), p->how_runtime);
		fprintf(f, "build %d %d\noffsets_from %s\n", p->debug_build, p->free_threaded,
			p->offs.source);
		for (size_t i = 0; i < PY_NFIELDS; i++)
			fprintf(f, "%" PRIu32 " %" PRIu32 "\n", p->offs.off[i], p->offs.size[i]);
		if (fclose(f) == 0)
			rename(tmp, path);
	}
	unlink(tmp);
	free(tmp);
	free(path);
}
