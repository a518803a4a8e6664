/* A symbol's DWARF location in gdb's words, as info scope prints it:
   short phrases for the simple cases ("a variable in $rdi", "a variable
   at frame base reg $rbp offset 0+-8"), gdb's disassembly of the
   expression otherwise, pieces, and location lists entry by entry
   (gdb 13's dwarf2/loc.c; doc/research/info-scope.md, section 5).

   The expression is read from its raw bytes, not from libdw's decoded
   ops: gdb prints operands as encoded (an unknown opcode stops it
   where it is) and numbers each op by its byte offset.  Location lists
   are read from .debug_loc / .debug_loclists for the same reason: gdb
   shows their base-address entries, which libdw hides.  Every read is
   bounded by its section; a list or expression that runs off its end is
   gdb's "Corrupted DWARF" error, after what was already said.  */
#include <config.h>
#include "internal.h"
#include "eval.h"
#include "dwarf-describe.h"
#include "scope-info.h"

#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>
#include <string.h>

/* gdb's amd64 names of DWARF register numbers; NULL: none.  */
static const char *const dwarf_regs[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
	"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7",
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,	/* mm0-7: not mapped */
	"eflags", "es", "cs", "ss", "ds", "fs", "gs",
};

static const char *regname(uint64_t r)
{
	if (r < sizeof(dwarf_regs) / sizeof(dwarf_regs[0]) && dwarf_regs[r])
		return dwarf_regs[r];
	return "bad_register_number";
}

/* The DWARF names of the opcodes, as gdb's dwarf2.def spells them.  */
static const char *op_name(unsigned op)
{
	static const char *const low[] = {
		[0x03] = "DW_OP_addr", [0x06] = "DW_OP_deref", [0x08] = "DW_OP_const1u",
		[0x09] = "DW_OP_const1s", [0x0a] = "DW_OP_const2u", [0x0b] = "DW_OP_const2s",
		[0x0c] = "DW_OP_const4u", [0x0d] = "DW_OP_const4s", [0x0e] = "DW_OP_const8u",
		[0x0f] = "DW_OP_const8s", [0x10] = "DW_OP_constu", [0x11] = "DW_OP_consts",
		[0x12] = "DW_OP_dup", [0x13] = "DW_OP_drop", [0x14] = "DW_OP_over",
		[0x15] = "DW_OP_pick", [0x16] = "DW_OP_swap", [0x17] = "DW_OP_rot",
		[0x18] = "DW_OP_xderef", [0x19] = "DW_OP_abs", [0x1a] = "DW_OP_and",
		[0x1b] = "DW_OP_div", [0x1c] = "DW_OP_minus", [0x1d] = "DW_OP_mod",
		[0x1e] = "DW_OP_mul", [0x1f] = "DW_OP_neg", [0x20] = "DW_OP_not",
		[0x21] = "DW_OP_or", [0x22] = "DW_OP_plus", [0x23] = "DW_OP_plus_uconst",
		[0x24] = "DW_OP_shl", [0x25] = "DW_OP_shr", [0x26] = "DW_OP_shra",
		[0x27] = "DW_OP_xor", [0x28] = "DW_OP_bra", [0x29] = "DW_OP_eq",
		[0x2a] = "DW_OP_ge", [0x2b] = "DW_OP_gt", [0x2c] = "DW_OP_le",
		[0x2d] = "DW_OP_lt", [0x2e] = "DW_OP_ne", [0x2f] = "DW_OP_skip",
		[0x90] = "DW_OP_regx", [0x91] = "DW_OP_fbreg", [0x92] = "DW_OP_bregx",
		[0x93] = "DW_OP_piece", [0x94] = "DW_OP_deref_size", [0x95] = "DW_OP_xderef_size",
		[0x96] = "DW_OP_nop", [0x97] = "DW_OP_push_object_address", [0x98] = "DW_OP_call2",
		[0x99] = "DW_OP_call4", [0x9a] = "DW_OP_call_ref", [0x9b] = "DW_OP_form_tls_address",
		[0x9c] = "DW_OP_call_frame_cfa", [0x9d] = "DW_OP_bit_piece",
		[0x9e] = "DW_OP_implicit_value", [0x9f] = "DW_OP_stack_value",
		[0xa0] = "DW_OP_implicit_pointer", [0xa1] = "DW_OP_addrx", [0xa2] = "DW_OP_constx",
		[0xa3] = "DW_OP_entry_value", [0xa4] = "DW_OP_const_type",
		[0xa5] = "DW_OP_regval_type", [0xa6] = "DW_OP_deref_type",
		[0xa7] = "DW_OP_xderef_type", [0xa8] = "DW_OP_convert", [0xa9] = "DW_OP_reinterpret",
		[0xe0] = "DW_OP_GNU_push_tls_address", [0xf0] = "DW_OP_GNU_uninit",
		[0xf1] = "DW_OP_GNU_encoded_addr", [0xf2] = "DW_OP_GNU_implicit_pointer",
		[0xf3] = "DW_OP_GNU_entry_value", [0xf4] = "DW_OP_GNU_const_type",
		[0xf5] = "DW_OP_GNU_regval_type", [0xf6] = "DW_OP_GNU_deref_type",
		[0xf7] = "DW_OP_GNU_convert", [0xf9] = "DW_OP_GNU_reinterpret",
		[0xfa] = "DW_OP_GNU_parameter_ref", [0xfb] = "DW_OP_GNU_addr_index",
		[0xfc] = "DW_OP_GNU_const_index", [0xfd] = "DW_OP_GNU_variable_value",
	};
	static char numbered[3][16];
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
		snprintf(numbered[0], sizeof(numbered[0]), "DW_OP_lit%u", op - DW_OP_lit0);
		return numbered[0];
	}
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		snprintf(numbered[1], sizeof(numbered[1]), "DW_OP_reg%u", op - DW_OP_reg0);
		return numbered[1];
	}
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		snprintf(numbered[2], sizeof(numbered[2]), "DW_OP_breg%u", op - DW_OP_breg0);
		return numbered[2];
	}
	return op < sizeof(low) / sizeof(low[0]) ? low[op] : NULL;
}

