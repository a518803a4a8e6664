/* The sampling profile's output formats (doc/profiler.md): a profile of
   known samples, whose folded output is checked here byte for byte, and
   whose speedscope and pprof files tests/profile-check.py (which shares
   no code with the writers) decodes and checks; then hostile sizes: no
   samples, a 10,000-frame stack, 200,000 samples over 64 threads.  */
#include <config.h>
#include "profile-impl.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256];
static bool have_python;

/* CPU time: the budgets below are for the work, which other jobs on a
   loaded machine (CI runs two test scripts at once) would stretch in
   wall time.  */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* AddressSanitizer makes this work about three times slower.  */
#if defined(__SANITIZE_ADDRESS__)
#define BUDGET_SCALE 3
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUDGET_SCALE 3
#endif
#endif
#ifndef BUDGET_SCALE
#define BUDGET_SCALE 1
#endif

static const char *const suffixes[] = { "folded", "json", "pb.gz" };

static char *path_of(const char *name, enum sg_profile_format f)
{
	static char path[3][512];
	snprintf(path[f], sizeof(path[f]), "%s/%s.%s", dir, name, suffixes[f]);
	return path[f];
}

/* Write P as NAME in all three formats.  */
static bool write_all_formats(const struct sg_profile *p, const char *name)
{
	bool all = true;
	for (int f = SG_PROFILE_FOLDED; f <= SG_PROFILE_PPROF; f++) {
		int fd = open(path_of(name, f), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		struct sg_error *err = fd < 0 ? sg_error_os(errno, "open") : sg_profile_write(p, f, fd);
		if (fd >= 0)
			close(fd);
		if (err)
			printf("# %s.%s: %s\n", name, suffixes[f], sg_error_message(err));
		all &= !err;
		sg_error_destroy(err);
	}
	return all;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *data = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&data, &size);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	if (len)
		*len = size;
	return data;
}

/* tests/profile-check.py MODE on NAME's speedscope and pprof files.  */
static void check_with_python(const char *name, const char *mode)
{
	if (!have_python) {
		ok(true, "# SKIP python3 is missing: %s not checked by profile-check.py", name);
		return;
	}
	const char *srcdir = getenv("top_srcdir");
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/profile-check.py' %s '%s' '%s' 2>&1 | sed 's/^/# /'; "
		 "exit ${PIPESTATUS[0]}", srcdir ? srcdir : "..", mode,
		 path_of(name, SG_PROFILE_SPEEDSCOPE), path_of(name, SG_PROFILE_PPROF));
	char *argv[] = { "bash", "-c", cmd, NULL };
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execvp("bash", argv);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "profile-check.py %s: %s", mode, name);
}

static void test_parse(void)
{
	enum sg_profile_format f = SG_PROFILE_PPROF;
	ok(!sg_profile_format_parse("folded", &f) && f == SG_PROFILE_FOLDED, "parse folded");
	ok(!sg_profile_format_parse("speedscope", &f) && f == SG_PROFILE_SPEEDSCOPE,
	   "parse speedscope");
	ok(!sg_profile_format_parse("pprof", &f) && f == SG_PROFILE_PPROF, "parse pprof");
	sg_ck_err(sg_profile_format_parse("json", &f), SG_ERROR_USAGE,
		  "unknown profile format 'json': expected folded, speedscope or pprof",
		  "an unknown format is a usage error");
}

/* ---- the known profile (tests/profile-check.py's "known" mode) ---- */

#define NATIVE(fn, fl, ln, mod, addr) \
	{ .function = fn, .file = fl, .line = ln, .module = mod, .address = addr, \
	  .kind = SG_PROFILE_NATIVE }
static const struct sg_profile_frame f_main = NATIVE("main", "/src/a.c", 50, "/usr/bin/app", 0x401100);
static const struct sg_profile_frame f_compute =
	NATIVE("compute", "/src/a.c", 10, "/usr/bin/app", 0x401010);
