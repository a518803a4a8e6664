/* Objects: what the plugin knows of the target's objects, for repr.c and
   for the lookups the other files make.  The types (the built-in ones
   recognized, the names of classes), the items of dicts (2.7's table,
   3.6+'s compact and split ones) and sets, the text of strs, the digits
   of ints, the dict of a module and the attributes of an instance.

   Every read counts against the command's budget (py_obj_read() and the
   like), and every size read from the target is bounded before use.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* tp_flags bits, the same on 2.7 and every 3.x ...  */
#define TPFLAGS_HEAPTYPE (UINT64_C(1) << 9)
/* ... and these from 3.11 and 3.13 on.  */
#define TPFLAGS_INLINE_VALUES (UINT64_C(1) << 2)	/* 3.13+ */
#define TPFLAGS_MANAGED_DICT (UINT64_C(1) << 4)		/* 3.11+ */

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 8; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/* The size of PyObject (the header of every object): ob_type is its last
   member on every build, debug (2.7's _ob_next, _ob_prev first) and
   free-threaded ones included.  */
static uint64_t object_head_size(const struct py_proc *p)
{
	return p->offs.off[PY_OB_TYPE] + 8;
}

void py_objs_init(struct py_objs *o, struct py_proc *p)
{
	memset(o, 0, sizeof(*o));
	o->p = p;
	o->py2 = p->version < PY_V(3, 0);
}

void py_objs_fini(struct py_objs *o)
{
	for (size_t i = 0; i < o->ntypes; i++) {
		free(o->types[i].name);
		free(o->types[i].qualified);
	}
	free(o->spare.name);
	free(o->spare.qualified);
}

/* ---- types ---- */

static enum py_kind classify(const struct py_objs *o, const char *name, uint64_t flags)
{
	static const struct {
		const char *name;
		enum py_kind py3, py2;
	} builtins[] = {
		{ "NoneType", PY_K_NONE, PY_K_NONE },
		{ "bool", PY_K_BOOL, PY_K_BOOL },
		{ "int", PY_K_LONG, PY_K_INT2 },
		{ "long", PY_K_OTHER, PY_K_LONG },
		{ "float", PY_K_FLOAT, PY_K_FLOAT },
		{ "complex", PY_K_COMPLEX, PY_K_COMPLEX },
		{ "str", PY_K_STR, PY_K_BYTES },
		{ "unicode", PY_K_OTHER, PY_K_STR },
		{ "bytes", PY_K_BYTES, PY_K_OTHER },
		{ "list", PY_K_LIST, PY_K_LIST },
		{ "tuple", PY_K_TUPLE, PY_K_TUPLE },
		{ "dict", PY_K_DICT, PY_K_DICT },
		{ "set", PY_K_SET, PY_K_SET },
		{ "frozenset", PY_K_FROZENSET, PY_K_FROZENSET },
		{ "type", PY_K_TYPE, PY_K_TYPE },
		{ "code", PY_K_CODE, PY_K_CODE },
		{ "ellipsis", PY_K_ELLIPSIS, PY_K_ELLIPSIS },
		{ "NotImplementedType", PY_K_NOTIMPLEMENTED, PY_K_NOTIMPLEMENTED },
		{ "module", PY_K_MODULE, PY_K_MODULE },
		{ "function", PY_K_FUNCTION, PY_K_FUNCTION },
		{ "<dummy>", PY_K_DUMMY, PY_K_OTHER },
	};
	if (flags & TPFLAGS_HEAPTYPE)
		return PY_K_OTHER;
	for (size_t i = 0; i < PY_ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i].name))
			return o->py2 ? builtins[i].py2 : builtins[i].py3;
	return PY_K_OTHER;
}

static struct sg_error *read_type(struct py_proc *p, uint64_t type, char **name, uint64_t *flags)
{
	uint64_t name_ptr;
	struct sg_error *err = py_obj_ptr(p, type, PY_TP_NAME, &name_ptr);
	if (!err)
		err = py_obj_field(p, type, PY_TP_FLAGS, flags);
	if (!err && !(err = py_count_reads(p, 1)))
		err = sg_target_read_string(p->target, name_ptr, 128, name, NULL);
	return err;
}

/* A type that does not define its own repr keeps the tp_repr of its base:
   a class defined in Python that derives from list without a __repr__
   prints as a list, a metaclass without one (ctypes' PyCFuncPtrType)
   prints its classes as type does.  The kind of the nearest built-in base
   whose tp_repr TYPE shares, or PY_K_OTHER.  */
