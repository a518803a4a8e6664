/* repr(): a bounded repr of an object in the target, printed as the
   target's Python prints it (Python 2's rules on 2.7, Python 3's on 3.x).

   Built-in types are recognized by their exact tp_name, and only when the
   type is static (not a heap type): a class of the script that happens to
   be called "list" is not taken for the built-in one.  A subclass prints
   as its built-in base does when it keeps the base's tp_repr (defines no
   __repr__), as Python would; other objects print as object.__repr__
   does, "<module.Class object at 0x...>".  Python code (a __repr__) is
   never run: objects whose repr is written in Python, or in C for types
   other than these, print that way too.

   Everything is bounded: LIMIT elements per container and characters per
   string, MAX_DEPTH levels of nesting, MAX_OUTPUT bytes of output and
   MAX_READS reads from the target, so that hostile or half-written memory
   cannot hang or exhaust the debugger.  An element that cannot be read is
   printed as <error: ...> in its place.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32
#define MAX_OUTPUT (1u << 20)
#define MAX_READS (1u << 20)
#define MAX_TYPES 64
/* Ints are printed in decimal up to MAX_INT_DECIMAL digits; longer ones,
   and those of more than MAX_INT_DIGITS 30-bit digits (which are longer
   for sure), print as "<int of N digits>".  */
#define MAX_INT_DECIMAL 5000
#define MAX_INT_DIGITS 600
/* Container sizes and hash table masks beyond this are garbage.  */
#define MAX_ITEMS (UINT64_C(1) << 40)
/* Items read from the target at once.  */
#define CHUNK 64

/* tp_flags bits, the same on 2.7 and every 3.x.  */
#define TPFLAGS_HEAPTYPE (UINT64_C(1) << 9)

enum kind {
	K_OTHER,
	K_NONE,
	K_BOOL,
	K_LONG,		/* PyLongObject: 3.x int, 2.7 long */
	K_INT2,		/* 2.7 int (PyIntObject) */
	K_FLOAT,
	K_COMPLEX,
	K_STR,		/* 3.x str, 2.7 unicode */
	K_BYTES,	/* 3.x bytes, 2.7 str */
	K_LIST,
	K_TUPLE,
	K_DICT,
	K_SET,
	K_FROZENSET,
	K_TYPE,
	K_CODE,
	K_ELLIPSIS,
	K_NOTIMPLEMENTED,
	K_MODULE,
	K_FUNCTION,
	K_DUMMY,	/* the dummy key of sets (3.x) */
};

struct type_info {
	uint64_t type;
	enum kind kind;
	bool heap;
	/* KIND comes from a built-in base whose repr the type inherits.  */
	bool inherited;
	char *name;		/* tp_name */
	/* As Python's reprs name it: "module.name" for a class defined in
	   Python (its __module__), tp_name for a C type.  */
	char *qualified;
};

struct ctx {
	struct py_proc *p;
	FILE *out;
	size_t limit;		/* 0: no limit */
	size_t written;
	bool full;		/* MAX_OUTPUT or MAX_READS reached */
	size_t reads;
	bool py2;
	/* The containers being printed, outermost first.  */
	uint64_t stack[MAX_DEPTH];
	size_t depth;
	/* Types seen in this call; SPARE holds the last one when full.  */
	struct type_info types[MAX_TYPES];
	size_t ntypes;
	struct type_info spare;
	/* Nesting of type_info(), which reads the __module__ of classes.  */
	unsigned type_depth;
	/* Dict walks (3.6+) go from the newest item to the oldest.  */
	bool newest_first;
};

/* ---- output ---- */

static void put(struct ctx *c, const char *s, size_t n)
{
	if (c->full)
		return;
	if (n > MAX_OUTPUT - c->written) {
		n = MAX_OUTPUT - c->written;
		c->full = true;
	}
	fwrite(s, 1, n, c->out);
	c->written += n;
}

static void puts_c(struct ctx *c, const char *s)
{
	put(c, s, strlen(s));
}

static void SG_PRINTF(2, 3) printf_c(struct ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(c, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void put_error(struct ctx *c, struct sg_error *err)
{
	if (!c->full)
		printf_c(c, "<error: %s>", sg_error_message(err));
	sg_error_destroy(err);
}

/* ---- reading, counted ---- */

static struct sg_error *count_read(struct ctx *c)
{
	if (++c->reads <= MAX_READS)
		return NULL;
	c->full = true;
	return sg_error_create(SG_ERROR_BAD_DATA, "too many reads for one value");
}

static struct sg_error *rd(struct ctx *c, uint64_t addr, void *buf, size_t n)
{
	struct sg_error *err = count_read(c);
	return err ? err : sg_target_read(c->p->target, addr, buf, n);
}

static struct sg_error *rd_u64(struct ctx *c, uint64_t addr, uint64_t *ret)
{
	struct sg_error *err = count_read(c);
	return err ? err : sg_target_read_u64(c->p->target, addr, ret);
}

static struct sg_error *rd_field(struct ctx *c, uint64_t obj, enum py_field f, uint64_t *ret)
{
	struct sg_error *err = count_read(c);
	return err ? err : py_read_field(c->p, obj, f, ret);
}

static struct sg_error *rd_ptr(struct ctx *c, uint64_t obj, enum py_field f, uint64_t *ret)
{
	struct sg_error *err = count_read(c);
	return err ? err : py_read_ptr(c->p, obj, f, ret);
}

/* An error unless P has every one of the N fields F.  */
static struct sg_error *need_fields(const struct py_proc *p, const enum py_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (py_has(p, f[i]))
			continue;
		const struct py_field_spec *s = &py_field_specs[f[i]];
		return sg_error_format(SG_ERROR_LOOKUP, "no offset for %s%s%s in Python %u.%u (%s)",
				       s->member ? s->member : "sizeof ", s->member ? " of " : "",
				       s->type, p->version >> 8, p->version & 0xff, p->offs.source);
	}
	return NULL;
}

#define NEED(p, ...)                                                                  \
	need_fields((p), (const enum py_field[]){ __VA_ARGS__ },                      \
		    sizeof((const enum py_field[]){ __VA_ARGS__ }) / sizeof(enum py_field))

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

/* ---- types ---- */

static enum kind classify(const struct ctx *c, const char *name, uint64_t flags)
{
	static const struct {
		const char *name;
		enum kind py3, py2;
	} builtins[] = {
		{ "NoneType", K_NONE, K_NONE },
		{ "bool", K_BOOL, K_BOOL },
		{ "int", K_LONG, K_INT2 },
		{ "long", K_OTHER, K_LONG },
		{ "float", K_FLOAT, K_FLOAT },
		{ "complex", K_COMPLEX, K_COMPLEX },
		{ "str", K_STR, K_BYTES },
		{ "unicode", K_OTHER, K_STR },
		{ "bytes", K_BYTES, K_OTHER },
		{ "list", K_LIST, K_LIST },
		{ "tuple", K_TUPLE, K_TUPLE },
		{ "dict", K_DICT, K_DICT },
		{ "set", K_SET, K_SET },
		{ "frozenset", K_FROZENSET, K_FROZENSET },
		{ "type", K_TYPE, K_TYPE },
		{ "code", K_CODE, K_CODE },
		{ "ellipsis", K_ELLIPSIS, K_ELLIPSIS },
		{ "NotImplementedType", K_NOTIMPLEMENTED, K_NOTIMPLEMENTED },
		{ "module", K_MODULE, K_MODULE },
		{ "function", K_FUNCTION, K_FUNCTION },
		{ "<dummy>", K_DUMMY, K_OTHER },
	};
	if (flags & TPFLAGS_HEAPTYPE)
		return K_OTHER;
	for (size_t i = 0; i < PY_ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i].name))
			return c->py2 ? builtins[i].py2 : builtins[i].py3;
	return K_OTHER;
}

static bool ok(struct sg_error *err)
{
	sg_error_destroy(err);
	return !err;
}

static struct sg_error *read_type(struct ctx *c, uint64_t type, char **name, uint64_t *flags)
{
	uint64_t name_ptr;
	struct sg_error *err = rd_ptr(c, type, PY_TP_NAME, &name_ptr);
	if (!err)
		err = rd_field(c, type, PY_TP_FLAGS, flags);
	if (!err && !(err = count_read(c)))
		err = sg_target_read_string(c->p->target, name_ptr, 128, name, NULL);
	return err;
}

