/* gen: a seeded generator of C and C++ programs for the differential
 * tester (tests/run-difftest.sh, bench/difftest.sh, doc/difftest.md).
 *
 *   gen [-s SEED] [-x c|c++] [-f FEATURES] [-n FUNCS] [-t THREADS]
 *       [-g GLOBALS] [-m]
 *
 * writes a program to stdout; -m writes its description instead: one
 * "threads N" line, then "global NAME" and "type NAME" lines, the globals
 * to print and the types to ptype.  The same arguments give the same
 * program on every machine: the PRNG is our own (splitmix64), and every
 * choice is made in one fixed order, whatever is written.
 *
 * The program starts its threads, each runs a chain of generated functions
 * and ends blocked in a function that first writes "tid TID" to stdout.
 * FEATURES is a mask of F_* below (hexadecimal or decimal), for shrinking a
 * failing program; FUNCS (functions per thread), THREADS (threads besides
 * main) and GLOBALS are sizes, chosen from the seed when not given. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	F_FPTR = 1 << 0,	/* calls through function pointers */
	F_STATIC = 1 << 1,	/* static functions */
	F_RECUR = 1 << 2,	/* self recursion */
	F_MUTUAL = 1 << 3,	/* mutual recursion */
	F_INLINE = 1 << 4,	/* always_inline / noinline mixes */
	F_TAIL = 1 << 5,	/* calls in tail position */
	F_THREADS = 1 << 6,	/* threads besides main */
	F_BITS = 1 << 7,	/* bit fields */
	F_UNION = 1 << 8,
	F_ENUM = 1 << 9,	/* enums and flag enums */
	F_ARRAY = 1 << 10,
	F_PTR = 1 << 11,	/* pointer globals, locals and arguments */
	F_FLOAT = 1 << 12,
	F_NS = 1 << 13,		/* C++: named, nested and anonymous namespaces */
	F_CLASS = 1 << 14,	/* C++: member functions, class templates */
	F_VIRT = 1 << 15,	/* C++: virtual calls */
	F_STDFN = 1 << 16,	/* C++: std::function */
	F_LAMBDA = 1 << 17,	/* C++: lambdas */
	F_TMPL = 1 << 18,	/* C++: function templates */
	F_STL = 1 << 19,	/* C++: libstdc++ containers */
	F_STDTHREAD = 1 << 20,	/* C++: std::thread */
	F_BLOCKS = 1 << 21,	/* blocking in a condvar, pipe or poll, not only pause() */
	F_SIGNAL = 1 << 22,	/* a thread blocked in a signal handler */
	F_STATICLOC = 1 << 23,	/* static locals */
	F_EXPR = 1 << 24,	/* print of expressions: members, elements, formats */
	F_LDOUBLE = 1 << 25,	/* long double */
	F_REF = 1 << 26,	/* C++: struct arguments by const reference */
	F_CXXBLOCK = 1 << 27,	/* C++: blocking in std::condition_variable::wait */
	F_MULTI = 1 << 28,	/* C++: a second base class */
	F_ALL = (1 << 29) - 1,
};

/* ---- PRNG: splitmix64, so that a seed means the same everywhere. */
static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rnd(int n)	/* 0 .. n-1 */
{
	return n <= 1 ? 0 : (int)(rnd64() % (uint64_t)n);
}

static bool chance(int percent)
{
	return rnd(100) < percent;
}

static unsigned features = F_ALL;
static bool cxx;

static const char *cc(void)	/* the global scope, for qualified names */
{
	return cxx ? "::" : "";
}

static bool has(unsigned f)
{
	return (features & f) != 0;
}

/* ---- Output: the program and its description, both always made. */
static FILE *prog, *meta;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(prog, fmt, ap);
	va_end(ap);
}

/* ---- Types. */
struct scalar {
	const char *name;
	bool is_float, is_signed, is_char, is_bool;
	int bits;
};

static const struct scalar scalars[] = {
	{"char", false, true, true, false, 8},
	{"signed char", false, true, true, false, 8},
	{"unsigned char", false, false, true, false, 8},
	{"short", false, true, false, false, 16},
	{"unsigned short", false, false, false, false, 16},
	{"int", false, true, false, false, 32},
	{"unsigned int", false, false, false, false, 32},
	{"long", false, true, false, false, 64},
	{"unsigned long", false, false, false, false, 64},
	{"long long", false, true, false, false, 64},
	{"unsigned long long", false, false, false, false, 64},
	{"float", true, true, false, false, 32},
	{"double", true, true, false, false, 64},
	{"_Bool", false, false, false, true, 8},
	{"long double", true, true, false, false, 80},
};
#define NSCALAR (int)(sizeof scalars / sizeof scalars[0])
enum { S_INT = 5, S_LONG = 7 };

enum tkind { TK_SCALAR, TK_STRUCT, TK_UNION, TK_ENUM, TK_FLAGS, TK_ARRAY, TK_PTR, TK_STL };

/* A value type: a scalar, a user type, an array of scalars, a pointer to a
 * user struct, or a container. */
struct ty {
	enum tkind k;
	int idx;	/* scalars[], utypes[], stl[] */
	int n;		/* array length */
};

struct field {
	char name[16];
	struct ty t;
	int bits;	/* bit field width, 0 if none */
};

#define MAXF 8
struct utype {
	enum tkind k;	/* TK_STRUCT, TK_UNION, TK_ENUM, TK_FLAGS */
	char name[16];
	int nf;
	struct field f[MAXF];
	int nvals;	/* enumerators */
	bool typedefd;
};

#define MAXT 16
static struct utype ut[MAXT];
static int nut;