/* ---- bounded reads ---- */

struct cursor {
	const unsigned char *p, *end;
	bool bad;		/* ran off the end */
};

static uint64_t rd_uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		if (c->p >= c->end) {
			c->bad = true;
			return v;
		}
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t rd_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b;
	do {
		if (c->p >= c->end) {
			c->bad = true;
			return (int64_t)v;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static uint64_t rd_u(struct cursor *c, unsigned size)
{
	if ((size_t)(c->end - c->p) < size) {
		c->p = c->end;
		c->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += size;
	return v;
}

static int64_t rd_s(struct cursor *c, unsigned size)
{
	uint64_t v = rd_u(c, size);
	if (size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * size);
	return (int64_t)v;
}

/* ---- the unit's sections ---- */

/* The section NAME of the unit's ELF file, into *RET; false if none.  */
static bool section_data(Dwarf *dw, const char *name, Elf_Data **ret)
{
	Elf *elf = dwarf_getelf(dw);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *n;
		if (!gelf_getshdr(scn, &shdr) || !(n = elf_strptr(elf, shstrndx, shdr.sh_name)) ||
		    strcmp(n, name))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return false;
		*ret = d;
		return true;
	}
	return false;
}

static void unit_facts(struct sg_describe *d)
{
	Dwarf_Half version = 0;
	uint8_t addr_size = 8, offset_size = 4;
	if (dwarf_cu_info(d->cu.cu, &version, NULL, NULL, NULL, NULL, &addr_size, &offset_size) == 0) {
		d->version = version;
		d->addr_size = addr_size;
		d->offset_size = offset_size;
	}
	Dwarf_Attribute a;
	Dwarf_Word w;
	d->addr_base = dwarf_attr(&d->cu, DW_AT_addr_base, &a) && dwarf_formudata(&a, &w) == 0
			       ? w : 8;
	Dwarf_Addr low;
	d->cu_base = dwarf_lowpc(&d->cu, &low) == 0 ? low : 0;
}

void sg_describe_init(struct sg_describe *d, Dwarf_Die *cu, Dwarf_Addr bias, const char *objfile)
{
	memset(d, 0, sizeof(*d));
	d->cu = *cu;
	d->dw = dwarf_cu_getdwarf(cu->cu);
	d->bias = bias;
	d->objfile = objfile;
	d->version = 4;
	d->addr_size = 8;
	d->offset_size = 4;
	unit_facts(d);
	sg_buf_init(&d->text);
}

/* Entry I of .debug_addr, as gdb's dwarf2_read_addr_index.  */
static bool addr_index(struct sg_describe *d, uint64_t i, uint64_t *ret)
{
	Elf_Data *sec;
	if (!section_data(d->dw, ".debug_addr", &sec))
		return false;
	uint64_t off = d->addr_base + i * d->addr_size;
	if (off > sec->d_size || sec->d_size - off < d->addr_size)
		return false;
	struct cursor c = { (const unsigned char *)sec->d_buf + off,
			    (const unsigned char *)sec->d_buf + sec->d_size, false };
	*ret = rd_u(&c, d->addr_size);
	return true;
}

static void out(struct sg_describe *d, const char *fmt, ...) SG_PRINTF(2, 3);
static void out(struct sg_describe *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sg_buf_vprintf(&d->text, fmt, ap);
	va_end(ap);
}

/* gdb's name of the type at unit offset OFF, as type_print shows it.  */
static void type_at(struct sg_describe *d, uint64_t off)
{
	Dwarf_Die type;
	Dwarf_Off cu_off = dwarf_dieoffset(&d->cu) - dwarf_cuoffset(&d->cu);
	char *s = NULL;
	if (dwarf_offdie(d->dw, cu_off + off, &type))
		s = sg_type_string_lang(&type, "", sg_die_is_cplus(&d->cu));
	out(d, "<%s [0x%" PRIx64 "]>", s ? s : "<unknown type>", off);
	free(s);
}

/* ---- disassembly (gdb's disassemble_dwarf_expression) ---- */

static struct sg_error *corrupt(struct sg_describe *d)
{
	return sg_error_format(SG_ERROR_BAD_DATA, "Corrupted DWARF2 expression for \"%s\".", d->name);
}

/* Disassemble [C->p, C->end) op by op; offsets count from START, the
   piece's first byte.  Stops at a piece op unless ALL.  */
static struct sg_error *disassemble(struct sg_describe *d, const unsigned char *start,
				    struct cursor *c, int indent, bool all, int depth)
{
	while (c->p < c->end && (all || (*c->p != DW_OP_piece && *c->p != DW_OP_bit_piece))) {
		unsigned op = *c->p++;
		const char *name = op_name(op);
		if (!name)
			return sg_error_format(SG_ERROR_BAD_DATA, "Unrecognized DWARF opcode 0x%02x at %ld",
					       op, (long)(c->p - 1 - start));
		out(d, "  %*ld: %s", indent + 4, (long)(c->p - 1 - start), name);
		uint64_t u, u2;
		int64_t s;
		switch (op) {
		case DW_OP_addr:
			out(d, " 0x%" PRIx64, rd_u(c, d->addr_size));
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
			out(d, " %" PRIu64, rd_u(c, 1u << ((op - DW_OP_const1u) / 2)));
			break;
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
			out(d, " %" PRId64, rd_s(c, 1u << ((op - DW_OP_const1s) / 2)));
			break;
		case DW_OP_constu: case DW_OP_plus_uconst:
			out(d, " %" PRIu64, rd_uleb(c));
			break;
		case DW_OP_consts: case DW_OP_fbreg:
			out(d, " %" PRId64, rd_sleb(c));
			break;
		case DW_OP_regx:
			u = rd_uleb(c);
			out(d, " %" PRIu64 " [$%s]", u, regname(u));
			break;
		case DW_OP_bregx:
			u = rd_uleb(c);
			s = rd_sleb(c);
			out(d, " register %" PRIu64 " [$%s] offset %" PRId64, u, regname(u), s);
			break;
		case DW_OP_implicit_value:
			u = rd_uleb(c);
			out(d, " %" PRIu64, u);
			if ((uint64_t)(c->end - c->p) < u) {
				c->p = c->end;
				c->bad = true;
			} else {
				c->p += u;
			}
			break;
		case DW_OP_deref_size: case DW_OP_xderef_size: case DW_OP_pick:
			out(d, " %u", (unsigned)rd_u(c, 1));
			break;
		case DW_OP_skip: case DW_OP_bra:
			s = rd_s(c, 2);
			out(d, op == DW_OP_skip ? " to %ld" : " %ld", (long)(c->p - start) + (long)s);
			break;
		case DW_OP_call2:
			out(d, " offset %" PRIx64, rd_u(c, 2));
			break;
		case DW_OP_call4: case DW_OP_GNU_parameter_ref:
			out(d, " offset %" PRIx64, rd_u(c, 4));
			break;
		case DW_OP_call_ref: case DW_OP_GNU_variable_value:
			out(d, " offset %" PRIx64, rd_u(c, d->offset_size));
			break;
		case DW_OP_piece:
			out(d, " %" PRIu64 " (bytes)", rd_uleb(c));
			break;
		case DW_OP_bit_piece:
			u = rd_uleb(c);
			u2 = rd_uleb(c);
			out(d, " size %" PRIu64 " offset %" PRIu64 " (bits)", u, u2);
			break;
		case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
			u = rd_u(c, d->offset_size);
			s = rd_sleb(c);
			out(d, " DIE %" PRIx64 " offset %" PRId64, u, s);
			break;
		case DW_OP_deref_type: case DW_OP_GNU_deref_type:
			u2 = rd_u(c, 1);
			u = rd_uleb(c);
			if (c->bad)
				break;
			type_at(d, u);
			out(d, " %u", (unsigned)u2);
			break;
		case DW_OP_const_type: case DW_OP_GNU_const_type: {
			u = rd_uleb(c);
			if (c->bad)
				break;
			type_at(d, u);
			unsigned n = (unsigned)rd_u(c, 1);
			out(d, " %u byte block:", n);
			for (unsigned i = 0; i < n && c->p < c->end; i++)
				out(d, " %02x", *c->p++);
			break;
		}
		case DW_OP_regval_type: case DW_OP_GNU_regval_type:
			u2 = rd_uleb(c);
			u = rd_uleb(c);
			if (c->bad)
				break;
			type_at(d, u);
			out(d, " [$%s]", regname(u2));
			break;
		case DW_OP_convert: case DW_OP_GNU_convert:
		case DW_OP_reinterpret: case DW_OP_GNU_reinterpret:
			u = rd_uleb(c);
			if (c->bad)
				break;
			if (u == 0)
				out(d, "<0>");
			else
				type_at(d, u);
			break;
		case DW_OP_entry_value: case DW_OP_GNU_entry_value: {
			u = rd_uleb(c);
			out(d, "\n");
			if (c->bad || u > (uint64_t)(c->end - c->p))
				return corrupt(d);
			if (depth > 8)
				return corrupt(d);
			struct cursor sub = { c->p, c->p + u, false };
			struct sg_error *err = disassemble(d, start, &sub, indent + 2, all, depth + 1);
			if (err)
				return err;
			c->p += u;
			continue;
		}
		case DW_OP_addrx: case DW_OP_GNU_addr_index:
		case DW_OP_GNU_const_index:
			u = rd_uleb(c);
			if (!c->bad && !addr_index(d, u, &u2))
				return sg_error_format(SG_ERROR_BAD_DATA,
						       "DW_FORM_addr_index pointing outside of .debug_addr section");
			if (!c->bad)
				out(d, op == DW_OP_GNU_const_index ? " %" PRIu64 : " 0x%" PRIx64, u2);
			break;
		default:
			if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
				out(d, " [$%s]", regname(op - DW_OP_reg0));
			} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
				s = rd_sleb(c);
				out(d, " %" PRId64 " [$%s]", s, regname(op - DW_OP_breg0));
			}
			break;
		}
		if (c->bad)
			return sg_error_create(SG_ERROR_BAD_DATA,
					       "DWARF expression error: ran off end of buffer reading value");
		out(d, "\n");
	}
	return NULL;
}

