/* The value engine's public face (include/spyglass/eval.h): evaluation,
   print's text and JSON for any struct sg_value, whatis's type name.  A
   value that sg_eval made carries the engine's own (value_from_xval);
   any other, a reader's, is an object at its address or a synthetic
   scalar, which the engine prints the same way.  */
#include <config.h>
#include "eval.h"

#include <spyglass/eval.h>

#include <stdlib.h>

struct sg_error *sg_eval(struct sg_session *s, const char *expr, struct sg_value **ret)
{
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	if (err)
		return err;
	struct xval x;
	if ((err = sg_eval_xval(s, t, expr, &x)))
		return err;
	return value_from_xval(t, &x, ret);
}

static const struct sg_format_options default_options;

struct sg_error *sg_value_format(struct sg_session *s, const struct sg_value *value,
				 const struct sg_format_options *options, char **ret)
{
	const struct sg_format_options *o = options ? options : &default_options;
	struct xval x;
	value_to_xval(value, &x);
	return sg_format_xval(s, sg_value_target(value), &x, o->format, o->raw, sg_frame_cplus(s),
			      !o->bare, ret);
}

void sg_value_format_json(struct sg_session *s, const struct sg_value *value,
			  const struct sg_format_options *options, struct sg_out *out, const char *key)
{
	if (!sg_out_json(out))
		return;
	const struct sg_format_options *o = options ? options : &default_options;
	struct xval x;
	value_to_xval(value, &x);
	sg_json_xval(s, sg_value_target(value), &x, o->format, o->raw, sg_frame_cplus(s), out, key);
}

struct sg_error *sg_value_type_name(struct sg_session *s, const struct sg_value *value, char **ret)
{
	struct xval x;
	value_to_xval(value, &x);
	*ret = sg_xval_type(&x, sg_frame_cplus(s));
	return *ret ? NULL : &sg_enomem;
}
