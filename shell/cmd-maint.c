/* "maintenance" commands that report on spyglass itself.  */
#include <config.h>
#include "shell.h"

#include <inttypes.h>

static struct sg_error *cmd_target_stats(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	struct sg_target_stats st;
	sg_target_stats(sg_session_target(s), &st);
	sg_out_printf(out, "memory asked for: %" PRIu64 " bytes in %" PRIu64 " reads\n",
		      st.bytes_read, st.reads);
	sg_out_printf(out, "memory read from the process: %" PRIu64 " bytes in %" PRIu64
		      " reads\n", st.bytes_fetched, st.fetches);
	sg_out_printf(out, "name index: %" PRIu64 " units of DWARF read in %" PRIu64
		      " modules, %" PRIu64 " names\n", st.index_units, st.index_modules,
		      st.index_names);
	sg_out_uint(out, "reads", st.reads);
	sg_out_uint(out, "bytes_read", st.bytes_read);
	sg_out_uint(out, "fetches", st.fetches);
	sg_out_uint(out, "bytes_fetched", st.bytes_fetched);
	sg_out_uint(out, "index_modules", st.index_modules);
	sg_out_uint(out, "index_units", st.index_units);
	sg_out_uint(out, "index_names", st.index_names);
	return NULL;
}

static const struct sg_command maint_cmds[] = {
	{ .name = "maintenance info", .aliases = "i",
	  .synopsis = "maintenance info SUBCOMMAND",
	  .summary = "Show spyglass's internal state" },
	{ .name = "maintenance info target-stats", .synopsis = "maintenance info target-stats",
	  .summary = "Show the target's memory traffic and how much DWARF was indexed",
	  .details = "\"asked for\" counts what the commands and readers read (page-cache hits\n"
		     "included); \"read from the process\" counts the system calls' bytes, whole\n"
		     "pages for small reads.  Both count from the attach.  The name index reads\n"
		     "the modules' DWARF one unit at a time, as lookups need it.",
	  .handler = cmd_target_stats, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_maint_commands(struct shell *sh)
{
	return shell_register_table(sh, maint_cmds, sizeof(maint_cmds) / sizeof(maint_cmds[0]));
}