static const struct sg_profile_frame f_eval =
	NATIVE("_PyEval_EvalFrameDefault", NULL, 0, "/usr/bin/python3.11", 0x500000);
static const struct sg_profile_frame f_semi = NATIVE("ns;fn", NULL, 0, "/usr/bin/app", 0x401200);
static const struct sg_profile_frame f_nofn = {
	.module = "/usr/lib/libfoo.so", .module_start = 0x7f0000000000,
	.address = 0x7f0000001234, .kind = SG_PROFILE_NATIVE,
};

static const struct sg_profile_frame stack_a[] = { f_compute, f_main };
static const struct sg_profile_frame stack_b[] = { f_nofn, f_compute, f_main };
static const struct sg_profile_frame stack_p[] = {
	{ .function = "handle", .file = "app.py", .line = 7, .kind = SG_PROFILE_PYTHON },
	{ .function = "<module>", .file = "app.py", .line = 1, .kind = SG_PROFILE_PYTHON },
	f_eval, f_main,
};
static const struct sg_profile_frame stack_w[] = {
	{ .function = "odd\"q\\\002\377\303\251", .file = "o.py", .line = 2, .kind = SG_PROFILE_PYTHON },
	f_semi, f_main,
};
static const struct sg_profile_frame stack_z[] = {
	{ .function = "zeek_init", .file = "test.zeek", .line = 3, .kind = SG_PROFILE_ZEEK },
	f_main,
};

static const char weird_name[] = "we;ird \"q\"\001\377";

static struct sg_error *add(struct sg_profile *p, pid_t tid, const char *name, uint64_t t,
			    const struct sg_profile_frame *frames, size_t n)
{
	return sg_profile_add(p, tid, name, t, frames, n);
}
#define ADD(p, tid, name, t, stack) add(p, tid, name, t, stack, SG_ARRAY_SIZE(stack))

static void test_known(void)
{
	struct sg_profile *p;
	ok(!sg_profile_create(&p), "create");
	sg_profile_set_period(p, 1000000);
	struct sg_error *err = NULL;
	/* Thread 100: runs A x2, B, A, P x2.  101: A, W, A.  102: Z x3.  */
	static const struct { pid_t tid; uint64_t t; const struct sg_profile_frame *s; size_t n; } in[] = {
#define S(tid, t, st) { tid, t, st, SG_ARRAY_SIZE(st) }
		S(100, 1000, stack_a), S(102, 1200, stack_z), S(101, 1500, stack_a),
		S(100, 2000, stack_a), S(102, 2200, stack_z), S(101, 2500, stack_w),
		S(100, 3000, stack_b), S(102, 3200, stack_z), S(101, 3500, stack_a),
		S(100, 4000, stack_a), S(100, 5000, stack_p), S(100, 6000, stack_p),
#undef S
	};
	for (size_t i = 0; i < SG_ARRAY_SIZE(in) && !err; i++) {
		const char *name = in[i].tid == 100 ? "main" : in[i].tid == 101 ? weird_name : NULL;
		err = add(p, in[i].tid, name, in[i].t, in[i].s, in[i].n);
	}
	ok(!err, "add the known samples");
	sg_error_destroy(err);
	ok(sg_profile_samples(p) == 12, "12 samples");
	sg_ck_err(add(p, 100, "main", 7000, stack_a, 0), SG_ERROR_USAGE,
		  "a profile sample needs at least one frame", "a sample without frames is refused");
	ok(sg_profile_samples(p) == 12, "the refused sample is not counted");

	struct sg_profile_stats st;
	sg_profile_stats(p, &st);
	ok(st.frames == 9 && st.stacks == 5 && st.threads == 3 && st.runs == 8 &&
	   st.stack_frames == 2 + 3 + 4 + 3 + 2,
	   "interned: 9 frames, 5 stacks of 14 frames, 3 threads, 8 runs (got %zu %zu %zu %zu %zu)",
	   st.frames, st.stacks, st.stack_frames, st.threads, st.runs);

	ok(write_all_formats(p, "known"), "write the known profile");
	char *folded = slurp(path_of("known", SG_PROFILE_FOLDED), NULL);
	is_str(folded,
	       "main;_PyEval_EvalFrameDefault;<module> (app.py:1);handle (app.py:7) 2\n"
	       "main;compute 5\n"
	       "main;compute;libfoo.so+0x1234 1\n"
	       "main;ns:fn;odd\"q\\?\357\277\275\303\251 (o.py:2) 1\n"
	       "main;zeek_init (test.zeek:3) 3\n",
	       "folded: sorted stacks, ';', control characters, invalid UTF-8 replaced");
	free(folded);
	check_with_python("known", "known");

	/* A closed pipe: EPIPE is an error, not a crash.  */
	int fds[2];
	if (pipe(fds) == 0) {
		close(fds[0]);
		sg_ck_err(sg_profile_write(p, SG_PROFILE_FOLDED, fds[1]), SG_ERROR_OS,
			  "cannot write the profile: Broken pipe", "EPIPE is reported");
		sg_ck_err(sg_profile_write(p, SG_PROFILE_PPROF, fds[1]), SG_ERROR_OS,
			  "cannot write the profile: Broken pipe", "EPIPE is reported (pprof)");
		close(fds[1]);
	}
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full >= 0) {
		sg_ck_err(sg_profile_write(p, SG_PROFILE_SPEEDSCOPE, full), SG_ERROR_OS,
			  "cannot write the profile: No space left on device", "ENOSPC is reported");
		close(full);
	}
	sg_ck_err(sg_profile_write(p, SG_PROFILE_SPEEDSCOPE, -1), SG_ERROR_OS,
		  "cannot write the profile: Bad file descriptor", "a bad descriptor is reported");
	sg_profile_destroy(p);
}

