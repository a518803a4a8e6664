/* info functions, info variables and info types: the definitions whose
   names match a regular expression, by file, as gdb lists them; the
   search is lib/lookup.c's.  */
#include <config.h>
#include "shell.h"
#include <spyglass/lookup.h>

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct lookup_args {
	bool quiet;		/* -q: no headers */
	bool no_minsyms;	/* -n */
	char *type_re;		/* -t REGEX */
	char *name_re;
};

static void args_free(struct lookup_args *a)
{
	free(a->type_re);
	free(a->name_re);
}

/* gdb's "[-q] [-n] [-t TYPEREGEXP] [--] [NAMEREGEXP]": options first, the
   rest of the line (blanks kept) is the name's expression.  */
static struct sg_error *parse_args(const char *args, bool types, struct lookup_args *ret)
{
	memset(ret, 0, sizeof(*ret));
	const char *p = args;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (p[0] != '-' || !p[1])
			break;
		size_t len = strcspn(p, " \t");
		if (len == 2 && p[1] == '-') {
			p += 2;
			while (*p == ' ' || *p == '\t')
				p++;
			break;
		}
		if (len == 2 && p[1] == 'q') {
			ret->quiet = true;
		} else if (len == 2 && p[1] == 'n' && !types) {
			ret->no_minsyms = true;
		} else if (len == 2 && p[1] == 't' && !types) {
			p += 2;
			while (*p == ' ' || *p == '\t')
				p++;
			size_t n = strcspn(p, " \t");
			if (!n) {
				args_free(ret);
				return sg_error_create(SG_ERROR_USAGE,
						       "-t requires an argument");
			}
			free(ret->type_re);
			if (!(ret->type_re = strndup(p, n)))
				return &sg_enomem;
			p += n;
			continue;
		} else {
			struct sg_error *err = sg_error_format(SG_ERROR_USAGE,
							       "Unrecognized option at: %s", p);
			args_free(ret);
			return err;
		}
		p += len;
	}
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n && !(ret->name_re = strndup(p, n))) {
		args_free(ret);
		return &sg_enomem;
	}
	return NULL;
}

static struct sg_error *compile(const char *text, regex_t *re)
{
	int rc = regcomp(re, text, REG_NOSUB);
	if (!rc)
		return NULL;
	char msg[128];
	regerror(rc, re, msg, sizeof(msg));
	return sg_error_format(SG_ERROR_USAGE, "Invalid regexp: %s", msg);
}

static const char *const kind_words[] = { "functions", "variables", "types" };

static void header(const struct lookup_args *a, enum sg_lookup_kind kind, struct sg_out *out)
{
	const char *what = kind_words[kind];
	if (a->quiet)
		return;
	if (a->name_re && a->type_re)
		sg_out_printf(out,
			      "All %s matching regular expression \"%s\" with type matching regular expression \"%s\":\n",
			      what, a->name_re, a->type_re);
	else if (a->name_re)
		sg_out_printf(out, "All %s matching regular expression \"%s\":\n", what, a->name_re);
	else if (a->type_re)
		sg_out_printf(out, "All defined %s with type matching regular expression \"%s\" :\n",
			      what, a->type_re);
	else
		sg_out_printf(out, "All defined %s:\n", what);
}

