/* Stack commands: backtrace, thread apply, frame, up, down, info frame,
   info registers, and the unwind timing used by the benchmarks.  */
#include <config.h>
#include "eval.h"
#include "shell.h"
#include "procinfo.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gdb shows the pc unless it is exactly where the shown line starts (frame
   0 at a line boundary) or the frame is the caller of an inlined call at
   the same pc.  */
static bool show_address(const struct sg_stack *st, const struct sg_frame *f)
{
	if (f->signal_trampoline)
		return false;
	if (!f->file || !f->line)
		return true;
	if (f->level > 0) {
		const struct sg_frame *inner = sg_stack_frame(st, f->level - 1);
		if (inner->physical == f->physical && inner->inlined)
			return false;
	}
	return !f->line_start;
}

void shell_format_frame(struct shell *sh, const struct sg_stack *st, const struct sg_frame *f,
			FILE *out)
{
	shell_format_frame_as(sh, st, f, f->level, out);
}

/* Frame lines are most of a backtrace's output: assembled in a buffer
   and written with one fwrite, without fprintf, whose format parsing
   cost as much as unwinding the frame, or a stdio call per piece.  */
struct line {
	FILE *out;
	size_t n;
	char buf[1024];
};

static void line_flush(struct line *l)
{
	fwrite(l->buf, 1, l->n, l->out);
	l->n = 0;
}

static void line_put_slow(struct line *l, const char *s, size_t n)
{
	while (n > 0) {
		if (l->n == sizeof(l->buf))
			line_flush(l);
		size_t k = sizeof(l->buf) - l->n < n ? sizeof(l->buf) - l->n : n;
		memcpy(l->buf + l->n, s, k);
		l->n += k;
		s += k;
		n -= k;
	}
}

static inline void line_put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->n) {
		line_put_slow(l, s, n);
		return;
	}
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

static void line_puts(struct line *l, const char *s) { line_put(l, s, strlen(s)); }
static void line_putc(struct line *l, char c) { line_put(l, &c, 1); }

static void put_decimal(uint64_t v, int width, struct line *l)
{
	char buf[24];
	char *p = buf + sizeof(buf);
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	int n = (int)(buf + sizeof(buf) - p);
	line_put(l, p, n);
	for (; n < width; n++)
		line_putc(l, ' ');
}

static void put_pc(uint64_t pc, struct line *l)
{
	char buf[18] = "0x";
	for (int i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(pc >> (60 - 4 * i)) & 0xf];
	line_put(l, buf, sizeof(buf));
}

static void line_printf(struct line *l, const char *fmt, ...) SG_PRINTF(2, 3);
static void line_printf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		line_put(l, s, n);
		free(s);
	}
}

void shell_format_frame_as(struct shell *sh, const struct sg_stack *st, const struct sg_frame *f,
			   size_t number, FILE *out)
{
	struct sg_target *t = sg_session_target(sh->session);
	struct line l;		/* not "= { ... }": that would clear the buffer */
	l.out = out;
	l.n = 0;
	line_putc(&l, '#');
	put_decimal(number, 2, &l);	/* gdb's "#%-2d " */
	line_putc(&l, ' ');
	if (f->signal_trampoline) {
		line_puts(&l, "<signal handler called>\n");
		line_flush(&l);
		return;
	}
	if (show_address(st, f)) {
		put_pc(f->pc, &l);
		line_puts(&l, " in ");
	}
	char *args = sg_frame_args_text(sh->session, st, f->level);
	struct sg_module_info info;
	if (!f->function && f->module && (sg_module_info(f->module, &info), !info.file)) {
		/* The module's file is missing (a core from another machine):
		   where the pc is in it, for addr2line on a copy.  */
		const char *base = strrchr(info.name, '/');
		line_printf(&l, "%s+0x%" PRIx64 " (%s)", base ? base + 1 : info.name,
			    f->pc - info.start, args ? args : "");
	} else {
		line_puts(&l, f->function ? f->function : "??");
		line_puts(&l, " (");
		line_puts(&l, args ? args : "");
		line_putc(&l, ')');
	}
	free(args);
	if (f->file && f->line > 0) {
		line_puts(&l, " at ");
		line_puts(&l, f->file);
		line_putc(&l, ':');
		put_decimal((uint64_t)f->line, 0, &l);
	} else if (f->file && f->line) {
		line_printf(&l, " at %s:%d", f->file, f->line);
	} else if (f->module) {
		sg_module_info(f->module, &info);
		const char *exe = sg_target_exe(t);
		if (!exe || strcmp(exe, info.name))
			line_printf(&l, " from %s", info.name);
	}
	line_putc(&l, '\n');
	line_flush(&l);
}

