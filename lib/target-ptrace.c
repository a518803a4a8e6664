/* The live-process target backend.

   Attaching seizes every thread with PTRACE_SEIZE and stops it with
   PTRACE_INTERRUPT before anything is read, so that registers and memory form
   one consistent snapshot.  PTRACE_SEIZE (unlike PTRACE_ATTACH) sends no
   SIGSTOP, so if spyglass dies the kernel's implicit detach lets the target
   run on instead of leaving it stopped.  PTRACE_O_TRACECLONE makes threads
   created during the attach traced as well; the task list is re-read until
   it stops growing.

   The stop is kept short (doc/pause.md): the task list, the names, the
   maps and the seizing are done while the process runs, then every thread
   is interrupted in one pass, then waited for, then its registers read.
   During the stop only /proc/PID/stat is read, to see whether a thread
   appeared that the list missed or the address space changed.

   A leader that called pthread_exit() while other threads run on is a
   zombie: it cannot be traced, and its /proc/PID/mem, maps and exe are
   empty.  It is left out, and the first live thread takes its place in
   front of the thread list; the process is read through that thread's
   /proc entry and tid (see via_tid, and proc_pid in target.c).  */
#include <config.h>
#include "elfcore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <elf.h>
#include <unistd.h>

/* Passes over /proc/PID/task while new threads keep appearing: a process
   that spawns threads in a tight loop must not keep us here forever.  */
#define MAX_ATTACH_ROUNDS 64

static void read_small_file(const char *path, char *buf, size_t size)
{
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/* The "TracerPid:" or "Tgid:" field of /proc/PID[/task/TID]/status.  */
static long status_field(pid_t pid, pid_t tid, const char *field)
{
	char path[64], buf[4096];
	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	read_small_file(path, buf, sizeof(buf));
	const char *p = strstr(buf, field);
	if (!p)
		return -1;
	return strtol(p + strlen(field), NULL, 10);
}

/* Name and state from /proc/PID/task/TID/stat: "tid (comm) S ...".  The comm
   may itself contain ") ", so search from the end.  */
static void read_task_stat(pid_t pid, struct sg_thread *thread)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, thread->tid);
	read_small_file(path, buf, sizeof(buf));
	thread->state = '?';
	char *open = strchr(buf, '(');
	char *close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return;
	size_t len = close - open - 1;
	if (len >= sizeof(thread->name))
		len = sizeof(thread->name) - 1;
	memcpy(thread->name, open + 1, len);
	thread->name[len] = '\0';
	if (close[1] == ' ' && close[2])
		thread->state = close[2];
}

/* A thread of PID other than the leader that has not exited, or 0.  */
static pid_t live_task(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	pid_t found = 0;
	struct dirent *de;
	while (!found && (de = readdir(dir))) {
		struct sg_thread probe = { .tid = strtol(de->d_name, NULL, 10) };
		if (probe.tid <= 0 || probe.tid == pid)
			continue;
		read_task_stat(pid, &probe);
		if (probe.state != 'Z' && probe.state != 'X' && probe.state != '?')
			found = probe.tid;
	}
	closedir(dir);
	return found;
}

/* Whether PID's leader has exited by itself (pthread_exit) while other
   threads live on.  */
static bool leader_exited_alone(pid_t pid)
{
	struct sg_thread probe = { .tid = pid };
	read_task_stat(pid, &probe);
	return probe.state == 'Z' && live_task(pid);
}

/* The thread that stands for the process in /proc and in memory reads:
   the first listed, which is the leader unless it exited alone.  */
static pid_t via_tid(const struct sg_target *t)
{
	return t->nthreads ? t->threads[0].tid : t->pid;
}

