/* info all-registers: the general registers of the selected frame, then
   the thread's x87, SSE, AVX, AVX-512 and PKU registers (sg_thread_xregs),
   in gdb's order and words.  gdb shows the vector registers at their
   widest only: zmm0-31 with AVX-512, ymm0-15 with AVX alone, xmm0-15
   with SSE alone; the narrower ones are asked for by name.  */
#include <config.h>
#include "procinfo.h"
#include "eval.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { XCR0_X87 = 1, XCR0_SSE = 2, XCR0_AVX = 4, XCR0_AVX512 = 0xe0, XCR0_PKRU = 0x200 };

/* The columns of gdb's register lines: the value at 15, its natural
   form at 35, each after at least one blank.  */
static void print_line(struct sg_out *out, const char *name, const char *value,
		       const char *natural)
{
	size_t n = strlen(name);
	int pad1 = n < 14 ? (int)(15 - n) : 1;
	if (!natural) {
		sg_out_printf(out, "%s%*s%s\n", name, pad1, "", value);
		return;
	}
	size_t col = (n < 14 ? 15 : n + 1) + strlen(value);
	int pad2 = col < 34 ? (int)(35 - col) : 1;
	sg_out_printf(out, "%s%*s%s%*s%s\n", name, pad1, "", value, pad2, "", natural);
}

/* ---- the general registers, as "info registers" prints them ---- */

void shell_print_register(struct sg_target *t, const struct sg_regs *regs, enum sg_reg r,
			  const char *name, struct sg_out *out)
{
	if (!sg_regs_has(regs, r)) {
		print_line(out, name, "<not saved>", NULL);
		sg_out_null(out, name);
		return;
	}
	uint64_t v = regs->r[r];
	char hex[32], natural[512];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	switch (r) {
	case SG_REG_RIP: {
		int n = snprintf(natural, sizeof(natural), "0x%" PRIx64, v);
		sg_symbol_suffix(t, v, natural + n, sizeof(natural) - n);
		break;
	}
	case SG_REG_RBP:
	case SG_REG_RSP:
		snprintf(natural, sizeof(natural), "0x%" PRIx64, v);
		break;
	case SG_REG_EFLAGS:
		sg_eflags_text(v, natural, sizeof(natural));
		break;
	default:
		snprintf(natural, sizeof(natural), "%" PRId64, (int64_t)v);
	}
	print_line(out, name, hex, natural);
	sg_out_hex(out, name, v);
}

/* gdb's general registers in "info all-registers": fs_base, gs_base
   and orig_rax are asked for by name only.  */
static const enum sg_reg general_order[] = {
	SG_REG_RAX, SG_REG_RBX, SG_REG_RCX, SG_REG_RDX, SG_REG_RSI, SG_REG_RDI, SG_REG_RBP,
	SG_REG_RSP, SG_REG_R8, SG_REG_R9, SG_REG_R10, SG_REG_R11, SG_REG_R12, SG_REG_R13,
	SG_REG_R14, SG_REG_R15, SG_REG_RIP, SG_REG_EFLAGS, SG_REG_CS, SG_REG_SS, SG_REG_DS,
	SG_REG_ES, SG_REG_FS, SG_REG_GS,
};

/* ---- x87 ---- */

/* An 80-bit value as gdb prints it: 21 significant digits, a NaN with
   its mantissa, and "<invalid float value>" for the encodings the FPU
   refuses (an integer bit that disagrees with the exponent).  */
static void x87_text(const unsigned char *r, char *buf, size_t size)
{
	uint64_t mantissa;
	uint16_t se;
	memcpy(&mantissa, r, 8);
	memcpy(&se, r + 8, 2);
	unsigned exponent = se & 0x7fff;
	bool sign = se >> 15, integer = mantissa >> 63;
	if ((exponent == 0) == integer) {
		snprintf(buf, size, "<invalid float value>");
		return;
	}
	if (exponent == 0x7fff) {
		if (mantissa << 1)
			snprintf(buf, size, "%snan(0x%" PRIx64 ")", sign ? "-" : "", mantissa);
		else
			snprintf(buf, size, "%sinf", sign ? "-" : "");
		return;
	}
	long double v;
	_Static_assert(sizeof(long double) >= 10, "x87 long double");
	memset(&v, 0, sizeof(v));
	memcpy(&v, r, 10);
	snprintf(buf, size, "%.21Lg", v);
}

