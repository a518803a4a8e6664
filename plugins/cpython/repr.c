/* repr(): a bounded repr of an object in the target, printed as the
   target's Python prints it (Python 2's rules on 2.7, Python 3's on 3.x).

   Built-in types are recognized as dict.c does: by their exact tp_name,
   and only when the type is static.  A subclass prints as its built-in
   base does when it keeps the base's tp_repr (defines no __repr__), as
   Python would; other objects print as object.__repr__ does,
   "<module.Class object at 0x...>".  Python code (a __repr__) is never
   run: objects whose repr is written in Python, or in C for types other
   than these, print that way too.

   Everything is bounded: LIMIT elements per container and characters per
   string, MAX_DEPTH levels of nesting, MAX_OUTPUT bytes of output, and the
   reads from the target by the command's budget (P->reads_left, which all
   the values a command prints share), so that hostile or half-written
   memory cannot hang or exhaust the debugger.  An element that cannot be
   read is printed as <error: ...> in its place; once the budget is spent
   the value ends with "...", as it does at MAX_OUTPUT.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32
#define MAX_OUTPUT (1u << 20)
/* Ints are printed in decimal up to MAX_INT_DECIMAL digits; longer ones,
   and those of more than MAX_INT_DIGITS 30-bit digits (which are longer
   for sure), print as "<int of N digits>".  */
#define MAX_INT_DECIMAL 5000
#define MAX_INT_DIGITS 600
/* Items read from the target at once.  */
#define CHUNK 64
/* What a string read costs from the budget: its length, its state, its
   data pointer and its data.  */
#define STR_READS 4

struct ctx {
	/* The types seen.  O.stop: the output is full (MAX_OUTPUT), or the
	   read budget is spent.  */
	struct py_objs o;
	struct py_proc *p;
	bool py2;
	FILE *out;
	size_t limit;		/* 0: no limit */
	size_t written;
	/* The containers being printed, outermost first.  */
	uint64_t stack[MAX_DEPTH];
	size_t depth;
};

/* ---- output ---- */

static bool full(const struct ctx *c)
{
	return c->o.stop;
}

