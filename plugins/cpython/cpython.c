/* cpython: the plugin's commands (py-bt, py-locals, py-version) and its
   stack provider, which lets bt --python merge Python frames into native
   stacks.

   The interpreter is found once per target, before the target is stopped
   (the provider's prepare), so that while it is stopped only the
   interpreter's threads, frames and code objects are read.  */
#include <config.h>
#include "cpython.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct py_state {
	struct sg_target *target;	/* what PROC or ERR is about */
	struct py_proc *proc;
	struct sg_error *err;
};

static void forget(struct sg_target *target, void *arg)
{
	struct py_state *st = arg;
	if (target && st->target != target)
		return;
	py_proc_destroy(st->proc);
	sg_error_destroy(st->err);
	st->proc = NULL;
	st->err = NULL;
	st->target = NULL;
}

static void read_names(struct py_proc *p);

static void prepare(struct sg_session *session SG_UNUSED, struct sg_target *target, void *arg)
{
	struct py_state *st = arg;
	forget(NULL, st);
	st->target = target;
	st->err = py_find(target, &st->proc);
	if (!st->proc)
		return;
	py_budget_reset(st->proc);
	read_names(st->proc);
}

struct sg_error *py_session_proc(struct sg_session *s, void *state, struct py_proc **ret)
{
	struct py_state *st = state;
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	if (err)
		return err;
	if (st->target != t)
		prepare(s, t, st);
	if (st->err)
		return sg_error_create(sg_error_code(st->err) == SG_ERROR_NOT_FOUND
					       ? SG_ERROR_LOOKUP : sg_error_code(st->err),
				       sg_error_message(st->err));
	*ret = st->proc;
	py_budget_reset(st->proc);
	return NULL;
}

/* ---- Python threads ---- */

struct thread_list {
	struct py_thread *a;
	size_t n, cap;
};

static int collect_thread(const struct py_thread *th, void *arg)
{
	struct thread_list *l = arg;
	struct py_thread *slot = sg_array_push(&l->a, &l->n, &l->cap, sizeof(*slot));
	if (!slot)
		return SG_CB_ABORT;
	*slot = *th;
	return SG_CB_OK;
}

static struct py_thread *thread_for(struct thread_list *l, pid_t tid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->a[i].tid == tid)
			return &l->a[i];
	return NULL;
}

/* ---- thread names ---- */

struct namer {
	struct py_proc *p;
	uint64_t interp;
};

static int add_name(uint64_t ident, const char *name, void *arg)
{
	struct namer *nm = arg;
	struct py_proc *p = nm->p;
	char *copy = strdup(name);
	struct py_name *slot = copy ? sg_array_push(&p->names, &p->nnames, &p->names_cap,
						    sizeof(*slot))
				    : NULL;
	if (!slot) {
		free(copy);
		return SG_CB_ABORT;
	}
	*slot = (struct py_name){ nm->interp, ident, copy };
	return SG_CB_OK;
}

/* The names threading gives the threads of each interpreter (at most
   16), into P->names, when the interpreter is found: before the stop
   when the target is prepared, since names cost 50 to 70 page reads; a
   thread started since keeps none.  Nothing fails for a thread threading
   does not know.  */
static void read_names(struct py_proc *p)
{
	struct thread_list l = { 0 };
	sg_error_destroy(py_threads(p, collect_thread, &l));
	uint64_t done[16];
	size_t ndone = 0;
	for (size_t i = 0; i < l.n && ndone < PY_ARRAY_SIZE(done); i++) {
		bool seen = false;
		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == l.a[i].interp;
		if (seen)
			continue;
		done[ndone++] = l.a[i].interp;
		struct namer nm = { p, l.a[i].interp };
		sg_error_destroy(py_thread_names(p, l.a[i].interp, add_name, &nm));
	}
	free(l.a);
}

static const char *name_of(const struct py_proc *p, const struct py_thread *th)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].interp == th->interp && p->names[i].ident == th->thread_id)
			return p->names[i].name;
	return NULL;
}

