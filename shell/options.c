/* spyglass's command line: gdb's options (-p, -x, -ex, -batch, -q, -nx) and
   ours, parsed apart from main() so that a fuzz target can run it.  */
#include <config.h>
#include "shell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
"Usage: spyglass [OPTION]... [EXECUTABLE [CORE|PID]] [-- COMMAND...]\n"
"A debugger shell for Linux: inspect a live process or a core without gdb.\n"
"\n"
"  -p, --pid PID          attach to process PID\n"
"  -c, --core CORE        open the core file CORE (EXECUTABLE: its program)\n"
"  --sysroot DIR          look for the files a core names under DIR\n"
"  -x, --command FILE     run the commands in FILE (stops at its first error)\n"
"  -ex, --eval-command CMD  run CMD (repeatable; later ones run even if it fails)\n"
"  -batch                 exit after the -x and -ex commands\n"
"  -q, -quiet             do not print the banner\n"
"  -nx                    do not read ~/.spyglassrc\n"
"  --json                 print each command's result as one JSON object per line\n"
"  --plugin PATH          load a plugin (repeatable)\n"
"  --stats                print attach and pause times to stderr at exit\n"
"  --snapshot             stop, copy, resume: with -batch, let the process run\n"
"                         once every command left runs from the copy (bt,\n"
"                         info threads, py-bt, ...), the default when they\n"
"                         unwind native stacks; else as \"set snapshot on\"\n"
"  --no-snapshot          with -batch, keep the process stopped to the end\n"
"  --version              print the version and exit\n"
"  --help                 print this help and exit\n"
"\n"
"  spyglass -p PID -- CMD ARGS...   runs one command in batch mode.\n"
"  spyglass EXECUTABLE CORE|PID     as gdb: a core if a file of that name\n"
"                                   exists, else a process if a number.\n"
"\n"
"Plugins load from %s, then from the folders in\n"
"SPYGLASS_PLUGIN_PATH (colon separated).  A plugin or ~/.spyglassrc that\n"
"others could have written is not loaded, unless it is under a folder of\n"
"SPYGLASS_SAFE_PATH (colon separated).\n"
"\n"
"Exit status: 0 success; 1 the last command or -x file failed;\n"
"2 fatal (could not attach or open the core); 64 usage error.\n",
		sg_plugin_dir());
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

void shell_options_free(struct options *o)
{
	free(o->actions);
	free(o->plugins);
	free(o->dashdash);
	memset(o, 0, sizeof(*o));
}

int shell_parse_options(int argc, char **argv, struct options *o, FILE *out, FILE *errf)
{
	memset(o, 0, sizeof(*o));
	o->actions = calloc(argc + 1, sizeof(*o->actions));
	o->plugins = calloc(argc + 1, sizeof(*o->plugins));
	if (!o->actions || !o->plugins) {
		fprintf(errf, "spyglass: out of memory\n");
		return EXIT_FATAL;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		/* The option's value: inline after "=", else the next argument.  */
#define VALUE()								\
	({								\
		const char *val_ = v;					\
		if (!val_) {						\
			if (i + 1 >= argc) {				\
				fprintf(errf, "spyglass: option %s needs a value\n", a); \
				return EXIT_USAGE;			\
			}						\
			val_ = argv[++i];				\
		}							\
		val_;							\
	})
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc) {
				fprintf(errf, "spyglass: \"--\" must be followed by a command\n");
				return EXIT_USAGE;
			}
			if (!(o->dashdash = join_args(argv + i + 1, argc - i - 1))) {
				fprintf(errf, "spyglass: out of memory\n");
				return EXIT_FATAL;
			}
			break;
		} else if (opt(a, "p", &v) || opt(a, "pid", &v)) {
			const char *s = VALUE();
			if (!parse_pid(s, &o->pid)) {
				fprintf(errf, "spyglass: invalid process ID \"%s\"\n", s);
				return EXIT_USAGE;
			}
		} else if (opt(a, "c", &v) || opt(a, "core", &v)) {
			o->core = VALUE();
		} else if (opt(a, "sysroot", &v)) {
			o->sysroot = VALUE();
		} else if (a[0] != '-' || !a[1]) {
			/* gdb's EXECUTABLE [CORE|PID]: a number that names no
			   file is a process.  */
			if (!o->exe) {
				o->exe = a;
			} else if (!o->core && !o->pid && access(a, F_OK) != 0 && parse_pid(a, &o->pid)) {
			} else if (!o->core && !o->pid) {
				o->core = a;
			} else {
				fprintf(errf, "spyglass: unexpected argument \"%s\"\n"
					      "Try \"spyglass --help\".\n", a);
				return EXIT_USAGE;
			}
		} else if (opt(a, "x", &v) || opt(a, "command", &v)) {
			o->actions[o->nactions++] = (struct action){ ACTION_FILE, VALUE() };
		} else if (opt(a, "ex", &v) || opt(a, "eval-command", &v)) {
			o->actions[o->nactions++] = (struct action){ ACTION_COMMAND, VALUE() };
		} else if (opt(a, "batch", &v) && !v) {
			o->batch = true;
		} else if ((opt(a, "q", &v) || opt(a, "quiet", &v) || opt(a, "silent", &v)) && !v) {
			o->quiet = true;
		} else if ((opt(a, "nx", &v) || opt(a, "n", &v)) && !v) {
			o->nx = true;
		} else if (opt(a, "json", &v) && !v) {
			o->json = true;
		} else if (opt(a, "plugin", &v)) {
			o->plugins[o->nplugins++] = VALUE();
		} else if (opt(a, "stats", &v) && !v) {
			o->stats = true;
		} else if (opt(a, "snapshot", &v) && !v) {
			o->snapshot = true;
			o->no_snapshot = false;
		} else if (opt(a, "no-snapshot", &v) && !v) {
			o->no_snapshot = true;
			o->snapshot = false;
		} else if ((opt(a, "version", &v) || opt(a, "v", &v)) && !v) {
			fprintf(out, "spyglass %s\n", sg_version());
			return 0;
		} else if ((opt(a, "help", &v) || opt(a, "h", &v)) && !v) {
			usage(out);
			return 0;
		} else {
			fprintf(errf, "spyglass: unknown option or argument \"%s\"\n"
				      "Try \"spyglass --help\".\n", a);
			return EXIT_USAGE;
		}
#undef VALUE
	}
	if (o->core && o->pid) {
		fprintf(errf, "spyglass: -p and a core file exclude each other\n");
		return EXIT_USAGE;
	}
	if (o->exe && !o->core && !o->pid) {
		fprintf(errf, "spyglass: %s: give a core (-c CORE) or a process (-p PID) with the executable\n",
			o->exe);
		return EXIT_USAGE;
	}
	if (o->dashdash) {
		o->actions[o->nactions++] = (struct action){ ACTION_COMMAND, o->dashdash };
		o->batch = true;
	}
	return -1;
}
