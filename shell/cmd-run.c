/* Run control: continue, kill, and Ctrl-C.

   continue resumes every thread and waits, as gdb's does at its prompt,
   until Ctrl-C, a signal or the process's exit; then it says why in
   gdb's words.  Nothing is written into the target (lib/runctl.c).  */
#include <config.h>
#include "shell.h"
#include "eval.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Thread 2 "sleeper-0"" or, for a program with one thread, "Program",
   as gdb begins the line of a stop.  */
static void stop_subject(struct sg_target *t, pid_t tid, char *buf, size_t size)
{
	struct sg_thread *th = tid ? sg_target_thread_by_tid(t, tid) : NULL;
	if (!th || sg_target_thread_count(t) < 2) {
		snprintf(buf, size, "Program");
		return;
	}
	const char *name = sg_thread_name(th);
	if (name[0])
		snprintf(buf, size, "Thread %zu \"%s\"", sg_thread_index(th) + 1, name);
	else
		snprintf(buf, size, "Thread %zu", sg_thread_index(th) + 1);
}

/* The selected thread's frame 0 as gdb shows it at a stop: the frame
   line without its "#0  ", then its source line.  */
static void show_stop_frame(struct shell *sh, struct sg_out *out)
{
	FILE *f = sg_out_file(out);
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(sh->session, &st);
	if (err) {
		struct sg_thread *th = sg_session_thread(sh->session);
		if (th && f && !sg_out_json(out)) {
			char frame[1024];
			shell_describe_pc(sg_session_target(sh->session),
					  sg_thread_regs(th)->r[SG_REG_RIP], frame, sizeof(frame));
			fprintf(f, "%s\n", frame);
		}
		sg_error_destroy(err);
		return;
	}
	const struct sg_frame *fr = sg_stack_frame(st, 0);
	if (!fr)
		return;
	if (f && !sg_out_json(out)) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			shell_format_frame(sh, st, fr, m);
			fclose(m);
			const char *p = text ? text : "";
			if (!strncmp(p, "#0", 2))
				p += 2 + strspn(p + 2, " ");
			fputs(p, f);
			free(text);
		}
	}
	shell_source_frame_line(sh, fr, out);
}

/* The line of a signal, gdb's: "Thread 1 "t" received signal SIGINT,
   Interrupt."  */
static void report_signal(struct shell *sh, const struct sg_run_event *ev, struct sg_out *out)
{
	struct sg_target *t = sg_session_target(sh->session);
	struct sg_thread *th = sg_session_thread(sh->session);
	pid_t tid = ev->tid ? ev->tid : th ? sg_thread_tid(th) : 0;
	char who[128];
	stop_subject(t, tid, who, sizeof(who));
	char name[32];
	shell_gdb_signal_name(ev->signal, name, sizeof(name));
	sg_out_printf(out, "\n%s received signal %s, %s.\n", who, name,
		      shell_signal_description(ev->signal));
	sg_out_string(out, "reason", ev->kind == SG_RUN_INTERRUPTED ? "interrupted" : "signal");
	sg_out_string(out, "signal", name);
	if (th) {
		sg_out_uint(out, "thread", sg_thread_index(th) + 1);
		sg_out_int(out, "tid", sg_thread_tid(th));
	}
	show_stop_frame(sh, out);
	shell_show_displays(sh, out);
}

/* How the process ended, gdb's words.  */
static void report_end(const struct sg_run_event *ev, struct sg_out *out)
{
	sg_out_int(out, "pid", ev->pid);
	if (ev->kind == SG_RUN_SIGNALED) {
		char name[32];
		shell_gdb_signal_name(ev->signal, name, sizeof(name));
		sg_out_printf(out, "\nProgram terminated with signal %s, %s.\n"
				   "The program no longer exists.\n",
			      name, shell_signal_description(ev->signal));
		sg_out_string(out, "reason", "signaled");
		sg_out_string(out, "signal", name);
		return;
	}
	/* gdb writes the code in octal, after a 0.  */
	if (ev->exit_code)
		sg_out_printf(out, "[Inferior 1 (process %d) exited with code 0%o]\n", (int)ev->pid,
			      (unsigned)ev->exit_code);
	else
		sg_out_printf(out, "[Inferior 1 (process %d) exited normally]\n", (int)ev->pid);
	sg_out_string(out, "reason", "exited");
	sg_out_int(out, "exit_code", ev->exit_code);
}

