/* Shell commands: help, set/show, echo, source, plugin, quit, shell, and the
   prefix commands that group the others.  */
#include <config.h>
#include "complete.h"
#include "shell.h"
#include "compat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>


static struct sg_error *cmd_help(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	return sg_command_help(s, args, out);
}

static void add_completion(const char *candidate, void *c)
{
	sg_completions_add(c, candidate);
}

/* "help inf<TAB>" completes like a command line.  */
static void complete_command_name(struct sg_session *s, const char *args, size_t ws,
				  const char *word, struct sg_completions *c, void *arg)
{
	sg_command_complete(s, args, strlen(args), add_completion, c);
}

static struct sg_error *cmd_set(struct sg_session *s, const char *args, struct sg_out *out,
				void *arg)
{
	/* The shell applies output-format after this command ends, so the
	   command's own result keeps the format it started in.  */
	struct sg_error *err = sg_setting_set(s, args);
	if (!err || sg_error_code(err) != SG_ERROR_LOOKUP)
		return err;
	/* A name the registry does not know may be one of gdb's settings
	   that compat-settings.c keeps (set logging file F).  */
	bool handled;
	struct sg_error *cerr = compat_set(arg, args, &handled);
	if (!handled)
		return err;
	sg_error_destroy(err);
	return cerr;
}

static struct sg_error *cmd_show(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	struct shell *sh = arg;
	if (!*args) {
		struct sg_error *err = sg_setting_show(s, args, out);
		if (!err)
			compat_show(sh, args, out, "more_settings", false);
		return err;
	}
	/* The registry first: a setting a plugin or another command
	   registers wins over compat-settings.c's of the same name, as in
	   cmd_set.  */
	struct sg_error *err = sg_setting_show(s, args, out);
	if (!err) {
		/* "show print" lists "print symbol-loading" too.  */
		compat_show(sh, args, out, "more_settings", false);
		return NULL;
	}
	/* "show logging file"; "show logging", where gdb names each of
	   the group's settings.  */
	if (sg_error_code(err) == SG_ERROR_LOOKUP && compat_show(sh, args, out, "settings", true)) {
		sg_error_destroy(err);
		return NULL;
	}
	return err;
}

/* gdb's echo: C escapes, no newline unless asked for.  */
static struct sg_error *cmd_echo(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	char *text = malloc(strlen(args) + 1);
	if (!text)
		return &sg_enomem;
	size_t n = 0;
	for (const char *p = args; *p; p++) {
		if (*p != '\\') {
			text[n++] = *p;
			continue;
		}
		switch (*++p) {
		case 'n': text[n++] = '\n'; break;
		case 't': text[n++] = '\t'; break;
		case 'a': text[n++] = '\a'; break;
		case '\\': text[n++] = '\\'; break;
		case '"': text[n++] = '"'; break;
		case '\0': p--; break;	/* a final backslash continues nothing */
		default: text[n++] = *p; break;
		}
	}
	text[n] = '\0';
	sg_out_printf(out, "%s", text);
	sg_out_string(out, "text", text);
	free(text);
	return NULL;
}

static struct sg_error *cmd_source(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "source command requires file name of file to source.");
	/* The file's own commands write their own results; this command
	   writes an empty object in JSON mode.  */
	return shell_source(arg, args);
}

static struct sg_error *cmd_plugin_load(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Usage: plugin load PATH");
	if (strchr(args, '/'))
		shell_warn_untrusted("loading plugin", args);
	struct sg_error *err = sg_plugin_load(s, args);
	if (err)
		return err;
	sg_out_printf(out, "Loaded plugin from %s\n", args);
	sg_out_string(out, "loaded", args);
	return NULL;
}

static struct sg_error *cmd_plugin_list(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	sg_plugin_list(s, out);
	return NULL;
}

struct reg_list {
	struct sg_out *out;
	enum sg_registry_kind kind;
	size_t n;
};