static const char *stl_types[] = {
	"std::vector<int>", "std::string", "std::map<int, std::string>", "std::list<long>",
	"std::set<int>", "std::deque<short>", "std::unordered_map<int, int>",
	"std::shared_ptr<int>", "std::unique_ptr<long>", "std::pair<int, std::string>",
	"std::optional<int>", "std::array<int, 3>", "std::tuple<int, char, double>",
};
#define NSTL (int)(sizeof stl_types / sizeof stl_types[0])

static const char *scalar_name(int i)
{
	if (cxx && scalars[i].is_bool)
		return "bool";
	return scalars[i].name;
}

/* The C spelling of a type around a declarator D: "int D[3]", "struct s0 *D". */
static void decl(FILE *f, struct ty t, const char *d)
{
	switch (t.k) {
	case TK_SCALAR:
		fprintf(f, "%s %s", scalar_name(t.idx), d);
		break;
	case TK_STRUCT:	/* n: 1 for a const reference */
		fprintf(f, "%sstruct %s %s%s", t.n ? "const " : "", ut[t.idx].name, t.n ? "&" : "", d);
		break;
	case TK_UNION:
		fprintf(f, "%sunion %s %s%s", t.n ? "const " : "", ut[t.idx].name, t.n ? "&" : "", d);
		break;
	case TK_ENUM:
	case TK_FLAGS:
		fprintf(f, "enum %s %s", ut[t.idx].name, d);
		break;
	case TK_ARRAY:
		fprintf(f, "%s %s[%d]", scalar_name(t.idx), d, t.n);
		break;
	case TK_PTR:
		fprintf(f, "%s %s *%s", ut[t.idx].k == TK_UNION ? "union" : "struct", ut[t.idx].name, d);
		break;
	case TK_STL:
		fprintf(f, "%s %s", stl_types[t.idx], d);
		break;
	}
}

static char *type_str(struct ty t)	/* for casts: "enum e1", "long" */
{
	static char buf[8][64];
	static int which;
	char *b = buf[which++ % 8];
	FILE *f = fmemopen(b, sizeof buf[0], "w");
	decl(f, t, "");
	fclose(f);
	size_t n = strlen(b);
	while (n > 0 && b[n - 1] == ' ')
		b[--n] = 0;
	return b;
}

/* A scalar's value, sometimes at the edges of its range. */
static void scalar_value(FILE *f, int i)
{
	const struct scalar *s = &scalars[i];
	if (s->is_bool) {
		fprintf(f, "%d", rnd(2));
		return;
	}
	if (s->is_float) {
		static const char *fv[] = {"0.1", "1.5", "-2.25", "1e10", "3.14159265358979", "-0.0",
					   "1.0/3", "123456789.125", "1e-300", "0"};
		int n = sizeof fv / sizeof fv[0];
		if (s->bits == 32)
			n -= 1;	/* 1e-300 is 0 as a float: that is a test of its own */
		fprintf(f, "%s", fv[rnd(n)]);
		return;
	}
	if (s->is_char) {
		static const int cv[] = {'A', 'z', '0', ' ', 7, 0, 10, 39, 92, 127, -1, -128, 200};
		int v = cv[rnd(sizeof cv / sizeof cv[0])];
		if (!s->is_signed && v < 0)
			v += 256;
		if (s->is_signed && v > 127)
			v -= 256;
		fprintf(f, "%d", v);
		return;
	}
	switch (rnd(5)) {
	case 0:
		fprintf(f, "%d", rnd(10));
		return;
	case 1:	/* the maximum */
		if (s->is_signed)
			fprintf(f, "%" PRIu64, (UINT64_C(1) << (s->bits - 1)) - 1);
		else
			fprintf(f, "%" PRIu64 "u", s->bits == 64 ? UINT64_MAX : (UINT64_C(1) << s->bits) - 1);
		return;
	case 2:	/* the minimum, or a negative number */
		if (s->is_signed)
			fprintf(f, "%s-%d", s->bits == 64 ? "(long long)" : "", rnd(30000) + 1);
		else
			fprintf(f, "%d", rnd(60000));
		return;
	default:
		fprintf(f, "%d", rnd(1000) - (s->is_signed ? 500 : 0));
	}
}

static void value(FILE *f, struct ty t);

static void utype_value(FILE *f, int i)
{
	struct utype *u = &ut[i];
	if (u->k == TK_ENUM) {
		fprintf(f, "%s_%d", u->name, rnd(u->nvals));
		return;
	}
	if (u->k == TK_FLAGS) {
		int v = rnd(1 << (u->nvals + 1));	/* sometimes a bit no flag names */
		if (cxx)
			fprintf(f, "(enum %s)%d", u->name, v);
		else
			fprintf(f, "%d", v);
		return;
	}
	fprintf(f, "{");
	int n = u->k == TK_UNION ? 1 : u->nf;
	for (int j = 0; j < n; j++) {
		const struct field *fl = &u->f[j];
		if (j)
			fprintf(f, ", ");
		if (fl->bits && fl->t.k == TK_SCALAR) {
			int w = fl->bits;
			if (scalars[fl->t.idx].is_signed)
				fprintf(f, "%d", rnd(1 << w) - (1 << (w - 1)));
			else
				fprintf(f, "%d", rnd(1 << w));
		} else if (fl->t.k == TK_PTR) {
			fprintf(f, "0");
		} else {
			value(f, fl->t);
		}
	}
	fprintf(f, "}");
}

