/* spyglass: options, start-up and exit.

   Exit status: 0 success; 1 the last command (or -x file) failed; 2 fatal
   (the -p attach failed); 64 usage error.  */
#include <config.h>
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { EXIT_PARTIAL = 1, EXIT_FATAL = 2, EXIT_USAGE = 64 };

/* The one session, for the signal handlers.  */
static struct shell *the_shell;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: spyglass [OPTION]... [-- COMMAND...]\n"
"A debugger shell for Linux: inspect a live process without gdb.\n"
"\n"
"  -p, --pid PID          attach to process PID\n"
"  -x, --command FILE     run the commands in FILE (stops at its first error)\n"
"  -ex, --eval-command CMD  run CMD (repeatable; later ones run even if it fails)\n"
"  -batch                 exit after the -x and -ex commands\n"
"  -q, -quiet             do not print the banner\n"
"  -nx                    do not read ~/.spyglassrc\n"
"  --json                 print each command's result as one JSON object per line\n"
"  --plugin PATH          load a plugin (repeatable)\n"
"  --stats                print attach and pause times to stderr at exit\n"
"  --version              print the version and exit\n"
"  --help                 print this help and exit\n"
"\n"
"  spyglass -p PID -- CMD ARGS...   runs one command in batch mode.\n"
"\n"
"Plugins load from %s, then from the folders in\n"
"SPYGLASS_PLUGIN_PATH (colon separated).  A plugin or ~/.spyglassrc that\n"
"others could have written is not loaded, unless it is under a folder of\n"
"SPYGLASS_SAFE_PATH (colon separated).\n"
"\n"
"Exit status: 0 success; 1 the last command or -x file failed;\n"
"2 fatal (could not attach); 64 usage error.\n",
		sg_plugin_dir());
}

