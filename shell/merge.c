/* bt --python, bt --zeek: merged stacks.  The native stack is printed
   with the frames of the interpreter loop replaced by the runtime frames
   they run, as a stack provider (the cpython or zeek plugin) gives them.

   Walking from the innermost frame, each native frame the provider calls
   an eval frame runs the runtime frames up to and including the next
   entry frame (before 3.11 every Python frame is one; from 3.11 one
   _PyEval_EvalFrameDefault runs the Python-to-Python calls made inside
   it).  When the counts disagree, merging would put frames in the wrong
   places: the runtime stack is printed alone, after a notice.  */
#include <config.h>
#include "shell.h"

#include <spyglass/sampler.h>

#include <stdlib.h>
#include <string.h>

struct rframe {
	char *function, *file;
	int line;
	bool entry;
};

static const struct shell_runtime runtimes[] = {
	{ "python", "cpython", "Python" },
	{ "zeek", "zeek", "Zeek" },
};

const struct shell_runtime *shell_runtime_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strcmp(name, runtimes[i].option))
			return &runtimes[i];
	return NULL;
}

struct runtime {
	const struct shell_runtime *rt;
	const struct sg_registry_entry *provider;
	struct rframe *a;
	size_t n, cap;
	bool failed;
};

static int add_rframe(const struct sg_runtime_frame *f, void *arg)
{
	struct runtime *r = arg;
	struct rframe *rf = sg_array_push(&r->a, &r->n, &r->cap, sizeof(*rf));
	if (rf) {
		rf->function = strdup(f->function ? f->function : "??");
		rf->file = f->file ? strdup(f->file) : NULL;
		rf->line = f->line;
		rf->entry = f->entry;
		if (rf->function)
			return SG_CB_OK;
		free(rf->file);
		r->n--;
	}
	r->failed = true;
	return SG_CB_ABORT;
}

static void runtime_clear(struct runtime *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->a[i].function);
		free(r->a[i].file);
	}
	free(r->a);
	r->a = NULL;
	r->n = r->cap = 0;
}

struct provider_search {
	struct sg_session *session;
	struct sg_thread *thread;
	struct runtime *r;
	struct sg_error *err;
};

/* The runtime's provider, if it is built for ABI 1.1 (which has entry
	and is_eval) and knows the thread.  */
static int try_provider(const struct sg_registry_entry *e, void *arg)
{
	struct provider_search *ps = arg;
	const struct sg_stack_provider_ops *ops = e->ops;
	if (strcmp(e->name, ps->r->rt->provider) || e->abi_minor < 1 || !ops->is_eval)
		return SG_CB_OK;
	runtime_clear(ps->r);
	struct sg_error *err = ops->frames(ps->session, ps->thread, add_rframe, ps->r, e->arg);
	if (err == &sg_not_found)
		return SG_CB_OK;
	ps->r->provider = e;
	ps->err = err;
	return SG_CB_ABORT;
}

static void print_rframe(struct sg_out *out, const struct runtime *r, const struct rframe *rf,
			 size_t number)
{
	sg_out_object_begin(out, NULL);
	sg_out_string(out, "kind", r->rt->option);
	sg_out_uint(out, "merged_level", number);
	sg_out_string(out, "function", rf->function);
	sg_out_string(out, "file", rf->file);
	if (rf->line)
		sg_out_int(out, "line", rf->line);
	else
		sg_out_null(out, "line");
	sg_out_object_end(out);
	/* A frame with no file (a Zeek built-in) has no "at".  */
	sg_out_printf(out, "#%-2zu [%s] %s", number, r->rt->option, rf->function);
	if (rf->file)
		sg_out_printf(out, " at %s", rf->file);
	if (rf->file && rf->line)
		sg_out_printf(out, ":%d", rf->line);
	sg_out_printf(out, "\n");
}

static void print_native(struct shell *sh, const struct sg_stack *st, const struct sg_frame *f,
			 size_t number, struct sg_out *out)
{
	FILE *file = sg_out_file(out);
	if (file) {
		shell_format_frame_as(sh, st, f, number, file);
		return;
	}
	shell_frame_json_open(out, f);
	sg_out_string(out, "kind", "native");
	sg_out_uint(out, "merged_level", number);
	sg_out_object_end(out);
}

