/* The smallest complete spyglass plugin: a command, "hello", that greets
   the target, and one, "elements", that reads a library object through
   another plugin's typed reader.  Copy this folder to start a plugin of your own; it builds out
   of tree with:

     cc -shared -fPIC -o example.so example.c $(pkg-config --cflags --libs spyglass)

   and loads with "plugin load ./example.so".  */
#include <spyglass/spyglass.h>

#include <stdint.h>
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

static int count_child(const char *name SG_UNUSED, struct sg_value *child SG_UNUSED, void *arg)
{
	(*(size_t *)arg)++;
	return SG_CB_OK;
}

/* "elements VARIABLE": a global library object read through whichever
   plugin reads its type (libstdcxx, libcxx), as a runtime plugin reads a
   std::string or std::vector member without knowing the library.  */
static struct sg_error *cmd_elements(struct sg_session *session, const char *args,
				     struct sg_out *out, void *arg SG_UNUSED)
{
	struct sg_target *target;
	struct sg_error *err = sg_session_need_target(session, &target);
	if (err)
		return err;
	Dwarf_Die type;
	uint64_t address;
	struct sg_value *value;
	if ((err = sg_lookup_variable(target, args, &type, &address)) ||
	    (err = sg_value_at(target, &type, address, &value)))
		return err == &sg_not_found ? sg_error_format(SG_ERROR_LOOKUP, "no variable %s", args)
					    : err;
	char *summary = NULL, *bytes = NULL;
	size_t count = 0, len = 0;
	err = sg_value_summary(session, value, &summary);
	if (!err && (err = sg_value_bytes(session, value, 4096, &bytes, &len))) {
		/* Not a string: count its children.  */
		sg_error_destroy(err);
		err = sg_value_children(session, value, SIZE_MAX, count_child, &count);
	}
	if (!err) {
		if (bytes)
			sg_out_printf(out, "%s: %s, %zu bytes\n", args, summary ? summary : "", len);
		else
			sg_out_printf(out, "%s: %s, %zu children\n", args, summary ? summary : "", count);
		sg_out_string(out, "summary", summary);
		if (bytes)
			sg_out_string_len(out, "bytes", bytes, len);
		else
			sg_out_uint(out, "children", count);
	}
	free(summary);
	free(bytes);
	sg_value_destroy(value);
	return err;
}

static const struct sg_command elements_cmd = {
	.name = "elements",
	.synopsis = "elements VARIABLE",
	.summary = "A library object's summary and size, through its reader",
	.handler = cmd_elements,
	.flags = SG_CMD_NEEDS_TARGET,
};

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
	struct sg_error *err = sg_command_register(session, &hello_cmd, state);
	return err ? err : sg_command_register(session, &elements_cmd, state);
}

static void example_fini(struct sg_session *session SG_UNUSED, void *state)
{
	free(state);
}

SG_PLUGIN_DEFINE("example", "1.0", "An example plugin: the hello and elements commands",
		 example_init, example_fini);
