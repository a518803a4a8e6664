/* Commands.

   A command is one row: its name, help and handler, registered by the shell
   or a plugin.  help, usage errors and completion are generated from the
   rows.  Names may have several words ("info threads"); each word can be
   abbreviated to a unique prefix, as in gdb ("i thr").  */
#ifndef SPYGLASS_COMMAND_H
#define SPYGLASS_COMMAND_H

#include <spyglass/common.h>

SG_BEGIN_DECLS

struct sg_completions;

/* Run the command.  ARGS is the rest of the line after the command name,
   with leading blanks removed (for "x/4xg p" it is "/4xg p").  Write results
   to OUT; return an error instead of printing it.  */
typedef struct sg_error *sg_command_fn(struct sg_session *session, const char *args,
				       struct sg_out *out, void *arg);

/* Offer completions for the word WORD, which starts at byte WORD_START of
   ARGS (the arguments typed so far), with sg_completions_add().  */
typedef void sg_complete_fn(struct sg_session *session, const char *args, size_t word_start,
			    const char *word, struct sg_completions *c, void *arg);

enum sg_command_flags {
	SG_CMD_NEEDS_TARGET = 1 << 0,	/* fail with "no target" when there is none */
	SG_CMD_HIDDEN = 1 << 1,		/* not listed by help */
	/* Never unwinds native stacks: an attach for such commands alone
	   need not warm up the unwinders before the stop
	   (sg_session_hint_no_stacks).  */
	SG_CMD_NO_STACKS = 1 << 2,
	/* ABI 1.6.  Runs from a snapshot (doc/snapshot.md): needs only the
	   threads' registers and stacks, what they point to, the read-only
	   files and what the stack providers keep, whatever its arguments.
	   A batch run with --snapshot lets the process go before it.  */
	SG_CMD_SNAPSHOT_OK = 1 << 3,
	/* ABI 1.6.  Runs from a snapshot with some arguments only ("bt" but
	   not "bt full", which reads locals): the check set with
	   sg_command_set_snapshot_check() decides; without one, never.  */
	SG_CMD_SNAPSHOT_ARGS = 1 << 4,
};

struct sg_command {
	const char *name;	/* "info threads" */
	const char *aliases;	/* other spellings of the last word, space separated ("bt where"), or NULL */
	const char *synopsis;	/* "info threads" */
	const char *summary;	/* one line, no final period */
	const char *details;	/* more lines, or NULL */
	sg_command_fn *handler;	/* NULL for a prefix such as "info" */
	sg_complete_fn *complete;	/* may be NULL */
	unsigned flags;		/* enum sg_command_flags */
};

/* Register CMD (borrowed: it must outlive the session or the plugin that
   registers it).  ARG is passed to the handler and completer.  A name that is
   already registered is refused.  */
SG_PUBLIC struct sg_error *sg_command_register(struct sg_session *session,
					       const struct sg_command *cmd, void *arg);

/* Add one completion candidate (copied).  */
SG_PUBLIC void sg_completions_add(struct sg_completions *c, const char *candidate);
/* Complete WORD as a symbol name of the current target.  Usable as a
   sg_complete_fn.  */
SG_PUBLIC void sg_complete_symbol(struct sg_session *session, const char *args, size_t word_start,
				  const char *word, struct sg_completions *c, void *arg);

/* Execute one command LINE: resolve the name, check the flags, run the
   handler.  An empty line or a comment does nothing.  */
SG_PUBLIC struct sg_error *sg_command_execute(struct sg_session *session, const char *line,
					      struct sg_out *out);

/* The flags of the command LINE would run, into *FLAGS_RET; an error if
   it names no command.  */
SG_PUBLIC struct sg_error *sg_command_flags(struct sg_session *session, const char *line,
					    unsigned *flags_ret);

/* ABI 1.6.  Whether ARGS (as the handler would get them) need only a
   snapshot, for a command flagged SG_CMD_SNAPSHOT_ARGS.  ARG is the
   command's.  */
typedef bool sg_command_snapshot_fn(struct sg_session *session, const char *args, void *arg);

/* ABI 1.6.  Set FN as the check of the registered command NAME (its full
   name, "thread apply"), which gains SG_CMD_SNAPSHOT_ARGS: the shell sets
   checks on its own commands, whose rows are fixed.  */
SG_PUBLIC struct sg_error *sg_command_set_snapshot_check(struct sg_session *session,
							 const char *name,
							 sg_command_snapshot_fn *fn);

/* ABI 1.6.  Whether LINE runs a command that runs from a snapshot with its
   arguments (SG_CMD_SNAPSHOT_OK, or SG_CMD_SNAPSHOT_ARGS and a check that
   accepts them).  An empty line or a comment does; a line that names no
   command does not.  */
SG_PUBLIC bool sg_command_snapshot_ok(struct sg_session *session, const char *line);

/* Completion for a whole line: call FN with each candidate for the word that
   ends at END (LINE[0..END) is what was typed).  */
SG_PUBLIC void sg_command_complete(struct sg_session *session, const char *line, size_t end,
				   void (*fn)(const char *candidate, void *arg), void *arg);

/* Write help: the command list for TOPIC NULL or empty, else the help of the
   command TOPIC names.  */
SG_PUBLIC struct sg_error *sg_command_help(struct sg_session *session, const char *topic,
					   struct sg_out *out);

SG_END_DECLS

#endif
