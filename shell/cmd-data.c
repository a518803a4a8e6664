/* print, output, ptype, whatis, info locals and info args, in gdb's
   notation: the commands.  The value engine is the library's
   (lib/eval.h): the printer lib/eval-print.c, expressions
   lib/eval-expr.c, frame variables lib/eval-locals.c.  */
#include <config.h>
#include "eval.h"
#include "complete.h"
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct sg_error *parse_format(const char **args, char *fmt, bool *raw)
{
	*fmt = 0;
	*raw = false;
	if (**args != '/')
		return NULL;
	const char *a = *args + 1;
	for (; *a && !isspace((unsigned char)*a); a++) {
		if (*a == 'r')
			*raw = true;
		else if (strchr("xduotczafs", *a))
			*fmt = *a;
		else
			return sg_error_format(SG_ERROR_USAGE, "Undefined output format \"%c\".", *a);
	}
	while (isspace((unsigned char)*a))
		a++;
	*args = a;
	return NULL;
}

/* "$NAME = EXPR" (not "=="): true, with NAME (without "$") and *REST at
   the expression.  gdb assigns a convenience variable that way.  */
static bool assignment(const char *args, char *name, size_t size, const char **rest)
{
	const char *p = args;
	if (*p != '$' || !(isalpha((unsigned char)p[1]) || p[1] == '_'))
		return false;
	const char *start = ++p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	size_t len = (size_t)(p - start);
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '=' || p[1] == '=' || len >= size)
		return false;
	/* A register is not a convenience variable: writing one would
	   change the target.  */
	memcpy(name, start, len);
	name[len] = 0;
	if (sg_reg_lookup(name) >= 0 || !strcmp(name, "pc") || !strcmp(name, "sp") ||
	    !strcmp(name, "fp"))
		return false;
	for (p++; isspace((unsigned char)*p);)
		p++;
	*rest = p;
	return true;
}

/* print and output without a target (the process exited): a
   convenience variable, as gdb still has them.  $_exitcode and
   $_exitsignal say how the process ended; any other is void.  Numbered
   on from the last value of the target's history, which went with it.  */
static struct sg_error *print_loose(struct shell *sh, const char *args, char fmt, bool history,
				    struct sg_out *out, struct sg_error *no_target)
{
	size_t n = strlen(args);
	while (n && isspace((unsigned char)args[n - 1]))
		n--;
	if (args[0] != '$' || n < 2 || !(isalpha((unsigned char)args[1]) || args[1] == '_'))
		return no_target;
	for (size_t i = 2; i < n; i++)
		if (!isalnum((unsigned char)args[i]) && args[i] != '_')
			return no_target;
	if (fmt && !strchr("dxuot", fmt))
		return no_target;
	sg_error_destroy(no_target);
	int code, sig;
	bool ended = sg_session_exit_status(sh->session, &code, &sig);
	bool known = false;
	int v = 0;
	if (n == strlen("$_exitcode") && !strncmp(args, "$_exitcode", n) && ended && !sig)
		known = true, v = code;
	if (n == strlen("$_exitsignal") && !strncmp(args, "$_exitsignal", n) && ended && sig)
		known = true, v = sig;
	char text[48] = "void";
	if (known) {
		unsigned u = (unsigned)v;
		if (fmt == 'x')
			snprintf(text, sizeof(text), "0x%x", u);
		else if (fmt == 'o')
			snprintf(text, sizeof(text), u ? "0%o" : "%o", u);
		else if (fmt == 'u')
			snprintf(text, sizeof(text), "%u", u);
		else if (fmt == 't') {
			int k = 0;
			for (int b = 31; b >= 0; b--)
				if ((u >> b) & 1 || k || !b)
					text[k++] = (char)('0' + ((u >> b) & 1));
			text[k] = '\0';
		} else
			snprintf(text, sizeof(text), "%d", v);
	}
	if (history) {
		unsigned num = ++sh->loose_values;
		sg_out_printf(out, "$%u = %s\n", num, text);
		sg_out_uint(out, "history", num);
	} else {
		sg_out_printf(out, "%s", text);
	}
	if (known)
		sg_out_int(out, "value", v);
	else
		sg_out_null(out, "value");
	sg_out_string(out, "text", text);
	sg_out_string(out, "type", known ? "int" : "void");
	return NULL;
}

