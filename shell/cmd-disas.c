/* Machine code: disassemble, and set/show disassembly-flavor.  The
   instructions come from libopcodes (disas-insn.c); the layout of the dump
   is gdb's.  */
#include <config.h>
#include "disas-insn.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A dump stops here: a typo in a range must not print gigabytes.  */
#define DISAS_MAX_BYTES (16u << 20)

struct disas_opts {
	bool raw;	/* /r or /b: the bytes */
};

/* The modifiers after "disassemble": /r, /b (the same on x86, whose
   instructions are bytes), several letters or several groups.  /m and /s
   (source lines) are not done.  */
static struct sg_error *parse_modifiers(const char **argsp, struct disas_opts *o)
{
	const char *a = *argsp;
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		if (*a != '/')
			break;
		a++;
		if (!*a || isspace((unsigned char)*a))
			return sg_error_create(SG_ERROR_USAGE, "Missing modifier.");
		for (; *a && !isspace((unsigned char)*a); a++) {
			switch (*a) {
			case 'r':
			case 'b':
				o->raw = true;
				break;
			case 'm':
			case 's':
				return sg_error_format(SG_ERROR_USAGE,
						       "disassemble /%c (source lines) is not supported yet",
						       *a);
			default:
				return sg_error_create(SG_ERROR_USAGE, "Invalid disassembly modifier.");
			}
		}
	}
	*argsp = a;
	return NULL;
}

/* The selected frame's pc, for the "=> " mark; false without one.  */
static bool frame_pc(struct shell *sh, uint64_t *pc)
{
	struct sg_error *err = shell_eval_address(sh, "$pc", pc);
	sg_error_destroy(err);
	return !err;
}

/* Print the instructions in [START, END).  FUNCTION: each labelled
   "<+off>" from ENTRY (a function's dump); else "<sym+off>" as targets
   are named (a range's).  */
static struct sg_error *dump(struct shell *sh, struct sg_target *t, uint64_t start, uint64_t end,
			     bool function, uint64_t entry, const struct disas_opts *o,
			     struct sg_out *out)
{
	uint64_t pc = 0;
	bool have_pc = frame_pc(sh, &pc);
	struct sg_error *err = NULL;
	sg_out_array_begin(out, "instructions");
	for (uint64_t a = start; a < end;) {
		struct disas_insn insn;
		err = disas_decode(t, a, &insn);
		char label[1024];
		label[0] = '\0';
		if (err) {
			/* gdb's partial line: the address, then the error.  */
			free(insn.text.s);
			sg_out_printf(out, "   0x%016" PRIx64 ":\t", a);
			break;
		}
		if (function) {
			if (a >= entry)
				snprintf(label, sizeof(label), " <+%" PRIu64 ">", a - entry);
			else
				snprintf(label, sizeof(label), " <-%" PRIu64 ">", entry - a);
		} else {
			disas_symbol_suffix(t, a, label, sizeof(label));
			/* A range's lines say "+0" at a symbol's start.  */
			size_t len = strlen(label);
			if (len > 2 && !strchr(label, '+') && len + 2 < sizeof(label))
				strcpy(label + len - 1, "+0>");
		}
		bool current = have_pc && pc == a;
		struct sg_buf_lite bytes = { 0 };
		disas_put_bytes(&insn, &bytes);
		sg_out_printf(out, "%s0x%016" PRIx64 "%s:\t%s%s%s\n", current ? "=> " : "   ", a, label,
			      o->raw ? bytes.s : "", o->raw ? "\t" : "", insn.text.s);
		sg_out_object_begin(out, NULL);
		sg_out_hex(out, "address", a);
		if (function)
			sg_out_int(out, "offset", (int64_t)(a - entry));
		bytes.len = 0;
		for (int i = 0; i < insn.length; i++) {
			char h[4];
			snprintf(h, sizeof(h), i ? " %02x" : "%02x", insn.bytes[i]);
			lite_puts(&bytes, h);
		}
		sg_out_string(out, "bytes", bytes.s ? bytes.s : "");
		sg_out_string(out, "text", insn.text.s);
		sg_out_bool(out, "current", current);
		sg_out_object_end(out);
		free(bytes.s);
		free(insn.text.s);
		a += (uint64_t)insn.length;
	}
	sg_out_array_end(out);
	return err;
}

/* Split ARGS at its first comma outside parentheses: "START,END".  */
static const char *top_level_comma(const char *args)
{
	int depth = 0;
	for (const char *p = args; *p; p++) {
		if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			return p;
	}
	return NULL;
}

static struct sg_error *eval_part(struct shell *sh, const char *text, size_t len, uint64_t *ret)
{
	while (len && isspace((unsigned char)*text)) {
		text++;
		len--;
	}
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	if (!len)
		return sg_error_create(SG_ERROR_USAGE, "Missing argument: \"disassemble START,END\".");
	char *s = strndup(text, len);
	if (!s)
		return &sg_enomem;
	struct sg_error *err = shell_eval_address(sh, s, ret);
	free(s);
	return err;
}