/* ---- short phrases (gdb's locexpr_describe_location_piece) ---- */

static bool piece_end(const unsigned char *p, const unsigned char *end)
{
	return p == end || *p == DW_OP_piece || *p == DW_OP_bit_piece;
}

/* The frame base of the non-inlined function around ADDR (a DWARF
   address): its raw expression.  */
static struct sg_error *frame_base(struct sg_describe *d, Dwarf_Addr addr, Dwarf_Block *ret,
				   bool *have)
{
	*have = false;
	Dwarf_Die *scopes = NULL;
	int n = sg_frame_scopes(&d->cu, addr, &scopes);
	if (n <= 0) {
		free(scopes);
		return sg_error_format(SG_ERROR_BAD_DATA, "No block found for address for symbol \"%s\".",
				       d->name);
	}
	int fn = sg_scopes_subprogram(scopes, n);
	if (fn < 0) {
		free(scopes);
		return sg_error_format(SG_ERROR_BAD_DATA, "No function found for block for symbol \"%s\".",
				       d->name);
	}
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(&scopes[fn], DW_AT_frame_base, &a) && dwarf_formblock(&a, ret) == 0 &&
	    ret->length > 0)
		*have = true;
	free(scopes);
	return NULL;
}

/* A short phrase for the piece at C->p, advancing past what it used;
   nothing (C->p unchanged) when gdb has none.  ADDR: the DWARF address
   whose function's frame base DW_OP_fbreg means.  */
