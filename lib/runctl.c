/* Run control: resume a stopped live target until a signal, an exit or
   the user's interrupt stops it again (gdb's continue), kill it, and the
   process-wide interrupt flag that Ctrl-C sets.

   The target stays seized while it runs, so nothing is written into it:
   no breakpoint, no signal of ours.  An interrupt stops every thread
   with PTRACE_INTERRUPT.  A signal the process receives stops it, as in
   gdb, unless gdb lets that signal through silently (SIGALRM, SIGCHLD,
   ...); it is delivered when the target is resumed or detached, except
   SIGINT and SIGTRAP, which gdb keeps from the program.

   While the target runs every wait status is ours: waitpid(-1) reaps
   the threads' stops, the clone events that add threads, their exits
   and finally the leader's, which is the process's.  SIGCHLD is blocked
   meanwhile and waited for with a timeout, so that an interrupt (a
   signal handler setting the flag, which ends the wait with EINTR) is
   seen within a few milliseconds.  */
#include <config.h>
#include "elfcore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <elf.h>
#include <time.h>
#include <unistd.h>

/* ---- the interrupt flag ---- */

static volatile sig_atomic_t interrupt_flag;

void sg_interrupt_request(void)
{
	interrupt_flag = 1;
}

bool sg_interrupt_pending(void)
{
	return interrupt_flag != 0;
}

void sg_interrupt_clear(void)
{
	interrupt_flag = 0;
}

struct sg_error *sg_interrupt_error(void)
{
	return sg_error_create(SG_ERROR_OTHER, "Quit");
}

bool sg_error_is_interrupt(const struct sg_error *err)
{
	return err && sg_error_code(err) == SG_ERROR_OTHER && !strcmp(sg_error_message(err), "Quit");
}

/* ---- the threads while the target runs ---- */

/* One thread of the running target.  */
struct rthread {
	pid_t tid;
	int pending;		/* a signal to deliver when it resumes */
	char state;		/* the scheduler's letter just before our stop */
	bool stopped;		/* in a ptrace-stop we have not resumed */
	bool gone;		/* its exit was reaped */
	bool listening;		/* in a group stop (SIGSTOP): resumed with PTRACE_LISTEN */
	bool fresh;		/* new: its first stop not seen yet */
	bool known;		/* in the target's list before the resume */
	size_t old_index;	/* then, its index there */
};

struct run {
	struct sg_target *t;
	struct rthread *th;
	size_t n, cap;
	bool stopping;		/* every thread is being stopped */
	bool exited;		/* the process's exit was reaped */
	int exit_status;
	/* The last thread's exit: the process's when its leader is not
	   ours to wait for (it called pthread_exit before the attach, and
	   is its parent's zombie).  */
	bool any_exit;
	int last_status;
	pid_t signal_tid;	/* the thread whose signal stopped the target */
	int signal;
	struct sg_error *failed;
};

/* gdb's signals that neither stop nor print, only pass to the program
   ("info signals"), and glibc's internal real-time signals (32 for
   thread cancellation, 33 for setxid), which gdb does not stop for
   either.  */
static bool silent_signal(int sig)
{
	switch (sig) {
	case SIGALRM: case SIGURG: case SIGCHLD: case SIGIO: case SIGVTALRM:
	case SIGPROF: case SIGWINCH: case 32: case 33:
		return true;
	default:
		return false;
	}
}

/* gdb keeps these from the program (its "handle ... nopass").  */
static bool passed_signal(int sig)
{
	return sig != SIGINT && sig != SIGTRAP;
}

static bool group_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static struct rthread *find(struct run *r, pid_t tid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->th[i].tid == tid)
			return &r->th[i];
	return NULL;
}

static struct rthread *add(struct run *r, pid_t tid)
{
	struct rthread *th = sg_array_push(&r->th, &r->n, &r->cap, sizeof(*th));
	if (!th) {
		r->failed = &sg_enomem;
		return NULL;
	}
	*th = (struct rthread){ .tid = tid, .state = 'R', .fresh = true };
	return th;
}

/* The scheduler state letter of TID, '?' if unknown.  */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	const char *close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] ? close_paren[2] : '?';
}

static void read_comm(pid_t pid, struct sg_thread *thread)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)thread->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, thread->name, sizeof(thread->name) - 1) : -1;
	if (fd >= 0)
		close(fd);
	thread->name[n > 0 ? n : 0] = '\0';
	thread->name[strcspn(thread->name, "\n")] = '\0';
}

