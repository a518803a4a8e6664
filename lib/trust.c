/* Whether a file is safe to run: a plugin (its init runs with our
   privileges, often root's) or a command file (~/.spyglassrc).

   The rule is gdb's auto-load idea, made about ownership: a file is
   trusted when nobody but its user and root can have written it.  It
   must be owned by root or by us and not writable by everyone, and each
   folder above it owned by root or by us and not writable by everyone,
   unless it has the sticky bit (/tmp), where others may add files but
   not replace ours.  SPYGLASS_SAFE_PATH lists folders trusted on
   purpose.  */
#include <config.h>
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether REAL (a resolved path) is in one of SPYGLASS_SAFE_PATH's
   folders.  */
bool sg_trust_in_safe_path(const char *real)
{
	const char *env = getenv("SPYGLASS_SAFE_PATH");
	for (const char *p = env; p && *p;) {
		size_t len = strcspn(p, ":");
		char dir[PATH_MAX], *r = NULL;
		if (len && len < sizeof(dir)) {
			memcpy(dir, p, len);
			dir[len] = '\0';
			r = realpath(dir, NULL);
		}
		size_t rl = r ? strlen(r) : 0;
		bool in = r && !strncmp(real, r, rl) && (real[rl] == '/' || (rl == 1 && r[0] == '/'));
		free(r);
		if (in)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name)
		snprintf(buf, size, "%s", pw->pw_name);
	else
		snprintf(buf, size, "%u", (unsigned)uid);
	return buf;
}

static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* root's devices (/dev/null, /dev/tty) are everyone's to write, and
   trusted wherever they are.  */
static bool root_device(const struct stat *st)
{
	return (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) && st->st_uid == 0;
}

struct sg_error *sg_trust_file(const struct stat *st)
{
	char who[64];
	if (!trusted_owner(st->st_uid))
		return sg_error_format(SG_ERROR_PLUGIN, "owned by %s, neither root nor you",
				       user_name(st->st_uid, who, sizeof(who)));
	if (root_device(st))
		return NULL;
	if (st->st_mode & S_IWOTH)
		return sg_error_create(SG_ERROR_PLUGIN, "writable by everyone");
	return NULL;
}

struct sg_error *sg_trust_folders(const char *real)
{
	char *dir = strdup(real);
	if (!dir)
		return &sg_enomem;
	struct sg_error *err = NULL;
	char who[64];
	struct stat st;
	for (;;) {
		const char *d = dir[0] ? dir : "/";
		if (stat(d, &st) != 0)
			break;
		if (!trusted_owner(st.st_uid)) {
			err = sg_error_format(SG_ERROR_PLUGIN, "in %s, owned by %s, neither root nor you",
					      d, user_name(st.st_uid, who, sizeof(who)));
			break;
		}
		if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
			err = sg_error_format(SG_ERROR_PLUGIN, "in %s, writable by everyone", d);
			break;
		}
		char *slash = strrchr(dir, '/');
		if (!dir[0] || !slash)
			break;
		*slash = '\0';
	}
	free(dir);
	return err;
}

struct sg_error *sg_trust_check(const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return NULL;	/* opening it will say what is wrong */
	struct sg_error *err = NULL;
	struct stat st;
	if (sg_trust_in_safe_path(real) || stat(real, &st) != 0)
		goto out;
	if ((err = sg_trust_file(&st)) || root_device(&st))
		goto out;
	char *slash = strrchr(real, '/');
	if (slash) {
		*slash = '\0';
		err = sg_trust_folders(real);
	}
out:
	free(real);
	return err;
}