static void value(FILE *f, struct ty t)
{
	switch (t.k) {
	case TK_SCALAR:
		scalar_value(f, t.idx);
		break;
	case TK_STRUCT:
	case TK_UNION:
	case TK_ENUM:
	case TK_FLAGS:
		utype_value(f, t.idx);
		break;
	case TK_ARRAY:
		if (scalars[t.idx].is_char && chance(60)) {
			static const char *sv[] = {"hi", "", "tab\there", "quote\"d", "xxxxxxxxxxxxxxx", "caf\\303\\251"};
			const char *s = sv[rnd(6)];
			if ((int)strlen(s) >= t.n)
				s = "";
			fprintf(f, "\"%s\"", s);
			break;
		}
		fprintf(f, "{");
		for (int j = 0, n = rnd(t.n + 1); j < n; j++) {
			fprintf(f, j ? ", " : "");
			scalar_value(f, t.idx);
		}
		fprintf(f, "}");
		break;
	case TK_PTR:
		fprintf(f, "0");
		break;
	case TK_STL: {
		static const char *iv[] = {
			"{1, 2, 3}", "\"a string\"", "{{1, \"one\"}, {2, \"two\"}}", "{10, 20}",
			"{3, 1, 2}", "{7, 8}", "{{5, 50}}", "std::make_shared<int>(42)",
			"std::make_unique<long>(7)", "{4, \"four\"}", "5", "{{1, 2, 3}}",
			"{1, 'c', 2.5}",
		};
		fprintf(f, "%s", iv[t.idx]);
		break;
	}
	}
}

/* A random value type for a field, local, argument or global. */
static struct ty rand_ty(bool allow_stl, bool allow_array)
{
	for (;;) {
		int r = rnd(100);
		if (r < 45) {
			int i = rnd(NSCALAR);
			if ((scalars[i].is_float && !has(F_FLOAT)) || (scalars[i].bits == 80 && !has(F_LDOUBLE)))
				continue;
			return (struct ty){TK_SCALAR, i, 0};
		}
		if (r < 70 && nut > 0) {
			int i = rnd(nut);
			return (struct ty){ut[i].k, i, 0};
		}
		if (r < 80 && allow_array && has(F_ARRAY)) {
			int i = rnd(NSCALAR);
			if ((scalars[i].is_float && !has(F_FLOAT)) || (scalars[i].bits == 80 && !has(F_LDOUBLE)))
				continue;
			return (struct ty){TK_ARRAY, i, 2 + rnd(6)};
		}
		if (r < 88 && has(F_PTR) && nut > 0) {
			int i = rnd(nut);
			if (ut[i].k == TK_STRUCT || ut[i].k == TK_UNION)
				return (struct ty){TK_PTR, i, 0};
		}
		if (r >= 88 && allow_stl && cxx && has(F_STL))
			return (struct ty){TK_STL, rnd(NSTL), 0};
	}
}

static void make_types(void)
{
	int want = 2 + rnd(5);
	for (int i = 0; i < want && nut < MAXT; i++) {
		struct utype *u = &ut[nut];
		int r = rnd(10);
		if (r < 2 && has(F_ENUM)) {
			u->k = TK_ENUM;
			snprintf(u->name, sizeof u->name, "de%d", nut);
			u->nvals = 2 + rnd(4);
		} else if (r < 3 && has(F_ENUM)) {
			u->k = TK_FLAGS;
			snprintf(u->name, sizeof u->name, "dfl%d", nut);
			u->nvals = 2 + rnd(3);
		} else {
			u->k = r < 5 && has(F_UNION) ? TK_UNION : TK_STRUCT;
			snprintf(u->name, sizeof u->name, "d%c%d", u->k == TK_UNION ? 'u' : 's', nut);
			u->nf = 1 + rnd(MAXF);
			for (int j = 0; j < u->nf; j++) {
				struct field *fl = &u->f[j];
				snprintf(fl->name, sizeof fl->name, "m%d", j);
				if (u->k == TK_STRUCT && has(F_BITS) && chance(30)) {
					static const int bt[] = {5, 6, 3, 4};	/* int, unsigned, uchar, short */
					fl->t = (struct ty){TK_SCALAR, bt[rnd(4)], 0};
					fl->bits = 1 + rnd(scalars[fl->t.idx].bits > 8 ? 12 : 7);
					continue;
				}
				fl->t = rand_ty(false, true);
				/* No member of the type being defined (only pointers to it). */
				if (fl->t.k != TK_PTR && fl->t.k != TK_SCALAR && fl->t.k != TK_ARRAY &&
				    fl->t.idx == nut)
					fl->t = (struct ty){TK_SCALAR, S_INT, 0};
			}
		}
		u->typedefd = chance(30);
		nut++;
	}
}

static void emit_types(void)
{
	for (int i = 0; i < nut; i++) {
		struct utype *u = &ut[i];
		if (u->k == TK_ENUM || u->k == TK_FLAGS) {
			out("enum %s {", u->name);
			for (int j = 0; j < u->nvals; j++)
				out("%s %s_%d = %d", j ? "," : "", u->name, j, u->k == TK_FLAGS ? 1 << j : j);
			out(" };\n");
		} else {
			out("%s %s {\n", u->k == TK_UNION ? "union" : "struct", u->name);
			for (int j = 0; j < u->nf; j++) {
				out("\t");
				decl(prog, u->f[j].t, u->f[j].name);
				if (u->f[j].bits)
					out(" : %d", u->f[j].bits);
				out(";\n");
			}
			out("};\n");
		}
		if (u->typedefd) {
			out("typedef %s %s %s_t;\n",
			    u->k == TK_UNION ? "union" : u->k == TK_STRUCT ? "struct" : "enum", u->name, u->name);
			fprintf(meta, "type %s_t\n", u->name);
		}
		fprintf(meta, "type %s %s\n",
			u->k == TK_UNION ? "union" : u->k == TK_STRUCT ? "struct" : "enum", u->name);
	}
}

/* ---- Globals: one of each struct and union (arguments point at them). */
static int ng;