/* A type that does not define its own repr keeps the tp_repr of its base:
   a class defined in Python that derives from list without a __repr__
   prints as a list, a metaclass without one (ctypes' PyCFuncPtrType)
   prints its classes as type does.  The kind of the nearest built-in base
   whose tp_repr TYPE shares, or K_OTHER.  */
static enum kind inherited_kind(struct ctx *c, uint64_t type)
{
	struct py_proc *p = c->p;
	uint64_t repr, base_repr, base = type, flags;
	enum kind kind = K_OTHER;
	if (!py_has(p, PY_TP_BASE) || !ok(rd_ptr(c, type, PY_TP_REPR, &repr)))
		return K_OTHER;
	for (int i = 0; i < 64 && kind == K_OTHER; i++) {
		char *name;
		if (!ok(rd_ptr(c, base, PY_TP_BASE, &base)) || !base ||
		    !ok(read_type(c, base, &name, &flags)))
			return K_OTHER;
		kind = classify(c, name, flags);
		free(name);
	}
	if (!ok(rd_ptr(c, base, PY_TP_REPR, &base_repr)) || base_repr != repr)
		return K_OTHER;
	switch (kind) {
	case K_LONG:
	case K_INT2:
	case K_FLOAT:
	case K_COMPLEX:
	case K_STR:
	case K_BYTES:
	case K_LIST:
	case K_TUPLE:
	case K_DICT:
	case K_SET:
	case K_FROZENSET:
	case K_TYPE:
		return kind;
	default:
		return K_OTHER;
	}
}

static struct sg_error *dict_get_str(struct ctx *c, uint64_t dict, const char *key,
				     uint64_t *ret);
static char *obj_text(struct ctx *c, uint64_t obj, size_t max);

