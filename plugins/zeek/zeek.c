/* zeek: the plugin's commands (zeek-bt, zeek-version, maintenance
   time-zeek-bt) and its stack provider, which lets bt --zeek merge the
   script frames into the main thread's native stack.

   Zeek is found once per target, before the target is stopped (the
   provider's prepare): the stop reads only call_stack and what it
   points to.  */
#include <config.h>
#include "zeek.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct zk_state {
	struct sg_target *target;	/* what PROC or ERR is about */
	struct zk_proc *proc;
	struct sg_error *err;
};

static void forget(struct sg_target *target, void *arg)
{
	struct zk_state *st = arg;
	if (target && st->target != target)
		return;
	zk_proc_destroy(st->proc);
	sg_error_destroy(st->err);
	st->proc = NULL;
	st->err = NULL;
	st->target = NULL;
}

static void prepare(struct sg_session *s, struct sg_target *target, void *arg)
{
	struct zk_state *st = arg;
	forget(NULL, st);
	st->target = target;
	st->err = zk_find(s, target, &st->proc);
}

/* The session's target and its Zeek, found now if prepare did not run.  */
static struct sg_error *session_proc(struct sg_session *s, struct zk_state *st,
				     struct sg_target **target_ret, struct zk_proc **ret)
{
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	if (err)
		return err;
	if (st->target != t)
		prepare(s, t, st);
	if (st->err == &sg_not_found)
		return sg_error_create(SG_ERROR_LOOKUP,
				       "not a Zeek process: no symbol zeek::detail::call_stack "
				       "or call_stack");
	if (st->err)
		return sg_error_create(sg_error_code(st->err), sg_error_message(st->err));
	*target_ret = t;
	*ret = st->proc;
	return NULL;
}

/* The lines that say where the layouts came from, when not DWARF.  */
static void print_notes(struct sg_out *out, const struct zk_proc *p)
{
	if (!p->table)
		return;
	sg_out_printf(out, "(no DWARF: layouts from the built-in table for %s)\n",
		      p->table->layout.label);
	if (!p->layouts[ZK_FRAME])
		sg_out_printf(out, "(the table has no Frame for this version: the innermost "
				   "script frame's line is unknown)\n");
}

static void print_frame(struct sg_out *out, const struct zk_frame *f, size_t i)
{
	const char *name = f->function ? f->function : "??";
	sg_out_object_begin(out, NULL);
	sg_out_string(out, "kind", "zeek");
	sg_out_string(out, "function", name);
	sg_out_string(out, "flavor", zk_frame_kind(f));
	sg_out_string(out, "file", f->file);
	if (f->line)
		sg_out_int(out, "line", f->line);
	else
		sg_out_null(out, "line");
	sg_out_bool(out, "builtin", f->builtin);
	sg_out_object_end(out);
	sg_out_printf(out, "#%-2zu %s (%s)", i, name, zk_frame_kind(f));
	if (f->file) {
		sg_out_printf(out, " at %s", f->file);
		if (f->line)
			sg_out_printf(out, ":%d", f->line);
	}
	sg_out_printf(out, "\n");
}

static struct sg_error *cmd_zeek_bt(struct sg_session *s, const char *args, struct sg_out *out,
				    void *arg)
{
	if (*args)
		return sg_error_format(SG_ERROR_USAGE, "zeek-bt takes no arguments (not \"%s\")",
				       args);
	struct sg_target *t;
	struct zk_proc *p;
	struct sg_error *err = session_proc(s, arg, &t, &p);
	if (err)
		return err;
	struct zk_frame *frames;
	size_t n;
	err = zk_walk(s, t, p, &frames, &n);
	if (err)
		return err;
	print_notes(out, p);
	sg_out_string(out, "version", p->version[0] ? p->version : NULL);
	sg_out_string(out, "layouts", p->table ? "table" : "dwarf");
	sg_out_string(out, "table", p->table ? p->table->layout.label : NULL);
	if (!n)
		sg_out_printf(out, "no Zeek script is running\n");
	sg_out_array_begin(out, "frames");
	for (size_t i = 0; i < n; i++)
		print_frame(out, &frames[i], i);
	sg_out_array_end(out);
	zk_frames_free(frames, n);
	return NULL;
}

