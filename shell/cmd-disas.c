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
	bool source;	/* /s: source lines, in address order */
};

/* The modifiers after "disassemble": /r, /b (the same on x86, whose
   instructions are bytes), /s, several letters or several groups.  /m
   (deprecated in gdb for /s) is not done.  */
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
			case 's':
				o->source = true;
				break;
			case 'm':
				return sg_error_create(SG_ERROR_USAGE,
						       "disassemble /m is not supported: use /s");
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
	struct sg_error *err = sg_eval_address(sh->session, "$pc", pc);
	sg_error_destroy(err);
	return !err;
}

/* Print the instructions in [START, END).  FUNCTION: each labelled
   "<+off>" from ENTRY (a function's dump); else "<sym+off>" as targets
   are named (a range's).  */
static struct sg_error *dump(struct shell *sh, struct sg_target *t, uint64_t start, uint64_t end,
			     bool function, uint64_t entry, const struct disas_opts *o,
			     struct sg_out *out, uint64_t *next)
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
			sg_disas_symbol_suffix(t, a, label, sizeof(label));
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
			sg_lite_puts(&bytes, h);
		}
		sg_out_string(out, "bytes", bytes.s ? bytes.s : "");
		sg_out_string(out, "text", insn.text.s);
		sg_out_bool(out, "current", current);
		sg_out_object_end(out);
		free(bytes.s);
		free(insn.text.s);
		a += (uint64_t)insn.length;
		if (next)
			*next = a;
	}
	sg_out_array_end(out);
	return err;
}

/* Whether LINE of FILE has code in SEEN (N pairs).  */
struct file_line {
	const char *file;
	int line;
};

static bool has_code(const struct file_line *seen, size_t n, const char *file, int line)
{
	for (size_t i = 0; i < n; i++)
		if (seen[i].line == line && !strcmp(seen[i].file, file))
			return true;
	return false;
}

/* disassemble /s over [LOW, HIGH), as gdb 13 does: in address order, each
   run of instructions under its source line; the file's name before its
   first line; before a line, the lines since the last one shown that no
   instruction of the range will show (gdb's "preceding lines"), and at the
   start the function's first line (its opening brace) down to the first
   instruction's.  */
static struct sg_error *dump_source(struct shell *sh, struct sg_target *t, uint64_t low,
				    uint64_t high, bool function, uint64_t entry,
				    const struct disas_opts *o, struct sg_out *out)
{
	struct disas_sources *src = sg_disas_sources_create();
	if (!src)
		return &sg_enomem;
	/* First pass: the lines the range has code for.  */
	struct file_line *seen = NULL;
	size_t nseen = 0, cap = 0;
	for (uint64_t pc = low; pc < high;) {
		struct disas_insn insn;
		struct sg_error *err = disas_decode(t, pc, &insn);
		free(insn.text.s);
		if (err) {
			sg_error_destroy(err);
			break;
		}
		struct disas_line dl;
		if (sg_disas_pc_line(src, t, pc, &dl) && !has_code(seen, nseen, dl.file, dl.line)) {
			if (nseen == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct file_line *p = realloc(seen, ncap * sizeof(*p));
				if (!p) {
					free(seen);
					sg_disas_sources_destroy(src);
					return &sg_enomem;
				}
				seen = p;
				cap = ncap;
			}
			seen[nseen++] = (struct file_line){ dl.file, dl.line };
		}
		pc += (uint64_t)insn.length;
	}
	/* The first row of the range (the opening brace), which may not
	   be any instruction's line.  */
	int first_row_line = sg_disas_first_line(src, t, low, high);

	struct sg_error *err = NULL;
	const char *last_file = NULL;
	int last_line = 0;
	bool open = false;
	sg_out_array_begin(out, "lines");
	for (uint64_t pc = low; pc < high && !err;) {
		struct disas_line dl;
		bool have = sg_disas_pc_line(src, t, pc, &dl);
		const char *file = have ? dl.file : NULL;
		bool new_line = false;
		int from = 0, to = 0;	/* preceding lines to show */
		if (!last_file ? file != NULL || !open : !file || strcmp(file, last_file) != 0) {
			new_line = true;
			if (last_line == 0 && have && first_row_line && first_row_line < dl.line) {
				from = first_row_line;
				to = dl.line;
			}
		} else if (have) {
			if (dl.line > last_line + 1 && last_line != 0) {
				int l = dl.line - 1;
				while (l > last_line && !has_code(seen, nseen, file, l))
					l--;
				if (l < dl.line - 1) {
					from = l + 1;
					to = dl.line;
				}
			}
			new_line = dl.line != last_line;
		}
		if (new_line) {
			if (pc > low)
				sg_out_printf(out, "\n");
			if (open)
				sg_out_object_end(out);
			if (!last_file || !file || strcmp(file, last_file) != 0)
				sg_out_printf(out, "%s:\n", file ? file : "unknown");
			if (from > 0)
				sg_disas_print_source(src, file, from, to, out);
			sg_out_object_begin(out, NULL);
			open = true;
			if (have) {
				sg_out_string(out, "file", file);
				sg_out_int(out, "line", dl.line);
				sg_disas_print_source(src, file, dl.line, dl.line + 1, out);
			} else {
				sg_out_printf(out, "--- no source info for this pc ---\n");
			}
		}
		uint64_t end = have && dl.end ? (dl.end < high ? dl.end : high) : pc + 1;
		uint64_t next = end;
		err = dump(sh, t, pc, end, function, entry, o, out, &next);
		pc = next;
		last_file = file;
		last_line = have ? dl.line : 0;
	}
	if (open)
		sg_out_object_end(out);
	sg_out_array_end(out);
	sg_disas_sources_destroy(src);
	free(seen);
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
	struct sg_error *err = sg_eval_address(sh->session, s, ret);
	free(s);
	return err;
}

