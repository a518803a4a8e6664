/* The sampling profiler (sampler.h): the session's target, attached and
   stopped, is resumed while every thread stays seized; each tick stops
   the threads it samples, copies what the walk needs and lets them go.

   While the target runs, every wait status of its threads is ours to
   handle (sampler-wait.c): a signal is passed on when the thread is
   resumed, a group stop is kept with PTRACE_LISTEN, a new thread is
   added.  None of the target's ptrace ops run meanwhile: its reader
   would reap stops it does not expect.  Reads go through this file's
   ops instead: the copied window of the stack being unwound, else the
   live process (code and constants do not change; the rest is read as
   it is now).  */
#include <config.h>
#include "sampler-impl.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RATE 100
#define MAX_RATE 100000
#define RED_ZONE 128		/* x86-64: below the stack pointer, still live */
#define PROGRESS_NS 250000000

static const char sampler_key;	/* sg_target_get_data's key */

struct sg_error *sg_sampler_live_read(struct sampler *sp, uint64_t address, void *buf, size_t size)
{
	struct sg_target *t = sp->t;
	pid_t pid = t->nthreads ? t->threads[0].tid : t->pid;
	size_t done = 0;
	while (done < size) {
		ssize_t n;
		if (!t->no_vm_readv) {
			struct iovec local = { (char *)buf + done, size - done };
			struct iovec remote = { (void *)(uintptr_t)(address + done), size - done };
			n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		} else {
			if (t->mem_fd < 0) {
				char path[64];
				snprintf(path, sizeof(path), "/proc/%d/mem", pid);
				t->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
			}
			n = t->mem_fd < 0 ? -1
				: pread(t->mem_fd, (char *)buf + done, size - done, (off_t)(address + done));
		}
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ESRCH)
			return sg_error_format(SG_ERROR_TARGET, "process %d exited", (int)t->pid);
		return sg_error_fault(address + done, size - done, n == 0 ? EIO : errno);
	}
	return NULL;
}

/* The target's reads while it is recorded: from the window of the stack
   being unwound, else live.  A read above the window, in the stack,
   asks for a larger window from the next sample on.  */
static struct sg_error *sampler_read(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	struct sampler *sp = sg_target_get_data(t, &sampler_key);
	const struct window *w = sp->cur;
	unsigned char *out = buf;
	while (size) {
		size_t n = size;
		if (w && address >= w->start && address - w->start < w->len) {
			if (n > w->len - (address - w->start))
				n = w->len - (address - w->start);
			memcpy(out, w->data + (address - w->start), n);
		} else {
			if (w && address < w->start && w->start - address < n)
				n = w->start - address;
			if (w && address >= w->start + w->len && address < w->limit)
				sp->wanted_more = true;
			size_t got = 0;
			if (sp->pre) {
				uint64_t left = SG_PAGE_SIZE - (address & (SG_PAGE_SIZE - 1));
				if (n > left)
					n = left;
				got = sg_sampler_prefetched(sp, address, out, n);
			}
			struct sg_error *err = got ? NULL : sg_sampler_live_read(sp, address, out, n);
			if (err)
				return err;
		}
		out += n;
		address += n;
		size -= n;
	}
	return NULL;
}

static bool sampler_alive(struct sg_target *t)
{
	struct sampler *sp = sg_target_get_data(t, &sampler_key);
	return !sp->stats.exited;
}

static void sampler_detach(struct sg_target *t)
{
	(void)t;	/* the recording detaches nothing; its end restores the ops */
}

/* ---- one sample ---- */

/* Copy the top of thread I's stack while it is stopped.  */
static void copy_window(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	struct window *w = &th->win;
	w->len = 0;
	if (!sg_regs_has(&th->regs, SG_REG_RSP))
		return;
	uint64_t sp_reg = th->regs.r[SG_REG_RSP];
	uint64_t start = sp_reg > RED_ZONE ? sp_reg - RED_ZONE : 0;
	uint64_t end = sp_reg + th->window;
	struct sg_mapping m;
	/* A stack created after the attach is not in the parsed maps: the
	   read stops at its end by itself.  */
	w->limit = end + MAX_WINDOW;
	if (sg_target_mapping_at(sp->t, sp_reg, &m)) {
		if (m.start > start)
			start = m.start;
		if (m.end < end)
			end = m.end;
		w->limit = m.end;
	}
	if (end <= start)
		return;
	size_t want = end - start;
	if (w->cap < want) {
		unsigned char *d = realloc(w->data, want);
		if (!d)
			return;
		w->data = d;
		w->cap = want;
	}
	struct iovec local = { w->data, want };
	struct iovec remote = { (void *)(uintptr_t)start, want };
	pid_t pid = sp->t->nthreads ? sp->t->threads[0].tid : sp->t->pid;
	ssize_t got = sp->t->no_vm_readv ? -1 : process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0) {
		struct sg_error *err = sg_sampler_live_read(sp, start, w->data, want);
		got = err ? 0 : (ssize_t)want;
		sg_error_destroy(err);
	}
	w->start = start;
	w->len = (size_t)got;
}