/* A frame's JSON object, left open for more members (bt full's locals).  */
void shell_frame_json_open(struct sg_out *out, const struct sg_frame *f)
{
	sg_out_object_begin(out, NULL);
	sg_out_uint(out, "level", f->level);
	sg_out_hex(out, "pc", f->pc);
	sg_out_string(out, "function", f->function);
	if (f->has_offset)
		sg_out_uint(out, "offset", f->offset);
	else
		sg_out_null(out, "offset");
	if (f->module) {
		struct sg_module_info info;
		sg_module_info(f->module, &info);
		sg_out_string(out, "module", info.name);
	} else {
		sg_out_null(out, "module");
	}
	sg_out_string(out, "file", f->file);
	if (f->line)
		sg_out_int(out, "line", f->line);
	else
		sg_out_null(out, "line");
	sg_out_bool(out, "inlined", f->inlined);
	sg_out_string(out, "unwinder", f->unwinder);
	if (f->signal_trampoline)
		sg_out_bool(out, "signal_trampoline", true);
}

static void frame_json(struct sg_out *out, const struct sg_frame *f)
{
	shell_frame_json_open(out, f);
	sg_out_object_end(out);
}

struct bt_args {
	bool full;
	const struct shell_runtime *runtime;	/* --python, --zeek: merge its frames */
	const char *unwinder;
	long count;		/* 0: all; > 0 innermost N; < 0 outermost N */
};

static struct sg_error *parse_bt_args(const char *args, struct bt_args *a)
{
	char *copy = strdup(args);
	if (!copy)
		return &sg_enomem;
	memset(a, 0, sizeof(*a));
	struct sg_error *err = NULL;
	char *save = NULL;
	for (char *w = strtok_r(copy, " \t", &save); w && !err; w = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "full") || !strcmp(w, "-full")) {
			a->full = true;
		} else if (w[0] == '-' && shell_runtime_lookup(w + 1 + (w[1] == '-'))) {
			a->runtime = shell_runtime_lookup(w + 1 + (w[1] == '-'));
		} else if (!strcmp(w, "-u")) {
			char *u = strtok_r(NULL, " \t", &save);
			if (!u)
				err = sg_error_create(SG_ERROR_USAGE, "-u needs an unwinder: fp or cfi");
			else if (!strcmp(u, "fp"))
				a->unwinder = "fp";
			else if (!strcmp(u, "cfi"))
				a->unwinder = "cfi";
			else
				err = sg_error_format(SG_ERROR_USAGE, "unknown unwinder \"%s\": use fp or cfi", u);
		} else if (isdigit((unsigned char)w[0]) || (w[0] == '-' && isdigit((unsigned char)w[1]))) {
			char *end;
			errno = 0;
			long n = strtol(w, &end, 10);
			/* -LONG_MIN does not exist: -N takes its negation.  */
			if (*end || errno || n == 0 || n == LONG_MIN)
				err = sg_error_format(SG_ERROR_USAGE, "bad frame count \"%s\"", w);
			a->count = n;
		} else {
			err = sg_error_format(SG_ERROR_USAGE,
					      "Usage: backtrace [N|-N] [full] [--python|--zeek] [-u fp|cfi] (not \"%s\")", w);
		}
	}
	free(copy);
	return err;
}

/* Print THREAD's stack: text lines, or in JSON the members tid, name,
   frames (and stop_reason, truncated) of the current object.  */
static struct sg_error *print_stack(struct shell *sh, struct sg_thread *th, const struct bt_args *a,
				    struct sg_out *out)
{
	struct sg_session *s = sh->session;
	struct sg_stack *st;
	struct sg_error *err;
	bool own = a->unwinder != NULL || th != sg_session_thread(s);
	if (own)
		err = sg_stack_unwind(s, th, a->unwinder, 0, 0, &st);
	else
		err = sg_session_stack(s, &st);
	if (err)
		return err;
	if (a->runtime) {
		/* The merged numbering has no innermost or outermost N, and
		   runtime frames no DWARF locals.  */
		err = a->count || a->full
			      ? sg_error_format(SG_ERROR_USAGE,
						"bt --%s takes no frame count and no full",
						a->runtime->option)
			      : shell_print_merged(sh, st, a->runtime, out);
		if (own)
			sg_stack_destroy(st);
		return err;
	}
	size_t n = sg_stack_count(st), first = 0, last = n;
	if (a->count > 0 && (size_t)a->count < n)
		last = a->count;
	else if (a->count < 0 && (size_t)-a->count < n)
		first = n + a->count;
	FILE *f = sg_out_file(out);
	sg_out_int(out, "tid", sg_thread_tid(th));
	sg_out_string(out, "name", sg_thread_name(th));
	sg_out_array_begin(out, "frames");
	struct sg_target *t = sg_session_target(s);
	for (size_t i = first; i < last; i++) {
		/* A target that died during the command: one line, not one
		   error for each of 100,000 frames.  */
		if ((err = sg_target_exited(t)))
			break;
		const struct sg_frame *fr = sg_stack_frame(st, i);
		if (f) {
			shell_format_frame(sh, st, fr, f);
			if (a->full)
				sg_frame_locals_print(sh->session, st, i, out);
		} else if (a->full) {
			/* bt full: the frame's locals inside its object.  */
			shell_frame_json_open(out, fr);
			sg_frame_locals_print(sh->session, st, i, out);
			sg_out_object_end(out);
		} else {
			frame_json(out, fr);
		}
	}
	sg_out_array_end(out);
	if (err) {
		if (own)
			sg_stack_destroy(st);
		return err;
	}
	const char *reason = sg_stack_stop_reason(st);
	bool more = last < n || sg_stack_truncated(st);
	/* gdb says so to a user at the prompt, not in batch mode (its -ex
	   commands run with from_tty 0 there).  */
	if (f && more && a->count >= 0 && !sh->batch)
		fputs("(More stack frames follow...)\n", f);
	if (f && reason && last == n)
		fprintf(f, "Backtrace stopped: %s\n", reason);
	sg_out_string(out, "stop_reason", reason);
	sg_out_bool(out, "truncated", more);
	if (own)
		sg_stack_destroy(st);
	return NULL;
}