/* The __module__ of a class defined in Python, or NULL.  */
static char *heap_module(struct ctx *c, uint64_t type)
{
	uint64_t dict, v = 0;
	if (!ok(rd_ptr(c, type, PY_TP_DICT, &dict)) || !dict ||
	    !ok(dict_get_str(c, dict, "__module__", &v)) || !v)
		return NULL;
	return obj_text(c, v, 256);
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
static char *heap_qualname(struct ctx *c, uint64_t type)
{
	uint64_t off = ht_qualname_off(c->p), qual;
	if (!off || !ok(rd_u64(c, type + off, &qual)) || !qual)
		return NULL;
	return obj_text(c, qual, 512);
}

/* What is known of the type at TYPE, read once per call.  */
static struct sg_error *type_info(struct ctx *c, uint64_t type, const struct type_info **ret)
{
	for (size_t i = 0; i < c->ntypes; i++) {
		if (c->types[i].type == type) {
			*ret = &c->types[i];
			return NULL;
		}
	}
	if (c->spare.name && c->spare.type == type) {
		*ret = &c->spare;
		return NULL;
	}
	char *name, *qualified = NULL;
	uint64_t flags;
	struct sg_error *err = read_type(c, type, &name, &flags);
	if (err)
		return sg_error_prefix(err, "type at 0x%" PRIx64, type);
	enum kind kind = classify(c, name, flags);
	bool heap = flags & TPFLAGS_HEAPTYPE, inherited = false;
	/* A class's names are str objects, whose type is static: deeper
	   nesting is hostile memory.  */
	if (kind == K_OTHER) {
		kind = inherited_kind(c, type);
		inherited = kind != K_OTHER;
	}
	if (heap && c->type_depth < 2) {
		c->type_depth++;
		/* Python names it by __module__ and __qualname__; tp_name
		   is the name alone, or has the module too when the type was
		   made from a PyType_Spec (3.12's collections.defaultdict).  */
		char *module = heap_module(c, type);
		char *qualname = heap_qualname(c, type);
		const char *dot = strrchr(name, '.');
		const char *last = qualname ? qualname : dot ? dot + 1 : name;
		if (module && strcmp(module, c->py2 ? "__builtin__" : "builtins") &&
		    asprintf(&qualified, "%s.%s", module, last) < 0)
			qualified = NULL;
		if (!module && qualname)
			qualified = strdup(qualname);
		free(module);
		free(qualname);
		c->type_depth--;
	}
	if (!qualified && !(qualified = strdup(name))) {
		free(name);
		return &sg_enomem;
	}
	struct type_info *t = c->ntypes < MAX_TYPES ? &c->types[c->ntypes++] : &c->spare;
	free(t->name);
	free(t->qualified);
	*t = (struct type_info){
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

/* The type of OBJ.  */
static struct sg_error *type_of(struct ctx *c, uint64_t obj, const struct type_info **ret)
{
	uint64_t type;
	struct sg_error *err = rd_ptr(c, obj, PY_OB_TYPE, &type);
	if (!err)
		err = type_info(c, type, ret);
	return err ? sg_error_prefix(err, "object at 0x%" PRIx64, obj) : NULL;
}

/* ---- numbers ---- */

/* The shortest decimal digits that read back as X (finite, > 0), and the
   position of the decimal point: X = 0.DIGITS * 10^*DECPT.  */
static void shortest_digits(double x, char *digits, int *decpt)
{
	char buf[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x || prec == 17)
			break;
	}
	/* buf: D[.DDD]e[+-]XX */
	size_t n = 0;
	const char *s = buf;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[n++] = *s;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*decpt = (int)strtol(s + 1, NULL, 10) + 1;
}

/* X as Python's repr ('r' format): "1.0" with ADD_DOT_0, "1" without (for
   complex parts); a sign always with SIGN.  */
static void format_double(double x, bool add_dot_0, bool sign, char *out, size_t size)
{
	const char *s = signbit(x) ? "-" : sign ? "+" : "";
	if (isnan(x)) {
		snprintf(out, size, "%snan", sign ? "+" : "");
		return;
	}
	if (isinf(x)) {
		snprintf(out, size, "%sinf", s);
		return;
	}
	if (x == 0) {
		snprintf(out, size, "%s0%s", s, add_dot_0 ? ".0" : "");
		return;
	}
	char d[32];
	int decpt;
	shortest_digits(x < 0 ? -x : x, d, &decpt);
	int n = (int)strlen(d);
	if (decpt <= -4 || decpt > 16) {
		snprintf(out, size, "%s%c%s%se%+03d", s, d[0], n > 1 ? "." : "", d + 1, decpt - 1);
	} else if (decpt <= 0) {
		snprintf(out, size, "%s0.%.*s%s", s, -decpt, "0000", d);
	} else if (decpt >= n) {
		snprintf(out, size, "%s%s%.*s%s", s, d, decpt - n, "0000000000000000",
			 add_dot_0 ? ".0" : "");
	} else {
		snprintf(out, size, "%s%.*s.%s", s, decpt, d, d + decpt);
	}
}

static struct sg_error *repr_float(struct ctx *c, uint64_t obj)
{
	double x;
	struct sg_error *err = NEED(c->p, PY_FLOAT_VAL);
	if (!err)
		err = rd(c, obj + c->p->offs.off[PY_FLOAT_VAL], &x, sizeof(x));
	if (err)
		return err;
	char buf[64];
	format_double(x, true, false, buf, sizeof(buf));
	puts_c(c, buf);
	return NULL;
}

static struct sg_error *repr_complex(struct ctx *c, uint64_t obj)
{
	/* cval is a Py_complex { double real, imag; }.  */
	double v[2];
	struct sg_error *err = NEED(c->p, PY_COMPLEX_CVAL);
	if (!err)
		err = rd(c, obj + c->p->offs.off[PY_COMPLEX_CVAL], v, sizeof(v));
	if (err)
		return err;
	char re[64], im[64];
	if (v[0] == 0 && !signbit(v[0])) {
		format_double(v[1], false, false, im, sizeof(im));
		printf_c(c, "%sj", im);
	} else {
		format_double(v[0], false, false, re, sizeof(re));
		format_double(v[1], false, true, im, sizeof(im));
		printf_c(c, "(%s%sj)", re, im);
	}
	return NULL;
}

static struct sg_error *repr_int2(struct ctx *c, uint64_t obj, bool is_bool)
{
	uint64_t v;
	struct sg_error *err = rd_field(c, obj, PY_INT_IVAL, &v);
	if (err)
		return err;
	if (is_bool)
		puts_c(c, v ? "True" : "False");
	else
		printf_c(c, "%" PRId64, (int64_t)v);
	return NULL;
}

/* A PyLongObject: SHIFT-bit digits, least significant first.  Up to 3.11
   ob_size holds the sign and the number of digits; from 3.12 lv_tag does
   (bits 0-1: 0 positive, 1 zero, 2 negative; the count from bit 3).  */
static struct sg_error *long_size(struct ctx *c, uint64_t obj, int *sign_ret, uint64_t *n_ret)
{
	struct py_proc *p = c->p;
	uint64_t n, v;
	int sign;
	struct sg_error *err;
	if (py_has(p, PY_LONG_TAG)) {
		if ((err = rd_field(c, obj, PY_LONG_TAG, &v)))
			return err;
		sign = (v & 3) == 0 ? 1 : (v & 3) == 1 ? 0 : -1;
		n = v >> 3;
	} else {
		if ((err = rd_field(c, obj, PY_VAR_SIZE, &v)))
			return err;
		sign = (int64_t)v < 0 ? -1 : v ? 1 : 0;
		n = (int64_t)v < 0 ? -v : v;
	}
	*sign_ret = sign;
	*n_ret = sign ? n : 0;
	return NULL;
}

/* The size of a digit of a PyLongObject: 30-bit digits in uint32, or
   15-bit ones in uint16 where a build asked for them.  */
static unsigned digit_size(const struct py_proc *p)
{
	return p->offs.size[PY_LONG_DIGIT] == 2 ? 2 : 4;
}

static struct sg_error *repr_long(struct ctx *c, uint64_t obj, bool is_bool)
{
	struct py_proc *p = c->p;
	uint64_t n;
	int sign;
	struct sg_error *err = long_size(c, obj, &sign, &n);
	if (err)
		return err;
	if (is_bool) {
		puts_c(c, n ? "True" : "False");
		return NULL;
	}
	if ((err = NEED(p, PY_LONG_DIGIT)))
		return err;
	const char *suffix = c->py2 ? "L" : "";
	const char *tname = c->py2 ? "long" : "int";
	unsigned dsize = digit_size(p);
	unsigned shift = dsize == 2 ? 15 : 30;
	if (n > MAX_INT_DIGITS) {
		/* 2^(BITS-1) <= |value| < 2^BITS, from its top digit.  */
		unsigned char b[4] = { 0 };
		if ((err = rd(c, obj + p->offs.off[PY_LONG_DIGIT] + (n - 1) * dsize, b, dsize)))
			return err;
		uint32_t top = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				(uint32_t)b[3] << 24) & ((UINT32_C(1) << shift) - 1);
		unsigned topbits = 0;
		while (top >> topbits)
			topbits++;
		double bits = (double)(n - 1) * shift + topbits;
		uint64_t lo = (uint64_t)((bits - 1) * 0.30102999566398120) + 1;
		uint64_t hi = (uint64_t)(bits * 0.30102999566398120) + 1;
		printf_c(c, "<%s of %s%" PRIu64 " digits>", tname, lo == hi ? "" : "~", lo);
		return NULL;
	}
	unsigned char raw[MAX_INT_DIGITS * 4];
	if (n && (err = rd(c, obj + p->offs.off[PY_LONG_DIGIT], raw, n * dsize)))
		return err;
	uint32_t mask = (UINT32_C(1) << shift) - 1;
	/* Base 10^9 words, least significant first.  */
	uint32_t words[MAX_INT_DIGITS * 30 / 29 + 2];
	size_t nw = 0;
	for (size_t i = n; i-- > 0;) {
		uint32_t d = dsize == 2 ? (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8
					: (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
						  (uint32_t)raw[4 * i + 2] << 16 |
						  (uint32_t)raw[4 * i + 3] << 24;
		uint64_t carry = d & mask;
		for (size_t k = 0; k < nw; k++) {
			uint64_t t = ((uint64_t)words[k] << shift) + carry;
			words[k] = (uint32_t)(t % 1000000000);
			carry = t / 1000000000;
		}
		while (carry) {
			words[nw++] = (uint32_t)(carry % 1000000000);
			carry /= 1000000000;
		}
	}
	if (!nw) {
		printf_c(c, "0%s", suffix);
		return NULL;
	}
	char top[16];
	int toplen = snprintf(top, sizeof(top), "%" PRIu32, words[nw - 1]);
	size_t ndec = (size_t)toplen + 9 * (nw - 1);
	if (ndec > MAX_INT_DECIMAL) {
		printf_c(c, "<%s of %zu digits>", tname, ndec);
		return NULL;
	}
	printf_c(c, "%s%s", sign < 0 ? "-" : "", top);
	for (size_t k = nw - 1; k-- > 0;)
		printf_c(c, "%09" PRIu32, words[k]);
	puts_c(c, suffix);
	return NULL;
}

/* ---- strings ---- */

/* Whether Python 3 prints code point CH as itself: not a control, format,
   separator (but space), surrogate, private use or non-character.  Python
   asks its Unicode database.  This table has every assigned code point of
   those categories up to Unicode 17 (Python 3.15); it takes the code
   points unassigned in the target's Unicode for printable, but for planes
   4 to 13, unassigned in every version so far.  */
static bool printable(uint32_t ch)
{
	static const struct {
		uint32_t lo, hi;
	} not_printable[] = {
		{ 0x0000, 0x001f }, { 0x007f, 0x00a0 }, { 0x00ad, 0x00ad },
		{ 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd },
		{ 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 },
		{ 0x1680, 0x1680 }, { 0x180e, 0x180e }, { 0x2000, 0x200f },
		{ 0x2028, 0x202f }, { 0x205f, 0x2064 }, { 0x2066, 0x206f },
		{ 0x3000, 0x3000 }, { 0xd800, 0xf8ff }, { 0xfdd0, 0xfdef },
		{ 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd },
		{ 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0x40000, 0xdffff }, { 0xe0000, 0xe00ff },
		{ 0xe01f0, 0x10ffff },
	};
	if ((ch & 0xfffe) == 0xfffe || ch > 0x10ffff)
		return false;
	for (size_t i = 0; i < PY_ARRAY_SIZE(not_printable); i++)
		if (ch >= not_printable[i].lo && ch <= not_printable[i].hi)
			return false;
	return true;
}

static void put_utf8(struct ctx *c, uint32_t ch)
{
	char b[4];
	size_t n;
	if (ch < 0x80) {
		b[0] = (char)ch;
		n = 1;
	} else if (ch < 0x800) {
		b[0] = (char)(0xc0 | ch >> 6);
		b[1] = (char)(0x80 | (ch & 0x3f));
		n = 2;
	} else if (ch < 0x10000) {
		b[0] = (char)(0xe0 | ch >> 12);
		b[1] = (char)(0x80 | (ch >> 6 & 0x3f));
		b[2] = (char)(0x80 | (ch & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | ch >> 18);
		b[1] = (char)(0x80 | (ch >> 12 & 0x3f));
		b[2] = (char)(0x80 | (ch >> 6 & 0x3f));
		b[3] = (char)(0x80 | (ch & 0x3f));
		n = 4;
	}
	put(c, b, n);
}

/* Code point CH of a str (3.x) or unicode (2.7) between QUOTEs.  */
static void put_char(struct ctx *c, uint32_t ch, char quote)
{
	char buf[16];
	if (ch == (uint32_t)quote || ch == '\\') {
		buf[0] = '\\';
		buf[1] = (char)ch;
		put(c, buf, 2);
	} else if (ch == '\t') {
		puts_c(c, "\\t");
	} else if (ch == '\n') {
		puts_c(c, "\\n");
	} else if (ch == '\r') {
		puts_c(c, "\\r");
	} else if (ch >= 0x20 && ch < 0x7f) {
		buf[0] = (char)ch;
		put(c, buf, 1);
	} else if (!c->py2 && ch > 0x7f && printable(ch)) {
		put_utf8(c, ch);
	} else if (ch <= 0xff) {
		printf_c(c, "\\x%02x", ch);
	} else if (ch <= 0xffff) {
		printf_c(c, "\\u%04x", ch);
	} else {
		printf_c(c, "\\U%08x", ch);
	}
}

/* Python's choice of quotes: double ones only when the text has a single
   quote and no double quote.  */
static char pick_quote(bool single, bool dbl)
{
	return single && !dbl ? '"' : '\'';
}

/* The characters a string may still print: LIMIT, and what is left of
   the output.  */
static size_t char_budget(const struct ctx *c)
{
	size_t left = MAX_OUTPUT - c->written + 1;
	return c->limit && c->limit < left ? c->limit : left;
}

/* The code points of the str (3.x) or unicode (2.7) at OBJ, at most MAX
   of them.  (py_read_str's UTF-8 cannot carry a NUL.)  */
static struct sg_error *read_code_points(struct ctx *c, uint64_t obj, size_t max, uint32_t **ret,
					 size_t *n_ret, bool *more_ret)
{
	struct py_proc *p = c->p;
	uint64_t len, data, state = 0;
	unsigned kind;
	struct sg_error *err = rd_field(c, obj, PY_UNI_LENGTH, &len);
	if (!err && py_has(p, PY_UNI_STATE))
		err = rd_field(c, obj, PY_UNI_STATE, &state);
	if (err)
		return err;
	if (len > (UINT64_C(1) << 40))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "string at 0x%" PRIx64 " claims %" PRIu64 " characters", obj,
				       len);
	if (py_has(p, PY_UNI_STATE)) {
		/* PEP 393: kind in bits 2-4, compact 5, ascii 6, since 3.3.  */
		kind = (state >> 2) & 7;
		bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
		if (kind != 1 && kind != 2 && kind != 4)
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "string at 0x%" PRIx64 " has kind %u", obj, kind);
		enum py_field head = ascii ? PY_UNI_ASCII_SIZE : PY_UNI_COMPACT_SIZE;
		if (compact && (err = NEED(p, head)))
			return err;
		if (compact)
			data = obj + p->offs.off[head];
		else if ((err = rd_ptr(c, obj, PY_UNI_DATA, &data)))
			return err;
	} else {
		/* 2.7: an array of Py_UNICODE behind a pointer.  */
		if ((err = rd_ptr(c, obj, PY_UNI_DATA, &data)))
			return err;
		kind = py_has(p, PY_UNI_CHAR_SIZE) && p->offs.off[PY_UNI_CHAR_SIZE] == 2 ? 2 : 4;
	}
	size_t n = max && len > max ? max : (size_t)len;
	unsigned char *raw = malloc(n * kind + 1);
	uint32_t *cp = malloc((n + 1) * sizeof(*cp));
	if (!raw || !cp)
		err = &sg_enomem;
	else if (n)
		err = rd(c, data, raw, n * kind);
	if (err) {
		free(raw);
		free(cp);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char *b = raw + i * kind;
		cp[i] = kind == 1   ? b[0]
			: kind == 2 ? (uint32_t)b[0] | (uint32_t)b[1] << 8
				    : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
					      (uint32_t)b[3] << 24;
	}
	free(raw);
	*ret = cp;
	*n_ret = n;
	*more_ret = n < len;
	return NULL;
}

static struct sg_error *repr_str(struct ctx *c, uint64_t obj)
{
	uint32_t *cp;
	size_t n;
	bool more;
	struct sg_error *err = read_code_points(c, obj, char_budget(c), &cp, &n, &more);
	if (err)
		return err;
	/* 2.7 with 16-bit Py_UNICODE: a surrogate pair is one character, and
	   its repr shows it as one (\U0001f600).  */
	if (c->py2 && py_has(c->p, PY_UNI_CHAR_SIZE) && c->p->offs.off[PY_UNI_CHAR_SIZE] == 2) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (cp[i] >= 0xd800 && cp[i] < 0xdc00 && i + 1 < n && cp[i + 1] >= 0xdc00 &&
			    cp[i + 1] < 0xe000) {
				cp[k++] = 0x10000 + ((cp[i] - 0xd800) << 10) + (cp[i + 1] - 0xdc00);
				i++;
			} else {
				cp[k++] = cp[i];
			}
		}
		n = k;
	}
	bool single = false, dbl = false;
	for (size_t i = 0; i < n; i++) {
		single |= cp[i] == '\'';
		dbl |= cp[i] == '"';
	}
	char quote = pick_quote(single, dbl);
	if (c->py2)
		puts_c(c, "u");
	put(c, &quote, 1);
	for (size_t i = 0; i < n && !c->full; i++)
		put_char(c, cp[i], quote);
	free(cp);
	if (more)
		puts_c(c, "...");
	put(c, &quote, 1);
	return NULL;
}