/* Read what thread I's sample needs while it is stopped.  */
static void read_stopped(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	th->have_regs = sg_sampler_read_regs(th->tid, &th->regs);
	if (th->have_regs && sp->o->stack != SG_SAMPLE_RUNTIME)
		copy_window(sp, i);
	if (sp->o->stack != SG_SAMPLE_NATIVE) {
		sp->cur = NULL;
		sg_target_memory_changed(sp->t);
		sg_sampler_runtime_frames(sp, i);
	}
}

/* The native stack of thread I from its copy, into the profile's frame
   array sp->pf.  */
static struct sg_error *unwind_copy(struct sampler *sp, size_t i, struct sg_stack **ret)
{
	struct sthread *th = &sp->th[i];
	struct sg_thread *thread = &sp->t->threads[i];
	thread->regs = th->regs;
	sp->cur = &th->win;
	sp->wanted_more = false;
	sg_target_memory_changed(sp->t);
	struct sg_error *err = sg_stack_unwind(sp->s, thread, NULL, 0, 0, ret);
	sp->cur = NULL;
	if (sp->wanted_more && th->window < MAX_WINDOW)
		th->window *= 2;
	return err;
}

static void push_native(struct sampler *sp, const struct sg_frame *f)
{
	struct sg_profile_frame *pf = sg_array_push(&sp->pf, &sp->npf, &sp->pf_cap, sizeof(*pf));
	if (!pf)
		return;
	pf->function = f->function;
	pf->file = f->file;
	pf->line = f->line;
	pf->module = f->module ? f->module->name : NULL;
	pf->module_start = f->module ? f->module->start : 0;
	pf->address = f->pc;
	pf->kind = SG_PROFILE_NATIVE;
}

static void push_runtime(struct sampler *sp, const struct sg_sampler_rframe *rf)
{
	struct sg_profile_frame *pf = sg_array_push(&sp->pf, &sp->npf, &sp->pf_cap, sizeof(*pf));
	if (!pf)
		return;
	*pf = (struct sg_profile_frame){ .function = rf->function, .file = rf->file,
					 .line = rf->line, .kind = sp->o->kind };
}

/* Thread I's frames into sp->pf, innermost first.  */
static struct sg_error *build_frames(struct sampler *sp, size_t i, struct sg_stack **stp)
{
	struct sthread *th = &sp->th[i];
	sp->npf = 0;
	if (sp->o->stack == SG_SAMPLE_RUNTIME) {
		for (size_t k = 0; k < th->nrf; k++)
			push_runtime(sp, &th->rf[k]);
		return NULL;
	}
	if (!th->have_regs)
		return NULL;
	struct sg_error *err = unwind_copy(sp, i, stp);
	if (err)
		return err;
	size_t n = sg_stack_count(*stp);
	if (sp->o->stack == SG_SAMPLE_NATIVE || !th->runtime_found) {
		for (size_t k = 0; k < n; k++)
			push_native(sp, sg_stack_frame(*stp, k));
		return NULL;
	}
	bool *eval = calloc(n + 1, sizeof(*eval));
	bool *entry = calloc(th->nrf + 1, sizeof(*entry));
	struct sg_merge_item *order = calloc(n + th->nrf + 1, sizeof(*order));
	if (eval && entry && order) {
		for (size_t k = 0; k < n; k++)
			eval[k] = sg_sampler_is_eval(sp, sg_stack_frame(*stp, k)->function);
		for (size_t k = 0; k < th->nrf; k++)
			entry[k] = th->rf[k].entry;
		size_t norder, cut_at;
		sg_merge_order(eval, n, entry, th->nrf, sg_stack_stop_reason(*stp) != NULL, order,
			       &norder, &cut_at);
		for (size_t j = 0; j < norder; j++) {
			if (order[j].runtime)
				push_runtime(sp, &th->rf[order[j].index]);
			else
				push_native(sp, sg_stack_frame(*stp, order[j].index));
		}
	} else {
		err = &sg_enomem;
	}
	free(eval);
	free(entry);
	free(order);
	return err;
}