static struct sg_error *cmd_backtrace(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	struct shell *sh = arg;
	struct bt_args a;
	struct sg_error *err = parse_bt_args(args, &a);
	if (err)
		return err;
	struct sg_thread *th = sg_session_thread(s);
	/* Inside "thread apply" the object is already the thread's.  */
	bool wrap = !sh->in_thread_apply;
	if (wrap) {
		sg_out_array_begin(out, "threads");
		sg_out_object_begin(out, NULL);
	}
	err = print_stack(sh, th, &a, out);
	if (wrap) {
		sg_out_object_end(out);
		sg_out_array_end(out);
	}
	return err;
}

/* "thread apply"'s threads: "all" (from the highest number down, or up
   with -ascending), or a list of N and N-M; then gdb's flags -q (no
   thread line), -c (an error is printed and the next thread goes on),
   -s (threads whose command fails or prints nothing are not shown).  */
/* The most thread IDs a list names: "1-4000000000" is a typo.  */
#define MAX_APPLY_IDS 65536

struct apply {
	size_t *ids, nids, cap;	/* an ID past the last thread: warned of in turn */
	bool quiet, cont, silent;
	const char *cmd;
};

static bool word_is(const char *p, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(p, w, n) && (!p[n] || isspace((unsigned char)p[n]));
}

static const char *skip_word(const char *p, size_t n)
{
	for (p += n; isspace((unsigned char)*p);)
		p++;
	return p;
}

static struct sg_error *parse_apply(const char *p, size_t n, struct apply *a)
{
	if (word_is(p, "all")) {
		p = skip_word(p, 3);
		bool up = word_is(p, "-ascending");
		if (up)
			p = skip_word(p, 10);
		for (size_t i = 0; i < n; i++) {
			size_t *slot = sg_array_push(&a->ids, &a->nids, &a->cap, sizeof(*slot));
			if (!slot)
				return &sg_enomem;
			*slot = up ? i : n - 1 - i;
		}
	} else {
		while (isdigit((unsigned char)*p)) {
			char *end;
			errno = 0;
			unsigned long lo = strtoul(p, &end, 10), hi = lo;
			if (*end == '-' && isdigit((unsigned char)end[1]))
				hi = strtoul(end + 1, &end, 10);
			if (*end && !isspace((unsigned char)*end))
				break;
			/* No thread has a number near 2^31: a typo, refused
			   before a loop over it.  */
			if (lo == 0 || errno == ERANGE || hi > INT_MAX)
				return sg_error_format(SG_ERROR_USAGE, "Invalid thread ID: %.*s",
						       (int)(end - p), p);
			if (hi < lo)
				return sg_error_create(SG_ERROR_USAGE, "inverted range");
			if (hi - lo >= MAX_APPLY_IDS || a->nids + (hi - lo) >= MAX_APPLY_IDS)
				return sg_error_format(SG_ERROR_USAGE, "more than %d thread IDs",
						       MAX_APPLY_IDS);
			for (unsigned long id = lo; id <= hi; id++) {
				size_t *slot = sg_array_push(&a->ids, &a->nids, &a->cap, sizeof(*slot));
				if (!slot)
					return &sg_enomem;
				*slot = id - 1;
			}
			p = skip_word(end, 0);
		}
	}
	for (;;) {
		if (word_is(p, "-q"))
			a->quiet = true;
		else if (word_is(p, "-c"))
			a->cont = true;
		else if (word_is(p, "-s"))
			a->silent = true;
		else
			break;
		p = skip_word(p, 2);
	}
	if (a->cont && a->silent)
		return sg_error_create(SG_ERROR_USAGE,
				       "thread apply all: -c and -s are mutually exclusive");
	a->cmd = p;
	return NULL;
}

