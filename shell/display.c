/* display, undisplay, info display, enable/disable display: gdb's
   auto-display list.  A display shows when it is made at the prompt (as
   gdb shows it there, and not in batch mode or from a file), at each
   bare "display", and at each stop after continue (cmd-run.c).  The
   list is kept with the target, as the value history.  */
#include <config.h>
#include "eval.h"
#include "complete.h"
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct display {
	unsigned num;
	char fmt;		/* print's format letter, x's i or s, or 0 */
	unsigned count;		/* x's count, for i and s */
	bool enabled;
	char *expr;
};

struct displays {
	struct display *a;
	size_t n, cap;
	unsigned last;		/* the last number given */
};

static const char displays_key;

static void displays_destroy(void *arg)
{
	struct displays *d = arg;
	for (size_t i = 0; i < d->n; i++)
		free(d->a[i].expr);
	free(d->a);
	free(d);
}

static struct displays *displays_of(struct sg_session *s, bool create)
{
	return sg_eval_target_data(s, &displays_key, sizeof(struct displays), displays_destroy, create);
}

/* What x prints for "x/CMD", as text, new string.  */
static char *x_text(struct sg_session *s, const char *cmd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct sg_out *o;
	if (!m)
		return NULL;
	struct sg_error *err = sg_out_create(m, false, &o);
	if (!err) {
		sg_out_begin(o);
		err = sg_command_execute(s, cmd, o);
		sg_out_end(o, NULL);
		sg_out_destroy(o);
	}
	fclose(m);
	if (err) {
		/* gdb's display shows the error in place of the memory.  */
		char *e = NULL;
		if (asprintf(&e, "%s<error: %s>\n", text ? text : "", sg_error_message(err)) < 0)
			e = NULL;
		sg_error_destroy(err);
		free(text);
		return e;
	}
	return text;
}

/* A display of x's i or s format, as gdb: "N: x/2i $pc" then x's lines;
   for s, x's first line on the same line after two blanks.  */
static void show_examine(struct sg_session *s, const struct display *d, struct sg_out *out)
{
	char count[16] = "";
	if (d->count > 1)
		snprintf(count, sizeof(count), "%u", d->count);
	char *cmd = NULL, *text = NULL;
	if (asprintf(&cmd, "x/%s%c %s", count, d->fmt, d->expr) >= 0)
		text = x_text(s, cmd);
	sg_out_printf(out, "%u: x/%s%c %s%s%s", d->num, count, d->fmt, d->expr,
		      d->fmt == 's' ? "  " : "\n", text ? text : "\n");
	sg_out_object_begin(out, NULL);
	sg_out_uint(out, "number", d->num);
	sg_out_string(out, "expression", d->expr);
	sg_out_string_len(out, "format", &d->fmt, 1);
	sg_out_uint(out, "count", d->count);
	sg_out_string(out, "text", text);
	sg_out_object_end(out);
	free(cmd);
	free(text);
}

/* "N: EXPR = VALUE", an error in place of the value, as gdb.  */
static void show_one(struct sg_session *s, struct shell *sh, const struct display *d,
		     struct sg_out *out)
{
	if (d->fmt == 'i' || d->fmt == 's') {
		show_examine(s, d, out);
		return;
	}
	struct sg_target *t = sg_session_target(s);
	struct xval x;
	char *text = NULL;
	struct sg_error *err = sg_eval_xval(sh->session, t, d->expr, &x);
	if (!err)
		err = sg_format_xval(sh->session, t, &x, d->fmt, false, sg_frame_cplus(s), true, &text);
	if (err) {
		text = NULL;
		if (asprintf(&text, "<error: %s>", sg_error_message(err)) < 0)
			text = NULL;
		sg_error_destroy(err);
	}
	char fmt[4] = "";
	if (d->fmt)
		snprintf(fmt, sizeof(fmt), "/%c ", d->fmt);
	sg_out_printf(out, "%u: %s%s = %s\n", d->num, fmt, d->expr, text ? text : "?");
	sg_out_object_begin(out, NULL);
	sg_out_uint(out, "number", d->num);
	sg_out_string(out, "expression", d->expr);
	sg_out_string(out, "text", text);
	sg_out_object_end(out);
	free(text);
}

void shell_show_displays(struct shell *sh, struct sg_out *out)
{
	struct displays *d = displays_of(sh->session, false);
	if (!d || !d->n)
		return;
	sg_out_array_begin(out, "displays");
	for (size_t i = 0; i < d->n; i++)
		if (d->a[i].enabled)
			show_one(sh->session, sh, &d->a[i], out);
	sg_out_array_end(out);
}

