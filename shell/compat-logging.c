/* "set logging enabled on": a copy of what spyglass writes, in a file.

   The commands write to stdout and their errors to stderr in many places
   (sg_out, FILE * formatters, readline), so the copy is taken below them
   all, at the file descriptors: 1 and 2 become pipes, and a thread copies
   what comes out of them to the terminal's descriptors and to the file.
   With "redirect", 1 and 2 are the file itself and no thread is needed.
   The thread drains stdout before stderr, so an error line lands after
   the output written (and flushed, see run.c) before it.  */
#include <config.h>
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static struct {
	bool active;
	bool thread;		/* the copying thread runs */
	int log_fd;
	int saved[2];		/* the descriptors 1 and 2 were, for the terminal */
	int pipe_rd[2];		/* what 1 and 2 now write into */
	pthread_t tid;
	int busy;		/* the thread holds bytes it read and has not written */
	int stop[2];		/* a byte in it tells the thread to end */
	FILE *terminal;		/* a stream on a copy of saved[0], for readline */
} lg = { .log_fd = -1, .saved = { -1, -1 }, .pipe_rd = { -1, -1 }, .stop = { -1, -1 } };

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* a closed terminal: the log still gets it */
		p += w;
		n -= (size_t)w;
	}
}

static void *copy_thread(void *arg)
{
	(void)arg;
	struct pollfd p[3] = { { .fd = lg.pipe_rd[0], .events = POLLIN },
			       { .fd = lg.pipe_rd[1], .events = POLLIN },
			       { .fd = lg.stop[0], .events = POLLIN } };
	char buf[8192];
	int open = 2;
	while (open) {
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* Told to end: what was written before is copied already
		   (compat_logging_stop syncs first); a child of "shell" that
		   still holds the pipe must not keep the thread.  */
		if (p[2].revents)
			break;
		/* stdout first: see the comment at the top.  */
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			/* Busy before the read: compat_logging_sync sees
			   either the bytes in the pipe or this flag.  */
			__atomic_store_n(&lg.busy, 1, __ATOMIC_SEQ_CST);
			ssize_t n = read(p[i].fd, buf, sizeof(buf));
			if (n > 0) {
				write_all(lg.saved[i], buf, (size_t)n);
				write_all(lg.log_fd, buf, (size_t)n);
			}
			__atomic_store_n(&lg.busy, 0, __ATOMIC_SEQ_CST);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				p[i].fd = -1;	/* poll ignores it from now on */
				open--;
			}
		}
	}
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void compat_logging_stop(void)
{
	if (!lg.active)
		return;
	fflush(stdout);
	fflush(stderr);
	compat_logging_sync();
	for (int i = 0; i < 2; i++)
		if (lg.saved[i] >= 0)
			dup2(lg.saved[i], i + 1);
	if (lg.thread) {
		while (write(lg.stop[1], "", 1) < 0 && errno == EINTR)
			;
		pthread_join(lg.tid, NULL);
	}
	lg.thread = false;
	for (int i = 0; i < 2; i++) {
		close_fd(&lg.saved[i]);
		close_fd(&lg.pipe_rd[i]);
		close_fd(&lg.stop[i]);
	}
	close_fd(&lg.log_fd);
	if (lg.terminal)
		fclose(lg.terminal);
	lg.terminal = NULL;
	lg.active = false;
}

static void stop_at_exit(void)
{
	compat_logging_stop();
}

/* Undo a half-made start; ERRNUM is the failure's.  */
static struct sg_error *start_failed(int errnum, const char *what, const char *file)
{
	for (int i = 0; i < 2; i++) {
		if (lg.saved[i] >= 0)
			dup2(lg.saved[i], i + 1);
		close_fd(&lg.saved[i]);
		close_fd(&lg.pipe_rd[i]);
		close_fd(&lg.stop[i]);
	}
	close_fd(&lg.log_fd);
	return sg_error_os(errnum, "%s %s", what, file);
}

struct sg_error *compat_logging_start(const char *file, bool overwrite, bool redirect)
{
	static bool registered;
	if (lg.active)
		return NULL;
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_APPEND), 0666);
	if (fd < 0)
		return sg_error_os(errno, "cannot open %s", file);
	fflush(stdout);
	fflush(stderr);
	lg.log_fd = fd;
	for (int i = 0; i < 2; i++)
		if ((lg.saved[i] = fcntl(i + 1, F_DUPFD_CLOEXEC, 3)) < 0)
			return start_failed(errno, "cannot log to", file);
	if (redirect) {
		for (int i = 0; i < 2; i++)
			if (dup2(fd, i + 1) < 0)
				return start_failed(errno, "cannot log to", file);
	} else {
		if (pipe2(lg.stop, O_CLOEXEC) < 0)
			return start_failed(errno, "cannot log to", file);
		for (int i = 0; i < 2; i++) {
			int p[2];
			if (pipe2(p, O_CLOEXEC) < 0)
				return start_failed(errno, "cannot log to", file);
			lg.pipe_rd[i] = p[0];
			int r = dup2(p[1], i + 1);
			close(p[1]);
			if (r < 0)
				return start_failed(errno, "cannot log to", file);
		}
		/* The thread takes no signal: they are the main thread's
		   (SIGINT at the prompt, the fatal ones that detach).  */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		int r = pthread_create(&lg.tid, NULL, copy_thread, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (r)
			return start_failed(r, "cannot log to", file);
		lg.thread = true;
	}
	int tfd = fcntl(lg.saved[0], F_DUPFD_CLOEXEC, 3);
	lg.terminal = tfd >= 0 ? fdopen(tfd, "w") : NULL;
	if (!lg.terminal && tfd >= 0)
		close(tfd);
	lg.active = true;
	if (!registered)
		registered = atexit(stop_at_exit) == 0;
	return NULL;
}

void compat_logging_sync(void)
{
	if (!lg.active || !lg.thread)
		return;
	fflush(stdout);
	fflush(stderr);
	/* At most a second: a terminal that does not read must not hang
	   the prompt.  */
	for (int i = 0; i < 1000; i++) {
		int pending = 0, n;
		for (int k = 0; k < 2; k++)
			if (lg.pipe_rd[k] >= 0 && ioctl(lg.pipe_rd[k], FIONREAD, &n) == 0)
				pending += n;
		if (!pending && !__atomic_load_n(&lg.busy, __ATOMIC_SEQ_CST))
			return;
		usleep(1000);
	}
}

bool compat_logging_active(void)
{
	return lg.active;
}

FILE *compat_logging_terminal(void)
{
	return lg.active && lg.terminal ? lg.terminal : stdout;
}
