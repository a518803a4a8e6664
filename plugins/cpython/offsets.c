/* The offsets of the fields the plugin reads, for the interpreter found:
   from the module's DWARF, _Py_DebugOffsets (3.13+) or a built-in table,
   in that order (the cache, cache.c, comes before all three).
   SPYGLASS_PYTHON_OFFSETS (a comma separated list of cache, dwarf,
   debug-offsets, table) limits the sources, so that tests can check each
   one alone.  */
#include <config.h>
#include "cache.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned py_env_words(const char *var, const char *const *words)
{
	const char *env = getenv(var);
	unsigned all = 0, r = 0;
	for (size_t k = 0; words[k]; k++)
		all |= 1u << k;
	if (!env || !*env)
		return all;
	for (const char *w = env; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL) {
		size_t n = strcspn(w, ",");
		for (size_t k = 0; words[k]; k++)
			if (strlen(words[k]) == n && !strncmp(w, words[k], n))
				r |= 1u << k;
	}
	return r;
}

unsigned py_sources(void)
{
	/* In the order of enum py_source's bits.  */
	static const char *const words[] = { "cache", "dwarf", "debug-offsets", "table", NULL };
	return py_env_words("SPYGLASS_PYTHON_OFFSETS", words);
}

static bool in_range(const struct py_proc *p, enum py_field f)
{
	return p->version >= py_field_specs[f].first && p->version <= py_field_specs[f].last;
}

static void clear(struct py_offsets *o)
{
	for (size_t i = 0; i < PY_NFIELDS; i++)
		o->off[i] = o->size[i] = PY_ABSENT;
}

static const struct py_table *table_for(unsigned version)
{
	for (size_t i = 0; i < py_ntables; i++)
		if (py_tables[i].version == version)
			return &py_tables[i];
	return NULL;
}

/* ---- DWARF and tables, through layout bindings ---- */

/* Resolve every field of TYPE in range for P's version at once: one DWARF
   lookup per type.  */
static struct sg_error *resolve_type(struct py_proc *p, const char *type)
{
	const char *members[PY_NFIELDS + 1];
	enum py_field ids[PY_NFIELDS];
	char *opt[PY_NFIELDS];
	size_t n = 0;
	bool want_size = false;
	for (size_t f = 0; f < PY_NFIELDS; f++) {
		if (strcmp(py_field_specs[f].type, type) || !in_range(p, f))
			continue;
		if (!py_field_specs[f].member) {
			want_size = true;
			continue;
		}
		if (asprintf(&opt[n], "?%s", py_field_specs[f].member) < 0) {
			for (size_t i = 0; i < n; i++)
				free(opt[i]);
			return &sg_enomem;
		}
		members[n] = opt[n];
		ids[n++] = f;
	}
	if (!n && !want_size)
		return NULL;
	members[n] = NULL;
	struct sg_layout_spec spec = { type, members };
	struct sg_layout *l;
	struct sg_error *err = sg_layout_resolve(p->target, &spec, NULL, &l);
	for (size_t i = 0; i < n; i++)
		free(opt[i]);
	if (err) {
		/* A type this build lacks leaves its fields absent.  */
		if (sg_error_code(err) == SG_ERROR_LOOKUP) {
			sg_error_destroy(err);
			return NULL;
		}
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		if (!l->fields[i].present)
			continue;
		p->offs.off[ids[i]] = l->fields[i].offset;
		p->offs.size[ids[i]] = l->fields[i].size;
	}
	if (want_size && l->size)
		for (size_t f = 0; f < PY_NFIELDS; f++)
			if (!py_field_specs[f].member && in_range(p, f) &&
			    !strcmp(py_field_specs[f].type, type))
				p->offs.off[f] = p->offs.size[f] = l->size;
	sg_layout_destroy(l);
	return NULL;
}

static struct sg_error *resolve_dwarf(struct py_proc *p)
{
	for (size_t f = 0; f < PY_NFIELDS; f++) {
		const char *type = py_field_specs[f].type;
		bool seen = false;
		for (size_t g = 0; g < f && !seen; g++)
			seen = !strcmp(py_field_specs[g].type, type);
		if (seen)
			continue;
		struct sg_error *err = resolve_type(p, type);
		if (err)
			return err;
	}
	return NULL;
}