static struct sg_error *cmd_display(struct sg_session *s, const char *args, struct sg_out *out,
				    void *arg)
{
	struct shell *sh = arg;
	char fmt = 0;
	unsigned count = 1;
	if (*args == '/') {
		const char *a = args + 1;
		/* x's formats i and s take a count, as in x ("display/3i $pc"). */
		size_t digits = strspn(a, "0123456789");
		if ((a[digits] == 'i' || a[digits] == 's') &&
		    (!a[digits + 1] || isspace((unsigned char)a[digits + 1]))) {
			unsigned long n = digits ? strtoul(a, NULL, 10) : 1;
			if (!n || n > 4096)
				return sg_error_format(SG_ERROR_USAGE, "Invalid count \"%.*s\".",
						       (int)digits, a);
			count = (unsigned)n;
			a += digits;
		} else if (!*a || !strchr("xduotcafzr", *a) || (a[1] && !isspace((unsigned char)a[1]))) {
			return sg_error_format(SG_ERROR_USAGE, "Undefined output format \"%s\".", args + 1);
		}
		fmt = *a;
		for (args = a + 1; isspace((unsigned char)*args);)
			args++;
		if ((fmt == 'i' || fmt == 's') && !*args)
			return sg_error_create(SG_ERROR_USAGE,
					       "Argument required (expression to compute).");
	}
	struct displays *d = displays_of(s, *args != 0);
	sg_out_array_begin(out, "displays");
	if (!*args) {
		for (size_t i = 0; d && i < d->n; i++)
			if (d->a[i].enabled)
				show_one(s, sh, &d->a[i], out);
		sg_out_array_end(out);
		return NULL;
	}
	if (!d) {
		sg_out_array_end(out);
		return &sg_enomem;
	}
	/* gdb refuses what does not parse (an unknown name, a syntax
	   error) and keeps what fails only when evaluated.  */
	struct xval x;
	struct sg_error *err = sg_eval_xval(sh->session, sg_session_target(s), args, &x);
	if (err && (sg_error_code(err) == SG_ERROR_LOOKUP ||
		    !strncmp(sg_error_message(err), "A syntax error", 14))) {
		sg_out_array_end(out);
		return err;
	}
	sg_error_destroy(err);
	char *expr = strdup(args);
	struct display *nd = expr ? sg_array_push(&d->a, &d->n, &d->cap, sizeof(*nd)) : NULL;
	if (!nd) {
		free(expr);
		sg_out_array_end(out);
		return &sg_enomem;
	}
	*nd = (struct display){ .num = ++d->last, .fmt = fmt, .count = count, .enabled = true,
				.expr = expr };
	/* gdb shows it at once only when the command comes from a user.  */
	if (!sh->batch && !sh->source_depth)
		show_one(s, sh, nd, out);
	sg_out_array_end(out);
	sg_out_uint(out, "number", nd->num);
	return NULL;
}

/* Call FN on each display ARGS names ("1 3 5-7"; none: all).  */
static struct sg_error *each_named(struct sg_session *s, const char *args, struct sg_out *out,
				   void (*fn)(struct displays *, size_t))
{
	struct displays *d = displays_of(s, false);
	if (!*args) {
		for (size_t i = d ? d->n : 0; i-- > 0;)
			fn(d, i);
		return NULL;
	}
	for (const char *p = args; *p;) {
		const char *w = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		size_t len = (size_t)(p - w);
		while (isspace((unsigned char)*p))
			p++;
		if (*w == '-' && isdigit((unsigned char)w[1]))
			return sg_error_create(SG_ERROR_USAGE, "negative value");
		/* N or N-M; gdb passes over any other word in silence.  */
		char *end;
		errno = 0;
		unsigned long lo = strtoul(w, &end, 10), hi = lo;
		if (end == w || !isdigit((unsigned char)*w))
			continue;
		if (*end == '-') {
			const char *q = end + 1;
			if (!isdigit((unsigned char)*q))
				continue;
			hi = strtoul(q, &end, 10);
			if (end == q || hi < lo)
				continue;
		}
		if ((size_t)(end - w) != len)
			continue;
		/* Numbers past the last one given name nothing: one line for
		   the first of them, not one per number of a huge range.  */
		unsigned last = d ? d->last : 0;
		if (errno == ERANGE || hi > last)
			hi = lo > last ? lo : last + 1;
		for (unsigned long n = lo;; n++) {
			size_t i = 0;
			while (d && i < d->n && d->a[i].num != n)
				i++;
			if (d && i < d->n)
				fn(d, i);
			else
				sg_out_printf(out, "No display number %lu.\n", n);
			if (n == hi)	/* hi may be ULONG_MAX */
				break;
		}
	}
	return NULL;
}