static struct sg_error *do_print(struct sg_session *s, const char *args, struct sg_out *out,
				 struct shell *sh, bool history)
{
	char fmt;
	bool raw;
	struct sg_error *err = parse_format(&args, &fmt, &raw);
	if (err)
		return err;
	struct sg_target *t;
	if ((err = sg_session_need_target(s, &t)))
		return sg_session_target(s) ? err : print_loose(sh, args, fmt, history, out, err);
	struct xval x;
	char name[64];
	if (!*args) {
		/* A bare print shows the last value again, as a new one.  */
		if (!history)
			return sg_error_create(SG_ERROR_USAGE, "Argument required (expression to compute).");
		if (!sg_history_count(sh->session))
			return sg_error_create(SG_ERROR_USAGE, "The history is empty.");
		if ((err = sg_history_value(sh->session, 0, true, &x)))
			return err;
	} else if (assignment(args, name, sizeof(name), &args)) {
		if ((err = sg_eval_xval(sh->session, t, args, &x)) || (err = sg_convenience_set(sh->session, name, &x)))
			return err;
		/* X may point into the variable's old bytes, which the set
		   freed ("print $a = $a"): take the new value.  */
		sg_convenience_get(sh->session, name, &x);
	} else if ((err = sg_eval_xval(sh->session, t, args, &x))) {
		return err;
	}
	char *text;
	bool cplus = sg_frame_cplus(s);
	if ((err = sg_format_xval(sh->session, t, &x, fmt, raw, cplus, true, &text)))
		return err;
	char *type = sg_xval_type(&x, cplus);
	unsigned num = 0;
	if (history && (err = sg_history_add(sh->session, &x, &num))) {
		free(type);
		free(text);
		return err;
	}
	if (history)
		sg_out_printf(out, "$%u = %s\n", num, text);
	else
		sg_out_printf(out, "%s", text);
	if (history)
		sg_out_uint(out, "history", num);
	if (sg_out_json(out))
		sg_json_xval(sh->session, t, &x, fmt, raw, cplus, out, "value");
	sg_out_string(out, "text", text);
	sg_out_string(out, "type", type);
	if (x.v.lvalue && !x.ptr_depth)
		sg_out_hex(out, "address", x.v.address);
	free(type);
	free(text);
	return NULL;
}

static struct sg_error *cmd_print(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	return do_print(s, args, out, arg, true);
}

static struct sg_error *cmd_output(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	return do_print(s, args, out, arg, false);
}

/* A class that is only declared, NAME ("ns::K"), is no symbol to gdb:
   "No symbol "K" in namespace "ns".", replacing ERR.  */
static struct sg_error *declared_error(struct sg_error *err, const char *name)
{
	const char *last = NULL;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':')
			last = p;
	}
	if (!last || last == name)
		return err;
	sg_error_destroy(err);
	return sg_error_format(SG_ERROR_LOOKUP, "No symbol \"%s\" in namespace \"%.*s\".", last + 2,
			       (int)(last - name), name);
}

/* ARGS names a type ("struct point", "point_t", "int") or is an
   expression; *TYPE_RET is the type either way.  */
static struct sg_error *type_of(struct shell *sh, struct sg_target *t, const char *args,
				struct xval *x, bool *is_type)
{
	memset(x, 0, sizeof(*x));
	*is_type = false;
	bool declared_only = false;
	if (!sg_lookup_type(t, args, &x->v.type)) {
		/* gdb makes no symbol of a class only declared (clang declares
		   one whose key function is inline, and defines it nowhere).  */
		declared_only = sg_type_declared_only(t, &x->v.type);
		if (!declared_only) {
			*is_type = true;
			return NULL;
		}
		memset(x, 0, sizeof(*x));
	}
	static const char *const keywords[] = { "struct", "class", "union", "enum" };
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		size_t n = strlen(keywords[i]);
		if (!strncmp(args, keywords[i], n) && isspace((unsigned char)args[n])) {
			const char *name = args + n;
			while (isspace((unsigned char)*name))
				name++;
			/* gdb's parser takes "struct n2" of "struct n2::K" as the
			   type it looks for.  */
			const char *colons = strstr(name, "::");
			int len = colons && !memchr(name, '<', (size_t)(colons - name)) ?
				  (int)(colons - name) : (int)strlen(name);
			return sg_error_format(SG_ERROR_LOOKUP, "No %s type named %.*s.",
					       i == 1 ? "struct" : keywords[i], len, name);
		}
	}
	struct sg_error *err = sg_eval_xval(sh->session, t, args, x);
	if (err && declared_only)
		return declared_error(err, args);
	return err;
}

