/* Where the cpython plugin may take what it knows of an interpreter from
   (SPYGLASS_PYTHON_OFFSETS), and the per-build-ID cache (cache.c).  */
#ifndef SPYGLASS_CPYTHON_CACHE_H
#define SPYGLASS_CPYTHON_CACHE_H

#include "cpython.h"

enum py_source {
	PY_SRC_CACHE = 1 << 0,
	PY_SRC_DWARF = 1 << 1,
	PY_SRC_DEBUG = 1 << 2,
	PY_SRC_TABLE = 1 << 3,
};

/* The words of WORDS (NULL-terminated) that the environment variable VAR
   lists, comma separated, as bits (bit I for WORDS[I]); all of them when
   VAR is unset or empty.  For the variables that limit how the plugin
   finds things, so that the tests can check each way alone.  */
unsigned py_env_words(const char *var, const char *const *words);

/* The sources SPYGLASS_PYTHON_OFFSETS allows: a comma separated list of
   cache, dwarf, debug-offsets, table; all of them when it is unset.  */
unsigned py_sources(void);

/* Fill P's version, anchors, build and offsets from what a run on MOD's
   build wrote, if any.  */
bool py_cache_load(struct py_proc *p, struct sg_module *mod);
/* Keep what P found about its module for the next run.  */
void py_cache_store(const struct py_proc *p);

#endif