static enum py_kind inherited_kind(struct py_objs *o, uint64_t type)
{
	struct py_proc *p = o->p;
	uint64_t repr, base_repr, base = type, flags;
	enum py_kind kind = PY_K_OTHER;
	if (!py_has(p, PY_TP_BASE) || !py_ok(py_obj_ptr(p, type, PY_TP_REPR, &repr)))
		return PY_K_OTHER;
	for (int i = 0; i < 64 && kind == PY_K_OTHER; i++) {
		char *name;
		if (!py_ok(py_obj_ptr(p, base, PY_TP_BASE, &base)) || !base ||
		    !py_ok(read_type(p, base, &name, &flags)))
			return PY_K_OTHER;
		kind = classify(o, name, flags);
		free(name);
	}
	if (!py_ok(py_obj_ptr(p, base, PY_TP_REPR, &base_repr)) || base_repr != repr)
		return PY_K_OTHER;
	switch (kind) {
	case PY_K_LONG:
	case PY_K_INT2:
	case PY_K_FLOAT:
	case PY_K_COMPLEX:
	case PY_K_STR:
	case PY_K_BYTES:
	case PY_K_LIST:
	case PY_K_TUPLE:
	case PY_K_DICT:
	case PY_K_SET:
	case PY_K_FROZENSET:
	case PY_K_TYPE:
		return kind;
	default:
		return PY_K_OTHER;
	}
}

/* The __module__ of a class defined in Python, or NULL.  */
static char *heap_module(struct py_objs *o, uint64_t type)
{
	uint64_t dict, v = 0;
	if (!py_ok(py_obj_ptr(o->p, type, PY_TP_DICT, &dict)) || !dict ||
	    !py_ok(py_dict_lookup(o, dict, "__module__", &v)) || !v)
		return NULL;
	return py_obj_text(o, v, 256);
}

/* Where ht_qualname is, or 0.  It comes right before ht_cached_keys in
   every version that has them: when the two disagree, as they do for a
   stripped 3.15 whose _Py_DebugOffsets gives ht_cached_keys and whose
   ht_qualname comes from the 3.13 table (3.15's PyTypeObject grew by a
   pointer), ht_cached_keys wins.  */
static uint64_t ht_qualname_off(const struct py_proc *p)
{
	if (!py_has(p, PY_HT_QUALNAME))
		return 0;
	if (py_has(p, PY_HT_CACHED_KEYS) &&
	    p->offs.off[PY_HT_CACHED_KEYS] != p->offs.off[PY_HT_QUALNAME] + 8)
		return p->offs.off[PY_HT_CACHED_KEYS] - 8;
	return p->offs.off[PY_HT_QUALNAME];
}

/* 3.x: the __qualname__ of a heap type (a class defined in Python, or
   made from a PyType_Spec), or NULL.  */
static char *heap_qualname(struct py_objs *o, uint64_t type)
{
	uint64_t off = ht_qualname_off(o->p), qual;
	if (!off || !py_ok(py_obj_u64(o->p, type + off, &qual)) || !qual)
		return NULL;
	return py_obj_text(o, qual, 512);
}

struct sg_error *py_type_info(struct py_objs *o, uint64_t type, const struct py_type **ret)
{
	for (size_t i = 0; i < o->ntypes; i++) {
		if (o->types[i].type == type) {
			*ret = &o->types[i];
			return NULL;
		}
	}
	if (o->spare.name && o->spare.type == type) {
		*ret = &o->spare;
		return NULL;
	}
	char *name, *qualified = NULL;
	uint64_t flags;
	struct sg_error *err = read_type(o->p, type, &name, &flags);
	if (err)
		return sg_error_prefix(err, "type at 0x%" PRIx64, type);
	enum py_kind kind = classify(o, name, flags);
	bool heap = flags & TPFLAGS_HEAPTYPE, inherited = false;
	/* A class's names are str objects, whose type is static: deeper
	   nesting is hostile memory.  */
	if (kind == PY_K_OTHER) {
		kind = inherited_kind(o, type);
		inherited = kind != PY_K_OTHER;
	}
	if (heap && o->type_depth < 2) {
		o->type_depth++;
		/* Python names it by __module__ and __qualname__; tp_name
		   is the name alone, or has the module too when the type was
		   made from a PyType_Spec (3.12's collections.defaultdict).  */
		char *module = heap_module(o, type);
		char *qualname = heap_qualname(o, type);
		const char *dot = strrchr(name, '.');
		const char *last = qualname ? qualname : dot ? dot + 1 : name;
		if (module && strcmp(module, o->py2 ? "__builtin__" : "builtins") &&
		    asprintf(&qualified, "%s.%s", module, last) < 0)
			qualified = NULL;
		if (!module && qualname)
			qualified = strdup(qualname);
		free(module);
		free(qualname);
		o->type_depth--;
	}
	if (!qualified && !(qualified = strdup(name))) {
		free(name);
		return &sg_enomem;
	}
	struct py_type *t = o->ntypes < PY_MAX_TYPES ? &o->types[o->ntypes++] : &o->spare;
	free(t->name);
	free(t->qualified);
	*t = (struct py_type){
		.type = type,
		.kind = kind,
		.heap = heap,
		.inherited = inherited,
		.name = name,
		.qualified = qualified,
	};
	*ret = t;
	return NULL;
}

