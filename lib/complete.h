/* Completion at the prompt beyond command names (lib/complete-expr.c):
   expressions (locals, globals, types, members after "." and "->") and
   file names.  Internal to spyglass: the shell's command rows and its
   readline glue (shell/repl.c) use it; not part of the plugin API.  */
#ifndef SG_LIB_COMPLETE_H
#define SG_LIB_COMPLETE_H

#include <spyglass/spyglass.h>

/* gdb's max-completions: no completer offers more candidates.  */
#define SG_MAX_COMPLETIONS 200

/* Completers (sg_complete_fn).  Expressions: the word's last operand.  */
SG_PUBLIC void sg_complete_expression(struct sg_session *session, const char *args, size_t word_start,
				      const char *word, struct sg_completions *c, void *arg);
/* File names, relative to the current directory.  */
SG_PUBLIC void sg_complete_filename(struct sg_session *session, const char *args, size_t word_start,
				    const char *word, struct sg_completions *c, void *arg);
/* list's LINESPEC: the source files of the target's line tables, then
   function names.  */
SG_PUBLIC void sg_complete_linespec(struct sg_session *session, const char *args, size_t word_start,
				    const char *word, struct sg_completions *c, void *arg);

/* What the last completion asked of the line editor: candidates replace
   the blank-delimited word but for its first sg_complete_word_skip()
   bytes (the "&" of "&g_"), and name files (readline then shows their
   base names and ends a directory with "/").  sg_complete_hints_reset
   before each completion.  */
SG_PUBLIC void sg_complete_hints_reset(void);
SG_PUBLIC size_t sg_complete_word_skip(void);
SG_PUBLIC bool sg_complete_wants_filenames(void);

#endif
