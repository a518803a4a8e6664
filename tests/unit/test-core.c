/* Unit tests of core internals: errors, JSON output, the command resolver,
   settings, registries.  Integration tests with real processes are the
   run-*.sh scripts.  */
#include <config.h>
#include "internal.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>

static struct sg_error *run_cmd(struct sg_session *s, const char *args, struct sg_out *out,
				void *arg)
{
	char *last = arg;
	snprintf(last, 256, "%s", args);
	return NULL;
}

static char last_args[256];

#define CMD(n, al) { .name = n, .aliases = al, .synopsis = n, .summary = "s " n, .handler = run_cmd }
static const struct sg_command cmds[] = {
	CMD("info threads", NULL), CMD("info sharedlibrary", NULL), CMD("info symbol", NULL),
	CMD("thread", NULL), CMD("thread apply", NULL), CMD("x", NULL),
	CMD("print", "p"), CMD("plugin load", NULL), CMD("ptype", NULL),
	{ .name = "info", .aliases = "i", .summary = "prefix" },
	{ .name = "plugin", .summary = "prefix" },
};

/* Run LINE through the resolver; returns the handler's args or the error. */
static char *resolve_to(struct sg_session *s, const char *line)
{
	last_args[0] = '\0';
	strcpy(last_args, "(not run)");
	struct sg_error *err = sg_command_execute(s, line, NULL);
	char *r;
	if (err) {
		r = strdup(sg_error_message(err));
		sg_error_destroy(err);
	} else {
		r = strdup(last_args);
	}
	return r;
}

static void test_errors(void)
{
	sg_ck_err(sg_error_fault(0x7ffd1000, 8, EIO), SG_ERROR_FAULT,
		  "cannot read 8 bytes at 0x7ffd1000: Input/output error", "fault message");
	struct sg_error *e = sg_error_fault(0x10, 1, EFAULT);
	ok(sg_error_address(e) == 0x10, "fault keeps its address");
	sg_error_destroy(e);
	sg_ck_err(sg_error_os(ENOENT, "cannot open %s", "/x"), SG_ERROR_OS,
		  "cannot open /x: No such file or directory", "os error");
	sg_ck_err(sg_error_prefix(&sg_not_found, "lookup"), SG_ERROR_NOT_FOUND,
		  "lookup: not found", "prefixing a static error copies it");
	struct sg_error *nf = &sg_not_found;
	ok(sg_error_catch(&nf, SG_ERROR_NOT_FOUND) && nf == NULL, "catch clears the error");
	sg_error_destroy(&sg_enomem);
	ok(sg_error_code(&sg_enomem) == SG_ERROR_NOMEM, "destroying a static error is a no-op");
}

static char *json_of(void (*fill)(struct sg_out *), const struct sg_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct sg_out *out;
	sg_out_create(f, true, &out);
	sg_out_begin(out);
	fill(out);
	sg_out_end(out, err);
	sg_out_destroy(out);
	fclose(f);
	return buf;
}

static void fill_nested(struct sg_out *out)
{
	sg_out_string(out, "s", "a\"b\\c\n\x01\xff\xc3\xa9");
	sg_out_array_begin(out, "a");
	sg_out_int(out, NULL, -1);
	sg_out_hex(out, NULL, 0xdeadbeef);
	sg_out_object_begin(out, NULL);
	sg_out_null(out, "n");
	sg_out_bool(out, "b", true);
	/* Left open on purpose: the writer closes what a handler forgets. */
}

static void fill_nothing(struct sg_out *out)
{
	sg_out_printf(out, "text is not JSON");
}

static void test_json(void)
{
	char *s = json_of(fill_nested, NULL);
	is_str(s, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u00ff\xc3\xa9\",\"a\":[-1,\"0xdeadbeef\",{\"n\":null,\"b\":true}]}\n",
	       "JSON escaping, nesting and auto-closing");
	free(s);
	struct sg_error *err = sg_error_create(SG_ERROR_OTHER, "it \"failed\"");
	s = json_of(fill_nested, err);
	is_str(s, "{\"error\":\"it \\\"failed\\\"\"}\n", "an error replaces the partial object");
	free(s);
	sg_error_destroy(err);
	s = json_of(fill_nothing, NULL);
	is_str(s, "{}\n", "text output is dropped in JSON mode");
	free(s);
}

static void add_candidate(const char *candidate, void *b)
{
	sg_buf_puts(b, candidate);
	sg_buf_putc(b, ' ');
}