/* gdb's thread line: "Thread 2 (LWP 4243 "worker"):".  */
static void thread_line(struct sg_out *out, size_t id, struct sg_thread *th)
{
	/* A core has no thread names: gdb then shows none.  */
	const char *name = sg_thread_name(th);
	sg_out_printf(out, "\nThread %zu (LWP %d%s%s%s):\n", id + 1, (int)sg_thread_tid(th),
		      name[0] ? " \"" : "", name, name[0] ? "\"" : "");
}

/* One thread's command under -s: shown only when it succeeds and prints
   something, so its text is kept until then.  */
static struct sg_error *run_silent(struct sg_session *s, const struct apply *a, size_t id,
				   struct sg_thread *th, struct sg_out *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sg_out *o = NULL;
	struct sg_error *err = f ? sg_out_create(f, false, &o) : &sg_enomem;
	if (!err) {
		err = sg_command_execute(s, a->cmd, o);
		sg_out_destroy(o);
	}
	if (f)
		fclose(f);
	if (!err && len) {
		if (!a->quiet)
			thread_line(out, id, th);
		sg_out_puts(out, text);
	}
	free(text);
	/* A dead target still ends the command.  */
	if (err && sg_error_code(err) != SG_ERROR_TARGET) {
		sg_error_destroy(err);
		err = NULL;
	}
	return err;
}

static struct sg_error *cmd_thread_apply(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	struct shell *sh = arg;
	struct sg_target *t = sg_session_target(s);
	struct apply a = { 0 };
	struct sg_error *err = parse_apply(args, sg_target_thread_count(t), &a);
	if (!err && (!a.nids || !*a.cmd))
		err = sg_error_create(SG_ERROR_USAGE,
				      "Usage: thread apply all|ID... [-q] [-c|-s] COMMAND");
	if (err) {
		free(a.ids);
		return err;
	}
	struct sg_thread *saved = sg_session_thread(s);
	struct sg_error *first_err = NULL;
	sg_out_array_begin(out, "threads");
	sh->in_thread_apply = true;
	size_t n = sg_target_thread_count(t);
	for (size_t k = 0; k < a.nids && !first_err; k++) {
		if (a.ids[k] >= n) {
			/* gdb warns when the list reaches it.  */
			fflush(stdout);
			fprintf(stderr, "warning: Unknown thread %zu\n", a.ids[k] + 1);
			continue;
		}
		struct sg_thread *th = sg_target_thread(t, a.ids[k]);
		sg_session_select_thread(s, th);
		sg_out_object_begin(out, NULL);
		sg_out_uint(out, "id", a.ids[k] + 1);
		if (a.silent && !sg_out_json(out)) {
			first_err = run_silent(s, &a, a.ids[k], th, out);
			sg_out_object_end(out);
			continue;
		}
		if (!a.quiet)
			thread_line(out, a.ids[k], th);
		err = sg_command_execute(s, a.cmd, out);
		if (err) {
			/* Without -c or -s the first error ends the command, as
			   in gdb; a dead target always does.  */
			bool stop = sg_error_code(err) == SG_ERROR_TARGET || (!a.cont && !a.silent);
			if (sg_out_json(out) && !a.silent) {
				sg_out_string(out, "error", sg_error_message(err));
			} else if (!stop && !a.silent) {
				fflush(stdout);
				fprintf(stderr, "%s\n", sg_error_message(err));
			}
			if (stop)
				first_err = err;
			else
				sg_error_destroy(err);
		}
		sg_out_object_end(out);
	}
	sh->in_thread_apply = false;
	sg_out_array_end(out);
	sg_session_select_thread(s, saved);
	free(a.ids);
	return first_err;
}

static struct sg_error *print_selected_frame(struct sg_session *s, struct shell *sh,
					    struct sg_out *out)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	const struct sg_frame *f = sg_stack_frame(st, sg_session_frame(s));
	FILE *file = sg_out_file(out);
	if (file)
		shell_format_frame(sh, st, f, file);
	/* gdb follows it with the frame's source line, which becomes the
	   one list starts from.  */
	shell_source_frame_line(sh, f, out);
	sg_out_array_begin(out, "frames");
	frame_json(out, f);
	sg_out_array_end(out);
	return NULL;
}

static struct sg_error *parse_count(const char *args, size_t dflt, size_t *ret)
{
	if (!*args) {
		*ret = dflt;
		return NULL;
	}
	char *end;
	errno = 0;
	unsigned long v = strtoul(args, &end, 10);
	if (*end || errno || args[0] == '-')
		return sg_error_format(SG_ERROR_USAGE, "bad number \"%s\"", args);
	*ret = v;
	return NULL;
}

static struct sg_error *info_frame_level(struct sg_session *s, struct shell *sh,
					 const struct sg_stack *st, const char *args, size_t *ret,
					 bool *header_level);