static void put(struct ctx *c, const char *s, size_t n)
{
	if (full(c))
		return;
	if (n > MAX_OUTPUT - c->written) {
		n = MAX_OUTPUT - c->written;
		c->o.stop = true;
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

/* An element's error in its place; none once the budget is spent, when
   every read fails: the value ends there.  */
static void put_error(struct ctx *c, struct sg_error *err)
{
	if (py_budget_spent(c->p))
		c->o.stop = true;
	if (!full(c))
		printf_c(c, "<error: %s>", sg_error_message(err));
	sg_error_destroy(err);
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
	struct sg_error *err = PY_NEED(c->p, PY_FLOAT_VAL);
	if (!err)
		err = py_obj_read(c->p, obj + c->p->offs.off[PY_FLOAT_VAL], &x, sizeof(x));
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
	struct sg_error *err = PY_NEED(c->p, PY_COMPLEX_CVAL);
	if (!err)
		err = py_obj_read(c->p, obj + c->p->offs.off[PY_COMPLEX_CVAL], v, sizeof(v));
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
	struct sg_error *err = py_obj_field(c->p, obj, PY_INT_IVAL, &v);
	if (err)
		return err;
	if (is_bool)
		puts_c(c, v ? "True" : "False");
	else
		printf_c(c, "%" PRId64, (int64_t)v);
	return NULL;
}

static struct sg_error *repr_long(struct ctx *c, uint64_t obj, bool is_bool)
{
	struct py_proc *p = c->p;
	uint64_t n;
	int sign;
	struct sg_error *err = py_long_size(p, obj, &sign, &n);
	if (err)
		return err;
	if (is_bool) {
		puts_c(c, n ? "True" : "False");
		return NULL;
	}
	if ((err = PY_NEED(p, PY_LONG_DIGIT)))
		return err;
	const char *suffix = c->py2 ? "L" : "";
	const char *tname = c->py2 ? "long" : "int";
	unsigned dsize = py_long_digit_size(p);
	unsigned shift = dsize == 2 ? 15 : 30;
	if (n > MAX_INT_DIGITS) {
		/* 2^(BITS-1) <= |value| < 2^BITS, from its top digit.  */
		unsigned char b[4] = { 0 };
		if ((err = py_obj_read(p, obj + p->offs.off[PY_LONG_DIGIT] + (n - 1) * dsize, b,
				       dsize)))
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
	if (n && (err = py_obj_read(p, obj + p->offs.off[PY_LONG_DIGIT], raw, n * dsize)))
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
	put(c, b, py_put_utf8(b, ch));
}

/* Character CH of a string between QUOTEs, escaped as Python does: a
   code point of a str (3.x) or unicode (2.7), or with UNICODE false a
   byte of a bytes (3.x) or str (2.7).  Python 3 prints the printable
   characters of a str past ASCII as themselves.  */
static void put_escaped(struct ctx *c, uint32_t ch, char quote, bool unicode)
{
	char buf[16];
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
	} else if (ch >= 0x20 && ch < 0x7f) {
		buf[0] = (char)ch;
		put(c, buf, 1);
	} else if (unicode && !c->py2 && ch > 0x7f && printable(ch)) {
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

static struct sg_error *repr_str(struct ctx *c, uint64_t obj)
{
	uint32_t *cp;
	size_t n;
	bool more;
	struct sg_error *err = py_count_reads(c->p, STR_READS);
	if (!err)
		err = py_read_code_points(c->p, obj, char_budget(c), &cp, &n, &more);
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
	for (size_t i = 0; i < n && !full(c); i++)
		put_escaped(c, cp[i], quote, true);
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
	struct sg_error *err = py_obj_field(c->p, obj, PY_VAR_SIZE, &len);
	if (!err && !(err = py_count_reads(c->p, 1)))
		err = py_read_bytes(c->p, obj, char_budget(c), &s, &n);
	if (err)
		return err;
	bool single = memchr(s, '\'', n), dbl = memchr(s, '"', n);
	char quote = pick_quote(single, dbl);
	if (!c->py2)
		puts_c(c, "b");
	put(c, &quote, 1);
	for (size_t i = 0; i < n && !full(c); i++)
		put_escaped(c, (unsigned char)s[i], quote, false);
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
	for (uint64_t i = 0; i < n && !full(c); i++) {
		if (i)
			puts_c(c, ", ");
		if (c->limit && i == c->limit) {
			puts_c(c, "...");
			break;
		}
		size_t k = i % CHUNK;
		if (!k) {
			size_t want = n - i < CHUNK ? n - i : CHUNK;
			struct sg_error *err = py_obj_read(c->p, items + 8 * i, buf, 8 * want);
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
	struct sg_error *err = py_obj_field(c->p, obj, PY_VAR_SIZE, &n);
	if (err)
		return err;
	if (n > PY_MAX_ITEMS)
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
		err = py_obj_ptr(c->p, obj, PY_LIST_ITEM, &items);
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
	struct sg_error *err = PY_NEED(c->p, PY_TUPLE_ITEM);
	if (!err)
		err = seq_size(c, obj, &n);
	if (err)
		return err;
	puts_c(c, "(");
	put_items(c, obj + c->p->offs.off[PY_TUPLE_ITEM], n);
	puts_c(c, n == 1 ? ",)" : ")");
	return NULL;
}

struct items_state {
	struct ctx *c;
	size_t n;
	bool more;
};

/* Before an item: the separator, and whether the limit allows it (else
   "..." follows).  */
static bool item_start(struct items_state *st)
{
	struct ctx *c = st->c;
	if (st->n)
		puts_c(c, ", ");
	if (c->limit && st->n == c->limit) {
		st->more = true;
		return false;
	}
	st->n++;
	return true;
}

static bool put_dict_item(uint64_t key, uint64_t value, void *arg)
{
	struct items_state *st = arg;
	if (!item_start(st))
		return false;
	repr_elem(st->c, key);
	puts_c(st->c, ": ");
	repr_elem(st->c, value);
	return true;
}

static struct sg_error *repr_dict(struct ctx *c, uint64_t obj)
{
	uint64_t used;
	struct sg_error *err = py_obj_field(c->p, obj, PY_DICT_USED, &used);
	if (err)
		return err;
	struct items_state st = { c, 0, false };
	puts_c(c, "{");
	if ((err = py_dict_walk(&c->o, obj, put_dict_item, &st)))
		put_error(c, err);
	else if (st.more)
		puts_c(c, "...");
	puts_c(c, "}");
	return NULL;
}

static bool put_set_item(uint64_t key, uint64_t value SG_UNUSED, void *arg)
{
	struct items_state *st = arg;
	if (!item_start(st))
		return false;
	repr_elem(st->c, key);
	return true;
}

/* 3.x: {1, 2}, set(), frozenset({1}), frozenset(), and for a subclass
   S({1}), S().  2.7: set([1, 2]), set([]), frozenset([1]), S([1]).  */
static struct sg_error *repr_set(struct ctx *c, uint64_t obj, const struct py_type *t)
{
	uint64_t used;
	struct sg_error *err = py_obj_field(c->p, obj, PY_SET_USED, &used);
	if (err)
		return err;
	bool braces_only = !c->py2 && t->kind == PY_K_SET && !t->inherited;
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
	struct items_state st = { c, 0, false };
	if ((err = py_set_walk(&c->o, obj, put_set_item, &st)))
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
	const struct py_type *t;
	struct sg_error *err = py_type_info(&c->o, obj, &t);
	if (err)
		return err;
	printf_c(c, "<%s '%s'>", c->py2 && !t->heap ? "type" : "class", t->qualified);
	return NULL;
}

static struct sg_error *repr_code(struct ctx *c, uint64_t obj)
{
	uint64_t name_ptr, file_ptr, line;
	char *name = NULL, *file = NULL;
	struct sg_error *err = py_obj_ptr(c->p, obj, PY_CO_NAME, &name_ptr);
	if (!err)
		err = py_obj_ptr(c->p, obj, PY_CO_FILENAME, &file_ptr);
	if (!err)
		err = py_obj_field(c->p, obj, PY_CO_FIRSTLINENO, &line);
	if (!err && !(err = py_count_reads(c->p, STR_READS)))
		err = py_read_str(c->p, name_ptr, 256, &name, NULL);
	if (!err && !(err = py_count_reads(c->p, STR_READS)))
		err = py_read_str(c->p, file_ptr, 1024, &file, NULL);
	if (!err)
		printf_c(c, "<code object %s at 0x%" PRIx64 ", file \"%s\", line %d>", name, obj,
			 file, (int)(int32_t)line);
	free(name);
	free(file);
	return err;
}

/* <function f at 0x7f94daa38220>: by its qualified name on 3.x
   (<function Outer.meth at 0x...>), its name on 2.7.  */
static struct sg_error *repr_function(struct ctx *c, uint64_t obj)
{
	enum py_field f = py_has(c->p, PY_FUNC_QUALNAME) ? PY_FUNC_QUALNAME : PY_FUNC_NAME;
	uint64_t name;
	struct sg_error *err = py_obj_ptr(c->p, obj, f, &name);
	if (err)
		return err;
	char *text = name ? py_obj_text(&c->o, name, 1024) : NULL;
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
	struct sg_error *err = py_obj_u64(c->p, obj + py_module_dict_off(c->p), &dict);
	if (!err && dict)
		err = py_dict_lookup(&c->o, dict, "__name__", &name);
	if (!err && dict)
		err = py_dict_lookup(&c->o, dict, "__file__", &file);
	if (!err && dict && !c->py2)
		err = py_dict_lookup(&c->o, dict, "__loader__", &loader);
	if (err)
		return err;
	const struct py_type *t;
	if (!name || !py_ok(py_type_of(&c->o, name, &t)) || t->kind != (c->py2 ? PY_K_BYTES : PY_K_STR)) {
		printf_c(c, "<module object at 0x%" PRIx64 ">", obj);
		return NULL;
	}
	const char *where = NULL;
	if (loader && py_ok(py_type_of(&c->o, loader, &t)) && t->kind == PY_K_TYPE) {
		const struct py_type *lt;
		if (py_ok(py_type_info(&c->o, loader, &lt)))
			where = !strcmp(lt->name, "BuiltinImporter") ? " (built-in)"
			      : !strcmp(lt->name, "FrozenImporter") ? " (frozen)" : NULL;
	}
	if (!where && file && (!py_ok(py_type_of(&c->o, file, &t)) || t->kind != (c->py2 ? PY_K_BYTES : PY_K_STR)))
		file = 0;
	if (c->py2) {
		/* 2.7 puts the text between quotes as it is.  */
		char *n = py_obj_text(&c->o, name, 256);
		char *f = file ? py_obj_text(&c->o, file, 1024) : NULL;
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
	const struct py_type *ti;
	struct sg_error *err = py_type_of(&c->o, obj, &ti);
	if (err)
		return err;
	/* A copy: the lookups of the elements may reuse the spare entry.  */
	struct py_type t = *ti;
	bool container = t.kind == PY_K_LIST || t.kind == PY_K_TUPLE || t.kind == PY_K_DICT ||
			 t.kind == PY_K_SET || t.kind == PY_K_FROZENSET;
	if (container && on_stack(c, obj)) {
		/* Python 2.7 and 3 print these for a container inside
		   itself.  */
		if (t.kind == PY_K_SET || t.kind == PY_K_FROZENSET)
			printf_c(c, "%s(...)", t.name);
		else
			puts_c(c, t.kind == PY_K_LIST    ? "[...]"
				  : t.kind == PY_K_TUPLE ? "(...)"
						      : "{...}");
		return NULL;
	}
	if (container && c->depth == MAX_DEPTH) {
		puts_c(c, "...");
		return NULL;
	}
	if (!(t.name = strdup(t.name)) || !(t.qualified = strdup(t.qualified))) {
		free(t.name);
		return &sg_enomem;
	}
	if (container)
		c->stack[c->depth++] = obj;
	switch (t.kind) {
	case PY_K_NONE:
		puts_c(c, "None");
		break;
	case PY_K_ELLIPSIS:
		puts_c(c, "Ellipsis");
		break;
	case PY_K_NOTIMPLEMENTED:
		puts_c(c, "NotImplemented");
		break;
	case PY_K_BOOL:
		err = c->py2 ? repr_int2(c, obj, true) : repr_long(c, obj, true);
		break;
	case PY_K_INT2:
		err = repr_int2(c, obj, false);
		break;
	case PY_K_LONG:
		err = repr_long(c, obj, false);
		break;
	case PY_K_FLOAT:
		err = repr_float(c, obj);
		break;
	case PY_K_COMPLEX:
		err = repr_complex(c, obj);
		break;
	case PY_K_STR:
		err = repr_str(c, obj);
		break;
	case PY_K_BYTES:
		err = repr_bytes(c, obj);
		break;
	case PY_K_LIST:
		err = repr_list(c, obj);
		break;
	case PY_K_TUPLE:
		err = repr_tuple(c, obj);
		break;
	case PY_K_DICT:
		err = repr_dict(c, obj);
		break;
	case PY_K_SET:
	case PY_K_FROZENSET:
		err = repr_set(c, obj, &t);
		break;
	case PY_K_TYPE:
		err = repr_type(c, obj);
		break;
	case PY_K_CODE:
		err = repr_code(c, obj);
		break;
	case PY_K_MODULE:
		err = repr_module(c, obj);
		break;
	case PY_K_FUNCTION:
		err = repr_function(c, obj);
		break;
	case PY_K_DUMMY:
	case PY_K_OTHER:
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
	if (full(c))
		return;
	if (!obj) {
		puts_c(c, "<NULL>");
		return;
	}
	struct sg_error *err = repr_any(c, obj);
	if (err)
		put_error(c, err);
}

struct sg_error *py_repr(struct py_proc *p, uint64_t obj, size_t limit, FILE *out)
{
	struct ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return &sg_enomem;
	py_objs_init(&c->o, p);
	c->p = p;
	c->py2 = c->o.py2;
	c->out = out;
	c->limit = limit;
	struct sg_error *err = NULL;
	if (!obj)
		puts_c(c, "<NULL>");
	else
		err = repr_any(c, obj);
	if (!err && full(c))
		fputs("...", out);
	py_objs_fini(&c->o);
	free(c);
	return err;
}