/* Is NAME one of the '|' separated alternatives of ALTS?  */
static bool is_alternative(const char *alts, const char *name)
{
	size_t n = strlen(name);
	for (const char *a = alts; a; a = strchr(a, '|') ? strchr(a, '|') + 1 : NULL)
		if (!strncmp(a, name, n) && (a[n] == '|' || !a[n]))
			return true;
	return false;
}

/* Fill the fields in range that are still absent from TABLE; the
   generator wrote each row with the spellings of the spec that matched.
   Returns how many were filled.  */
static size_t fill_from_table(struct py_proc *p, const struct py_table *table, size_t first)
{
	size_t filled = 0;
	for (size_t f = first; f < PY_NFIELDS; f++) {
		if (py_has(p, f) || !in_range(p, f))
			continue;
		const struct py_field_spec *s = &py_field_specs[f];
		for (const struct sg_layout_row *r = table->rows; r->type; r++) {
			if (!is_alternative(s->type, r->type) ||
			    (s->member ? !r->member || !is_alternative(s->member, r->member)
				       : r->member != NULL))
				continue;
			p->offs.off[f] = s->member ? r->offset : r->size;
			p->offs.size[f] = r->size;
			filled++;
			break;
		}
	}
	return filled;
}

/* ---- _Py_DebugOffsets ---- */

/* Where each field stands in _Py_DebugOffsets, by layout of that struct.
   A row's BASE (if set) is subtracted: the struct gives some members as
   offsets in the interpreter state where we want them in their own
   struct.  */
struct debug_row {
	enum py_field field;
	uint16_t at, base;
};

/* 3.13 (Include/internal/pycore_runtime.h).  */
static const struct debug_row debug_313[] = {
	{ PY_RT_FINALIZING, 32, 0 },
	{ PY_RT_INTERP_HEAD, 40, 0 },
	{ PY_IS_ID, 56, 0 },
	{ PY_IS_NEXT, 64, 0 },
	{ PY_IS_THREADS, 72, 0 },
	{ PY_IS_MODULES, 88, 0 },
	{ PY_IS_SYSDICT, 96, 0 },
	{ PY_IS_BUILTINS, 104, 0 },
	{ PY_IS_GIL, 112, 0 },
	{ PY_GIL_LOCKED, 136, 120 },
	{ PY_GIL_HOLDER, 144, 120 },
	{ PY_TS_NEXT, 168, 0 },
	{ PY_TS_INTERP, 176, 0 },
	{ PY_TS_FRAME, 184, 0 },
	{ PY_TS_THREAD_ID, 192, 0 },
	{ PY_TS_NATIVE_ID, 200, 0 },
	{ PY_IF_PREVIOUS, 232, 0 },
	{ PY_IF_CODE, 240, 0 },
	{ PY_IF_INSTR, 248, 0 },
	{ PY_IF_LOCALSPLUS, 256, 0 },
	{ PY_IF_OWNER, 264, 0 },
	{ PY_CO_FILENAME, 280, 0 },
	{ PY_CO_NAME, 288, 0 },
	{ PY_CO_QUALNAME, 296, 0 },
	{ PY_CO_LINETABLE, 304, 0 },
	{ PY_CO_FIRSTLINENO, 312, 0 },
	{ PY_CO_ARGCOUNT, 320, 0 },
	{ PY_CO_LOCALSPLUSNAMES, 328, 0 },
	{ PY_CO_LOCALSPLUSKINDS, 336, 0 },
	{ PY_CO_CODE_ADAPTIVE, 344, 0 },
	{ PY_OB_TYPE, 360, 0 },
	{ PY_TP_NAME, 376, 0 },
	{ PY_TP_REPR, 384, 0 },
	{ PY_TP_FLAGS, 392, 0 },
	{ PY_TUPLE_ITEM, 408, 0 },
	{ PY_VAR_SIZE, 416, 0 },
	{ PY_LIST_ITEM, 432, 0 },
	{ PY_DICT_KEYS, 456, 0 },
	{ PY_DICT_VALUES, 464, 0 },
	{ PY_FLOAT_VAL, 480, 0 },
	{ PY_LONG_TAG, 496, 0 },
	{ PY_LONG_DIGIT, 504, 0 },
	{ PY_BYTES_SVAL, 528, 0 },
	{ PY_UNI_STATE, 544, 0 },
	{ PY_UNI_LENGTH, 552, 0 },
	{ PY_UNI_ASCII_SIZE, 560, 0 },
};