/* ---- source lines ---- */

/* The source files of one command, each read once: a stack of 200
   frames in a few files must not open them 200 times while the target is
   stopped.  */
#define MAX_SOURCES 32
#define MAX_SOURCE_SIZE (4u << 20)

struct source {
	char *path;
	char *text;		/* NULL: unreadable */
	size_t *lines;		/* offset of each line's start */
	size_t nlines;
};

struct sources {
	struct source a[MAX_SOURCES];
	size_t n;
};

static void source_load(struct source *src, struct sg_target *t)
{
	/* co_filename comes from the target: "/dev/stdin" (python reading a
	   script from a pipe) or a FIFO would block the read, and with it the
	   stopped target.  Regular files only, opened without waiting.  */
	if (!strncmp(src->path, "/dev/", 5) || !strncmp(src->path, "/proc/", 6))
		return;
	char path[4200];
	/* The target's own view of the file system, for containers.  A core
	   has none: its process is gone, or its PID another process's.  */
	int fd = -1;
	if (sg_target_kind(t) == SG_TARGET_LIVE) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)sg_target_pid(t), src->path);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0)
		fd = open(src->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			(uint64_t)st.st_size > MAX_SOURCE_SIZE)) {
		close(fd);
		fd = -1;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t cap = 0, len = 0, ncap = 0;
	char *text = NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 16384;
			char *n = cap <= MAX_SOURCE_SIZE ? realloc(text, cap) : NULL;
			if (!n)
				break;
			text = n;
		}
		size_t got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	fclose(f);
	if (!text)
		return;
	text[len] = '\0';
	for (size_t i = 0; i <= len; i++) {
		if (i && text[i - 1] != '\n')
			continue;
		size_t *slot = sg_array_push(&src->lines, &src->nlines, &ncap, sizeof(*slot));
		if (!slot)
			break;
		*slot = i;
	}
	src->text = text;
}

/* Line LINE of FILE without its indentation, or NULL (borrowed).  */
static char *source_line(struct sources *ss, struct sg_target *t, const char *file, int line,
			 char *buf, size_t size)
{
	if (!file || file[0] != '/' || line <= 0)
		return NULL;
	struct source *src = NULL;
	for (size_t i = 0; i < ss->n && !src; i++)
		if (!strcmp(ss->a[i].path, file))
			src = &ss->a[i];
	if (!src) {
		if (ss->n == MAX_SOURCES)
			return NULL;
		src = &ss->a[ss->n];
		if (!(src->path = strdup(file)))
			return NULL;
		ss->n++;
		source_load(src, t);
	}
	if (!src->text || (size_t)line > src->nlines)
		return NULL;
	const char *s = src->text + src->lines[line - 1];
	s += strspn(s, " \t");
	size_t n = strcspn(s, "\r\n");
	if (!n)
		return NULL;
	snprintf(buf, size, "%.*s", (int)n, s);
	return buf;
}

static void sources_clear(struct sources *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->a[i].path);
		free(ss->a[i].text);
		free(ss->a[i].lines);
	}
	ss->n = 0;
}

/* ---- py-bt ---- */

struct bt_ctx {
	struct sg_session *session;
	struct sg_target *target;
	struct sg_out *out;
	bool source;
	struct sources sources;
	size_t n;
};

static int print_frame(const struct py_frame *f, void *arg)
{
	struct bt_ctx *c = arg;
	char buf[1024];
	const char *src = c->source ? source_line(&c->sources, c->target, f->file, f->line, buf,
						  sizeof(buf)) : NULL;
	if (sg_out_json(c->out)) {
		sg_out_object_begin(c->out, NULL);
		sg_out_string(c->out, "kind", "python");
		sg_out_string(c->out, "function", f->function);
		sg_out_string(c->out, "file", f->file);
		if (f->line)
			sg_out_int(c->out, "line", f->line);
		else
			sg_out_null(c->out, "line");
		if (src)
			sg_out_string(c->out, "source", src);
		sg_out_object_end(c->out);
	} else {
		sg_out_printf(c->out, "#%-2zu %s at %s", c->n, f->function, f->file);
		if (f->line)
			sg_out_printf(c->out, ":%d", f->line);
		sg_out_printf(c->out, "\n");
		if (src)
			sg_out_printf(c->out, "        %s\n", src);
	}
	c->n++;
	return SG_CB_OK;
}