struct sg_error *py_type_of(struct py_objs *o, uint64_t obj, const struct py_type **ret)
{
	uint64_t type;
	struct sg_error *err = py_obj_ptr(o->p, obj, PY_OB_TYPE, &type);
	if (!err)
		err = py_type_info(o, type, ret);
	return err ? sg_error_prefix(err, "object at 0x%" PRIx64, obj) : NULL;
}

/* ---- dicts ---- */

/* 2.7: an open-addressing table of PyDictEntry { hash, key, value }; free
   and dummy slots have no value.  */
static struct sg_error *dict_walk27(struct py_objs *o, uint64_t obj, uint64_t used,
				    py_item_fn *fn, void *arg)
{
	struct py_proc *p = o->p;
	uint64_t mask, table;
	struct sg_error *err = PY_NEED(p, PY_DKE_SIZE, PY_DKE_KEY, PY_DKE_VALUE);
	if (!err)
		err = py_obj_field(p, obj, PY_DICT_MASK, &mask);
	if (!err)
		err = py_obj_ptr(p, obj, PY_DICT_TABLE, &table);
	if (err)
		return err;
	if (mask >= PY_MAX_ITEMS || (mask & (mask + 1)))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "dict at 0x%" PRIx64 " has mask 0x%" PRIx64, obj, mask);
	uint64_t esize = p->offs.off[PY_DKE_SIZE];
	unsigned char e[64];
	if (esize > sizeof(e) || !esize)
		esize = 24;
	uint64_t found = 0;
	for (uint64_t i = 0; i <= mask && found < used && !o->stop; i++) {
		if ((err = py_obj_read(p, table + i * esize, e, esize)))
			return err;
		uint64_t key = le64(e + p->offs.off[PY_DKE_KEY]);
		uint64_t value = le64(e + p->offs.off[PY_DKE_VALUE]);
		if (!value)
			continue;
		found++;
		if (!fn(key, value, arg))
			break;
	}
	return NULL;
}

/* 3.6-3.10 layout of PyDictKeysObject and PyDictKeyEntry, the same in all
   of them, for interpreters whose DWARF or table lacks them (the struct is
   private to dictobject.c before 3.11, so the tables cannot have it).  */
static uint64_t off_or(const struct py_proc *p, enum py_field f, uint64_t fallback)
{
	return py_has(p, f) ? p->offs.off[f] : fallback;
}

/* A PyDictKeysObject (3.6+): its entries and how to read them.  */
struct keys {
	uint64_t kind;		/* 3.11+: 0 general, 1 unicode, 2 split */
	uint64_t nentries, entries;
	uint64_t esize, koff, voff;
};