/* 3.14 (Include/internal/pycore_debug_offsets.h): the interpreter gains
   threads_main, code_object_generation and tlbc_generation, the frame
   stackpointer and tlbc_index, the code object co_tlbc, and a set group
   appears.  */
static const struct debug_row debug_314[] = {
	{ PY_RT_FINALIZING, 32, 0 },
	{ PY_RT_INTERP_HEAD, 40, 0 },
	{ PY_IS_ID, 56, 0 },
	{ PY_IS_NEXT, 64, 0 },
	{ PY_IS_THREADS, 72, 0 },
	{ PY_IS_MODULES, 96, 0 },
	{ PY_IS_SYSDICT, 104, 0 },
	{ PY_IS_BUILTINS, 112, 0 },
	{ PY_IS_GIL, 120, 0 },
	{ PY_GIL_LOCKED, 144, 128 },
	{ PY_GIL_HOLDER, 152, 128 },
	{ PY_TS_NEXT, 192, 0 },
	{ PY_TS_INTERP, 200, 0 },
	{ PY_TS_FRAME, 208, 0 },
	{ PY_TS_THREAD_ID, 216, 0 },
	{ PY_TS_NATIVE_ID, 224, 0 },
	{ PY_IF_PREVIOUS, 256, 0 },
	{ PY_IF_CODE, 264, 0 },
	{ PY_IF_INSTR, 272, 0 },
	{ PY_IF_LOCALSPLUS, 280, 0 },
	{ PY_IF_OWNER, 288, 0 },
	{ PY_CO_FILENAME, 320, 0 },
	{ PY_CO_NAME, 328, 0 },
	{ PY_CO_QUALNAME, 336, 0 },
	{ PY_CO_LINETABLE, 344, 0 },
	{ PY_CO_FIRSTLINENO, 352, 0 },
	{ PY_CO_ARGCOUNT, 360, 0 },
	{ PY_CO_LOCALSPLUSNAMES, 368, 0 },
	{ PY_CO_LOCALSPLUSKINDS, 376, 0 },
	{ PY_CO_CODE_ADAPTIVE, 384, 0 },
	{ PY_OB_TYPE, 408, 0 },
	{ PY_TP_NAME, 424, 0 },
	{ PY_TP_REPR, 432, 0 },
	{ PY_TP_FLAGS, 440, 0 },
	{ PY_TUPLE_ITEM, 456, 0 },
	{ PY_VAR_SIZE, 464, 0 },
	{ PY_LIST_ITEM, 480, 0 },
	{ PY_SET_USED, 504, 0 },
	{ PY_SET_TABLE, 512, 0 },
	{ PY_SET_MASK, 520, 0 },
	{ PY_DICT_KEYS, 536, 0 },
	{ PY_DICT_VALUES, 544, 0 },
	{ PY_FLOAT_VAL, 560, 0 },
	{ PY_LONG_TAG, 576, 0 },
	{ PY_LONG_DIGIT, 584, 0 },
	{ PY_BYTES_SVAL, 608, 0 },
	{ PY_UNI_STATE, 624, 0 },
	{ PY_UNI_LENGTH, 632, 0 },
	{ PY_UNI_ASCII_SIZE, 640, 0 },
};

/* 3.15: the thread state gains base_frame, last_profiled_frame(_seq),
   holds_gil, gil_requested and the exception state; the type object
   tp_basicsize and tp_dictoffset; heap types, and the compact string's
   size.  */