/* The level "frame ARGS" and "select-frame ARGS" select: N, level N,
   function NAME (the innermost frame of NAME) or address CFA.  */
static struct sg_error *frame_spec_level(struct sg_session *s, struct shell *sh, const char *args,
					 size_t *ret)
{
	size_t n = strcspn(args, " \t");
	if (n == 8 && !strncmp(args, "function", 8)) {
		const char *name = args + n;
		while (isspace((unsigned char)*name))
			name++;
		if (!*name)
			return sg_error_create(SG_ERROR_USAGE, "Missing function name argument");
		struct sg_stack *st;
		struct sg_error *err = sg_session_stack(s, &st);
		if (err)
			return err;
		for (size_t i = 0; i < sg_stack_count(st); i++) {
			const struct sg_frame *f = sg_stack_frame(st, i);
			if (f->function && !f->signal_trampoline && !strcmp(f->function, name)) {
				*ret = i;
				return NULL;
			}
		}
		/* gdb tells a function that is nowhere from one not on the
		   stack.  */
		struct sg_symbol sym;
		err = sg_lookup_symbol(sg_session_target(s), name, &sym);
		if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
			sg_error_destroy(err);
			return sg_error_format(SG_ERROR_LOOKUP, "Function \"%s\" not defined.", name);
		}
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_LOOKUP, "No frame for function \"%s\".", name);
	}
	/* The rest as "info frame" takes them.  */
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	bool header;
	return err ? err : info_frame_level(s, sh, st, args, ret, &header);
}

static struct sg_error *cmd_frame(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	struct shell *sh = arg;
	if (*args) {
		size_t level;
		struct sg_error *err = frame_spec_level(s, sh, args, &level);
		if (!err)
			err = sg_session_select_frame(s, level);
		if (err)
			return err;
	}
	return print_selected_frame(s, sh, out);
}

/* gdb's select-frame: frame without a word of output.  */
static struct sg_error *cmd_select_frame(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	/* gdb's select-frame without an argument keeps the frame.  */
	if (!*args) {
		sg_out_uint(out, "level", sg_session_frame(s));
		return NULL;
	}
	size_t level;
	struct sg_error *err = frame_spec_level(s, arg, args, &level);
	if (!err)
		err = sg_session_select_frame(s, level);
	if (!err)
		sg_out_uint(out, "level", level);
	return err;
}

static struct sg_error *move_frame(struct sg_session *s, struct shell *sh, const char *args,
				   struct sg_out *out, bool up)
{
	size_t n;
	struct sg_error *err = parse_count(args, 1, &n);
	if (err)
		return err;
	struct sg_stack *st;
	if ((err = sg_session_stack(s, &st)))
		return err;
	size_t cur = sg_session_frame(s), count = sg_stack_count(st);
	if (up) {
		if (cur + 1 >= count)
			return sg_error_create(SG_ERROR_USAGE, "Initial frame selected; you cannot go up.");
		cur = cur + n >= count ? count - 1 : cur + n;
	} else {
		if (cur == 0)
			return sg_error_create(SG_ERROR_USAGE,
					       "Bottom (innermost) frame selected; you cannot go down.");
		cur = n > cur ? 0 : cur - n;
	}
	if ((err = sg_session_select_frame(s, cur)))
		return err;
	return print_selected_frame(s, sh, out);
}

static struct sg_error *cmd_up(struct sg_session *s, const char *args, struct sg_out *out, void *arg)
{
	return move_frame(s, arg, args, out, true);
}

static struct sg_error *cmd_down(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	return move_frame(s, arg, args, out, false);
}

/* Whether LEVEL is the outermost frame, its caller undefined (gdb's
   "Outermost frame: outermost", at frame address 0): the walk ended
   there for no other reason.  */
static bool is_outermost(const struct sg_stack *st, size_t level)
{
	return level + 1 == sg_stack_count(st) && !sg_stack_stop_reason(st) &&
	       !sg_stack_truncated(st);
}

/* The frame address gdb gives LEVEL: its CFA, 0 for the outermost.  */
static bool frame_address(const struct sg_stack *st, size_t level, uint64_t *ret)
{
	if (level >= sg_stack_count(st))
		return false;
	if (sg_stack_cfa(st, level, ret))
		return true;
	*ret = 0;
	return is_outermost(st, level);
}

/* The level "info frame ARGS" describes: LEVEL N, N, ADDRESS CFA, or
   the selected frame; *HEADER_LEVEL tells whether gdb's heading names
   the level (the selected frame) or only the address.  */