/* disassemble START,END and START,+LENGTH: COMMA is in ARGS.  */
static struct sg_error *disassemble_range(struct shell *sh, struct sg_target *t, const char *args,
					  const char *comma, const struct disas_opts *o,
					  struct sg_out *out)
{
	uint64_t start, end;
	struct sg_error *err = eval_part(sh, args, (size_t)(comma - args), &start);
	if (err)
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
	sg_out_printf(out, "Dump of assembler code from 0x%" PRIx64 " to 0x%" PRIx64 ":\n", start,
		      end);
	err = o->source ? dump_source(sh, t, start, end, false, 0, o, out)
			: dump(sh, t, start, end, false, 0, o, out, NULL);
	if (!err)
		sg_out_printf(out, "End of assembler dump.\n");
	return err;
}

/* disassemble [FUNCTION | ADDR]: the function around ARGS, or around the
   selected frame's pc.  */
static struct sg_error *disassemble_function(struct shell *sh, struct sg_target *t,
					     const char *args, const struct disas_opts *o,
					     struct sg_out *out)
{
	struct sg_error *err;
	uint64_t addr;
	if (*args) {
		if ((err = sg_eval_address(sh->session, args, &addr)))
			return err;
	} else if (!frame_pc(sh, &addr)) {
		return sg_error_create(SG_ERROR_TARGET, "No frame selected.");
	}
	struct disas_function fn;
	if ((err = sg_disas_function_at(t, addr, &fn))) {
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
		err = o->source ? dump_source(sh, t, fn.ranges[i].start, fn.ranges[i].end, true,
					      fn.entry, o, out)
				: dump(sh, t, fn.ranges[i].start, fn.ranges[i].end, true, fn.entry, o,
				       out, NULL);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	if (!err)
		sg_out_printf(out, "End of assembler dump.\n");
	return err;
}

static struct sg_error *disassemble(struct shell *sh, struct sg_session *s, const char *args,
				   struct sg_out *out)
{
	struct disas_opts o = { 0 };
	struct sg_error *err = parse_modifiers(&args, &o);
	if (err)
		return err;
	struct sg_target *t = sg_session_target(s);
	const char *comma = top_level_comma(args);
	/* "disassemble main," is main's dump, as in gdb: nothing after the
	   comma is one argument.  */
	char *single = NULL;
	if (comma && !comma[1 + strspn(comma + 1, " \t")]) {
		single = strndup(args, (size_t)(comma - args));
		if (!single)
			return &sg_enomem;
		args = single;
		comma = NULL;
	}
	err = comma ? disassemble_range(sh, t, args, comma, &o, out)
		    : disassemble_function(sh, t, args, &o, out);
	free(single);
	return err;
}

static struct sg_error *cmd_disassemble(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	sg_disas_labels_begin();
	struct sg_error *err = disassemble(arg, s, args, out);
	sg_disas_labels_end();
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
	{ .name = "disassemble", .synopsis = "disassemble[/rs] [FUNCTION | ADDR | START,END | START,+LENGTH]",
	  .summary = "Disassemble a function or a range of memory",
	  .details = "Without an argument, the function around the selected frame's pc; with one,\n"
		     "the function containing that address (a name, an expression).  START,END\n"
		     "and START,+LENGTH disassemble that range instead, END excluded.  The\n"
		     "instruction at the selected frame's pc is marked \"=> \".\n"
		     "/r (or /b) shows each instruction's bytes; /s the source lines, in\n"
		     "address order, as gdb 13 does.  Calls and jumps name their\n"
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
