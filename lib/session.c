/* The session: registries, plugins and the current target.  */
#include <config.h>
#include "internal.h"

#include <sys/ptrace.h>

const char *sg_version(void) { return PACKAGE_VERSION; }

const char *sg_plugin_dir(void)
{
	const char *dir = getenv("SPYGLASS_PLUGIN_DIR");
	return dir && dir[0] ? dir : SG_PLUGIN_DIR;
}

struct sg_error *sg_session_create(struct sg_session **ret)
{
	struct sg_session *s = calloc(1, sizeof(*s));
	if (!s)
		return &sg_enomem;
	struct sg_error *err = sg_settings_register_core(s);
	if (err) {
		sg_session_destroy(s);
		return err;
	}
	*ret = s;
	return NULL;
}

static void drop_target(struct sg_session *s)
{
	sg_session_forget_stack(s);
	struct sg_target *t = s->target;
	if (!t)
		return;
	sg_registry_forget_target(s, t);
	sg_target_end(t);
	s->last_paused_ns = sg_target_paused_ns(t);
	/* Forgotten before it is freed: a fatal signal's handler detaches
	   the session's target.  */
	s->target = NULL;
	s->thread = 0;
	s->had_target = true;
	sg_target_destroy(t);
}

static void drop_hints(struct sg_session *s)
{
	for (size_t i = 0; i < s->nhints; i++)
		free(s->hints[i].name);
	free(s->hints);
	s->hints = NULL;
	s->nhints = s->hints_cap = 0;
}

void sg_session_destroy(struct sg_session *s)
{
	if (!s)
		return;
	drop_target(s);
	sg_plugins_unload_all(s);
	sg_commands_deinit(s);
	sg_settings_deinit(s);
	sg_registry_deinit(s);
	drop_hints(s);
	free(s->sysroot);
	free(s->solib_search_path);
	free(s);
}


#define MAX_HINTS 256

struct sg_error *sg_session_hint_name(struct sg_session *s, const char *name, unsigned kinds)
{
	if (s->nhints >= MAX_HINTS)
		return NULL;	/* hints only save time; enough of them */
	char *copy = strdup(name);
	struct sg_name_hint *h = copy ? sg_array_push(&s->hints, &s->nhints, &s->hints_cap,
						      sizeof(*h))
				      : NULL;
	if (!h) {
		free(copy);
		return &sg_enomem;
	}
	h->name = copy;
	h->kinds = kinds;
	return NULL;
}

struct sg_error *sg_session_attach(struct sg_session *s, pid_t pid)
{
	if (s->target && s->target->pid == pid && !s->target->gone)
		return sg_error_format(SG_ERROR_TARGET, "already attached to process %d", pid);
	drop_target(s);
	s->prewarmed = NULL;
	struct sg_error *err = sg_ptrace_attach(pid, sg_session_prewarm, s, &s->target);
	/* The handlers prepared a target that is gone: what they keep about
	   it would serve the next one at the same address.  */
	if (err && s->prewarmed)
		sg_registry_forget_target(s, s->prewarmed);
	s->prewarmed = NULL;
	drop_hints(s);
	s->no_stacks = false;
	s->snapshot_next = false;
	return err;
}

struct sg_error *sg_session_open_core(struct sg_session *s, const char *core, const char *exe)
{
	struct sg_target *t;
	struct sg_error *err = sg_core_target_open(core, exe, s->sysroot, s->solib_search_path, &t);
	if (err)
		return err;
	drop_target(s);
	drop_hints(s);
	s->no_stacks = false;
	s->snapshot_next = false;
	s->target = t;
	/* What the handlers find once per target (a runtime's tables),
	   as an attach does before its stop.  */
	sg_registry_prepare_target(s, t);
	return NULL;
}

static struct sg_error *set_path(char **field, const char *value)
{
	char *copy = value && value[0] ? strdup(value) : NULL;
	if (value && value[0] && !copy)
		return &sg_enomem;
	free(*field);
	*field = copy;
	return NULL;
}

struct sg_error *sg_session_set_sysroot(struct sg_session *s, const char *dir)
{
	return set_path(&s->sysroot, dir);
}

