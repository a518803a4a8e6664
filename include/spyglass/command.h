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