/* bytes (3.x) and str (2.7): printable ASCII as itself, the rest as
   \xNN.  */
static struct sg_error *repr_bytes(struct ctx *c, uint64_t obj)
{
	uint64_t len;
	char *s;
	size_t n;
	struct sg_error *err = rd_field(c, obj, PY_VAR_SIZE, &len);
	if (!err && !(err = count_read(c)))
		err = py_read_bytes(c->p, obj, char_budget(c), &s, &n);
	if (err)
		return err;
	bool single = memchr(s, '\'', n), dbl = memchr(s, '"', n);
	char quote = pick_quote(single, dbl);
	if (!c->py2)
		puts_c(c, "b");
	put(c, &quote, 1);
	for (size_t i = 0; i < n && !c->full; i++) {
		unsigned char ch = (unsigned char)s[i];
		char buf[8];
		if (ch == (unsigned char)quote || ch == '\\') {
			buf[0] = '\\';
			buf[1] = (char)ch;
			put(c, buf, 2);
		} else if (ch == '\t') {
			puts_c(c, "\\t");
		} else if (ch == '\n') {
			puts_c(c, "\\n");
		} else if (ch == '\r') {
			puts_c(c, "\\r");
		} else if (ch < 0x20 || ch >= 0x7f) {
			printf_c(c, "\\x%02x", ch);
		} else {
			put(c, (const char *)&ch, 1);
		}
	}
	free(s);
	if (len > n)
		puts_c(c, "...");
	put(c, &quote, 1);
	return NULL;
}

/* ---- containers ---- */

static void repr_elem(struct ctx *c, uint64_t obj);

/* Whether OBJ is being printed already (Python prints "[...]").  */
static bool on_stack(const struct ctx *c, uint64_t obj)
{
	for (size_t i = 0; i < c->depth; i++)
		if (c->stack[i] == obj)
			return true;
	return false;
}

/* The elements of an array of N object pointers at ITEMS, comma
   separated, at most LIMIT of them.  */
static void put_items(struct ctx *c, uint64_t items, uint64_t n)
{
	uint64_t buf[CHUNK];
	for (uint64_t i = 0; i < n && !c->full; i++) {
		if (i)
			puts_c(c, ", ");
		if (c->limit && i == c->limit) {
			puts_c(c, "...");
			break;
		}
		size_t k = i % CHUNK;
		if (!k) {
			size_t want = n - i < CHUNK ? n - i : CHUNK;
			struct sg_error *err = rd(c, items + 8 * i, buf, 8 * want);
			if (err) {
				put_error(c, err);
				break;
			}
		}
		repr_elem(c, buf[k]);
	}
}

static struct sg_error *seq_size(struct ctx *c, uint64_t obj, uint64_t *ret)
{
	uint64_t n;
	struct sg_error *err = rd_field(c, obj, PY_VAR_SIZE, &n);
	if (err)
		return err;
	if (n > MAX_ITEMS)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "object at 0x%" PRIx64 " claims %" PRId64 " items", obj,
				       (int64_t)n);
	*ret = n;
	return NULL;
}

static struct sg_error *repr_list(struct ctx *c, uint64_t obj)
{
	uint64_t n, items = 0;
	struct sg_error *err = seq_size(c, obj, &n);
	if (!err && n)
		err = rd_ptr(c, obj, PY_LIST_ITEM, &items);
	if (err)
		return err;
	puts_c(c, "[");
	put_items(c, items, n);
	puts_c(c, "]");
	return NULL;
}