static struct sg_error *info_frame_level(struct sg_session *s, struct shell *sh,
					 const struct sg_stack *st, const char *args, size_t *ret,
					 bool *header_level)
{
	*header_level = !*args;
	*ret = sg_session_frame(s);
	if (!*args)
		return NULL;
	bool by_address = false;
	size_t n = strcspn(args, " \t");
	if ((n == 5 && !strncmp(args, "level", 5)) || (n == 7 && !strncmp(args, "address", 7))) {
		by_address = args[0] == 'a';
		args += n;
		while (isspace((unsigned char)*args))
			args++;
		if (!*args)
			return sg_error_create(SG_ERROR_USAGE, "Argument required (expression to compute).");
	}
	uint64_t v;
	struct sg_error *err = sg_eval_address(sh->session, args, &v);
	if (err)
		return err;
	size_t count = sg_stack_count(st);
	if (by_address) {
		for (size_t i = 0; i < count; i++) {
			uint64_t cfa;
			if (sg_stack_cfa(st, i, &cfa) && cfa == v) {
				*ret = i;
				return NULL;
			}
		}
		return sg_error_format(SG_ERROR_USAGE, "No frame at address %s.", args);
	}
	if (v >= count)
		return sg_error_format(SG_ERROR_USAGE, "No frame at level %s.", args);
	*ret = v;
	return NULL;
}

static struct sg_error *cmd_info_frame(struct sg_session *s, const char *args, struct sg_out *out,
				       void *arg)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	size_t level;
	bool header_level;
	if ((err = info_frame_level(s, arg, st, args, &level, &header_level)))
		return err;
	const struct sg_frame *f = sg_stack_frame(st, level);
	/* The saved pc, as gdb's: the caller's of the first real frame from
	   here out, as inlined calls and tail-call frames are artificial.  */
	size_t real = level;
	while (real + 1 < sg_stack_count(st) && (sg_stack_frame(st, real)->inlined ||
						  sg_stack_frame(st, real)->tail_call))
		real++;
	const struct sg_frame *caller = sg_stack_frame(st, real + 1);
	/* Also known for main, whose caller the past-main cut hides.  */
	uint64_t cfa = 0;
	bool has_cfa = sg_stack_cfa(st, level, &cfa);
	bool outermost = !has_cfa && is_outermost(st, level);
	if (header_level)
		sg_out_printf(out, "Stack level %zu, frame at ", level);
	else
		sg_out_printf(out, "Stack frame at ");
	if (has_cfa || outermost)
		sg_out_printf(out, "0x%" PRIx64 ":\n", cfa);
	else
		sg_out_printf(out, "<unknown>:\n");
	/* A signal trampoline by its symbol (__restore_rt), as gdb names it
	   here.  */
	const char *fname = f->function;
	struct sg_symbol tsym;
	struct sg_error *terr = f->signal_trampoline
		? sg_symbolize(sg_session_target(s), f->pc, &tsym) : &sg_not_found;
	if (!terr)
		fname = tsym.name;
	sg_error_destroy(terr);
	/* gdb names no function where there is no symbol.  */
	sg_out_printf(out, " rip = 0x%" PRIx64 "%s%s", f->pc, fname ? " in " : "", fname ? fname : "");
	if (f->file && f->line)
		sg_out_printf(out, " (%s:%d)", f->file, f->line);
	/* Past the cut, the return address is where the CFA says, as the
	   x86-64 call left it.  */
	uint64_t saved_pc = caller ? caller->pc : 0;
	bool has_saved_pc = caller != NULL;
	if (!caller && has_cfa && !f->inlined) {
		struct sg_error *e = sg_target_read_u64(sg_session_target(s), cfa - 8, &saved_pc);
		has_saved_pc = !e;
		sg_error_destroy(e);
	}
	if (has_saved_pc)
		sg_out_printf(out, "; saved rip = 0x%" PRIx64, saved_pc);
	else if (outermost)
		sg_out_printf(out, "; saved rip = <not saved>");
	sg_out_printf(out, "\n");
	if (outermost)
		sg_out_printf(out, " Outermost frame: outermost\n");
	/* gdb's neighbours are the adjacent levels, by their frame
	   addresses; an inlined call names its caller by level instead.  */
	uint64_t caller_cfa, callee_cfa;
	bool artificial = f->inlined || f->tail_call;
	bool has_caller = !artificial && frame_address(st, level + 1, &caller_cfa);
	bool has_callee = level > 0 && frame_address(st, level - 1, &callee_cfa);
	if (f->inlined)
		sg_out_printf(out, " inlined into frame %zu", level + 1);
	else if (f->tail_call)
		sg_out_printf(out, " tail call frame");
	else if (has_caller)
		sg_out_printf(out, " called by frame at 0x%" PRIx64, caller_cfa);
	if (has_callee)
		sg_out_printf(out, "%s caller of frame at 0x%" PRIx64,
			      has_caller || artificial ? "," : "", callee_cfa);
	if (has_caller || has_callee || artificial)
		sg_out_printf(out, "\n");
	const char *lang = sg_frame_language(f);
	if (lang)
		sg_out_printf(out, " source language %s.\n", lang);
	sg_out_printf(out, " unwound by %s\n", f->unwinder ? f->unwinder : "(innermost frame)");
	sg_out_printf(out, " stack pointer 0x%" PRIx64 "\n", f->regs->r[SG_REG_RSP]);
	sg_out_uint(out, "level", level);
	if (has_cfa)
		sg_out_hex(out, "frame_address", cfa);
	else
		sg_out_null(out, "frame_address");
	sg_out_hex(out, "pc", f->pc);
	sg_out_string(out, "function", f->function);
	sg_out_string(out, "file", f->file);
	if (f->line)
		sg_out_int(out, "line", f->line);
	else
		sg_out_null(out, "line");
	if (has_saved_pc)
		sg_out_hex(out, "saved_pc", saved_pc);
	else
		sg_out_null(out, "saved_pc");
	sg_out_string(out, "unwinder", f->unwinder);
	sg_out_bool(out, "inlined", f->inlined);
	sg_out_hex(out, "sp", f->regs->r[SG_REG_RSP]);
	return NULL;
}