/* ptype's and whatis's flags: /o offsets, sizes and holes; /r raw, no
   type printers.  */
static struct sg_error *type_flags(const char **args, bool *offsets, bool *raw)
{
	*offsets = *raw = false;
	if (**args != '/')
		return NULL;
	const char *a = *args + 1;
	for (; *a && !isspace((unsigned char)*a); a++) {
		if (*a == 'o')
			*offsets = true;
		else if (*a == 'r')
			*raw = true;
		else
			return sg_error_format(SG_ERROR_USAGE, "unrecognized flag '%c'", *a);
	}
	while (isspace((unsigned char)*a))
		a++;
	*args = a;
	return NULL;
}

static struct sg_error *cmd_ptype(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	struct sg_target *t = sg_session_target(s);
	struct xval x;
	bool is_type, offsets, raw;
	struct sg_error *err = type_flags(&args, &offsets, &raw);
	if (err)
		return err;
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "ptype needs an expression or a type");
	if ((err = type_of(arg, t, args, &x, &is_type)))
		return err;
	if (x.is_void) {
		sg_out_printf(out, "type = void\n");
		sg_out_string(out, "type", "void");
		return NULL;
	}
	sg_type_printers_begin(s, t, raw);
	bool cplus = sg_frame_cplus(s), header = false;
	char *text;
	if (offsets && !x.ptr_depth) {
		text = sg_ptype_offsets_string(t, &x.v.type, cplus, &header);
	} else if (x.ptr_depth) {
		/* "&g_pt": the type spelled out, then the stars.  */
		char *inner = sg_ptype_string_lang(t, &x.v.type, cplus);
		char stars[MAX_TYPE_DEPTH + 2] = " ";
		memset(stars + 1, '*', x.ptr_depth < MAX_TYPE_DEPTH ? x.ptr_depth : MAX_TYPE_DEPTH);
		if (asprintf(&text, "%s%s", inner, stars) < 0)
			text = NULL;
		free(inner);
	} else {
		text = sg_ptype_string_lang(t, &x.v.type, cplus);
	}
	sg_type_printers_end();
	sg_out_printf(out, "%stype = %s\n", header ? PTYPE_OFFSETS_HEADER : "", text ? text : "?");
	sg_out_string(out, "type", text);
	free(text);
	return NULL;
}

static struct sg_error *cmd_whatis(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	struct sg_target *t = sg_session_target(s);
	struct xval x;
	bool is_type, offsets, raw;
	struct sg_error *err = type_flags(&args, &offsets, &raw);
	if (err)
		return err;
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "whatis needs an expression or a type");
	if ((err = type_of(arg, t, args, &x, &is_type)))
		return err;
	bool cplus = sg_frame_cplus(s);
	char *text;
	sg_type_printers_begin(s, t, raw);
	text = sg_whatis_text(&x, is_type, cplus);
	sg_type_printers_end();
	sg_out_printf(out, "type = %s\n", text);
	sg_out_string(out, "type", text);
	free(text);
	return NULL;
}

static struct sg_error *cmd_show_convenience(struct sg_session *s, const char *args,
					     struct sg_out *out, void *arg)
{
	(void)args;
	struct shell *sh = arg;
	struct sg_target *t = sg_session_target(s);
	size_t n = sg_convenience_count(sh->session);
	if (!n) {
		sg_out_printf(out, "No debugger convenience values now defined.\n"
			      "Convenience variables have names starting with \"$\";\n"
			      "use \"set\" as in \"set $foo = 5\" to define them.\n");
		sg_out_array_begin(out, "variables");
		sg_out_array_end(out);
		return NULL;
	}
	bool cplus = sg_frame_cplus(s);
	sg_out_array_begin(out, "variables");
	for (size_t i = 0; i < n; i++) {
		struct xval x;
		const char *name = sg_convenience_name(sh->session, i, &x);
		char *text;
		struct sg_error *err = sg_format_xval(sh->session, t, &x, 0, false, cplus, true, &text);
		if (err) {
			text = sg_fault_text(err);
			sg_error_destroy(err);
		}
		sg_out_printf(out, "$%s = %s\n", name, text ? text : "?");
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", name);
		sg_out_string(out, "text", text);
		sg_out_object_end(out);
		free(text);
	}
	sg_out_array_end(out);
	return NULL;
}