static void resume(struct rthread *th)
{
	if (!th->stopped || th->gone)
		return;
	long rc = -1;
	if (th->listening)
		rc = ptrace(PTRACE_LISTEN, th->tid, 0, 0);
	if (rc < 0)
		rc = ptrace(PTRACE_CONT, th->tid, 0, (void *)(long)th->pending);
	/* ESRCH: it is being killed, and its exit will be reported.  */
	if (rc == 0 || errno == ESRCH) {
		th->stopped = false;
		th->pending = 0;
	}
}

/* Stop every thread still running: each enters its stop while the next
   is interrupted; the waits come later.  */
static void stop_all(struct run *r)
{
	r->stopping = true;
	for (size_t i = 0; i < r->n; i++) {
		struct rthread *th = &r->th[i];
		if (th->gone || th->stopped)
			continue;
		th->state = task_state(r->t->pid, th->tid);
		/* ESRCH: it is exiting, and the wait reaps it; or it is no
		   more, without an exit to reap: a thread that called exec
		   took the leader's ID, and no stop would ever come.  */
		if (ptrace(PTRACE_INTERRUPT, th->tid, 0, 0) < 0 && errno == ESRCH &&
		    th->state == '?' && th->tid != r->t->pid)
			th->gone = true;
	}
}

static void handle_exit(struct run *r, struct rthread *th, pid_t tid, int status)
{
	if (th) {
		th->gone = true;
		th->stopped = false;
	}
	r->any_exit = true;
	r->last_status = status;
	/* The leader's exit is reported last: it is the process's.  */
	if (tid == r->t->pid) {
		r->exited = true;
		r->exit_status = status;
	}
}

static void handle_clone(struct run *r, struct rthread *parent)
{
	unsigned long child;
	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0, &child) < 0 || find(r, (pid_t)child))
		return;
	add(r, (pid_t)child);
}

/* The wait status STATUS of TID.  */
static void handle_status(struct run *r, pid_t tid, int status)
{
	struct rthread *th = find(r, tid);
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		handle_exit(r, th, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (!th) {
		/* A new thread whose first stop came before its parent's
		   clone event.  */
		if (!(th = add(r, tid)))
			return;
	}
	th->stopped = true;
	int event = status >> 16, sig = WSTOPSIG(status);
	if (event == PTRACE_EVENT_CLONE) {
		handle_clone(r, th);
		th = find(r, tid);	/* the array may have moved */
	} else if (event == PTRACE_EVENT_STOP) {
		if (th->fresh) {
			/* A new thread starts in a stop of its own.  */
			th->fresh = false;
			th->state = 'R';
		} else if (group_stop_signal(sig)) {
			/* The process stopped itself (SIGSTOP passed on):
			   it stays stopped, as it asked.  */
			th->listening = true;
			if (!r->stopping) {
				th->state = 'T';
				resume(th);
			}
			return;
		}
	} else if (event == 0) {
		if (!r->stopping && silent_signal(sig)) {
			th->pending = sig;
			resume(th);
			return;
		}
		/* SIGCONT ends a group stop; a later one is not to listen.  */
		if (sig == SIGCONT)
			for (size_t i = 0; i < r->n; i++)
				r->th[i].listening = false;
		th->pending = passed_signal(sig) ? sig : 0;
		if (!r->stopping) {
			r->signal_tid = tid;
			r->signal = sig;
			th->state = task_state(r->t->pid, tid);
			if (th->state == 't')
				th->state = 'R';
			stop_all(r);
			return;
		}
	}
	if (!r->stopping)
		resume(th);
}

static bool all_stopped(const struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->th[i].gone && !r->th[i].stopped)
			return false;
	return true;
}

static bool all_gone(const struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->th[i].gone)
			return false;
	return true;
}

/* Wait for the target to stop or exit.  */
static void wait_run(struct run *r)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* At most this long between looks at the interrupt flag, when a
	   signal came just before the wait began.  */
	static const struct timespec tick = { 0, 10 * 1000 * 1000 };
	while (!r->exited && !r->failed) {
		if (!r->stopping && sg_interrupt_pending()) {
			sg_interrupt_clear();
			stop_all(r);
		}
		int status;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid > 0) {
			handle_status(r, tid, status);
			continue;
		}
		if (tid < 0 && errno == ECHILD) {
			/* Nothing of ours is left: the leader is not ours to
			   wait for, and the last thread's exit is the
			   process's.  (A fatal signal to such a process kills
			   it at once, without a stop: the leader, which the
			   kernel asks, is not traced.)  */
			r->exited = true;
			r->exit_status = r->any_exit ? r->last_status : 0;
			break;
		}
		if (r->stopping && all_stopped(r) && !all_gone(r))
			break;
		sigtimedwait(&chld, NULL, &tick);
	}
}