static struct sg_error *short_phrase(struct sg_describe *d, struct cursor *c, Dwarf_Addr addr)
{
	const unsigned char *p = c->p, *end = c->end;
	unsigned op = *p;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		out(d, "a variable in $%s", regname(op - DW_OP_reg0));
		c->p++;
	} else if (op == DW_OP_regx) {
		struct cursor t = { p + 1, end, false };
		uint64_t r = rd_uleb(&t);
		if (t.bad)
			return corrupt(d);
		out(d, "a variable in $%s", regname(r));
		c->p = t.p;
	} else if (op == DW_OP_fbreg) {
		struct cursor t = { p + 1, end, false };
		int64_t off = rd_sleb(&t);
		if (t.bad || !piece_end(t.p, end))
			return NULL;
		Dwarf_Block base;
		bool have;
		struct sg_error *err = frame_base(d, addr, &base, &have);
		if (err)
			return err;
		if (!have)
			return NULL;
		unsigned b = base.data[0];
		int64_t boff = 0;
		unsigned reg;
		if (b >= DW_OP_breg0 && b <= DW_OP_breg31) {
			reg = b - DW_OP_breg0;
			struct cursor bc = { base.data + 1, base.data + base.length, false };
			boff = rd_sleb(&bc);
			if (bc.bad || bc.p != bc.end)
				return sg_error_format(SG_ERROR_BAD_DATA,
						       "Unexpected opcode after DW_OP_breg%u for symbol \"%s\".",
						       reg, d->name);
		} else if (b >= DW_OP_reg0 && b <= DW_OP_reg31) {
			reg = b - DW_OP_reg0;
		} else {
			return NULL;
		}
		out(d, "a variable at frame base reg $%s offset %" PRId64 "+%" PRId64, regname(reg), boff,
		    off);
		c->p = t.p;
	} else if ((op == DW_OP_addr || op == DW_OP_const8u) && d->addr_size == 8 &&
		   p + 1 + 8 < end &&
		   (p[9] == DW_OP_GNU_push_tls_address || p[9] == DW_OP_form_tls_address) &&
		   piece_end(p + 10, end)) {
		struct cursor t = { p + 1, end, false };
		out(d, "a thread-local variable at offset 0x%" PRIx64
		       " in the thread-local storage for `%s'", rd_u(&t, 8),
		    d->objfile ? d->objfile : "");
		c->p = p + 10;
	} else if (op == DW_OP_GNU_const_index && p + 1 < end) {
		struct cursor t = { p + 1, end, false };
		uint64_t i = rd_uleb(&t), v;
		if (!t.bad && t.p < end &&
		    (*t.p == DW_OP_GNU_push_tls_address || *t.p == DW_OP_form_tls_address) &&
		    piece_end(t.p + 1, end) && addr_index(d, i, &v)) {
			out(d, "a thread-local variable at offset 0x%" PRIx64
			       " in the thread-local storage for `%s'", v, d->objfile ? d->objfile : "");
			c->p = t.p + 1;
		}
	} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31 && p + 1 < end && p[1] == DW_OP_stack_value) {
		out(d, "the constant %u", op - DW_OP_lit0);
		c->p += 2;
	}
	return NULL;
}

