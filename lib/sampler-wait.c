/* The recorded process's threads while it runs seized (sampler.h).

   Every wait status of a thread is handled here, whoever waits: a
   signal-delivery stop keeps its signal for the resume (the process gets
   it as if untraced), a group stop (SIGSTOP, SIGTSTP) is resumed with
   PTRACE_LISTEN so that the thread stays stopped as the process asked,
   a clone event adds the new thread, which starts in a stop of its own,
   an exit drops the thread; the leader's exit is the process's.  */
#include <config.h>
#include "sampler-impl.h"
#include "elfcore.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static bool add_thread(struct sampler *sp, pid_t tid, bool stopped)
{
	struct sg_target *t = sp->t;
	struct sthread *th = sg_array_push(&sp->th, &sp->nth, &sp->th_cap, sizeof(*th));
	if (!th)
		return false;
	struct sg_thread *thread = sg_array_push(&t->threads, &t->nthreads, &t->threads_cap,
						 sizeof(*thread));
	if (!thread) {
		sp->nth--;
		return false;
	}
	/* Stopping them all, the new thread's first stop is kept too.  */
	*th = (struct sthread){ .tid = tid, .stat_fd = -1, .stopped = stopped,
				.selected = sp->stopping, .born = !stopped,
				.window = FIRST_WINDOW };
	return true;
}

/* Whether a CPU is left for us while the target's threads run: we may
   then poll for a stop instead of sleeping.  Sleeping, our CPU idles, and
   the stop's wake-up must bring it back: about 40 us in a VM, where the
   stop itself takes 15, all of it with the target held.  With no CPU of
   our own, polling would keep the thread we wait for from running.  */
static bool cpu_to_spare(pid_t pid)
{
	cpu_set_t ours, theirs;
	if (sched_getaffinity(0, sizeof(ours), &ours) != 0)
		return false;
	if (CPU_COUNT(&ours) >= 2)
		return true;
	if (sched_getaffinity(pid, sizeof(theirs), &theirs) != 0)
		return false;
	CPU_AND(&theirs, &theirs, &ours);
	return CPU_COUNT(&theirs) == 0;
}

struct sg_error *sg_sampler_threads_init(struct sampler *sp)
{
	struct sg_target *t = sp->t;
	sp->spin = cpu_to_spare(t->pid);
	sp->th = calloc(t->nthreads ? t->nthreads : 1, sizeof(*sp->th));
	if (!sp->th)
		return &sg_enomem;
	sp->th_cap = t->nthreads ? t->nthreads : 1;
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sg_thread *thread = &t->threads[i];
		sp->th[sp->nth++] = (struct sthread){
			.tid = thread->tid,
			.stat_fd = -1,
			.gone = !thread->seized,
			.stopped = thread->seized,
			/* A process stopped by SIGSTOP stays stopped.  */
			.listening = thread->state == 'T',
			.pending = thread->pending_signal,
			.window = FIRST_WINDOW,
		};
		thread->pending_signal = 0;
	}
	return NULL;
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

static void handle_exit(struct sampler *sp, size_t i, int status)
{
	struct sthread *th = &sp->th[i];
	th->gone = true;
	th->stopped = false;
	if (th->stat_fd >= 0) {
		close(th->stat_fd);
		th->stat_fd = -1;
	}
	bool all = true;
	for (size_t k = 0; k < sp->nth && all; k++)
		all = sp->th[k].gone;
	if (th->tid == sp->t->pid || all) {
		sp->stats.exited = true;
		sp->stats.exit_status = status;
	}
}

/* A new thread, from the clone event of thread I.  */
static void handle_clone(struct sampler *sp, size_t i)
{
	unsigned long child;
	if (ptrace(PTRACE_GETEVENTMSG, sp->th[i].tid, 0, &child) < 0)
		return;
	for (size_t k = 0; k < sp->nth; k++)
		if (sp->th[k].tid == (pid_t)child)
			return;
	if (!add_thread(sp, (pid_t)child, false)) {
		sp->failed = &sg_enomem;
		return;
	}
	struct sg_thread *thread = &sp->t->threads[sp->t->nthreads - 1];
	thread->tid = (pid_t)child;
	thread->seized = thread->auto_attached = true;
	thread->state = 'R';
	read_comm(sp->t->pid, thread);
}