static struct sg_error *attach_error(pid_t pid, int errnum)
{
	if (errnum == ESRCH)
		return sg_error_format(SG_ERROR_TARGET,
				       "cannot attach to process %d: No such process", pid);
	if (errnum == EPERM) {
		struct sg_thread probe = { .tid = pid };
		read_task_stat(pid, &probe);
		if (probe.state == 'Z' || probe.state == 'X')
			return sg_error_format(SG_ERROR_TARGET,
					       "cannot attach to process %d: it has exited (a zombie not yet reaped by its parent)",
					       pid);
		long tracer = status_field(pid, 0, "TracerPid:");
		if (tracer > 0) {
			char path[64], comm[64];
			snprintf(path, sizeof(path), "/proc/%ld/comm", tracer);
			read_small_file(path, comm, sizeof(comm));
			comm[strcspn(comm, "\n")] = '\0';
			return sg_error_format(SG_ERROR_TARGET,
					       "cannot attach to process %d: already traced by process %ld (%s)",
					       pid, tracer, comm[0] ? comm : "?");
		}
		if (pid == getpid())
			return sg_error_format(SG_ERROR_TARGET,
					       "cannot attach to process %d: that is spyglass itself",
					       pid);
		char scope[16];
		read_small_file("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope));
		scope[strcspn(scope, "\n")] = '\0';
		return sg_error_format(SG_ERROR_TARGET,
				       "cannot attach to process %d: Operation not permitted "
				       "(kernel.yama.ptrace_scope is %s; attaching needs the same user "
				       "and ptrace_scope 0, or CAP_SYS_PTRACE)",
				       pid, scope[0] ? scope : "not set");
	}
	return sg_error_os(errnum, "cannot attach to process %d", pid);
}

static struct sg_thread *add_thread(struct sg_target *t, pid_t tid)
{
	struct sg_thread *th = sg_array_push(&t->threads, &t->nthreads, &t->threads_cap,
					     sizeof(*th));
	if (th)
		th->tid = tid;
	return th;
}

static struct sg_thread *find_thread(struct sg_target *t, pid_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

/* Seize TH, without stopping it: the stops come all at once, in
   interrupt_threads.  Returns 0, or an errno.  */
static int seize_one(struct sg_target *t, struct sg_thread *th)
{
	if (ptrace(PTRACE_SEIZE, th->tid, 0, (void *)(long)PTRACE_O_TRACECLONE) < 0) {
		int e = errno;
		/* A thread created during the attach may have been
		   auto-attached to us through PTRACE_O_TRACECLONE.  */
		if (e == EPERM && status_field(t->pid, th->tid, "TracerPid:") == getpid())
			th->seized = th->auto_attached = true;
		return th->seized ? 0 : e;
	}
	th->seized = true;
	return 0;
}

/* One pass over /proc/PID/task: note the new threads, read their names
   and states (before stopping them, to keep the pause short), then seize
   them.  Sets *ADDED to the number of new threads.  */
static struct sg_error *seize_pass(struct sg_target *t, size_t *added)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	DIR *dir = opendir(path);
	if (!dir)
		return attach_error(t->pid, errno == ENOENT ? ESRCH : errno);
	*added = 0;
	size_t first_new = t->nthreads;
	struct dirent *de;
	while ((de = readdir(dir))) {
		pid_t tid = strtol(de->d_name, NULL, 10);
		if (tid <= 0 || find_thread(t, tid) || (tid == t->pid && via_tid(t) != tid))
			continue;	/* known, or the leader that exited alone */
		struct sg_thread *th = add_thread(t, tid);
		if (!th) {
			closedir(dir);
			return &sg_enomem;
		}
		read_task_stat(t->pid, th);
	}
	closedir(dir);
	size_t n = first_new;
	for (size_t i = first_new; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		int e = seize_one(t, th);
		if (e == ESRCH) {
			/* It exited meanwhile.  Seized before it died, it is
			   ours to reap: kept, wait_stop sees its exit.  */
			if (th->seized)
				t->threads[n++] = *th;
			continue;
		}
		if (e == EPERM && th->tid != t->pid) {
			/* A thread that cannot be seized while its leader
			   could is exiting (an exec kills all but one, churn
			   ends them), unless another tracer holds it: only
			   then is the attach refused.  Reading the leader's
			   tracer would name spyglass itself.  */
			long tracer = status_field(t->pid, th->tid, "TracerPid:");
			if (tracer == getpid()) {
				th->seized = th->auto_attached = true;
				t->threads[n++] = *th;
				continue;
			}
			if (tracer <= 0)
				continue;
		}
		if (e) {
			if (th->seized)
				t->threads[n++] = *th;
			t->nthreads = n;
			return attach_error(t->pid, e);
		}
		t->threads[n++] = *th;
		(*added)++;
	}
	t->nthreads = n;
	return NULL;
}

/* Reap the threads that stopped for us and were killed since: a thread's
   exec kills every other thread, and waits until each is released, which
   for a traced thread is when its tracer reaps it.  Until then the exec
   cannot finish and the thread doing it never stops.  */
static void reap_killed(struct sg_target *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		int status;
		if (th->seized && th->stopped && th->tid != t->pid &&
		    waitpid(th->tid, &status, __WALL | WNOHANG) == th->tid &&
		    (WIFEXITED(status) || WIFSIGNALED(status)))
			th->seized = th->stopped = false;
	}
}