static void add_sample(struct sampler *sp, size_t i, uint64_t when)
{
	struct sg_stack *st = NULL;
	struct sg_error *err = build_frames(sp, i, &st);
	if (!err && sp->npf) {
		const struct sg_thread *thread = &sp->t->threads[i];
		err = sg_profile_add(sp->profile, thread->tid, thread->name, when, sp->pf, sp->npf);
		if (!err)
			sp->stats.samples++;
	} else if (!err && sp->th[i].runtime_error) {
		sp->stats.errors++;
	}
	if (err) {
		sp->stats.errors++;
		sg_error_destroy(err);
	}
	sg_stack_destroy(st);
	sg_sampler_rframes_clear(&sp->th[i]);
}

/* Whether thread I is sampled this tick: asked for, and running.  */
static bool wanted(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	if (th->gone || th->born || !sp->t->threads[i].seized)
		return false;
	if (sp->o->ntids) {
		bool found = false;
		for (size_t k = 0; k < sp->o->ntids && !found; k++)
			found = sp->o->tids[k] == th->tid;
		if (!found)
			return false;
	}
	return sp->o->idle || sg_sampler_task_state(sp, i) == 'R';
}

static void tick(struct sampler *sp)
{
	uint64_t when = sg_now_ns();
	size_t n = sp->nth;
	for (size_t i = 0; i < n; i++)
		sp->th[i].selected = wanted(sp, i);
	if (sp->o->nonblocking) {
		for (size_t i = 0; i < n; i++) {
			if (!sp->th[i].selected)
				continue;
			sp->cur = NULL;
			sg_target_memory_changed(sp->t);
			sg_sampler_runtime_frames(sp, i);
			add_sample(sp, i, when);
		}
		return;
	}
	bool any = false;
	uint64_t t0 = sg_now_ns();
	for (size_t i = 0; i < n; i++) {
		struct sthread *th = &sp->th[i];
		th->sampled = false;
		if (!th->selected)
			continue;
		if (ptrace(PTRACE_INTERRUPT, th->tid, 0, 0) < 0) {
			th->selected = false;	/* exiting: its wait status tells */
			continue;
		}
		any = true;
	}
	if (!any)
		return;
	for (size_t i = 0; i < n; i++) {
		struct sthread *th = &sp->th[i];
		if (!th->selected || !sg_sampler_wait_stopped(sp, i))
			continue;
		th = &sp->th[i];	/* a clone event may have moved the array */
		if (th->skip) {
			th->skip = false;
			sg_sampler_resume(sp, i);
			continue;
		}
		read_stopped(sp, i);
		th = &sp->th[i];
		if (th->birth_pc) {
			/* Waiting for a CPU, a new thread may stay unrun for
			   several ticks.  */
			if (th->have_regs && th->regs.r[SG_REG_RIP] == th->birth_pc) {
				sg_sampler_resume(sp, i);
				continue;
			}
			th->birth_pc = 0;
		}
		sp->th[i].sampled = true;
		sg_sampler_resume(sp, i);
	}
	sp->stats.stopped_ns += sg_now_ns() - t0;
	for (size_t i = 0; i < n; i++)
		if (sp->th[i].sampled)
			add_sample(sp, i, when);
}

/* ---- the recording ---- */

static struct sg_error *check_options(struct sg_session *s, const struct sg_sampler_options *o,
				      struct sg_target **ret)
{
	struct sg_error *err = sg_session_need_target(s, ret);
	if (err)
		return err;
	struct sg_target *t = *ret;
	if (t->kind != SG_TARGET_LIVE || t->snapshot)
		return sg_error_create(SG_ERROR_USAGE, "record needs a live process (attach PID)");
	if (t->gone)
		return sg_target_gone_error(t);
	if (o->rate_hz > MAX_RATE)
		return sg_error_format(SG_ERROR_USAGE, "the rate is at most %d Hz", MAX_RATE);
	if (o->nonblocking && o->stack != SG_SAMPLE_RUNTIME)
		return sg_error_create(SG_ERROR_USAGE,
				       "--nonblocking reads only runtime stacks (python, zeek): "
				       "a native stack cannot be read without stopping the thread");
	if (o->stack != SG_SAMPLE_NATIVE && !o->provider)
		return sg_error_create(SG_ERROR_USAGE, "a runtime stack needs its stack provider");
	return NULL;
}

