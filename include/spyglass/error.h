/* Errors as values.

   Every fallible function returns a struct sg_error *: NULL on success, an
   error object otherwise.  The library never prints; the caller turns an error
   into one line.  Messages read "what: why", for example
   "cannot read 8 bytes at 0x7ffd1000: Input/output error".  */
#ifndef SPYGLASS_ERROR_H
#define SPYGLASS_ERROR_H

#include <spyglass/common.h>

SG_BEGIN_DECLS

enum sg_error_code {
	SG_ERROR_OTHER,		/* anything not listed below */
	SG_ERROR_NOMEM,		/* out of memory */
	SG_ERROR_NOT_FOUND,	/* nothing here: let the next handler try */
	SG_ERROR_STOP,		/* a walk ended early on purpose */
	SG_ERROR_OS,		/* a system call failed; see sg_error_errno() */
	SG_ERROR_FAULT,		/* target memory could not be read */
	SG_ERROR_USAGE,		/* a command was called with bad arguments */
	SG_ERROR_LOOKUP,	/* a name (symbol, type, command) does not exist */
	SG_ERROR_TARGET,	/* no target, or the target went away */
	SG_ERROR_PLUGIN,	/* a plugin was refused or failed */
	SG_ERROR_BAD_DATA,	/* target data or a file is malformed */
};

/* Static errors: never allocated, sg_error_destroy() is a no-op on them.  */
extern SG_PUBLIC struct sg_error sg_enomem;
extern SG_PUBLIC struct sg_error sg_not_found;
extern SG_PUBLIC struct sg_error sg_stop;

/* Create an error with a copy of MESSAGE.  Never returns NULL: on allocation
   failure it returns &sg_enomem.  */
SG_PUBLIC struct sg_error *sg_error_create(enum sg_error_code code, const char *message)
	SG_RETURNS_NONNULL;

/* Like sg_error_create() with a printf format.  */
SG_PUBLIC struct sg_error *sg_error_format(enum sg_error_code code, const char *fmt, ...)
	SG_RETURNS_NONNULL SG_PRINTF(2, 3);

/* An SG_ERROR_OS error for ERRNUM: "MESSAGE: strerror(ERRNUM)".  */
SG_PUBLIC struct sg_error *sg_error_os(int errnum, const char *fmt, ...)
	SG_RETURNS_NONNULL SG_PRINTF(2, 3);

/* An SG_ERROR_FAULT error for a failed read of SIZE bytes at ADDRESS, naming
   ERRNUM's reason.  */
SG_PUBLIC struct sg_error *sg_error_fault(uint64_t address, size_t size, int errnum)
	SG_RETURNS_NONNULL;

/* Prefix ERR's message with "PREFIX: ", in place.  Returns ERR (or a new
   error if ERR was static).  */
SG_PUBLIC struct sg_error *sg_error_prefix(struct sg_error *err, const char *fmt, ...)
	SG_RETURNS_NONNULL SG_PRINTF(2, 3);

SG_PUBLIC enum sg_error_code sg_error_code(const struct sg_error *err);
/* The errno of an SG_ERROR_OS or SG_ERROR_FAULT error, else 0.  */
SG_PUBLIC int sg_error_errno(const struct sg_error *err);
/* For SG_ERROR_FAULT: the address that could not be read.  */
SG_PUBLIC uint64_t sg_error_address(const struct sg_error *err);
/* The message, valid until ERR is destroyed.  */
SG_PUBLIC const char *sg_error_message(const struct sg_error *err);

/* Free ERR.  NULL and the static errors are accepted and ignored.  */
SG_PUBLIC void sg_error_destroy(struct sg_error *err);

/* If *ERRP has CODE, destroy it, set *ERRP to NULL and return true.  */
SG_PUBLIC bool sg_error_catch(struct sg_error **errp, enum sg_error_code code);

SG_END_DECLS

#endif