/* print commands on parts of a global: a member, an element, a format. */
static void global_exprs(struct ty t, const char *name)
{
	static const char *fmts[] = {"x", "d", "c", "o", "t", "u", "a", "z"};
	if (!has(F_EXPR))
		return;
	switch (t.k) {
	case TK_STRUCT:
	case TK_UNION: {
		const struct field *f = &ut[t.idx].f[rnd(ut[t.idx].nf)];
		/* A bit field in parentheses: the quirks can tell it by that. */
		const char *l = f->bits ? "(" : "", *r = f->bits ? ")" : "";
		fprintf(meta, "cmd print %s%s.%s%s\n", l, name, f->name, r);
		fprintf(meta, "cmd print &%s%s.%s%s\n", l, name, f->name, r);
		fprintf(meta, "cmd print sizeof(%s)\n", name);
		break;
	}
	case TK_ARRAY:
		fprintf(meta, "cmd print %s[%d]\n", name, rnd(t.n));
		fprintf(meta, "cmd print/x %s\n", name);
		fprintf(meta, "cmd print *%s@%d\n", name, 1 + rnd(t.n));
		break;
	case TK_PTR:
		fprintf(meta, "cmd print *%s\n", name);
		if (ut[t.idx].f[0].bits)
			fprintf(meta, "cmd print (%s->%s)\n", name, ut[t.idx].f[0].name);
		else
			fprintf(meta, "cmd print %s->%s\n", name, ut[t.idx].f[0].name);
		break;
	case TK_SCALAR:
	case TK_ENUM:
	case TK_FLAGS:
		fprintf(meta, "cmd print/%s %s\n", fmts[rnd(8)], name);
		if (t.k == TK_SCALAR && !scalars[t.idx].is_bool)
			fprintf(meta, "cmd print %s %s %d\n", name, rnd(2) ? "+" : "*", 1 + rnd(5));
		break;
	default:
		break;
	}
}

static void global(struct ty t, bool is_static)
{
	char name[16];
	snprintf(name, sizeof name, "dg%d", ng++);
	if (is_static)
		out("static ");
	decl(prog, t, name);
	out(" = ");
	value(prog, t);
	out(";\n");
	fprintf(meta, "global %s\n", name);
	global_exprs(t, name);
}

static int struct_global[MAXT];	/* name index of the global of each user type */

static void emit_globals(int want)
{
	for (int i = 0; i < nut; i++) {
		struct_global[i] = ng;
		global((struct ty){ut[i].k, i, 0}, false);
	}
	for (int i = 0; i < want; i++) {
		struct ty t = rand_ty(true, true);
		if (t.k == TK_PTR) {	/* a pointer to the type's global */
			char name[16];
			snprintf(name, sizeof name, "dg%d", ng++);
			decl(prog, t, name);
			out(" = &dg%d;\n", struct_global[t.idx]);
			fprintf(meta, "global %s\n", name);
			global_exprs(t, name);
			continue;
		}
		global(t, chance(20));
	}
	if (has(F_PTR)) {
		out("const char *dg%d = \"a C string\";\n", ng);
		fprintf(meta, "global dg%d\n", ng++);
		out("int *dg%d = (int *)0;\n", ng);
		fprintf(meta, "global dg%d\n", ng++);
	}
}

/* ---- Functions. */
enum fkind { FK_FREE, FK_MEMBER, FK_VIRT, FK_TMPL, FK_CTMPL };
enum ckind { CK_DIRECT, CK_FPTR, CK_STDFN, CK_LAMBDA };

#define MAXP 4
#define MAXL 5
struct func {
	char name[32];
	char ns[48];		/* "" or "a1::b2::" or "" for anonymous */
	int nsk;		/* 0 global, 1 named, 2 nested, 3 anonymous */
	enum fkind fk;
	enum ckind ck;		/* how its caller calls it */
	bool is_static, always_inline, noinline, recursive, tail;
	int mutual;		/* 1: calls the next, which calls it back */
	int np;
	struct ty p[MAXP];
	int nl;
	struct ty l[MAXL];
	bool l_addr[MAXL];	/* address taken: lives in memory */
	int tmpl_t;		/* template argument: a scalar */
	int tmpl_n;
};

#define MAXFN 24
#define MAXTH 6
static struct func fn[MAXTH][MAXFN];
static int nfn[MAXTH];
static int block_kind[MAXTH];

/* The parameter's type must be one a caller can make: scalars, enums,
 * pointers to the globals, structs by value (copies of the globals). */
static struct ty param_ty(void)
{
	for (;;) {
		struct ty t = rand_ty(false, false);
		if ((t.k == TK_STRUCT || t.k == TK_UNION) && cxx && has(F_REF) && chance(50))
			t.n = 1;
		if (t.k != TK_STL && t.k != TK_ARRAY)
			return t;
	}
}