/* gdb's order for "info registers": the general registers, then (from
   the XSAVE area, where the CPU has AVX-512) k0-k7.  gdb 13 shows no
   fs_base or gs_base here; they are still there by name.  */
static const enum sg_reg info_order[] = {
	SG_REG_RAX, SG_REG_RBX, SG_REG_RCX, SG_REG_RDX, SG_REG_RSI, SG_REG_RDI, SG_REG_RBP,
	SG_REG_RSP, SG_REG_R8, SG_REG_R9, SG_REG_R10, SG_REG_R11, SG_REG_R12, SG_REG_R13,
	SG_REG_R14, SG_REG_R15, SG_REG_RIP, SG_REG_EFLAGS, SG_REG_CS, SG_REG_SS, SG_REG_DS,
	SG_REG_ES, SG_REG_FS, SG_REG_GS,
};

static struct sg_error *cmd_info_registers(struct sg_session *s, const char *args,
					   struct sg_out *out, void *arg)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	const struct sg_frame *f = sg_stack_frame(st, sg_session_frame(s));
	struct sg_target *t = sg_session_target(s);
	sg_out_object_begin(out, "registers");
	if (!*args) {
		for (size_t i = 0; i < sizeof(info_order) / sizeof(info_order[0]); i++)
			shell_print_register(t, f->regs, info_order[i], sg_reg_name(info_order[i]),
					     out);
		/* No AVX-512, a snapshot, a core without the XSAVE note: the
		   general registers alone.  */
		for (int k = 0; k < 8 && !err; k++) {
			char name[4] = { 'k', (char)('0' + k), 0 };
			err = shell_print_vector_register(s, name, out);
			if (err) {
				sg_error_destroy(err);
				err = NULL;
				break;
			}
		}
	} else {
		char *copy = strdup(args), *save = NULL;
		if (!copy)
			return &sg_enomem;
		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			const char *name = w[0] == '$' ? w + 1 : w;
			int r = sg_reg_lookup(w);
			if (r < 0 || r == SG_REG_ORIG_RAX) {
				/* st0, mxcsr, xmm0, k1, ...  */
				err = shell_print_vector_register(s, name, out);
				if (err == &sg_not_found)
					err = sg_error_format(SG_ERROR_LOOKUP, "Invalid register `%s'",
							      name);
				if (err)
					break;
				continue;
			}
			shell_print_register(t, f->regs, r, name, out);
		}
		free(copy);
	}
	sg_out_object_end(out);
	return err;
}

/* Time repeated unwinds of the selected thread with warm caches, as a
   sampling profiler would do them.  */
static struct sg_error *cmd_maint_time_unwind(struct sg_session *s, const char *args,
					      struct sg_out *out, void *arg)
{
	size_t count;
	struct sg_error *err = parse_count(args, 1000, &count);
	if (err)
		return err;
	if (count == 0 || count > 1000000)
		return sg_error_create(SG_ERROR_USAGE, "count must be between 1 and 1000000");
	struct sg_thread *th = sg_session_thread(s);
	struct sg_stack *st;
	if ((err = sg_stack_unwind(s, th, NULL, 0, 0, &st)))	/* warm every cache */
		return err;
	size_t logical = sg_stack_count(st);
	sg_stack_destroy(st);
	size_t physical = 0;
	uint64_t t0 = sg_now_ns();
	for (size_t i = 0; i < count; i++) {
		if ((err = sg_target_interrupted()) ||
		    (err = sg_stack_unwind(s, th, NULL, 0, SG_UNWIND_NO_SYMBOLS, &st)))
			return err;
		physical = sg_stack_count(st);
		sg_stack_destroy(st);
	}
	double raw_us = (sg_now_ns() - t0) / 1e3 / count;
	t0 = sg_now_ns();
	for (size_t i = 0; i < count; i++) {
		if ((err = sg_target_interrupted()) || (err = sg_stack_unwind(s, th, NULL, 0, 0, &st)))
			return err;
		sg_stack_destroy(st);
	}
	double sym_us = (sg_now_ns() - t0) / 1e3 / count;
	sg_out_printf(out, "thread %zu: %zu frames; warm unwind %.2f us, with symbols %.2f us (mean of %zu)\n",
		      sg_thread_index(th) + 1, logical, raw_us, sym_us, count);
	sg_out_uint(out, "frames", logical);
	sg_out_uint(out, "count", count);
	sg_out_int(out, "unwind_ns", (int64_t)(raw_us * 1000));
	sg_out_int(out, "symbolized_ns", (int64_t)(sym_us * 1000));
	(void)physical;
	return NULL;
}

