/* info signals (info handle): gdb's table of signals, with the
   dispositions gdb starts with.  spyglass has no "handle" command and
   never resumes the process with a signal, so the table is gdb's
   defaults; the rows are gdb's signals in gdb's order (its own
   numbering, which agrees with Linux's for 1-15 only).  */
#include <config.h>
#include "shell.h"
#include "procinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gdb_signal {
	const char *name;
	bool stop, print, pass;
	const char *description;
};

static const struct gdb_signal signals[] = {
	{ "SIGHUP", true, true, true, "Hangup" },
	{ "SIGINT", true, true, false, "Interrupt" },
	{ "SIGQUIT", true, true, true, "Quit" },
	{ "SIGILL", true, true, true, "Illegal instruction" },
	{ "SIGTRAP", true, true, false, "Trace/breakpoint trap" },
	{ "SIGABRT", true, true, true, "Aborted" },
	{ "SIGEMT", true, true, true, "Emulation trap" },
	{ "SIGFPE", true, true, true, "Arithmetic exception" },
	{ "SIGKILL", true, true, true, "Killed" },
	{ "SIGBUS", true, true, true, "Bus error" },
	{ "SIGSEGV", true, true, true, "Segmentation fault" },
	{ "SIGSYS", true, true, true, "Bad system call" },
	{ "SIGPIPE", true, true, true, "Broken pipe" },
	{ "SIGALRM", false, false, true, "Alarm clock" },
	{ "SIGTERM", true, true, true, "Terminated" },
	{ "SIGURG", false, false, true, "Urgent I/O condition" },
	{ "SIGSTOP", true, true, true, "Stopped (signal)" },
	{ "SIGTSTP", true, true, true, "Stopped (user)" },
	{ "SIGCONT", true, true, true, "Continued" },
	{ "SIGCHLD", false, false, true, "Child status changed" },
	{ "SIGTTIN", true, true, true, "Stopped (tty input)" },
	{ "SIGTTOU", true, true, true, "Stopped (tty output)" },
	{ "SIGIO", false, false, true, "I/O possible" },
	{ "SIGXCPU", true, true, true, "CPU time limit exceeded" },
	{ "SIGXFSZ", true, true, true, "File size limit exceeded" },
	{ "SIGVTALRM", false, false, true, "Virtual timer expired" },
	{ "SIGPROF", false, false, true, "Profiling timer expired" },
	{ "SIGWINCH", false, false, true, "Window size changed" },
	{ "SIGLOST", true, true, true, "Resource lost" },
	{ "SIGUSR1", true, true, true, "User defined signal 1" },
	{ "SIGUSR2", true, true, true, "User defined signal 2" },
	{ "SIGPWR", true, true, true, "Power fail/restart" },
	{ "SIGPOLL", false, false, true, "Pollable event occurred" },
	{ "SIGWIND", true, true, true, "SIGWIND" },
	{ "SIGPHONE", true, true, true, "SIGPHONE" },
	{ "SIGWAITING", false, false, true, "Process's LWPs are blocked" },
	{ "SIGLWP", false, false, true, "Signal LWP" },
	{ "SIGDANGER", true, true, true, "Swap space dangerously low" },
	{ "SIGGRANT", true, true, true, "Monitor mode granted" },
	{ "SIGRETRACT", true, true, true, "Need to relinquish monitor mode" },
	{ "SIGMSG", true, true, true, "Monitor mode data available" },
	{ "SIGSOUND", true, true, true, "Sound completed" },
	{ "SIGSAK", true, true, true, "Secure attention" },
	{ "SIGPRIO", false, false, true, "SIGPRIO" },
	{ "SIG33", true, true, true, "Real-time event 33" },
	{ "SIG34", true, true, true, "Real-time event 34" },
	{ "SIG35", true, true, true, "Real-time event 35" },
	{ "SIG36", true, true, true, "Real-time event 36" },
	{ "SIG37", true, true, true, "Real-time event 37" },
	{ "SIG38", true, true, true, "Real-time event 38" },
	{ "SIG39", true, true, true, "Real-time event 39" },
	{ "SIG40", true, true, true, "Real-time event 40" },
	{ "SIG41", true, true, true, "Real-time event 41" },
	{ "SIG42", true, true, true, "Real-time event 42" },
	{ "SIG43", true, true, true, "Real-time event 43" },
	{ "SIG44", true, true, true, "Real-time event 44" },
	{ "SIG45", true, true, true, "Real-time event 45" },
	{ "SIG46", true, true, true, "Real-time event 46" },
	{ "SIG47", true, true, true, "Real-time event 47" },
	{ "SIG48", true, true, true, "Real-time event 48" },
	{ "SIG49", true, true, true, "Real-time event 49" },
	{ "SIG50", true, true, true, "Real-time event 50" },
	{ "SIG51", true, true, true, "Real-time event 51" },
	{ "SIG52", true, true, true, "Real-time event 52" },
	{ "SIG53", true, true, true, "Real-time event 53" },
	{ "SIG54", true, true, true, "Real-time event 54" },
	{ "SIG55", true, true, true, "Real-time event 55" },
	{ "SIG56", true, true, true, "Real-time event 56" },
	{ "SIG57", true, true, true, "Real-time event 57" },
	{ "SIG58", true, true, true, "Real-time event 58" },
	{ "SIG59", true, true, true, "Real-time event 59" },
	{ "SIG60", true, true, true, "Real-time event 60" },
	{ "SIG61", true, true, true, "Real-time event 61" },
	{ "SIG62", true, true, true, "Real-time event 62" },
	{ "SIG63", true, true, true, "Real-time event 63" },
	{ "SIGCANCEL", false, false, true, "LWP internal signal" },
	{ "SIG32", true, true, true, "Real-time event 32" },
	{ "SIG64", true, true, true, "Real-time event 64" },
	{ "SIG65", true, true, true, "Real-time event 65" },
	{ "SIG66", true, true, true, "Real-time event 66" },
	{ "SIG67", true, true, true, "Real-time event 67" },
	{ "SIG68", true, true, true, "Real-time event 68" },
	{ "SIG69", true, true, true, "Real-time event 69" },
	{ "SIG70", true, true, true, "Real-time event 70" },
	{ "SIG71", true, true, true, "Real-time event 71" },
	{ "SIG72", true, true, true, "Real-time event 72" },
	{ "SIG73", true, true, true, "Real-time event 73" },
	{ "SIG74", true, true, true, "Real-time event 74" },
	{ "SIG75", true, true, true, "Real-time event 75" },
	{ "SIG76", true, true, true, "Real-time event 76" },
	{ "SIG77", true, true, true, "Real-time event 77" },
	{ "SIG78", true, true, true, "Real-time event 78" },
	{ "SIG79", true, true, true, "Real-time event 79" },
	{ "SIG80", true, true, true, "Real-time event 80" },
	{ "SIG81", true, true, true, "Real-time event 81" },
	{ "SIG82", true, true, true, "Real-time event 82" },
	{ "SIG83", true, true, true, "Real-time event 83" },
	{ "SIG84", true, true, true, "Real-time event 84" },
	{ "SIG85", true, true, true, "Real-time event 85" },
	{ "SIG86", true, true, true, "Real-time event 86" },
	{ "SIG87", true, true, true, "Real-time event 87" },
	{ "SIG88", true, true, true, "Real-time event 88" },
	{ "SIG89", true, true, true, "Real-time event 89" },
	{ "SIG90", true, true, true, "Real-time event 90" },
	{ "SIG91", true, true, true, "Real-time event 91" },
	{ "SIG92", true, true, true, "Real-time event 92" },
	{ "SIG93", true, true, true, "Real-time event 93" },
	{ "SIG94", true, true, true, "Real-time event 94" },
	{ "SIG95", true, true, true, "Real-time event 95" },
	{ "SIG96", true, true, true, "Real-time event 96" },
	{ "SIG97", true, true, true, "Real-time event 97" },
	{ "SIG98", true, true, true, "Real-time event 98" },
	{ "SIG99", true, true, true, "Real-time event 99" },
	{ "SIG100", true, true, true, "Real-time event 100" },
	{ "SIG101", true, true, true, "Real-time event 101" },
	{ "SIG102", true, true, true, "Real-time event 102" },
	{ "SIG103", true, true, true, "Real-time event 103" },
	{ "SIG104", true, true, true, "Real-time event 104" },
	{ "SIG105", true, true, true, "Real-time event 105" },
	{ "SIG106", true, true, true, "Real-time event 106" },
	{ "SIG107", true, true, true, "Real-time event 107" },
	{ "SIG108", true, true, true, "Real-time event 108" },
	{ "SIG109", true, true, true, "Real-time event 109" },
	{ "SIG110", true, true, true, "Real-time event 110" },
	{ "SIG111", true, true, true, "Real-time event 111" },
	{ "SIG112", true, true, true, "Real-time event 112" },
	{ "SIG113", true, true, true, "Real-time event 113" },
	{ "SIG114", true, true, true, "Real-time event 114" },
	{ "SIG115", true, true, true, "Real-time event 115" },
	{ "SIG116", true, true, true, "Real-time event 116" },
	{ "SIG117", true, true, true, "Real-time event 117" },
	{ "SIG118", true, true, true, "Real-time event 118" },
	{ "SIG119", true, true, true, "Real-time event 119" },
	{ "SIG120", true, true, true, "Real-time event 120" },
	{ "SIG121", true, true, true, "Real-time event 121" },
	{ "SIG122", true, true, true, "Real-time event 122" },
	{ "SIG123", true, true, true, "Real-time event 123" },
	{ "SIG124", true, true, true, "Real-time event 124" },
	{ "SIG125", true, true, true, "Real-time event 125" },
	{ "SIG126", true, true, true, "Real-time event 126" },
	{ "SIG127", true, true, true, "Real-time event 127" },
	{ "SIGINFO", true, true, true, "Information request" },
	{ "EXC_BAD_ACCESS", true, true, true, "Could not access memory" },
	{ "EXC_BAD_INSTRUCTION", true, true, true, "Illegal instruction/operand" },
	{ "EXC_ARITHMETIC", true, true, true, "Arithmetic exception" },
	{ "EXC_EMULATION", true, true, true, "Emulation instruction" },
	{ "EXC_SOFTWARE", true, true, true, "Software generated exception" },
	{ "EXC_BREAKPOINT", true, true, true, "Breakpoint" },
	{ "SIGLIBRT", false, false, true, "librt internal signal" },
};