/* After an exit: the threads still listed are gone with the process.  */
static void finish_exit(struct run *r)
{
	struct sg_target *t = r->t;
	/* Threads whose exits were not reaped yet (the leader is reaped
	   after them): a bounded wait, as the detach's.  */
	for (size_t i = 0; i < r->n; i++) {
		struct rthread *th = &r->th[i];
		for (int k = 0; !th->gone && k < 200; k++) {
			int status;
			pid_t got = waitpid(th->tid, &status, __WALL | WNOHANG);
			if (got == th->tid && (WIFEXITED(status) || WIFSIGNALED(status)))
				th->gone = true;
			else if (got < 0)
				th->gone = true;
			else
				usleep(1000);
		}
	}
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].seized = t->threads[i].stopped = false;
	t->gone = true;
	t->gone_status = r->exit_status;
	if (t->stop_start_ns && !t->stop_end_ns)
		t->stop_end_ns = sg_now_ns();
}

static bool read_regs(pid_t tid, struct sg_regs *regs)
{
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return false;
	memset(regs, 0, sizeof(*regs));
	sg_regs_from_user(regs, &u);
	return true;
}

/* Whether TID blocks SIGINT (its SigBlk in /proc).  */
static bool blocks_sigint(pid_t pid, pid_t tid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *p = strstr(buf, "SigBlk:");
	if (!p)
		return false;
	unsigned long long mask = strtoull(p + 7, NULL, 16);
	return (mask >> (SIGINT - 1)) & 1;
}

/* Make the target's thread list what the run left: exited threads
   dropped, new ones added (at the end, as gdb numbers them), every one
   stopped with its registers.  */
static struct sg_error *finish_stop(struct run *r, struct sg_session *s)
{
	struct sg_target *t = r->t;
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += !r->th[i].gone;
	struct sg_thread *threads = calloc(n ? n : 1, sizeof(*threads));
	if (!threads)
		return &sg_enomem;
	pid_t selected_tid = 0;
	if (s->thread < t->nthreads)
		selected_tid = t->threads[s->thread].tid;
	size_t k = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct rthread *th = &r->th[i];
		if (th->gone)
			continue;
		struct sg_thread *thread = &threads[k];
		if (th->known)
			*thread = t->threads[th->old_index];
		else {
			thread->tid = th->tid;
			thread->auto_attached = true;
		}
		read_comm(t->pid, thread);
		thread->state = th->listening ? 'T' : th->state;
		thread->pending_signal = th->pending;
		thread->seized = thread->stopped = true;
		thread->index = k;
		if (!read_regs(th->tid, &thread->regs)) {
			/* Killed since its stop: the next command says so.  */
			memset(&thread->regs, 0, sizeof(thread->regs));
		}
		k++;
	}
	free(t->threads);
	t->threads = threads;
	t->nthreads = t->threads_cap = k;

	/* The thread to show: the one a signal stopped; for an interrupt,
	   the one SIGINT would have reached, as gdb's Ctrl-C stops the
	   program with it (the leader unless it blocks it), else the one
	   selected before.  */
	pid_t show = r->signal_tid;
	for (size_t i = 0; !show && i < k; i++)
		if (!blocks_sigint(t->pid, threads[i].tid))
			show = threads[i].tid;
	if (!show)
		show = selected_tid;
	s->thread = 0;
	for (size_t i = 0; i < k; i++)
		if (threads[i].tid == show)
			s->thread = i;
	t->stop_start_ns = sg_now_ns();
	t->stop_end_ns = 0;
	return NULL;
}

static struct sg_error *check_live(struct sg_session *s, struct sg_target **ret)
{
	struct sg_target *t = s->target;
	if (!t || t->kind != SG_TARGET_LIVE)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	if (t->snapshot)
		return sg_error_format(SG_ERROR_TARGET,
				       "process %d runs on untraced since its snapshot was taken: "
				       "detach, then attach %d to control it",
				       (int)t->pid, (int)t->pid);
	*ret = t;
	return NULL;
}

/* Report the exit of a target found gone before it could be resumed.  */
static void gone_event(struct sg_session *s, struct sg_target *t, struct sg_run_event *ev)
{
	int st = t->gone_status;
	ev->pid = t->pid;
	s->exit_known = true;
	if (WIFSIGNALED(st)) {
		ev->kind = SG_RUN_SIGNALED;
		ev->signal = WTERMSIG(st);
		s->exit_code = -1;
		s->exit_signal = ev->signal;
	} else {
		ev->kind = SG_RUN_EXITED;
		ev->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
		s->exit_code = ev->exit_code;
		s->exit_signal = 0;
	}
}