static int list_entry(const struct sg_registry_entry *e, void *argp)
{
	struct reg_list *a = argp;
	a->n++;
	sg_out_printf(a->out, "  %-16s %-20s priority %-4d %s%s\n", sg_registry_kind_name(a->kind),
		      e->name, e->priority, e->pattern ? e->pattern : "",
		      e->plugin ? "" : " (core)");
	sg_out_object_begin(a->out, NULL);
	sg_out_string(a->out, "kind", sg_registry_kind_name(a->kind));
	sg_out_string(a->out, "name", e->name);
	sg_out_int(a->out, "priority", e->priority);
	sg_out_string(a->out, "pattern", e->pattern);
	sg_out_string(a->out, "plugin", e->plugin);
	sg_out_object_end(a->out);
	return SG_CB_OK;
}

static struct sg_error *cmd_info_registries(struct sg_session *s, const char *args,
					    struct sg_out *out, void *arg)
{
	struct reg_list a = { out, 0, 0 };
	sg_out_array_begin(out, "handlers");
	for (int k = 0; k < SG_REGISTRY_NKINDS; k++) {
		a.kind = k;
		sg_registry_foreach(s, k, list_entry, &a);
	}
	sg_out_array_end(out);
	if (!a.n)
		sg_out_printf(out, "No unwinders, readers or stack providers are registered.\n");
	return NULL;
}

static struct sg_error *cmd_quit(struct sg_session *s, const char *args, struct sg_out *out,
				 void *arg)
{
	struct shell *sh = arg;
	int status = 0;
	if (*args) {
		char *end;
		errno = 0;
		long v = strtol(args, &end, 0);
		if (*end || end == args)
			return sg_error_format(SG_ERROR_USAGE, "Usage: quit [STATUS]");
		/* The status is taken modulo 256, as exit() does, but only of
		   a number that fits: a larger one is a mistake, not 255.  */
		if (errno == ERANGE)
			return sg_error_format(SG_ERROR_USAGE, "Numeric constant too large: %s", args);
		status = (int)(v & 0xff);
	}
	sh->quit = true;
	sh->quit_status = status;
	return NULL;
}