static struct sg_error *cmd_zeek_version(struct sg_session *s, const char *args SG_UNUSED,
					 struct sg_out *out, void *arg)
{
	struct sg_target *t;
	struct zk_proc *p;
	struct sg_error *err = session_proc(s, arg, &t, &p);
	if (err)
		return err;
	sg_out_printf(out, "Zeek %s, from %s\n", p->version[0] ? p->version : "(version unknown)",
		      p->version_source);
	sg_out_printf(out, "Call stack: %s at 0x%" PRIx64 "\n", p->call_stack_symbol,
		      p->call_stack);
	if (p->frame_stack)
		sg_out_printf(out, "Frame stack: g_frame_stack at 0x%" PRIx64 "\n", p->frame_stack);
	sg_out_printf(out, "Walk: %s\n",
		      p->frames_walk ? "CallInfo.frame (8.1 and later)"
				     : "CallInfo.func and g_frame_stack (3.0 to 8.0)");
	if (p->table)
		sg_out_printf(out, "Layouts: built-in table for %s (no DWARF)\n",
			      p->table->layout.label);
	else
		sg_out_printf(out, "Layouts: DWARF\n");
	const char *missing = !p->layouts[ZK_FRAME]	 ? "Frame (innermost script lines unknown)"
			      : !p->layouts[ZK_FUNCTYPE] ? "FuncType (event and hook flavors unknown)"
							 : NULL;
	if (missing)
		sg_out_printf(out, "Missing: %s\n", missing);
	sg_out_string(out, "version", p->version[0] ? p->version : NULL);
	sg_out_string(out, "version_source", p->version_source);
	sg_out_string(out, "call_stack_symbol", p->call_stack_symbol);
	sg_out_uint(out, "call_stack", p->call_stack);
	if (p->frame_stack)
		sg_out_uint(out, "g_frame_stack", p->frame_stack);
	else
		sg_out_null(out, "g_frame_stack");
	sg_out_string(out, "walk", p->frames_walk ? "frame" : "func");
	sg_out_string(out, "layouts", p->table ? "table" : "dwarf");
	sg_out_string(out, "table", p->table ? p->table->layout.label : NULL);
	sg_out_bool(out, "has_frame_layout", p->layouts[ZK_FRAME] != NULL);
	return NULL;
}

static struct sg_error *cmd_time_zeek_bt(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	char *end;
	unsigned long count = *args ? strtoul(args, &end, 10) : 1000;
	if (*args && (*end || count == 0 || count > 10000000))
		return sg_error_format(SG_ERROR_USAGE, "bad count \"%s\"", args);
	struct sg_target *t;
	struct zk_proc *p;
	struct sg_error *err = session_proc(s, arg, &t, &p);
	if (err)
		return err;
	size_t frames = 0;
	uint64_t t0 = sg_now_ns();
	for (unsigned long i = 0; i < count; i++) {
		struct zk_frame *f;
		err = zk_walk(s, t, p, &f, &frames);
		if (err)
			return err;
		zk_frames_free(f, frames);
	}
	double us = (sg_now_ns() - t0) / 1e3 / count;
	sg_out_printf(out, "%zu Zeek frames; walk %.2f us (mean of %lu)\n", frames, us, count);
	sg_out_uint(out, "frames", frames);
	sg_out_uint(out, "count", count);
	sg_out_int(out, "walk_ns", (int64_t)(us * 1000));
	return NULL;
}

/* ---- the stack provider ---- */