static struct sg_error *repr_tuple(struct ctx *c, uint64_t obj)
{
	uint64_t n;
	struct sg_error *err = NEED(c->p, PY_TUPLE_ITEM);
	if (!err)
		err = seq_size(c, obj, &n);
	if (err)
		return err;
	puts_c(c, "(");
	put_items(c, obj + c->p->offs.off[PY_TUPLE_ITEM], n);
	puts_c(c, n == 1 ? ",)" : ")");
	return NULL;
}

/* Walk the items of a dict in its iteration order.  FN returns false to
   stop.  */
typedef bool dict_item_fn(struct ctx *c, uint64_t key, uint64_t value, void *arg);

/* 2.7: an open-addressing table of PyDictEntry { hash, key, value }; free
   and dummy slots have no value.  */
static struct sg_error *dict_walk27(struct ctx *c, uint64_t obj, uint64_t used, dict_item_fn *fn,
				   void *arg)
{
	struct py_proc *p = c->p;
	uint64_t mask, table;
	struct sg_error *err = NEED(p, PY_DKE_SIZE, PY_DKE_KEY, PY_DKE_VALUE);
	if (!err)
		err = rd_field(c, obj, PY_DICT_MASK, &mask);
	if (!err)
		err = rd_ptr(c, obj, PY_DICT_TABLE, &table);
	if (err)
		return err;
	if (mask >= MAX_ITEMS || (mask & (mask + 1)))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "dict at 0x%" PRIx64 " has mask 0x%" PRIx64, obj, mask);
	uint64_t esize = p->offs.off[PY_DKE_SIZE];
	unsigned char e[64];
	if (esize > sizeof(e) || !esize)
		esize = 24;
	uint64_t found = 0;
	for (uint64_t i = 0; i <= mask && found < used && !c->full; i++) {
		if ((err = rd(c, table + i * esize, e, esize)))
			return err;
		uint64_t key = le64(e + p->offs.off[PY_DKE_KEY]);
		uint64_t value = le64(e + p->offs.off[PY_DKE_VALUE]);
		if (!value)
			continue;
		found++;
		if (!fn(c, key, value, arg))
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

static struct sg_error *read_keys(struct ctx *c, uint64_t keys, struct keys *k)
{
	struct py_proc *p = c->p;
	uint64_t size;
	struct sg_error *err;
	bool v311 = p->version >= PY_V(3, 11);
	*k = (struct keys){ 0 };
	if (v311 && (err = NEED(p, PY_DK_INDICES, PY_DKE_SIZE, PY_DKE_KEY, PY_DKE_VALUE,
				PY_DUE_SIZE, PY_DUE_KEY, PY_DUE_VALUE, PY_DV_VALUES)))
		return err;
	if (v311) {
		uint64_t log2_size, log2_index;
		err = rd_field(c, keys, PY_DK_LOG2_SIZE, &log2_size);
		if (!err)
			err = rd_field(c, keys, PY_DK_LOG2_INDEX_BYTES, &log2_index);
		if (!err)
			err = rd_field(c, keys, PY_DK_KIND, &k->kind);
		if (!err)
			err = rd_field(c, keys, PY_DK_NENTRIES, &k->nentries);
		if (err)
			return err;
		if (log2_size >= 40 || log2_index >= 43)
			return sg_error_format(SG_ERROR_BAD_DATA, "dict keys at 0x%" PRIx64
					       " have 2^%" PRIu64 " slots", keys, log2_size);
		size = UINT64_C(1) << log2_size;
		k->entries = keys + p->offs.off[PY_DK_INDICES] + (UINT64_C(1) << log2_index);
	} else {
		uint64_t ne_off = off_or(p, PY_DK_NENTRIES, 32);
		if ((err = rd_u64(c, keys + off_or(p, PY_DK_SIZE, 8), &size)) ||
		    (err = rd_u64(c, keys + ne_off, &k->nentries)))
			return err;
		if (size > MAX_ITEMS || (size & (size - 1)))
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
static struct sg_error *split_walk(struct ctx *c, uint64_t obj, const struct keys *k,
				   uint64_t values, uint64_t used, dict_item_fn *fn, void *arg)
{
	struct py_proc *p = c->p;
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
		if ((err = rd(c, values, &cap, 1)) ||
		    (used && (err = rd(c, base + 8 * (uint64_t)cap, order, used))))
			return err;
	} else {
		/* The order array grows down from values - 3.  */
		unsigned char rev[256];
		if (used && (err = rd(c, values - 2 - used, rev, used)))
			return err;
		for (uint64_t i = 0; i < used; i++)
			order[i] = rev[used - 1 - i];
	}
	for (uint64_t i = 0; i < used && !c->full; i++) {
		uint64_t ix = order[c->newest_first ? used - 1 - i : i], value;
		if (ix >= k->nentries)
			return sg_error_format(SG_ERROR_BAD_DATA, "split dict at 0x%"
					       PRIx64 ": bad order", obj);
		if ((err = rd(c, k->entries + ix * k->esize, e, k->esize)) ||
		    (err = rd_u64(c, base + 8 * ix, &value)))
			return err;
		if (value && !fn(c, le64(e + k->koff), value, arg))
			break;
	}
	return NULL;
}

/* 3.6+: an array of entries in insertion order behind the index table;
   deleted entries have no value.  Split tables keep the values apart:
   ma_values[i] (3.6-3.10, by entry), and from 3.11 in their own
   insertion order (split_walk).  */
static struct sg_error *dict_walk3(struct ctx *c, uint64_t obj, uint64_t used, dict_item_fn *fn,
				   void *arg)
{
	struct py_proc *p = c->p;
	uint64_t keys, values;
	struct keys k;
	struct sg_error *err = rd_ptr(c, obj, PY_DICT_KEYS, &keys);
	if (!err)
		err = rd_ptr(c, obj, PY_DICT_VALUES, &values);
	if (!err)
		err = read_keys(c, keys, &k);
	if (err)
		return err;
	if (values && p->version >= PY_V(3, 11))
		return split_walk(c, obj, &k, values, used, fn, arg);
	unsigned char e[64];
	uint64_t found = 0;
	for (uint64_t n = 0; n < k.nentries && found < used && !c->full; n++) {
		uint64_t value, i = c->newest_first ? k.nentries - 1 - n : n;
		if ((err = rd(c, k.entries + i * k.esize, e, k.esize)))
			return err;
		if (values)
			err = rd_u64(c, values + 8 * i, &value);
		else
			value = le64(e + k.voff);
		if (err)
			return err;
		if (!value)
			continue;
		found++;
		if (!fn(c, le64(e + k.koff), value, arg))
			break;
	}
	return NULL;
}

static struct sg_error *dict_walk(struct ctx *c, uint64_t obj, dict_item_fn *fn, void *arg)
{
	uint64_t used;
	struct sg_error *err = rd_field(c, obj, PY_DICT_USED, &used);
	if (err)
		return err;
	if (used > MAX_ITEMS)
		return sg_error_format(SG_ERROR_BAD_DATA, "dict at 0x%" PRIx64 " claims %" PRId64
				       " items", obj, (int64_t)used);
	if (!used)
		return NULL;
	return c->py2 ? dict_walk27(c, obj, used, fn, arg) : dict_walk3(c, obj, used, fn, arg);
}

/* The text of a str (3.x; str or unicode on 2.7) as UTF-8, at most MAX
   characters, or NULL.  */
static char *obj_text(struct ctx *c, uint64_t obj, size_t max)
{
	const struct type_info *t;
	if (!ok(type_of(c, obj, &t)))
		return NULL;
	if (t->kind == K_BYTES) {
		char *s;
		size_t n;
		if (!ok(count_read(c)) || !ok(py_read_bytes(c->p, obj, max, &s, &n)))
			return NULL;
		return s;
	}
	uint32_t *cp;
	size_t n;
	bool more;
	if (t->kind != K_STR || !ok(read_code_points(c, obj, max, &cp, &n, &more)))
		return NULL;
	char *s = malloc(4 * n + 1);
	size_t k = 0;
	for (size_t i = 0; s && i < n; i++) {
		uint32_t ch = cp[i] > 0x10ffff ? 0xfffd : cp[i];
		if (ch < 0x80) {
			s[k++] = (char)ch;
		} else if (ch < 0x800) {
			s[k++] = (char)(0xc0 | ch >> 6);
			s[k++] = (char)(0x80 | (ch & 0x3f));
		} else if (ch < 0x10000) {
			s[k++] = (char)(0xe0 | ch >> 12);
			s[k++] = (char)(0x80 | (ch >> 6 & 0x3f));
			s[k++] = (char)(0x80 | (ch & 0x3f));
		} else {
			s[k++] = (char)(0xf0 | ch >> 18);
			s[k++] = (char)(0x80 | (ch >> 12 & 0x3f));
			s[k++] = (char)(0x80 | (ch >> 6 & 0x3f));
			s[k++] = (char)(0x80 | (ch & 0x3f));
		}
	}
	if (s)
		s[k] = '\0';
	free(cp);
	return s;
}

struct lookup {
	const char *key;
	uint64_t value;
};

static bool match_key(struct ctx *c, uint64_t key, uint64_t value, void *arg)
{
	struct lookup *l = arg;
	char *text = obj_text(c, key, strlen(l->key) + 1);
	bool match = text && !strcmp(text, l->key);
	free(text);
	if (match)
		l->value = value;
	return !match;
}

/* The value of the str key KEY in the dict at DICT, or 0.  */
static struct sg_error *dict_get_str(struct ctx *c, uint64_t dict, const char *key,
				     uint64_t *ret)
{
	struct lookup l = { key, 0 };
	struct sg_error *err = dict_walk(c, dict, match_key, &l);
	*ret = l.value;
	return err;
}

struct items_state {
	size_t n;
	bool more;
};

static bool put_dict_item(struct ctx *c, uint64_t key, uint64_t value, void *arg)
{
	struct items_state *st = arg;
	if (st->n)
		puts_c(c, ", ");
	if (c->limit && st->n == c->limit) {
		st->more = true;
		return false;
	}
	st->n++;
	repr_elem(c, key);
	puts_c(c, ": ");
	repr_elem(c, value);
	return true;
}

static struct sg_error *repr_dict(struct ctx *c, uint64_t obj)
{
	uint64_t used;
	struct sg_error *err = rd_field(c, obj, PY_DICT_USED, &used);
	if (err)
		return err;
	struct items_state st = { 0 };
	puts_c(c, "{");
	if ((err = dict_walk(c, obj, put_dict_item, &st)))
		put_error(c, err);
	else if (st.more)
		puts_c(c, "...");
	puts_c(c, "}");
	return NULL;
}

/* The keys of a set in table order.  Free slots have no key; a deleted
   one holds the dummy key: from 3.x with hash -1 (which no real hash is)
   and the type "<dummy>"; on 2.7 a str "<dummy key>", told from a real
   one only by the count of live slots.  */
static struct sg_error *set_walk(struct ctx *c, uint64_t obj, dict_item_fn *fn, void *arg)
{
	struct py_proc *p = c->p;
	uint64_t used, mask, table;
	struct sg_error *err = NEED(p, PY_SE_SIZE, PY_SE_KEY, PY_SE_HASH);
	if (!err)
		err = rd_field(c, obj, PY_SET_USED, &used);
	if (!err)
		err = rd_field(c, obj, PY_SET_MASK, &mask);
	if (!err)
		err = rd_ptr(c, obj, PY_SET_TABLE, &table);
	if (err)
		return err;
	if (mask >= MAX_ITEMS || (mask & (mask + 1)) || used > mask + 1)
		return sg_error_format(SG_ERROR_BAD_DATA, "set at 0x%" PRIx64 " has mask 0x%" PRIx64
				       " and %" PRIu64 " items", obj, mask, used);
	uint64_t esize = p->offs.off[PY_SE_SIZE];
	if (!esize || esize > 32)
		esize = 16;
	unsigned char e[32];
	/* 2.7: are there dummies at all?  */
	bool dummies = true;
	if (c->py2) {
		uint64_t live = 0;
		for (uint64_t i = 0; i <= mask && !c->full; i++) {
			if ((err = rd(c, table + i * esize, e, esize)))
				return err;
			live += le64(e + p->offs.off[PY_SE_KEY]) != 0;
		}
		dummies = live > used;
	}
	uint64_t found = 0;
	for (uint64_t i = 0; i <= mask && found < used && !c->full; i++) {
		if ((err = rd(c, table + i * esize, e, esize)))
			return err;
		uint64_t key = le64(e + p->offs.off[PY_SE_KEY]);
		int64_t hash = (int64_t)le64(e + p->offs.off[PY_SE_HASH]);
		if (!key || (!c->py2 && hash == -1))
			continue;
		const struct type_info *t;
		if (!type_of(c, key, &t)) {
			if (t->kind == K_DUMMY)
				continue;
			if (c->py2 && dummies && t->kind == K_BYTES) {
				char *s;
				size_t n;
				if (!py_read_bytes(p, key, 16, &s, &n)) {
					bool dummy = n == 11 && !memcmp(s, "<dummy key>", 11);
					free(s);
					if (dummy)
						continue;
				}
			}
		}
		found++;
		if (!fn(c, key, 0, arg))
			break;
	}
	return NULL;
}

static bool put_set_item(struct ctx *c, uint64_t key, uint64_t value SG_UNUSED, void *arg)
{
	struct items_state *st = arg;
	if (st->n)
		puts_c(c, ", ");
	if (c->limit && st->n == c->limit) {
		st->more = true;
		return false;
	}
	st->n++;
	repr_elem(c, key);
	return true;
}

/* 3.x: {1, 2}, set(), frozenset({1}), frozenset(), and for a subclass
   S({1}), S().  2.7: set([1, 2]), set([]), frozenset([1]), S([1]).  */
static struct sg_error *repr_set(struct ctx *c, uint64_t obj, const struct type_info *t)
{
	uint64_t used;
	struct sg_error *err = rd_field(c, obj, PY_SET_USED, &used);
	if (err)
		return err;
	bool braces_only = !c->py2 && t->kind == K_SET && !t->inherited;
	if (!c->py2 && !used) {
		printf_c(c, "%s()", t->name);
		return NULL;
	}
	if (c->py2)
		printf_c(c, "%s([", t->name);
	else if (braces_only)
		puts_c(c, "{");
	else
		printf_c(c, "%s({", t->name);
	struct items_state st = { 0 };
	if ((err = set_walk(c, obj, put_set_item, &st)))
		put_error(c, err);
	else if (st.more)
		puts_c(c, "...");
	puts_c(c, c->py2 ? "])" : braces_only ? "}" : "})");
	return NULL;
}

/* ---- other objects ---- */

/* Python's own repr of a type: <class 'int'> (2.7: <type 'int'>), and
   <class '__main__.C'> for a class defined in Python.  */
static struct sg_error *repr_type(struct ctx *c, uint64_t obj)
{
	const struct type_info *t;
	struct sg_error *err = type_info(c, obj, &t);
	if (err)
		return err;
	printf_c(c, "<%s '%s'>", c->py2 && !t->heap ? "type" : "class", t->qualified);
	return NULL;
}

static struct sg_error *repr_code(struct ctx *c, uint64_t obj)
{
	uint64_t name_ptr, file_ptr, line;
	char *name = NULL, *file = NULL;
	struct sg_error *err = rd_ptr(c, obj, PY_CO_NAME, &name_ptr);
	if (!err)
		err = rd_ptr(c, obj, PY_CO_FILENAME, &file_ptr);
	if (!err)
		err = rd_field(c, obj, PY_CO_FIRSTLINENO, &line);
	if (!err)
		err = py_read_str(c->p, name_ptr, 256, &name, NULL);
	if (!err)
		err = py_read_str(c->p, file_ptr, 1024, &file, NULL);
	if (!err)
		printf_c(c, "<code object %s at 0x%" PRIx64 ", file \"%s\", line %d>", name, obj,
			 file, (int)(int32_t)line);
	free(name);
	free(file);
	return err;
}

/* Where md_dict is.  PyModuleObject is private to moduleobject.c before
   3.10 and in internal headers gen-tables.sh does not read for 3.10 and
   3.11, so only DWARF has it there; md_dict follows the object header in
   every version, debug and free-threaded builds included.  */
static uint64_t module_dict_off(const struct py_proc *p)
{
	return py_has(p, PY_MODULE_DICT) ? p->offs.off[PY_MODULE_DICT] : object_head_size(p);
}

/* <function f at 0x7f94daa38220>: by its qualified name on 3.x
   (<function Outer.meth at 0x...>), its name on 2.7.  */
static struct sg_error *repr_function(struct ctx *c, uint64_t obj)
{
	enum py_field f = py_has(c->p, PY_FUNC_QUALNAME) ? PY_FUNC_QUALNAME : PY_FUNC_NAME;
	uint64_t name;
	struct sg_error *err = rd_ptr(c, obj, f, &name);
	if (err)
		return err;
	char *text = name ? obj_text(c, name, 1024) : NULL;
	if (!text)
		return sg_error_format(SG_ERROR_BAD_DATA, "function at 0x%" PRIx64
				       " has no readable name", obj);
	printf_c(c, "<function %s at 0x%" PRIx64 ">", text, obj);
	free(text);
	return NULL;
}

/* <module 'os' from '/usr/lib/python3.11/os.py'>, <module 'sys'
   (built-in)>, <module 'os' (frozen)>: Python's import system works it
   out from the module's __spec__, whose attributes are out of reach; this
   follows the common cases from __name__, __loader__ and __file__.  */
static struct sg_error *repr_module(struct ctx *c, uint64_t obj)
{
	uint64_t dict, name = 0, file = 0, loader = 0;
	struct sg_error *err = rd_u64(c, obj + module_dict_off(c->p), &dict);
	if (!err && dict)
		err = dict_get_str(c, dict, "__name__", &name);
	if (!err && dict)
		err = dict_get_str(c, dict, "__file__", &file);
	if (!err && dict && !c->py2)
		err = dict_get_str(c, dict, "__loader__", &loader);
	if (err)
		return err;
	const struct type_info *t;
	if (!name || !ok(type_of(c, name, &t)) || t->kind != (c->py2 ? K_BYTES : K_STR)) {
		printf_c(c, "<module object at 0x%" PRIx64 ">", obj);
		return NULL;
	}
	const char *where = NULL;
	if (loader && ok(type_of(c, loader, &t)) && t->kind == K_TYPE) {
		const struct type_info *lt;
		if (ok(type_info(c, loader, &lt)))
			where = !strcmp(lt->name, "BuiltinImporter") ? " (built-in)"
			      : !strcmp(lt->name, "FrozenImporter") ? " (frozen)" : NULL;
	}
	if (!where && file && (!ok(type_of(c, file, &t)) || t->kind != (c->py2 ? K_BYTES : K_STR)))
		file = 0;
	if (c->py2) {
		/* 2.7 puts the text between quotes as it is.  */
		char *n = obj_text(c, name, 256), *f = file ? obj_text(c, file, 1024) : NULL;
		if (f)
			printf_c(c, "<module '%s' from '%s'>", n ? n : "?", f);
		else
			printf_c(c, "<module '%s' (built-in)>", n ? n : "?");
		free(n);
		free(f);
		return NULL;
	}
	/* The name and the file are not cut at the limit.  */
	size_t limit = c->limit;
	c->limit = 0;
	puts_c(c, "<module ");
	repr_elem(c, name);
	if (where) {
		puts_c(c, where);
	} else if (file) {
		puts_c(c, " from ");
		repr_elem(c, file);
	}
	puts_c(c, ">");
	c->limit = limit;
	return NULL;
}

static struct sg_error *repr_any(struct ctx *c, uint64_t obj)
{
	const struct type_info *ti;
	struct sg_error *err = type_of(c, obj, &ti);
	if (err)
		return err;
	/* A copy: the lookups of the elements may reuse the spare entry.  */
	struct type_info t = *ti;
	bool container = t.kind == K_LIST || t.kind == K_TUPLE || t.kind == K_DICT ||
			 t.kind == K_SET || t.kind == K_FROZENSET;
	if (container && on_stack(c, obj)) {
		/* Python 2.7 and 3 print these for a container inside
		   itself.  */
		if (t.kind == K_SET || t.kind == K_FROZENSET)
			printf_c(c, "%s(...)", t.name);
		else
			puts_c(c, t.kind == K_LIST    ? "[...]"
				  : t.kind == K_TUPLE ? "(...)"
						      : "{...}");
		return NULL;
	}
	if (container && c->depth == MAX_DEPTH) {
		puts_c(c, "...");
		return NULL;
	}
	if (container)
		c->stack[c->depth++] = obj;
	if (!(t.name = strdup(t.name)) || !(t.qualified = strdup(t.qualified))) {
		free(t.name);
		return &sg_enomem;
	}
	switch (t.kind) {
	case K_NONE:
		puts_c(c, "None");
		break;
	case K_ELLIPSIS:
		puts_c(c, "Ellipsis");
		break;
	case K_NOTIMPLEMENTED:
		puts_c(c, "NotImplemented");
		break;
	case K_BOOL:
		err = c->py2 ? repr_int2(c, obj, true) : repr_long(c, obj, true);
		break;
	case K_INT2:
		err = repr_int2(c, obj, false);
		break;
	case K_LONG:
		err = repr_long(c, obj, false);
		break;
	case K_FLOAT:
		err = repr_float(c, obj);
		break;
	case K_COMPLEX:
		err = repr_complex(c, obj);
		break;
	case K_STR:
		err = repr_str(c, obj);
		break;
	case K_BYTES:
		err = repr_bytes(c, obj);
		break;
	case K_LIST:
		err = repr_list(c, obj);
		break;
	case K_TUPLE:
		err = repr_tuple(c, obj);
		break;
	case K_DICT:
		err = repr_dict(c, obj);
		break;
	case K_SET:
	case K_FROZENSET:
		err = repr_set(c, obj, &t);
		break;
	case K_TYPE:
		err = repr_type(c, obj);
		break;
	case K_CODE:
		err = repr_code(c, obj);
		break;
	case K_MODULE:
		err = repr_module(c, obj);
		break;
	case K_FUNCTION:
		err = repr_function(c, obj);
		break;
	case K_DUMMY:
	case K_OTHER:
		/* object.__repr__.  */
		printf_c(c, "<%s object at 0x%" PRIx64 ">", t.qualified, obj);
		break;
	}
	free(t.name);
	free(t.qualified);
	if (container)
		c->depth--;
	return err;
}

static void repr_elem(struct ctx *c, uint64_t obj)
{
	if (c->full)
		return;
	if (!obj) {
		puts_c(c, "<NULL>");
		return;
	}
	struct sg_error *err = repr_any(c, obj);
	if (err)
		put_error(c, err);
}

static struct ctx *ctx_create(struct py_proc *p, size_t limit, FILE *out)
{
	struct ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->p = p;
	c->out = out;
	c->limit = limit;
	c->py2 = p->version < PY_V(3, 0);
	return c;
}

static void ctx_destroy(struct ctx *c)
{
	for (size_t i = 0; i < c->ntypes; i++) {
		free(c->types[i].name);
		free(c->types[i].qualified);
	}
	free(c->spare.name);
	free(c->spare.qualified);
	free(c);
}

struct sg_error *py_repr(struct py_proc *p, uint64_t obj, size_t limit, FILE *out)
{
	struct ctx *c = ctx_create(p, limit, out);
	if (!c)
		return &sg_enomem;
	struct sg_error *err = NULL;
	if (!obj)
		puts_c(c, "<NULL>");
	else
		err = repr_any(c, obj);
	if (!err && c->full)
		fputs("...", out);
	ctx_destroy(c);
	return err;
}

struct items_fn {
	int (*fn)(uint64_t key, uint64_t value, void *arg);
	void *arg;
};

static bool call_items_fn(struct ctx *c SG_UNUSED, uint64_t key, uint64_t value, void *arg)
{
	struct items_fn *f = arg;
	return f->fn(key, value, f->arg) == SG_CB_OK;
}

/* Call FN with each key and value of the dict at DICT, in its order.  */
struct sg_error *py_dict_items(struct py_proc *p, uint64_t dict,
			       int (*fn)(uint64_t key, uint64_t value, void *arg), void *arg)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	struct items_fn f = { fn, arg };
	struct sg_error *err = dict_walk(c, dict, call_items_fn, &f);
	ctx_destroy(c);
	return err;
}

/* ---- lookups for other files ---- */

/* An error unless OBJ is a dict (or a subclass of dict).  */
static struct sg_error *need_dict(struct ctx *c, uint64_t obj)
{
	const struct type_info *t;
	struct sg_error *err = type_of(c, obj, &t);
	if (!err && t->kind != K_DICT)
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not a dict",
				      obj, t->name);
	return err;
}

