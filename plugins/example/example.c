/* The smallest complete spyglass plugin: a command, "hello", that greets
   the target, one, "elements", that reads a library object through
   another plugin's typed reader, and two that use the value engine:
   "example-eval" evaluates an expression and prints it as print does,
   "example-locals" lists the selected frame's variables.  Copy this folder to start a plugin of your own; it builds out
   of tree with:

     cc -shared -fPIC -o example.so example.c $(pkg-config --cflags --libs spyglass)

   and loads with "plugin load ./example.so".  */
#include <spyglass/spyglass.h>
#include <spyglass/eval.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* print's "/FMT" before ARGS, as print takes it ("/x", "/r"), into
   *OPTIONS; *ARGS moves past it.  */
static struct sg_error *parse_format(const char **args, struct sg_format_options *options)
{
	const char *a = *args;
	if (*a != '/')
		return NULL;
	for (a++; *a && *a != ' '; a++) {
		if (*a == 'r')
			options->raw = true;
		else if (strchr("xduotczafs", *a))
			options->format = *a;
		else
			return sg_error_format(SG_ERROR_USAGE, "Undefined output format \"%c\".", *a);
	}
	while (*a == ' ')
		a++;
	*args = a;
	return NULL;
}

/* "example-eval[/FMT] EXPR": EXPR's value as print shows it, through the
   library's value engine (sg_eval, sg_value_format): what a plugin does
   to show a value of its own choosing.  */
static struct sg_error *cmd_eval(struct sg_session *session, const char *args,
				 struct sg_out *out, void *arg SG_UNUSED)
{
	struct sg_format_options options = { 0 };
	struct sg_error *err = parse_format(&args, &options);
	if (err)
		return err;
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Argument required (expression to compute).");
	struct sg_value *value;
	if ((err = sg_eval(session, args, &value)))
		return err;
	char *text = NULL, *type = NULL;
	if (!(err = sg_value_format(session, value, &options, &text)) &&
	    !(err = sg_value_type_name(session, value, &type))) {
		sg_out_printf(out, "%s = %s\n", args, text);
		sg_out_string(out, "expression", args);
		sg_out_string(out, "type", type);
		sg_out_string(out, "text", text);
		sg_value_format_json(session, value, &options, out, "value");
	}
	free(type);
	free(text);
	sg_value_destroy(value);
	return err;
}

struct locals_walk {
	struct sg_session *session;
	struct sg_out *out;
	struct sg_error *err;
};

static int print_variable(const char *name, const struct sg_value *value, void *arg)
{
	struct locals_walk *w = arg;
	static const struct sg_format_options as_variable = { .bare = true };
	char *text = NULL;
	if (value && (w->err = sg_value_format(w->session, value, &as_variable, &text)))
		return SG_CB_ABORT;
	sg_out_printf(w->out, "%s = %s\n", name, text ? text : "<optimized out>");
	sg_out_object_begin(w->out, NULL);
	sg_out_string(w->out, "name", name);
	if (value)
		sg_value_format_json(w->session, value, &as_variable, w->out, "value");
	else
		sg_out_null(w->out, "value");
	sg_out_object_end(w->out);
	free(text);
	return SG_CB_OK;
}

/* "example-locals [args]": the selected frame's local variables (or its
   arguments), one "NAME = VALUE" line each (sg_frame_variables).  */
static struct sg_error *cmd_locals(struct sg_session *session, const char *args,
				   struct sg_out *out, void *arg SG_UNUSED)
{
	struct locals_walk w = { session, out, NULL };
	bool want_args = !strcmp(args, "args");
	if (*args && !want_args)
		return sg_error_format(SG_ERROR_USAGE, "example-locals: unknown argument \"%s\"", args);
	sg_out_array_begin(out, want_args ? "args" : "locals");
	struct sg_error *err = sg_frame_variables(session, want_args, print_variable, &w);
	sg_out_array_end(out);
	return err ? err : w.err;
}

static const struct sg_command eval_cmd = {
	.name = "example-eval",
	.synopsis = "example-eval[/FMT] EXPR",
	.summary = "Print EXPR's value as print does, through the value engine's API",
	.details = "EXPR is evaluated in the selected frame (sg_eval) and printed with\n"
		   "sg_value_format, as print prints it; FMT as print's.",
	.handler = cmd_eval,
	.flags = SG_CMD_NEEDS_TARGET,
};

static const struct sg_command locals_cmd = {
	.name = "example-locals",
	.synopsis = "example-locals [args]",
	.summary = "List the selected frame's variables through the value engine's API",
	.details = "One NAME = VALUE line per local variable (or argument, with \"args\"),\n"
		   "from sg_frame_variables, as info locals and info args list them.",
	.handler = cmd_locals,
	.flags = SG_CMD_NEEDS_TARGET,
};

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
	if (!err)
		err = sg_command_register(session, &elements_cmd, state);
	if (!err)
		err = sg_command_register(session, &eval_cmd, state);
	return err ? err : sg_command_register(session, &locals_cmd, state);
}

static void example_fini(struct sg_session *session SG_UNUSED, void *state)
{
	free(state);
}

SG_PLUGIN_DEFINE("example", "1.0",
		 "An example plugin: hello, elements, example-eval and example-locals",
		 example_init, example_fini);
