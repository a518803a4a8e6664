/* The persistent per-build-ID cache of indexes (cache.c), and its users:
   the sorted symbol table (symtab.c) and the symbol-name hash (symbol.c).
   doc/cache.md describes the files.  */
#ifndef SG_CACHE_H
#define SG_CACHE_H

#include "internal.h"

#include <sys/uio.h>

/* The kinds of cache file, one per index; part of the file's name.  */
enum sg_cache_kind {
	SG_CACHE_SYMTAB,	/* symtab.c: symbols in address order */
	SG_CACHE_SYMNAMES,	/* symbol.c: the hash of raw names */
	SG_CACHE_PLUGIN,	/* cache-plugins.c: a plugin's commands and settings */
	SG_CACHE_UNITS,		/* cache-units.c: the DWARF units' address ranges */
	SG_CACHE_NKINDS
};

/* What a module's cached index must agree with: the build ID names the
   file; the key is the main file's size and mtime and the symbol count
   libdwfl sees (a debug file installed since changes it).  */
#define SG_CACHE_KEY_WORDS 4
struct sg_cache_id {
	char *dir;		/* DIR/index, NULL: no caching for this module */
	char hex[129];		/* the build ID */
	uint64_t key[SG_CACHE_KEY_WORDS];
};

/* Fill *ID for MOD, whose symbol table libdwfl has loaded (NSYMS
   entries).  False (and ID->dir NULL) when MOD cannot be cached: the cache
   is off (SPYGLASS_DEBUG_CACHE=0), MOD has no build ID or no file.  */
bool sg_cache_module_id(Dwfl_Module *mod, int nsyms, struct sg_cache_id *id);
void sg_cache_id_fini(struct sg_cache_id *id);
/* Set ID->dir; false when the cache is off.  */
bool sg_cache_id_dir(struct sg_cache_id *id);
/* A file time as a key word.  */
static inline uint64_t sg_cache_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + ts->tv_nsec;
}

/* The payload of ID's KIND file, checked against its header (version,
   kind, build ID, key, size, checksum), in *DATA (malloc'ed) of *SIZE
   bytes.  False when there is none or it does not check out.  */
bool sg_cache_read(const struct sg_cache_id *id, enum sg_cache_kind kind, void **data,
		   size_t *size);

/* Write ID's KIND file from the NPARTS pieces of PARTS, atomically: a
   temporary file renamed over the old one, so a concurrent reader sees
   the old file or the new one whole.  Failures are silent: the cache is
   only an optimisation.  */
void sg_cache_write(const struct sg_cache_id *id, enum sg_cache_kind kind,
		    const struct iovec *parts, int nparts);

/* mkdir -p PATH, quietly.  */
void sg_cache_mkdirs(const char *path);

/* Whether SPYGLASS_TRACE names WHAT ("cache", "plugins"); then
   sg_trace() writes a line to stderr, for the tests and for finding out
   where start-up time goes.  */
bool sg_tracing(const char *what);
void sg_trace(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* symtab.c: keep MOD's sorted symbol table in the cache, if it was built
   in this run.  */
void sg_symtab_cache_store(struct sg_module *mod);
/* symbol.c: the same for the name hash.  */
void sg_symnames_cache_store(struct sg_module *mod);

/* cache-units.c: the CU DIE around target address ADDR in MOD, from the
   unit address index (built from libdw's aranges on the first run, read
   from the cache on later ones), and the DWARF's bias.  SG_UNIT_FOUND:
   *RET is the unit (stable while T lives); SG_UNIT_NONE: no arange
   covers ADDR; SG_UNIT_NO_INDEX: ask libdwfl.  */
enum { SG_UNIT_NO_INDEX = -1, SG_UNIT_NONE = 0, SG_UNIT_FOUND = 1 };
int sg_unit_index_cudie(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			Dwarf_Addr *bias, Dwarf_Die **ret);
/* Keep the indexes built in this run.  */
void sg_unit_index_cache_store(struct sg_target *t);

#endif