static struct sg_error *read_keys(struct py_proc *p, uint64_t keys, struct keys *k)
{
	uint64_t size;
	struct sg_error *err;
	bool v311 = p->version >= PY_V(3, 11);
	*k = (struct keys){ 0 };
	if (v311 && (err = PY_NEED(p, PY_DK_INDICES, PY_DKE_SIZE, PY_DKE_KEY, PY_DKE_VALUE,
				   PY_DUE_SIZE, PY_DUE_KEY, PY_DUE_VALUE, PY_DV_VALUES)))
		return err;
	if (v311) {
		uint64_t log2_size, log2_index;
		err = py_obj_field(p, keys, PY_DK_LOG2_SIZE, &log2_size);
		if (!err)
			err = py_obj_field(p, keys, PY_DK_LOG2_INDEX_BYTES, &log2_index);
		if (!err)
			err = py_obj_field(p, keys, PY_DK_KIND, &k->kind);
		if (!err)
			err = py_obj_field(p, keys, PY_DK_NENTRIES, &k->nentries);
		if (err)
			return err;
		if (log2_size >= 40 || log2_index >= 43)
			return sg_error_format(SG_ERROR_BAD_DATA, "dict keys at 0x%" PRIx64
					       " have 2^%" PRIu64 " slots", keys, log2_size);
		size = UINT64_C(1) << log2_size;
		k->entries = keys + p->offs.off[PY_DK_INDICES] + (UINT64_C(1) << log2_index);
	} else {
		uint64_t ne_off = off_or(p, PY_DK_NENTRIES, 32);
		if ((err = py_obj_u64(p, keys + off_or(p, PY_DK_SIZE, 8), &size)) ||
		    (err = py_obj_u64(p, keys + ne_off, &k->nentries)))
			return err;
		if (size > PY_MAX_ITEMS || (size & (size - 1)))
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "dict keys at 0x%" PRIx64 " have %" PRIu64 " slots",
					       keys, size);
		unsigned ix = size <= 0xff ? 1 : size <= 0xffff ? 2 : size <= 0xffffffff ? 4 : 8;
		k->entries = keys + off_or(p, PY_DK_INDICES, 40) + size * ix;
	}
	if (k->nentries > size)
		return sg_error_format(SG_ERROR_BAD_DATA, "dict keys at 0x%" PRIx64 " have %" PRIu64
				       " entries for %" PRIu64 " slots", keys, k->nentries, size);
	bool unicode = v311 && k->kind != 0;
	k->esize = unicode ? p->offs.off[PY_DUE_SIZE] : off_or(p, PY_DKE_SIZE, 24);
	k->koff = unicode ? p->offs.off[PY_DUE_KEY] : off_or(p, PY_DKE_KEY, 8);
	k->voff = unicode ? p->offs.off[PY_DUE_VALUE] : off_or(p, PY_DKE_VALUE, 16);
	if (!k->esize || k->esize > 64 || k->koff + 8 > k->esize || k->voff + 8 > k->esize)
		return sg_error_format(SG_ERROR_BAD_DATA, "bad dict entry layout");
	return NULL;
}

/* 3.11+: the USED values at VALUES (a PyDictValues) of a split table, in
   their own insertion order: a byte array before the values (3.11, 3.12)
   or after them (3.13+).  OBJ names the owner in errors.  */
static struct sg_error *split_walk(struct py_objs *o, uint64_t obj, const struct keys *k,
				   uint64_t values, uint64_t used, py_item_fn *fn, void *arg)
{
	struct py_proc *p = o->p;
	uint64_t base = values + p->offs.off[PY_DV_VALUES];
	unsigned char order[256], e[64];
	struct sg_error *err;
	if (used > 255)
		return sg_error_format(SG_ERROR_BAD_DATA, "split dict at 0x%" PRIx64
				       " has %" PRIu64 " items", obj, used);
	if (p->version >= PY_V(3, 13)) {
		/* PyDictValues { uint8_t capacity, size, embedded, valid;
		   values[capacity]; } then the order array.  */
		unsigned char cap;
		if ((err = py_obj_read(p, values, &cap, 1)) ||
		    (used && (err = py_obj_read(p, base + 8 * (uint64_t)cap, order, used))))
			return err;
	} else {
		/* The order array grows down from values - 3.  */
		unsigned char rev[256];
		if (used && (err = py_obj_read(p, values - 2 - used, rev, used)))
			return err;
		for (uint64_t i = 0; i < used; i++)
			order[i] = rev[used - 1 - i];
	}
	for (uint64_t i = 0; i < used && !o->stop; i++) {
		uint64_t ix = order[o->newest_first ? used - 1 - i : i], value;
		if (ix >= k->nentries)
			return sg_error_format(SG_ERROR_BAD_DATA, "split dict at 0x%"
					       PRIx64 ": bad order", obj);
		if ((err = py_obj_read(p, k->entries + ix * k->esize, e, k->esize)) ||
		    (err = py_obj_u64(p, base + 8 * ix, &value)))
			return err;
		if (value && !fn(le64(e + k->koff), value, arg))
			break;
	}
	return NULL;
}

/* 3.6+: an array of entries in insertion order behind the index table;
   deleted entries have no value.  Split tables keep the values apart:
   ma_values[i] (3.6-3.10, by entry), and from 3.11 in their own
   insertion order (split_walk).  */