/* The leader's exit is reported only once every other traced thread has
   been reaped, including threads that died before we knew them.  While
   waiting for it, reap what exited, and give up after 10 s.  A leader
   that exited alone (pthread_exit) during the attach is not reported
   while the others live: after 100 ms of that, fail with ECHILD.  */
static pid_t wait_leader(struct sg_target *t, int *status)
{
	for (int i = 0; i < 11000; i++) {
		pid_t r = waitpid(t->pid, status, __WALL | WNOHANG);
		if (r != 0)
			return r;
		struct sg_thread probe = { .tid = t->pid };
		read_task_stat(t->pid, &probe);
		if (probe.state == 'Z' || probe.state == 'X' || probe.state == '?') {
			int st;
			while (waitpid(-1, &st, __WALL | WNOHANG) > 0)
				;
			if (i >= 1100 && leader_exited_alone(t->pid)) {
				errno = ECHILD;
				return -1;
			}
		}
		if (i >= 20 && i % 10 == 0)
			reap_killed(t);
		/* The stop is usually a few microseconds away: yield
		   first, sleep only once it is late.  */
		if (i < 1000)
			sched_yield();
		else
			usleep(1000);
	}
	errno = ETIMEDOUT;
	return -1;
}

/* Wait until TH is in a ptrace-stop.  Returns false if it exited.  A
   clone event adds a thread, which may move the array TH is in: callers
   find TH again by its index.  */
static bool wait_stop(struct sg_target *t, struct sg_thread *th, bool auto_attached)
{
	size_t index = th - t->threads;
	for (;;) {
		int status;
		pid_t r = th->tid == t->pid ? wait_leader(t, &status) : waitpid(th->tid, &status, __WALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (th->tid == t->pid) {
				t->gone = true;
				t->gone_status = status;
			}
			return false;
		}
		if (!WIFSTOPPED(status))
			continue;
		int event = status >> 16;
		int sig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_CLONE) {
			unsigned long child;
			if (ptrace(PTRACE_GETEVENTMSG, th->tid, 0, &child) == 0 &&
			    !find_thread(t, child)) {
				struct sg_thread *c = add_thread(t, child);
				if (c) {
					c->seized = c->auto_attached = true;
					c->state = 'R';
				}
				th = &t->threads[index];
			}
			th->stopped = true;
			return true;
		}
		if (event == 0 && !(auto_attached && sig == SIGSTOP))
			th->pending_signal = sig;	/* re-sent at detach */
		th->stopped = true;
		return true;
	}
}

static struct sg_error *read_regs(struct sg_thread *th)
{
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_PRSTATUS, &iov) < 0)
		return sg_error_os(errno, "cannot read the registers of thread %d", th->tid);
	sg_regs_from_user(&th->regs, &u);
	return NULL;
}