static void print_st(struct sg_out *out, const char *name, const unsigned char *r)
{
	char natural[64], raw[32];
	x87_text(r, natural, sizeof(natural));
	int n = snprintf(raw, sizeof(raw), "0x");
	for (int i = 9; i >= 0; i--)
		n += snprintf(raw + n, sizeof(raw) - n, "%02x", r[i]);
	char text[96];
	snprintf(text, sizeof(text), "(raw %s)", raw);
	print_line(out, name, natural, text);
	sg_out_object_begin(out, name);
	sg_out_string(out, "value", natural);
	sg_out_string(out, "raw", raw);
	sg_out_object_end(out);
}

/* fctrl..fop and k0-7: gdb's "int" (32 bits, signed) and uint64.  */
static void print_int(struct sg_out *out, const char *name, uint64_t v, bool is_signed32)
{
	char hex[32], natural[32];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	if (is_signed32)
		snprintf(natural, sizeof(natural), "%" PRId32, (int32_t)(uint32_t)v);
	else
		snprintf(natural, sizeof(natural), "%" PRIu64, v);
	print_line(out, name, hex, natural);
	sg_out_hex(out, name, v);
}

static void print_mxcsr(struct sg_out *out, uint32_t v)
{
	static const struct { int bit; const char *name; } flags[] = {
		{ 0, "IE" }, { 1, "DE" }, { 2, "ZE" }, { 3, "OE" }, { 4, "UE" }, { 5, "PE" },
		{ 6, "DAZ" }, { 7, "IM" }, { 8, "DM" }, { 9, "ZM" }, { 10, "OM" }, { 11, "UM" },
		{ 12, "PM" }, { 15, "FZ" },
	};
	char hex[16], natural[128];
	snprintf(hex, sizeof(hex), "0x%" PRIx32, v);
	size_t n = snprintf(natural, sizeof(natural), "[ ");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (v >> flags[i].bit & 1)
			n += snprintf(natural + n, sizeof(natural) - n, "%s ", flags[i].name);
	snprintf(natural + n, sizeof(natural) - n, "]");
	print_line(out, "mxcsr", hex, natural);
	sg_out_hex(out, "mxcsr", v);
}

/* ---- vectors ---- */

/* A vector's text: at most 64 elements in each of 9 views, 40 bytes
   an element at most.  */
struct text {
	char data[24576];
	size_t len;
};

static void text_printf(struct text *t, const char *fmt, ...) SG_PRINTF(2, 3);
static void text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->data + t->len, sizeof(t->data) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->data) - t->len ? (size_t)n : sizeof(t->data) - t->len - 1;
}

/* Element I of width W bytes of BYTES, in hex as gdb's /x prints it.  */
static void element_hex(const unsigned char *bytes, size_t w, size_t i, char *buf, size_t size)
{
	const unsigned char *p = bytes + i * w;
	uint64_t lo = 0, hi = 0;
	for (size_t b = 0; b < w && b < 8; b++)
		lo |= (uint64_t)p[b] << (8 * b);
	for (size_t b = 8; b < w; b++)
		hi |= (uint64_t)p[b] << (8 * (b - 8));
	if (hi)
		snprintf(buf, size, "0x%" PRIx64 "%016" PRIx64, hi, lo);
	else
		snprintf(buf, size, "0x%" PRIx64, lo);
}

/* gdb folds a run of more than this many equal elements into
   "X <repeats N times>".  */
#define REPEAT_THRESHOLD 10

static void print_view(struct sg_out *out, struct text *text, const char *view,
		       const unsigned char *bytes, size_t size, size_t w)
{
	size_t n = size / w;
	text_printf(text, "%s = {", view);
	sg_out_array_begin(out, view);
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		while (i + run < n && !memcmp(bytes + i * w, bytes + (i + run) * w, w))
			run++;
		char el[48];
		element_hex(bytes, w, i, el, sizeof(el));
		if (i)
			text_printf(text, ", ");
		if (run > REPEAT_THRESHOLD) {
			text_printf(text, "%s <repeats %zu times>", el, run);
		} else {
			run = 1;
			text_printf(text, "%s", el);
		}
		for (size_t k = 0; k < run; k++)
			sg_out_string(out, NULL, el);
		i += run;
	}
	sg_out_array_end(out);
	text_printf(text, "}");
}