static struct sg_error *dict_walk3(struct py_objs *o, uint64_t obj, uint64_t used,
				   py_item_fn *fn, void *arg)
{
	struct py_proc *p = o->p;
	uint64_t keys, values;
	struct keys k;
	struct sg_error *err = py_obj_ptr(p, obj, PY_DICT_KEYS, &keys);
	if (!err)
		err = py_obj_ptr(p, obj, PY_DICT_VALUES, &values);
	if (!err)
		err = read_keys(p, keys, &k);
	if (err)
		return err;
	if (values && p->version >= PY_V(3, 11))
		return split_walk(o, obj, &k, values, used, fn, arg);
	unsigned char e[64];
	uint64_t found = 0;
	for (uint64_t n = 0; n < k.nentries && found < used && !o->stop; n++) {
		uint64_t value, i = o->newest_first ? k.nentries - 1 - n : n;
		if ((err = py_obj_read(p, k.entries + i * k.esize, e, k.esize)))
			return err;
		if (values)
			err = py_obj_u64(p, values + 8 * i, &value);
		else
			value = le64(e + k.voff);
		if (err)
			return err;
		if (!value)
			continue;
		found++;
		if (!fn(le64(e + k.koff), value, arg))
			break;
	}
	return NULL;
}

struct sg_error *py_dict_walk(struct py_objs *o, uint64_t dict, py_item_fn *fn, void *arg)
{
	uint64_t used;
	struct sg_error *err = py_obj_field(o->p, dict, PY_DICT_USED, &used);
	if (err)
		return err;
	if (used > PY_MAX_ITEMS)
		return sg_error_format(SG_ERROR_BAD_DATA, "dict at 0x%" PRIx64 " claims %" PRId64
				       " items", dict, (int64_t)used);
	if (!used)
		return NULL;
	return o->py2 ? dict_walk27(o, dict, used, fn, arg) : dict_walk3(o, dict, used, fn, arg);
}

char *py_obj_text(struct py_objs *o, uint64_t obj, size_t max)
{
	struct py_proc *p = o->p;
	const struct py_type *t;
	if (!py_ok(py_type_of(o, obj, &t)))
		return NULL;
	if (t->kind == PY_K_BYTES) {
		char *s;
		size_t n;
		if (!py_ok(py_count_reads(p, 1)) || !py_ok(py_read_bytes(p, obj, max, &s, &n)))
			return NULL;
		return s;
	}
	/* A string's length, its state, its data pointer and its data.  */
	uint32_t *cp;
	size_t n;
	bool more;
	if (t->kind != PY_K_STR || !py_ok(py_count_reads(p, 4)) ||
	    !py_ok(py_read_code_points(p, obj, max, &cp, &n, &more)))
		return NULL;
	char *s = malloc(4 * n + 1);
	size_t k = 0;
	for (size_t i = 0; s && i < n; i++)
		k += py_put_utf8(s + k, cp[i]);
	if (s)
		s[k] = '\0';
	free(cp);
	return s;
}

struct lookup {
	struct py_objs *o;
	const char *key;
	uint64_t value;
};

static bool match_key(uint64_t key, uint64_t value, void *arg)
{
	struct lookup *l = arg;
	char *text = py_obj_text(l->o, key, strlen(l->key) + 1);
	bool match = text && !strcmp(text, l->key);
	free(text);
	if (match)
		l->value = value;
	return !match;
}

struct sg_error *py_dict_lookup(struct py_objs *o, uint64_t dict, const char *key, uint64_t *ret)
{
	struct lookup l = { o, key, 0 };
	struct sg_error *err = py_dict_walk(o, dict, match_key, &l);
	*ret = l.value;
	return err;
}

/* ---- sets ---- */

/* The keys of a set in table order.  Free slots have no key; a deleted
   one holds the dummy key: from 3.x with hash -1 (which no real hash is)
   and the type "<dummy>"; on 2.7 a str "<dummy key>", told from a real
   one only by the count of live slots.  */