static bool ptrace_alive(struct sg_target *t)
{
	if (t->gone)
		return false;
	/* Every thread is stopped, so a thread that exits means the process
	   was killed (SIGKILL reaches stopped tracees).  Reap our tracees'
	   exits: the leader's is reported only after the other threads have
	   been reaped.  First a look, which reaps nothing, at whether any
	   child has an exit to report: usually none has, and one system
	   call then answers for every thread (65 waitpid calls took 65 us
	   of every command, and most of "maintenance time-unwind").  */
	siginfo_t si = { 0 };
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 && si.si_pid == 0)
		goto signal_check;
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		if (!th->seized)
			continue;
		int status;
		pid_t r = waitpid(th->tid, &status, WNOHANG | __WALL);
		if (r == th->tid && (WIFEXITED(status) || WIFSIGNALED(status))) {
			th->seized = false;
			if (!t->gone || WIFSIGNALED(status))
				t->gone_status = status;
			t->gone = true;
		} else if (r < 0 && errno == ECHILD) {
			th->seized = false;
			t->gone = true;
		}
	}
signal_check:
	if (!t->gone && kill(t->pid, 0) < 0 && errno == ESRCH)
		t->gone = true;
	return !t->gone;
}

static struct sg_error *ptrace_read(struct sg_target *t, uint64_t address, void *buf,
				    size_t size)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = -1;
		int e = 0;
		if (!t->no_vm_readv) {
			struct iovec local = { (char *)buf + done, size - done };
			struct iovec remote = { (void *)(uintptr_t)(address + done), size - done };
			n = process_vm_readv(via_tid(t), &local, 1, &remote, 1, 0);
			e = errno;
			if (n < 0 && (e == ENOSYS || e == EPERM)) {
				t->no_vm_readv = true;	/* e.g. seccomp: use /proc/PID/mem */
				continue;
			}
		} else {
			if (t->mem_fd < 0) {
				char path[64];
				snprintf(path, sizeof(path), "/proc/%d/mem", via_tid(t));
				t->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
				if (t->mem_fd < 0)
					return sg_error_os(errno, "cannot open %s", path);
			}
			n = pread(t->mem_fd, (char *)buf + done, size - done,
				  (off_t)(address + done));
			e = errno;
		}
		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && e == EINTR)
			continue;
		if ((n < 0 && e == ESRCH) || !ptrace_alive(t))
			return sg_target_gone_error(t);
		/* A short read stops at the first unreadable page.  */
		return sg_error_fault(address + done, size - done, n == 0 ? EIO : e);
	}
	return NULL;
}

/* Whether TID, which we trace and which could not be detached, is gone
   for good: reaped now, or no longer ours.  */
static bool reap(struct sg_target *t, pid_t tid)
{
	int status;
	pid_t r = waitpid(tid, &status, __WALL | WNOHANG);
	if (r == tid || (r < 0 && errno == ECHILD))
		return true;
	long tracer = status_field(t->pid, tid, "TracerPid:");
	return tracer != getpid();
}

static void ptrace_detach(struct sg_target *t)
{
	/* A thread that the kernel killed while we held it (the process
	   got SIGTERM or SIGKILL) cannot be detached, and dies as a zombie
	   that only its tracer may reap: if we do not, it stays one as
	   long as spyglass runs, and the process cannot be reaped by its
	   parent.  Such threads are waited for, a bounded time.  */
	pid_t *dying = calloc(t->nthreads ? t->nthreads : 1, sizeof(*dying));
	size_t ndying = 0;
	for (size_t i = 0; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		if (th->seized && ptrace(PTRACE_DETACH, th->tid, 0, (void *)(long)th->pending_signal) < 0 &&
		    errno == ESRCH && dying)
			dying[ndying++] = th->tid;
		th->seized = false;
	}
	for (int round = 0; ndying && round < 200; round++) {
		size_t n = 0;
		for (size_t i = 0; i < ndying; i++)
			if (!reap(t, dying[i]))
				dying[n++] = dying[i];
		ndying = n;
		if (ndying)
			usleep(1000);
	}
	free(dying);
	if (t->stop_start_ns && !t->stop_end_ns)
		t->stop_end_ns = sg_now_ns();
	if (t->mem_fd >= 0) {
		close(t->mem_fd);
		t->mem_fd = -1;
	}
}