static void make_funcs(int th, int n)
{
	nfn[th] = n;
	for (int i = 0; i < n; i++) {
		struct func *f = &fn[th][i];
		snprintf(f->name, sizeof f->name, "f%d_%d", th, i);
		f->fk = FK_FREE;
		if (cxx) {
			int r = rnd(10);
			if (r < 2 && has(F_CLASS))
				f->fk = FK_MEMBER;
			else if (r < 3 && has(F_VIRT))
				f->fk = FK_VIRT;
			else if (r < 4 && has(F_TMPL))
				f->fk = FK_TMPL;
			else if (r < 5 && has(F_CLASS))
				f->fk = FK_CTMPL;
			if (has(F_NS)) {
				f->nsk = rnd(4);
				if (f->nsk == 1)
					snprintf(f->ns, sizeof f->ns, "n%d::", th);
				else if (f->nsk == 2)
					snprintf(f->ns, sizeof f->ns, "n%d::in%d::", th, i);
			}
		}
		f->ck = CK_DIRECT;
		if (f->fk == FK_FREE) {
			int r = rnd(10);
			if (r < 2 && has(F_FPTR))
				f->ck = CK_FPTR;
			else if (r < 3 && cxx && has(F_STDFN))
				f->ck = CK_STDFN;
			else if (r < 5 && cxx && has(F_LAMBDA))
				f->ck = CK_LAMBDA;
			f->is_static = !cxx && has(F_STATIC) && chance(30);
			f->recursive = has(F_RECUR) && chance(15);
			if (!f->recursive && i + 2 < n && has(F_MUTUAL) && chance(10) &&
			    i > 0 && fn[th][i - 1].mutual == 0)
				f->mutual = 1;
		}
		if (has(F_INLINE) && !f->recursive && f->ck == CK_DIRECT && f->fk != FK_VIRT) {
			int r = rnd(10);
			f->always_inline = r < 2;
			f->noinline = r >= 2 && r < 6;
		} else {
			f->noinline = f->recursive || chance(50);
		}
		f->tail = has(F_TAIL) && !f->mutual && chance(20);
		f->np = rnd(MAXP + 1);
		for (int j = 0; j < f->np; j++)
			f->p[j] = param_ty();
		f->nl = rnd(MAXL + 1);
		for (int j = 0; j < f->nl; j++) {
			f->l[j] = rand_ty(true, true);
			f->l_addr[j] = chance(40);
		}
		static const int targs[] = {7, 0, 3, 12, 9};	/* long, char, short, double, ulong */
		f->tmpl_t = targs[rnd(has(F_FLOAT) ? 5 : 4)];
		f->tmpl_n = rnd(10) - 3;
	}
	/* The callee of a mutual-recursion function is a free function too,
	 * and not itself recursive: its recursion ends on an odd n, which
	 * would call back again, for ever. */
	for (int i = 0; i < n; i++)
		if (fn[th][i].mutual && (fn[th][i + 1].fk != FK_FREE || fn[th][i + 1].recursive))
			fn[th][i].mutual = 0;
	/* No always_inline in a recursion. */
	for (int i = 0; i + 1 < n; i++)
		if (fn[th][i].mutual)
			fn[th][i].always_inline = fn[th][i + 1].always_inline = false;
	/* A pointer or std::function names a free function. */
	for (int i = 0; i < n; i++)
		if (fn[th][i].fk != FK_FREE)
			fn[th][i].ck = CK_DIRECT;
}

static bool is_intlike(struct ty t)
{
	return (t.k == TK_SCALAR && !scalars[t.idx].is_float) || t.k == TK_ENUM || t.k == TK_FLAGS;
}

/* An argument of type T for a call, from the caller's integers in INTS. */
static void arg_expr(FILE *f, struct ty t, const char *ints)
{
	switch (t.k) {
	case TK_SCALAR:
		fprintf(f, "(%s)(%s + %d)", scalar_name(t.idx), ints, rnd(100));
		break;
	case TK_ENUM:
	case TK_FLAGS:
		fprintf(f, "(enum %s)((%s) & %d)", ut[t.idx].name, ints, t.k == TK_ENUM ? 1 : 3);
		break;
	case TK_STRUCT:
	case TK_UNION:
		fprintf(f, "dg%d", struct_global[t.idx]);
		break;
	case TK_PTR:
		fprintf(f, "&dg%d", struct_global[t.idx]);
		break;
	default:
		fprintf(f, "0");
	}
}

static void params(const struct func *f, bool names)
{
	out("int n");
	for (int j = 0; j < f->np; j++) {
		char d[16] = "";
		if (names)
			snprintf(d, sizeof d, "p%d", j);
		out(", ");
		decl(prog, f->p[j], d);
	}
}

static void param_types(FILE *o, const struct func *f)
{
	fprintf(o, "int");
	for (int j = 0; j < f->np; j++)
		fprintf(o, ", %s", type_str(f->p[j]));
}

static void open_ns(const struct func *f, int th, int i)
{
	if (f->nsk == 1)
		out("namespace n%d {\n", th);
	else if (f->nsk == 2)
		out("namespace n%d { namespace in%d {\n", th, i);
	else if (f->nsk == 3)
		out("namespace {\n");
}

static void close_ns(const struct func *f)
{
	if (f->nsk == 2)
		out("} }\n");
	else if (f->nsk)
		out("}\n");
}

static const char *attrs(const struct func *f)
{
	if (f->always_inline)
		return cxx ? "inline __attribute__((always_inline)) " : "static inline __attribute__((always_inline)) ";
	if (f->noinline)
		return f->is_static ? "static __attribute__((noinline)) " : "__attribute__((noinline)) ";
	return f->is_static ? "static " : "";
}

/* The expression that calls fn[th][i] from its caller, with N as its count
 * and INTS for the arguments. */
static void call_expr(FILE *o, int th, int i, const char *nexpr, const char *ints)
{
	const struct func *f = &fn[th][i];
	switch (f->fk) {
	case FK_FREE:
		if (f->ck == CK_FPTR)
			fprintf(o, "fp%d_%d(%s", th, i, nexpr);
		else if (f->ck == CK_STDFN)
			fprintf(o, "sf(%s", nexpr);
		else if (f->ck == CK_LAMBDA)
			fprintf(o, "lam(%s", nexpr);
		else
			fprintf(o, "%s%s%s(%s", cc(), f->ns, f->name, nexpr);
		break;
	case FK_MEMBER:
	case FK_CTMPL:
		fprintf(o, "obj.run(%s", nexpr);
		break;
	case FK_VIRT:
		fprintf(o, "gb%d_%d->run(%s", th, i, nexpr);
		break;
	case FK_TMPL:
		fprintf(o, "::%s%s<%s, %d>(%s, (%s)(%s)", f->ns, f->name, scalar_name(f->tmpl_t),
			f->tmpl_n, nexpr, scalar_name(f->tmpl_t), ints);
		break;
	}
	if (f->ck == CK_LAMBDA) {	/* the lambda passes the rest itself */
		fprintf(o, ")");
		return;
	}
	for (int j = 0; j < f->np; j++) {
		fprintf(o, ", ");
		arg_expr(o, f->p[j], ints);
	}
	fprintf(o, ")");
}