/* ---- one expression (gdb's locexpr_describe_location_1) ---- */

struct sg_error *sg_describe_expr(struct sg_describe *d, const unsigned char *data, size_t size,
				  Dwarf_Addr addr)
{
	struct cursor c = { data, data + size, false };
	bool first = true;
	while (c.p < c.end) {
		const unsigned char *here = c.p;
		if (!first)
			out(d, ", and ");
		first = false;
		struct sg_error *err = short_phrase(d, &c, addr);
		if (err)
			return err;
		bool disassembled = false;
		if (c.p == here && *here != DW_OP_piece && *here != DW_OP_bit_piece) {
			out(d, "a complex DWARF expression:\n");
			struct cursor piece = { c.p, c.end, false };
			err = disassemble(d, here, &piece, 0, false, 0);
			if (err)
				return err;
			c.p = piece.p;
			disassembled = true;
		}
		if (c.p >= c.end)
			break;
		bool empty = c.p == here;
		if (disassembled)
			out(d, "   ");
		if (*c.p == DW_OP_piece) {
			c.p++;
			uint64_t bytes = rd_uleb(&c);
			if (empty)
				out(d, "an empty %" PRIu64 "-byte piece", bytes);
			else
				out(d, " [%" PRIu64 "-byte piece]", bytes);
		} else if (*c.p == DW_OP_bit_piece) {
			c.p++;
			uint64_t bits = rd_uleb(&c), off = rd_uleb(&c);
			if (empty)
				out(d, "an empty %" PRIu64 "-bit piece", bits);
			else
				out(d, " [%" PRIu64 "-bit piece, offset %" PRIu64 " bits]", bits, off);
		} else {
			return corrupt(d);
		}
		if (c.bad)
			return corrupt(d);
	}
	return NULL;
}