static const struct sg_command stack_cmds[] = {
	{ .name = "backtrace", .aliases = "bt where",
	  .synopsis = "backtrace [N|-N] [full] [--python|--zeek] [-u fp|cfi]",
	  .summary = "Print the selected thread's stack",
	  .details = "N prints the innermost N frames, -N the outermost N.  -u forces one\n"
		     "unwinder (cfi or fp); by default each frame uses the first that knows it:\n"
		     "CFI, then the frame pointer.  Inlined calls are frames of their own.\n"
		     "\"set backtrace limit N\" caps the depth.  full adds each frame's locals.\n"
		     "--python replaces the interpreter loop's frames by the Python frames\n"
		     "they run (a stack provider such as the cpython plugin gives them);\n"
		     "--zeek does the same with Zeek's script frames (the zeek plugin).",
	  .handler = cmd_backtrace, .flags = SG_CMD_NEEDS_TARGET | SG_CMD_SNAPSHOT_ARGS },
	{ .name = "info stack", .aliases = "s", .synopsis = "info stack [N|-N] [full]",
	  .summary = "Print the selected thread's stack, as backtrace",
	  .details = "gdb's other name for backtrace; \"info s\" is this one, as in gdb.",
	  .handler = cmd_backtrace, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "thread apply", .synopsis = "thread apply all [-ascending]|ID... [-q] [-c|-s] COMMAND",
	  .summary = "Run a command on several threads",
	  .details = "\"all\" runs from the highest thread number down, as gdb does, and up\n"
		     "with -ascending; IDs are numbers and ranges (\"2-4 7\").  Without a\n"
		     "flag the first error ends the command and fails it; -c prints each\n"
		     "error and goes on; -s leaves out the threads whose command fails or\n"
		     "prints nothing; -q leaves out the thread lines.",
	  .handler = cmd_thread_apply, .flags = SG_CMD_NEEDS_TARGET | SG_CMD_SNAPSHOT_ARGS },
	{ .name = "frame", .aliases = "f",
	  .synopsis = "frame [[level] LEVEL | function NAME | address CFA]",
	  .summary = "Select a frame, or describe the selected one",
	  .details = "Prints the frame and its source line, as gdb does; list then starts around\n"
		     "that line.  \"function NAME\" selects the innermost frame of NAME,\n"
		     "\"address CFA\" the frame with that frame address (info frame's).",
	  .handler = cmd_frame, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "select-frame", .synopsis = "select-frame [level] LEVEL | function NAME | address CFA",
	  .summary = "Select a frame without printing it",
	  .details = "As frame, for scripts: nothing is printed, and list goes on from where\n"
		     "it was, as in gdb.",
	  .handler = cmd_select_frame, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "up", .synopsis = "up [N]", .summary = "Select the frame N levels out (the caller)",
	  .handler = cmd_up, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "down", .synopsis = "down [N]", .summary = "Select the frame N levels in (the callee)",
	  .handler = cmd_down, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info frame", .synopsis = "info frame [[level] LEVEL | address CFA]",
	  .summary = "Describe the selected frame, or another",
	  .details = "Without an argument, the selected frame; with one, the frame at that level\n"
		     "or with that frame address (CFA), left unselected.",
	  .handler = cmd_info_frame, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info registers", .synopsis = "info registers [REG...]",
	  .summary = "Show the selected frame's registers",
	  .details = "Outer frames know only what the unwinder recovered; the rest are <not saved>.",
	  .handler = cmd_info_registers, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "maintenance", .aliases = "maint mt", .synopsis = "maintenance SUBCOMMAND",
	  .summary = "Commands for spyglass's developers" },
	{ .name = "maintenance time-unwind", .synopsis = "maintenance time-unwind [COUNT]",
	  .summary = "Time warm unwinds of the selected thread",
	  .details = "Unwinds the thread COUNT times (1000) after a first unwind that fills the\n"
		     "caches, without and with symbols, and prints the mean time per unwind.",
	  .handler = cmd_maint_time_unwind, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_stack_commands(struct shell *sh)
{
	return shell_register_table(sh, stack_cmds, sizeof(stack_cmds) / sizeof(stack_cmds[0]));
}