struct sg_error *py_set_walk(struct py_objs *o, uint64_t set, py_item_fn *fn, void *arg)
{
	struct py_proc *p = o->p;
	uint64_t used, mask, table;
	struct sg_error *err = PY_NEED(p, PY_SE_SIZE, PY_SE_KEY, PY_SE_HASH);
	if (!err)
		err = py_obj_field(p, set, PY_SET_USED, &used);
	if (!err)
		err = py_obj_field(p, set, PY_SET_MASK, &mask);
	if (!err)
		err = py_obj_ptr(p, set, PY_SET_TABLE, &table);
	if (err)
		return err;
	if (mask >= PY_MAX_ITEMS || (mask & (mask + 1)) || used > mask + 1)
		return sg_error_format(SG_ERROR_BAD_DATA, "set at 0x%" PRIx64 " has mask 0x%" PRIx64
				       " and %" PRIu64 " items", set, mask, used);
	uint64_t esize = p->offs.off[PY_SE_SIZE];
	if (!esize || esize > 32)
		esize = 16;
	unsigned char e[32];
	/* 2.7: are there dummies at all?  */
	bool dummies = true;
	if (o->py2) {
		uint64_t live = 0;
		for (uint64_t i = 0; i <= mask && !o->stop; i++) {
			if ((err = py_obj_read(p, table + i * esize, e, esize)))
				return err;
			live += le64(e + p->offs.off[PY_SE_KEY]) != 0;
		}
		dummies = live > used;
	}
	uint64_t found = 0;
	for (uint64_t i = 0; i <= mask && found < used && !o->stop; i++) {
		if ((err = py_obj_read(p, table + i * esize, e, esize)))
			return err;
		uint64_t key = le64(e + p->offs.off[PY_SE_KEY]);
		int64_t hash = (int64_t)le64(e + p->offs.off[PY_SE_HASH]);
		if (!key || (!o->py2 && hash == -1))
			continue;
		/* A key whose type cannot be read is printed (as an error).  */
		const struct py_type *t;
		if (py_ok(py_type_of(o, key, &t))) {
			if (t->kind == PY_K_DUMMY)
				continue;
			char *s;
			size_t n;
			if (o->py2 && dummies && t->kind == PY_K_BYTES &&
			    py_ok(py_count_reads(p, 1)) && py_ok(py_read_bytes(p, key, 16, &s, &n))) {
				bool dummy = n == 11 && !memcmp(s, "<dummy key>", 11);
				free(s);
				if (dummy)
					continue;
			}
		}
		found++;
		if (!fn(key, 0, arg))
			break;
	}
	return NULL;
}

/* ---- ints, modules ---- */

/* A PyLongObject: SHIFT-bit digits, least significant first.  Up to 3.11
   ob_size holds the sign and the number of digits; from 3.12 lv_tag does
   (bits 0-1: 0 positive, 1 zero, 2 negative; the count from bit 3).  */
struct sg_error *py_long_size(struct py_proc *p, uint64_t obj, int *sign_ret, uint64_t *n_ret)
{
	uint64_t n, v;
	int sign;
	struct sg_error *err;
	if (py_has(p, PY_LONG_TAG)) {
		if ((err = py_obj_field(p, obj, PY_LONG_TAG, &v)))
			return err;
		sign = (v & 3) == 0 ? 1 : (v & 3) == 1 ? 0 : -1;
		n = v >> 3;
	} else {
		if ((err = py_obj_field(p, obj, PY_VAR_SIZE, &v)))
			return err;
		sign = (int64_t)v < 0 ? -1 : v ? 1 : 0;
		n = (int64_t)v < 0 ? -v : v;
	}
	*sign_ret = sign;
	*n_ret = sign ? n : 0;
	return NULL;
}

unsigned py_long_digit_size(const struct py_proc *p)
{
	return p->offs.size[PY_LONG_DIGIT] == 2 ? 2 : 4;
}

/* PyModuleObject is private to moduleobject.c before 3.10 and in internal
   headers gen-tables.sh does not read for 3.10 and 3.11, so only DWARF
   has md_dict there; it follows the object header in every version,
   debug and free-threaded builds included.  */
uint64_t py_module_dict_off(const struct py_proc *p)
{
	return py_has(p, PY_MODULE_DICT) ? p->offs.off[PY_MODULE_DICT] : object_head_size(p);
}