static void report_progress(struct sampler *sp, uint64_t now, uint64_t *next)
{
	if (!sp->o->progress || now < *next)
		return;
	*next = now + PROGRESS_NS;
	sp->stats.elapsed_ns = now - sp->start_ns;
	sp->stats.threads = (unsigned)sp->nth;
	sp->o->progress(&sp->stats, sp->o->progress_arg);
}

static void run(struct sampler *sp)
{
	unsigned rate = sp->o->rate_hz ? sp->o->rate_hz : DEFAULT_RATE;
	uint64_t period = 1000000000ull / rate;
	uint64_t next_progress = 0;
	sp->start_ns = sg_now_ns();
	uint64_t next = sp->start_ns + period;	/* the resume itself wakes threads up */
	uint64_t end = sp->o->duration_ns ? sp->start_ns + sp->o->duration_ns : UINT64_MAX;
	while (!(sp->o->stop && *sp->o->stop)) {
		sg_sampler_poll(sp);
		if (sp->stats.exited || sp->failed)
			break;
		uint64_t now = sg_now_ns();
		if (now >= end)
			break;
		if (now >= next) {
			tick(sp);
			sp->stats.ticks++;
			next += period;
			now = sg_now_ns();
			if (now >= next + period) {
				/* Behind: the times passed are missed, not caught
				   up in a burst.  */
				uint64_t late = (now - next) / period;
				sp->stats.missed += late;
				next += late * period;
			}
			report_progress(sp, now, &next_progress);
			continue;
		}
		uint64_t wake = next < end ? next : end;
		struct timespec ts = { (time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	sp->stats.elapsed_ns = sg_now_ns() - sp->start_ns;
}

static void sampler_free(struct sampler *sp)
{
	for (size_t i = 0; i < sp->nth; i++) {
		if (sp->th[i].stat_fd >= 0)
			close(sp->th[i].stat_fd);
		free(sp->th[i].win.data);
		sg_sampler_rframes_clear(&sp->th[i]);
		free(sp->th[i].rf);
		sg_sampler_prefetch_fini(&sp->th[i]);
	}
	free(sp->th);
	free(sp->pf);
	free(sp);
}

struct sg_error *sg_session_record(struct sg_session *s, const struct sg_sampler_options *o,
				   struct sg_profile *profile, struct sg_sampler_stats *stats)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	struct sg_target *t;
	struct sg_error *err = check_options(s, o, &t);
	if (err)
		return err;
	struct sampler *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return &sg_enomem;
	sp->s = s;
	sp->t = t;
	sp->o = o;
	sp->profile = profile;
	err = o->provider ? sg_sampler_find_provider(sp) : NULL;
	if (!err)
		err = sg_sampler_threads_init(sp);
	if (!err)
		err = sg_target_set_data(t, &sampler_key, sp, NULL);
	if (err) {
		sampler_free(sp);
		return err;
	}
	sg_session_forget_stack(s);
	sp->live_ops = t->ops;
	sp->ops = *t->ops;
	sp->ops.read = sampler_read;
	sp->ops.alive = sampler_alive;
	sp->ops.detach = sampler_detach;
	t->ops = &sp->ops;
	sg_target_memory_changed(t);

	/* SIGCHLD wakes the waits for a stop (sampler-wait.c).  */
	sigset_t chld, old_mask;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	sg_sampler_resume_all(sp);
	run(sp);
	sg_sampler_stop_all(sp);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);

	t->ops = sp->live_ops;
	sg_target_memory_changed(t);
	sg_sampler_threads_fini(sp);
	sg_target_set_data(t, &sampler_key, NULL, NULL);
	sg_session_forget_stack(s);
	if (s->thread >= t->nthreads)
		s->thread = 0;
	err = sp->failed;
	sp->stats.threads = (unsigned)sp->nth;
	if (stats)
		*stats = sp->stats;
	sampler_free(sp);
	return err;
}