static void on_fatal_signal(int sig)
{
	/* Let the target run before we die; the kernel would also detach
	   seized threads, but a signal caught in a stop would be lost.  */
	if (the_shell)
		sg_session_emergency_detach(the_shell->session);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT,
				    SIGFPE, SIGILL, SIGPIPE, SIGINT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* Under nohup, SIGHUP (and maybe SIGPIPE) is ignored: the caller
		   asked us not to die of it.  SIGINT and SIGQUIT are ignored in
		   every background job of a script, so those we still catch:
		   detaching first is always the safe way to die.  */
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) != 0)
			continue;
		if ((sigs[i] == SIGHUP || sigs[i] == SIGPIPE) && old.sa_handler == SIG_IGN)
			continue;
		/* A handler set before main is a sanitizer's (ASan's for
		   SIGSEGV, SIGBUS, SIGFPE): its report is worth more than
		   our detach, which the kernel does anyway when we die, as
		   the threads are seized.  */
		if ((old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

enum action_kind { ACTION_COMMAND, ACTION_FILE };

struct action {
	enum action_kind kind;
	const char *text;
};

/* The names the -ex commands will look up (print g_map, ptype struct X),
   given to the session so that the attach finds them in the DWARF before
   it stops the target.  A guess: a name that turns out to be a local or a
   member costs a lookup before the stop, never a wrong answer.  */
static bool data_command(const char *w, size_t n, bool *type_arg)
{
	static const char *const cmds[] = { "p", "print", "inspect", "output", "ptype", "whatis" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strlen(cmds[i]) == n && !strncmp(w, cmds[i], n)) {
			*type_arg = i >= 4;
			return true;
		}
	return false;
}

static void hint_line(struct sg_session *session, const char *line)
{
	static const char *const keywords[] = { "sizeof", "struct", "union", "enum", "class",
						"unsigned", "signed", "const", "volatile" };
	const char *p = line + strspn(line, " \t");
	bool type_arg;
	size_t wlen = strcspn(p, " \t/");
	if (!data_command(p, wlen, &type_arg))
		return;
	p += wlen;
	if (*p == '/')
		p += strcspn(p, " \t");
	p += strspn(p, " \t");
	/* ptype and whatis take a type or an expression: "struct passwd". */
	unsigned kinds = SG_NAME_VARIABLE | (type_arg ? SG_NAME_TYPE : 0);
	if (type_arg && *p)
		sg_error_destroy(sg_session_hint_name(session, p, kinds));
	for (const char *q = p; *q;) {
		if (!(isalpha((unsigned char)*q) || *q == '_')) {
			q++;
			continue;
		}
		const char *start = q;
		while (isalnum((unsigned char)*q) || *q == '_' || (q[0] == ':' && q[1] == ':' && q++))
			q++;
		size_t len = (size_t)(q - start);
		bool member = start > p && (start[-1] == '.' || start[-1] == '$' ||
					    (start[-1] == '>' && start - 1 > p && start[-2] == '-'));
		bool keyword = false;
		for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			keyword |= strlen(keywords[k]) == len && !strncmp(start, keywords[k], len);
		char *name = member || keyword ? NULL : strndup(start, len);
		/* Hints only save time: a failure costs nothing else.  */
		if (name)
			sg_error_destroy(sg_session_hint_name(session, name, kinds));
		free(name);
	}
}

/* Whether LINE runs a command that never unwinds native stacks.  */
static bool no_stacks(struct sg_session *session, const char *line)
{
	unsigned flags = 0;
	struct sg_error *err = sg_command_flags(session, line, &flags);
	sg_error_destroy(err);
	return !err && (flags & SG_CMD_NO_STACKS);
}

/* BATCH: nothing runs after the actions, so if none of them unwinds a
   native stack the attach need not prepare for it.  */
static void hint_names(struct sg_session *session, const struct action *actions, size_t n,
		       bool batch)
{
	bool stacks = !batch || !n;
	for (size_t i = 0; i < n; i++) {
		if (actions[i].kind == ACTION_COMMAND) {
			hint_line(session, actions[i].text);
			stacks |= !no_stacks(session, actions[i].text);
			continue;
		}
		stacks = true;
		/* A -x file's commands, read once more here.  */
		FILE *f = fopen(actions[i].text, "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		struct sg_error *err = NULL;
		while (f && (len = shell_read_line(f, &line, &cap, &err)) >= 0) {
			if (len && line[len - 1] == '\n')
				line[len - 1] = '\0';
			hint_line(session, line);
		}
		/* Reported when the file is run.  */
		sg_error_destroy(err);
		free(line);
		if (f)
			fclose(f);
	}
	if (!stacks)
		sg_session_hint_no_stacks(session);
}

static void report_plugin_error(const struct sg_error *err, void *arg)
{
	fprintf(stderr, "warning: %s\n", sg_error_message(err));
}

static char *join_args(char **argv, int argc)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static bool parse_pid(const char *s, pid_t *ret)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > INT32_MAX)
		return false;
	*ret = v;
	return true;
}

/* Match "-name", "--name" and "--name=value".  */
static bool opt(const char *arg, const char *name, const char **inline_value)
{
	if (arg[0] != '-')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return false;
	if (arg[n] == '\0') {
		*inline_value = NULL;
		return true;
	}
	if (arg[n] == '=') {
		*inline_value = arg + n + 1;
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct shell sh = { .x_format = 'x', .x_size = 4 };
	struct action *actions = calloc(argc + 1, sizeof(*actions));
	size_t nactions = 0;
	const char **plugins = calloc(argc + 1, sizeof(*plugins));
	size_t nplugins = 0;
	pid_t pid = 0;
	bool quiet = false, nx = false, stats = false;
	char *dashdash = NULL;
	int status = 0;
	struct sg_error *err = NULL;
	uint64_t t0 = 0, attach_ns = 0;
	if (!actions || !plugins) {
		fprintf(stderr, "spyglass: out of memory\n");
		status = EXIT_FATAL;
		goto out;
	}

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
#define VALUE()								\
	({								\
		const char *val_ = v;					\
		if (!val_) {						\
			if (i + 1 >= argc) {				\
				fprintf(stderr, "spyglass: option %s needs a value\n", a); \
				status = EXIT_USAGE;			\
				goto out;				\
			}						\
			val_ = argv[++i];				\
		}							\
		val_;							\
	})
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "spyglass: \"--\" must be followed by a command\n");
				status = EXIT_USAGE;
				goto out;
			}
			dashdash = join_args(argv + i + 1, argc - i - 1);
			break;
		} else if (opt(a, "p", &v) || opt(a, "pid", &v)) {
			const char *s = VALUE();
			if (!parse_pid(s, &pid)) {
				fprintf(stderr, "spyglass: invalid process ID \"%s\"\n", s);
				status = EXIT_USAGE;
				goto out;
			}
		} else if (opt(a, "x", &v) || opt(a, "command", &v)) {
			actions[nactions++] = (struct action){ ACTION_FILE, VALUE() };
		} else if (opt(a, "ex", &v) || opt(a, "eval-command", &v)) {
			actions[nactions++] = (struct action){ ACTION_COMMAND, VALUE() };
		} else if (opt(a, "batch", &v) && !v) {
			sh.batch = true;
		} else if ((opt(a, "q", &v) || opt(a, "quiet", &v) || opt(a, "silent", &v)) && !v) {
			quiet = true;
		} else if ((opt(a, "nx", &v) || opt(a, "n", &v)) && !v) {
			nx = true;
		} else if (opt(a, "json", &v) && !v) {
			sh.json = true;
		} else if (opt(a, "plugin", &v)) {
			plugins[nplugins++] = VALUE();
		} else if (opt(a, "stats", &v) && !v) {
			stats = true;
		} else if ((opt(a, "version", &v) || opt(a, "v", &v)) && !v) {
			printf("spyglass %s\n", sg_version());
			goto out;
		} else if ((opt(a, "help", &v) || opt(a, "h", &v)) && !v) {
			usage(stdout);
			goto out;
		} else {
			fprintf(stderr, "spyglass: unknown option or argument \"%s\"\n"
					"Try \"spyglass --help\".\n", a);
			status = EXIT_USAGE;
			goto out;
		}
