/* Command output: one handler serves text and JSON.

   In text mode sg_out_printf() writes straight to the output stream and the
   JSON calls do nothing.  In JSON mode sg_out_printf() does nothing and the
   JSON calls build the members of the command's one result object, which is
   written as a single line when the command succeeds (and replaced by
   {"error": "..."} when it fails).

   KEY is the member name inside an object, and must be NULL inside an
   array.  */
#ifndef SPYGLASS_OUTPUT_H
#define SPYGLASS_OUTPUT_H

#include <spyglass/common.h>
#include <stdio.h>

SG_BEGIN_DECLS

SG_PUBLIC bool sg_out_json(const struct sg_out *out);

/* Text mode only.  */
SG_PUBLIC void sg_out_printf(struct sg_out *out, const char *fmt, ...) SG_PRINTF(2, 3);
SG_PUBLIC void sg_out_puts(struct sg_out *out, const char *s);
/* Text mode only: the stream, for code that formats into a FILE *.  NULL in
   JSON mode.  */
SG_PUBLIC FILE *sg_out_file(struct sg_out *out);

/* JSON mode only.  */
SG_PUBLIC void sg_out_object_begin(struct sg_out *out, const char *key);
SG_PUBLIC void sg_out_object_end(struct sg_out *out);
SG_PUBLIC void sg_out_array_begin(struct sg_out *out, const char *key);
SG_PUBLIC void sg_out_array_end(struct sg_out *out);
/* VALUE NULL writes null.  */
SG_PUBLIC void sg_out_string(struct sg_out *out, const char *key, const char *value);
/* A string of LEN bytes that may hold NULs or invalid UTF-8 (escaped).  */
SG_PUBLIC void sg_out_string_len(struct sg_out *out, const char *key, const char *value,
				 size_t len);
SG_PUBLIC void sg_out_int(struct sg_out *out, const char *key, int64_t value);
SG_PUBLIC void sg_out_uint(struct sg_out *out, const char *key, uint64_t value);
/* A finite number; NaN and infinities write null.  */
SG_PUBLIC void sg_out_double(struct sg_out *out, const char *key, double value);
/* An address, as the string "0x..." (JSON numbers lose precision above 2^53). */
SG_PUBLIC void sg_out_hex(struct sg_out *out, const char *key, uint64_t value);
SG_PUBLIC void sg_out_bool(struct sg_out *out, const char *key, bool value);
SG_PUBLIC void sg_out_null(struct sg_out *out, const char *key);

/* Create an output writing to STREAM (borrowed), in JSON mode if JSON.  */
SG_PUBLIC struct sg_error *sg_out_create(FILE *stream, bool json, struct sg_out **ret);
SG_PUBLIC void sg_out_destroy(struct sg_out *out);
/* Start a command's output.  */
SG_PUBLIC void sg_out_begin(struct sg_out *out);
/* Finish a command: in JSON mode write the result object, or {"error": ...}
   if ERR is not NULL.  In text mode nothing is written for ERR: the caller
   prints the error line.  */
SG_PUBLIC void sg_out_end(struct sg_out *out, const struct sg_error *err);
SG_PUBLIC void sg_out_set_json(struct sg_out *out, bool json);

SG_END_DECLS

#endif
