/* "x/NFU EXPR": examine memory as gdb does.  EXPR is any expression
   (sg_eval_address, lib/eval-expr.c).  */
#include <config.h>
#include "eval.h"
#include "complete.h"
#include "shell.h"
#include "disas-insn.h"

#include <ctype.h>
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- x ---- */

/* Largest count we accept: a typo must not dump gigabytes.  */
#define X_MAX_COUNT 65536

static void label(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	int n = snprintf(buf, size, "0x%" PRIx64, addr);
	if (n > 0 && (size_t)n < size)
		sg_x_label_suffix(t, addr, buf + n, size - n);
}

static int items_per_line(char fmt, int size)
{
	switch (fmt) {
	case 'c':
		return 8;
	case 'a':
		return 2;
	default:
		return size == 8 ? 2 : size == 4 ? 4 : 8;
	}
}

static void format_int(char fmt, int size, uint64_t v, struct sg_buf_lite *b)
{
	char s[80];
	int bits = size * 8;
	uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	v &= mask;
	switch (fmt) {
	case 'x':
		snprintf(s, sizeof(s), "0x%0*" PRIx64, size * 2, v);
		break;
	case 'd': {
		int64_t sv = bits == 64 ? (int64_t)v
			     : (v >> (bits - 1)) ? (int64_t)(v | ~mask) : (int64_t)v;
		snprintf(s, sizeof(s), "%" PRId64, sv);
		break;
	}
	case 'u':
		snprintf(s, sizeof(s), "%" PRIu64, v);
		break;
	case 'o':
		snprintf(s, sizeof(s), v ? "0%" PRIo64 : "0", v);
		break;
	case 't':
		for (int i = 0; i < bits; i++)
			s[i] = (v >> (bits - 1 - i)) & 1 ? '1' : '0';
		s[bits] = '\0';
		break;
	default:
		snprintf(s, sizeof(s), "?");
	}
	sg_lite_puts(b, s);
}

struct x_spec {
	unsigned long count;
	char fmt;
	int size;
	bool size_given;
};

static struct sg_error *parse_x_spec(struct shell *sh, const char **argsp, struct x_spec *x)
{
	const char *a = *argsp;
	x->count = 1;
	x->fmt = sh->x_format;
	x->size = sh->x_size;
	x->size_given = false;
	if (*a != '/') {
		/* gdb repeats the last count too: after x/3i, x shows the next
		   3 instructions, after x/2dw the next two words.  */
		x->count = sh->x_count ? sh->x_count : 1;
		return NULL;
	}
	a++;
	if (isdigit((unsigned char)*a)) {
		char *end;
		x->count = strtoul(a, &end, 10);
		a = end;
	}
	bool fmt_given = false;
	while (*a && !isspace((unsigned char)*a)) {
		switch (*a) {
		case 'b': x->size = 1; x->size_given = true; break;
		case 'h': x->size = 2; x->size_given = true; break;
		case 'w': x->size = 4; x->size_given = true; break;
		case 'g': x->size = 8; x->size_given = true; break;
		case 'x': case 'd': case 'u': case 'o': case 't': case 'c': case 's': case 'a': case 'i':
			x->fmt = *a;
			fmt_given = true;
			break;
		default:
			return sg_error_format(SG_ERROR_USAGE, "Invalid number or format letter '%c' in \"/%.*s\".",
					       *a, (int)strcspn(*argsp + 1, " \t"), *argsp + 1);
		}
		a++;
	}
	if (x->count == 0 || x->count > X_MAX_COUNT)
		return sg_error_format(SG_ERROR_USAGE, "count must be between 1 and %d", X_MAX_COUNT);
	/* gdb's defaults when the size is not given.  */
	if (!x->size_given && fmt_given) {
		if (x->fmt == 'a')
			x->size = 8;
		else if (x->fmt == 'c' || x->fmt == 's')
			x->size = 1;
	}
	if (x->fmt == 'a' && x->size != 8 && x->size_given)
		x->size = 8;
	*argsp = a;
	return NULL;
}

