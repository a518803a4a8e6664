/* fixture-threads: a target process for bench/run.sh.
 *
 * Usage: fixture-threads [DEPTH [NTHREADS]]
 *
 * Starts NTHREADS (default 64) threads.  Each recurses DEPTH (default 40)
 * frames deep through a non-inlined function and then blocks forever in one
 * of three ways, chosen round-robin: nanosleep, read() on a pipe nobody
 * writes to, or pthread_cond_wait() on a condition nobody signals.  Once
 * every thread is asleep in the kernel, prints "ready PID" on stdout and the
 * main thread waits forever in pause().  Kill it with any fatal signal.
 *
 * Built by bench/run.sh with "cc -O2 -pthread"; nothing here depends on
 * spyglass.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum block_kind { BLOCK_NANOSLEEP, BLOCK_READ, BLOCK_CONDWAIT, BLOCK_NKINDS };

static int pipe_fds[2];
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static atomic_int nstarted;
/* Never set.  The blocking loops test it only so that the compiler sees
   that block_forever() can return; otherwise it warns about recurse()
   recursing infinitely. */
static atomic_int released;

static void die(const char *what)
{
	fprintf(stderr, "fixture-threads: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void block_forever(enum block_kind kind)
{
	atomic_fetch_add(&nstarted, 1);
	switch (kind) {
	case BLOCK_NANOSLEEP:
		while (!atomic_load(&released)) {
			struct timespec ts = { .tv_sec = 3600 };
			nanosleep(&ts, NULL);
		}
		break;
	case BLOCK_READ:
		while (!atomic_load(&released)) {
			char c;
			/* Nobody writes and we keep the write end open: blocks. */
			if (read(pipe_fds[0], &c, 1) < 0 && errno != EINTR)
				die("read");
		}
		break;
	default:
		pthread_mutex_lock(&mutex);
		while (!atomic_load(&released))	/* nobody signals cond */
			pthread_cond_wait(&cond, &mutex);
		pthread_mutex_unlock(&mutex);
	}
}

/* noinline and the work after the recursive call keep -O2 from turning the
   recursion into a loop or a tail call, so the stack really has DEPTH
   frames of recurse(). */
__attribute__((noinline)) static int recurse(int depth, enum block_kind kind)
{
	volatile int frame_local = depth;

	if (depth <= 0)
		block_forever(kind);
	else
		frame_local += recurse(depth - 1, kind);
	return frame_local;
}

struct thread_arg {
	int depth;
	enum block_kind kind;
};

static void *thread_main(void *p)
{
	struct thread_arg *arg = p;

	recurse(arg->depth, arg->kind);
	return NULL;
}

/* True once every thread but the caller is in state S (interruptible sleep).
   The nstarted counter alone is not enough: a thread counts itself just
   before it enters the blocking call. */
static int all_threads_sleeping(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	pid_t self = gettid();
	int ok = 1;

	if (!d)
		die("opendir /proc/self/task");
	while (ok && (e = readdir(d))) {
		char path[300], buf[512], *rparen;
		FILE *f;

		if (e->d_name[0] == '.' || atoi(e->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* thread just exited: cannot happen here */
		/* The state follows the last ')' (the comm may contain one). */
		if (!fgets(buf, sizeof(buf), f) || !(rparen = strrchr(buf, ')')) ||
		    rparen[1] != ' ' || rparen[2] != 'S')
			ok = 0;
		fclose(f);
	}
	closedir(d);
	return ok;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	int nthreads = argc > 2 ? atoi(argv[2]) : 64;
	struct thread_arg *args;
	pthread_attr_t attr;

	if (argc > 3 || depth < 0 || nthreads < 1) {
		fprintf(stderr, "usage: fixture-threads [DEPTH [NTHREADS]]\n");
		return 2;
	}
	/* Never outlive the benchmark, even if it is killed with SIGKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pipe(pipe_fds) < 0)
		die("pipe");

	args = calloc(nthreads, sizeof(*args));
	if (!args)
		die("calloc");
	/* Small stacks: 64 threads of 8 MiB each would only waste address
	   space; 40 frames need a few KiB. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (int i = 0; i < nthreads; i++) {
		pthread_t t;
		int rc;

		args[i] = (struct thread_arg){ depth, (enum block_kind)(i % BLOCK_NKINDS) };
		rc = pthread_create(&t, &attr, thread_main, &args[i]);
		if (rc) {
			errno = rc;
			die("pthread_create");
		}
	}
	pthread_attr_destroy(&attr);

	while (atomic_load(&nstarted) < nthreads || !all_threads_sleeping()) {
		struct timespec ts = { .tv_nsec = 1000000 };
		nanosleep(&ts, NULL);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