/* Newest first: what a program adds late (sys.modules' "threading",
   threading's "_active") is found reading fewer keys, each one a str
   somewhere in the target, one page read from it more.  */
struct sg_error *py_dict_get_str(struct py_proc *p, uint64_t dict, const char *key, uint64_t *ret)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	c->newest_first = true;
	*ret = 0;
	struct sg_error *err = need_dict(c, dict);
	if (!err)
		err = dict_get_str(c, dict, key, ret);
	ctx_destroy(c);
	return err;
}

struct sg_error *py_str_text(struct py_proc *p, uint64_t obj, size_t max, char **ret)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	const struct type_info *t;
	struct sg_error *err = type_of(c, obj, &t);
	if (!err && t->kind != K_STR && !(c->py2 && t->kind == K_BYTES))
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not a str",
				      obj, t->name);
	if (!err && !(*ret = obj_text(c, obj, max)))
		err = sg_error_format(SG_ERROR_BAD_DATA, "cannot read the str at 0x%" PRIx64, obj);
	ctx_destroy(c);
	return err;
}

static struct sg_error *int_value(struct ctx *c, uint64_t obj, uint64_t *ret)
{
	struct py_proc *p = c->p;
	const struct type_info *t;
	struct sg_error *err = type_of(c, obj, &t);
	if (err)
		return err;
	if (t->kind == K_INT2 || (c->py2 && t->kind == K_BOOL))
		return rd_field(c, obj, PY_INT_IVAL, ret);
	if (t->kind != K_LONG && t->kind != K_BOOL)
		return sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64 " is a %s, not an int",
				       obj, t->name);
	uint64_t n;
	int sign;
	if ((err = NEED(p, PY_LONG_DIGIT)) || (err = long_size(c, obj, &sign, &n)))
		return err;
	unsigned dsize = digit_size(p), shift = dsize == 2 ? 15 : 30;
	unsigned char raw[5 * 4];
	if (n * shift > 64 + shift - 1)
		return sg_error_format(SG_ERROR_BAD_DATA, "the int at 0x%" PRIx64 " has %" PRIu64
				       " digits: too large", obj, n);
	if (n && (err = rd(c, obj + p->offs.off[PY_LONG_DIGIT], raw, n * dsize)))
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