/* ---- location lists (gdb's loclist_describe_location) ---- */

static struct sg_error *bad_list(struct sg_describe *d)
{
	return sg_error_format(SG_ERROR_BAD_DATA, "Corrupted DWARF expression for symbol \"%s\".",
			       d->name);
}

/* The offset of ATTR's list in SEC: a DW_FORM_loclistx index goes
   through the unit's table of offsets at DW_AT_loclists_base.  */
static bool list_offset(struct sg_describe *d, Dwarf_Attribute *attr, Elf_Data *sec,
			uint64_t *ret)
{
	if (dwarf_whatform(attr) != DW_FORM_loclistx) {
		Dwarf_Word off;
		if (dwarf_formudata(attr, &off) != 0)
			return false;
		*ret = off;
		return true;
	}
	struct cursor v = { attr->valp, attr->valp + 10, false };
	uint64_t idx = rd_uleb(&v);
	Dwarf_Attribute a;
	Dwarf_Word base;
	if (v.bad || !dwarf_attr(&d->cu, DW_AT_loclists_base, &a) || dwarf_formudata(&a, &base) != 0)
		return false;
	uint64_t at = base + idx * d->offset_size;
	if (idx > sec->d_size || at > sec->d_size || sec->d_size - at < d->offset_size)
		return false;
	struct cursor c = { (const unsigned char *)sec->d_buf + at,
			    (const unsigned char *)sec->d_buf + sec->d_size, false };
	*ret = base + rd_u(&c, d->offset_size);
	return true;
}