static struct sg_error *info_lookup(struct sg_session *s, const char *args, struct sg_out *out,
				    enum sg_lookup_kind kind)
{
	struct lookup_args a;
	struct sg_error *err = parse_args(args, kind == SG_LOOKUP_TYPES, &a);
	if (err)
		return err;
	regex_t name_re, type_re;
	bool have_name = false, have_type = false;
	if (a.name_re && !(err = compile(a.name_re, &name_re)))
		have_name = true;
	if (!err && a.type_re && !(err = compile(a.type_re, &type_re)))
		have_type = true;
	struct sg_lookup l = { 0 };
	if (!err)
		err = sg_lookup_symbols(s, kind, have_name ? &name_re : NULL,
					have_type ? &type_re : NULL, !a.no_minsyms && !have_type, &l);
	if (err)
		goto done;
	header(&a, kind, out);
	sg_out_string(out, "kind", kind_words[kind]);
	if (a.name_re)
		sg_out_string(out, "regexp", a.name_re);
	if (a.type_re)
		sg_out_string(out, "type_regexp", a.type_re);
	sg_out_array_begin(out, "symbols");
	const char *last = NULL;
	for (size_t i = 0; i < l.nsyms; i++) {
		const struct sg_lookup_sym *sym = &l.syms[i];
		const char *text = sym->declaration;
		if (!last || strcmp(last, sym->file))
			sg_out_printf(out, "\nFile %s:\n", sym->file);
		last = sym->file;
		if (sym->line)
			sg_out_printf(out, "%u:\t%s\n", sym->line, text);
		else
			sg_out_printf(out, "\t%s\n", text);
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "file", sym->file);
		if (sym->line)
			sg_out_uint(out, "line", sym->line);
		else
			sg_out_null(out, "line");
		sg_out_string(out, "name", sym->name);
		sg_out_string(out, "declaration", text);
		sg_out_bool(out, "static", sym->is_static);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	if (!err && kind != SG_LOOKUP_TYPES && !a.no_minsyms && !have_type) {
		if (l.nminsyms && !a.quiet)
			sg_out_printf(out, "\nNon-debugging symbols:\n");
		sg_out_array_begin(out, "non_debugging");
		for (size_t i = 0; i < l.nminsyms; i++) {
			sg_out_printf(out, "0x%016" PRIx64 "  %s\n", l.minsyms[i].address,
				      l.minsyms[i].name);
			sg_out_object_begin(out, NULL);
			sg_out_hex(out, "address", l.minsyms[i].address);
			sg_out_string(out, "name", l.minsyms[i].name);
			sg_out_object_end(out);
		}
		sg_out_array_end(out);
	}
	sg_lookup_free(&l);
done:
	if (have_name)
		regfree(&name_re);
	if (have_type)
		regfree(&type_re);
	args_free(&a);
	return err;
}

static struct sg_error *cmd_info_functions(struct sg_session *s, const char *args,
					   struct sg_out *out, void *arg)
{
	(void)arg;
	return info_lookup(s, args, out, SG_LOOKUP_FUNCTIONS);
}

static struct sg_error *cmd_info_variables(struct sg_session *s, const char *args,
					   struct sg_out *out, void *arg)
{
	(void)arg;
	return info_lookup(s, args, out, SG_LOOKUP_VARIABLES);
}

static struct sg_error *cmd_info_types(struct sg_session *s, const char *args, struct sg_out *out,
				       void *arg)
{
	(void)arg;
	return info_lookup(s, args, out, SG_LOOKUP_TYPES);
}

static const struct sg_command lookup_cmds[] = {
	{ .name = "info functions", .synopsis = "info functions [-q] [-n] [-t TYPEREGEX] [NAMEREGEX]",
	  .summary = "List the functions whose names match a regular expression",
	  .details = "Every function the DWARF of the target's modules defines, by file, as\n"
		     "gdb lists them (\"static\" for a file's own), then the ELF symbols of\n"
		     "code that no DWARF describes (\"Non-debugging symbols\").  NAMEREGEX is\n"
		     "a POSIX basic regular expression, searched in the name (a C++ name\n"
		     "with its parameters); -t TYPEREGEX keeps the functions whose type\n"
		     "matches (and leaves the ELF symbols out); -n leaves the ELF symbols\n"
		     "out; -q leaves the headers out.",
	  .handler = cmd_info_functions, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info variables", .synopsis = "info variables [-q] [-n] [-t TYPEREGEX] [NAMEREGEX]",
	  .summary = "List the global and static variables whose names match a regular expression",
	  .details = "As info functions, for the variables defined outside functions (and\n"
		     "C++ static data members), then the ELF data symbols no DWARF names.",
	  .handler = cmd_info_variables, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info types", .synopsis = "info types [-q] [NAMEREGEX]",
	  .summary = "List the types whose names match a regular expression",
	  .details = "Structures, unions, enumerations, typedefs and base types that the\n"
		     "DWARF defines, by file, as gdb lists them: \"struct point;\",\n"
		     "\"typedef struct point point_t;\", a base type without a line.",
	  .handler = cmd_info_types, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_lookup_commands(struct shell *sh)
{
	return shell_register_table(sh, lookup_cmds, sizeof(lookup_cmds) / sizeof(lookup_cmds[0]));
}