/* Whether each native frame of ST is R's interpreter loop, into a new
   array (NULL without memory).  */
static bool *eval_frames(const struct runtime *r, const struct sg_stack *st)
{
	size_t n = sg_stack_count(st);
	bool *eval = calloc(n + 1, sizeof(*eval));
	const struct sg_stack_provider_ops *ops = r->provider ? r->provider->ops : NULL;
	for (size_t i = 0; eval && ops && i < n; i++) {
		const struct sg_frame *f = sg_stack_frame(st, i);
		eval[i] = f->function && ops->is_eval(f->function, r->provider->arg);
	}
	return eval;
}

struct sg_error *shell_print_merged(struct shell *sh, const struct sg_stack *st,
				    const struct shell_runtime *rt, struct sg_out *out)
{
	struct sg_session *s = sh->session;
	struct sg_thread *th = sg_stack_thread(st);
	struct runtime r = { .rt = rt };
	struct provider_search ps = { s, th, &r, NULL };
	sg_registry_foreach(s, SG_REGISTRY_STACK_PROVIDER, try_provider, &ps);
	if (r.failed && !ps.err)
		ps.err = &sg_enomem;
	size_t n = sg_stack_count(st);
	bool *eval = eval_frames(&r, st);
	bool *entry = calloc(r.n + 1, sizeof(*entry));
	struct sg_merge_item *order = calloc(n + r.n + 1, sizeof(*order));
	if (!eval || !entry || !order) {
		free(eval);
		free(entry);
		free(order);
		runtime_clear(&r);
		sg_error_destroy(ps.err);
		return &sg_enomem;
	}
	sg_out_int(out, "tid", sg_thread_tid(th));
	sg_out_string(out, "name", sg_thread_name(th));
	for (size_t k = 0; k < r.n; k++)
		entry[k] = r.a[k].entry;
	/* A Python walk that broke off still merges the frames it read, as
	   long as they account for the eval frames.  A native walk that
	   stopped early (a frame no unwinder could step) merges the eval
	   frames it reached; the Python frames of the rest follow it.  */
	const char *reason = sg_stack_stop_reason(st);
	size_t norder = n, cut_at = n;
	bool merge = false;
	if (r.provider)
		merge = sg_merge_order(eval, n, entry, r.n, reason != NULL, order, &norder, &cut_at);
	else
		for (size_t i = 0; i < n; i++)
			order[i] = (struct sg_merge_item){ false, i };
	char *notice = NULL;
	if (r.provider && !merge &&
	    asprintf(&notice,
		     "cannot merge the %s frames into the native stack "
		     "(interpreter frames and %s entry frames differ in number): %s frames only",
		     rt->title, rt->title, rt->title) < 0)
		notice = NULL;
	sg_out_array_begin(out, "frames");
	if (r.provider && !merge)
		sg_out_printf(out, "%s\n", notice ? notice : "(cannot merge)");
	for (size_t j = 0; j < norder; j++) {
		if (merge && j == cut_at) {
			/* Where the native walk stopped, then what it did not
			   reach.  */
			sg_out_printf(out, "Backtrace stopped: %s\n", reason);
			sg_out_printf(out, "(the %s frames below it:)\n", rt->title);
			reason = NULL;
		}
		if (order[j].runtime)
			print_rframe(out, &r, &r.a[order[j].index], j);
		else
			print_native(sh, st, sg_stack_frame(st, order[j].index), j, out);
	}
	sg_out_array_end(out);
	sg_out_bool(out, "merged", merge);
	if (notice)
		sg_out_string(out, "notice", notice);
	if (ps.err) {
		sg_out_printf(out, "<error: %s>\n", sg_error_message(ps.err));
		char key[32];
		snprintf(key, sizeof(key), "%s_error", rt->option);
		sg_out_string(out, key, sg_error_message(ps.err));
		sg_error_destroy(ps.err);
	}
	if (reason)
		sg_out_printf(out, "Backtrace stopped: %s\n", reason);
	sg_out_string(out, "stop_reason", sg_stack_stop_reason(st));
	runtime_clear(&r);
	free(notice);
	free(eval);
	free(entry);
	free(order);
	return NULL;
}
