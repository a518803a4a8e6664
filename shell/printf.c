/* printf "FORMAT", ARGS...: gdb's printf.  The format is C's, with gdb's
   limits (no '*' widths, no %n, no h); each argument is an expression.
   Nothing is made in the target: gdb calls malloc there for a string
   literal argument, spyglass takes only values it can read.  */
#include <config.h>
#include "eval.h"
#include "shell.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRING (1 << 20)	/* %s reads at most this much */
#define MAX_SPEC 64

/* The format between double quotes, its escapes resolved, into *RET;
   *REST after the closing quote.  */
static struct sg_error *format_string(const char *p, char **ret, const char **rest)
{
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '"')
		return sg_error_create(SG_ERROR_USAGE, "Bad format string, missing '\"'.");
	char *s = malloc(strlen(p) + 1);
	if (!s)
		return &sg_enomem;
	size_t n = 0;
	for (p++; *p && *p != '"'; p++) {
		if (*p != '\\') {
			s[n++] = *p;
			continue;
		}
		static const char from[] = "ntabfrve\\\"'", to[] = "\n\t\a\b\f\r\v\033\\\"'";
		const char *esc = *++p ? strchr(from, *p) : NULL;
		/* gdb takes no octal or hex escapes here.  */
		if (esc) {
			s[n++] = to[esc - from];
		} else {
			free(s);
			return *p ? sg_error_format(SG_ERROR_USAGE,
						    "Unrecognized escape character \\%c in format string.", *p)
				  : sg_error_create(SG_ERROR_USAGE, "Bad format string, non-terminated '\"'");
		}
	}
	if (*p != '"') {
		free(s);
		return sg_error_create(SG_ERROR_USAGE, "Bad format string, non-terminated '\"'");
	}
	s[n] = 0;
	*ret = s;
	*rest = p + 1;
	return NULL;
}

/* The arguments after the format: split at the commas outside
   brackets and quotes, each trimmed.  */
static struct sg_error *split_args(const char *p, char ***ret, size_t *nret)
{
	char **a = NULL;
	size_t n = 0, cap = 0;
	while (isspace((unsigned char)*p))
		p++;
	if (*p && *p != ',') {
		*ret = NULL;
		return sg_error_create(SG_ERROR_USAGE, "Invalid argument syntax");
	}
	while (*p == ',') {
		const char *start = ++p;
		int depth = 0;
		char quote = 0;
		for (; *p; p++) {
			if (quote) {
				if (*p == '\\' && p[1])
					p++;
				else if (*p == quote)
					quote = 0;
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else if (*p == '(' || *p == '[') {
				depth++;
			} else if ((*p == ')' || *p == ']') && depth) {
				depth--;
			} else if (*p == ',' && !depth) {
				break;
			}
		}
		while (isspace((unsigned char)*start))
			start++;
		size_t len = (size_t)(p - start);
		while (len && isspace((unsigned char)start[len - 1]))
			len--;
		char **slot = sg_array_push(&a, &n, &cap, sizeof(*a));
		if (!slot || !(*slot = strndup(start, len))) {
			if (slot)
				n--;
			for (size_t i = 0; i < n; i++)
				free(a[i]);
			free(a);
			return &sg_enomem;
		}
	}
	*ret = a;
	*nret = n;
	return NULL;
}

/* One conversion of the format: C's spec with its flags, width and
   precision in SPEC, the length modifier and the conversion letter.  */
struct conv {
	char spec[MAX_SPEC];	/* "%-8.3" */
	char length;		/* 0, 'l' (l, ll, z) or 'L' */
	char letter;
};

/* The conversion at P (after its '%') into *C; *END after it.  */
static struct sg_error *parse_conv(const char *p, struct conv *c, const char **end)
{
	const char *start = p - 1;
	memset(c, 0, sizeof(*c));
	while (*p && strchr("-+ #0'", *p))
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p);)
			p++;
	if (*p == '*')
		return sg_error_create(SG_ERROR_USAGE, "`*' not supported for precision or width in printf");
	if ((size_t)(p - start) >= MAX_SPEC)
		return sg_error_create(SG_ERROR_USAGE, "printf: a conversion's width is too long");
	memcpy(c->spec, start, (size_t)(p - start));
	if (*p == 'l') {
		c->length = 'l';
		p += p[1] == 'l' ? 2 : 1;
	} else if (*p == 'z') {
		c->length = 'l';
		p++;
	} else if (*p == 'L') {
		c->length = 'L';
		p++;
	}
	if (*p == 'n')
		return sg_error_create(SG_ERROR_USAGE, "Format specifier `n' not supported in printf");
	if (!*p || !strchr("diuoxXcsfeEgGaAp", *p))
		return sg_error_format(SG_ERROR_USAGE, "Unrecognized format specifier '%c' in printf", *p);
	c->letter = *p;
	*end = p + 1;
	return NULL;
}

/* The conversion specs are built from the user's format, each checked
   by parse_conv and given an argument of the type its letter and length
   take.  */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* ARG formatted by C into F.  */