struct sg_error *py_int_value(struct py_proc *p, uint64_t obj, uint64_t *ret)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	struct sg_error *err = int_value(c, obj, ret);
	ctx_destroy(c);
	return err;
}

struct sg_error *py_module_dict(struct py_proc *p, uint64_t module, uint64_t *ret)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	const struct type_info *t;
	struct sg_error *err = type_of(c, module, &t);
	if (!err && t->kind != K_MODULE)
		err = sg_error_format(SG_ERROR_BAD_DATA, "object at 0x%" PRIx64
				      " is a %s, not a module", module, t->name);
	if (!err)
		err = rd_u64(c, module + module_dict_off(p), ret);
	if (!err && !*ret)
		err = sg_error_format(SG_ERROR_BAD_DATA, "module at 0x%" PRIx64 " has no dict",
				      module);
	ctx_destroy(c);
	return err;
}

/* tp_flags bits.  */
#define TPFLAGS_INLINE_VALUES (UINT64_C(1) << 2)	/* 3.13+ */
#define TPFLAGS_MANAGED_DICT (UINT64_C(1) << 4)		/* 3.11+ */

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
static struct sg_error *attr_storage(struct ctx *c, uint64_t obj, uint64_t type, uint64_t flags,
				     uint64_t *dict, uint64_t *values)
{
	struct py_proc *p = c->p;
	struct sg_error *err;
	*dict = *values = 0;
	if (p->version >= PY_V(3, 11) && (flags & TPFLAGS_MANAGED_DICT)) {
		if (p->version == PY_V(3, 11)) {
			if ((err = rd_u64(c, obj - 32, values)) || *values)
				return err;
			return rd_u64(c, obj - 24, dict);
		}
		if (p->version == PY_V(3, 12)) {
			uint64_t v;
			if ((err = rd_u64(c, obj - 24, &v)))
				return err;
			if (v & 1)
				*values = v + 1;
			else
				*dict = v;
			return NULL;
		}
		if ((err = rd_u64(c, obj - (p->free_threaded ? 8 : 24), dict)) || *dict ||
		    !(flags & TPFLAGS_INLINE_VALUES))
			return err;
		uint64_t size;
		unsigned char valid;
		if ((err = rd_field(c, type, PY_TP_BASICSIZE, &size)))
			return err;
		if (size < object_head_size(p) || size > (1u << 20) || size % 8)
			return sg_error_format(SG_ERROR_BAD_DATA, "type at 0x%" PRIx64
					       " has tp_basicsize %" PRIu64, type, size);
		/* PyDictValues: capacity, size, embedded, valid.  */
		if ((err = rd(c, obj + size + 3, &valid, 1)))
			return err;
		*values = valid ? obj + size : 0;
		return NULL;
	}
	uint64_t off;
	if ((err = rd_field(c, type, PY_TP_DICTOFFSET, &off)))
		return err;
	if ((int64_t)off > 0 && off < (1u << 20))
		return rd_u64(c, obj + off, dict);
	return sg_error_format(SG_ERROR_LOOKUP, "object at 0x%" PRIx64 " has %s __dict__", obj,
			       (int64_t)off < 0 ? "a variable-size object's" : "no");
}

