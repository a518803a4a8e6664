/* The fields of struct py_offsets: the C type and member each stands for,
   and the versions that have it (PY_FIELDS in cpython.h).  Plain data, so
   that gen-tables.sh can compile it into its probe too.  */
#include <config.h>
#include "cpython.h"

const struct py_field_spec py_field_specs[PY_NFIELDS] = {
#define PY_FIELD_SPEC(id, type_, member_, first_, last_) \
	[PY_##id] = { .type = type_, .member = member_, .first = first_, .last = last_ },
	PY_FIELDS(PY_FIELD_SPEC)
#undef PY_FIELD_SPEC
};