static void thread_json_head(struct sg_out *out, pid_t tid, const char *comm,
			     const struct py_thread *pt, bool gc)
{
	sg_out_int(out, "tid", tid);
	sg_out_string(out, "name", comm);
	sg_out_string(out, "python_name", pt ? pt->name : NULL);
	if (pt)
		sg_out_hex(out, "thread_id", pt->thread_id);
	else
		sg_out_null(out, "thread_id");
	sg_out_bool(out, "holds_gil", pt && pt->holds_gil);
	sg_out_bool(out, "gc_running", gc);
}

static void bt_thread(struct bt_ctx *c, struct py_proc *p, size_t index, pid_t tid,
				  const char *comm, const struct py_thread *pt, bool gc)
{
	struct sg_out *out = c->out;
	sg_out_object_begin(out, NULL);
	thread_json_head(out, tid, comm, pt, gc);
	if (index)
		sg_out_printf(out, "Thread %zu (LWP %d%s%s%s)", index, (int)tid, comm[0] ? " \"" : "",
			      comm, comm[0] ? "\"" : "");
	else
		sg_out_printf(out, "Python thread (thread_id 0x%" PRIx64 ", no OS thread)",
			      pt->thread_id);
	if (pt && pt->name)
		sg_out_printf(out, " \"%s\"", pt->name);
	if (pt && pt->holds_gil)
		sg_out_printf(out, ", holds the GIL");
	sg_out_array_begin(out, "frames");
	struct sg_error *err = NULL;
	c->n = 0;
	if (pt) {
		sg_out_printf(out, ":\n");
		err = py_frames(p, pt->tstate, print_frame, c);
	}
	sg_out_array_end(out);
	if (!c->n && !err)
		sg_out_printf(out, "%sno Python frames\n", pt ? "    " : ": ");
	if (err) {
		sg_out_string(out, "error", sg_error_message(err));
		sg_out_printf(out, "    <error: %s>\n", sg_error_message(err));
		sg_error_destroy(err);
	}
	sg_out_object_end(out);
}

/* "1 3": gdb thread numbers, into a set over the target's threads.  */
static struct sg_error *parse_threads(const char *args, size_t n, bool *want)
{
	const char *p = args;
	bool any = false;
	while (*p) {
		char *end;
		unsigned long id = strtoul(p, &end, 10);
		if (end == p || (*end && !isspace((unsigned char)*end)))
			return sg_error_format(SG_ERROR_USAGE, "Usage: py-bt [THREAD...] (not \"%s\")",
					       p);
		if (id < 1 || id > n)
			return sg_error_format(SG_ERROR_USAGE, "Invalid thread ID: %lu", id);
		want[id - 1] = any = true;
		for (p = end; isspace((unsigned char)*p); p++)
			;
	}
	if (!any)
		for (size_t i = 0; i < n; i++)
			want[i] = true;
	return NULL;
}