static void test_commands(void)
{
	struct sg_session *s;
	ok(sg_session_create(&s) == NULL, "session created");
	for (size_t i = 0; i < SG_ARRAY_SIZE(cmds); i++)
		sg_command_register(s, &cmds[i], last_args);
	sg_ck_err(sg_command_register(s, &cmds[0], NULL), SG_ERROR_PLUGIN,
		  "command \"info threads\" is already registered", "duplicate refused");

	char *r;
	r = resolve_to(s, "i thr");
	is_str(r, "", "\"i thr\" resolves to info threads");
	free(r);
	r = resolve_to(s, "info sym 0x10");
	is_str(r, "0x10", "arguments follow the resolved words");
	free(r);
	r = resolve_to(s, "info s 0x10");
	is_str(r, "Ambiguous info command \"s\": sharedlibrary, symbol.", "ambiguous prefix");
	free(r);
	r = resolve_to(s, "p 1+2");
	is_str(r, "1+2", "alias p beats the prefixes print, plugin, ptype");
	free(r);
	r = resolve_to(s, "x/4xg $sp");
	is_str(r, "/4xg $sp", "x/FMT keeps the slash in its arguments");
	free(r);
	r = resolve_to(s, "thread 3");
	is_str(r, "3", "thread with a number is the leaf");
	free(r);
	r = resolve_to(s, "thread apply all bt");
	is_str(r, "all bt", "thread apply is a subcommand");
	free(r);
	r = resolve_to(s, "frobnicate now");
	is_str(r, "Undefined command: \"frobnicate\".  Try \"help\".", "unknown command");
	free(r);
	r = resolve_to(s, "info frob");
	is_str(r, "Undefined info command: \"frob\".  Try \"help info\".", "unknown subcommand");
	free(r);
	r = resolve_to(s, "info");
	is_str(r, "\"info\" must be followed by the name of a subcommand.  Try \"help info\".",
	       "prefix alone");
	free(r);
	r = resolve_to(s, "   # a comment");
	is_str(r, "(not run)", "comments run nothing");
	free(r);

	struct sg_buf b;
	sg_buf_init(&b);
	sg_command_complete(s, "info sh", 7, add_candidate, &b);
	is_str(b.data, "sharedlibrary ", "completion of a subcommand");
	sg_buf_reset(&b);
	sg_command_complete(s, "p", 1, add_candidate, &b);
	is_str(b.data, "print plugin ptype ", "completion of a first word");
	sg_buf_deinit(&b);
	sg_session_destroy(s);
}

static void test_settings(void)
{
	struct sg_session *s;
	sg_session_create(&s);
	ok(sg_setting_uint(s, "print elements", 0) == 200, "print elements defaults to 200");
	ok(sg_setting_set(s, "print elem 10") == NULL, "abbreviated setting name");
	ok(sg_setting_uint(s, "print elements", 0) == 10, "value set");
	ok(sg_setting_set(s, "print elements 0") == NULL &&
	   sg_setting_uint(s, "print elements", 0) == UINT64_MAX, "0 means unlimited");
	sg_ck_err(sg_setting_set(s, "print elements lots"), SG_ERROR_USAGE,
		  "\"print elements\" needs a number or \"unlimited\", not \"lots\"", "bad number");
	ok(sg_setting_set(s, "output-format j") == NULL &&
	   sg_setting_uint(s, "output-format", 0) == 1, "enum by prefix");
	sg_ck_err(sg_setting_set(s, "output-format xml"), SG_ERROR_USAGE,
		  "\"output-format\" must be one of: text, json", "bad enum");
	sg_ck_err(sg_setting_set(s, "nosuch 1"), SG_ERROR_LOOKUP,
		  "Undefined setting: \"nosuch 1\".  Try \"show\".", "unknown setting");
	sg_session_destroy(s);
}

static struct sg_error *never_step(struct sg_target *t, const struct sg_unwind_frame *callee,
				   struct sg_unwind_frame *caller, void *arg)
{
	return &sg_not_found;
}

static int collect(const struct sg_registry_entry *e, void *arg)
{
	sg_buf_printf(arg, "%s:%d ", e->name, e->priority);
	return SG_CB_OK;
}

static void test_registry(void)
{
	struct sg_session *s;
	sg_session_create(&s);
	static const struct sg_unwinder_ops ops = { .step = never_step };
	ok(!sg_unwinder_register(s, "fp", 20, &ops, NULL), "register fp");
	ok(!sg_unwinder_register(s, "cfi", 10, &ops, NULL), "register cfi");
	ok(!sg_unwinder_register(s, "late", 20, &ops, NULL), "register late");
	sg_ck_err(sg_unwinder_register(s, "cfi", 1, &ops, NULL), SG_ERROR_PLUGIN,
		  "unwinder \"cfi\" is already registered", "duplicate handler");
	struct sg_buf b;
	sg_buf_init(&b);
	sg_registry_foreach(s, SG_REGISTRY_UNWINDER, collect, &b);
	is_str(b.data, "cfi:10 fp:20 late:20 ", "priority order, stable for ties");
	sg_buf_deinit(&b);
	sg_session_destroy(s);
}

