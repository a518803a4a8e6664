/* gdb's habits (cmd-compat.c, compat-settings.c, compat-logging.c): the
   settings gdb scripts start with, logging to a file, and what the prompt
   repeats on an empty line.  */
#ifndef SG_COMPAT_H
#define SG_COMPAT_H

#include "shell.h"

/* Register the settings that live in the session's registry (pagination,
   height, width, print object, ...).  */
struct sg_error *compat_settings_register(struct shell *sh);

/* "set ARGS" for the settings the registry cannot hold (strings, gdb's
   own wording in show): *HANDLED says whether ARGS named one of them.  */
struct sg_error *compat_set(struct shell *sh, const char *args, bool *handled);

/* "show ARGS" for the same settings: the one ARGS names, or the group
   whose leading words they are ("logging", "print"), or with ARGS empty
   all of them.  Returns how many were shown.  KEY is the JSON array's
   name; WITH_NAME writes each of a group as "logging file:  ...", as gdb
   does.  */
size_t compat_show(struct shell *sh, const char *args, struct sg_out *out, const char *key,
		   bool with_name);

/* The name and doc of each setting kept here (not those in the
   registry), for apropos: FN(name, doc, ARG).  */
void compat_settings_foreach(void (*fn)(const char *name, const char *doc, void *arg), void *arg);

/* The history settings, for the prompt: the file ("" for none), whether
   to save it at the exit, how many lines to keep (-1: no limit).  */
const char *compat_history_file(void);
bool compat_history_save(void);
long compat_history_size(void);

/* Complete a setting's name after "set" or "show": a sg_complete_fn.  */
void compat_complete_setting(struct sg_session *s, const char *args, size_t ws, const char *word,
			     struct sg_completions *c, void *arg);

/* Logging (compat-logging.c): copy stdout and stderr to FILE (REDIRECT:
   only to FILE), appending unless OVERWRITE.  */
struct sg_error *compat_logging_start(const char *file, bool overwrite, bool redirect);
/* Stop logging; nothing when not logging.  */
void compat_logging_stop(void);
bool compat_logging_active(void);
/* Wait until what was written so far reached the terminal (before the
   prompt, which readline writes there directly).  */
void compat_logging_sync(void);
/* The terminal's stdout while logging (readline writes its prompt there,
   not into the log), else stdout.  */
FILE *compat_logging_terminal(void);

/* The line an empty line at the prompt repeats after LINE ran: NULL when
   the command is not repeated (set, cd, detach, ...), "x" or "list" for
   those that continue where they stopped, else LINE (a new string).  */
char *compat_repeat_line(struct shell *sh, const char *line);

#endif