/* The attribute NAME of OBJ in the values VALUES of a split table
   whose keys are the type's.  */
static struct sg_error *values_get_str(struct ctx *c, uint64_t type, uint64_t values,
				       const char *name, uint64_t *ret)
{
	struct py_proc *p = c->p;
	uint64_t keys;
	struct keys k;
	unsigned char used;
	struct sg_error *err = rd_ptr(c, type, PY_HT_CACHED_KEYS, &keys);
	if (!err && !keys)
		err = sg_error_format(SG_ERROR_BAD_DATA, "type at 0x%" PRIx64
				      " has values but no cached keys", type);
	if (!err)
		err = read_keys(c, keys, &k);
	if (!err && k.kind != 2)
		err = sg_error_format(SG_ERROR_BAD_DATA, "the cached keys of type at 0x%" PRIx64
				      " are not split (kind %" PRIu64 ")", type, k.kind);
	/* The number of values: PyDictValues.size (3.13+), the byte 2
	   before the values (3.11, 3.12).  */
	if (!err)
		err = rd(c, p->version >= PY_V(3, 13) ? values + 1 : values - 2, &used, 1);
	if (err)
		return err;
	struct lookup l = { name, 0 };
	err = split_walk(c, values, &k, values, used, match_key, &l);
	*ret = l.value;
	return err;
}

static struct sg_error *object_attr(struct ctx *c, uint64_t obj, const char *name, uint64_t *ret)
{
	uint64_t type, flags, dict, values;
	char *tname;
	struct sg_error *err = rd_ptr(c, obj, PY_OB_TYPE, &type);
	if (!err)
		err = read_type(c, type, &tname, &flags);
	if (err)
		return err;
	free(tname);
	*ret = 0;
	if ((err = attr_storage(c, obj, type, flags, &dict, &values)))
		return err;
	if (dict && !(err = need_dict(c, dict)))
		err = dict_get_str(c, dict, name, ret);
	else if (values)
		err = values_get_str(c, type, values, name, ret);
	return err;
}

struct sg_error *py_object_attr(struct py_proc *p, uint64_t obj, const char *name, uint64_t *ret)
{
	struct ctx *c = ctx_create(p, 0, NULL);
	if (!c)
		return &sg_enomem;
	struct sg_error *err = object_attr(c, obj, name, ret);
	ctx_destroy(c);
	return err ? sg_error_prefix(err, "attribute %s of 0x%" PRIx64, name, obj) : NULL;
}