static struct sg_error *x_strings(struct shell *sh, struct sg_target *t, uint64_t addr,
				  const struct x_spec *x, struct sg_out *out)
{
	/* "unlimited" stops at print's own cap, 2^24, marked by "...".  */
	uint64_t limit = sg_setting_uint(sh->session, "print elements", 200);
	if (limit > 1 << 24)
		limit = 1 << 24;
	sg_out_array_begin(out, "values");
	for (unsigned long i = 0; i < x->count; i++) {
		char *s;
		bool truncated;
		struct sg_error *err = sg_target_read_string(t, addr, limit, &s, &truncated);
		/* Like gdb, a string that runs into unreadable memory shows
		   what was read, then the error; the next one starts at the
		   fault.  */
		char *fault = NULL;
		uint64_t bad = 0;
		if (err && sg_error_code(err) == SG_ERROR_FAULT && sg_error_address(err) >= addr &&
		    sg_error_address(err) - addr <= limit) {
			bad = sg_error_address(err);
			fault = sg_fault_text(err);
			sg_error_destroy(err);
			truncated = false;
			s = calloc(1, bad - addr + 1);
			err = !s ? &sg_enomem : bad > addr ? sg_target_read(t, addr, s, bad - addr) : NULL;
			if (err)
				free(s);
		}
		if (err) {
			free(fault);
			sg_out_array_end(out);
			return err;
		}
		size_t len = fault ? bad - addr : strlen(s);
		char lab[512];
		label(t, addr, lab, sizeof(lab));
		struct sg_buf_lite b = { 0 };
		if (len || !fault) {
			sg_lite_putc(&b, '"');
			for (size_t k = 0; k < len; k++)
				sg_escape_byte(&b, (unsigned char)s[k], '"');
			sg_lite_putc(&b, '"');
		}
		if (truncated)
			sg_lite_puts(&b, "...");
		if (fault)
			sg_lite_puts(&b, fault);
		sg_out_printf(out, "%s:\t%s\n", lab, b.s ? b.s : "\"\"");
		sg_out_object_begin(out, NULL);
		sg_out_hex(out, "address", addr);
		sg_out_string_len(out, "string", s, len);
		sg_out_bool(out, "truncated", truncated);
		if (fault) {
			char msg[64];
			snprintf(msg, sizeof(msg), "Cannot access memory at address 0x%" PRIx64, bad);
			sg_out_string(out, "error", msg);
		}
		sg_out_object_end(out);
		free(b.s);
		free(s);
		free(fault);
		addr = fault ? bad : addr + len + 1;
	}
	sg_out_array_end(out);
	sh->x_next = addr;
	return NULL;
}

/* x/i: COUNT instructions from ADDR, as gdb lists them: "=> " on the
   selected frame's pc, the address and its symbol ("<main+4>", as
   disassemble names targets), a tab, the instruction.  */
static struct sg_error *x_insns(struct shell *sh, struct sg_target *t, uint64_t addr,
				const struct x_spec *x, struct sg_out *out)
{
	uint64_t pc = 0;
	struct sg_error *err = sg_eval_address(sh->session, "$pc", &pc);
	bool have_pc = !err;
	sg_error_destroy(err);
	err = NULL;
	sg_out_array_begin(out, "values");
	for (unsigned long i = 0; i < x->count; i++) {
		struct disas_insn insn;
		err = disas_decode(t, addr, &insn);
		char lab[512];
		sg_disas_symbol_suffix(t, addr, lab, sizeof(lab));
		if (err) {
			/* gdb's partial line: the address, then the error.  */
			free(insn.text.s);
			sg_out_printf(out, "   0x%" PRIx64 "%s:\t", addr, lab);
			break;
		}
		bool current = have_pc && pc == addr;
		sg_out_printf(out, "%s0x%" PRIx64 "%s:\t%s\n", current ? "=> " : "   ", addr, lab,
			      insn.text.s);
		struct sg_buf_lite bytes = { 0 };
		for (int k = 0; k < insn.length; k++) {
			char h[4];
			snprintf(h, sizeof(h), k ? " %02x" : "%02x", insn.bytes[k]);
			sg_lite_puts(&bytes, h);
		}
		sg_out_object_begin(out, NULL);
		sg_out_hex(out, "address", addr);
		sg_out_string(out, "bytes", bytes.s ? bytes.s : "");
		sg_out_string(out, "text", insn.text.s);
		sg_out_bool(out, "current", current);
		sg_out_object_end(out);
		free(bytes.s);
		free(insn.text.s);
		addr += (uint64_t)insn.length;
	}
	sg_out_array_end(out);
	/* Like gdb, a bare x goes on after the last instruction shown, or
	   at the one that could not be read.  */
	sh->x_next = addr;
	sh->x_next_valid = true;
	return err;
}

/* gdb's wording for unreadable memory, naming the first bad address.  */
static struct sg_error *gdb_fault(struct sg_error *err)
{
	if (!err || sg_error_code(err) != SG_ERROR_FAULT)
		return err;
	uint64_t bad = sg_error_address(err);
	sg_error_destroy(err);
	return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64, bad);
}