/* xmmN, ymmN or zmmN (SIZE 16, 32, 64 bytes) as gdb's union of views.  */
static void print_vector(struct sg_out *out, const char *name, const unsigned char *bytes,
			 size_t size)
{
	static const struct { const char *kind; size_t w; } views[] = {
		{ "bfloat16", 2 }, { "half", 2 }, { "float", 4 }, { "double", 8 },
		{ "int8", 1 }, { "int16", 2 }, { "int32", 4 }, { "int64", 8 }, { "int128", 16 },
	};
	struct text *text = malloc(sizeof(*text));
	if (!text)
		return;
	text->len = 0;
	text_printf(text, "{");
	sg_out_object_begin(out, name);
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		size_t n = size / views[v].w;
		if (v)
			text_printf(text, ", ");
		if (n == 1) {	/* xmm's uint128: a scalar */
			char el[48];
			element_hex(bytes, 16, 0, el, sizeof(el));
			text_printf(text, "uint128 = %s", el);
			sg_out_string(out, "uint128", el);
			continue;
		}
		char view[32];
		snprintf(view, sizeof(view), "v%zu_%s", n, views[v].kind);
		print_view(out, text, view, bytes, size, views[v].w);
	}
	sg_out_object_end(out);
	text_printf(text, "}");
	print_line(out, name, text->data, NULL);
	free(text);
}

/* ---- by name ---- */

static const char *const fp_names[] = {
	"fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop",
};

static uint32_t fp_value(const struct sg_xregs *x, size_t i)
{
	const uint32_t v[] = { x->fctrl, x->fstat, x->ftag, x->fiseg, x->fioff, x->foseg,
			       x->fooff, x->fop };
	return v[i];
}

/* NAME's number after PREFIX, below LIMIT, or -1.  */
static int numbered(const char *name, const char *prefix, int limit)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n) || !name[n])
		return -1;
	char *end;
	long v = strtol(name + n, &end, 10);
	if (*end || v < 0 || v >= limit || (name[n] == '0' && name[n + 1]))
		return -1;
	return (int)v;
}

/* Print the x87/vector register NAME of X; false if X's thread has no
   such register.  */
static bool print_named(struct sg_out *out, const char *name, const struct sg_xregs *x)
{
	bool x87 = x->xcr0 & XCR0_X87, sse = x->xcr0 & XCR0_SSE;
	bool avx = (x->xcr0 & XCR0_AVX) && sse;
	bool avx512 = (x->xcr0 & XCR0_AVX512) == XCR0_AVX512 && avx;
	int nvec = avx512 ? 32 : 16, i;
	if (x87 && (i = numbered(name, "st", 8)) >= 0) {
		print_st(out, name, x->st[i]);
		return true;
	}
	for (size_t f = 0; x87 && f < sizeof(fp_names) / sizeof(fp_names[0]); f++) {
		if (!strcmp(name, fp_names[f])) {
			print_int(out, name, fp_value(x, f), true);
			return true;
		}
	}
	if (sse && !strcmp(name, "mxcsr")) {
		print_mxcsr(out, x->mxcsr);
		return true;
	}
	if (sse && (i = numbered(name, "xmm", nvec)) >= 0) {
		print_vector(out, name, x->zmm[i], 16);
		return true;
	}
	if (avx && (i = numbered(name, "ymm", nvec)) >= 0) {
		print_vector(out, name, x->zmm[i], 32);
		return true;
	}
	if (avx512 && (i = numbered(name, "zmm", 32)) >= 0) {
		print_vector(out, name, x->zmm[i], 64);
		return true;
	}
	if (avx512 && (i = numbered(name, "k", 8)) >= 0) {
		print_int(out, name, x->k[i], false);
		return true;
	}
	if ((x->xcr0 & XCR0_PKRU) && !strcmp(name, "pkru")) {
		print_int(out, name, x->pkru, false);
		return true;
	}
	return false;
}

/* What gdb's "info all-registers" lists after the general registers.  */
static void print_all_vector(struct sg_out *out, const struct sg_xregs *x)
{
	bool x87 = x->xcr0 & XCR0_X87, sse = x->xcr0 & XCR0_SSE;
	bool avx = (x->xcr0 & XCR0_AVX) && sse;
	bool avx512 = (x->xcr0 & XCR0_AVX512) == XCR0_AVX512 && avx;
	char name[16];
	if (x87) {
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "st%d", i);
			print_st(out, name, x->st[i]);
		}
		for (size_t f = 0; f < sizeof(fp_names) / sizeof(fp_names[0]); f++)
			print_int(out, fp_names[f], fp_value(x, f), true);
	}
	if (sse && !avx) {
		for (int i = 0; i < 16; i++) {
			snprintf(name, sizeof(name), "xmm%d", i);
			print_vector(out, name, x->zmm[i], 16);
		}
	}
	if (sse)
		print_mxcsr(out, x->mxcsr);
	if (avx512) {
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "k%d", i);
			print_int(out, name, x->k[i], false);
		}
	}
	if (x->xcr0 & XCR0_PKRU)
		print_int(out, "pkru", x->pkru, false);
	if (avx) {
		for (int i = 0; i < (avx512 ? 32 : 16); i++) {
			snprintf(name, sizeof(name), avx512 ? "zmm%d" : "ymm%d", i);
			print_vector(out, name, x->zmm[i], avx512 ? 64 : 32);
		}
	}
}