static void test_empty(void)
{
	struct sg_profile *p;
	ok(!sg_profile_create(&p), "create an empty profile");
	ok(write_all_formats(p, "empty"), "write the empty profile");
	size_t len = 1;
	free(slurp(path_of("empty", SG_PROFILE_FOLDED), &len));
	ok(len == 0, "folded: empty");
	check_with_python("empty", "--samples 0 --threads 0 --stacks 0 --depth 0");
	sg_profile_destroy(p);
}

static void test_deep(void)
{
	enum { DEPTH = 10000 };
	struct sg_profile_frame *frames = calloc(DEPTH, sizeof(*frames));
	char (*names)[16] = calloc(DEPTH, sizeof(*names));
	for (size_t i = 0; i < DEPTH; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		frames[i] = (struct sg_profile_frame)NATIVE(names[i], NULL, 0, "/bin/deep", 0x1000 + i);
	}
	struct sg_profile *p;
	ok(!sg_profile_create(&p), "create the deep profile");
	struct sg_error *err = sg_profile_add(p, 1, "deep", 10, frames, DEPTH);
	if (!err)
		err = sg_profile_add(p, 1, "deep", 20, frames, DEPTH);
	ok(!err, "add a 10,000-frame stack twice");
	sg_error_destroy(err);
	struct sg_profile_stats st;
	sg_profile_stats(p, &st);
	ok(st.frames == DEPTH && st.stacks == 1 && st.stack_frames == DEPTH && st.runs == 1,
	   "the stack is interned once");
	ok(write_all_formats(p, "deep"), "write the deep profile");
	size_t len;
	char *folded = slurp(path_of("deep", SG_PROFILE_FOLDED), &len);
	ok(folded && len > 12 && !strncmp(folded, "f9999;f9998;", 12) &&
	   !strcmp(folded + len - 6, ";f0 2\n") && strchr(folded, '\n') == folded + len - 1,
	   "folded: one line, outermost first");
	free(folded);
	check_with_python("deep", "--samples 2 --threads 1 --stacks 1 --depth 10000");
	sg_profile_destroy(p);
	free(names);
	free(frames);
}