/* What the caller declares before calling fn[th][i]: the object, the
 * std::function or the lambda. */
static void call_setup(int th, int i, const char *ints)
{
	const struct func *f = &fn[th][i];
	if (f->fk == FK_MEMBER)
		out("\t::%sK%d_%d obj = {n};\n", f->ns, th, i);
	else if (f->fk == FK_CTMPL)
		out("\t::%sC%d_%d<%s> obj = {(%s)n};\n", f->ns, th, i, scalar_name(f->tmpl_t),
		    scalar_name(f->tmpl_t));
	else if (f->ck == CK_STDFN) {
		out("\tstd::function<int(");
		param_types(prog, f);
		out(")> sf = ::%s%s;\n", f->ns, f->name);
	} else if (f->ck == CK_LAMBDA) {
		out("\tauto lam = [&](int m) { return ::%s%s(m", f->ns, f->name);
		for (int j = 0; j < f->np; j++) {
			out(", ");
			arg_expr(prog, f->p[j], ints);
		}
		out("); };\n");
	}
}

static void emit_block(int th)
{
	int k = block_kind[th];
	out("__attribute__((noinline)) static void block%d(int n)\n{\n", th);
	if (k == 4) {	/* the handler writes the tid and blocks */
		out("\tvs += n;\n\traise(SIGUSR1);\n\tfor (;;)\n\t\tpause();\n}\n\n");
		return;
	}
	out("\tchar buf[32] = \"\";\n\tint len = snprintf(buf, sizeof buf, \"tid %%ld\\n\", (long)syscall(SYS_gettid));\n");
	if (k == 2)
		out("\tpthread_mutex_lock(&bmu);\n");
	if (k == 5)
		out("\tstatic std::mutex cm;\n\tstatic std::condition_variable ccv;\n\tstd::unique_lock<std::mutex> lk(cm);\n");
	out("\tif (write(1, buf, (size_t)len) != len)\n\t\tabort();\n");
	out("\tvs += n;\n");
	switch (k) {
	case 0:
		out("\tfor (;;)\n\t\tpause();\n");
		break;
	case 1:
		out("\tfor (;;)\n\t\tif (read(bpipe[0], buf, 1) < 0)\n\t\t\tabort();\n");
		break;
	case 2:
		out("\tfor (;;)\n\t\tpthread_cond_wait(&bcv, &bmu);\n");
		break;
	case 3:
		out("\tfor (;;)\n\t\tpoll(NULL, 0, -1);\n");
		break;
	case 5:
		out("\tfor (;;)\n\t\tccv.wait(lk);\n");
		break;
	}
	out("}\n\n");
}