static const struct sg_command data_cmds[] = {
	{ .name = "print", .aliases = "p inspect", .synopsis = "print[/FMT] EXPR",
	  .summary = "Print the value of an expression",
	  .details = "EXPR is C: the selected frame's locals and arguments, then globals\n"
		     "(ns::qualified too); literals, casts, sizeof, $registers, X@N, . -> [N]\n"
		     "* & and C's operators.  FMT is x d u o t c a f s z, and r for raw\n"
		     "(no typed readers).  The value is numbered $N as in gdb: $N, $ (the\n"
		     "last), $$ and $$N (the Nth before it) use the history, and a bare\n"
		     "\"print\" shows the last value again.  \"print $NAME = EXPR\" sets a\n"
		     "convenience variable ($NAME, void until set; $_thread, $_siginfo,\n"
		     "$_exitcode and $_exitsignal are spyglass's).  See also \"set print\n"
		     "pretty\" and \"set print elements\".",
	  .handler = cmd_print, .complete = sg_complete_expression },
	{ .name = "output", .synopsis = "output[/FMT] EXPR",
	  .summary = "Print a value without history number or newline",
	  .details = "As print, but the value is not numbered in the history and no\n"
		     "newline follows it (gdb's output, for scripts).",
	  .handler = cmd_output, .complete = sg_complete_expression },
	{ .name = "ptype", .synopsis = "ptype[/or] EXPR|TYPE",
	  .summary = "Print a type, spelled out (/o: with offsets and sizes; /r: raw)",
	  .details = "Types are named as the type printers of plugins name them\n"
		     "(\"std::vector<int>\"), and such a type is not spelled out, as in gdb;\n"
		     "/r names them as DWARF does.",
	  .handler = cmd_ptype, .complete = sg_complete_expression, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "whatis", .synopsis = "whatis[/r] EXPR|TYPE", .summary = "Print the type of an expression",
	  .details = "The type as declared, one typedef level for a type name, as gdb;\n"
		     "/r names types as DWARF does, without the plugins' type printers.",
	  .handler = cmd_whatis, .complete = sg_complete_expression, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "printf", .synopsis = "printf \"FORMAT\", ARG...",
	  .summary = "Print values under C's printf format, as gdb's printf",
	  .details = "FORMAT takes C's conversions d i u o x X c s f e g E G a A p, with\n"
		     "flags, width, precision and the lengths l, ll, z and L; %s reads a\n"
		     "string at an address (a char array or pointer).  Each ARG is an\n"
		     "expression, as print's.  Nothing is printed when an argument fails.",
	  .handler = shell_cmd_printf, .complete = sg_complete_expression, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "show convenience", .synopsis = "show convenience",
	  .summary = "List the convenience variables that were set, newest first",
	  .details = "Variables are set with \"print $NAME = EXPR\" (or made void by their\n"
		     "first use); they belong to the target, as the value history.",
	  .handler = cmd_show_convenience, .flags = SG_CMD_NEEDS_TARGET },
};

/* info locals and info args: the library locates and prints the
   variables (eval-locals.c).  */
static struct sg_error *cmd_info_locals(struct sg_session *s, SG_UNUSED const char *args,
					struct sg_out *out, SG_UNUSED void *arg)
{
	return sg_frame_vars(s, out, false);
}

static struct sg_error *cmd_info_args(struct sg_session *s, SG_UNUSED const char *args,
				      struct sg_out *out, SG_UNUSED void *arg)
{
	return sg_frame_vars(s, out, true);
}

static const struct sg_command frame_var_cmds[] = {
	{ .name = "info locals", .synopsis = "info locals",
	  .summary = "Print the selected frame's local variables",
	  .details = "Innermost block first, as gdb.  Variables whose location needs DWARF\n"
		     "pieces or entry values print <optimized out> for now.",
	  .handler = cmd_info_locals, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info args", .synopsis = "info args",
	  .summary = "Print the selected frame's arguments",
	  .handler = cmd_info_args, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_data_commands(struct shell *sh)
{
	struct sg_error *err = shell_register_table(sh, data_cmds,
						    sizeof(data_cmds) / sizeof(data_cmds[0]));
	if (!err)
		err = shell_register_display_commands(sh);
	return err ? err : shell_register_table(sh, frame_var_cmds,
						sizeof(frame_var_cmds) / sizeof(frame_var_cmds[0]));
}