static void test_big(void)
{
	enum { SAMPLES = 200000, STACKS = 1000, THREADS = 64, POOL = 40, DEPTH = 6 };
	char names[POOL][16];
	struct sg_profile_frame pool[POOL];
	for (int i = 0; i < POOL; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%d", i);
		pool[i] = (struct sg_profile_frame)NATIVE(names[i], "/src/big.c", i + 1, "/bin/big",
							 0x1000 + 16 * i);
	}
	/* Stack K: main, then K's base-10 digits, each naming a frame of
	   its depth's part of the pool: 1000 distinct stacks.  */
	static struct sg_profile_frame stacks[STACKS][DEPTH];
	for (int k = 0; k < STACKS; k++) {
		stacks[k][DEPTH - 1] = pool[POOL - 1];
		stacks[k][DEPTH - 2] = pool[POOL - 2];
		for (int d = 0, v = k; d < 3; d++, v /= 10)
			stacks[k][DEPTH - 3 - d] = pool[d * 10 + v % 10];
		stacks[k][0] = pool[30 + k % 7];
	}
	struct sg_profile *p;
	ok(!sg_profile_create(&p), "create the big profile");
	char tname[THREADS][16];
	for (int t = 0; t < THREADS; t++)
		snprintf(tname[t], sizeof(tname[t]), "worker-%d", t);
	double start = now_s();
	struct sg_error *err = NULL;
	for (unsigned i = 0; i < SAMPLES && !err; i++) {
		unsigned t = i % THREADS, k = (i / THREADS * 7919u + t) % STACKS;
		err = sg_profile_add(p, 1000 + t, tname[t], 1000000ull * i, stacks[k], DEPTH);
	}
	double add_s = now_s() - start;
	ok(!err, "add 200,000 samples");
	sg_error_destroy(err);
	struct sg_profile_stats st;
	sg_profile_stats(p, &st);
	ok(st.frames == 39 && st.stacks == STACKS && st.stack_frames == STACKS * DEPTH &&
	   st.threads == THREADS && st.strings == 39 + 2 + THREADS && st.runs <= SAMPLES,
	   "bounded: 39 frames, 1000 stacks of %d, 64 threads, %zu runs (got %zu %zu %zu %zu %zu)",
	   DEPTH, st.runs, st.frames, st.stacks, st.stack_frames, st.threads, st.strings);
	start = now_s();
	ok(write_all_formats(p, "big"), "write the big profile");
	double write_s = now_s() - start;
	printf("# add %.3f s, write all three %.3f s\n", add_s, write_s);
	if (getenv("SPYGLASS_WRAPPER"))
		ok(true, "# SKIP under SPYGLASS_WRAPPER: no time budget");
	else
		ok(add_s < 1.0 * BUDGET_SCALE && write_s < 2.0 * BUDGET_SCALE,
		   "adding takes under %d s, writing under %d s of CPU", BUDGET_SCALE, 2 * BUDGET_SCALE);
	check_with_python("big", "--samples 200000 --threads 64 --stacks 1000 --depth 6");
	sg_profile_destroy(p);
}

static void remove_files(void)
{
	static const char *const names[] = { "known", "empty", "deep", "big" };
	for (size_t i = 0; i < SG_ARRAY_SIZE(names); i++)
		for (int f = SG_PROFILE_FOLDED; f <= SG_PROFILE_PPROF; f++)
			unlink(path_of(names[i], f));
	rmdir(dir);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/sg-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	have_python = system("command -v python3 >/dev/null 2>&1") == 0;
	if (!have_python)
		printf("# python3 is missing: the speedscope and pprof files are not decoded\n");
	test_parse();
	test_known();
	test_empty();
	test_deep();
	test_big();
	int ret = tap_done();
	if (!ret)
		remove_files();
	else
		printf("# files kept in %s\n", dir);
	return ret;
}
