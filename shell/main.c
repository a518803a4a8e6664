/* spyglass: options, start-up and exit.

   Exit status: 0 success; 1 the last command (or -x file) failed; 2 fatal
   (the -p attach failed); 64 usage error.  */
#include <config.h>
#include "shell.h"
#include "snapshot.h"

#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>


/* The one session, for the signal handlers.  */
static struct shell *the_shell;

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

/* Whether the actions may unwind a native stack.  BATCH: nothing runs
   after them, so a run of only py-bt or info threads does not.  */
static bool will_unwind(struct sg_session *session, const struct action *actions, size_t n,
			bool batch)
{
	if (!batch || !n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (actions[i].kind != ACTION_COMMAND || !no_stacks(session, actions[i].text))
			return true;
	return false;
}

/* Whether every one of the N actions runs from a snapshot.  */
static bool rest_snapshot_ok(struct sg_session *session, const struct action *actions, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (actions[i].kind != ACTION_COMMAND ||
		    !sg_command_snapshot_ok(session, actions[i].text))
			return false;
	return true;
}

/* Whether a batch run lets the process go before the N actions left
   (all of which run from a snapshot).  With --snapshot, always.  By
   default only when they unwind native stacks: that unwinding and its
   printing is what a snapshot takes out of the stop (65 threads: 2.1 ->
   1.1 ms stopped, and 0.9 ms less in all).  info threads, py-bt or
   zeek-bt alone take little longer stopped than the copy does, and the
   copy (the pointers on each stack and what they point to) cost more
   than it saved: info threads of 65 threads was stopped 1.04 ms against
   1.16 ms, for 0.4 ms more in all.  */
static bool release_pays(struct sg_session *session, const struct options *o,
			 const struct action *actions, size_t n)
{
	return rest_snapshot_ok(session, actions, n) &&
	       (o->snapshot || will_unwind(session, actions, n, true));
}

/* What a snapshot copies of each stack for commands that unwind none:
   the red zone and the top of the stack (the stack providers walk the
   interpreter's heap, which they keep themselves).  */
#define NO_UNWIND_STACK_BYTES 512

/* A snapshot failed with ERR (may be NULL): say so; the commands run on
   the stopped process.  */
static void no_snapshot(struct sg_error *err)
{
	if (err)
		fprintf(stderr, "warning: %s\n", sg_error_message(err));
	sg_error_destroy(err);
}

/* Whether the session's target is a live process, not yet a snapshot.  */
static bool live_target(struct sg_session *session)
{
	struct sg_target *t = sg_session_target(session);
	return t && sg_target_kind(t) == SG_TARGET_LIVE && !sg_target_is_snapshot(t, NULL);
}

/* Hint the names the actions look up; if they unwind no native stack,
   the attach need not prepare for it.  */
static void hint_names(struct sg_session *session, const struct action *actions, size_t n,
		       bool batch)
{
	for (size_t i = 0; i < n; i++) {
		if (actions[i].kind == ACTION_COMMAND) {
			hint_line(session, actions[i].text);
			continue;
		}
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
	if (!will_unwind(session, actions, n, batch))
		sg_session_hint_no_stacks(session);
}

/* ERR on stderr, or as the JSON object of a failed command; freed.  */
static void report_error(struct shell *sh, struct sg_error *err)
{
	if (sh->json) {
		sg_out_begin(sh->out);
		sg_out_end(sh->out, err);
	} else {
		fprintf(stderr, "%s\n", sg_error_message(err));
	}
	sg_error_destroy(err);
}

static void report_plugin_error(const struct sg_error *err, void *arg)
{
	fprintf(stderr, "warning: %s\n", sg_error_message(err));
}

/* Reading a target grows the heap by megabytes at once (libdw interns
   every unit of libc's DWARF on the first address lookup, symbol tables
   are sorted, a snapshot copies the stacks), and each new page costs a
   fault: 1,400 faults were a third of a core's "thread apply all bt".
   With a target whose native stacks will be read (py-bt alone needs
   little), the first WARM_HEAP bytes of heap are faulted in with one
   madvise, and kept: malloc takes blocks that size from the heap, and
   trims it only above twice that.  Kernels before 5.14 refuse the
   madvise; nothing is lost then.

   Clearing the pages is the cost (1.2 ms for 4 MiB of 4 KiB pages, which
   a 65-thread backtrace nearly all uses), so the range is extended to end
   on a 2 MiB boundary and everything from the first boundary on is asked
   for as transparent huge pages (THP's "madvise" mode, Debian's
   default): two faults instead of 1,024, 0.7 ms saved.  Where THP is off
   or no huge page is free, the kernel gives small pages, as before.  */
#define WARM_HEAP ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void warm_heap(void)
{
#ifdef MADV_POPULATE_WRITE
	size_t size = WARM_HEAP + HUGE_PAGE;
	mallopt(M_MMAP_THRESHOLD, 2 * size);
	mallopt(M_TRIM_THRESHOLD, 2 * size);
	char *p = malloc(size);
	if (!p)
		return;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
	uintptr_t from = ((uintptr_t)p + mask) & ~mask;
	uintptr_t huge = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t to = huge + WARM_HEAP;	/* within P's SIZE bytes */
#ifdef MADV_HUGEPAGE
	madvise((void *)huge, WARM_HEAP, MADV_HUGEPAGE);
#endif
	madvise((void *)from, to - from, MADV_POPULATE_WRITE);
	free(p);
#endif
}

/* Whether to free everything at the exit: only where leaks are looked
   for, under the sanitizers and under valgrind (bench/valgrind.sh sets
   SPYGLASS_FREE_AT_EXIT).  Otherwise the exit reclaims the memory, and
   freeing what a backtrace loaded (libdw's thousands of units) would only
   delay the exit, by a millisecond.  */
static bool free_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(SG_KEEP_PLUGINS_MAPPED)
	return true;
#else
	return getenv("SPYGLASS_FREE_AT_EXIT") != NULL;
#endif
}

int main(int argc, char **argv)
{
	struct shell sh = { .x_format = 'x', .x_size = 4 };
	struct options o;
	int status = shell_parse_options(argc, argv, &o, stdout, stderr);
	struct sg_error *err = NULL;
	uint64_t t0 = 0, attach_ns = 0;
	bool released = false;	/* --snapshot: the process runs on */
	if (status >= 0)
		goto out;
	status = 0;
	sh.batch = o.batch;
	sh.json = o.json;

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
	if (!err)
		err = shell_snapshot_register(&sh);
	/* At the prompt, and for attach commands, --snapshot is
	   "set snapshot on".  */
	if (!err && o.snapshot)
		err = sg_setting_set(sh.session, "snapshot on");
	if (err) {
		fprintf(stderr, "spyglass: %s\n", sg_error_message(err));
		sg_error_destroy(err);
		status = EXIT_FATAL;
		goto out;
	}
	if (sh.json)
		sg_setting_set(sh.session, "output-format json");
	/* A batch run on a process lets it go as soon as every command left
	   runs from a snapshot (--no-snapshot: not before the end); without
	   --snapshot, only if they unwind native stacks (release_pays).  */
	bool batch_release = sh.batch && o.pid && !o.no_snapshot;
	the_shell = &sh;
	install_signals();
	sh.interactive = !sh.batch && isatty(STDIN_FILENO);

	sg_plugin_load_defaults(sh.session, report_plugin_error, NULL);
	for (size_t i = 0; i < o.nplugins; i++) {
		if (strchr(o.plugins[i], '/'))
			shell_warn_untrusted("loading plugin", o.plugins[i]);
		err = sg_plugin_load(sh.session, o.plugins[i]);
		if (err) {
			fprintf(stderr, "spyglass: %s\n", sg_error_message(err));
			sg_error_destroy(err);
			status = EXIT_FATAL;
			goto out;
		}
	}

	if (!o.quiet && !sh.batch && sh.interactive)
		printf("spyglass %s. Type \"help\" for a list of commands.\n", sg_version());

	if (o.sysroot)
		err = sg_session_set_sysroot(sh.session, o.sysroot);
	/* A snapshot's copies are made while the process is stopped: the
	   heap they land in is faulted in before.  */
	if (!err && (o.core || o.pid) &&
	    ((o.snapshot && o.pid && !sh.batch) ||
	     will_unwind(sh.session, o.actions, o.nactions, sh.batch)))
		warm_heap();
	if (!err && o.core) {
		err = sg_session_open_core(sh.session, o.core, o.exe);
		if (!err)
			shell_core_opened(&sh, NULL);
	}
	if (!err && o.pid) {
		hint_names(sh.session, o.actions, o.nactions, sh.batch);
		/* The stacks will be unwound from the copy, after the
		   release: nothing to warm up before the stop.  */
		if ((o.snapshot && !sh.batch) ||
		    (batch_release && release_pays(sh.session, &o, o.actions, o.nactions)))
			sg_session_hint_snapshot(sh.session);
		t0 = sg_now_ns();
		err = sg_session_attach(sh.session, o.pid);
		attach_ns = sg_now_ns() - t0;
		/* Without -batch the commands to come are not known: the
		   snapshot is taken at once, as by attach.  */
		if (!err && o.snapshot && !sh.batch) {
			no_snapshot(shell_snapshot_take(&sh, sh.interactive && !sh.json ? sh.out : NULL));
			released = true;
		}
	}
	if (err) {
		/* No target: the commands would only repeat it.  */
		report_error(&sh, err);
		status = EXIT_FATAL;
		goto out;
	}

	if (!o.nx) {
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

	for (size_t i = 0; i < o.nactions && !sh.quit; i++) {
		if (batch_release && !released && live_target(sh.session) &&
		    release_pays(sh.session, &o, o.actions + i, o.nactions - i)) {
			/* Commands that unwind no native stack (py-bt, zeek-bt,
			   info threads) need none copied: the pause is then
			   the stack providers' walk.  */
			bool unwinds = will_unwind(sh.session, o.actions + i, o.nactions - i, true);
			no_snapshot(sg_session_snapshot(sh.session, unwinds ? 0 : NO_UNWIND_STACK_BYTES));
			released = true;
		}
		if (o.actions[i].kind == ACTION_COMMAND) {
			status = shell_run_line(&sh, o.actions[i].text, NULL) ? 0 : EXIT_PARTIAL;
		} else {
			err = shell_source(&sh, o.actions[i].text);
			status = err ? EXIT_PARTIAL : 0;
			if (err && sg_error_code(err) != SG_ERROR_STOP) {
				report_error(&sh, err);
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
	/* A script must not take the answers from a truncated core for
	   whole ones.  */
	if (status == 0 && sh.batch && shell_core_damaged(&sh))
		status = EXIT_PARTIAL;

	struct sg_target *t = sg_session_target(sh.session);
	size_t nthreads = t ? sg_target_thread_count(t) : 0;
	uint64_t detach_t0 = sg_now_ns();
	the_shell = NULL;
	if (t && free_at_exit())
		sg_error_destroy(sg_session_detach(sh.session));
	else if (t)
		sg_session_end(sh.session);
	uint64_t paused_ns = sg_session_last_paused_ns(sh.session);
	uint64_t detach_ns = sg_now_ns() - detach_t0;
	if (o.stats && o.pid) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"stats: threads=%zu attach_us=%.1f paused_us=%.1f detach_us=%.1f maxrss_kb=%ld\n",
			nthreads, attach_ns / 1e3, paused_ns / 1e3, detach_ns / 1e3, ru.ru_maxrss);
	}
out:
	the_shell = NULL;
	if (free_at_exit())
		sg_session_destroy(sh.session);
	else
		sg_session_end(sh.session);
	sg_out_destroy(sh.out);
	shell_options_free(&o);
	return status;
}