static struct sg_error *int_value(struct py_objs *o, uint64_t obj, uint64_t *ret)
{
	struct py_proc *p = o->p;
	const struct py_type *t;
	struct sg_error *err = py_type_of(o, obj, &t);
	if (err)
		return err;
	if (t->kind == PY_K_INT2 || (o->py2 && t->kind == PY_K_BOOL))
		return py_obj_field(p, obj, PY_INT_IVAL, ret);
	if (t->kind != PY_K_LONG && t->kind != PY_K_BOOL)
		return sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not an int",
				       obj, t->name);
	uint64_t n;
	int sign;
	if ((err = PY_NEED(p, PY_LONG_DIGIT)) || (err = py_long_size(p, obj, &sign, &n)))
		return err;
	unsigned dsize = py_long_digit_size(p), shift = dsize == 2 ? 15 : 30;
	unsigned char raw[5 * 4];
	if (n * shift > 64 + shift - 1)
		return sg_error_format(SG_ERROR_BAD_DATA, "the int at 0x%" PRIx64 " has %" PRIu64
				       " digits: too large", obj, n);
	if (n && (err = py_obj_read(p, obj + p->offs.off[PY_LONG_DIGIT], raw, n * dsize)))
		return err;
	uint64_t v = 0;
	for (uint64_t i = n; i-- > 0;) {
		uint32_t d = dsize == 2 ? (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8
					: (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
						  (uint32_t)raw[4 * i + 2] << 16 |
						  (uint32_t)raw[4 * i + 3] << 24;
		if (v >> (64 - shift))
			return sg_error_format(SG_ERROR_BAD_DATA, "the int at 0x%" PRIx64
					       " is too large", obj);
		v = v << shift | (d & ((UINT32_C(1) << shift) - 1));
	}
	*ret = sign < 0 ? -v : v;
	return NULL;
}

/* ---- attributes ---- */

/* Where the attributes of OBJ, of type TYPE with flags FLAGS, are: in a
   dict (*DICT), or in the values of a split table whose keys are the
   type's ht_cached_keys (*VALUES, 3.11+).  Both 0: none yet.

   Up to 3.10 (and for types that do not leave it to the interpreter)
   the dict pointer is at tp_dictoffset.  3.11+ manages the dict of
   classes defined in Python (Py_TPFLAGS_MANAGED_DICT) in words before the
   object: 3.11 the values pointer at -32 and the dict at -24; 3.12 one
   word at -24, the values pointer minus 1 (tagged by the low bit) or the
   dict; 3.13+ the dict at -24 (-8 free-threaded), and with
   Py_TPFLAGS_INLINE_VALUES the values inline after the object, at
   tp_basicsize, while they are valid.  */
static struct sg_error *attr_storage(struct py_proc *p, uint64_t obj, uint64_t type,
				     uint64_t flags, uint64_t *dict, uint64_t *values)
{
	struct sg_error *err;
	*dict = *values = 0;
	if (p->version >= PY_V(3, 11) && (flags & TPFLAGS_MANAGED_DICT)) {
		if (p->version == PY_V(3, 11)) {
			if ((err = py_obj_u64(p, obj - 32, values)) || *values)
				return err;
			return py_obj_u64(p, obj - 24, dict);
		}
		if (p->version == PY_V(3, 12)) {
			uint64_t v;
			if ((err = py_obj_u64(p, obj - 24, &v)))
				return err;
			if (v & 1)
				*values = v + 1;
			else
				*dict = v;
			return NULL;
		}
		if ((err = py_obj_u64(p, obj - (p->free_threaded ? 8 : 24), dict)) || *dict ||
		    !(flags & TPFLAGS_INLINE_VALUES))
			return err;
		uint64_t size;
		unsigned char valid;
		if ((err = py_obj_field(p, type, PY_TP_BASICSIZE, &size)))
			return err;
		if (size < object_head_size(p) || size > (1u << 20) || size % 8)
			return sg_error_format(SG_ERROR_BAD_DATA, "type at 0x%" PRIx64
					       " has tp_basicsize %" PRIu64, type, size);
		/* PyDictValues: capacity, size, embedded, valid.  */
		if ((err = py_obj_read(p, obj + size + 3, &valid, 1)))
			return err;
		*values = valid ? obj + size : 0;
		return NULL;
	}
	uint64_t off;
	if ((err = py_obj_field(p, type, PY_TP_DICTOFFSET, &off)))
		return err;
	if ((int64_t)off > 0 && off < (1u << 20))
		return py_obj_u64(p, obj + off, dict);
	return sg_error_format(SG_ERROR_LOOKUP, "object at 0x%" PRIx64 " has %s __dict__", obj,
			       (int64_t)off < 0 ? "a variable-size object's" : "no");
}

/* The attribute NAME of OBJ in the values VALUES of a split table
   whose keys are the type's.  */
static struct sg_error *values_get_str(struct py_objs *o, uint64_t type, uint64_t values,
				       const char *name, uint64_t *ret)
{
	struct py_proc *p = o->p;
	uint64_t keys;
	struct keys k;
	unsigned char used;
	struct sg_error *err = py_obj_ptr(p, type, PY_HT_CACHED_KEYS, &keys);
	if (!err && !keys)
		err = sg_error_format(SG_ERROR_BAD_DATA, "type at 0x%" PRIx64
				      " has values but no cached keys", type);
	if (!err)
		err = read_keys(p, keys, &k);
	if (!err && k.kind != 2)
		err = sg_error_format(SG_ERROR_BAD_DATA, "the cached keys of type at 0x%" PRIx64
				      " are not split (kind %" PRIu64 ")", type, k.kind);
	/* The number of values: PyDictValues.size (3.13+), the byte 2
	   before the values (3.11, 3.12).  */
	if (!err)
		err = py_obj_read(p, p->version >= PY_V(3, 13) ? values + 1 : values - 2, &used, 1);
	if (err)
		return err;
	struct lookup l = { o, name, 0 };
	err = split_walk(o, values, &k, values, used, match_key, &l);
	*ret = l.value;
	return err;
}

/* An error unless OBJ is a dict (or a subclass of dict that prints as
   one).  */
static struct sg_error *need_dict(struct py_objs *o, uint64_t obj)
{
	const struct py_type *t;
	struct sg_error *err = py_type_of(o, obj, &t);
	if (!err && t->kind != PY_K_DICT)
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not a dict",
				      obj, t->name);
	return err;
}