/* Only raw system calls: this runs in signal handlers.  */
static void ptrace_emergency_detach(struct sg_target *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].seized)
			ptrace(PTRACE_DETACH, t->threads[i].tid, 0,
			       (void *)(long)t->threads[i].pending_signal);
}

static const struct sg_target_ops ptrace_ops = {
	.read = ptrace_read,
	.alive = ptrace_alive,
	.detach = ptrace_detach,
	.emergency_detach = ptrace_emergency_detach,
};

/* Refuse a process that is not x86-64 before touching it: an i386
   program would be read with the 64-bit register layout (rip 0x6f and
   garbage frames).  The executable's ELF header says, through
   /proc/PID/exe, which works whatever its path in the process's mount
   namespace; if it cannot be read, the attach goes on and fails or not
   on its own.  */
static struct sg_error *check_machine(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	unsigned char h[20];
	ssize_t n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return NULL;
	uint16_t machine = (uint16_t)(h[18] | h[19] << 8);
	if (h[EI_CLASS] == ELFCLASS64 && machine == EM_X86_64)
		return NULL;
	return sg_error_format(SG_ERROR_TARGET,
			       "cannot attach to process %d: it is a %s program; spyglass "
			       "reads x86-64 processes only",
			       pid, h[EI_CLASS] == ELFCLASS32 && machine == EM_386 ? "32-bit (i386)"
			       : h[EI_CLASS] == ELFCLASS32			   ? "32-bit"
										   : "non-x86-64");
}

/* What /proc/PID/stat says of the process as a whole.  */
struct proc_counts {
	long threads;		/* its threads, including a zombie leader */
	unsigned long long vsize;	/* its address space's size */
	/* Where its main stack starts: an exec moves it (ASLR) even when
	   the new image's address space is the same size, as it is when a
	   program execs itself.  */
	unsigned long long startstack;
};

static bool read_proc_counts(pid_t via, struct proc_counts *ret)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", via);
	read_small_file(path, buf, sizeof(buf));
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return false;
	/* Field 3 is the state; num_threads is field 20, vsize 23,
	   startstack 28.  */
	char *end = (char *)p + 3;
	for (int field = 4; field <= 28; field++) {
		const char *q = end;
		unsigned long long v = strtoull(q, &end, 10);
		if (end == q)
			return false;
		if (field == 20)
			ret->threads = (long)v;
		else if (field == 23)
			ret->vsize = v;
		else if (field == 28)
			ret->startstack = v;
	}
	return true;
}

/* The threads the kernel counts for the process, if our list is whole:
   the seized ones, and a leader that exited alone (a zombie until the
   last thread exits).  */
static long expected_threads(const struct sg_target *t, pid_t pid)
{
	long n = 0;
	bool leader = false;
	for (size_t i = 0; i < t->nthreads; i++) {
		n += t->threads[i].seized;
		leader |= t->threads[i].seized && t->threads[i].tid == pid;
	}
	return n + !leader;
}

/* Interrupt the threads seized from FROM on, all of them before any
   wait: each enters its stop while the next is interrupted.  Threads
   auto-attached stop by themselves.  */
static struct sg_error *interrupt_threads(struct sg_target *t, size_t from)
{
	for (size_t i = from; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		if (!th->seized || th->auto_attached)
			continue;
		if (!t->stop_start_ns)
			t->stop_start_ns = sg_now_ns();
		/* ESRCH: it exited since it was seized, and the wait
		   reaps it.  */
		if (ptrace(PTRACE_INTERRUPT, th->tid, 0, 0) < 0 && errno != ESRCH)
			return attach_error(t->pid, errno);
	}
	return NULL;
}

/* Wait for the stops of the threads from FROM on; clone events may
   append threads as we go.  In the first pass (FROM 0) the leader comes
   after the threads seized so far: if the process is killed meanwhile,
   its exit is reported only once every other traced thread has been
   reaped, so waiting for it first would block for ever.  Threads its own
   clone event adds come last.  */