static void drop(struct displays *d, size_t i)
{
	free(d->a[i].expr);
	memmove(&d->a[i], &d->a[i + 1], (d->n - i - 1) * sizeof(d->a[0]));
	d->n--;
}

static void enable(struct displays *d, size_t i)
{
	d->a[i].enabled = true;
}

static void disable(struct displays *d, size_t i)
{
	d->a[i].enabled = false;
}

static struct sg_error *cmd_undisplay(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	struct shell *sh = arg;
	struct displays *d = displays_of(s, false);
	/* gdb asks first; not at a terminal it says what it answered.  */
	if (!*args && d && d->n && !sh->interactive)
		sg_out_printf(out, "Delete all auto-display expressions? (y or n) "
			      "[answered Y; input not from terminal]\n");
	return each_named(s, args, out, drop);
}

static struct sg_error *cmd_enable_display(struct sg_session *s, const char *args,
					   struct sg_out *out, void *arg)
{
	(void)arg;
	return each_named(s, args, out, enable);
}

static struct sg_error *cmd_disable_display(struct sg_session *s, const char *args,
					    struct sg_out *out, void *arg)
{
	(void)arg;
	return each_named(s, args, out, disable);
}

static struct sg_error *cmd_info_display(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	(void)args;
	(void)arg;
	struct displays *d = displays_of(s, false);
	sg_out_array_begin(out, "displays");
	if (!d || !d->n)
		sg_out_printf(out, "There are no auto-display expressions now.\n");
	else
		sg_out_printf(out, "Auto-display expressions now in effect:\nNum Enb Expression\n");
	for (size_t i = 0; d && i < d->n; i++) {
		const struct display *p = &d->a[i];
		char fmt[24] = "";
		/* x's formats show their count and size: "/1bi".  */
		if (p->fmt == 'i' || p->fmt == 's')
			snprintf(fmt, sizeof(fmt), "/%ub%c ", p->count, p->fmt);
		else if (p->fmt)
			snprintf(fmt, sizeof(fmt), "/%c ", p->fmt);
		sg_out_printf(out, "%u:   %c  %s%s\n", p->num, p->enabled ? 'y' : 'n', fmt, p->expr);
		sg_out_object_begin(out, NULL);
		sg_out_uint(out, "number", p->num);
		sg_out_bool(out, "enabled", p->enabled);
		sg_out_string(out, "expression", p->expr);
		if (p->fmt)
			sg_out_string_len(out, "format", &p->fmt, 1);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	return NULL;
}

static const struct sg_command display_cmds[] = {
	{ .name = "display", .synopsis = "display[/FMT] [EXPR]",
	  .summary = "Show an expression's value now and whenever the displays are shown",
	  .details = "With EXPR, adds it to the auto-display list (shown at once at the\n"
		     "prompt); without, shows every enabled display.  FMT is print's\n"
		     "(x d u o t c a f z r), or x's i and s with a count (\"display/3i $pc\").\n"
		     "The list is shown when asked for and at each stop after continue.",
	  .handler = cmd_display, .complete = sg_complete_expression, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "undisplay", .synopsis = "undisplay [N|N-M]...",
	  .summary = "Remove displays (all without an argument)",
	  .details = "N is a display's number (see \"info display\"), N-M a range; a word\n"
		     "that is neither is passed over, as gdb does.",
	  .handler = cmd_undisplay, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "delete display", .synopsis = "delete display [N|N-M]...",
	  .summary = "Remove displays (all without an argument), as undisplay",
	  .details = "gdb's other spelling of \"undisplay\".",
	  .handler = cmd_undisplay, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "enable display", .synopsis = "enable display [N|N-M]...",
	  .summary = "Show these displays again",
	  .details = "Without an argument, every display.", .handler = cmd_enable_display,
	  .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "disable display", .synopsis = "disable display [N|N-M]...",
	  .summary = "Keep these displays without showing them",
	  .details = "Without an argument, every display; \"enable display\" shows them\nagain.",
	  .handler = cmd_disable_display,
	  .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info display", .synopsis = "info display",
	  .summary = "List the auto-display expressions",
	  .details = "Each with its number, whether it is enabled, its format and its\nexpression, as gdb lists them.",
	  .handler = cmd_info_display,
	  .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_display_commands(struct shell *sh)
{
	return shell_register_table(sh, display_cmds, sizeof(display_cmds) / sizeof(display_cmds[0]));
}