static struct sg_error *object_attr(struct py_objs *o, uint64_t obj, const char *name,
				    uint64_t *ret)
{
	struct py_proc *p = o->p;
	uint64_t type, flags, dict, values;
	char *tname;
	struct sg_error *err = py_obj_ptr(p, obj, PY_OB_TYPE, &type);
	if (!err)
		err = read_type(p, type, &tname, &flags);
	if (err)
		return err;
	free(tname);
	*ret = 0;
	if ((err = attr_storage(p, obj, type, flags, &dict, &values)))
		return err;
	if (dict && !(err = need_dict(o, dict)))
		err = py_dict_lookup(o, dict, name, ret);
	else if (values)
		err = values_get_str(o, type, values, name, ret);
	return err;
}

/* ---- lookups for the other files ---- */

struct items_fn {
	int (*fn)(uint64_t key, uint64_t value, void *arg);
	void *arg;
};

static bool call_items_fn(uint64_t key, uint64_t value, void *arg)
{
	struct items_fn *f = arg;
	return f->fn(key, value, f->arg) == SG_CB_OK;
}

struct sg_error *py_dict_items(struct py_proc *p, uint64_t dict,
			       int (*fn)(uint64_t key, uint64_t value, void *arg), void *arg)
{
	struct py_objs o;
	py_objs_init(&o, p);
	struct items_fn f = { fn, arg };
	struct sg_error *err = py_dict_walk(&o, dict, call_items_fn, &f);
	py_objs_fini(&o);
	return err;
}

/* Newest first: what a program adds late (sys.modules' "threading",
   threading's "_active") is found reading fewer keys, each one a str
   somewhere in the target, one page read from it more.  */
struct sg_error *py_dict_get_str(struct py_proc *p, uint64_t dict, const char *key, uint64_t *ret)
{
	struct py_objs o;
	py_objs_init(&o, p);
	o.newest_first = true;
	*ret = 0;
	struct sg_error *err = need_dict(&o, dict);
	if (!err)
		err = py_dict_lookup(&o, dict, key, ret);
	py_objs_fini(&o);
	return err;
}

struct sg_error *py_str_text(struct py_proc *p, uint64_t obj, size_t max, char **ret)
{
	struct py_objs o;
	py_objs_init(&o, p);
	const struct py_type *t;
	struct sg_error *err = py_type_of(&o, obj, &t);
	if (!err && t->kind != PY_K_STR && !(o.py2 && t->kind == PY_K_BYTES))
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not a str",
				      obj, t->name);
	if (!err && !(*ret = py_obj_text(&o, obj, max)))
		err = py_budget_spent(p) ? sg_error_create(SG_ERROR_BAD_DATA, PY_TOO_MANY_READS)
		    : sg_error_format(SG_ERROR_BAD_DATA, "cannot read the str at 0x%" PRIx64, obj);
	py_objs_fini(&o);
	return err;
}

struct sg_error *py_int_value(struct py_proc *p, uint64_t obj, uint64_t *ret)
{
	struct py_objs o;
	py_objs_init(&o, p);
	struct sg_error *err = int_value(&o, obj, ret);
	py_objs_fini(&o);
	return err;
}

struct sg_error *py_module_dict(struct py_proc *p, uint64_t module, uint64_t *ret)
{
	struct py_objs o;
	py_objs_init(&o, p);
	const struct py_type *t;
	struct sg_error *err = py_type_of(&o, module, &t);
	if (!err && t->kind != PY_K_MODULE)
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64
				      " is a %s, not a module", module, t->name);
	if (!err)
		err = py_obj_u64(p, module + py_module_dict_off(p), ret);
	if (!err && !*ret)
		err = sg_error_format(SG_ERROR_BAD_DATA, "module at 0x%" PRIx64 " has no dict",
				      module);
	py_objs_fini(&o);
	return err;
}

struct sg_error *py_object_attr(struct py_proc *p, uint64_t obj, const char *name, uint64_t *ret)
{
	struct py_objs o;
	py_objs_init(&o, p);
	struct sg_error *err = object_attr(&o, obj, name, ret);
	py_objs_fini(&o);
	return err ? sg_error_prefix(err, "attribute %s of 0x%" PRIx64, name, obj) : NULL;
}