static struct sg_error *cmd_x(struct sg_session *s, const char *args, struct sg_out *out,
			      void *arg)
{
	struct shell *sh = arg;
	struct x_spec x;
	struct sg_error *err = parse_x_spec(sh, &args, &x);
	if (err)
		return err;
	while (isspace((unsigned char)*args))
		args++;
	uint64_t addr;
	if (*args) {
		err = sg_eval_address(sh->session, args, &addr);
		if (err)
			return err;
	} else if (sh->x_next_valid) {
		addr = sh->x_next;
	} else {
		return sg_error_create(SG_ERROR_USAGE, "Argument required (starting display address).");
	}
	struct sg_target *t = sg_session_target(s);
	sh->x_format = x.fmt;
	if (x.fmt != 's' && x.fmt != 'i')
		sh->x_size = x.size;
	sg_out_hex(out, "address", addr);
	char fmts[2] = { x.fmt, '\0' };
	sg_out_string(out, "format", fmts);
	sg_out_int(out, "size", x.size);
	sh->x_count = x.count;
	if (x.fmt == 'i') {
		sg_disas_labels_begin();
		err = x_insns(sh, t, addr, &x, out);
		sg_disas_labels_end();
		return err;
	}
	if (x.fmt == 's') {
		err = x_strings(sh, t, addr, &x, out);
		sh->x_next_valid = !err;
		return gdb_fault(err);
	}

	/* One read for the whole range, so the error names the address that
	   failed.  */
	size_t total = x.count * x.size;
	unsigned char *buf = malloc(total);
	if (!buf)
		return &sg_enomem;
	err = sg_target_read(t, addr, buf, total);
	/* Like gdb, show what is readable before the fault: it reads
	   item by item.  */
	unsigned long count = x.count;
	bool faulted = false;
	uint64_t bad = err ? sg_error_address(err) : 0;
	if (err && sg_error_code(err) == SG_ERROR_FAULT && bad >= addr && bad < addr + total) {
		count = (bad - addr) / x.size;
		sg_error_destroy(err);
		err = count ? sg_target_read(t, addr, buf, count * x.size) : NULL;
		faulted = true;
	}
	if (err) {
		free(buf);
		return gdb_fault(err);
	}
	int per_line = items_per_line(x.fmt, x.size);
	sg_out_array_begin(out, "values");
	for (unsigned long i = 0; i < count; i++) {
		/* The memory was read in one piece: Ctrl-C stops the
		   formatting (the command ends with Quit, shell/run.c).  */
		if (sg_interrupt_pending())
			break;
		uint64_t v = 0;
		memcpy(&v, buf + i * x.size, x.size);
		uint64_t a = addr + i * x.size;
		if (i % per_line == 0) {
			char lab[512];
			label(t, a, lab, sizeof(lab));
			sg_out_printf(out, "%s%s:", i ? "\n" : "", lab);
		}
		struct sg_buf_lite b = { 0 };
		if (x.fmt == 'c') {
			sg_char_repr(&b, (unsigned char)v);
			sg_out_int(out, NULL, (signed char)v);
		} else if (x.fmt == 'a') {
			char lab[512];
			label(t, v, lab, sizeof(lab));
			sg_lite_puts(&b, lab);
			sg_out_hex(out, NULL, v);
		} else {
			format_int(x.fmt, x.size, v, &b);
			if (x.fmt == 'd') {
				int bits = x.size * 8;
				int64_t sv = bits == 64 ? (int64_t)v
					     : (v >> (bits - 1)) ? (int64_t)(v | (UINT64_MAX << bits))
								 : (int64_t)v;
				sg_out_int(out, NULL, sv);
			} else {
				sg_out_uint(out, NULL, v);
			}
		}
		sg_out_printf(out, "\t%s", b.s ? b.s : "");
		free(b.s);
	}
	sg_out_array_end(out);
	if (faulted) {
		free(buf);
		/* gdb's partial line: the failing item's label and tab, then
		   the error.  */
		if (count % per_line == 0) {
			char lab[512];
			label(t, addr + count * x.size, lab, sizeof(lab));
			sg_out_printf(out, "%s%s:", count ? "\n" : "", lab);
		}
		sg_out_printf(out, "\t");
		return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64, bad);
	}
	sg_out_printf(out, "\n");
	sh->x_next = addr + total;
	sh->x_next_valid = true;
	/* gdb's $_, the last unit's address, and $__, its contents.  */
	uint64_t last = 0;
	memcpy(&last, buf + (count - 1) * x.size, x.size);
	free(buf);
	return sg_set_examined(sh->session, t, addr + (count - 1) * x.size, x.size, last);
}

static const struct sg_command x_cmd = {
	.name = "x", .synopsis = "x[/NFU] [ADDRESS]", .summary = "Examine memory",
	.details = "N is a count, F a format and U a unit size, as in gdb.\n"
		   "Formats: x hex, d decimal, u unsigned, o octal, t binary, c char,\n"
		   "s string, a address, i instruction.  Sizes: b byte, h halfword (2), w word (4), g giant (8).\n"
		   "ADDRESS is an expression, in the selected frame: a pointer's value, where\n"
		   "an array or function is, or an integer (x/s p follows the char *p).\n"
		   "Without ADDRESS, x goes on after the last address examined.",
	.handler = cmd_x, .complete = sg_complete_expression, .flags = SG_CMD_NEEDS_TARGET,
};

struct sg_error *shell_register_x_command(struct shell *sh)
{
	return sg_command_register(sh->session, &x_cmd, sh);
}