static void emit_func(int th, int i)
{
	const struct func *f = &fn[th][i];
	int n = nfn[th];
	char self[96];

	/* The integers the body computes with, for arguments and locals. */
	char ints[256];
	FILE *o = fmemopen(ints, sizeof ints, "w");
	fprintf(o, "n");
	for (int j = 0; j < f->np; j++)
		if (is_intlike(f->p[j]))
			fprintf(o, " + (int)p%d", j);
	fclose(o);

	open_ns(f, th, i);
	const char *tmpl_this = "";
	switch (f->fk) {
	case FK_FREE:
		out("%sint %s(", attrs(f), f->name);
		snprintf(self, sizeof self, "%s", f->name);
		break;
	case FK_TMPL:
		out("template <typename T, int N> %sint %s(int n, T x", attrs(f), f->name);
		snprintf(self, sizeof self, "%s", f->name);
		tmpl_this = " + (int)x + N";
		break;
	case FK_MEMBER:
		out("struct K%d_%d {\n\tint k;\n\tint run(", th, i);
		params(f, false);
		out(");\n};\n%sint K%d_%d::run(", attrs(f), th, i);
		tmpl_this = " + k";
		break;
	case FK_CTMPL:
		out("template <typename T> struct C%d_%d {\n\tT v;\n\tint run(", th, i);
		params(f, false);
		out(");\n};\ntemplate <typename T> %sint C%d_%d<T>::run(", attrs(f), th, i);
		tmpl_this = " + (int)v";
		break;
	case FK_VIRT:
		out("struct B%d_%d {\n\tvirtual int run(", th, i);
		params(f, false);
		out(") { return n; }\n\tvirtual ~B%d_%d() {}\n};\n", th, i);
		if (has(F_MULTI) && chance(50)) {	/* a second base, after the one with the vtable */
			out("struct X%d_%d {\n\tint x = %d;\n};\n", th, i, rnd(100));
			out("struct D%d_%d : B%d_%d, X%d_%d {\n", th, i, th, i, th, i);
		} else {
			out("struct D%d_%d : B%d_%d {\n", th, i, th, i);
		}
		out("\tint w = %d;\n\tint run(", rnd(100));
		params(f, false);
		out(") override;\n};\n%sint D%d_%d::run(", attrs(f), th, i);
		tmpl_this = " + w";
		break;
	}
	if (f->fk == FK_TMPL) {
		for (int j = 0; j < f->np; j++) {
			char d[16];
			snprintf(d, sizeof d, "p%d", j);
			out(", ");
			decl(prog, f->p[j], d);
		}
	} else {
		params(f, true);
	}
	out(")\n{\n");

	/* Locals, from the arguments so that no optimizer folds them away. */
	for (int j = 0; j < f->nl; j++) {
		char d[16];
		snprintf(d, sizeof d, "l%d", j);
		out("\t");
		struct ty t = f->l[j];
		if (!f->l_addr[j] && t.k == TK_SCALAR && chance(30))
			out("volatile ");
		decl(prog, t, d);
		switch (t.k) {
		case TK_SCALAR:
			out(" = (%s)(%s * %d);\n", scalar_name(t.idx), ints, rnd(9) + 1);
			break;
		case TK_ENUM:
		case TK_FLAGS:
			out(" = (enum %s)((%s) & %d);\n", ut[t.idx].name, ints, rnd(8));
			break;
		case TK_PTR:
			out(" = &dg%d;\n", struct_global[t.idx]);
			break;
		case TK_STRUCT:
		case TK_UNION:
			out(" = dg%d;\n", struct_global[t.idx]);
			break;
		default:
			out(" = ");
			value(prog, t);
			out(";\n");
		}
	}
	bool sl = has(F_STATICLOC) && chance(25);
	int sl_ty = rnd(NSCALAR - 2);	/* not _Bool, not long double */
	if (sl) {
		out("\tstatic %s sl = ", scalar_name(sl_ty));
		scalar_value(prog, sl_ty);
		out(";\n");
	}
	out("\tint r;\n");
	/* Recursion first (its own depth), or the call back of a mutual
	 * recursion; else the chain goes on.  Branches, not gotos: a goto
	 * may not jump past the initialisation of a C++ object. */
	const char *nx = "(n - 1) | 1";
	bool branch = false;
	if (f->recursive) {
		out("\tif ((n & 7) != 7) {\n\t\tr = %s(n + 1", self);
		for (int j = 0; j < f->np; j++)
			out(", p%d", j);
		out(");\n\t}");
		nx = "n + 1";
		branch = true;
	}
	if (i > 0 && fn[th][i - 1].mutual) {
		/* called by fn[i - 1] with n odd: call it back with n even */
		const struct func *g = &fn[th][i - 1];
		out("%sif (n %% 2) {\n\t\tr = %s%s%s(n + 1", branch ? " else " : "\t", cc(), g->ns, g->name);
		for (int j = 0; j < g->np; j++) {
			out(", ");
			arg_expr(prog, g->p[j], "n");
		}
		out(");\n\t}");
		branch = true;
	}
	if (branch)
		out(" else {\n");
	/* The next function, or the blocking point. */
	if (i + 1 < n) {
		call_setup(th, i + 1, ints);
		out(f->tail ? "\treturn " : "\tr = ");
		call_expr(prog, th, i + 1, f->mutual ? "n" : nx, ints);
		out(";\n");
	} else {
		out("\tblock%d(%s);\n\tr = 0;\n", th, ints);
	}
	if (branch)
		out("\t}\n");
	/* Keep the locals alive across the call. */
	for (int j = 0; j < f->nl; j++) {
		struct ty t = f->l[j];
		if (f->l_addr[j] || t.k == TK_STRUCT || t.k == TK_UNION || t.k == TK_ARRAY || t.k == TK_STL)
			out("\tsink(&l%d, sizeof l%d);\n", j, j);
		else if (t.k == TK_PTR)
			out("\tsink(l%d, 1);\n", j);
		else
			out("\tvs += (long)l%d;\n", j);
	}
	if (sl)
		out("\tvs += (long)sl;\n");
	out("\treturn r%s;\n}\n", tmpl_this);
	close_ns(f);

	/* What its caller uses: a pointer, an object. */
	if (f->ck == CK_FPTR) {
		out("int (*volatile fp%d_%d)(", th, i);
		param_types(prog, f);
		out(") = %s%s%s;\n", cc(), f->ns, f->name);
	}
	if (f->fk == FK_VIRT) {
		out("::%sD%d_%d gd%d_%d;\n::%sB%d_%d *volatile gb%d_%d = &gd%d_%d;\n", f->ns, th, i, th, i,
		    f->ns, th, i, th, i, th, i);
		fprintf(meta, "global gd%d_%d\nglobal gb%d_%d\n", th, i, th, i);
		fprintf(meta, "type %s%sB%d_%d\ntype %s%sD%d_%d\n", f->nsk == 3 ? "(anonymous namespace)::" : "",
			f->ns, th, i, f->nsk == 3 ? "(anonymous namespace)::" : "", f->ns, th, i);
	}
	if (f->fk == FK_MEMBER)
		fprintf(meta, "type %s%sK%d_%d\n", f->nsk == 3 ? "(anonymous namespace)::" : "", f->ns, th, i);
	if (f->fk == FK_CTMPL)	/* the instance the caller makes */
		fprintf(meta, "type %s%sC%d_%d<%s>\n", f->nsk == 3 ? "(anonymous namespace)::" : "", f->ns, th, i,
			scalar_name(f->tmpl_t));
	out("\n");
}

static void emit_thread(int th)
{
	const struct func *f0 = &fn[th][0];
	if (th == 0)
		return;
	out("static void *thread%d(void *arg)\n{\n", th);
	out("\tpthread_setname_np(pthread_self(), \"dt%d\");\n", th);
	out("\tint n = vn + %d;\n", th);
	char ints[] = "n";
	call_setup(th, 0, ints);
	out("\tvs += ");
	call_expr(prog, th, 0, "n", ints);
	out(";\n\treturn arg;\n}\n\n");
	(void)f0;
}

