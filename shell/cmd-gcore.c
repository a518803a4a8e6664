/* generate-core-file (gcore): an ELF core of the attached process, which
   runs on afterwards.  */
#include <config.h>
#include "complete.h"
#include "shell.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.3 MiB", "512 KiB", "1.0 GiB".  */
static void format_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (UINT64_C(1) << 30))
		snprintf(buf, size, "%.1f GiB", bytes / (double)(UINT64_C(1) << 30));
	else if (bytes >= (UINT64_C(1) << 20))
		snprintf(buf, size, "%.1f MiB", bytes / (double)(UINT64_C(1) << 20));
	else
		snprintf(buf, size, "%.0f KiB", bytes / 1024.0);
}

/* "45.6 ms", or "2.35 s" from ten seconds on.  */
static void format_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns >= 10000000000u)
		snprintf(buf, size, "%.2f s", ns / 1e9);
	else
		snprintf(buf, size, "%.1f ms", ns / 1e6);
}

static struct sg_error *cmd_gcore(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	pid_t pid = sg_target_pid(t);
	char def[32];
	snprintf(def, sizeof(def), "core.%d", (int)pid);
	/* One file name; trailing blanks dropped.  */
	char *path = strdup(*args ? args : def);
	if (!path)
		return &sg_enomem;
	size_t len = strlen(path);
	while (len && (path[len - 1] == ' ' || path[len - 1] == '\t'))
		path[--len] = '\0';
	struct sg_core_write_stats st;
	struct sg_error *err = sg_core_write(t, path, &st);
	if (err) {
		free(path);
		return err;
	}
	uint64_t paused = sg_target_paused_ns(t);
	char mem[32], took[32], pause[32];
	format_size(st.memory, mem, sizeof(mem));
	format_duration(st.elapsed_ns, took, sizeof(took));
	format_duration(paused, pause, sizeof(pause));
	sg_out_printf(out, "Saved corefile %s\n", path);
	sg_out_printf(out, "(%s of memory in %s; process %d paused %s)\n", mem, took, (int)pid,
		      pause);
	sg_out_string(out, "path", path);
	sg_out_uint(out, "bytes", st.bytes);
	sg_out_uint(out, "memory", st.memory);
	sg_out_uint(out, "segments", st.segments);
	sg_out_uint(out, "elapsed_us", st.elapsed_ns / 1000);
	sg_out_uint(out, "paused_us", paused / 1000);
	free(path);
	return NULL;
}

static const struct sg_command gcore_cmds[] = {
	{ .name = "generate-core-file", .aliases = "gcore", .synopsis = "generate-core-file [FILE]",
	  .summary = "Write an ELF core of the process, which then runs on",
	  .details = "FILE defaults to core.PID.  The core holds every thread's registers, the\n"
		     "process's memory as the kernel would dump it under\n"
		     "/proc/PID/coredump_filter, and the notes gdb reads (NT_FILE, NT_PRPSINFO,\n"
		     "NT_SIGINFO, NT_AUXV).  It is written under a temporary name and renamed, so\n"
		     "a failure leaves no partial file.  spyglass -c and gdb -c read it.",
	  .handler = cmd_gcore, .complete = sg_complete_filename, .flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS },
};

struct sg_error *shell_register_gcore_command(struct shell *sh)
{
	return shell_register_table(sh, gcore_cmds, sizeof(gcore_cmds) / sizeof(gcore_cmds[0]));
}