static struct sg_error *cmd_py_bt(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	struct py_proc *p;
	struct sg_error *err = py_session_proc(s, arg, &p);
	if (err)
		return err;
	struct sg_target *t = p->target;
	size_t n = sg_target_thread_count(t);
	bool *want = calloc(n ? n : 1, sizeof(*want));
	struct thread_list l = { 0 };
	if (!want)
		return &sg_enomem;
	err = parse_threads(args, n, want);
	if (!err)
		err = py_threads(p, collect_thread, &l);
	if (err) {
		free(want);
		free(l.a);
		return err;
	}
	for (size_t k = 0; k < l.n; k++)
		l.a[k].name = name_of(p, &l.a[k]);
	bool gc = py_gc_running(p);
	struct bt_ctx c = {
		.session = s,
		.target = t,
		.out = out,
		.source = sg_setting_uint(s, "python source", 1) != 0,
	};
	bool all = !args[0];
	if (gc)
		sg_out_printf(out, "A garbage collection is running.\n");
	sg_out_array_begin(out, "threads");
	for (size_t i = 0; i < n; i++) {
		if (!want[i])
			continue;
		struct sg_thread *th = sg_target_thread(t, i);
		if (i)
			sg_out_printf(out, "\n");
		bt_thread(&c, p, i + 1, sg_thread_tid(th), sg_thread_name(th),
			  thread_for(&l, sg_thread_tid(th)), gc);
	}
	/* Python threads no OS thread matched (their thread is gone).  */
	for (size_t k = 0; all && k < l.n; k++) {
		if (l.a[k].tid && sg_target_thread_by_tid(t, l.a[k].tid))
			continue;
		sg_out_printf(out, "\n");
		bt_thread(&c, p, 0, l.a[k].tid, "", &l.a[k], gc);
	}
	sg_out_array_end(out);
	sources_clear(&c.sources);
	free(l.a);
	free(want);
	return NULL;
}

/* ---- py-version ---- */

static struct sg_error *cmd_py_version(struct sg_session *s, const char *args SG_UNUSED,
				       struct sg_out *out, void *arg)
{
	struct py_proc *p;
	struct sg_error *err = py_session_proc(s, arg, &p);
	if (err)
		return err;
	uint32_t h = p->hexversion;
	char version[32];
	static const char levels[16] = { [0xa] = 'a', [0xb] = 'b', [0xc] = 'c' };
	int len = snprintf(version, sizeof(version), "%u.%u.%u", h >> 24, (h >> 16) & 0xff,
			   (h >> 8) & 0xff);
	if (levels[(h >> 4) & 0xf])
		snprintf(version + len, sizeof(version) - len, "%c%u", levels[(h >> 4) & 0xf], h & 0xf);
	const char *where = p->embedded ? "libpython, embedded in a program"
			  : p->shared ? "libpython" : "the executable";
	const char *exe = sg_target_exe(p->target);
	sg_out_string(out, "version", version);
	sg_out_hex(out, "hexversion", h);
	sg_out_string(out, "version_from", p->how_version);
	sg_out_string(out, "interpreter", p->module_path);
	sg_out_string(out, "interpreter_kind", p->embedded ? "embedded" : p->shared ? "shared" : "executable");
	sg_out_string(out, "executable", exe);
	if (p->runtime)
		sg_out_hex(out, "runtime", p->runtime);
	else
		sg_out_null(out, "runtime");
	sg_out_string(out, "runtime_from", p->how_runtime);
	sg_out_bool(out, "debug_build", p->debug_build);
	sg_out_bool(out, "free_threaded", p->free_threaded);
	sg_out_string(out, "offsets_from", p->offs.source);
	sg_out_bool(out, "offsets_cached", p->offs.cached);
	sg_out_printf(out, "Python %s (hexversion 0x%08" PRIx32 "), from %s\n", version, h,
		      p->how_version);
	sg_out_printf(out, "Interpreter: %s (%s)\n", p->module_path, where);
	if (p->embedded && exe)
		sg_out_printf(out, "Program: %s\n", exe);
	if (p->runtime)
		sg_out_printf(out, "_PyRuntime: 0x%" PRIx64 ", from %s\n", p->runtime, p->how_runtime);
	else
		sg_out_printf(out, "Interpreter list: from %s\n", p->how_runtime);
	sg_out_printf(out, "Build: %s, %s\n", p->debug_build ? "debug (Py_DEBUG)" : "release",
		      p->free_threaded ? "free-threaded" : "with the GIL");
	sg_out_printf(out, "Offsets: %s%s\n", p->offs.source, p->offs.cached ? " (cached)" : "");
	return NULL;
}

/* ---- maintenance time-py-bt ---- */

