/* The smallest complete spyglass plugin: one command, "hello", that greets
   the target.  Copy this folder to start a plugin of your own; it builds out
   of tree with:

     cc -shared -fPIC -o example.so example.c $(pkg-config --cflags --libs spyglass)

   and loads with "plugin load ./example.so".  */
#include <spyglass/spyglass.h>

#include <stdlib.h>

/* Per-session state: a plugin keeps none in globals.  */
struct example_state {
	unsigned long calls;
};

static struct sg_error *cmd_hello(struct sg_session *session, const char *args,
				  struct sg_out *out, void *arg)
{
	struct example_state *state = arg;
	state->calls++;
	struct sg_target *target = sg_session_target(session);
	const char *who = *args ? args : "world";
	if (target)
		sg_out_printf(out, "Hello, %s, from process %d with %zu threads (call %lu).\n", who,
			      (int)sg_target_pid(target), sg_target_thread_count(target),
			      state->calls);
	else
		sg_out_printf(out, "Hello, %s (call %lu).\n", who, state->calls);
	sg_out_string(out, "greeting", who);
	if (target)
		sg_out_int(out, "pid", sg_target_pid(target));
	else
		sg_out_null(out, "pid");
	sg_out_uint(out, "calls", state->calls);
	return NULL;
}

static const struct sg_command hello_cmd = {
	.name = "hello",
	.synopsis = "hello [NAME]",
	.summary = "Greet NAME (an example plugin command)",
	.handler = cmd_hello,
};

static struct sg_error *example_init(struct sg_session *session, void **state_ret)
{
	struct example_state *state = calloc(1, sizeof(*state));
	if (!state)
		return &sg_enomem;
	*state_ret = state;	/* fini frees it, also when init fails below */
	return sg_command_register(session, &hello_cmd, state);
}

static void example_fini(struct sg_session *session SG_UNUSED, void *state)
{
	free(state);
}

SG_PLUGIN_DEFINE("example", "1.0", "An example plugin that adds the hello command",
		 example_init, example_fini);
