/* record: the sampling profiler (sampler.h, doc/profiler.md).

   The options are checked and the output file opened before anything
   runs, so that a typo costs no recording; what it held is replaced only
   by the recording's end.  Ctrl-C (SIGINT), SIGTERM (timeout) and SIGHUP
   end the recording, which still writes its file; at the prompt the
   target is stopped again afterwards, as after an attach.  */
#include <config.h>
#include "shell.h"

#include <spyglass/sampler.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct record_args {
	unsigned rate;
	uint64_t duration_ns;
	const char *threads, *stack, *format, *output;
	bool idle, nonblocking;
};

static volatile sig_atomic_t record_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static struct sg_error *usage(const char *what, const char *value)
{
	return sg_error_format(SG_ERROR_USAGE, "record: %s%s%s%s", what, value ? " '" : "",
			       value ? value : "", value ? "'" : "");
}

static struct sg_error *parse_number(const char *opt, const char *v, double max, double *ret)
{
	char *end;
	errno = 0;
	double d = v ? strtod(v, &end) : 0;
	if (!v || end == v || *end || errno || !(d > 0) || d > max)
		return sg_error_format(SG_ERROR_USAGE, "record: %s needs a number above 0, at most %g%s%s%s",
				       opt, max, v ? " (not '" : "", v ? v : "", v ? "')" : "");
	*ret = d;
	return NULL;
}

/* WORDS into A; the words stay in the caller's buffer.  */
static struct sg_error *parse_args(char **words, size_t n, struct record_args *a)
{
	for (size_t i = 0; i < n; i++) {
		char *w = words[i];
		char *eq = strncmp(w, "--", 2) ? NULL : strchr(w, '=');
		if (eq)
			*eq++ = '\0';
		bool flag = !strcmp(w, "--idle") || !strcmp(w, "--nonblocking");
		if (flag && eq)
			return usage("option takes no value:", w);
		/* An option is not a value: "--threads -o F" lacks one.  */
		const char *v = eq;
		if (!v && !flag && i + 1 < n && strncmp(words[i + 1], "--", 2) &&
		    strcmp(words[i + 1], "-o"))
			v = words[++i];
		double d;
		struct sg_error *err = NULL;
		if (!strcmp(w, "--idle"))
			a->idle = true;
		else if (!strcmp(w, "--nonblocking"))
			a->nonblocking = true;
		else if (!strcmp(w, "--rate")) {
			if (!(err = parse_number(w, v, 100000, &d)) && v[strspn(v, "0123456789")])
				err = usage("--rate needs a whole number of samples a second, not", v);
			if (!err)
				a->rate = (unsigned)d;
		}
		else if (!strcmp(w, "--duration") && !(err = parse_number(w, v, 1e7, &d)))
			a->duration_ns = (uint64_t)(d * 1e9);
		else if (!strcmp(w, "--threads"))
			a->threads = v;
		else if (!strcmp(w, "--stack"))
			a->stack = v;
		else if (!strcmp(w, "--format"))
			a->format = v;
		else if (!strcmp(w, "-o") || !strcmp(w, "--output"))
			a->output = v;
		else if (!err)
			return usage("unknown argument", w);
		if (err)
			return err;
		if (!flag && !v)
			return usage("missing value after", w);
	}
	if (!a->output)
		return usage("give the output file with -o FILE", NULL);
	if (a->rate == 0)
		a->rate = 100;
	return NULL;
}

/* The format --format names, else the one -o's extension says.  */
static struct sg_error *pick_format(const struct record_args *a, enum sg_profile_format *ret)
{
	if (a->format) {
		struct sg_error *err = sg_profile_format_parse(a->format, ret);
		return err ? sg_error_prefix(err, "record") : NULL;
	}
	static const struct {
		const char *ext;
		enum sg_profile_format format;
	} exts[] = {
		{ ".folded", SG_PROFILE_FOLDED }, { ".txt", SG_PROFILE_FOLDED },
		{ ".json", SG_PROFILE_SPEEDSCOPE }, { ".speedscope", SG_PROFILE_SPEEDSCOPE },
		{ ".pb.gz", SG_PROFILE_PPROF }, { ".pprof", SG_PROFILE_PPROF },
	};
	*ret = SG_PROFILE_FOLDED;
	size_t len = strlen(a->output);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i].ext);
		if (len > el && !strcmp(a->output + len - el, exts[i].ext))
			*ret = exts[i].format;
	}
	return NULL;
}

/* --threads: all, main, or TID,TID.  */
static struct sg_error *pick_threads(struct sg_target *t, const char *spec, pid_t **tids,
				     size_t *n)
{
	*tids = NULL;
	*n = 0;
	if (!spec || !strcmp(spec, "all"))
		return NULL;
	size_t cap = 1;
	for (const char *p = spec; *p; p++)
		cap += *p == ',';
	if (!(*tids = calloc(cap, sizeof(**tids))))
		return &sg_enomem;
	if (!strcmp(spec, "main")) {
		(*tids)[(*n)++] = sg_target_pid(t);
		return NULL;
	}
	for (const char *p = spec; *p;) {
		char *end;
		errno = 0;
		long tid = strtol(p, &end, 10);
		if (end == p || errno || tid <= 0 || (*end && *end != ',') ||
		    !sg_target_thread_by_tid(t, (pid_t)tid)) {
			struct sg_error *err = sg_error_format(
				SG_ERROR_USAGE, "record: --threads takes all, main or thread IDs of process %d, "
				"separated by commas (not '%s')", (int)sg_target_pid(t), spec);
			free(*tids);
			*tids = NULL;
			return err;
		}
		(*tids)[(*n)++] = (pid_t)tid;
		p = *end ? end + 1 : end;
	}
	return NULL;
}