static void usage(void)
{
	fprintf(stderr, "usage: gen [-s SEED] [-x c|c++] [-f FEATURES] [-n FUNCS] [-t THREADS] [-g GLOBALS] [-m]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	int nfuncs = -1, nthreads = -1, nglobals = -1, lang = -1;
	bool want_meta = false;
	int c;
	while ((c = getopt(argc, argv, "s:x:f:n:t:g:m")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'x':
			lang = strcmp(optarg, "c++") == 0;
			break;
		case 'f':
			features = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nfuncs = atoi(optarg);
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'g':
			nglobals = atoi(optarg);
			break;
		case 'm':
			want_meta = true;
			break;
		default:
			usage();
		}
	}
	rng_state = seed;
	/* The sizes are drawn even when given, so that the rest stays the same. */
	int r_lang = rnd(2), r_funcs = 2 + rnd(5), r_threads = 1 + rnd(3), r_globals = 4 + rnd(8);
	cxx = lang < 0 ? r_lang : lang;
	if (nfuncs < 1)
		nfuncs = r_funcs;
	if (nfuncs > MAXFN)
		nfuncs = MAXFN;
	if (nthreads < 0)
		nthreads = r_threads;
	if (!has(F_THREADS))
		nthreads = 0;
	if (nthreads > MAXTH - 1)
		nthreads = MAXTH - 1;
	if (nglobals < 0)
		nglobals = r_globals;

	char *pbuf, *mbuf;
	size_t plen, mlen;
	prog = open_memstream(&pbuf, &plen);
	meta = open_memstream(&mbuf, &mlen);
	fprintf(meta, "threads %d\nlang %s\n", nthreads + 1, cxx ? "c++" : "c");

	out("/* Generated by tests/difftest/gen -s %" PRIu64 " -x %s -f %#x -n %d -t %d -g %d */\n",
	    seed, cxx ? "c++" : "c", features, nfuncs, nthreads, nglobals);
	out("#define _GNU_SOURCE\n#include <poll.h>\n#include <pthread.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	    "#include <sys/syscall.h>\n#include <unistd.h>\n");
	if (cxx)
		out("#include <array>\n#include <condition_variable>\n#include <deque>\n#include <functional>\n#include <list>\n#include <map>\n"
		    "#include <memory>\n#include <mutex>\n#include <optional>\n#include <set>\n#include <string>\n#include <thread>\n"
		    "#include <tuple>\n#include <unordered_map>\n#include <vector>\n");
	out("\nvolatile long vs;\nvolatile int vn;\nstatic int bpipe[2];\n"
	    "static pthread_mutex_t bmu = PTHREAD_MUTEX_INITIALIZER;\nstatic pthread_cond_t bcv = PTHREAD_COND_INITIALIZER;\n"
	    "__attribute__((noinline)) void sink(const void *p, unsigned long n)\n{\n"
	    "\t__asm__ volatile(\"\" : : \"r\"(p), \"r\"(n) : \"memory\");\n}\n\n"
	    "/* SIGUSR1: a thread blocks in its handler, below a signal frame. */\n"
	    "__attribute__((noinline)) static void sig_block(int sig)\n{\n"
	    "\tchar buf[32] = \"\";\n\tint len = snprintf(buf, sizeof buf, \"tid %%ld\\n\", (long)syscall(SYS_gettid));\n"
	    "\tif (write(1, buf, (size_t)len) != len)\n\t\tabort();\n\tvs += sig;\n\tfor (;;)\n\t\tpause();\n}\n\n"
	    "static void on_usr1(int sig)\n{\n\tsig_block(sig);\n}\n\n");

	make_types();
	emit_types();
	out("\n");
	emit_globals(nglobals);
	out("\n");
	for (int th = 0; th <= nthreads; th++) {
		block_kind[th] = has(F_BLOCKS) ? rnd(has(F_SIGNAL) ? 5 : 4) : has(F_SIGNAL) && rnd(3) == 0 ? 4 : 0;
		if (cxx && has(F_CXXBLOCK) && chance(25))
			block_kind[th] = 5;
		make_funcs(th, nfuncs);
		emit_block(th);
		/* Forward declarations for mutual recursion. */
		for (int i = 0; i < nfuncs; i++) {
			const struct func *f = &fn[th][i];
			if (!f->mutual)
				continue;
			open_ns(f, th, i);
			out("%sint %s(", attrs(f), f->name);
			params(f, false);
			out(");\n");
			close_ns(f);
		}
		for (int i = nfuncs - 1; i >= 0; i--)
			emit_func(th, i);
		emit_thread(th);
	}

	out("int main(int argc, char **argv)\n{\n\t(void)argv;\n\tif (pipe(bpipe) != 0)\n\t\treturn 1;\n");
	out("\tsetvbuf(stdout, NULL, _IONBF, 0);\n\tvn = argc;\n\tsignal(SIGUSR1, on_usr1);\n");
	bool stdthread = cxx && has(F_STDTHREAD) && rnd(2);
	for (int th = 1; th <= nthreads; th++) {
		if (stdthread)
			out("\tstd::thread(thread%d, nullptr).detach();\n", th);
		else
			out("\t{\n\t\tpthread_t t;\n\t\tif (pthread_create(&t, NULL, thread%d, NULL) != 0)\n"
			    "\t\t\treturn 1;\n\t}\n", th);
	}
	out("\tint n = argc + 2;\n");
	call_setup(0, 0, "n");
	out("\treturn ");
	call_expr(prog, 0, 0, "n", "n");
	out(";\n}\n");

	fclose(prog);
	fclose(meta);
	if (want_meta)
		fwrite(mbuf, 1, mlen, stdout);
	else
		fwrite(pbuf, 1, plen, stdout);
	free(pbuf);
	free(mbuf);
	return 0;
}