static const struct debug_row debug_315[] = {
	{ PY_RT_FINALIZING, 32, 0 },
	{ PY_RT_INTERP_HEAD, 40, 0 },
	{ PY_IS_ID, 56, 0 },
	{ PY_IS_NEXT, 64, 0 },
	{ PY_IS_THREADS, 72, 0 },
	{ PY_IS_MODULES, 96, 0 },
	{ PY_IS_SYSDICT, 104, 0 },
	{ PY_IS_BUILTINS, 112, 0 },
	{ PY_IS_GIL, 120, 0 },
	{ PY_GIL_LOCKED, 144, 128 },
	{ PY_GIL_HOLDER, 152, 128 },
	{ PY_TS_NEXT, 192, 0 },
	{ PY_TS_INTERP, 200, 0 },
	{ PY_TS_FRAME, 208, 0 },
	{ PY_TS_THREAD_ID, 240, 0 },
	{ PY_TS_NATIVE_ID, 248, 0 },
	{ PY_IF_PREVIOUS, 320, 0 },
	{ PY_IF_CODE, 328, 0 },
	{ PY_IF_INSTR, 336, 0 },
	{ PY_IF_LOCALSPLUS, 344, 0 },
	{ PY_IF_OWNER, 352, 0 },
	{ PY_CO_FILENAME, 384, 0 },
	{ PY_CO_NAME, 392, 0 },
	{ PY_CO_QUALNAME, 400, 0 },
	{ PY_CO_LINETABLE, 408, 0 },
	{ PY_CO_FIRSTLINENO, 416, 0 },
	{ PY_CO_ARGCOUNT, 424, 0 },
	{ PY_CO_LOCALSPLUSNAMES, 432, 0 },
	{ PY_CO_LOCALSPLUSKINDS, 440, 0 },
	{ PY_CO_CODE_ADAPTIVE, 448, 0 },
	{ PY_OB_TYPE, 472, 0 },
	{ PY_TP_NAME, 488, 0 },
	{ PY_TP_REPR, 496, 0 },
	{ PY_TP_FLAGS, 504, 0 },
	{ PY_TP_BASICSIZE, 512, 0 },
	{ PY_TP_DICTOFFSET, 520, 0 },
	{ PY_HT_CACHED_KEYS, 536, 0 },
	{ PY_TUPLE_ITEM, 552, 0 },
	{ PY_VAR_SIZE, 560, 0 },
	{ PY_LIST_ITEM, 576, 0 },
	{ PY_SET_USED, 600, 0 },
	{ PY_SET_TABLE, 608, 0 },
	{ PY_SET_MASK, 616, 0 },
	{ PY_DICT_KEYS, 632, 0 },
	{ PY_DICT_VALUES, 640, 0 },
	{ PY_FLOAT_VAL, 656, 0 },
	{ PY_LONG_TAG, 672, 0 },
	{ PY_LONG_DIGIT, 680, 0 },
	{ PY_BYTES_SVAL, 704, 0 },
	{ PY_UNI_STATE, 720, 0 },
	{ PY_UNI_LENGTH, 728, 0 },
	{ PY_UNI_ASCII_SIZE, 736, 0 },
	{ PY_UNI_COMPACT_SIZE, 744, 0 },
};

/* One layout of _Py_DebugOffsets: its rows, its size, and where the
   interpreter's gc member and gc.collecting stand in it.  */
struct debug_layout {
	unsigned version;
	const struct debug_row *rows;
	size_t nrows;
	uint16_t size, gc, gc_collecting;
};

static const struct debug_layout debug_layouts[] = {
	{ PY_V(3, 13), debug_313, PY_ARRAY_SIZE(debug_313), 584, 80, 576 },
	{ PY_V(3, 14), debug_314, PY_ARRAY_SIZE(debug_314), 760, 88, 656 },
	{ PY_V(3, 15), debug_315, PY_ARRAY_SIZE(debug_315), 888, 88, 760 },
};
#define MAX_DEBUG_SIZE 1024

/* The sizes of the fields the struct does not give: pointers and
   Py_ssize_t are 8 bytes, the rest as the headers declare them.  */
static uint32_t debug_field_size(enum py_field f)
{
	switch (f) {
	case PY_IF_OWNER:
		return 1;
	case PY_CO_FIRSTLINENO:
	case PY_CO_ARGCOUNT:
	case PY_UNI_STATE:
	case PY_GIL_LOCKED:
	case PY_IS_GC_COLLECTING:
		return 4;
	default:
		return 8;
	}
}