struct sg_error *sg_session_set_solib_search_path(struct sg_session *s, const char *path)
{
	return set_path(&s->solib_search_path, path);
}

const char *sg_session_sysroot(struct sg_session *s) { return s->sysroot ? s->sysroot : ""; }

const char *sg_session_solib_search_path(struct sg_session *s)
{
	return s->solib_search_path ? s->solib_search_path : "";
}

void sg_session_set_target(struct sg_session *s, struct sg_target *t)
{
	drop_target(s);
	s->target = t;
}

void sg_session_memory_changed(struct sg_session *s)
{
	sg_session_forget_stack(s);
	if (!s->target)
		return;
	sg_registry_forget_target(s, s->target);
	sg_target_memory_changed(s->target);
}

void sg_session_hint_no_stacks(struct sg_session *s) { s->no_stacks = true; }
void sg_session_hint_snapshot(struct sg_session *s) { s->snapshot_next = true; }

/* [sp, the mapping's end) is the part of a stack in use: all of it, up to
   this much (a runaway recursion), is copied.  */
#define SNAPSHOT_STACK_BYTES (8 << 20)

struct sg_error *sg_session_snapshot(struct sg_session *s, size_t stack_bytes)
{
	if (!s->target)
		return sg_error_create(SG_ERROR_TARGET, "the program is not being run");
	struct sg_error *err = sg_target_snapshot(s->target, stack_bytes ? stack_bytes
									 : SNAPSHOT_STACK_BYTES);
	if (!err)
		s->last_paused_ns = sg_target_paused_ns(s->target);
	return err;
}

void sg_session_end(struct sg_session *s)
{
	if (!s || !s->target)
		return;
	sg_target_end(s->target);
	s->last_paused_ns = sg_target_paused_ns(s->target);
}

struct sg_error *sg_session_detach(struct sg_session *s)
{
	if (!s->target)
		return sg_error_create(SG_ERROR_TARGET, "the program is not being run");
	drop_target(s);
	return NULL;
}

struct sg_target *sg_session_target(struct sg_session *s) { return s->target; }
uint64_t sg_session_last_paused_ns(struct sg_session *s) { return s->last_paused_ns; }

struct sg_error *sg_session_need_target(struct sg_session *s, struct sg_target **ret)
{
	if (!s->target)
		return sg_error_create(SG_ERROR_TARGET,
				       "no target: use \"attach PID\" or \"core-file CORE\", or start with -p PID or -c CORE");
	/* A waitpid(WNOHANG) per thread: a target that died since the last
	   command must fail every command with the same clear line.  Commands
	   run by another command ("thread apply all bt") skip it: once per
	   command line is enough, and reads still notice a death.  */
	if (s->target->gone || (s->exec_depth <= 1 && !sg_target_alive(s->target))) {
		struct sg_error *err = sg_target_gone_error(s->target);
		sg_session_release_gone(s);
		return err;
	}
	*ret = s->target;
	return NULL;
}

/* The threads of a killed process die as zombies that only their tracer
   may reap, the leader last: until then its parent cannot reap it, and
   nothing reaps them while spyglass waits for the next command.  The
   detach reaps them; it does nothing more the next time.  */
void sg_session_release_gone(struct sg_session *s)
{
	if (s->target && s->target->gone && s->target->ops->detach)
		s->target->ops->detach(s->target);
}

bool sg_session_target_died(struct sg_session *s)
{
	if (!s->target || s->target->gone || sg_target_alive(s->target))
		return false;
	sg_session_release_gone(s);
	return true;
}

struct sg_thread *sg_session_thread(struct sg_session *s)
{
	return s->target ? sg_target_thread(s->target, s->thread) : NULL;
}

struct sg_error *sg_session_select_thread(struct sg_session *s, struct sg_thread *thread)
{
	if (!s->target || thread->index >= s->target->nthreads ||
	    &s->target->threads[thread->index] != thread)
		return sg_error_create(SG_ERROR_USAGE, "that thread is not in the current target");
	if (s->thread != thread->index)
		sg_session_forget_stack(s);
	s->thread = thread->index;
	return NULL;
}

void sg_session_emergency_detach(struct sg_session *s)
{
	if (s && s->target && s->target->ops->emergency_detach)
		s->target->ops->emergency_detach(s->target);
}