static struct sg_error *cmd_continue(struct sg_session *s, const char *args, struct sg_out *out,
				     void *arg)
{
	struct shell *sh = arg;
	struct sg_target *t = sg_session_target(s);
	if (!t || sg_target_kind(t) != SG_TARGET_LIVE)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	if (*args) {
		/* gdb's N is an ignore count for the breakpoint stopped at;
		   there are none.  */
		char *end;
		errno = 0;
		long n = strtol(args, &end, 10);
		end += strspn(end, " \t");
		if (*end || errno || n < 0)
			return sg_error_format(SG_ERROR_USAGE, "Invalid number \"%s\".", args);
		sg_out_printf(out, "Not stopped at any breakpoint; argument ignored.\n");
	}
	if (sh->interactive && !sg_out_json(out))
		sg_out_printf(out, "Continuing.\n");
	/* The frame the attach showed is gdb's first source location, whose
	   file it said was missing if it was.  */
	shell_source_sync(sh);
	/* What was printed shows before the wait.  */
	fflush(stdout);
	struct sg_run_event ev;
	/* gdb's value history outlives the process: values printed after
	   the exit go on from its last number.  */
	unsigned values = sg_history_count(s);
	struct sg_error *err = sg_session_continue(s, &ev);
	if (err)
		return err;
	if (ev.kind == SG_RUN_EXITED || ev.kind == SG_RUN_SIGNALED) {
		sh->loose_values = values;
		report_end(&ev, out);
	}
	else
		report_signal(sh, &ev, out);
	return NULL;
}

/* gdb's query: QUESTION "(y or n) " on the terminal, a line read from
   it.  Ctrl-C during it is a Quit, end of input a yes.  Not at a
   terminal, gdb says the answer it took.  */
static struct sg_error *query(struct shell *sh, const char *question, bool *yes)
{
	*yes = true;
	if (!sg_setting_uint(sh->session, "confirm", 1) || sg_out_json(sh->out))
		return NULL;
	if (!sh->interactive) {
		printf("%s(y or n) [answered Y; input not from terminal]\n", question);
		return NULL;
	}
	for (;;) {
		printf("%s(y or n) ", question);
		fflush(stdout);
		/* Byte by byte: readline reads the rest of what is typed.  */
		char line[64];
		size_t n = 0;
		bool eof = false;
		for (;;) {
			char c;
			ssize_t r = read(STDIN_FILENO, &c, 1);
			if (r < 0 && errno == EINTR) {
				if (sg_interrupt_pending()) {
					printf("\n");
					return sg_interrupt_error();
				}
				continue;
			}
			if (r <= 0) {
				eof = true;
				break;
			}
			if (c == '\n')
				break;
			if (n + 1 < sizeof(line))
				line[n++] = c;
		}
		line[n] = '\0';
		if (eof) {
			printf("EOF [answered Y; input not from terminal]\n");
			return NULL;
		}
		const char *p = line + strspn(line, " \t");
		if (*p == 'y' || *p == 'Y')
			return NULL;
		if (*p == 'n' || *p == 'N') {
			*yes = false;
			return NULL;
		}
		printf("Please answer y or n.\n");
	}
}

static struct sg_error *cmd_kill(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	struct shell *sh = arg;
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	if (sg_target_kind(t) != SG_TARGET_LIVE)
		return sg_error_create(SG_ERROR_TARGET, "You can't do that without a process to debug.");
	if (*args)
		return sg_error_format(SG_ERROR_USAGE, "Usage: kill (no arguments; got \"%s\")", args);
	/* Refused before the question: nothing to confirm.  */
	if (sg_target_is_snapshot(t, NULL)) {
		pid_t pid;
		return sg_session_kill(s, &pid);
	}
	bool yes;
	struct sg_error *err = query(sh, "Kill the program being debugged? ", &yes);
	if (err)
		return err;
	if (!yes)
		return sg_error_create(SG_ERROR_USAGE, "Not confirmed.");
	pid_t pid;
	err = sg_session_kill(s, &pid);
	if (err)
		return err;
	sg_out_printf(out, "[Inferior 1 (process %d) killed]\n", (int)pid);
	sg_out_int(out, "pid", pid);
	return NULL;
}

static const struct sg_command run_cmds[] = {
	{ .name = "continue", .aliases = "c fg", .synopsis = "continue [N]",
	  .summary = "Let the process run until Ctrl-C, a signal or its exit",
	  .details = "Resumes every thread and waits, as gdb's continue does at its prompt.\n"
		     "Ctrl-C stops them all again and shows where the thread SIGINT would\n"
		     "have reached is (\"Thread 1 \"name\" received signal SIGINT, Interrupt.\").\n"
		     "A signal the process receives stops it too, and is delivered when it\n"
		     "runs again, except the ones gdb lets through silently (SIGALRM, SIGCHLD,\n"
		     "SIGWINCH, SIGPROF, SIGVTALRM, SIGURG, SIGIO).  When the process exits\n"
		     "or is killed, spyglass says so and goes on without a target.  Nothing\n"
		     "is written into the process: there are no breakpoints, so N (gdb's\n"
		     "ignore count) is ignored.",
	  .handler = cmd_continue },
	{ .name = "kill", .aliases = "k", .synopsis = "kill",
	  .summary = "Kill the process (SIGKILL) and go on without a target",
	  .details = "At a terminal it asks first (set confirm off does not); elsewhere it\n"
		     "says the answer it took, as gdb does.",
	  .handler = cmd_kill },
};

struct sg_error *shell_register_run_commands(struct shell *sh)
{
	return shell_register_table(sh, run_cmds, sizeof(run_cmds) / sizeof(run_cmds[0]));
}