struct provider_probe {
	struct sg_session *session;
	const char *name;
	bool found;
};

static int probe_frame(const struct sg_runtime_frame *f, void *arg)
{
	(void)f;
	(void)arg;
	return SG_CB_ABORT;	/* one frame says enough */
}

static int probe_provider(const struct sg_registry_entry *e, void *arg)
{
	struct provider_probe *pp = arg;
	if (strcmp(e->name, pp->name))
		return SG_CB_OK;
	const struct sg_stack_provider_ops *ops = e->ops;
	struct sg_target *t = sg_session_target(pp->session);
	for (size_t i = 0; t && i < sg_target_thread_count(t) && !pp->found; i++) {
		struct sg_error *err = ops->frames(pp->session, sg_target_thread(t, i), probe_frame,
						   NULL, e->arg);
		pp->found = err != &sg_not_found;
		sg_error_destroy(err);
	}
	return SG_CB_ABORT;
}

/* --stack into the sampler's options.  A runtime's provider must know
   one of the process's threads; mixed takes the first runtime that does.  */
static struct sg_error *pick_stack(struct sg_session *s, const char *stack,
				   struct sg_sampler_options *o)
{
	static const struct {
		const char *name, *provider;
		enum sg_profile_frame_kind kind;
	} runtimes[] = {
		{ "python", "cpython", SG_PROFILE_PYTHON },
		{ "zeek", "zeek", SG_PROFILE_ZEEK },
	};
	o->stack = SG_SAMPLE_NATIVE;
	if (!stack || !strcmp(stack, "native"))
		return NULL;
	bool mixed = !strcmp(stack, "mixed");
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		if (!mixed && strcmp(stack, runtimes[i].name))
			continue;
		o->stack = mixed ? SG_SAMPLE_MIXED : SG_SAMPLE_RUNTIME;
		o->provider = runtimes[i].provider;
		o->kind = runtimes[i].kind;
		struct provider_probe pp = { s, runtimes[i].provider, false };
		sg_registry_foreach(s, SG_REGISTRY_STACK_PROVIDER, probe_provider, &pp);
		if (pp.found)
			return NULL;
		if (!mixed)
			break;
	}
	if (o->stack == SG_SAMPLE_NATIVE)
		return usage("--stack takes native, python, zeek or mixed, not", stack);
	return sg_error_format(SG_ERROR_LOOKUP,
			       "record: --stack %s: no thread of process %d runs %s "
			       "(or the %s plugin is not loaded)",
			       stack, (int)sg_target_pid(sg_session_target(s)),
			       mixed ? "Python or Zeek" : stack, mixed ? "cpython or zeek"
				       : o->provider);
}

static double rate_of(const struct sg_sampler_stats *st)
{
	return st->elapsed_ns ? st->ticks * 1e9 / st->elapsed_ns : 0;
}

static double stopped_pct(const struct sg_sampler_stats *st)
{
	return st->elapsed_ns ? 100.0 * st->stopped_ns / st->elapsed_ns : 0;
}

struct status {
	unsigned rate;
	bool shown;
};

static void show_status(const struct sg_sampler_stats *st, void *arg)
{
	struct status *ss = arg;
	fprintf(stderr, "\rrecording: %" PRIu64 " samples, %.0f Hz of %u, %" PRIu64
		" missed, target stopped %.2f%% (Ctrl-C ends)\033[K",
		st->samples, rate_of(st), ss->rate, st->missed, stopped_pct(st));
	fflush(stderr);
	ss->shown = true;
}

static struct sg_error *write_profile(const struct sg_profile *p, enum sg_profile_format f, int fd,
				      const char *path)
{
	struct sg_error *err = NULL;
	/* EINVAL: a pipe or a terminal; standard output is not emptied.  */
	if (strcmp(path, "-") && ftruncate(fd, 0) != 0 && errno != EINVAL)
		err = sg_error_os(errno, "cannot write %s", path);
	if (!err)
		err = sg_profile_write(p, f, fd);
	if (close(fd) != 0 && !err)
		err = sg_error_os(errno, "cannot write %s", path);
	return err ? sg_error_prefix(err, "cannot write %s", path) : NULL;
}