#undef VALUE
	}
	if (dashdash) {
		actions[nactions++] = (struct action){ ACTION_COMMAND, dashdash };
		sh.batch = true;
	}

	/* Output to a pipe or file in large blocks: a backtrace of every
	   thread is written while the target is stopped.  */
	static char outbuf[1 << 16];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));

	err = sg_session_create(&sh.session);
	if (!err)
		err = sg_out_create(stdout, sh.json, &sh.out);
	if (!err)
		err = shell_register_commands(&sh);
	if (err) {
		fprintf(stderr, "spyglass: %s\n", sg_error_message(err));
		sg_error_destroy(err);
		status = EXIT_FATAL;
		goto out;
	}
	if (sh.json)
		sg_setting_set(sh.session, "output-format json");
	the_shell = &sh;
	install_signals();
	sh.interactive = !sh.batch && isatty(STDIN_FILENO);

	sg_plugin_load_defaults(sh.session, report_plugin_error, NULL);
	for (size_t i = 0; i < nplugins; i++) {
		if (strchr(plugins[i], '/'))
			shell_warn_untrusted("loading plugin", plugins[i]);
		err = sg_plugin_load(sh.session, plugins[i]);
		if (err) {
			fprintf(stderr, "spyglass: %s\n", sg_error_message(err));
			sg_error_destroy(err);
			status = EXIT_FATAL;
			goto out;
		}
	}

	if (!quiet && !sh.batch && sh.interactive)
		printf("spyglass %s. Type \"help\" for a list of commands.\n", sg_version());

	if (pid) {
		hint_names(sh.session, actions, nactions, sh.batch);
		t0 = sg_now_ns();
		err = sg_session_attach(sh.session, pid);
		attach_ns = sg_now_ns() - t0;
		if (err) {
			if (sh.json) {
				sg_out_begin(sh.out);
				sg_out_end(sh.out, err);
			} else {
				fprintf(stderr, "%s\n", sg_error_message(err));
			}
			sg_error_destroy(err);
			status = EXIT_FATAL;
			goto out;
		}
	}

	if (!nx) {
		const char *home = getenv("HOME");
		char *rc = NULL;
		if (home && asprintf(&rc, "%s/.spyglassrc", home) < 0)
			rc = NULL;
		struct sg_error *untrusted = rc && access(rc, R_OK) == 0 ? sg_trust_check(rc) : NULL;
		if (untrusted) {
			/* Read without being asked: refused, as the default
			   plugins are.  */
			fprintf(stderr, "warning: not reading %s: %s (SPYGLASS_SAFE_PATH can trust its folder)\n",
				rc, sg_error_message(untrusted));
			sg_error_destroy(untrusted);
		} else if (rc && access(rc, R_OK) == 0) {
			sh.sourcing_rc = true;
			err = shell_source(&sh, rc);
			sh.sourcing_rc = false;
			if (err && sg_error_code(err) != SG_ERROR_STOP) {
				fprintf(stderr, "%s\n", sg_error_message(err));
				sg_error_destroy(err);
			}
		}
		free(rc);
	}

	for (size_t i = 0; i < nactions && !sh.quit; i++) {
		if (actions[i].kind == ACTION_COMMAND) {
			status = shell_run_line(&sh, actions[i].text, NULL) ? 0 : EXIT_PARTIAL;
		} else {
			err = shell_source(&sh, actions[i].text);
			status = err ? EXIT_PARTIAL : 0;
			if (err && sg_error_code(err) != SG_ERROR_STOP) {
				if (sh.json) {
					sg_out_begin(sh.out);
					sg_out_end(sh.out, err);
				} else {
					fprintf(stderr, "%s\n", sg_error_message(err));
				}
				sg_error_destroy(err);
			}
		}
	}

	if (!sh.batch && !sh.quit) {
		if (sh.interactive)
			shell_repl(&sh);
		else
			status = shell_run_stream(&sh, stdin, "stdin", false) ? 0 : EXIT_PARTIAL;
	}
	if (sh.quit)
		status = sh.quit_status;

	struct sg_target *t = sg_session_target(sh.session);
	size_t nthreads = t ? sg_target_thread_count(t) : 0;
	uint64_t detach_t0 = sg_now_ns();
	the_shell = NULL;
	if (t)
		sg_error_destroy(sg_session_detach(sh.session));
	uint64_t paused_ns = sg_session_last_paused_ns(sh.session);
	uint64_t detach_ns = sg_now_ns() - detach_t0;
	if (stats && pid) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"stats: threads=%zu attach_us=%.1f paused_us=%.1f detach_us=%.1f maxrss_kb=%ld\n",
			nthreads, attach_ns / 1e3, paused_ns / 1e3, detach_ns / 1e3, ru.ru_maxrss);
	}
out:
	the_shell = NULL;
	sg_session_destroy(sh.session);
	sg_out_destroy(sh.out);
	free(actions);
	free(plugins);
	free(dashdash);
	return status;
}