static void handle_status(struct sampler *sp, size_t i, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		handle_exit(sp, i, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sp->th[i].stopped = true;
	int event = status >> 16, sig = WSTOPSIG(status);
	switch (event) {
	case PTRACE_EVENT_CLONE:
		sp->th[i].skip = true;
		handle_clone(sp, i);
		break;
	case PTRACE_EVENT_STOP:
		/* A new thread's first stop is at the clone's return, with
		   nothing yet on its stack: never a sample.  */
		if (sp->th[i].born) {
			struct sg_regs regs;
			if (sg_sampler_read_regs(sp->th[i].tid, &regs) &&
			    sg_regs_has(&regs, SG_REG_RIP))
				sp->th[i].birth_pc = regs.r[SG_REG_RIP];
		}
		sp->th[i].born = false;
		/* A group stop reports the stopping signal; our interrupt,
		   a new thread's first stop and the end of a group stop
		   report SIGTRAP.  */
		sp->th[i].listening = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
				      sig == SIGTTOU;
		break;
	case 0:
		sp->th[i].pending = sig;	/* delivered at the resume */
		break;
	default:
		break;
	}
}

/* Handle what the threads other than I have to report, resuming those
   that no sample waits for.  */
static void drain_others(struct sampler *sp, size_t i)
{
	for (size_t j = 0; j < sp->nth; j++) {
		int status;
		while (j != i && !sp->th[j].gone &&
		       waitpid(sp->th[j].tid, &status, __WALL | WNOHANG) > 0) {
			handle_status(sp, j, status);
			if (!sp->th[j].selected)
				sg_sampler_resume(sp, j);
		}
	}
}

/* Waiting for one thread alone could block for ever: the leader's exit
   is reported only once every other thread's has been reaped.  So the
   wait is for SIGCHLD (blocked while recording: each state change of a
   tracee sends one), after which every thread's news is handled.  */
bool sg_sampler_wait_stopped(struct sampler *sp, size_t i)
{
	static const struct timespec tick = { 0, 10000000 };
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	bool drained = false;
	/* A stop comes within 20 us unless the thread waits for a CPU:
	   poll a little longer, then sleep and leave the CPU to it.  */
	uint64_t spin_end = sp->spin ? sg_now_ns() + SPIN_NS : 0;
	while (!sp->th[i].gone && !sp->th[i].stopped) {
		int status;
		pid_t r = waitpid(sp->th[i].tid, &status, __WALL | WNOHANG);
		if (r > 0) {
			handle_status(sp, i, status);
			continue;
		}
		if (r < 0 && errno != EINTR) {
			/* Not ours any more: reaped or detached by the kernel.  */
			handle_exit(sp, i, 0);
			break;
		}
		/* No sched_yield: on a busy machine it hands this CPU to
		   another process, and the thread stays stopped until we
		   get it back.  */
		if (spin_end && sg_now_ns() < spin_end)
			continue;
		if (drained)
			drain_others(sp, i);
		drained = sigtimedwait(&chld, NULL, &tick) == SIGCHLD || errno == EAGAIN;
	}
	return sp->th[i].stopped;
}

void sg_sampler_resume(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	if (!th->stopped || th->gone)
		return;
	long r = -1;
	if (th->listening)
		r = ptrace(PTRACE_LISTEN, th->tid, 0, 0);
	if (r < 0)
		r = ptrace(PTRACE_CONT, th->tid, 0, (void *)(long)th->pending);
	/* ESRCH: it is being killed, and its exit will be reported.  */
	if (r == 0 || errno == ESRCH) {
		th->stopped = false;
		th->pending = 0;
		th->skip = false;	/* what stops it next is not the event */
	}
}

void sg_sampler_resume_all(struct sampler *sp)
{
	for (size_t i = 0; i < sp->nth; i++)
		sg_sampler_resume(sp, i);
}

void sg_sampler_poll(struct sampler *sp)
{
	for (size_t i = 0; i < sp->nth; i++) {
		int status;
		while (!sp->th[i].gone && waitpid(sp->th[i].tid, &status, __WALL | WNOHANG) > 0) {
			handle_status(sp, i, status);
			sg_sampler_resume(sp, i);
		}
		if (sp->th[i].stopped)
			sg_sampler_resume(sp, i);
	}
}

void sg_sampler_stop_all(struct sampler *sp)
{
	sp->stopping = true;
	for (size_t i = 0; i < sp->nth; i++) {
		sp->th[i].selected = true;	/* stays stopped when it stops */
		/* What info threads shows, as an attach reads it.  */
		sp->th[i].state = sp->th[i].gone ? 'X' : sg_sampler_task_state(sp, i);
		if (!sp->th[i].gone && !sp->th[i].stopped)
			ptrace(PTRACE_INTERRUPT, sp->th[i].tid, 0, 0);
	}
	/* Threads that clone events add come last: each starts stopped.  */
	for (size_t i = 0; i < sp->nth; i++)
		sg_sampler_wait_stopped(sp, i);
}

char sg_sampler_task_state(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	if (th->stat_fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)sp->t->pid, (int)th->tid);
		th->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (th->stat_fd < 0)
			return '?';
	}
	char buf[512];
	ssize_t n = pread(th->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	const char *close = strrchr(buf, ')');
	return close && close[1] == ' ' && close[2] ? close[2] : '?';
}

bool sg_sampler_read_regs(pid_t tid, struct sg_regs *regs)
{
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return false;
	memset(regs, 0, sizeof(*regs));
	sg_regs_from_user(regs, &u);
	return true;
}

void sg_sampler_threads_fini(struct sampler *sp)
{
	struct sg_target *t = sp->t;
	for (size_t i = 0; i < sp->nth; i++) {
		struct sthread *th = &sp->th[i];
		struct sg_thread *thread = &t->threads[i];
		thread->seized = !th->gone;
		thread->stopped = th->stopped;
		thread->pending_signal = th->pending;
		thread->state = th->listening ? 'T' : th->state && th->state != '?' ? th->state : 'R';
		if (th->stopped)
			sg_sampler_read_regs(th->tid, &thread->regs);
	}
	if (sp->stats.exited) {
		t->gone = true;
		t->gone_status = sp->stats.exit_status;
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].seized)
			t->threads[n++] = t->threads[i];
	t->nthreads = n;
	for (size_t i = 0; i < n; i++)
		t->threads[i].index = i;
}