static struct sg_error *record(struct sg_session *s, struct record_args *a)
{
	static const char *const format_names[] = { "folded", "speedscope", "pprof" };
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	enum sg_profile_format format;
	if (!err)
		err = pick_format(a, &format);
	struct sg_sampler_options o = { .rate_hz = a->rate, .duration_ns = a->duration_ns,
					.idle = a->idle, .nonblocking = a->nonblocking };
	if (!err)
		err = pick_stack(s, a->stack, &o);
	if (!err && o.nonblocking && o.stack != SG_SAMPLE_RUNTIME)
		err = usage("--nonblocking reads only python or zeek stacks, which need no stop; "
			    "a native stack is read from a stopped thread", NULL);
	pid_t *tids = NULL;
	if (!err)
		err = pick_threads(t, a->threads, &tids, &o.ntids);
	o.tids = tids;
	struct sg_profile *p = NULL;
	if (!err)
		err = sg_profile_create(&p);
	/* Opened now, emptied at the end: a recording that fails leaves
	   the file as it was, and removes it only if it made it.  */
	int fd = -1;
	bool created = false;
	if (!err && !strcmp(a->output, "-")) {
		/* Standard output, as perf and py-spy take "-".  */
		fflush(stdout);
		if ((fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0)
			err = sg_error_os(errno, "record: cannot write to standard output");
	} else if (!err) {
		fd = open(a->output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = open(a->output, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			err = sg_error_os(errno, "record: cannot open %s", a->output);
	}
	if (err) {
		free(tids);
		sg_profile_destroy(p);
		return err;
	}
	sg_profile_set_period(p, 1000000000ull / a->rate);

	struct status ss = { a->rate, false };
	if (isatty(STDERR_FILENO)) {
		o.progress = show_status;
		o.progress_arg = &ss;
	}
	record_stop = 0;
	o.stop = &record_stop;
	/* These end the recording as the duration does (timeout sends
	   SIGTERM); an ignored SIGHUP (nohup) stays ignored.  */
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old[3];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < 3; k++) {
		sigaction(stop_signals[k], NULL, &old[k]);
		if (old[k].sa_handler != SIG_IGN)
			sigaction(stop_signals[k], &sa, NULL);
	}
	struct sg_sampler_stats st;
	err = sg_session_record(s, &o, p, &st);
	for (size_t k = 0; k < 3; k++)
		sigaction(stop_signals[k], &old[k], NULL);
	if (ss.shown)
		fputs("\r\033[K", stderr);
	if (err && !st.ticks) {
		/* Nothing was recorded: no file either.  */
		close(fd);
		if (created)
			unlink(a->output);
		free(tids);
		sg_profile_destroy(p);
		return err;
	}
	struct sg_error *werr = write_profile(p, format, fd, a->output);
	char exited[64] = "";
	if (st.exited)
		snprintf(exited, sizeof(exited), "; process %d exited", (int)sg_target_pid(t));
	fprintf(stderr,
		"record: %" PRIu64 " samples in %.2f s, %.1f Hz of %u requested, %" PRIu64
		" missed, %" PRIu64 " unreadable, target stopped %.3f%% of the time%s%s; %s %s (%s)\n",
		st.samples, st.elapsed_ns / 1e9, rate_of(&st), a->rate, st.missed, st.errors,
		stopped_pct(&st), exited, record_stop ? "; interrupted" : "",
		werr ? "could not write" : "wrote", a->output, format_names[format]);
	free(tids);
	sg_profile_destroy(p);
	if (err) {
		sg_error_destroy(werr);
		return err;
	}
	return werr;
}

static struct sg_error *cmd_record(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	(void)out;
	(void)arg;
	char *copy = strdup(args);
	char **words = calloc(strlen(args) / 2 + 2, sizeof(*words));
	if (!copy || !words) {
		free(copy);
		free(words);
		return &sg_enomem;
	}
	size_t n = 0;
	char *save;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	struct record_args a = { 0 };
	struct sg_error *err = parse_args(words, n, &a);
	if (!err)
		err = record(s, &a);
	free(words);
	free(copy);
	return err;
}

static const struct sg_command record_cmd = {
	.name = "record",
	.synopsis = "record [--rate HZ] [--duration SEC] [--threads all|main|TID,...] "
		    "[--stack native|python|zeek|mixed] [--idle] [--nonblocking] "
		    "[--format folded|speedscope|pprof] -o FILE",
	.summary = "Sample the process's stacks into a profile",
	.details = "Each tick stops the running threads (all of them with --idle), copies\n"
		   "their registers and the top of their stacks, lets them go and unwinds\n"
		   "from the copy.  It ends after --duration seconds, at Ctrl-C or when the\n"
		   "process exits, and writes FILE: folded stacks (flamegraph.pl), speedscope\n"
		   "JSON or gzipped pprof, as --format or FILE's extension (.folded, .json,\n"
		   ".pb.gz) says.  --stack python or zeek samples the runtime's frames, mixed\n"
		   "merges them into the native stack as bt --python does; --nonblocking\n"
		   "reads runtime stacks without stopping the process.  The rate defaults to\n"
		   "100 Hz.  A status line on a terminal shows the samples, the rate achieved\n"
		   "and the share of the time the process was stopped.",
	.handler = cmd_record,
	.flags = SG_CMD_NEEDS_TARGET,
};

struct sg_error *shell_register_record_command(struct shell *sh)
{
	return sg_command_register(sh->session, &record_cmd, sh);
}
