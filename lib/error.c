/* Error objects: creation, accessors and the static sentinels.  */
#include <config.h>
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

struct sg_error {
	enum sg_error_code code;
	bool is_static;
	int errnum;
	uint64_t address;
	char *message;
};

struct sg_error sg_enomem = {
	.code = SG_ERROR_NOMEM, .is_static = true, .errnum = ENOMEM,
	.message = (char *)"out of memory",
};
struct sg_error sg_not_found = {
	.code = SG_ERROR_NOT_FOUND, .is_static = true, .message = (char *)"not found",
};
struct sg_error sg_stop = {
	.code = SG_ERROR_STOP, .is_static = true, .message = (char *)"stopped",
};

static struct sg_error *error_take(enum sg_error_code code, char *message)
{
	if (!message)
		return &sg_enomem;
	struct sg_error *err = calloc(1, sizeof(*err));
	if (!err) {
		free(message);
		return &sg_enomem;
	}
	err->code = code;
	err->message = message;
	return err;
}

struct sg_error *sg_error_create(enum sg_error_code code, const char *message)
{
	return error_take(code, strdup(message));
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

struct sg_error *sg_error_format(enum sg_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	return error_take(code, s);
}

struct sg_error *sg_error_os(int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = vformat(fmt, ap);
	va_end(ap);
	if (!what)
		return &sg_enomem;
	char *s;
	if (asprintf(&s, "%s: %s", what, strerror(errnum)) < 0)
		s = NULL;
	free(what);
	struct sg_error *err = error_take(SG_ERROR_OS, s);
	if (err != &sg_enomem)
		err->errnum = errnum;
	return err;
}

struct sg_error *sg_error_fault(uint64_t address, size_t size, int errnum)
{
	struct sg_error *err = sg_error_format(SG_ERROR_FAULT,
					       "cannot read %zu byte%s at 0x%" PRIx64 ": %s",
					       size, size == 1 ? "" : "s", address,
					       strerror(errnum));
	if (err != &sg_enomem) {
		err->errnum = errnum;
		err->address = address;
	}
	return err;
}

struct sg_error *sg_error_prefix(struct sg_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *prefix = vformat(fmt, ap);
	va_end(ap);
	if (!prefix)
		return err;
	char *s;
	if (asprintf(&s, "%s: %s", prefix, err->message) < 0) {
		free(prefix);
		return err;
	}
	free(prefix);
	if (err->is_static) {
		struct sg_error *copy = error_take(err->code, s);
		if (copy != &sg_enomem)
			copy->errnum = err->errnum;
		return copy;
	}
	free(err->message);
	err->message = s;
	return err;
}

enum sg_error_code sg_error_code(const struct sg_error *err) { return err->code; }
int sg_error_errno(const struct sg_error *err) { return err->errnum; }
uint64_t sg_error_address(const struct sg_error *err) { return err->address; }
const char *sg_error_message(const struct sg_error *err) { return err->message; }

void sg_error_destroy(struct sg_error *err)
{
	if (!err || err->is_static)
		return;
	free(err->message);
	free(err);
}

bool sg_error_catch(struct sg_error **errp, enum sg_error_code code)
{
	if (*errp && (*errp)->code == code) {
		sg_error_destroy(*errp);
		*errp = NULL;
		return true;
	}
	return false;
}

struct sg_error *sg_error_dwfl(const char *what)
{
	return sg_error_format(SG_ERROR_OTHER, "%s: %s", what, dwfl_errmsg(-1));
}