static struct sg_error *convert(struct shell *sh, struct sg_target *t, const struct conv *c,
				const char *arg, FILE *f)
{
	struct scalar v;
	struct sg_error *err = sg_eval_scalar(sh->session, t, arg, &v);
	if (err)
		return err;
	char spec[MAX_SPEC + 4];
	switch (c->letter) {
	case 'd':
	case 'i':
		if (c->length) {
			snprintf(spec, sizeof(spec), "%sll%c", c->spec, c->letter);
			fprintf(f, spec, (long long)v.i);
		} else {
			snprintf(spec, sizeof(spec), "%s%c", c->spec, c->letter);
			fprintf(f, spec, (int)v.i);
		}
		return NULL;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		if (c->length) {
			snprintf(spec, sizeof(spec), "%sll%c", c->spec, c->letter);
			fprintf(f, spec, (unsigned long long)v.i);
		} else {
			snprintf(spec, sizeof(spec), "%s%c", c->spec, c->letter);
			fprintf(f, spec, (unsigned)v.i);
		}
		return NULL;
	case 'c':
		snprintf(spec, sizeof(spec), "%sc", c->spec);
		fprintf(f, spec, (int)(unsigned char)v.i);
		return NULL;
	case 'p': {
		/* gdb's %p: glibc's text, whatever the host's pointers.  */
		char text[32];
		if (v.i)
			snprintf(text, sizeof(text), "0x%" PRIx64, v.i);
		else
			snprintf(text, sizeof(text), "(nil)");
		snprintf(spec, sizeof(spec), "%ss", c->spec);
		fprintf(f, spec, text);
		return NULL;
	}
	case 's': {
		if (v.is_float)
			return sg_error_create(SG_ERROR_USAGE, "Value can't be converted to integer.");
		char *s;
		if ((err = sg_target_read_string(t, v.i, MAX_STRING, &s, NULL))) {
			if (sg_error_code(err) != SG_ERROR_FAULT)
				return err;
			uint64_t bad = sg_error_address(err);
			sg_error_destroy(err);
			return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64,
					       bad);
		}
		snprintf(spec, sizeof(spec), "%ss", c->spec);
		fprintf(f, spec, s);
		free(s);
		return NULL;
	}
	default:	/* floating */
		/* An integer's bytes are read as a float of its size, as
		   gdb does (42 is 0.000000).  */
		if (!v.is_float && v.size == 4) {
			float fl;
			uint32_t bits = (uint32_t)v.i;
			memcpy(&fl, &bits, sizeof(fl));
			v.f = fl;
		} else if (!v.is_float && v.size == 8) {
			double d;
			memcpy(&d, &v.i, sizeof(d));
			v.f = d;
		}
		if (c->length == 'L') {
			snprintf(spec, sizeof(spec), "%sL%c", c->spec, c->letter);
			fprintf(f, spec, v.f);
		} else {
			snprintf(spec, sizeof(spec), "%s%c", c->spec, c->letter);
			fprintf(f, spec, (double)v.f);
		}
		return NULL;
	}
}

#pragma GCC diagnostic pop

/* The whole output of FMT with ARGS into F.  */
static struct sg_error *format(struct shell *sh, struct sg_target *t, const char *fmt,
			       char **args, size_t nargs, FILE *f)
{
	/* The conversions are counted first: gdb refuses a mismatch
	   before it evaluates anything.  */
	size_t nconv = 0;
	struct sg_error *err;
	for (const char *p = fmt; (p = strchr(p, '%')); ) {
		if (p[1] == '%') {
			p += 2;
			continue;
		}
		struct conv c;
		if ((err = parse_conv(p + 1, &c, &p)))
			return err;
		nconv++;
	}
	if (nconv != nargs)
		return sg_error_create(SG_ERROR_USAGE, "Wrong number of arguments for specified format-string");
	size_t k = 0;
	for (const char *p = fmt; *p;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(pct - p), f);
		if (pct[1] == '%') {
			fputc('%', f);
			p = pct + 2;
			continue;
		}
		struct conv c;
		if ((err = parse_conv(pct + 1, &c, &p)) || (err = convert(sh, t, &c, args[k++], f)))
			return err;
	}
	return NULL;
}

struct sg_error *shell_cmd_printf(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	struct shell *sh = arg;
	struct sg_target *t = sg_session_target(s);
	char *fmt, **argv = NULL;
	size_t nargs = 0;
	const char *rest;
	struct sg_error *err = format_string(args, &fmt, &rest);
	if (err)
		return err;
	if ((err = split_args(rest, &argv, &nargs))) {
		free(fmt);
		return err;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		err = &sg_enomem;
	} else {
		err = format(sh, t, fmt, argv, nargs, f);
		if (fclose(f) && !err)
			err = &sg_enomem;
	}
	/* Nothing is printed when an argument fails, as in gdb.  */
	if (!err) {
		sg_out_printf(out, "%s", text);
		sg_out_string(out, "text", text);
	}
	free(text);
	free(fmt);
	for (size_t i = 0; i < nargs; i++)
		free(argv[i]);
	free(argv);
	return err;
}