struct sg_error *sg_describe_loclist(struct sg_describe *d, Dwarf_Attribute *attr)
{
	bool v5 = d->version >= 5;
	Elf_Data *sec;
	out(d, "multi-location:\n");
	if (!section_data(d->dw, v5 ? ".debug_loclists" : ".debug_loc", &sec))
		return bad_list(d);
	uint64_t off;
	if (!list_offset(d, attr, sec, &off) || off > sec->d_size)
		return bad_list(d);
	struct cursor c = { (const unsigned char *)sec->d_buf + off,
			    (const unsigned char *)sec->d_buf + sec->d_size, false };
	uint64_t base = d->cu_base;
	for (unsigned n = 0; n < 100000; n++) {
		uint64_t lo = 0, hi = 0;
		bool offsets = false;
		if (!v5) {
			lo = rd_u(&c, d->addr_size);
			hi = rd_u(&c, d->addr_size);
			if (c.bad)
				return bad_list(d);
			if (lo == 0 && hi == 0)
				return NULL;
			if (lo == ~(uint64_t)0) {
				base = hi;
				out(d, "  Base address 0x%" PRIx64, base);
				continue;
			}
			offsets = true;
		} else {
			unsigned kind = (unsigned)rd_u(&c, 1);
			if (c.bad)
				return bad_list(d);
			switch (kind) {
			case DW_LLE_end_of_list:
				return NULL;
			case DW_LLE_base_addressx:
				if (!addr_index(d, rd_uleb(&c), &base) || c.bad)
					return bad_list(d);
				out(d, "  Base address 0x%" PRIx64, base);
				continue;
			case DW_LLE_base_address:
				base = rd_u(&c, d->addr_size);
				if (c.bad)
					return bad_list(d);
				out(d, "  Base address 0x%" PRIx64, base);
				continue;
			case DW_LLE_startx_length:
				if (!addr_index(d, rd_uleb(&c), &lo))
					return bad_list(d);
				hi = lo + rd_uleb(&c);
				break;
			case DW_LLE_offset_pair:
				lo = rd_uleb(&c);
				hi = rd_uleb(&c);
				offsets = true;
				break;
			case DW_LLE_start_end:
				lo = rd_u(&c, d->addr_size);
				hi = rd_u(&c, d->addr_size);
				break;
			case DW_LLE_start_length:
				lo = rd_u(&c, d->addr_size);
				hi = lo + rd_uleb(&c);
				break;
			default:
				/* gdb 13 takes no startx_endx, default_location or view pair.  */
				return bad_list(d);
			}
			if (c.bad)
				return bad_list(d);
		}
		if (offsets) {
			lo += base;
			hi += base;
		}
		uint64_t len = v5 ? rd_uleb(&c) : rd_u(&c, 2);
		if (c.bad || len > (uint64_t)(c.end - c.p))
			return bad_list(d);
		out(d, "  Range 0x%" PRIx64 "-0x%" PRIx64 ": ", lo + d->bias, hi + d->bias);
		struct sg_error *err = sg_describe_expr(d, c.p, (size_t)len, lo);
		if (err)
			return err;
		out(d, "\n");
		c.p += len;
	}
	return bad_list(d);
}

void sg_describe_fini(struct sg_describe *d)
{
	sg_buf_deinit(&d->text);
}
