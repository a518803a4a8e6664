/* The spyglass program: shared state of the shell's files.  */
#ifndef SG_SHELL_H
#define SG_SHELL_H

#include <spyglass/spyglass.h>
#include <stdio.h>

struct shell {
	struct sg_session *session;
	struct sg_out *out;
	bool json;		/* --json */
	bool batch;
	bool interactive;	/* readline at a terminal */
	bool quit;		/* "quit" was run */
	int quit_status;
	int source_depth;
	bool sourcing_rc;	/* ~/.spyglassrc, already checked */
	bool in_thread_apply;	/* commands write into the thread's JSON object */
	unsigned value_history;	/* the last $N of print */

	/* "x" remembers its last format, size and next address, as gdb does. */
	char x_format;
	int x_size;
	uint64_t x_next;
	bool x_next_valid;
};

/* Exit statuses: 1 the last command (or -x file) failed; 2 fatal (the -p
   attach failed); 64 usage error.  */
enum { EXIT_PARTIAL = 1, EXIT_FATAL = 2, EXIT_USAGE = 64 };

/* The command line (options.c).  */
enum action_kind { ACTION_COMMAND, ACTION_FILE };
struct action {
	enum action_kind kind;
	const char *text;	/* in argv, or the options' dashdash */
};
struct options {
	pid_t pid;
	bool batch, quiet, nx, json, stats;
	struct action *actions;	/* -x and -ex in order, then "-- CMD" */
	size_t nactions;
	const char **plugins;	/* --plugin */
	size_t nplugins;
	char *dashdash;		/* the words after "--", joined */
};
/* Parse ARGV into *O.  -1 to go on; otherwise the exit status, after
   --help or --version wrote to OUT, or an error line went to ERRF.  Free
   *O with shell_options_free in either case.  */
int shell_parse_options(int argc, char **argv, struct options *o, FILE *out, FILE *errf);
void shell_options_free(struct options *o);

/* Register the N rows of CMDS, with the shell as their argument.  */
struct sg_error *shell_register_table(struct shell *sh, const struct sg_command *cmds, size_t n);

/* Register the built-in commands: all of them, and each file's own.  */
struct sg_error *shell_register_commands(struct shell *sh);
struct sg_error *shell_register_target_commands(struct shell *sh);
struct sg_error *shell_register_x_command(struct shell *sh);
struct sg_error *shell_register_stack_commands(struct shell *sh);
struct sg_error *shell_register_data_commands(struct shell *sh);
struct sg_error *shell_register_maint_commands(struct shell *sh);

/* Run one command line, print its error (prefixed with WHERE, e.g.
   "cmds.sg:2", when not NULL), and return whether it succeeded.  */
bool shell_run_line(struct shell *sh, const char *line, const char *where);

/* Run the commands of FILE; stop at the first error.  */
struct sg_error *shell_source(struct shell *sh, const char *path);

/* Run commands from STREAM, named NAME in errors; with STOP_ON_ERROR stop at
   the first failing line.  Returns whether the last command succeeded.  */
bool shell_run_stream(struct shell *sh, FILE *stream, const char *name, bool stop_on_error);
/* A line of F, with its newline, into *LINE (of *CAP bytes, grown as
   needed): its length, or -1 at the end of the file or on an error, which
   is then in *ERR (a line over 1 MiB, no memory, a read error).  */
ssize_t shell_read_line(FILE *f, char **line, size_t *cap, struct sg_error **err);
/* A warning on stderr when the file at PATH, which the user asked to
   load or run (WHAT: "loading plugin", "running"), could have been
   written by others (sg_trust_check).  */
void shell_warn_untrusted(const char *what, const char *path);

/* The interactive prompt.  */
void shell_repl(struct shell *sh);

/* " <symbol+offset>" for ADDR as gdb writes it after an address (the DWARF
   function's name for code, as gdb prefers it to an alias), or "" when
   no symbol covers it (valprint.c).  */
void shell_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size);

/* Describe PC as gdb does in frame lines: "0x... in sym () from lib".  */
void shell_describe_pc(struct sg_target *t, uint64_t pc, char *buf, size_t size);

/* The address EXPR names, as gdb's x takes it (a pointer's value, where
   an array or function is, an integer), evaluated in the selected frame.  */
struct sg_error *shell_eval_address(struct shell *sh, const char *expr, uint64_t *ret);

/* Print frame F of ST as gdb does: "#3  0x... in f () at file.c:42".  */
struct sg_stack;
struct sg_frame;
/* The same, numbered NUMBER instead of the frame's level (merged stacks).  */
void shell_format_frame_as(struct shell *sh, const struct sg_stack *st, const struct sg_frame *f,
			   size_t number, FILE *out);
/* A frame's JSON object, left open for more members.  */
void shell_frame_json_open(struct sg_out *out, const struct sg_frame *f);
/* A runtime whose frames bt merges: bt --python, bt --zeek.  */
struct shell_runtime {
	const char *option;	/* "python": the bt option without "--" */
	const char *provider;	/* the stack provider's name, "cpython" */
	const char *title;	/* "Python", for messages */
};
/* The runtime of bt option NAME ("python", "zeek"), or NULL.  */
const struct shell_runtime *shell_runtime_lookup(const char *name);
/* bt --python: the native stack ST with the runtime frames of RT's stack
   provider in place of the interpreter loop's frames (merge.c).  */
struct sg_error *shell_print_merged(struct shell *sh, const struct sg_stack *st,
				    const struct shell_runtime *rt, struct sg_out *out);
void shell_format_frame(struct shell *sh, const struct sg_stack *st, const struct sg_frame *f,
			FILE *out);
/* The frame's arguments as gdb shows them in a frame line ("a=1, p=..."),
   or NULL without DWARF (cmd-data.c).  */
char *shell_frame_args(struct shell *sh, const struct sg_stack *st, size_t level);
/* The frame's locals, indented as in "bt full".  */
void shell_frame_locals(struct shell *sh, const struct sg_stack *st, size_t level, struct sg_out *out);

/* A growable string for formatting (cmd-x.c).  */
struct sg_buf_lite {
	char *s;
	size_t len, cap;
};
void lite_putc(struct sg_buf_lite *b, char c);
void lite_puts(struct sg_buf_lite *b, const char *s);
/* A byte inside quotes as gdb writes it: \n, \\, \ooo; QUOTE is escaped.  */
void escape_byte(struct sg_buf_lite *b, unsigned char c, char quote);
/* A char value as gdb prints it: 97 'a'.  */
void char_repr(struct sg_buf_lite *b, unsigned char c);

/* EFLAGS as gdb prints its flags type: "[ ZF PF ]".  */
void shell_eflags_text(uint64_t v, char *buf, size_t size);

/* Apply the output-format setting to the output object.  */
void shell_sync_output(struct shell *sh);

#endif