static struct sg_error *wait_threads(struct sg_target *t, size_t from, pid_t pid)
{
	size_t seized = t->nthreads;
	for (size_t k = from + 1; k <= t->nthreads; k++) {
		size_t i = from ? k - 1 : k < seized ? k : k == seized ? 0 : k - 1;
		if (i >= t->nthreads)
			break;
		struct sg_thread *th = &t->threads[i];
		if (!th->seized || th->stopped)
			continue;
		bool stopped = wait_stop(t, th, th->auto_attached);
		th = &t->threads[i];
		if (!stopped) {
			th->seized = false;
			/* The leader may exit alone during the attach: it is
			   left out then, still traced (it cannot be detached)
			   until spyglass exits.  */
			if (th->tid == pid && !leader_exited_alone(pid))
				return sg_error_format(SG_ERROR_TARGET,
						       "process %d exited while being attached", pid);
			continue;
		}
		if (!th->name[0])
			read_task_stat(pid, th);
	}
	return NULL;
}

/* Read the registers of the threads from FROM on, and drop those that
   exited during the attach.  A stopped tracee vanishes only when it is
   killed: by a signal to the process, or by a thread's exec, which kills
   every other thread (even stopped ones) before it stops in turn.  Only
   the first means the process is gone: *KILLED says so.  */
static struct sg_error *read_all_regs(struct sg_target *t, size_t from, pid_t pid, bool *killed)
{
	for (size_t i = from; i < t->nthreads; i++) {
		struct sg_thread *th = &t->threads[i];
		if (!th->seized)
			continue;
		struct sg_error *err = read_regs(th);
		if (!err)
			continue;
		if (sg_error_errno(err) != ESRCH)
			return err;
		sg_error_destroy(err);
		if (th->tid == pid) {
			*killed = true;
			return NULL;
		}
		int status;
		waitpid(th->tid, &status, __WALL | WNOHANG);	/* its zombie is ours */
		th->seized = false;
	}
	return NULL;
}

/* Stop every seized thread and read its registers.  Then, if the
   kernel counts threads we do not know (created while we seized, by a
   thread not seized yet), list them again and stop those too.  The maps
   are read again if the address space changed size since BEFORE.  */
static struct sg_error *stop_threads(struct sg_target *t, pid_t pid,
				     const struct proc_counts *before, bool *counted)
{
	size_t from = 0;
	bool killed = false;
	struct proc_counts now;
	bool have_now = false;
	for (int round = 0;; round++) {
		struct sg_error *err = interrupt_threads(t, from);
		if (!err)
			err = wait_threads(t, from, pid);
		if (!err)
			err = read_all_regs(t, from, pid, &killed);
		if (err)
			return err;
		if (killed)
			break;
		from = t->nthreads;
		have_now = read_proc_counts(via_tid(t), &now);
		if ((have_now && now.threads == expected_threads(t, pid)) ||
		    round + 1 >= MAX_ATTACH_ROUNDS)
			break;
		size_t added;
		err = seize_pass(t, &added);
		if (err)
			return err;
		if (t->nthreads == from)
			break;	/* nothing new: a zombie not reaped yet */
	}
	*counted = *counted && have_now && now.vsize == before->vsize &&
		   now.startstack == before->startstack;

	size_t n = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].seized)
			t->threads[n++] = t->threads[i];
	t->nthreads = n;
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].index = i;
	if (killed || !n)
		return sg_error_format(SG_ERROR_TARGET, "process %d exited while being attached", pid);
	return NULL;
}