#include <dwarf.h>

/* The CFA rule ld emits for .plt entries (seen in Debian 12 binaries):
   rsp + 8, plus 8 more once the pc is 11 or more bytes into its 16-byte
   entry (after the push).  */
static void test_dwarf_expr(void)
{
	const Dwarf_Op plt[] = {
		{ .atom = DW_OP_breg7, .number = 8, .offset = 0 },
		{ .atom = DW_OP_breg16, .number = 0, .offset = 2 },
		{ .atom = DW_OP_lit15, .offset = 4 },
		{ .atom = DW_OP_and, .offset = 5 },
		{ .atom = DW_OP_lit11, .offset = 6 },
		{ .atom = DW_OP_ge, .offset = 7 },
		{ .atom = DW_OP_lit3, .offset = 8 },
		{ .atom = DW_OP_shl, .offset = 9 },
		{ .atom = DW_OP_plus, .offset = 10 },
	};
	struct sg_regs regs = { 0 };
	sg_regs_set(&regs, SG_REG_RSP, 0x1000);
	sg_regs_set(&regs, SG_REG_RIP, 0x4020 + 6);
	struct sg_dwarf_expr_ctx ctx = { .regs = &regs };
	struct sg_dwarf_result r;
	ok(!sg_dwarf_expr_eval(plt, SG_ARRAY_SIZE(plt), &ctx, NULL, &r) && r.value == 0x1008 &&
	   r.kind == SG_DWARF_ADDRESS, "PLT CFA before the push: rsp+8");
	sg_regs_set(&regs, SG_REG_RIP, 0x4020 + 11);
	ok(!sg_dwarf_expr_eval(plt, SG_ARRAY_SIZE(plt), &ctx, NULL, &r) && r.value == 0x1010,
	   "PLT CFA after the push: rsp+16");

	/* Offsets are byte offsets: DW_OP_bra jumps over DW_OP_lit1.  */
	const Dwarf_Op branch[] = {
		{ .atom = DW_OP_lit1, .offset = 0 },
		{ .atom = DW_OP_bra, .number = 1, .offset = 1 },
		{ .atom = DW_OP_lit1, .offset = 4 },
		{ .atom = DW_OP_lit7, .offset = 5 },
		{ .atom = DW_OP_stack_value, .offset = 6 },
	};
	ok(!sg_dwarf_expr_eval(branch, SG_ARRAY_SIZE(branch), &ctx, NULL, &r) && r.value == 7 &&
	   r.kind == SG_DWARF_VALUE, "DW_OP_bra by byte offset, DW_OP_stack_value");

	const Dwarf_Op loop[] = { { .atom = DW_OP_skip, .number = (uint16_t)-3, .offset = 0 } };
	sg_ck_err(sg_dwarf_expr_eval(loop, 1, &ctx, NULL, &r), SG_ERROR_BAD_DATA,
		  "DWARF expression: too many steps", "an endless loop is cut");
	const Dwarf_Op under[] = { { .atom = DW_OP_plus, .offset = 0 } };
	sg_ck_err(sg_dwarf_expr_eval(under, 1, &ctx, NULL, &r), SG_ERROR_BAD_DATA,
		  "DWARF expression: stack underflow at op 0x22", "stack underflow");
	const Dwarf_Op noreg[] = { { .atom = DW_OP_breg3, .offset = 0 } };
	sg_ck_err(sg_dwarf_expr_eval(noreg, 1, &ctx, NULL, &r), SG_ERROR_NOT_FOUND,
		  "register 3 is not known in this frame", "an unknown register");
	const Dwarf_Op cfa[] = { { .atom = DW_OP_call_frame_cfa }, { .atom = DW_OP_plus_uconst, .number = 16, .offset = 1 } };
	ctx.cfa = 0x2000;
	ctx.has_cfa = true;
	ok(!sg_dwarf_expr_eval(cfa, 2, &ctx, NULL, &r) && r.value == 0x2010 && r.kind == SG_DWARF_ADDRESS,
	   "offset(N) rules as libdw writes them: CFA + N");
}

static void test_words(void)
{
	char **w;
	ssize_t n = sg_split_words("  set  print\telements 4 ", &w);
	ok(n == 4 && !strcmp(w[0], "set") && !strcmp(w[3], "4"), "split words");
	sg_free_words(w, n);
}

int main(void)
{
	test_errors();
	test_json();
	test_commands();
	test_settings();
	test_registry();
	test_words();
	test_dwarf_expr();
	return tap_done();
}
