/* A minimal TAP producer for the C unit tests.  */
#ifndef SG_TAP_H
#define SG_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)							\
	do {								\
		bool ok_ = (cond);					\
		printf("%s %d - ", ok_ ? "ok" : "not ok", ++tap_n);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		if (!ok_) {						\
			tap_failed++;					\
			printf("# failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}							\
	} while (0)

#define is_str(got, want, ...)						\
	do {								\
		const char *g_ = (got), *w_ = (want);			\
		bool same_ = g_ && w_ ? !strcmp(g_, w_) : g_ == w_;	\
		ok(same_, __VA_ARGS__);					\
		if (!same_)						\
			printf("#   got:  %s\n#   want: %s\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

/* The error ERR must have CODE and MESSAGE; ERR is destroyed.  */
#define sg_ck_err(err, code, message, ...)				\
	do {								\
		struct sg_error *e_ = (err);				\
		ok(e_ && sg_error_code(e_) == (code), __VA_ARGS__);	\
		is_str(e_ ? sg_error_message(e_) : NULL, message, "  message");	\
		sg_error_destroy(e_);					\
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
