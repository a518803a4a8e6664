/* Stop, copy, resume in the shell: which commands run from a snapshot,
   and "set snapshot on|off".

   Each command says whether it runs from a snapshot by its flags
   (SG_CMD_SNAPSHOT_OK: py-bt, zeek-bt); those whose arguments or
   settings decide (SG_CMD_SNAPSHOT_ARGS) get their checks here: a
   backtrace with a count, an unwinder or a runtime to merge, but not a
   full one, which reads locals (containers on the heap); "thread apply"
   when the command it applies does; info threads; and neither of the
   last with settings that print more of the arguments than a snapshot
   keeps.  A batch run with --snapshot asks
   this of the commands left (sg_command_snapshot_ok) to know when to let
   the process go.  */
#include <config.h>
#include "snapshot.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Whether what frames' arguments print is in a snapshot: a string
   argument's characters up to "print elements" (a snapshot keeps 256
   bytes at each pointer, lib/snapshot.c: 255 and the terminator), and
   no whole objects ("print frame-arguments all" prints an argument's
   object wherever it lies).  Otherwise the command runs live, so that
   it prints what it prints live.  */
static bool frame_args_copied(struct sg_session *session)
{
	enum { FRAME_ARGUMENTS_ALL = 1 };	/* lib/setting.c's order */
	return sg_setting_uint(session, "print elements", 200) <= 255 &&
	       sg_setting_uint(session, "print frame-arguments", 0) != FRAME_ARGUMENTS_ALL;
}

/* Whether the words of ARGS are only what a backtrace of the stacks
   takes: a count (N, -N), "-u fp|cfi", a runtime to merge (--python,
   --zeek: the stack providers keep what they walk).  Anything else
   ("full", a typo) needs the live process.  */
static bool bt_check(struct sg_session *session, const char *p, void *arg SG_UNUSED)
{
	if (!frame_args_copied(session))
		return false;
	bool unwinder = false;	/* the word after -u */
	for (;;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		if (!n)
			return !unwinder;
		size_t dashes = p[0] == '-' ? 1 + (n > 1 && p[1] == '-') : 0;
		char w[32];
		snprintf(w, sizeof(w), "%.*s", (int)(n - dashes), p + dashes);
		if (unwinder) {
			unwinder = false;
		} else if (n == 2 && !strncmp(p, "-u", 2)) {
			unwinder = true;
		} else if (dashes && n - dashes < sizeof(w) && shell_runtime_lookup(w)) {
			/* --python, -zeek */
		} else {
			size_t k = *p == '-';
			if (k == n)
				return false;
			for (; k < n; k++)
				if (!isdigit((unsigned char)p[k]))
					return false;
		}
		p += n;
	}
}

/* info threads prints each thread's innermost frame with its arguments.  */
static bool info_threads_check(struct sg_session *session, const char *p SG_UNUSED,
			       void *arg SG_UNUSED)
{
	return frame_args_copied(session);
}

/* "all" or thread numbers, then a command that runs from a snapshot.  */
static bool thread_apply_check(struct sg_session *session, const char *p, void *arg SG_UNUSED)
{
	if (!strncmp(p, "all", 3) && (isspace((unsigned char)p[3]) || !p[3]))
		p += 3;
	else
		p += strspn(p, "0123456789 \t");
	p += strspn(p, " \t");
	return *p && sg_command_snapshot_ok(session, p);
}

static const struct sg_setting snapshot_setting = {
	.name = "snapshot",
	.type = SG_SETTING_BOOL,
	.default_value = "off",
	.doc = "Taking a snapshot at attach (stop, copy, resume)",
};

struct sg_error *shell_snapshot_register(struct shell *sh)
{
	struct sg_error *err = sg_setting_register(sh->session, &snapshot_setting);
	if (!err)
		err = sg_command_set_snapshot_check(sh->session, "backtrace", bt_check);
	if (!err)
		err = sg_command_set_snapshot_check(sh->session, "thread apply", thread_apply_check);
	if (!err)
		err = sg_command_set_snapshot_check(sh->session, "info threads", info_threads_check);
	return err;
}

bool shell_snapshot_setting(struct shell *sh)
{
	return sg_setting_uint(sh->session, "snapshot", 0) != 0;
}

struct sg_error *shell_snapshot_take(struct shell *sh, struct sg_out *out)
{
	struct sg_error *err = sg_session_snapshot(sh->session, 0);
	if (err)
		return err;
	struct sg_target *t = sg_session_target(sh->session);
	size_t bytes;
	sg_target_is_snapshot(t, &bytes);
	uint64_t paused = sg_session_last_paused_ns(sh->session);
	if (!out)
		return NULL;
	sg_out_printf(out, "Took a snapshot of process %d (%zu bytes copied, paused %.1f ms); "
			   "the process runs on.\n",
		      (int)sg_target_pid(t), bytes, paused / 1e6);
	sg_out_uint(out, "snapshot_bytes", bytes);
	sg_out_uint(out, "paused_us", paused / 1000);
	return NULL;
}
