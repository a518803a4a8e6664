/* Instructions decoded by binutils' libopcodes, the disassembler gdb
   itself uses, so that the text (mnemonics, operand order and spelling,
   the "# 0x... <sym>" comment of RIP-relative operands) is gdb's.  Only
   the labels of addresses are ours (lib/disas-labels.c): libopcodes asks
   us to print them.

   The library is opened at the first instruction, not at start-up: with
   libbfd, which it needs, it is some 15,000 relocations and eight
   libraries, 0.6 ms of every run, and most runs disassemble nothing.  */
#include <config.h>
#include "disas-insn.h"

#include <dis-asm.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum disas_flavor disas_flavor = DISAS_ATT;

/* ---- libopcodes ---- */

/* The three functions used, found in the library once it is open.  */
struct opcodes {
	__typeof__(init_disassemble_info) *init_info;
	__typeof__(disassemble_init_for_target) *init_target;
	__typeof__(disassembler) *disassembler;
};

/* OPCODES_SONAME, opened on the first call; NULL with the reason when it
   cannot be.  The library stays loaded to the exit, as a linked one
   would.  */
static const struct opcodes *open_opcodes(struct sg_error **errp)
{
	static struct opcodes api;
	static bool opened;
	if (opened)
		return &api;
	void *h = dlopen(OPCODES_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*(void **)&api.init_info = dlsym(h, "init_disassemble_info");
		*(void **)&api.init_target = dlsym(h, "disassemble_init_for_target");
		*(void **)&api.disassembler = dlsym(h, "disassembler");
	}
	if (!h || !api.init_info || !api.init_target || !api.disassembler) {
		*errp = sg_error_format(SG_ERROR_OTHER, "cannot load the disassembler (%s): %s",
					OPCODES_SONAME, h ? "a function is missing" : dlerror());
		if (h)
			dlclose(h);
		return NULL;
	}
	opened = true;
	return &api;
}

struct decode_state {
	struct sg_target *t;
	struct disas_insn *insn;
	struct sg_error *err;	/* the first failed read */
};

static int put_text(void *stream, const char *fmt, va_list ap)
{
	struct disas_insn *insn = ((struct decode_state *)stream)->insn;
	char small[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return n;
	}
	if ((size_t)n < sizeof(small)) {
		sg_lite_puts(&insn->text, small);
	} else {
		char *big = malloc((size_t)n + 1);
		if (big) {
			vsnprintf(big, (size_t)n + 1, fmt, ap2);
			sg_lite_puts(&insn->text, big);
			free(big);
		}
	}
	va_end(ap2);
	return n;
}

static int print_plain(void *stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = put_text(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* Styles (register, immediate, comment) are for colour: not used.  */
static int print_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	(void)style;
	va_list ap;
	va_start(ap, fmt);
	int n = put_text(stream, fmt, ap);
	va_end(ap);
	return n;
}

static int read_memory(bfd_vma memaddr, bfd_byte *myaddr, unsigned int length,
		       struct disassemble_info *info)
{
	struct decode_state *st = info->stream;
	struct sg_error *err = sg_target_read(st->t, memaddr, myaddr, length);
	if (!err)
		return 0;
	if (!st->err)
		st->err = err;
	else
		sg_error_destroy(err);
	return -1;
}

/* libopcodes reports a failed read here; the error is already kept.  */
static void memory_error(int status, bfd_vma memaddr, struct disassemble_info *info)
{
	(void)status;
	(void)memaddr;
	(void)info;
}

/* A target address in an operand: "0x401126 <foo>", as gdb prints it.  */
static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	struct decode_state *st = info->stream;
	char label[512];
	sg_disas_symbol_suffix(st->t, addr, label, sizeof(label));
	print_plain(st, "0x%" PRIx64 "%s", (uint64_t)addr, label);
}

/* libopcodes asks whether a symbol is at an address only to print it; we
   print every address ourselves.  */
static asymbol *symbol_at_address(bfd_vma addr, struct disassemble_info *info)
{
	(void)addr;
	(void)info;
	return NULL;
}

/* The address of the fault that ERR, a failed read at or after ADDR,
   reports; ADDR when it names none.  */
static uint64_t fault_address(struct sg_error *err, uint64_t addr)
{
	if (sg_error_code(err) == SG_ERROR_FAULT && sg_error_address(err) >= addr)
		return sg_error_address(err);
	return addr;
}

struct sg_error *disas_decode(struct sg_target *t, uint64_t addr, struct disas_insn *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->address = addr;
	struct sg_error *load_err = NULL;
	const struct opcodes *op = open_opcodes(&load_err);
	if (!op)
		return load_err;
	struct decode_state st = { .t = t, .insn = ret };
	struct disassemble_info info;
	op->init_info(&info, &st, print_plain, print_styled);
	info.arch = bfd_arch_i386;
	info.mach = bfd_mach_x86_64;
	info.read_memory_func = read_memory;
	info.memory_error_func = memory_error;
	info.print_address_func = print_address;
	info.symbol_at_address_func = symbol_at_address;
	info.disassembler_options = disas_flavor == DISAS_INTEL ? "intel" : "att";
	op->init_target(&info);
	disassembler_ftype decode = op->disassembler(bfd_arch_i386, false, bfd_mach_x86_64, NULL);
	if (!decode)
		return sg_error_create(SG_ERROR_OTHER, "libopcodes has no x86-64 disassembler");
	int n = decode(addr, &info);
	if (n <= 0 || st.err) {
		/* gdb names the first byte it could not read.  */
		uint64_t bad = st.err ? fault_address(st.err, addr) : addr;
		sg_error_destroy(st.err);
		return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64,
				       bad);
	}
	ret->length = n > DISAS_MAX_INSN ? DISAS_MAX_INSN : n;
	struct sg_error *err = sg_target_read(t, addr, ret->bytes, (size_t)ret->length);
	if (err) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64,
				       addr);
	}
	if (!ret->text.s)
		sg_lite_puts(&ret->text, "");
	return NULL;
}

/* gdb's /r: the bytes in hex, separated by spaces and padded to the
   width of six bytes (plus one space), so that short instructions line
   up; longer ones push the tab further.  */
void disas_put_bytes(const struct disas_insn *insn, struct sg_buf_lite *b)
{
	size_t start = b->len;
	for (int i = 0; i < insn->length; i++) {
		char h[4];
		snprintf(h, sizeof(h), i ? " %02x" : "%02x", insn->bytes[i]);
		sg_lite_puts(b, h);
	}
	while (b->len - start < 19)
		sg_lite_putc(b, ' ');
}