static int count_frame(const struct py_frame *f SG_UNUSED, void *arg)
{
	(*(size_t *)arg)++;
	return SG_CB_OK;
}

/* The profiler's per-sample cost: the selected thread's Python stack
   walked COUNT times, with the code objects remembered across walks (as
   a sampler keeps them) and forgotten before each walk.  Target memory
   comes from the page cache after the first walk either way.  */
static struct sg_error *cmd_time_py_bt(struct sg_session *s, const char *args,
				       struct sg_out *out, void *arg)
{
	char *end;
	unsigned long count = args[0] ? strtoul(args, &end, 10) : 1000;
	if (args[0] && (*end || count == 0 || count > 1000000))
		return sg_error_create(SG_ERROR_USAGE, "Usage: maintenance time-py-bt [COUNT]");
	struct py_proc *p;
	struct sg_error *err = py_session_proc(s, arg, &p);
	if (err)
		return err;
	struct sg_thread *th = sg_session_thread(s);
	uint64_t tstate;
	if ((err = py_thread_state(p, sg_thread_tid(th), &tstate)))
		return err;
	if (!tstate)
		return sg_error_format(SG_ERROR_USAGE, "thread %zu runs no Python code",
				       sg_thread_index(th) + 1);
	size_t frames = 0;
	if ((err = py_frames(p, tstate, count_frame, &frames)))
		return err;
	double us[2];
	for (int cold = 0; cold < 2; cold++) {
		uint64_t t0 = sg_now_ns();
		for (unsigned long i = 0; i < count && !err; i++) {
			size_t n = 0;
			if (cold)
				py_code_cache_clear(p);
			err = py_frames(p, tstate, count_frame, &n);
		}
		if (err)
			return err;
		us[cold] = (sg_now_ns() - t0) / 1e3 / count;
	}
	sg_out_printf(out, "thread %zu: %zu Python frames; walk %.2f us with code objects "
		      "remembered, %.2f us reading them again (mean of %lu)\n",
		      sg_thread_index(th) + 1, frames, us[0], us[1], count);
	sg_out_uint(out, "frames", frames);
	sg_out_uint(out, "count", count);
	sg_out_int(out, "warm_ns", (int64_t)(us[0] * 1000));
	sg_out_int(out, "cold_code_ns", (int64_t)(us[1] * 1000));
	return NULL;
}

/* ---- the stack provider ---- */

struct provider_ctx {
	int (*fn)(const struct sg_runtime_frame *frame, void *fn_arg);
	void *fn_arg;
};

static int provide_frame(const struct py_frame *f, void *arg)
{
	struct provider_ctx *c = arg;
	struct sg_runtime_frame rf = {
		.function = f->function,
		.file = f->file,
		.line = f->line,
		.entry = f->entry,
	};
	return c->fn(&rf, c->fn_arg);
}

struct find_tstate {
	pid_t tid;
	uint64_t tstate;
};

static int match_thread(const struct py_thread *th, void *arg)
{
	struct find_tstate *ft = arg;
	if (th->tid != ft->tid)
		return SG_CB_OK;
	ft->tstate = th->tstate;
	return SG_CB_ABORT;
}

struct sg_error *py_thread_state(struct py_proc *p, pid_t tid, uint64_t *ret)
{
	struct find_tstate ft = { tid, 0 };
	struct sg_error *err = py_threads(p, match_thread, &ft);
	*ret = ft.tstate;
	return err;
}

static struct sg_error *provider_frames(struct sg_session *s, struct sg_thread *thread,
					int (*fn)(const struct sg_runtime_frame *, void *),
					void *fn_arg, void *arg)
{
	struct py_proc *p;
	struct sg_error *err = py_session_proc(s, arg, &p);
	if (err) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	uint64_t tstate;
	err = py_thread_state(p, sg_thread_tid(thread), &tstate);
	if (err)
		return err;
	if (!tstate)
		return &sg_not_found;
	struct provider_ctx c = { fn, fn_arg };
	return py_frames(p, tstate, provide_frame, &c);
}