struct sg_error *sg_ptrace_attach(pid_t pid, void (*prewarm)(struct sg_target *t, void *arg),
				  void *arg, struct sg_target **ret)
{
	if (pid <= 0)
		return sg_error_format(SG_ERROR_USAGE, "invalid process ID %d", pid);
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return attach_error(pid, ESRCH);
	long tgid = status_field(pid, 0, "Tgid:");
	if (tgid > 0 && tgid != pid)
		pid = tgid;	/* a thread ID: take its whole process, as gdb does */

	/* A leader that exited alone is left out: a live thread stands for
	   the process from the start.  */
	pid_t via = pid;
	if (leader_exited_alone(pid))
		via = live_task(pid) ?: pid;
	struct sg_error *err = check_machine(via);
	if (err)
		return err;

	struct sg_target *t = calloc(1, sizeof(*t));
	if (!t)
		return &sg_enomem;
	t->kind = SG_TARGET_LIVE;
	t->cache_debug = true;
	t->ops = &ptrace_ops;
	t->pid = pid;
	t->mem_fd = -1;
	/* For tests and for kernels where process_vm_readv misbehaves: read
	   through /proc/PID/mem from the start.  */
	const char *reader = getenv("SPYGLASS_MEMORY_READER");
	t->no_vm_readv = reader && !strcmp(reader, "procfs");

	char path[64], exe[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", via);
	ssize_t len = readlink(path, exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		t->exe = strdup(exe);
	}

	/* The leader first, so that it is thread 1 as in gdb.  */
	struct sg_thread *leader = add_thread(t, via);
	if (!leader) {
		err = &sg_enomem;
		goto fail;
	}

	/* Report the modules before anything is stopped: opening ELF files
	   and reading the maps need no stop, and the pause is what the
	   target's users feel.  The maps are checked again after the stop.  */
	err = sg_target_load_modules(t);
	if (err) {
		sg_error_destroy(err);	/* retried after the stop */
		err = NULL;
	} else {
		if (prewarm)
			prewarm(t, arg);
		/* Pages read from the running process are stale now.  */
		sg_page_cache_destroy(t->pages);
		t->pages = NULL;
	}

	read_task_stat(pid, leader);
	int e = seize_one(t, leader);
	/* The thread standing for a leader that exited alone may exit in
	   turn: another takes its place.  */
	for (int i = 0; e == ESRCH && via != pid && i < MAX_ATTACH_ROUNDS; i++) {
		if (!(via = live_task(pid)))
			break;
		*leader = (struct sg_thread){ .tid = via };
		read_task_stat(pid, leader);
		e = seize_one(t, leader);
	}
	if (e) {
		if (!leader->seized)
			t->nthreads = 0;
		err = attach_error(pid, e);
		goto fail;
	}
	/* Seize every thread while the process runs: seizing stops
	   nothing, and once all are seized, the threads they create are
	   traced from the start.  */
	size_t added;
	int rounds = 0;
	do {
		err = seize_pass(t, &added);
		if (err)
			goto fail;
	} while (added && ++rounds < MAX_ATTACH_ROUNDS);

	/* The last look at the maps before the stop, parsed now: during it
	   only the size of the address space is checked again.  */
	struct proc_counts before;
	bool counted = read_proc_counts(via_tid(t), &before);
	if (t->dwfl) {
		err = sg_target_refresh_modules(t);
		if (err) {
			sg_error_destroy(err);	/* retried after the stop */
			err = NULL;
			counted = false;
		}
	}
	if (t->maps)
		sg_target_mapping_index(t, 0);
	/* Sleep a moment first: spyglass has run for a while (reading
	   the modules), and on a busy machine the scheduler would take its
	   CPU away at one of the wake-ups the stop causes, for another
	   process's time slice, with the target stopped.  Back from a
	   sleep it starts a fresh slice, which the scheduler (EEVDF's
	   RUN_TO_PARITY) does not cut short at wake-ups.  */
	usleep(1);

	err = stop_threads(t, pid, &before, &counted);
	if (err)
		goto fail;
	err = t->dwfl && !counted ? sg_target_refresh_modules(t) : NULL;
	if (err)
		goto fail;

	*ret = t;
	return NULL;

fail:
	sg_target_destroy(t);
	return err;
}

bool sg_thread_siginfo(struct sg_target *t, const struct sg_thread *th, siginfo_t *si)
{
	if (t->kind != SG_TARGET_LIVE || t->snapshot || t->gone || !th->seized || !th->stopped)
		return false;
	/* A PTRACE_INTERRUPT stop reads as SIGTRAP with PTRACE_EVENT_STOP:
	   no signal the thread received.  */
	if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, si) < 0 ||
	    (si->si_signo == SIGTRAP && si->si_code >> 8 == PTRACE_EVENT_STOP))
		return false;
	return true;
}