static struct sg_error *provider_frames(struct sg_session *s, struct sg_thread *thread,
					int (*fn)(const struct sg_runtime_frame *, void *),
					void *fn_arg, void *arg)
{
	struct sg_target *t;
	struct zk_proc *p;
	struct sg_error *err = session_proc(s, arg, &t, &p);
	if (err) {
		sg_error_destroy(err);
		return &sg_not_found;
	}
	/* Scripts run on the main thread only.  */
	if (sg_thread_tid(thread) != sg_target_pid(t))
		return &sg_not_found;
	struct zk_frame *frames;
	size_t n;
	err = zk_walk(s, t, p, &frames, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		/* One native Invoke (Call up to 3.1) per script call.  */
		struct sg_runtime_frame rf = {
			.function = frames[i].function,
			.file = frames[i].file,
			.line = frames[i].line,
			.entry = true,
		};
		if (fn(&rf, fn_arg) != SG_CB_OK)
			break;
	}
	zk_frames_free(frames, n);
	return NULL;
}

/* The native functions that push a call_stack entry: ScriptFunc::Invoke
   and BuiltinFunc::Invoke in zeek::detail from 3.2, BroFunc::Call and
   BuiltinFunc::Call before.  */
static bool provider_is_eval(const char *function, void *arg SG_UNUSED)
{
	static const char *const names[] = {
		"zeek::detail::ScriptFunc::Invoke", "zeek::detail::BuiltinFunc::Invoke",
		"BroFunc::Call", "BuiltinFunc::Call",
	};
	if (!function)
		return false;
	size_t len = strcspn(function, "(");
	for (size_t i = 0; i < ZK_ARRAY_SIZE(names); i++)
		if (len == strlen(names[i]) && !strncmp(function, names[i], len))
			return true;
	return false;
}

/* Before a snapshot lets the process go: walk what zeek-bt will read,
   so that the snapshot keeps it.  Scripts run on the main thread only,
   and a process without Zeek has nothing to walk: asking frames() of
   every thread would cost a failed lookup each during the stop.  */
static void snapshot_prepare(struct sg_session *s, struct sg_target *target, void *arg)
{
	struct zk_state *st = arg;
	if (st->target != target)
		prepare(s, target, st);
	if (!st->proc)
		return;
	struct zk_frame *frames;
	size_t n;
	struct sg_error *err = zk_walk(s, target, st->proc, &frames, &n);
	if (err)
		sg_error_destroy(err);
	else
		zk_frames_free(frames, n);
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
		.name = "zeek-bt",
		.synopsis = "zeek-bt",
		.summary = "Print the Zeek script stack of the main thread",
		.details = "Innermost frame first: the function, event or hook, its kind, and the\n"
			   "file and line of the statement it executes (for a caller, its call).\n"
			   "Built-in functions have no line.  Prints \"no Zeek script is running\"\n"
			   "when the stack is empty.",
		.handler = cmd_zeek_bt,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK,
	},
	{
		.name = "zeek-version",
		.synopsis = "zeek-version",
		.summary = "Describe the Zeek of the target and how its layouts were found",
		.handler = cmd_zeek_version,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK,
	},
	{
		.name = "maintenance time-zeek-bt",
		.synopsis = "maintenance time-zeek-bt [COUNT]",
		.summary = "Time COUNT walks of the Zeek script stack",
		.handler = cmd_time_zeek_bt,
		.flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS,
	},
};

static struct sg_error *init(struct sg_session *s, void **state_ret SG_UNUSED)
{
	struct zk_state *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	struct sg_error *err = sg_stack_provider_register(s, "zeek", &provider_ops, st);
	if (err) {
		free(st);
		return err;
	}
	for (size_t i = 0; !err && i < ZK_ARRAY_SIZE(commands); i++)
		err = sg_command_register(s, &commands[i], st);
	return err;
}

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("module=zeek module=bro symbol=_ZN4zeek6detail10call_stackE symbol=call_stack");
SG_PLUGIN_DEFINE("zeek", PACKAGE_VERSION, "Zeek script stacks for Zeek 3.0 to 9.x", init, NULL);