static struct sg_error *cmd_disassemble(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	struct shell *sh = arg;
	struct disas_opts o = { 0 };
	struct sg_error *err = parse_modifiers(&args, &o);
	if (err)
		return err;
	struct sg_target *t = sg_session_target(s);
	const char *comma = top_level_comma(args);
	if (comma) {
		uint64_t start, end;
		if ((err = eval_part(sh, args, (size_t)(comma - args), &start)))
			return err;
		const char *rest = comma + 1;
		while (isspace((unsigned char)*rest))
			rest++;
		bool length = *rest == '+';
		if ((err = eval_part(sh, rest + length, strlen(rest + length), &end)))
			return err;
		if (length)
			end = start + end < start ? UINT64_MAX : start + end;
		if (end > start && end - start > DISAS_MAX_BYTES)
			return sg_error_format(SG_ERROR_USAGE,
					       "range of %" PRIu64 " bytes: disassemble takes %u at most",
					       end - start, DISAS_MAX_BYTES);
		sg_out_hex(out, "start", start);
		sg_out_hex(out, "end", end);
		sg_out_printf(out, "Dump of assembler code from 0x%" PRIx64 " to 0x%" PRIx64 ":\n",
			      start, end);
		err = dump(sh, t, start, end, false, 0, &o, out);
		if (!err)
			sg_out_printf(out, "End of assembler dump.\n");
		return err;
	}
	uint64_t addr;
	if (*args) {
		if ((err = shell_eval_address(sh, args, &addr)))
			return err;
	} else if (!frame_pc(sh, &addr)) {
		return sg_error_create(SG_ERROR_TARGET, "No frame selected.");
	}
	struct disas_function fn;
	if ((err = disas_function_at(t, addr, &fn))) {
		if (!*args && sg_error_code(err) == SG_ERROR_LOOKUP) {
			sg_error_destroy(err);
			return sg_error_create(SG_ERROR_LOOKUP,
					       "No function contains program counter for selected frame.");
		}
		return err;
	}
	sg_out_string(out, "function", fn.name);
	sg_out_hex(out, "entry", fn.entry);
	sg_out_printf(out, "Dump of assembler code for function %s:\n", fn.name);
	free(fn.name);
	/* A function in pieces (a .cold part): gdb heads each range.  */
	sg_out_array_begin(out, "ranges");
	for (size_t i = 0; i < fn.nranges && !err; i++) {
		sg_out_object_begin(out, NULL);
		sg_out_hex(out, "start", fn.ranges[i].start);
		sg_out_hex(out, "end", fn.ranges[i].end);
		if (fn.nranges > 1)
			sg_out_printf(out, "Address range 0x%" PRIx64 " to 0x%" PRIx64 ":\n",
				      fn.ranges[i].start, fn.ranges[i].end);
		err = dump(sh, t, fn.ranges[i].start, fn.ranges[i].end, true, fn.entry, &o, out);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	if (!err)
		sg_out_printf(out, "End of assembler dump.\n");
	return err;
}

/* ---- set/show disassembly-flavor ---- */

static const char *const flavors[] = { [DISAS_ATT] = "att", [DISAS_INTEL] = "intel" };

static struct sg_error *cmd_set_flavor(struct sg_session *s, const char *args, struct sg_out *out,
				       void *arg)
{
	(void)s;
	(void)out;
	(void)arg;
	while (isspace((unsigned char)*args))
		args++;
	size_t len = strlen(args);
	while (len && isspace((unsigned char)args[len - 1]))
		len--;
	if (!len)
		return sg_error_create(SG_ERROR_USAGE,
				       "Requires an argument. Valid arguments are att, intel.");
	/* gdb takes a unique prefix.  */
	int found = -1, matches = 0;
	for (int i = 0; i < 2; i++) {
		if (!strncmp(flavors[i], args, len)) {
			if (strlen(flavors[i]) == len) {
				found = i;
				matches = 1;
				break;
			}
			found = i;
			matches++;
		}
	}
	if (matches != 1)
		return sg_error_format(SG_ERROR_USAGE, "%s item: \"%.*s\".",
				       matches ? "Ambiguous" : "Undefined", (int)len, args);
	disas_flavor = (enum disas_flavor)found;
	return NULL;
}

static struct sg_error *cmd_show_flavor(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	(void)s;
	(void)args;
	(void)arg;
	sg_out_string(out, "disassembly-flavor", flavors[disas_flavor]);
	sg_out_printf(out, "The disassembly flavor is \"%s\".\n", flavors[disas_flavor]);
	return NULL;
}

static const struct sg_command disas_cmds[] = {
	{ .name = "disassemble", .synopsis = "disassemble[/r] [FUNCTION | ADDR | START,END | START,+LENGTH]",
	  .summary = "Disassemble a function or a range of memory",
	  .details = "Without an argument, the function around the selected frame's pc; with one,\n"
		     "the function containing that address (a name, an expression).  START,END\n"
		     "and START,+LENGTH disassemble that range instead, END excluded.  The\n"
		     "instruction at the selected frame's pc is marked \"=> \".\n"
		     "/r (or /b) shows each instruction's bytes.  Calls and jumps name their\n"
		     "target as gdb does: \"call   0x401126 <foo>\", and RIP-relative operands\n"
		     "get a \"# 0x404028 <global>\" comment.  The syntax follows\n"
		     "\"set disassembly-flavor\".  With --json: the instructions as objects\n"
		     "{address, offset, bytes, text, current}.",
	  .handler = cmd_disassemble, .complete = sg_complete_symbol, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "set disassembly-flavor", .synopsis = "set disassembly-flavor att|intel",
	  .summary = "Set the assembly syntax of disassemble and x/i",
	  .details = "att (the default, as in gdb): \"mov    %rsp,%rbp\"; intel: \"mov    rbp,rsp\".",
	  .handler = cmd_set_flavor },
	{ .name = "show disassembly-flavor", .synopsis = "show disassembly-flavor",
	  .summary = "Show the assembly syntax of disassemble and x/i", .handler = cmd_show_flavor },
};

struct sg_error *shell_register_disas_commands(struct shell *sh)
{
	return shell_register_table(sh, disas_cmds, sizeof(disas_cmds) / sizeof(disas_cmds[0]));
}