bool sg_session_exit_status(struct sg_session *s, int *code, int *signal)
{
	*code = s->exit_code;
	*signal = s->exit_signal;
	return s->exit_known;
}

struct sg_error *sg_session_continue(struct sg_session *s, struct sg_run_event *ret)
{
	struct sg_target *t;
	struct sg_error *err = check_live(s, &t);
	if (err)
		return err;
	memset(ret, 0, sizeof(*ret));
	ret->pid = t->pid;
	/* A target that died while stopped (killed by SIGKILL): its exit,
	   as a resume would have found it.  */
	if (t->gone || !sg_target_alive(t)) {
		gone_event(s, t, ret);
		sg_session_release_gone(s);
		sg_error_destroy(sg_session_detach(s));
		return NULL;
	}

	struct run r = { .t = t };
	r.th = calloc(t->nthreads ? t->nthreads : 1, sizeof(*r.th));
	if (!r.th)
		return &sg_enomem;
	r.cap = t->nthreads ? t->nthreads : 1;
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sg_thread *thread = &t->threads[i];
		if (!thread->seized)
			continue;
		r.th[r.n++] = (struct rthread){
			.tid = thread->tid,
			.pending = thread->pending_signal,
			.state = thread->state,
			.stopped = true,
			/* A process stopped by SIGSTOP stays stopped.  */
			.listening = thread->state == 'T',
			.known = true,
			.old_index = i,
		};
		thread->pending_signal = 0;
	}

	/* What was read of the stopped process is stale once it runs.  */
	sg_session_memory_changed(s);
	sigset_t chld, old_mask;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	if (t->stop_start_ns && !t->stop_end_ns)
		t->stop_end_ns = sg_now_ns();
	for (size_t i = 0; i < r.n; i++)
		resume(&r.th[i]);
	wait_run(&r);
	struct sg_error *failed = r.failed;
	if (failed && !r.exited) {
		/* Out of memory while it ran: stop it all the same.  */
		r.failed = NULL;
		stop_all(&r);
		wait_run(&r);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);

	if (r.exited) {
		/* The session goes on without a target, as gdb's.  */
		finish_exit(&r);
		gone_event(s, t, ret);
		free(r.th);
		sg_error_destroy(sg_session_detach(s));
		return failed;
	}
	err = finish_stop(&r, s);
	if (!err) {
		/* A dlopen or an exec while it ran: the modules again.  Then
		   what the handlers find once per target (a runtime's
		   tables, which may have moved), as after an attach.  */
		sg_error_destroy(sg_target_refresh_modules(t));
		sg_session_memory_changed(s);
		sg_registry_prepare_target(s, t);
	}
	ret->kind = r.signal ? SG_RUN_SIGNAL : SG_RUN_INTERRUPTED;
	ret->signal = r.signal ? r.signal : SIGINT;
	ret->tid = r.signal_tid;
	free(r.th);
	if (err) {
		if (failed != err)
			sg_error_destroy(failed);
		return err;
	}
	return failed;
}

struct sg_error *sg_session_kill(struct sg_session *s, pid_t *pid_ret)
{
	struct sg_target *t = s->target;
	if (!t || t->kind != SG_TARGET_LIVE)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	if (t->snapshot)
		return sg_error_format(SG_ERROR_TARGET,
				       "process %d runs on untraced since its snapshot was taken; "
				       "spyglass does not kill it",
				       (int)t->pid);
	pid_t pid = t->pid;
	if (t->gone || !sg_target_alive(t)) {
		struct sg_error *err = sg_target_gone_error(t);
		sg_error_destroy(sg_session_detach(s));
		return err;
	}
	if (kill(pid, SIGKILL) < 0 && errno != ESRCH)
		return sg_error_os(errno, "cannot kill process %d", (int)pid);
	/* SIGKILL reaches stopped tracees: each thread exits, the leader
	   last.  Their zombies are ours to reap (the detach does it, a
	   bounded time).  */
	uint64_t deadline = sg_now_ns() + 2000000000ull;
	while (sg_target_alive(t) && sg_now_ns() < deadline)
		usleep(1000);
	sg_session_release_gone(s);
	sg_error_destroy(sg_session_detach(s));
	*pid_ret = pid;
	return NULL;
}