static void print_header(struct sg_out *out)
{
	sg_out_printf(out, "Signal        Stop\tPrint\tPass to program\tDescription\n");
}

static void print_signal(struct sg_out *out, const struct gdb_signal *sig)
{
	size_t len = strlen(sig->name);
	sg_out_printf(out, "%s%*s %s\t%s\t%s\t\t%s\n", sig->name, len < 13 ? (int)(13 - len) : 0, "",
		      sig->stop ? "Yes" : "No", sig->print ? "Yes" : "No", sig->pass ? "Yes" : "No",
		      sig->description);
	sg_out_string(out, "name", sig->name);
	sg_out_bool(out, "stop", sig->stop);
	sg_out_bool(out, "print", sig->print);
	sg_out_bool(out, "pass", sig->pass);
	sg_out_string(out, "description", sig->description);
}

const char *shell_gdb_signal_name(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);
	/* gdb's real-time signals keep Linux's numbers: SIG34.  */
	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "SIG%d", sig);
	return buf;
}

const char *shell_gdb_signal_description(int sig)
{
	char name[32];
	shell_gdb_signal_name(sig, name, sizeof(name));
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcmp(signals[i].name, name))
			return signals[i].description;
	return NULL;
}

/* gdb takes a signal by its name (case matters), or by a number from 1
   to 15, which it reads in its own numbering.  */