/* The interpreter loop: _PyEval_EvalFrameDefault (and its .cold part),
   and PyEval_EvalFrameEx before 3.6's PEP 523 hook.  */
static bool provider_is_eval(const char *function, void *arg)
{
	const struct py_state *st = arg;
	if (!function)
		return false;
	if (strstr(function, "_PyEval_EvalFrameDefault"))
		return true;
	/* From 3.6 PyEval_EvalFrameEx is a wrapper around the default
	   loop, a frame of its own in unoptimised builds.  */
	return !strcmp(function, "PyEval_EvalFrameEx") && st->proc &&
	       st->proc->version < PY_V(3, 6);
}

/* Before a snapshot lets the process run: what py-bt and bt --python
   will read (the thread list, the collector's flag, each thread's frames
   with their code objects and line tables), read now so that the
   snapshot keeps it.  */
static void snapshot_prepare(struct sg_session *s, struct sg_target *target, void *arg)
{
	struct py_state *st = arg;
	if (st->target != target)
		prepare(s, target, st);
	struct py_proc *p = st->proc;
	if (!p)
		return;
	py_budget_reset(p);
	struct thread_list l = { 0 };
	sg_error_destroy(py_threads(p, collect_thread, &l));
	(void)py_gc_running(p);
	size_t n = 0;
	for (size_t i = 0; i < l.n; i++)
		sg_error_destroy(py_frames(p, l.a[i].tstate, count_frame, &n));
	free(l.a);
}

static void state_destroy(void *arg)
{
	forget(NULL, arg);
	free(arg);
}

static const struct sg_stack_provider_ops provider_ops = {
	.frames = provider_frames,
	.destroy = state_destroy,
	.prepare = prepare,
	.forget = forget,
	.is_eval = provider_is_eval,
	.snapshot_prepare = snapshot_prepare,
};

/* ---- registration ---- */

static const struct sg_command commands[] = {
	{
		.name = "py-bt",
		.synopsis = "py-bt [THREAD...]",
		.summary = "Print the Python stack of every thread, or of the given ones",
		.details = "Innermost frame first: the function (co_qualname from 3.11), file and\n"
			   "line, and the source line when the file can be read (set python source\n"
			   "off hides it).  Each thread says whether it holds the GIL.",
		.handler = cmd_py_bt,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK,
	},
	{
		.name = "py-locals",
		.synopsis = "py-locals [FRAME]",
		.summary = "Print the arguments and locals of a Python frame of the selected thread",
		.details = "FRAME counts Python frames from 0, the innermost.  Values are printed as\n"
			   "repr() would, bounded by set print elements.",
		.handler = py_locals_command,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS,
	},
	{
		.name = "maintenance time-py-bt",
		.synopsis = "maintenance time-py-bt [COUNT]",
		.summary = "Time COUNT walks of the selected thread's Python stack",
		.handler = cmd_time_py_bt,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS,
	},
	{
		.name = "py-version",
		.synopsis = "py-version",
		.summary = "Describe the Python interpreter of the target and how it was found",
		.handler = cmd_py_version,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK,
	},
};

static const struct sg_setting source_setting = {
	.name = "python source",
	.type = SG_SETTING_BOOL,
	.default_value = "on",
	.doc = "Whether py-bt shows each frame's source line",
};

static struct sg_error *init(struct sg_session *s, void **state_ret SG_UNUSED)
{
	struct py_state *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	struct sg_error *err = sg_stack_provider_register(s, "cpython", &provider_ops, st);
	if (err) {
		free(st);
		return err;
	}
	for (size_t i = 0; !err && i < PY_ARRAY_SIZE(commands); i++)
		err = sg_command_register(s, &commands[i], st);
	if (!err)
		err = sg_setting_register(s, &source_setting);
	return err;
}

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("module=libpython* module=python* symbol=_PyRuntime symbol=interp_head");
SG_PLUGIN_DEFINE("cpython", PACKAGE_VERSION,
		 "Python stacks, merged stacks and locals for CPython 2.7 and 3.6-3.15", init, NULL);