static struct sg_error *read_debug_offsets(struct py_proc *p)
{
	const struct debug_layout *d = NULL;
	for (size_t i = 0; i < PY_ARRAY_SIZE(debug_layouts); i++)
		if (debug_layouts[i].version == p->version)
			d = &debug_layouts[i];
	/* A later version may reorder the groups: without its layout the
	   struct cannot be read.  */
	if (!d || !p->runtime)
		return &sg_not_found;
	unsigned char buf[MAX_DEBUG_SIZE];
	struct sg_error *err = sg_target_read(p->target, p->runtime, buf, d->size);
	if (err)
		return err;
	if (memcmp(buf, "xdebugpy", 8))
		return sg_error_format(SG_ERROR_BAD_DATA, "no _Py_DebugOffsets at 0x%" PRIx64,
				       p->runtime);
	uint64_t v;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct debug_row *r = &d->rows[i];
		memcpy(&v, buf + r->at, 8);
		uint64_t base = 0;
		if (r->base)
			memcpy(&base, buf + r->base, 8);
		/* Offsets into structs of a few hundred kilobytes at most:
		   anything larger is not a debug offsets table.  */
		if (v < base || v - base > (1u << 20))
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "_Py_DebugOffsets at 0x%" PRIx64 " has a bad entry at %u",
					       p->runtime, r->at);
		p->offs.off[r->field] = v - base;
		p->offs.size[r->field] = debug_field_size(r->field);
	}
	/* The compact string's size is in the struct from 3.15 only: it is
	   PyASCIIObject plus utf8_length and utf8 (3.12 dropped wstr).  */
	if (!py_has(p, PY_UNI_COMPACT_SIZE) && py_has(p, PY_UNI_ASCII_SIZE)) {
		p->offs.off[PY_UNI_COMPACT_SIZE] = p->offs.off[PY_UNI_ASCII_SIZE] + 16;
		p->offs.size[PY_UNI_COMPACT_SIZE] = p->offs.off[PY_UNI_COMPACT_SIZE];
	}
	uint64_t gc, collecting;
	memcpy(&gc, buf + d->gc, 8);
	memcpy(&collecting, buf + d->gc_collecting, 8);
	if (gc < (1u << 20) && collecting < (1u << 20)) {
		p->offs.off[PY_IS_GC_COLLECTING] = gc + collecting;
		p->offs.size[PY_IS_GC_COLLECTING] = 4;
	}
	return NULL;
}

/* The newest table from 3.11 up to P's version: for the fields of
   dictionaries, sets and code objects that _Py_DebugOffsets does not
   give, and whose layout has not changed since 3.11.  */
static const struct py_table *older_table(const struct py_proc *p)
{
	const struct py_table *best = NULL;
	for (size_t i = 0; i < py_ntables; i++)
		if (py_tables[i].version <= p->version && py_tables[i].version >= PY_V(3, 11) &&
		    (!best || py_tables[i].version > best->version))
			best = &py_tables[i];
	return best;
}

/* "DWARF" + ", WHAT table 3.11".  */
static void append_source(struct py_proc *p, const char *what, const struct py_table *t)
{
	size_t n = strlen(p->offs.source);
	snprintf(p->offs.source + n, sizeof(p->offs.source) - n, ", %s table %u.%u", what,
		 t->version >> 8, t->version & 0xff);
}

struct sg_error *py_offsets_resolve(struct py_proc *p)
{
	unsigned sources = py_sources();
	clear(&p->offs);
	const struct py_table *table = sources & PY_SRC_TABLE ? table_for(p->version) : NULL;
	struct sg_error *err = &sg_not_found;
	if ((sources & PY_SRC_DWARF) && sg_module_has_dwarf(p->module, NULL)) {
		err = resolve_dwarf(p);
		if (!err) {
			snprintf(p->offs.source, sizeof(p->offs.source), "DWARF");
			if (table && fill_from_table(p, table, 0))
				append_source(p, "types it lacks from", table);
		}
	}
	if (err == &sg_not_found && (sources & PY_SRC_DEBUG)) {
		err = read_debug_offsets(p);
		const struct py_table *older = sources & PY_SRC_TABLE ? older_table(p) : NULL;
		if (!err) {
			snprintf(p->offs.source, sizeof(p->offs.source), "_Py_DebugOffsets");
			if (older && fill_from_table(p, older, PY_OB_TYPE))
				append_source(p, "the rest from", older);
		}
	}
	if (err == &sg_not_found && table) {
		clear(&p->offs);
		fill_from_table(p, table, 0);
		snprintf(p->offs.source, sizeof(p->offs.source), "table %u.%u", table->version >> 8,
			 table->version & 0xff);
		err = NULL;
	}
	if (err == &sg_not_found)
		err = sg_error_format(SG_ERROR_LOOKUP,
				      "no offsets for Python %u.%u in %s: no DWARF%s, no built-in table",
				      p->version >> 8, p->version & 0xff, p->module_path,
				      p->version >= PY_V(3, 13) ? ", no _Py_DebugOffsets" : "");
	return err;
}