static struct sg_error *find_signal(struct sg_session *s, const char *arg,
				    const struct gdb_signal **ret)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		if (!strcmp(signals[i].name, arg)) {
			*ret = &signals[i];
			return NULL;
		}
	}
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 0);
	if (end != arg && !*end && !errno) {
		if (n < 1 || n > 15)
			return sg_error_create(SG_ERROR_USAGE,
					       "Only signals 1-15 are valid as numeric signals.\n"
					       "Use \"info signals\" for a list of symbolic signals.");
		*ret = &signals[n - 1];
		return NULL;
	}
	/* gdb evaluates anything else as an expression.  */
	if (!sg_session_target(s))
		return sg_error_create(SG_ERROR_LOOKUP,
				       "No symbol table is loaded.  Use the \"file\" command.");
	return sg_error_format(SG_ERROR_LOOKUP, "No symbol \"%s\" in current context.", arg);
}

static struct sg_error *cmd_info_signals(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg SG_UNUSED)
{
	/* gdb prints the header before it reads the argument.  */
	print_header(out);
	char *copy = strdup(args);
	if (!copy)
		return &sg_enomem;
	size_t n = strlen(copy);
	while (n && (copy[n - 1] == ' ' || copy[n - 1] == '\t'))
		copy[--n] = '\0';
	struct sg_error *err = NULL;
	if (*copy) {
		const struct gdb_signal *sig;
		err = find_signal(s, copy, &sig);
		if (!err) {
			sg_out_array_begin(out, "signals");
			sg_out_object_begin(out, NULL);
			print_signal(out, sig);
			sg_out_object_end(out);
			sg_out_array_end(out);
		}
		free(copy);
		return err;
	}
	free(copy);
	sg_out_printf(out, "\n");
	sg_out_array_begin(out, "signals");
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sg_out_object_begin(out, NULL);
		print_signal(out, &signals[i]);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	sg_out_printf(out, "\nUse the \"handle\" command to change these tables.\n");
	return NULL;
}

static const struct sg_command signal_cmds[] = {
	{ .name = "info signals", .aliases = "handle", .synopsis = "info signals [SIGNAL]",
	  .summary = "What the debugger does when the program gets each signal",
	  .details = "Prints gdb's table: for each signal whether gdb would stop, print it, and\n"
		     "pass it to the program, with its description.  SIGNAL is a name such as\n"
		     "SIGSEGV, or a number from 1 to 15.  spyglass never resumes the program\n"
		     "with a signal and has no \"handle\" command: the table is gdb's defaults.\n"
		     "\"info handle\" is another name for it.",
	  .handler = cmd_info_signals },
};

struct sg_error *shell_register_signal_commands(struct shell *sh)
{
	return shell_register_table(sh, signal_cmds, sizeof(signal_cmds) / sizeof(signal_cmds[0]));
}
