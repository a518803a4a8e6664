/* Expressions and values as gdb's print shows them, for plugins.

   The value engine that serves print, output, info locals and bt full:
   a plugin evaluates an expression in the session's selected frame,
   formats a value (its own, a reader's, or one sg_eval made) as print
   does, and walks the selected frame's variables.  Values are the same
   struct sg_value that readers receive (value.h).  Functions here never
   print their errors: they return them.  Since plugin ABI 1.8.  */
#ifndef SPYGLASS_EVAL_H
#define SPYGLASS_EVAL_H

#include <spyglass/common.h>
#include <spyglass/value.h>

SG_BEGIN_DECLS

struct sg_session;
struct sg_out;

/* How to format a value; all zero is print's default.  */
struct sg_format_options {
	/* print/FMT's letter (x d u o t c a f s z), or 0 for the natural
	   format.  */
	char format;
	/* print/r: without typed readers (plugins' pretty printers).  */
	bool raw;
	/* As info locals and bt full show a variable, rather than as print
	   shows a value by itself: a pointer without its "(type *)".  */
	bool bare;
};

/* Evaluate EXPR as print does, in the session's selected thread and
   frame: C and C++ operators, casts, variables (locals first), registers
   ($pc), the value history ($1, $, $$2) and convenience variables.  On
   success a new value in *RET, to free with sg_value_destroy(); it keeps
   its own copy of what is not in target memory, and refers to the
   target's DWARF, so it must not outlive the target.  Errors as gdb words
   them ("No symbol \"x\" in current context."); an SG_ERROR_USAGE one
   without a target.  Does not number the value in the history.  Not
   for a typed reader's callbacks: an evaluation ends the scratch values
   of the print in progress.  */
SG_PUBLIC struct sg_error *sg_eval(struct sg_session *session, const char *expr,
				   struct sg_value **ret) SG_NONNULL(1, 2, 3);

/* VALUE's text as print writes it after "$1 = ", under OPTIONS (NULL:
   the defaults) and the session's print settings (set print pretty, set
   print elements, ...), types spelled in the selected frame's language.
   A new string in *RET, to free with free().  Bad memory is no error: it
   shows as <error: Cannot access memory at address 0x...>, as in gdb.  */
SG_PUBLIC struct sg_error *sg_value_format(struct sg_session *session, const struct sg_value *value,
					   const struct sg_format_options *options, char **ret)
	SG_NONNULL(1, 2, 4);

/* VALUE as print --json gives it, as the member KEY of OUT's current
   object (KEY NULL inside an array): a number, string, array or object
   as the value's type is; OPTIONS as for sg_value_format().  Writes
   nothing unless OUT is in JSON mode (sg_out_json).  */
SG_PUBLIC void sg_value_format_json(struct sg_session *session, const struct sg_value *value,
				    const struct sg_format_options *options, struct sg_out *out,
				    const char *key) SG_NONNULL(1, 2, 4);

/* VALUE's type as whatis names it ("int *", "struct point"), in the
   selected frame's language; a new string in *RET, to free with free(). */
SG_PUBLIC struct sg_error *sg_value_type_name(struct sg_session *session,
					      const struct sg_value *value, char **ret)
	SG_NONNULL(1, 2, 3);

/* Called with each variable of a frame: its NAME and VALUE (NULL when
   the variable is optimized out), both borrowed for the call only.
   Return SG_CB_OK to go on, SG_CB_ABORT to stop.  */
typedef int sg_frame_variable_cb(const char *name, const struct sg_value *value, void *arg);

/* The selected frame's local variables (ARGS false), innermost block
   first, or its arguments (ARGS true), in the order info locals and info
   args list them; CB is called for each.  Errors: no target or thread,
   "No symbol table info available." for a frame without DWARF.  */
SG_PUBLIC struct sg_error *sg_frame_variables(struct sg_session *session, bool args,
					      sg_frame_variable_cb *cb, void *arg)
	SG_NONNULL(1, 3);

SG_END_DECLS

#endif