static struct sg_error *selected_xregs(struct sg_session *s, struct sg_xregs *x)
{
	return sg_thread_xregs(sg_session_target(s), sg_session_thread(s), x);
}

struct sg_error *shell_print_vector_register(struct sg_session *s, const char *name,
					     struct sg_out *out)
{
	if (name[0] == '$')
		name++;
	struct sg_xregs *x = malloc(sizeof(*x));
	if (!x)
		return &sg_enomem;
	struct sg_error *err = selected_xregs(s, x);
	if (!err && !print_named(out, name, x))
		err = &sg_not_found;
	free(x);
	return err;
}

/* The registers of frame LEVEL as gdb has them: what the unwinder did
   not recover for it is the value in the frame it called, and so on
   inwards (gdb takes a register the CFI does not describe as unchanged
   by the call).  Frame 0 knows them all.  */
static void frame_registers(const struct sg_stack *st, size_t level, struct sg_regs *ret)
{
	*ret = *sg_stack_frame(st, level)->regs;
	for (size_t l = level; l-- > 0;) {
		const struct sg_regs *inner = sg_stack_frame(st, l)->regs;
		for (int r = 0; r < SG_NREGS; r++)
			if (!sg_regs_has(ret, r) && sg_regs_has(inner, r))
				sg_regs_set(ret, r, inner->r[r]);
	}
}

static struct sg_error *cmd_info_all_registers(struct sg_session *s, const char *args,
					       struct sg_out *out, void *arg SG_UNUSED)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	struct sg_regs regs;
	frame_registers(st, sg_session_frame(s), &regs);
	struct sg_target *t = sg_session_target(s);
	struct sg_xregs *x = malloc(sizeof(*x));
	if (!x)
		return &sg_enomem;
	/* The vector registers are the thread's in every frame: no
	   unwinder recovers them, and gdb shows them unchanged.  */
	err = selected_xregs(s, x);
	if (err) {
		free(x);
		return err;
	}
	sg_out_object_begin(out, "registers");
	if (!*args) {
		for (size_t i = 0; i < sizeof(general_order) / sizeof(general_order[0]); i++)
			shell_print_register(t, &regs, general_order[i], sg_reg_name(general_order[i]), out);
		print_all_vector(out, x);
	} else {
		char *copy = strdup(args), *save = NULL;
		if (!copy) {
			free(x);
			return &sg_enomem;
		}
		for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			const char *name = w[0] == '$' ? w + 1 : w;
			int r = sg_reg_lookup(name);
			if (r >= 0) {
				shell_print_register(t, &regs, r, sg_reg_name(r), out);
				continue;
			}
			if (!print_named(out, name, x)) {
				err = sg_error_format(SG_ERROR_LOOKUP, "Invalid register `%s'", name);
				break;
			}
		}
		free(copy);
	}
	sg_out_object_end(out);
	free(x);
	return err;
}

static const struct sg_command regs_cmds[] = {
	{ .name = "info all-registers", .synopsis = "info all-registers [REG...]",
	  .summary = "Show the selected frame's registers, vector and floating-point ones too",
	  .details = "After the general registers (as info registers shows them), the thread's\n"
		     "x87 stack (st0-st7, with the raw 80 bits), the x87 control registers,\n"
		     "mxcsr, and the vector registers at their widest: zmm0-31 and k0-7 with\n"
		     "AVX-512, ymm0-15 with AVX, xmm0-15 with SSE alone; pkru with PKU.  Each\n"
		     "vector is shown as gdb's union of views, in hex.  REG names registers to\n"
		     "show instead, narrower ones too (xmm0, ymm3).  The vector registers are\n"
		     "the thread's, whichever frame is selected.",
	  .handler = cmd_info_all_registers, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_regs_commands(struct shell *sh)
{
	return shell_register_table(sh, regs_cmds, sizeof(regs_cmds) / sizeof(regs_cmds[0]));
}