static struct sg_error *cmd_shell(struct sg_session *s, const char *args, struct sg_out *out,
				  void *arg)
{
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Usage: shell COMMAND");
	fflush(stdout);
	int status = system(args);
	if (status < 0)
		return sg_error_os(errno, "cannot run \"%s\"", args);
	sg_out_int(out, "status", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (WIFEXITED(status) && WEXITSTATUS(status))
		return sg_error_format(SG_ERROR_OTHER, "\"%s\" exited with status %d", args,
				       WEXITSTATUS(status));
	return NULL;
}

static const struct sg_command misc_cmds[] = {
	{ .name = "help", .aliases = "h", .synopsis = "help [COMMAND]",
	  .summary = "Describe commands",
	  .details = "Without COMMAND, lists every command with its summary.  With one, its\n"
		     "summary, usage and help, and the subcommands of a prefix such as\n"
		     "\"info\".  \"apropos WORD\" searches the help of every command.",
	  .handler = cmd_help, .complete = complete_command_name,
	  .flags = SG_CMD_NO_STACKS },
	{ .name = "info", .aliases = "i", .synopsis = "info SUBCOMMAND",
	  .summary = "Show things about the target and spyglass",
	  .details = "A prefix: \"help info\" lists its subcommands." },
	{ .name = "info registries", .synopsis = "info registries",
	  .summary = "List the unwinders, typed readers and stack providers",
	  .details = "Each handler that the core and the plugins registered: its kind, name,\n"
		     "priority and the type pattern it serves (doc/plugins.md).",
	  .handler = cmd_info_registries },
	{ .name = "set", .synopsis = "set SETTING VALUE", .summary = "Change a setting",
	  .details = "Settings: print elements N|unlimited, print pretty on|off,\n"
		     "output-format text|json, backtrace limit N|unlimited,\n"
		     "backtrace past-main on|off, confirm on|off, snapshot on|off,\n"
		     "logging enabled|file|overwrite|redirect (a copy of the output in a file),\n"
		     "debuginfod enabled on|off|ask (off: never ask DEBUGINFOD_URLS's servers),\n"
		     "history filename|save|size (the prompt's history);\n"
		     "and, accepted for gdb's scripts but with no effect here: pagination,\n"
		     "height, width, verbose, print object, print static-members,\n"
		     "print symbol-loading, style enabled, auto-load safe-path,\n"
		     "breakpoint pending, disassemble-next-line, python print-stack,\n"
		     "history expansion.\n"
		     "Words may be abbreviated.  \"show\" lists them.",
	  .handler = cmd_set, .complete = compat_complete_setting, .flags = SG_CMD_NO_STACKS },
	{ .name = "show", .synopsis = "show [SETTING]", .summary = "Show settings",
	  .details = "Without SETTING, every setting; with the first words of several\n"
		     "(\"show print\", \"show logging\"), each of them.  Each line is\n"
		     "gdb's: \"State of pagination is off.\"",
	  .handler = cmd_show, .complete = compat_complete_setting, .flags = SG_CMD_NO_STACKS },
	{ .name = "echo", .synopsis = "echo TEXT", .summary = "Print text (with C escapes such as \\n)",
	  .details = "No newline is added: end TEXT with \\n for one.  \\t, \\a, \\\\ and \\\"\n"
		     "are the other escapes.",
	  .handler = cmd_echo, .flags = SG_CMD_NO_STACKS },
	{ .name = "source", .synopsis = "source FILE", .summary = "Run the commands in a file",
	  .details = "The file stops at its first error, reported as FILE:LINE: message.\n"
		     "Lines starting with # are comments; empty lines do nothing.",
	  .handler = cmd_source, .complete = sg_complete_filename },
	{ .name = "plugin", .synopsis = "plugin SUBCOMMAND", .summary = "Load and list plugins",
	  .details = "A prefix: \"help plugin\" lists its subcommands (doc/plugins.md)." },
	{ .name = "plugin load", .synopsis = "plugin load PATH|NAME",
	  .summary = "Load a plugin",
	  .details = "A NAME without '/' is looked for in the plugin folder and in\n"
		     "SPYGLASS_PLUGIN_PATH.  The plugin's ABI note is checked before any of\n"
		     "its code runs.",
	  .handler = cmd_plugin_load },
	{ .name = "plugin list", .synopsis = "plugin list", .summary = "List the loaded plugins",
	  .details = "Each plugin's name, version, file and what it registered.",
	  .handler = cmd_plugin_list },
	{ .name = "quit", .aliases = "q exit", .synopsis = "quit [STATUS]",
	  .summary = "Detach and exit",
	  .details = "The target runs on.  STATUS is the exit status (0 by default).",
	  .handler = cmd_quit },
	{ .name = "shell", .synopsis = "shell COMMAND", .summary = "Run a shell command",
	  .details = "COMMAND runs with /bin/sh; a non-zero exit status is an error.",
	  .handler = cmd_shell },
};

struct sg_error *shell_register_table(struct shell *sh, const struct sg_command *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sg_error *err = sg_command_register(sh->session, &cmds[i], sh);
		if (err)
			return err;
	}
	return NULL;
}

struct sg_error *shell_register_commands(struct shell *sh)
{
	struct sg_error *err = shell_register_table(sh, misc_cmds,
						    sizeof(misc_cmds) / sizeof(misc_cmds[0]));
	if (!err)
		err = shell_register_target_commands(sh);
	if (!err)
		err = shell_register_x_command(sh);
	if (!err)
		err = shell_register_stack_commands(sh);
	if (!err)
		err = shell_register_data_commands(sh);
	if (!err)
		err = shell_register_maint_commands(sh);
	if (!err)
		err = shell_register_core_commands(sh);
	if (!err)
		err = shell_register_gcore_command(sh);
	if (!err)
		err = shell_register_record_command(sh);
	if (!err)
		err = shell_register_proc_commands(sh);
	if (!err)
		err = shell_register_source_commands(sh);
	if (!err)
		err = shell_register_disas_commands(sh);
	if (!err)
		err = shell_register_run_commands(sh);
	if (!err)
		err = shell_register_procinfo_commands(sh);
	if (!err)
		err = shell_register_lookup_commands(sh);
	if (!err)
		err = shell_register_compat_commands(sh);
	return err;
}
