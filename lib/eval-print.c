/* The value printer: one walk of a typed value from DWARF (and through
   the typed readers) writes gdb's notation, flat or "set print pretty",
   or structured JSON.  */
#include <config.h>
#include "eval.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT_THRESHOLD 10	/* gdb's "set print repeats" */
#define MAX_VALUE_DEPTH 16
/* gdb's error for a value of a void type (std::nullptr_t).  */
#define NO_VOID_VALUE "Attempt to dereference a generic pointer."
/* Per print: 16M scalars and more.  Also the cap of "print elements
   unlimited" (elements of one array or container, characters of one
   string), so that hostile counts end in "..." instead of exhausting
   memory; doc/commands.md says so.  */
#define MAX_VALUES (UINT64_C(1) << 24)

/* The buffers of the values of one command (val_bytes).  */
static struct val_buf {
	struct val_buf *next;
	unsigned char data[];
} *val_bufs;

/* gdb's words for a value over its max-value-size.  */
static struct sg_error *too_large(uint64_t size)
{
	return sg_error_format(SG_ERROR_OTHER,
			       "value requires %" PRIu64 " bytes, which is more than max-value-size",
			       size);
}

struct sg_error *val_too_large(const struct val *v)
{
	return v->too_large ? too_large(v->nbytes) : NULL;
}

struct sg_error *val_bytes(uint64_t size, unsigned char **ret)
{
	if (size > MAX_RVALUE_SIZE)
		return too_large(size);
	struct val_buf *vb = calloc(1, sizeof(*vb) + (size ? size : 1));
	if (!vb)
		return &sg_enomem;
	vb->next = val_bufs;
	val_bufs = vb;
	*ret = vb->data;
	return NULL;
}

void val_bytes_release(void)
{
	while (val_bufs) {
		struct val_buf *next = val_bufs->next;
		free(val_bufs);
		val_bufs = next;
	}
}

struct val sub_value(const struct val *v, const Dwarf_Die *type, uint64_t off)
{
	struct val r = { .type = *type, .lvalue = v->lvalue, .constant = v->constant,
			 .too_large = v->too_large };
	if (v->too_large) {
		/* gdb fetches the whole value for a part: its error, even
		   when the whole is optimized out.  */
		r.nbytes = v->nbytes;
		r.constant = true;
		return r;
	}
	if (v->lvalue) {
		r.address = v->address + off;
	} else if (v->bytes) {
		/* A part past the end reads as lost bytes.  */
		static const unsigned char none[1] = { VAL_LOST };
		r.bytes = v->bytes + (off < v->nbytes ? off : v->nbytes);
		r.nbytes = off < v->nbytes ? v->nbytes - off : 0;
		r.known = v->known ? v->known + (off < v->nbytes ? off : v->nbytes) : NULL;
		if (!r.nbytes)
			r.known = none;
	} else if (off < 16) {
		unsigned __int128 w = (unsigned __int128)v->bits_hi << 64 | v->bits;
		w >>= 8 * off;
		r.bits = (uint64_t)w;
		r.bits_hi = (uint64_t)(w >> 64);
	}
	return r;
}

int val_state(const struct val *v, uint64_t off, uint64_t size)
{
	if (v->lvalue || !v->bytes || !v->known)
		return VAL_KNOWN;
	bool uncovered = size > 0;
	for (uint64_t i = off; i < off + size; i++) {
		int k = i < v->nbytes ? v->known[i] : VAL_LOST;
		if (k == VAL_LOST)
			return VAL_LOST;
		uncovered &= k == VAL_UNCOVERED;
	}
	return uncovered ? VAL_UNCOVERED : VAL_KNOWN;
}

/* Whether all of V's SIZE bytes are lost: gdb's "entirely optimized
   out".  */
static bool val_all_lost(const struct val *v, uint64_t size)
{
	if (v->too_large && !v->constant)
		return true;
	if (v->lvalue || !v->bytes || !v->known || !size)
		return false;
	for (uint64_t i = 0; i < size; i++)
		if (i < v->nbytes && v->known[i] != VAL_LOST)
			return false;
	return true;
}

struct sg_error *read_value(struct sg_target *t, const struct val *v, void *buf, size_t size)
{
	if (v->too_large)
		return val_too_large(v);
	if (!v->lvalue && v->bytes) {
		size_t n = size < v->nbytes ? size : v->nbytes;
		memcpy(buf, v->bytes, n);
		memset((char *)buf + n, 0, size - n);
		return NULL;
	}
	if (!v->lvalue) {
		memcpy(buf, &v->bits, size < 8 ? size : 8);
		if (size > 8)
			memcpy((char *)buf + 8, &v->bits_hi, size < 16 ? size - 8 : 8);
		if (size > 16)
			memset((char *)buf + 16, 0, size - 16);
		return NULL;
	}
	return sg_target_read(t, v->address, buf, size);
}

/* Whether SIZE bytes at ADDRESS could be read into BUF; the error, if
   any, is dropped (the caller only compares).  */
static bool read_ok(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	struct sg_error *err = sg_target_read(t, address, buf, size);
	sg_error_destroy(err);
	return !err;
}

/* TYPE without typedefs and qualifiers, if it is a base type: its
   encoding, name and size.  */
struct base_info {
	Dwarf_Word enc;
	const char *name;
	uint64_t size;
};

static bool base_info(Dwarf_Die *type, struct base_info *ret)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	strip(type, &t);
	*ret = (struct base_info){ 0 };
	if (dwarf_tag(&t) != DW_TAG_base_type)
		return false;
	if (dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &ret->enc);
	ret->name = dwarf_diename(&t);
	ret->size = type_size(&t);
	return true;
}

/* Whether the base type BI is a char.  */
static bool char_info(const struct base_info *bi)
{
	/* gdb prints char8_t (DW_ATE_UTF, or GCC's DW_ATE_unsigned) as a char. */
	return bi->size == 1 &&
	       (bi->enc == DW_ATE_signed_char || bi->enc == DW_ATE_unsigned_char ||
		bi->enc == DW_ATE_UTF || (bi->name && !strcmp(bi->name, "char8_t")));
}

static bool is_char_type(Dwarf_Die *type)
{
	struct base_info bi;
	return base_info(type, &bi) && char_info(&bi);
}

/* gdb's prefix of the base type BI's literals when it is a wide character
   type: "L" for wchar_t, "u" for char16_t, "U" for char32_t; NULL for
   other types (char8_t prints as a char).  */
static const char *wide_info(const struct base_info *bi)
{
	if (bi->size != 2 && bi->size != 4)
		return NULL;
	if (bi->name && !strcmp(bi->name, "wchar_t"))
		return "L";
	if (bi->enc == DW_ATE_UTF)
		return bi->size == 2 ? "u" : "U";
	return NULL;
}

static const char *wide_prefix(Dwarf_Die *type)
{
	struct base_info bi;
	return base_info(type, &bi) ? wide_info(&bi) : NULL;
}

/* Code point C inside QUOTE as gdb writes a wide character: ASCII as a
   char, other characters in UTF-8, C1 controls in octal, what is no
   character in hex.  */
static void escape_wide(struct sg_buf_lite *b, uint32_t c, char quote)
{
	char tmp[16];
	if (c < 0x80) {
		sg_escape_byte(b, (unsigned char)c, quote);
	} else if (c < 0xa0) {
		snprintf(tmp, sizeof(tmp), "\\%03o", (unsigned)c);
		sg_lite_puts(b, tmp);
	} else if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff) {
		snprintf(tmp, sizeof(tmp), "\\x%x", (unsigned)c);
		sg_lite_puts(b, tmp);
	} else if (c < 0x800) {
		sg_lite_putc(b, (char)(0xc0 | c >> 6));
		sg_lite_putc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sg_lite_putc(b, (char)(0xe0 | c >> 12));
		sg_lite_putc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		sg_lite_putc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		sg_lite_putc(b, (char)(0xf0 | c >> 18));
		sg_lite_putc(b, (char)(0x80 | (c >> 12 & 0x3f)));
		sg_lite_putc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		sg_lite_putc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* N code units of SIZE bytes from RAW as code points into OUT (room for
   N): UTF-16 surrogate pairs joined, as gdb's iconv does; how many.  */
static size_t wide_decode(const unsigned char *raw, size_t n, size_t size, uint32_t *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = 0;
		memcpy(&c, raw + i * size, size);
		if (size == 2 && c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t lo = 0;
			memcpy(&lo, raw + (i + 1) * size, size);
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		out[k++] = c;
	}
	return k;
}

char *sg_fault_text(struct sg_error *err)
{
	char *s;
	if (sg_error_code(err) == SG_ERROR_FAULT) {
		if (asprintf(&s, "<error: Cannot access memory at address 0x%" PRIx64 ">",
			     sg_error_address(err)) < 0)
			s = NULL;
	} else if (asprintf(&s, "<error: %s>", sg_error_message(err)) < 0) {
		s = NULL;
	}
	return s;
}

#define MAX_PARAM_DEPTH 16

/* A base type's DWARF name as gdb's C++ canonical form spells it:
   "long unsigned int" is "unsigned long", "short int" "short".  */
static void canon_base(struct sg_buf_lite *b, const char *name)
{
	size_t n = strlen(name);
	bool sized = strstr(name, "long") || strstr(name, "short");
	if (!sized || n < 4 || strcmp(name + n - 4, " int") != 0) {
		sg_lite_puts(b, name);
		return;
	}
	const char *u = strstr(name, " unsigned");
	if (u)
		sg_lite_puts(b, "unsigned ");
	for (const char *q = name; q < name + n - 4; q++) {
		if (q == u)
			q += strlen(" unsigned");
		if (q < name + n - 4)
			sg_lite_putc(b, *q);
	}
}

static bool canon_params(Dwarf_Die *fn, struct sg_buf_lite *b, int depth);

/* TYPE (NULL: void) in gdb's canonical C++ spelling of a parameter, as
   its symbol names show them (dwarf2_compute_name, then
   cp_canonicalize_string): "char const*", "std::string const&",
   "int (*)(int)".  False for what this does not spell.  */
static bool canon_type(Dwarf_Die *type, struct sg_buf_lite *b, int depth)
{
	Dwarf_Die inner;
	bool has_inner = type && sg_die_type(type, &inner);
	if (!type) {
		sg_lite_puts(b, "void");
		return true;
	}
	if (depth > MAX_PARAM_DEPTH)
		return false;
	int tag = dwarf_tag(type);
	switch (tag) {
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (!canon_type(has_inner ? &inner : NULL, b, depth + 1))
			return false;
		sg_lite_puts(b, tag == DW_TAG_const_type ? " const" : " volatile");
		return true;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *op = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&"
												: "&&";
		if (has_inner && dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			/* "int (*)(int)" */
			Dwarf_Die ret;
			if (!canon_type(sg_die_type(&inner, &ret) ? &ret : NULL, b, depth + 1))
				return false;
			sg_lite_puts(b, " (");
			sg_lite_puts(b, op);
			sg_lite_putc(b, ')');
			return canon_params(&inner, b, depth + 1);
		}
		if (has_inner && (dwarf_tag(&inner) == DW_TAG_array_type ||
				  dwarf_tag(&inner) == DW_TAG_ptr_to_member_type))
			return false;
		if (!canon_type(has_inner ? &inner : NULL, b, depth + 1))
			return false;
		sg_lite_puts(b, op);
		return true;
	}
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
	case DW_TAG_typedef:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type: {
		char *q = tag == DW_TAG_base_type || tag == DW_TAG_unspecified_type ? NULL
										: qualified_name(type);
		const char *name = q ? q : dwarf_diename(type);
		if (q)
			sg_lite_puts(b, q);
		else if (name)
			canon_base(b, name);
		free(q);
		return name != NULL;
	}
	default:
		return false;
	}
}

/* "(int, char**)" of FN, a subprogram or subroutine type: its parameters
   but the artificial "this", "()" for none, "..." for varargs.  RAW: as
   gdb leaves them where its C++ parser cannot read the name
   (clang's "__cxx_global_var_init.1"): in its type printer's spelling,
   "(void)" for none.  */
static bool params_spelt(Dwarf_Die *fn, bool raw, struct sg_buf_lite *b, int depth)
{
	Dwarf_Die child;
	bool first = true;
	sg_lite_putc(b, '(');
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Attribute a;
			bool artificial = false;
			if (tag == DW_TAG_formal_parameter &&
			    dwarf_attr_integrate(&child, DW_AT_artificial, &a))
				dwarf_formflag(&a, &artificial);
			if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters) ||
			    artificial)
				continue;
			if (!first)
				sg_lite_puts(b, ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters) {
				sg_lite_puts(b, "...");
				continue;
			}
			/* A parameter's own const or volatile is no part of
			   the function's type.  */
			Dwarf_Die pt;
			if (!sg_die_type(&child, &pt))
				return false;
			for (int i = 0; i < MAX_PARAM_DEPTH && (dwarf_tag(&pt) == DW_TAG_const_type ||
							       dwarf_tag(&pt) == DW_TAG_volatile_type);
			     i++)
				if (!sg_die_type(&pt, &pt))
					return false;
			char *ts = raw ? sg_type_string_lang(&pt, "", true) : NULL;
			if (ts)
				sg_lite_puts(b, ts);
			free(ts);
			if (!raw && !canon_type(&pt, b, depth + 1))
				return false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	sg_lite_puts(b, first && raw ? "void)" : ")");
	return true;
}

static bool canon_params(Dwarf_Die *fn, struct sg_buf_lite *b, int depth)
{
	return params_spelt(fn, false, b, depth);
}

/* gdb's name of the C++ function FN as print shows code addresses: its
   linkage name demangled (a template instance without its return type),
   or LINKAGE (print/a) the linkage name itself; without a linkage name
   (main, extern "C", GCC's functions of internal linkage) the name gdb
   builds from DWARF, "main(int, char**)", for both.  New string, or
   NULL.  */
static char *cplus_function_name(Dwarf_Die *fn, bool linkage);

char *sg_cplus_function_name(Dwarf_Die *fn)
{
	return cplus_function_name(fn, false);
}

static char *cplus_function_name(Dwarf_Die *fn, bool linkage)
{
	Dwarf_Attribute a;
	const char *mangled = NULL;
	if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &a))
		mangled = dwarf_formstring(&a);
	if (mangled && linkage)
		return strdup(mangled);
	if (mangled) {
		char *full = sg_demangle(mangled, true), *base = sg_demangle(mangled, false);
		char *at = full && base ? strstr(full, base) : NULL;
		if (at && at > full && at[-1] == ' ')
			memmove(full, at, strlen(at) + 1);
		free(base);
		return full ? full : strdup(mangled);
	}
	/* The declaration has the scopes: a definition outside its class
	   or namespace points to it.  */
	Dwarf_Die decl = *fn;
	for (int i = 0; i < 4; i++) {
		Dwarf_Attribute s;
		Dwarf_Die next;
		if (!(dwarf_attr(&decl, DW_AT_specification, &s) ||
		      dwarf_attr(&decl, DW_AT_abstract_origin, &s)) ||
		    !dwarf_formref_die(&s, &next))
			break;
		decl = next;
	}
	char *q = qualified_name(&decl);
	if (!q)
		return NULL;
	struct sg_buf_lite b = { 0 };
	sg_lite_puts(&b, q);
	bool raw = strpbrk(q, ".$") != NULL;
	free(q);
	if (!params_spelt(fn, raw, &b, 0)) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* The unit with code at ADDR in MOD: from .debug_aranges, or without
   them (clang writes none) from the units' own ranges.  */
static Dwarf_Die *code_unit(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu && dwarf_haspc(cu, addr - *bias) > 0)
		return cu;
	for (cu = NULL; (cu = dwfl_module_nextcu(mod, cu, bias));)
		if (dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* Where gdb takes function FN to start (BLOCK_ENTRY_PC): its low_pc, or
   the start of its first range (GCC's main in .text.startup with a
   .cold part).  */
static bool entry_pc(Dwarf_Die *fn, Dwarf_Addr *ret)
{
	Dwarf_Addr base, end;
	return dwarf_lowpc(fn, ret) == 0 || dwarf_ranges(fn, 0, &base, ret, &end) > 0;
}

/* gdb names code by the DWARF function around it when that starts at or
   after the symbol: __libc_pause, not its alias pause; in C++ the
   function's symbol name with its parameters, "<main(int, char**)>".
   *OWNED: a name to free.  */
static void dwarf_function_name(struct sg_symbol *sym, uint64_t addr, bool linkage, char **owned)
{
	*owned = NULL;
	if (sym->kind != STT_FUNC || !sym->module)
		return;
	Dwarf_Addr bias, low;
	Dwarf_Die *cu = code_unit(sg_module_dwfl(sym->module), addr, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	bool cplus = n > 0 && sg_die_is_cplus(cu);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (entry_pc(&scopes[i], &low) && low + bias >= sym->address &&
		    low + bias <= addr) {
			const char *name = cplus ? (*owned = cplus_function_name(&scopes[i], linkage))
						 : dwarf_diename(&scopes[i]);
			if (name) {
				sym->name = name;
				sym->offset = addr - (low + bias);
			}
		}
		break;
	}
	free(scopes);
}

/* Whether SYM is a data symbol without a size (a label such as
   __do_global_dtors_aux_fini_array_entry): gdb names no address by it,
   only code labels.  */
static bool sizeless_data(struct sg_symbol *sym)
{
	if (sym->size || sym->kind == STT_FUNC || !sym->module)
		return false;
	Dwarf_Addr a = sym->address, bias;
	Elf_Scn *scn = dwfl_module_address_section(sg_module_dwfl(sym->module), &a, &bias);
	GElf_Shdr shdr;
	return scn && gelf_getshdr(scn, &shdr) && !(shdr.sh_flags & SHF_EXECINSTR);
}

/* " <sym+off>" for ADDR as print shows it; LINKAGE (print/a): C++ names
   as their symbols spell them, not demangled.  */
static void symbol_suffix(struct sg_target *t, uint64_t addr, bool linkage, char *buf, size_t size)
{
	struct sg_symbol sym;
	struct sg_error *err = addr ? sg_symbolize(t, addr, &sym) : &sg_not_found;
	buf[0] = '\0';
	if (!err && !sizeless_data(&sym)) {
		char *owned;
		if (linkage)
			sym.name = sym.raw_name;
		dwarf_function_name(&sym, addr, linkage, &owned);
		size_t len = strcspn(sym.name, "@");
		if (sym.offset)
			snprintf(buf, size, " <%.*s+%" PRIu64 ">", (int)len, sym.name, sym.offset);
		else
			snprintf(buf, size, " <%.*s>", (int)len, sym.name);
		free(owned);
	}
	sg_error_destroy(err);
}

void sg_symbol_suffix(struct sg_target *t, uint64_t addr, char *buf, size_t size)
{
	symbol_suffix(t, addr, false, buf, size);
}

static void put_symbol(struct sg_target *t, uint64_t addr, bool linkage, struct sg_buf_lite *b)
{
	char suffix[1024];
	symbol_suffix(t, addr, linkage, suffix, sizeof(suffix));
	sg_lite_puts(b, suffix);
}

struct printer {
	struct sg_session *s;
	struct sg_target *t;
	size_t limit;		/* print elements */
	char fmt;		/* 0, or print/FMT */
	bool raw;		/* print/r: no typed readers */
	bool pretty;		/* set print pretty: a member per line */
	/* Structured output instead of text: the JSON writer and the member
	   name of the next value (NULL inside arrays).  */
	struct sg_out *json;
	const char *key;
	int level;		/* braces open, for pretty indentation */
	/* Readers found per type DIE: a container's elements share one type,
	   and naming a type (its scopes) walks its whole unit.  */
	struct {
		const void *die;
		const struct sg_registry_entry *entry;	/* NULL: none */
	} readers[8];
	unsigned nreaders;
	unsigned overlays;	/* values not in memory lent to readers */
	/* Virtual bases already printed in the current object.  */
	const void *vbases[16];
	unsigned nvbases;
	bool as_base;		/* the next aggregate is a base class */
	bool vptr;		/* the next value is a _vptr.X member */
	bool cplus;		/* types in C++'s spelling (the frame's language) */
	uint64_t values;	/* values printed so far, against MAX_VALUES */
	bool merge;		/* JSON: the next aggregate is an anonymous member */
	/* gdb's summary mode (print frame-arguments scalars), text only: a
	   typed reader's children are "{...}", other aggregates "...".  */
	bool summary;
	/* A frame line under "set print pretty": flat, but for the
	   children of typed readers that are not arrays, which gdb breaks
	   into lines, indented as if two levels deep.  */
	bool frame_pretty;
};

/* ---- structure: one walk prints gdb's text, pretty or not, or JSON ----

   A nest is one pair of braces: a struct's members (JSON object), an
   array's elements or a map's pairs (JSON arrays; a pair is an object
   {"key":...,"value":...}).  */
enum nest_kind { NEST_STRUCT, NEST_ARRAY, NEST_MAP };

struct nest {
	enum nest_kind kind;
	bool first;
	/* Structs: the last item was a base class, whose ", " gdb writes
	   after it; and the struct's name for pretty's "members of T:".  */
	bool after_base;
	bool has_bases;		/* gdb heads the members even if no base printed */
	const char *name;
};

static const char *take_key(struct printer *p)
{
	const char *k = p->key;
	p->key = NULL;
	return k;
}

static void put_indent(struct printer *p, struct sg_buf_lite *b)
{
	for (int i = 0; i < p->level; i++)
		sg_lite_puts(b, "  ");
}

static void nest_open(struct printer *p, struct nest *n, enum nest_kind kind, struct sg_buf_lite *b)
{
	*n = (struct nest){ .kind = kind, .first = true };
	if (p->json && kind == NEST_STRUCT)
		sg_out_object_begin(p->json, take_key(p));
	else if (p->json)
		sg_out_array_begin(p->json, take_key(p));
	else
		sg_lite_putc(b, '{');
	p->level++;
}

/* Before a member NAME (NULL for an array element): gdb's separator, and
   in pretty mode a new line for each struct member.  */
static void nest_item(struct printer *p, struct nest *n, const char *name, struct sg_buf_lite *b)
{
	bool first = n->first, after_base = n->after_base;
	n->first = false;
	n->after_base = false;
	if (p->json) {
		p->key = n->kind == NEST_STRUCT ? name : NULL;
		return;
	}
	if (p->pretty && n->kind != NEST_ARRAY) {
		if ((after_base || (first && n->has_bases)) && n->name) {
			/* gdb's heading for a class's own members.  */
			sg_lite_puts(b, "\n");
			put_indent(p, b);
			sg_lite_puts(b, "members of ");
			sg_lite_puts(b, n->name);
			sg_lite_puts(b, ":");
			n->name = NULL;
		}
		sg_lite_puts(b, first || after_base ? "\n" : ",\n");
		put_indent(p, b);
	} else if (!first && !after_base) {
		sg_lite_puts(b, ", ");
	}
	if (name && n->kind == NEST_STRUCT) {
		sg_lite_puts(b, name);
		sg_lite_puts(b, " = ");
	}
}

/* A base class LABEL ("<ns::Base>"); nest_base_end() follows its value. */
static void nest_base(struct printer *p, struct nest *n, const char *label, struct sg_buf_lite *b)
{
	bool first = n->first, after_base = n->after_base;
	n->first = false;
	if (p->json) {
		p->key = label;
		return;
	}
	if (!first && !after_base)
		sg_lite_puts(b, p->pretty ? "," : ", ");
	if (p->pretty) {
		sg_lite_putc(b, '\n');
		put_indent(p, b);
	}
	sg_lite_puts(b, label);
	sg_lite_puts(b, " = ");
}

static void nest_base_end(struct printer *p, struct nest *n, struct sg_buf_lite *b)
{
	n->after_base = true;
	if (!p->json)
		sg_lite_puts(b, ", ");
}

/* A map's key: "[key] = value"; nest_value() follows the key.  */
static void nest_key(struct printer *p, struct nest *n, struct sg_buf_lite *b)
{
	nest_item(p, n, NULL, b);
	if (p->json) {
		sg_out_object_begin(p->json, NULL);
		p->key = "key";
	} else {
		sg_lite_putc(b, '[');
	}
}

static void nest_value(struct printer *p, struct sg_buf_lite *b)
{
	if (p->json)
		p->key = "value";
	else
		sg_lite_puts(b, "] = ");
}

static void nest_pair_end(struct printer *p)
{
	if (p->json)
		sg_out_object_end(p->json);
}

/* Text only: "..." after the last element shown, "<repeats N times>".  */
static void put_note(struct printer *p, const char *text, struct sg_buf_lite *b)
{
	if (!p->json)
		sg_lite_puts(b, text);
}

static void nest_close(struct printer *p, struct nest *n, struct sg_buf_lite *b)
{
	p->level--;
	if (p->json) {
		if (n->kind == NEST_STRUCT)
			sg_out_object_end(p->json);
		else
			sg_out_array_end(p->json);
		return;
	}
	if (n->kind == NEST_STRUCT && (n->first || n->after_base)) {
		/* gdb closes right after it, also in pretty mode.  */
		sg_lite_puts(b, "<No data fields>}");
		return;
	}
	if (p->pretty && n->kind != NEST_ARRAY && !n->first) {
		sg_lite_putc(b, '\n');
		put_indent(p, b);
	}
	sg_lite_putc(b, '}');
}

/* A value that is not data: "<synthetic pointer>", "<error: ...>".  JSON
   gets an object {KIND: "synthetic pointer"}, so that it cannot be taken
   for a string the program holds.  */
static void put_special(struct printer *p, const char *kind, const char *text,
			struct sg_buf_lite *b)
{
	if (!p->json) {
		sg_lite_puts(b, text);
		return;
	}
	/* "<error: X>" -> "X", "<X>" -> "X".  */
	const char *t = text;
	size_t n = strlen(t);
	if (n >= 2 && t[0] == '<' && t[n - 1] == '>') {
		t++;
		n -= 2;
		if (!strncmp(t, "error: ", 7)) {
			t += 7;
			n -= 7;
		}
	}
	sg_out_object_begin(p->json, take_key(p));
	sg_out_string_len(p->json, kind, t, n);
	sg_out_object_end(p->json);
}

/* A leaf whose text is also its JSON value (a string).  */
static void put_leaf(struct printer *p, const char *text, struct sg_buf_lite *b)
{
	if (p->json)
		sg_out_string(p->json, take_key(p), text);
	else
		sg_lite_puts(b, text);
}

static void put_value(struct printer *p, const struct val *v, bool top, int depth,
		      struct sg_buf_lite *b);
static void put_float(struct printer *p, const unsigned char *raw, size_t size,
		      struct sg_buf_lite *b);
static void put_enum_bits(struct printer *p, Dwarf_Die *enum_type, uint64_t val, uint64_t bits,
			  uint64_t size, struct sg_buf_lite *b);
static bool put_with_reader(struct printer *p, Dwarf_Die *type, const struct val *v, int depth,
			    struct sg_buf_lite *b);

/* An integer of SIZE bytes in print's format: x o t z d u c a, or the
   type's own notation (IS_CHAR: 97 'a').  */
static void put_int(struct printer *p, uint64_t raw, size_t size, bool is_signed, bool is_char,
		    struct sg_buf_lite *b)
{
	char tmp[80];
	if (size == 0 || size > 8)
		size = 8;	/* a base type without a sane DW_AT_byte_size */
	char fmt = p->fmt == 's' || p->fmt == 'f' ? 0 : p->fmt;
	if (p->fmt == 'f')
		is_char = false;	/* a number, as gdb's print/f of a char */
	if (fmt == 'a' && is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1) {
		/* print/a converts to an address: sign-extended.  */
		raw |= ~((UINT64_C(1) << (size * 8)) - 1);
		size = 8;
	}
	if (fmt == 'c') {
		/* print/c shows the low byte, signed as the type is.  */
		size = 1;
		is_char = true;
		fmt = 0;
	}
	uint64_t mask = size >= 8 ? UINT64_MAX : (UINT64_C(1) << (size * 8)) - 1;
	raw &= mask;
	int64_t sv = (int64_t)raw;
	/* print/d reads the bits as signed whatever the type, as gdb does.  */
	if ((is_signed || fmt == 'd') && size < 8 && (raw >> (size * 8 - 1)) & 1)
		sv = (int64_t)(raw | ~mask);
	if (p->json && !strchr("xotaz", fmt ? fmt : '-')) {
		/* Numbers, chars included; hex and the like stay strings.  */
		if (is_signed || fmt == 'd')
			sg_out_int(p->json, take_key(p), sv);
		else
			sg_out_uint(p->json, take_key(p), raw);
		return;
	}
	switch (fmt) {
	case 'x':
	case 'a':
		snprintf(tmp, sizeof(tmp), "0x%" PRIx64, raw);
		break;
	case 'z':
		snprintf(tmp, sizeof(tmp), "0x%0*" PRIx64, (int)size * 2, raw);
		break;
	case 'o':
		snprintf(tmp, sizeof(tmp), raw ? "0%" PRIo64 : "0", raw);
		break;
	case 't': {
		/* Binary without leading zeros.  */
		int n = 0;
		for (int bit = 63; bit >= 0; bit--)
			if (n || (raw >> bit) & 1 || bit == 0)
				tmp[n++] = (char)('0' + ((raw >> bit) & 1));
		tmp[n] = '\0';
		break;
	}
	case 'u':
		snprintf(tmp, sizeof(tmp), "%" PRIu64, raw);
		break;
	case 'd':
		snprintf(tmp, sizeof(tmp), "%" PRId64, sv);
		break;
	default:
		if (is_char && !p->json) {
			snprintf(tmp, sizeof(tmp), is_signed ? "%" PRId64 " '" : "%" PRIu64 " '",
				 is_signed ? sv : (int64_t)raw);
			sg_lite_puts(b, tmp);
			if (raw == 0)
				sg_lite_puts(b, "\\000");
			else
				sg_escape_byte(b, (unsigned char)raw, '\'');
			sg_lite_putc(b, '\'');
			return;
		}
		if (is_signed)
			snprintf(tmp, sizeof(tmp), "%" PRId64, sv);
		else
			snprintf(tmp, sizeof(tmp), "%" PRIu64, raw);
		break;
	}
	if (fmt == 'a' && p->json) {
		sg_out_hex(p->json, take_key(p), raw);
		return;
	}
	put_leaf(p, tmp, b);
	if (fmt == 'a')
		put_symbol(p->t, raw, true, b);
}

static void put_error(struct printer *p, struct sg_error *err, struct sg_buf_lite *b)
{
	char *e = sg_fault_text(err);
	if (p->json) {
		/* {"error": "Cannot access memory at address 0x10"} */
		sg_out_object_begin(p->json, take_key(p));
		size_t n = e ? strlen(e) : 0;
		if (n > 9)
			sg_out_string_len(p->json, "error", e + 8, n - 9);
		else
			sg_out_string(p->json, "error", "error");
		sg_out_object_end(p->json);
	} else {
		sg_lite_puts(b, e ? e : "<error>");
	}
	free(e);
	sg_error_destroy(err);
}

static void put_error(struct printer *p, struct sg_error *err, struct sg_buf_lite *b);

/* A value, or part of one, the optimizer lost: JSON's null.  */
static void put_lost(struct printer *p, struct sg_buf_lite *b)
{
	if (p->json)
		sg_out_null(p->json, take_key(p));
	else
		sg_lite_puts(b, "<optimized out>");
}

/* How many bytes of a char array print reads at least: gdb takes the
   whole value (up to its max-value-size, 64 KiB) and finds repeats past
   print elements.  More when print elements asks for more.  */
#define CHARS_READ 65536

/* How many of the N bytes S end in the start of a multibyte sequence,
   as glibc's UTF-8 decoder sees an incomplete input: a lead byte (C2-FD,
   the old 5- and 6-byte ones included) followed by fewer continuation
   bytes than it announces; 0 if none.  */
static size_t utf8_incomplete_tail(const uint32_t *s, size_t n)
{
	for (size_t k = 1; k <= 5 && k <= n; k++) {
		uint32_t c = s[n - k];
		if ((c & 0xc0) == 0x80 && c < 0x100)
			continue;	/* a continuation byte */
		size_t want = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
			    : c >= 0xf0 && c <= 0xf7 ? 4 : c >= 0xf8 && c <= 0xfb ? 5
			    : c >= 0xfc && c <= 0xfd ? 6 : 0;
		return k < want ? k : 0;
	}
	return 0;
}

/* gdb's "<incomplete sequence \310>" for N bytes S.  */
static void put_incomplete(const uint32_t *s, size_t n, struct sg_buf_lite *b)
{
	char tmp[8];
	sg_lite_puts(b, "<incomplete sequence ");
	for (size_t i = 0; i < n; i++) {
		snprintf(tmp, sizeof(tmp), "\\%03o", (unsigned)(s[i] & 0xff));
		sg_lite_puts(b, tmp);
	}
	sg_lite_putc(b, '>');
}

/* Characters S (N code points; bytes unless PREFIX) as a string with
   gdb's repeat blocks: runs longer than REPEAT_THRESHOLD become
   'c' <repeats N times>.  Up to print elements characters, a block
   printed whole; "..." when some are left or S is not COMPLETE.  One
   trailing NUL of a COMPLETE array is the terminator and is not shown.
   PREFIX ("L", "u", "U") starts a wide string, once, as gdb.  */
static void put_chars(struct printer *p, const uint32_t *s, size_t n, bool complete,
		      const char *prefix, struct sg_buf_lite *b)
{
	if (complete && n && s[n - 1] == 0)
		n--;
	if (p->json) {
		struct sg_buf_lite j = { 0 };
		for (size_t i = 0; i < n && i < p->limit; i++) {
			if (prefix && s[i] >= 0x80)
				escape_wide(&j, s[i], 0);
			else
				sg_lite_putc(&j, (char)s[i]);
		}
		sg_out_string_len(p->json, take_key(p), j.s ? j.s : "", j.len);
		free(j.s);
		return;
	}
	sg_lite_puts(b, prefix ? prefix : "");
	/* Bytes that end in the start of a UTF-8 sequence: gdb's iconv
	   stops there, and gdb writes them apart.  */
	size_t tail = !prefix && complete && n <= p->limit ?
		      utf8_incomplete_tail(s, n) : 0;
	if (tail && tail == n) {
		put_incomplete(s, n, b);
		return;
	}
	n -= tail;
	if (n == 0) {
		sg_lite_puts(b, "\"\"");
		return;
	}
	bool in_quote = false, first = true;
	size_t i = 0;
	while (i < n && i < p->limit) {
		size_t run = 1;
		while (i + run < n && s[i + run] == s[i])
			run++;
		bool repeat = run > REPEAT_THRESHOLD;
		if (repeat && in_quote)
			sg_lite_puts(b, "\", ");
		else if (repeat && !first)
			sg_lite_puts(b, ", ");
		else if (!repeat && !in_quote)
			sg_lite_puts(b, first ? "\"" : ", \"");
		in_quote = !repeat;
		char quote = repeat ? '\'' : '"';
		if (repeat)
			sg_lite_putc(b, '\'');
		if (s[i] == 0)
			sg_lite_puts(b, "\\000");
		else if (prefix)
			escape_wide(b, s[i], quote);
		else
			sg_escape_byte(b, (unsigned char)s[i], quote);
		if (repeat) {
			char tmp[48];
			snprintf(tmp, sizeof(tmp), "' <repeats %zu times>", run);
			sg_lite_puts(b, tmp);
		}
		i += repeat ? run : 1;
		first = false;
	}
	if (in_quote)
		sg_lite_putc(b, '"');
	if (tail) {
		sg_lite_puts(b, ", ");
		put_incomplete(s + n, tail, b);
	}
	if (i < n || !complete)
		sg_lite_puts(b, "...");
}

/* The C string at ADDR, as gdb shows it after a char pointer: up to
   print elements bytes, with repeat blocks.  */
static void put_string_at(struct printer *p, uint64_t addr, struct sg_buf_lite *b)
{
	char *s;
	bool truncated;
	struct sg_error *err = sg_target_read_string(p->t, addr, p->limit, &s, &truncated);
	sg_lite_putc(b, ' ');
	if (err) {
		char *e = sg_fault_text(err);
		sg_lite_puts(b, e ? e : "<error>");
		free(e);
		sg_error_destroy(err);
		return;
	}
	size_t n = strlen(s);
	uint32_t *u = malloc((n ? n : 1) * sizeof(*u));
	if (u) {
		for (size_t i = 0; i < n; i++)
			u[i] = (unsigned char)s[i];
		put_chars(p, u, n, !truncated, NULL, b);
	}
	free(u);
	free(s);
}

/* A char array's bytes as a string (COMPLETE: all of the array).  */
static void put_char_array(struct printer *p, const unsigned char *s, size_t n, bool complete,
			   struct sg_buf_lite *b)
{
	uint32_t *u = malloc((n ? n : 1) * sizeof(*u));
	if (!u) {
		put_error(p, &sg_enomem, b);
		return;
	}
	for (size_t i = 0; i < n; i++)
		u[i] = s[i];
	put_chars(p, u, n, complete, NULL, b);
	free(u);
}

/* N wide characters of SIZE bytes at ADDRESS, PREFIX their literal's,
   at most CHARS_READ bytes of them.  */
static void put_wide_array(struct printer *p, uint64_t address, uint64_t n, size_t size,
			   const char *prefix, struct sg_buf_lite *b)
{
	uint64_t most = p->limit + 1 > CHARS_READ / size ? p->limit + 1 : CHARS_READ / size;
	bool complete = n <= most;
	if (!complete)
		n = most;
	unsigned char *raw = malloc(n ? n * size : 1);
	uint32_t *u = malloc((n ? n : 1) * sizeof(*u));
	struct sg_error *err = raw && u ? sg_target_read(p->t, address, raw, n * size) : &sg_enomem;
	if (err)
		put_error(p, err, b);
	else
		put_chars(p, u, wide_decode(raw, n, size, u), complete, prefix, b);
	free(raw);
	free(u);
}

#define MAX_DIMS 8

/* The bounds of ARRAY's dimensions into DIMS, outermost first: their
   number, 0 when one is unknown (a flexible array member).  */
static int array_dims(Dwarf_Die *array, uint64_t *dims)
{
	Dwarf_Die sub;
	int nd = 0;
	if (dwarf_child(array, &sub) != 0)
		return 0;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		Dwarf_Attribute a;
		Dwarf_Word n = 0;
		if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
			;
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &n) == 0)
			n++;
		else
			return 0;
		if (nd == MAX_DIMS)
			return 0;
		dims[nd++] = n;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return nd;
}

/* Where member or base class M starts in an object at ADDRESS: its
   constant offset or, for a virtual base, the offset the object's vtable
   gives (a DWARF expression over the object's address).  */
bool member_offset(struct sg_target *t, Dwarf_Die *m, uint64_t address, uint64_t *ret)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	*ret = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return true;
	if (dwarf_formudata(&a, &off) == 0) {
		*ret = off;
		return true;
	}
	Dwarf_Op *ops;
	size_t nops;
	struct sg_dwarf_expr_ctx ctx = { .target = t };
	struct sg_dwarf_result r;
	if (!address || dwarf_getlocation(&a, &ops, &nops) != 0)
		return false;
	struct sg_error *err = sg_dwarf_expr_eval(ops, nops, &ctx, &address, &r);
	if (err || r.kind != SG_DWARF_ADDRESS) {
		sg_error_destroy(err);
		return false;
	}
	*ret = r.value - address;
	return true;
}

static bool is_virtual_base(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;
	return dwarf_attr(m, DW_AT_virtuality, &a) && dwarf_formudata(&a, &v) == 0 &&
	       v != DW_VIRTUALITY_none;
}

static void put_aggregate(struct printer *p, Dwarf_Die *type, const struct val *v, int depth,
			  struct sg_buf_lite *b)
{
	Dwarf_Die full;
	Dwarf_Attribute decl;
	sg_type_complete(p->t, type, &full);
	if (!p->as_base && dwarf_attr(&full, DW_AT_declaration, &decl)) {
		/* Only declared (clang's std::condition_variable without
		   -fstandalone-debug); a base class so is {<No data fields>}.  */
		put_special(p, "unavailable", "<incomplete type>", b);
		return;
	}
	/* A new object (not a base of the one being printed) has its own
	   virtual bases.  */
	/* An anonymous member's fields, in JSON, go into the enclosing object. */
	bool merged = p->merge;
	p->merge = false;
	bool own = !p->as_base;
	const void *saved[sizeof(p->vbases) / sizeof(p->vbases[0])];
	unsigned nsaved = p->nvbases;
	if (own) {
		memcpy(saved, p->vbases, sizeof(saved));
		p->nvbases = 0;
	}
	p->as_base = false;
	struct nest n = { .kind = NEST_STRUCT, .first = true };
	if (!merged)
		nest_open(p, &n, NEST_STRUCT, b);
	char *type_name = qualified_name(&full);
	n.name = type_name;
	Dwarf_Die m;
	if (dwarf_child(&full, &m) == 0) {
		do {
			int mtag = dwarf_tag(&m);
			Dwarf_Attribute a;
			if (mtag == DW_TAG_inheritance) {
				/* A base class: <ns::Base> = {...}, at its offset.  */
				Dwarf_Die bt;
				uint64_t off = 0;
				if (!sg_die_type(&m, &bt))
					continue;
				n.has_bases = true;
				if (is_virtual_base(&m)) {
					/* gdb prints a virtual base once per object, where
					   the walk first meets it.  */
					const void *key = bt.addr;
					bool seen = false;
					for (unsigned k = 0; k < p->nvbases && !seen; k++)
						seen = p->vbases[k] == key;
					if (seen)
						continue;
					if (p->nvbases < sizeof(p->vbases) / sizeof(p->vbases[0]))
						p->vbases[p->nvbases++] = key;
				}
				bool located = member_offset(p->t, &m, v->lvalue ? v->address : 0, &off);
				char *bn = qualified_name(&bt), *label;
				if (asprintf(&label, "<%s>", bn ? bn : "?") < 0)
					label = NULL;
				nest_base(p, &n, label ? label : "<?>", b);
				free(bn);
				struct val bv = sub_value(v, &bt, off);
				p->as_base = true;
				if (located)
					put_value(p, &bv, false, depth + 1, b);
				else
					put_special(p, "error", "<error: cannot locate the virtual base>", b);
				p->as_base = false;
				nest_base_end(p, &n, b);
				free(label);
				continue;
			}
			bool is_static = mtag == DW_TAG_variable ||
					 (mtag == DW_TAG_member && dwarf_attr(&m, DW_AT_external, &a) &&
					  dwarf_attr(&m, DW_AT_declaration, &a));
			if (is_static) {
				/* A static member lives where its symbol is.  */
				const char *name = dwarf_diename(&m);
				Dwarf_Die mt;
				char *q = qualified_name(&m);
				struct sg_symbol sym;
				struct sg_error *err = q ? sg_lookup_symbol(p->t, q, &sym) : &sg_not_found;
				free(q);
				if (!name || !sg_die_type(&m, &mt)) {
					sg_error_destroy(err);
					continue;
				}
				char *label;
				if (asprintf(&label, "static %s", name) < 0)
					label = NULL;
				/* JSON keys have no "static": C++ forbids a member
				   of the same name.  */
				nest_item(p, &n, p->json ? name : label ? label : name, b);
				free(label);
				struct val cv = { .type = mt };
				Dwarf_Attribute ca;
				if (err && dwarf_attr_integrate(&m, DW_AT_const_value, &ca) &&
				    !const_value(&m, &ca, &cv)) {
					/* A constant the compiler kept only in DWARF
					   (static constexpr members).  */
					sg_error_destroy(err);
					put_value(p, &cv, false, depth + 1, b);
				} else if (err) {
					sg_error_destroy(err);
					if (p->json)
						sg_out_null(p->json, take_key(p));
					else
						sg_lite_puts(b, "<optimized out>");
				} else {
					struct val sv = { .type = mt, .lvalue = true, .address = sym.address };
					put_value(p, &sv, false, depth + 1, b);
				}
				continue;
			}
			if (mtag != DW_TAG_member)
				continue;
			const char *name = dwarf_diename(&m);
			Dwarf_Die mt;
			if (!sg_die_type(&m, &mt))
				continue;
			Dwarf_Word off = 0;
			uint64_t bit_off = 0, bit_size = 0;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &off);
			bool bitfield = dwarf_attr(&m, DW_AT_bit_size, &a) != NULL;
			/* gdb writes an anonymous struct or union bare: {a = 1, {x = 2}};
			   JSON puts its members among the others, as C names them.  */
			Dwarf_Die mst;
			strip(&mt, &mst);
			int mst_tag = dwarf_tag(&mst);
			bool merge = !name && p->json && !bitfield &&
				     (mst_tag == DW_TAG_structure_type || mst_tag == DW_TAG_union_type ||
				      mst_tag == DW_TAG_class_type);
			if (merge)
				p->merge = true;
			else
				nest_item(p, &n, name ? name : p->json ? "<anonymous>" : NULL, b);
			if (bitfield && !sg_member_bit_field(&m, &bit_off, &bit_size)) {
				put_special(p, "error", "<error: not a valid bit field>", b);
				continue;
			}
			if (bitfield) {
				/* Up to 64 bits from any bit of a byte: 9 bytes.  */
				unsigned char raw[16] = { 0 };
				size_t byte = bit_off / 8, shift = bit_off % 8;
				size_t nbytes = (shift + bit_size + 7) / 8;
				struct val w = sub_value(v, &mt, byte);
				if (val_state(&w, 0, nbytes) == VAL_LOST) {
					put_lost(p, b);
					continue;
				}
				struct sg_error *err = read_value(p->t, &w, raw, nbytes);
				if (err) {
					put_error(p, err, b);
					continue;
				}
				unsigned __int128 word;
				memcpy(&word, raw, sizeof(word));
				uint64_t val = (uint64_t)(word >> shift) &
					       (bit_size >= 64 ? UINT64_MAX : (UINT64_C(1) << bit_size) - 1);
				Dwarf_Die st;
				strip(&mt, &st);
				Dwarf_Word enc = 0;
				if (dwarf_attr(&st, DW_AT_encoding, &a))
					dwarf_formudata(&a, &enc);
				bool is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
				if (is_signed && bit_size < 64 && ((val >> (bit_size - 1)) & 1))
					val |= ~((UINT64_C(1) << bit_size) - 1);
				/* Formats see the member's type: its size for /z,
				   a float of its size for /f.  */
				uint64_t tsize = type_size(&mt);
				if (dwarf_tag(&st) == DW_TAG_enumeration_type && (!p->fmt || p->fmt == 's')) {
					put_enum_bits(p, &st, val, bit_size, tsize, b);
					continue;
				}
				if (p->fmt == 'f' && (tsize == 4 || tsize == 8))
					put_float(p, (unsigned char *)&val, tsize, b);
				else if (enc == DW_ATE_boolean && !p->fmt)
					put_leaf(p, val ? "true" : "false", b);
				else
					put_int(p, val, tsize && tsize < 8 ? tsize : 8, is_signed,
						tsize == 1 && (enc == DW_ATE_signed_char ||
							       enc == DW_ATE_unsigned_char), b);
				continue;
			}
			struct val mv = sub_value(v, &mt, off);
			p->vptr = name && !strncmp(name, "_vptr.", 6);
			put_value(p, &mv, false, depth + 1, b);
			p->vptr = false;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	if (!merged)
		nest_close(p, &n, b);
	free(type_name);
	if (own) {
		memcpy(p->vbases, saved, sizeof(saved));
		p->nvbases = nsaved;
	}
}

static void put_elements(struct printer *p, Dwarf_Die *elem, const struct val *v,
			 const uint64_t *dims, int ndims, int depth, struct sg_buf_lite *b);

static void put_array(struct printer *p, Dwarf_Die *type, const struct val *v, int depth,
		      struct sg_buf_lite *b)
{
	Dwarf_Die elem;
	if (!sg_die_type(type, &elem)) {
		put_special(p, "error", "<error: array without element type>", b);
		return;
	}
	uint64_t dims[MAX_DIMS];
	int nd = array_dims(type, dims);
	if (!nd)
		dims[nd++] = 0;
	put_elements(p, &elem, v, dims, nd, depth, b);
}

/* Whether elements I and J of V, of ESIZE bytes, are the same: their
   bytes (I's in A) and, not in memory, which of them are known.  */
static bool same_element(struct printer *p, const struct val *v, uint64_t i, uint64_t j,
			 uint64_t esize, const unsigned char *a, unsigned char *c)
{
	if (v->lvalue)
		return read_ok(p->t, v->address + j * esize, c, esize) && !memcmp(a, c, esize);
	struct val ej = sub_value(v, &v->type, j * esize);
	if (read_value(p->t, &ej, c, esize) || memcmp(a, c, esize))
		return false;
	if (!v->known)
		return true;
	for (uint64_t k = 0; k < esize; k++)
		if (val_state(v, i * esize + k, 1) != val_state(v, j * esize + k, 1))
			return false;
	return true;
}

/* The elements of type ELEM from V (in memory or not): an array of NDIMS
   dimensions DIMS (outermost first), nested braces as gdb, or print's
   *p@N.  */
static void put_elements(struct printer *p, Dwarf_Die *elem_type, const struct val *v,
			 const uint64_t *dims, int ndims, int depth, struct sg_buf_lite *b)
{
	Dwarf_Die elem = *elem_type;
	uint64_t n = dims[0], esize = type_size(&elem);
	/* An element of an outer dimension is a row of the inner ones.  */
	for (int d = 1; d < ndims; d++)
		esize = dims[d] && esize > UINT64_MAX / dims[d] ? 0 : esize * dims[d];
	const char *wide = wide_prefix(&elem);
	if (ndims == 1 && wide && v->lvalue && (!p->fmt || p->fmt == 's')) {
		put_wide_array(p, v->address, n, esize, wide, b);
		return;
	}
	if (ndims == 1 && is_char_type(&elem) && (!p->fmt || p->fmt == 's') &&
	    (v->lvalue || !v->known || !memchr(v->known, VAL_LOST, v->nbytes < n ? v->nbytes : n))) {
		size_t most = p->limit + 1 > CHARS_READ ? p->limit + 1 : CHARS_READ;
		size_t want = n < most ? n : most;
		unsigned char *buf = malloc(want ? want : 1);
		struct sg_error *err = buf ? read_value(p->t, v, buf, want) : &sg_enomem;
		if (err)
			put_error(p, err, b);
		else
			put_char_array(p, buf, want, want == n, b);
		free(buf);
		return;
	}
	struct nest nest;
	nest_open(p, &nest, NEST_ARRAY, b);
	size_t shown = 0;
	for (uint64_t i = 0; i < n;) {
		if (shown >= p->limit || p->values >= MAX_VALUES) {
			put_note(p, "...", b);
			break;
		}
		/* Count identical elements, comparing their bytes.  */
		uint64_t run = 1;
		unsigned char a[64], c[64];
		bool small = esize && esize <= sizeof(a);
		struct val ev = sub_value(v, &elem, i * esize);
		struct sg_error *rerr = small ? read_value(p->t, &ev, a, esize) : NULL;
		if (rerr) {
			/* The rest is unreadable too, as a rule: one error for
			   it, not one per element.  */
			nest_item(p, &nest, NULL, b);
			put_error(p, rerr, b);
			break;
		}
		/* JSON has no repeat blocks.  */
		while (small && !p->json && i + run < n && same_element(p, v, i, i + run, esize, a, c))
			run++;
		nest_item(p, &nest, NULL, b);
		if (ndims > 1)
			put_elements(p, &elem, &ev, dims + 1, ndims - 1, depth + 1, b);
		else
			put_value(p, &ev, false, depth + 1, b);
		if (run > REPEAT_THRESHOLD) {
			char tmp[48];
			snprintf(tmp, sizeof(tmp), " <repeats %" PRIu64 " times>", run);
			put_note(p, tmp, b);
			i += run;
			shown += REPEAT_THRESHOLD;
		} else {
			i++;
			shown++;
		}
	}
	nest_close(p, &nest, b);
}

/* ---- typed readers ---- */

struct child_print {
	struct printer *p;
	int depth;
	struct sg_buf_lite *b;
	struct nest nest;
	size_t n;
	bool named;
	bool map;
};

/* gdb's "..." after a reader's last child shown: on its own line in
   pretty mode.  */
static void put_more(struct printer *p, struct sg_buf_lite *b)
{
	if (p->json)
		return;
	if (p->pretty) {
		sg_lite_putc(b, '\n');
		put_indent(p, b);
	}
	sg_lite_puts(b, "...");
}

/* A reader's child; in a frame line, flat whatever its parent is.  */
static void put_child_value(struct child_print *c, const struct val *cv)
{
	bool pretty = c->p->pretty;
	if (c->p->frame_pretty)
		c->p->pretty = false;
	put_value(c->p, cv, false, c->depth + 1, c->b);
	c->p->pretty = pretty;
}

static int print_child(const char *name, struct sg_value *child, void *arg)
{
	struct child_print *c = arg;
	/* Ctrl-C: a reader's children may be read before the print, so no
	   read of target memory comes to fail with Quit; the command does,
	   once it ends (shell/run.c).  */
	if (sg_interrupt_pending())
		return SG_CB_ABORT;
	if (c->n == c->p->limit || c->p->values >= MAX_VALUES) {
		/* One past the limit, or the print's values spent: there is
		   more.  gdb counts a map's keys and values each.  */
		put_more(c->p, c->b);
		return SG_CB_ABORT;
	}
	struct val cv = { .type = *sg_value_type(child), .lvalue = true, .address = sg_value_address(child) };
	if (sg_value_is_synthetic(child, &cv.bits))
		cv.lvalue = false;
	if (c->map) {
		/* Keys and values alternate: "[key] = value".  */
		if (c->n++ % 2 == 0) {
			nest_key(c->p, &c->nest, c->b);
			put_child_value(c, &cv);
			nest_value(c->p, c->b);
		} else {
			put_child_value(c, &cv);
			nest_pair_end(c->p);
		}
		return SG_CB_OK;
	}
	c->n++;
	/* No display hint: gdb prints "name = value".  */
	nest_item(c->p, &c->nest, c->named ? name : NULL, c->b);
	put_child_value(c, &cv);
	return SG_CB_OK;
}

/* A reader's string summary ("\"abc\"..."): its bytes, for JSON.  Not
   quoted: the summary as it is.  */
static void put_summary_string(struct printer *p, const char *summary)
{
	const char *q = summary;
	if (*q != '"') {
		sg_out_string(p->json, take_key(p), summary);
		return;
	}
	struct sg_buf_lite b = { 0 };
	for (q++; *q && *q != '"'; q++) {
		if (*q != '\\' || !q[1]) {
			sg_lite_putc(&b, *q);
			continue;
		}
		static const char from[] = "abfnrtve\\\"'", to[] = "\a\b\f\n\r\t\v\033\\\"'";
		const char *f = strchr(from, *++q);
		if (f) {
			sg_lite_putc(&b, to[f - from]);
		} else if (*q >= '0' && *q <= '7') {
			unsigned v = 0;
			for (int i = 0; i < 3 && *q >= '0' && *q <= '7'; i++)
				v = v * 8 + (unsigned)(*q++ - '0');
			q--;
			sg_lite_putc(&b, (char)v);
		} else {
			sg_lite_putc(&b, *q);
		}
	}
	sg_out_string_len(p->json, take_key(p), b.s ? b.s : "", b.len);
	free(b.s);
}

/* JSON: a string reader's bytes, or else its summary decoded.  */
static void put_reader_string(struct printer *p, const struct sg_reader_ops *ops, void *arg,
			      const struct sg_value *value, const char *summary)
{
	char *bytes;
	size_t len;
	if (ops->bytes && ops->hint == SG_HINT_STRING) {
		struct sg_error *err = ops->bytes(p->s, value, p->limit, &bytes, &len, arg);
		if (err) {
			put_error(p, err, NULL);
			return;
		}
		sg_out_string_len(p->json, take_key(p), bytes, len);
		free(bytes);
		return;
	}
	put_summary_string(p, summary ? summary : "");
}

static int count_child(const char *name, struct sg_value *child, void *arg)
{
	(void)name;
	(void)child;
	++*(size_t *)arg;
	return SG_CB_OK;
}

/* Whether a child's NAME is "[N]", N its position: gdb's printers without
   a display hint name a sequence's elements so (std::list, std::set).  */
static int check_index(const char *name, struct sg_value *child, void *arg)
{
	(void)child;
	size_t *n = arg;
	char want[32];
	snprintf(want, sizeof(want), "[%zu]", *n);
	if (!name || strcmp(name, want)) {
		*n = SIZE_MAX;
		return SG_CB_ABORT;
	}
	++*n;
	return SG_CB_OK;
}

/* JSON: whether the children of VALUE, which has no display hint, are a
   sequence's elements "[0]", "[1]" ... (an empty one too), which JSON
   writes as an array; else they are members (std::tuple's "[1]",
   std::bitset's set bits, std::optional's "[contained value]").  */
static bool indexed_children(struct printer *p, const struct sg_reader_ops *ops, void *arg,
			     struct sg_value *value)
{
	size_t n = 0;
	struct sg_error *err = ops->children(p->s, value, p->limit + 1, check_index, &n,
					     arg);
	sg_error_destroy(err);
	return n != SIZE_MAX;
}

/* VALUE as its reader ENTRY gives it.  */
static void put_reader_value(struct printer *p, const struct sg_registry_entry *entry,
			     struct sg_value *value, int depth, struct sg_buf_lite *b)
{
	const struct sg_reader_ops *ops = entry->ops;
	char *summary = NULL;
	struct sg_error *err = ops->summary ? ops->summary(p->s, value, &summary, entry->arg)
					    : NULL;
	if (err) {
		put_error(p, err, b);
		return;
	}
	bool kids = ops->children && ops->hint != SG_HINT_STRING;
	size_t summary_len = summary ? strlen(summary) : 0;
	if (summary && !p->json)
		sg_lite_puts(b, summary);
	else if (p->json && !kids)
		put_reader_string(p, ops, entry->arg, value, summary);
	free(summary);
	if (kids && p->summary) {
		/* gdb's summary mode: "{...}" for children, if any.  */
		size_t n = 0;
		err = ops->children(p->s, value, 1, count_child, &n, entry->arg);
		if (err)
			put_error(p, err, b);
		else if (n)
			sg_lite_puts(b, summary_len ? " = {...}" : "{...}");
		return;
	}
	if (kids) {
		/* Text: the children go after " = " only when there are some,
		   so they are written aside first.  JSON: always a container. */
		struct sg_buf_lite kb = { 0 };
		bool named = ops->hint == SG_HINT_NONE;
		if (named && p->json && indexed_children(p, ops, entry->arg, value))
			named = false;
		struct child_print c = { p, depth, &kb, { 0 }, 0, named, ops->hint == SG_HINT_MAP };
		bool pretty = p->pretty;
		int level = p->level;
		if (p->frame_pretty && ops->hint != SG_HINT_ARRAY) {
			p->pretty = true;
			if (!p->level)
				p->level = 2;
		}
		nest_open(p, &c.nest, named ? NEST_STRUCT
				      : ops->hint == SG_HINT_MAP ? NEST_MAP : NEST_ARRAY, &kb);
		err = ops->children(p->s, value, p->limit + 1, print_child, &c, entry->arg);
		if (c.map && c.n % 2 && p->json) {
			/* A key without its value (print elements, an error).  */
			sg_out_null(p->json, "value");
			nest_pair_end(p);
		}
		if (err && p->json) {
			/* A member "<error>" of an object, an element
			   {"error": ...} of an array.  */
			p->key = c.nest.kind == NEST_STRUCT ? "<error>" : NULL;
			put_error(p, err, &kb);
			err = NULL;
		}
		nest_close(p, &c.nest, &kb);
		p->pretty = pretty;
		p->level = level;
		/* Without a summary gdb prints the children alone.  */
		const char *eq = summary_len ? " = " : "";
		if (err) {
			sg_lite_puts(b, eq);
			put_error(p, err, b);
		} else if ((c.n || !summary_len) && !p->json) {
			sg_lite_puts(b, eq);
			sg_lite_puts(b, kb.s);
		}
		free(kb.s);
	}
}

/* An iterator-like VALUE (its reader has deref and no children) prints
   as the object it refers to, as gdb's iterator printers print it; false
   when it refers to nothing (a singular iterator), which its summary
   then tells.  */
static bool put_referent(struct printer *p, const struct sg_registry_entry *entry,
			 struct sg_value *value, int depth, struct sg_buf_lite *b)
{
	const struct sg_reader_ops *ops = entry->ops;
	if (entry->abi_minor < 3 || !ops->deref || ops->children)
		return false;
	struct sg_value *r;
	struct sg_error *err = ops->deref(p->s, value, &r, entry->arg);
	if (err == &sg_not_found)
		return false;
	if (err) {
		put_error(p, err, b);
		return true;
	}
	struct val rv = { .type = *sg_value_type(r), .lvalue = true, .address = sg_value_address(r) };
	if (sg_value_is_synthetic(r, &rv.bits))
		rv.lvalue = false;
	sg_value_destroy(r);
	put_value(p, &rv, false, depth + 1, b);
	return true;
}

/* Where values not in memory are lent to readers: kernel space, where
   no user pointer points, a stride apart per nesting level.  */
#define OVERLAY_BASE UINT64_C(0xffffff0000000000)
#define OVERLAY_STRIDE UINT64_C(0x100000000)

static bool put_with_reader_at(struct printer *p, Dwarf_Die *type, const struct val *v,
			       uint64_t address, bool cached, const struct sg_registry_entry *entry,
			       int depth, struct sg_buf_lite *b);

/* Print V with the typed reader registered for its type, if any, as gdb's
   pretty printers do: "std::vector of length 3, capacity 4 = {1, 2, 3}".
   In JSON a reader's value is its children: an array, an array of
   {key, value} for a map, an object of named children; a string, or a
   reader without children, is its summary.  */
static bool put_with_reader(struct printer *p, Dwarf_Die *type, const struct val *v, int depth,
			    struct sg_buf_lite *b)
{
	size_t nslots = sizeof(p->readers) / sizeof(p->readers[0]);
	const struct sg_registry_entry *entry = NULL;
	bool cached = false;
	for (size_t i = 0; i < nslots && i < p->nreaders && !cached; i++) {
		cached = p->readers[i].die == type->addr;
		entry = p->readers[i].entry;
	}
	if (cached && !entry)
		return false;
	/* A value not in memory is lent to its reader at an address where
	   nothing is mapped (kernel space), through the target's overlay:
	   readers read through the target, as gdb's printers read the
	   value's contents.  */
	uint64_t address = v->address;
	unsigned char small[16];
	bool lent = false;
	if (!v->lvalue) {
		const unsigned char *data = v->bytes;
		uint64_t n = v->nbytes;
		if (!data) {
			memcpy(small, &v->bits, 8);
			memcpy(small + 8, &v->bits_hi, 8);
			data = small;
			n = type_size(type);
			if (n > sizeof(small))
				return false;
		}
		address = OVERLAY_BASE + (uint64_t)p->overlays * OVERLAY_STRIDE;
		if (!n || n > OVERLAY_STRIDE ||
		    sg_target_overlay_push(p->t, address, data, v->bytes ? v->known : NULL, n))
			return false;
		p->overlays++;
		lent = true;
	}
	bool r = put_with_reader_at(p, type, v, address, cached, entry, depth, b);
	if (lent) {
		p->overlays--;
		sg_target_overlay_pop(p->t);
	}
	return r;
}

static bool put_with_reader_at(struct printer *p, Dwarf_Die *type, const struct val *v,
			       uint64_t address, bool cached, const struct sg_registry_entry *entry,
			       int depth, struct sg_buf_lite *b)
{
	size_t nslots = sizeof(p->readers) / sizeof(p->readers[0]);
	struct sg_value *value;
	if (sg_value_at(p->t, &v->type, address, &value))
		return false;
	if (!cached) {
		entry = sg_reader_lookup(p->s, value);
		p->readers[p->nreaders++ % nslots].die = type->addr;
		p->readers[(p->nreaders - 1) % nslots].entry = entry;
	}
	const struct sg_reader_ops *ops = entry ? entry->ops : NULL;
	if (!entry || (!ops->summary && !ops->children)) {
		/* A reader with neither answers only *it (hash table
		   iterators, which gdb prints as plain structs).  */
		sg_value_destroy(value);
		return false;
	}
	/* Readers nest through print_child: count them, so that a value
	   that contains itself ends in an error, not a stack overflow.  */
	struct sg_error *err = sg_reader_enter(p->s);
	if (err) {
		put_error(p, err, b);
	} else {
		if (!put_referent(p, entry, value, depth, b))
			put_reader_value(p, entry, value, depth, b);
		sg_reader_leave(p->s);
	}
	sg_value_destroy(value);
	return true;
}

/* JSON: a char pointer is its string (null when NULL), others are their
   address as "0x..." strings.  */
static void put_pointer_json(struct printer *p, uint64_t ptr, bool chars)
{
	if (!chars) {
		sg_out_hex(p->json, take_key(p), ptr);
		return;
	}
	if (!ptr) {
		sg_out_null(p->json, take_key(p));
		return;
	}
	char *str;
	bool truncated;
	struct sg_error *err = sg_target_read_string(p->t, ptr, p->limit, &str, &truncated);
	if (err) {
		put_error(p, err, NULL);
		return;
	}
	sg_out_string(p->json, take_key(p), str);
	free(str);
}

/* A float of SIZE bytes as gdb prints it: %g with the type's digits,
   "nan(0xMANTISSA)" and "inf" with their signs.  JSON: a number, or the
   text for the values JSON has no number for.  */
static void put_float(struct printer *p, const unsigned char *raw, size_t size,
		      struct sg_buf_lite *b)
{
	char tmp[64];
	long double x;
	int mant_bits;
	uint64_t bits = 0;
	memcpy(&bits, raw, size < 8 ? size : 8);
	if (size == 2) {
		/* _Float16: 1 sign, 5 exponent and 10 mantissa bits.  */
		int e = (int)(bits >> 10 & 0x1f);
		double m = (double)(bits & 0x3ff);
		double d = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
							    : ldexp(m + 1024, e - 25);
		x = bits >> 15 ? -d : d;
		mant_bits = 10;
		snprintf(tmp, sizeof(tmp), "%.5g", (double)x);
	} else if (size == 4) {
		float f;
		memcpy(&f, raw, 4);
		x = f;
		mant_bits = 23;
		snprintf(tmp, sizeof(tmp), "%.9g", f);
	} else if (size == 8) {
		double d;
		memcpy(&d, raw, 8);
		x = d;
		mant_bits = 52;
		snprintf(tmp, sizeof(tmp), "%.17g", d);
	} else {
		long double ld = 0;
		memcpy(&ld, raw, sizeof(ld) < size ? sizeof(ld) : size);
		/* x87: the explicit integer bit is set exactly when the
		   exponent is not 0; gdb calls other patterns invalid.  */
		unsigned exp = size >= 10 ? ((unsigned)raw[9] << 8 | raw[8]) & 0x7fff : 1;
		if (size >= 10 && (exp != 0) != ((raw[7] >> 7) & 1)) {
			put_special(p, "unavailable", "<invalid float value>", b);
			return;
		}
		x = ld;
		mant_bits = 64;	/* x87: gdb shows the explicit integer bit too */
		snprintf(tmp, sizeof(tmp), "%.21Lg", ld);
	}
	bool finite = isfinite(x);
	if (isnan(x))
		snprintf(tmp, sizeof(tmp), "%snan(0x%" PRIx64 ")", signbit(x) ? "-" : "",
			 mant_bits >= 64 ? bits : bits & ((UINT64_C(1) << mant_bits) - 1));
	if (p->json && finite) {
		sg_out_double(p->json, take_key(p), (double)x);
		return;
	}
	put_leaf(p, tmp, b);
}

/* The float of SIZE bytes at RAW converted to an integer as gdb does
   (value_as_long): toward zero, saturating at the limits of a 64-bit
   integer, a NaN as the largest.  */
static int64_t float_to_longest(const unsigned char *raw, size_t size)
{
	long double x = 0;
	if (size == 4) {
		float f;
		memcpy(&f, raw, 4);
		x = f;
	} else if (size == 8) {
		double d;
		memcpy(&d, raw, 8);
		x = d;
	} else if (size >= 10) {
		memcpy(&x, raw, sizeof(x) < size ? sizeof(x) : size);
	}
	if (x >= -0x1p63L && x < 0x1p63L)
		return (int64_t)x;
	return x < 0 ? INT64_MIN : INT64_MAX;
}

/* A complex number of two floats of HALF bytes each: "1 + -2.5i" in
   text, {"real": 1, "imag": -2.5} in JSON.  */
static void put_complex(struct printer *p, const unsigned char *raw, size_t half,
			struct sg_buf_lite *b)
{
	if (p->json) {
		sg_out_object_begin(p->json, take_key(p));
		p->key = "real";
		put_float(p, raw, half, b);
		p->key = "imag";
		put_float(p, raw + half, half, b);
		sg_out_object_end(p->json);
		return;
	}
	put_float(p, raw, half, b);
	sg_lite_puts(b, " + ");
	put_float(p, raw + half, half, b);
	sg_lite_putc(b, 'i');
}

/* A 16-byte integer (little-endian RAW) in print's format.  JSON: a
   number when it fits in 64 bits, else its decimal digits as a string. */
static void put_int128(struct printer *p, const unsigned char *raw, bool is_signed,
		       struct sg_buf_lite *b)
{
	unsigned __int128 u;
	memcpy(&u, raw, 16);
	char fmt = p->fmt == 's' ? 0 : p->fmt;
	if (fmt == 'c' || fmt == 'f' || fmt == 'a') {
		/* gdb refuses these on integers past 8 bytes.  */
		put_special(p, "error", "<error: That operation is not available on integers of more than 8 bytes.>", b);
		return;
	}
	bool neg = (is_signed || fmt == 'd') && fmt != 'u' && (u >> 127);
	unsigned base = fmt == 'x' || fmt == 'z' ? 16 : fmt == 'o' ? 8 : fmt == 't' ? 2 : 10;
	unsigned __int128 mag = neg && base == 10 ? -u : u;
	char digits[140], *d = digits + sizeof(digits);
	*--d = '\0';
	int n = 0;
	do {
		*--d = "0123456789abcdef"[(unsigned)(mag % base)];
		mag /= base;
		n++;
	} while (mag || (fmt == 'z' && n < 32));
	if (p->json && base == 10 && (neg ? u >= (unsigned __int128)INT64_MIN : !(u >> 64))) {
		if (neg)
			sg_out_int(p->json, take_key(p), (int64_t)(uint64_t)u);
		else
			sg_out_uint(p->json, take_key(p), (uint64_t)u);
		return;
	}
	char text[160];
	snprintf(text, sizeof(text), "%s%s%s", neg && base == 10 ? "-" : "",
		 base == 16 ? "0x" : base == 8 && u ? "0" : "", d);
	put_leaf(p, text, b);
}

/* A C++ reference as gdb prints it: "(int &) @0x...: 5" by itself (TOP),
   "@0x...: 5" as a variable or frame argument (DEPTH 0), "@0x..." inside
   an object; JSON gets the referred value.  */
static void put_reference(struct printer *p, Dwarf_Die *type, const struct val *v, bool top,
			  int depth, struct sg_buf_lite *b)
{
	if (v->synthetic_ptr) {
		/* DW_OP_implicit_pointer: the object has no address.  */
		put_special(p, "unavailable", "<synthetic pointer>", b);
		return;
	}
	uint64_t addr = 0;
	struct sg_error *err = read_value(p->t, v, &addr, 8);
	if (err) {
		put_error(p, err, b);
		return;
	}
	struct val target = { .lvalue = true, .address = addr };
	bool typed = sg_die_type(type, &target.type);
	if (p->json) {
		if (typed)
			put_value(p, &target, false, depth + 1, b);
		else
			sg_out_hex(p->json, take_key(p), addr);
		return;
	}
	/* gdb's printers see through references: a value with a typed
	   reader prints as itself, without "(T &) @0x...: ".  In summary
	   mode a reference to any other aggregate is "..." as the object.  */
	Dwarf_Die st;
	strip(&target.type, &st);
	int ttag = typed ? dwarf_tag(&st) : 0;
	bool aggregate = ttag == DW_TAG_structure_type || ttag == DW_TAG_class_type ||
			 ttag == DW_TAG_union_type;
	if (aggregate && !p->raw && put_with_reader(p, &st, &target, depth + 1, b))
		return;
	if (p->summary && (aggregate || ttag == DW_TAG_array_type)) {
		sg_lite_puts(b, "...");
		return;
	}
	char tmp[40];
	if (top) {
		char *ts = sg_type_string_lang((Dwarf_Die *)&v->type, "", p->cplus);
		sg_lite_putc(b, '(');
		sg_lite_puts(b, ts ? ts : "?");
		sg_lite_puts(b, ") ");
		free(ts);
	}
	if (depth == 0 && ttag == DW_TAG_unspecified_type) {
		/* gdb reads std::nullptr_t as void.  */
		sg_lite_puts(b, "<error reading variable: " NO_VOID_VALUE ">");
		return;
	}
	uint64_t tsize = typed ? type_size(&st) : 0;
	unsigned char probe[64];
	struct sg_error *rerr = depth == 0 && tsize ?
		sg_target_read(p->t, addr, probe, tsize < sizeof(probe) ? tsize : sizeof(probe)) : NULL;
	if (rerr && sg_error_code(rerr) == SG_ERROR_FAULT) {
		/* gdb reads what it shows a reference to first, and fails
		   the variable: "<error reading variable: Cannot access
		   memory at address 0x10>".  */
		char msg[96];
		snprintf(msg, sizeof(msg),
			 "<error reading variable: Cannot access memory at address 0x%" PRIx64 ">",
			 sg_error_address(rerr));
		sg_lite_puts(b, msg);
		sg_error_destroy(rerr);
		return;
	}
	sg_error_destroy(rerr);
	snprintf(tmp, sizeof(tmp), "@0x%" PRIx64, addr);
	sg_lite_puts(b, tmp);
	if (depth == 0 && typed) {
		sg_lite_puts(b, ": ");
		put_value(p, &target, false, depth + 1, b);
	}
}

/* gdb's name of the data member at byte OFFSET of class CLS, searching
   its bases too: "&Base::x", new string; NULL if none starts there.  */
static char *member_at(struct sg_target *t, Dwarf_Die *cls, uint64_t offset, int depth)
{
	Dwarf_Die full, m, mt;
	sg_type_complete(t, cls, &full);
	if (depth > MAX_VALUE_DEPTH || dwarf_child(&full, &m) != 0)
		return NULL;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off = 0;
		int tag = dwarf_tag(&m);
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_attr(&m, DW_AT_bit_size, &a) || dwarf_attr(&m, DW_AT_declaration, &a))
			continue;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off) != 0)
			continue;	/* a virtual base */
		const char *mn = dwarf_diename(&m);
		if (tag == DW_TAG_member && off == offset && mn) {
			char *q = qualified_name(&full), *ret;
			if (asprintf(&ret, "&%s::%s", q ? q : "?", mn) < 0)
				ret = NULL;
			free(q);
			return ret;
		}
		if (tag == DW_TAG_inheritance && off <= offset && sg_die_type(&m, &mt)) {
			char *ret = member_at(t, &mt, offset - off, depth + 1);
			if (ret)
				return ret;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return NULL;
}

/* The method of class CLS in vtable slot INDEX, for a this-adjustment
   ADJ: CLS's own for 0, else one of its non-virtual bases' at that
   offset, as gdb looks for it; "B::f(int)", new string, or NULL.  */
static char *virtual_method(struct sg_target *t, Dwarf_Die *cls, uint64_t index, int64_t adj,
			    int depth)
{
	Dwarf_Die full, m;
	sg_type_complete(t, cls, &full);
	if (depth > MAX_VALUE_DEPTH)
		return NULL;
	/* Its own methods first, then the bases.  */
	for (int pass = 0; pass < 2; pass++) {
		if (dwarf_child(&full, &m) != 0)
			return NULL;
		do {
			Dwarf_Attribute a;
			Dwarf_Op *ops;
			size_t nops;
			Dwarf_Word off = 0;
			Dwarf_Die bt;
			int tag = dwarf_tag(&m);
			if (pass == 0 && tag == DW_TAG_subprogram && adj == 0 &&
			    dwarf_attr(&m, DW_AT_vtable_elem_location, &a) &&
			    dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 &&
			    ops[0].atom == DW_OP_constu && ops[0].number == index)
				return cplus_function_name(&m, false);
			if (pass == 1 && tag == DW_TAG_inheritance && !is_virtual_base(&m) &&
			    sg_die_type(&m, &bt) && dwarf_attr(&m, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &off) == 0 && adj >= (int64_t)off &&
			    adj < (int64_t)(off + type_size(&bt)))
				return virtual_method(t, &bt, index, adj - (int64_t)off, depth + 1);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	return NULL;
}

/* A pointer to member: to a method, "(TYPE) 0x... <Class::f()>" (a
   { function, this-adjustment } pair); to data, the member's offset,
   NULL for -1.  */
static void put_member_pointer(struct printer *p, Dwarf_Die *type, const struct val *v,
			       struct sg_buf_lite *b)
{
	Dwarf_Die target, st;
	bool method = sg_die_type(type, &target) && (sg_type_strip(&target, &st),
						   dwarf_tag(&st) == DW_TAG_subroutine_type);
	uint64_t raw = 0;
	struct sg_error *err = read_value(p->t, v, &raw, 8);
	if (err) {
		put_error(p, err, b);
		return;
	}
	char tmp[48];
	if (!method) {
		Dwarf_Attribute a;
		Dwarf_Die cls;
		char *name = NULL;
		if (raw != UINT64_MAX && !p->json && !p->fmt &&
		    dwarf_attr(type, DW_AT_containing_type, &a) && dwarf_formref_die(&a, &cls))
			name = member_at(p->t, &cls, raw, 0);
		if (raw == UINT64_MAX)
			put_leaf(p, "NULL", b);
		else if (name)
			put_leaf(p, name, b);
		else
			put_int(p, raw, 8, true, false, b);
		free(name);
		return;
	}
	if (p->json) {
		sg_out_hex(p->json, take_key(p), raw);
		return;
	}
	/* Itanium ABI: { ptr, this-adjustment }; an odd ptr is 1 + the
	   function's offset in the vtable.  */
	int64_t adj = 0;
	unsigned char pair[16];
	err = read_value(p->t, v, pair, sizeof(pair));
	if (err)
		sg_error_destroy(err);
	else
		memcpy(&adj, pair + 8, 8);
	Dwarf_Attribute a;
	Dwarf_Die cls;
	if (raw == 0 && adj == 0) {
		sg_lite_puts(b, "NULL");
	} else if (raw & 1) {
		char *name = dwarf_attr(type, DW_AT_containing_type, &a) && dwarf_formref_die(&a, &cls)
				     ? virtual_method(p->t, &cls, (raw - 1) / 8, adj, 0) : NULL;
		if (name)
			sg_lite_puts(b, "&virtual ");
		else
			snprintf(tmp, sizeof(tmp), "&virtual table offset %" PRIu64, raw - 1);
		sg_lite_puts(b, name ? name : tmp);
		free(name);
		if (name)
			return;
	} else {
		char *ts = sg_type_string_lang((Dwarf_Die *)&v->type, "", p->cplus);
		snprintf(tmp, sizeof(tmp), ") 0x%" PRIx64, raw);
		sg_lite_putc(b, '(');
		sg_lite_puts(b, ts ? ts : "?");
		sg_lite_puts(b, tmp);
		free(ts);
		put_symbol(p->t, raw, false, b);
	}
	if (adj) {
		snprintf(tmp, sizeof(tmp), ", this adjustment %" PRId64, adj);
		sg_lite_puts(b, tmp);
	}
}

/* What gdb makes of an enum from its enumerators: it reads the enum as
   signed when one of them is negative, and takes it for a flag enum when
   each is 0 or a single bit (duplicates allowed), none negative.  */
struct enum_kind {
	bool is_signed;
	bool flags;
};

/* Enumerator E's value cut to MASK, the enum's size.  Negative by the
   sign of the enum's underlying type when DWARF names one (GCC writes
   0x80000000 of an unsigned enum as data4), else by the constant's.  */
static bool enumerator_value(Dwarf_Die *e, uint64_t mask, int base_signed, uint64_t *ret,
			     bool *neg)
{
	Dwarf_Attribute a;
	Dwarf_Sword ev;
	if (dwarf_tag(e) != DW_TAG_enumerator || !dwarf_attr(e, DW_AT_const_value, &a) ||
	    dwarf_formsdata(&a, &ev) != 0)
		return false;
	*ret = (uint64_t)ev & mask;
	uint64_t sign = (mask >> 1) + 1;
	*neg = base_signed < 0 ? ev < 0 : base_signed && (*ret & sign);
	return true;
}

/* 1 if the enum's underlying type is signed, 0 if unsigned, -1 if DWARF
   names none.  */
static int enum_base_signed(Dwarf_Die *full)
{
	Dwarf_Die base;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	if (!sg_die_type(full, &base))
		return -1;
	strip(&base, &base);
	if (dwarf_attr(&base, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* gdb's prefix of an enumerator of FULL in C++ (QUALIFIED): the enum's
   scope for an enum class ("Mode::"), else the enclosing one ("ns::").  */
static char *enumerator_prefix(Dwarf_Die *full, bool qualified)
{
	Dwarf_Attribute a;
	char *q = qualified && sg_die_is_cplus(full) ? qualified_name(full) : NULL, *ret;
	if (!q)
		return strdup("");
	if (dwarf_attr(full, DW_AT_enum_class, &a)) {
		if (asprintf(&ret, "%s::", q) < 0)
			ret = NULL;
		free(q);
		return ret;
	}
	char *cut = strrchr(q, ':');
	if (cut)
		cut[1] = '\0';
	else
		q[0] = '\0';
	return q;
}

/* RAW, a value of SIZE bytes of ENUM_TYPE, as gdb writes it: its
   enumerator's name, or for a flag enum its bits "(A | C | unknown: 0x8)"
   and "0".  NULL when it is a plain number; *KIND says how to print it.
   QUALIFIED: names in their C++ scope.  NAME_ONLY: no flag notation.  */
static char *enum_text(struct sg_target *t, Dwarf_Die *enum_type, uint64_t raw, size_t size,
		       bool qualified, bool name_only, struct enum_kind *kind)
{
	Dwarf_Die full, e;
	sg_type_complete(t, enum_type, &full);
	*kind = (struct enum_kind){ .flags = true };
	uint64_t mask = size && size < 8 ? (UINT64_C(1) << (size * 8)) - 1 : UINT64_MAX;
	int base_signed = enum_base_signed(&full);
	const char *match = NULL;
	bool any = dwarf_child(&full, &e) == 0;
	for (bool more = any; more; more = dwarf_siblingof(&e, &e) == 0) {
		uint64_t ev;
		bool neg;
		if (!enumerator_value(&e, mask, base_signed, &ev, &neg))
			continue;
		if (!match && ev == (raw & mask))
			match = dwarf_diename(&e);
		kind->is_signed |= neg;
		if (neg || (ev & (ev - 1)))
			kind->flags = false;
	}
	kind->flags &= !name_only;
	if (!match && !kind->flags)
		return NULL;
	char *prefix = enumerator_prefix(&full, qualified);
	struct sg_buf_lite b = { 0 };
	if (match) {
		sg_lite_puts(&b, prefix);
		sg_lite_puts(&b, match);
	} else if (!(raw & mask)) {
		sg_lite_puts(&b, "0");
	} else {
		/* Each enumerator's bit once, in declaration order.  */
		uint64_t rest = raw & mask;
		bool first = true;
		dwarf_child(&full, &e);
		for (bool more = any; more; more = dwarf_siblingof(&e, &e) == 0) {
			uint64_t ev;
			bool neg;
			const char *en = dwarf_diename(&e);
			if (!enumerator_value(&e, mask, base_signed, &ev, &neg) || !(rest & ev))
				continue;
			rest &= ~ev;
			sg_lite_puts(&b, first ? "(" : " | ");
			sg_lite_puts(&b, prefix);
			sg_lite_puts(&b, en ? en : "?");
			first = false;
		}
		char tmp[40];
		if (rest)
			snprintf(tmp, sizeof(tmp), "%sunknown: 0x%" PRIx64 ")", first ? "(" : " | ", rest);
		else
			snprintf(tmp, sizeof(tmp), ")");
		sg_lite_puts(&b, tmp);
	}
	free(prefix);
	return b.s;
}

/* The wide string at ADDR (units of SIZE bytes up to a NUL, at most
   print elements), as after a wchar_t pointer: L"...", with "..." when
   cut.  */
static void put_wide_string_at(struct printer *p, uint64_t addr, const char *prefix, size_t size,
			       struct sg_buf_lite *b)
{
	size_t cap = p->limit + 1, n = 0;
	unsigned char *raw = size == 2 || size == 4 ? malloc(cap * size) : NULL;
	if (!raw) {
		put_error(p, &sg_enomem, b);
		return;
	}
	struct sg_error *err = NULL;
	for (; n < cap; n++) {
		uint32_t c = 0;
		if ((err = sg_target_read(p->t, addr + n * size, raw + n * size, size)))
			break;
		memcpy(&c, raw + n * size, size);
		if (!c)
			break;
	}
	if (err && n == 0) {
		put_error(p, err, b);
	} else {
		sg_error_destroy(err);
		uint32_t *u = malloc((n + 1) * sizeof(*u));
		if (u) {
			/* No terminator to drop: put_chars drops a last NUL.  */
			size_t k = wide_decode(raw, n, size, u);
			u[k++] = 0;
			put_chars(p, u, k, true, prefix, b);
		}
		free(u);
	}
	free(raw);
}

/* Whether print leaves out "(T *) " before a pointer to TARGET, as gdb
   does for strings: char (const or not, not through a typedef), wchar_t,
   char16_t and char32_t; not signed or unsigned char, nor char8_t.  */
static bool bare_string_pointer(Dwarf_Die *target)
{
	Dwarf_Die t = *target, next;
	for (int i = 0; i < MAX_TYPE_DEPTH && (dwarf_tag(&t) == DW_TAG_const_type ||
					       dwarf_tag(&t) == DW_TAG_volatile_type); i++)
		if (!sg_die_type(&t, &next))
			return false;
		else
			t = next;
	const char *name = dwarf_diename(&t);
	return (dwarf_tag(&t) == DW_TAG_base_type && name && !strcmp(name, "char")) ||
	       wide_prefix(&t);
}

/* After a pointer PTR to TARGET: the string it points to, for the char
   types (" \"abc\"", " L\"abc\"").  */
static void put_pointed_string(struct printer *p, Dwarf_Die *target, uint64_t ptr,
			       struct sg_buf_lite *b)
{
	const char *wide = wide_prefix(target);
	if (!ptr)
		return;
	if (wide) {
		sg_lite_putc(b, ' ');
		put_wide_string_at(p, ptr, wide, type_size(target), b);
	} else if (is_char_type(target)) {
		put_string_at(p, ptr, b);
	}
}

/* A bit field of enum type ENUM_TYPE (SIZE bytes): BITS wide, signed
   when an enumerator is negative, as gdb reads it; then as any enum.  */
static void put_enum_bits(struct printer *p, Dwarf_Die *enum_type, uint64_t val, uint64_t bits,
			  uint64_t size, struct sg_buf_lite *b)
{
	struct enum_kind kind;
	char *name = enum_text(p->t, enum_type, val, size, !p->json, p->json, &kind);
	if (kind.is_signed && bits && bits < 64 && (val >> (bits - 1)) & 1) {
		free(name);
		val |= ~((UINT64_C(1) << bits) - 1);
		name = enum_text(p->t, enum_type, val, size, !p->json, p->json, &kind);
	}
	if (name)
		put_leaf(p, name, b);
	else
		put_int(p, val, size && size < 8 ? size : 8, kind.is_signed, false, b);
	free(name);
}

/* "0x" and V in hex, as "0x%" PRIx64 (without snprintf: a backtrace
   prints many pointers).  */
static void put_hex(uint64_t v, struct sg_buf_lite *b)
{
	char tmp[19];
	char *q = tmp + sizeof(tmp);
	*--q = 0;
	do
		*--q = "0123456789abcdef"[v & 0xf];
	while ((v >>= 4));
	*--q = 'x';
	*--q = '0';
	sg_lite_puts(b, q);
}

static void put_value(struct printer *p, const struct val *v, bool top, int depth,
		      struct sg_buf_lite *b)
{
	if (depth > MAX_VALUE_DEPTH || p->values >= MAX_VALUES) {
		/* Nested too deep, or too many values in all: hostile DWARF
		   (a struct holding arrays of itself) could ask for k^16.  */
		if (p->json)
			put_special(p, "error", depth > MAX_VALUE_DEPTH ? "<error: nested too deep>"
								   : "<error: too many values>", b);
		else
			sg_lite_puts(b, "...");
		return;
	}
	p->values++;
	Dwarf_Die t;
	strip((Dwarf_Die *)&v->type, &t);
	int tag = dwarf_tag(&t);
	size_t size = type_size(&t);
	Dwarf_Attribute a;
	/* As gdb: a value wholly optimized out, or a scalar any byte of
	   which is; a scalar past the location's pieces.  */
	bool aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			 tag == DW_TAG_union_type || tag == DW_TAG_array_type;
	int state = aggregate ? VAL_KNOWN : val_state(v, 0, size);
	/* A base class subobject is walked even when all its bytes are
	   lost (an empty base's one byte): gdb checks members, not bases. */
	if ((val_all_lost(v, size) && !(aggregate && p->as_base)) || state == VAL_LOST) {
		put_lost(p, b);
		return;
	}
	if (state == VAL_UNCOVERED) {
		put_special(p, "unavailable", "<synthetic pointer>", b);
		return;
	}
	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (!p->raw && (v->lvalue || (!v->too_large && !v->synthetic_ptr)) &&
		    put_with_reader(p, &t, v, depth, b))
			return;
		if (p->summary)
			sg_lite_puts(b, "...");
		else
			put_aggregate(p, &t, v, depth, b);
		return;
	case DW_TAG_array_type:
		if (p->summary)
			sg_lite_puts(b, "...");
		else
			put_array(p, &t, v, depth, b);
		return;
	case DW_TAG_pointer_type: {
		if (v->synthetic_ptr) {
			put_special(p, "unavailable", "<synthetic pointer>", b);
			return;
		}
		uint64_t ptr = 0;
		struct sg_error *err = read_value(p->t, v, &ptr, 8);
		if (err) {
			put_error(p, err, b);
			return;
		}
		Dwarf_Die target;
		struct base_info bi;
		bool has_target = sg_die_type(&t, &target);
		bool base = has_target && (!p->fmt || p->fmt == 's') && base_info(&target, &bi);
		const char *wide = base ? wide_info(&bi) : NULL;
		bool chars = base && (char_info(&bi) || wide);
		if (p->fmt == 'f') {
			put_float(p, (unsigned char *)&ptr, 8, b);
			return;
		}
		if (p->fmt && p->fmt != 's') {
			/* print/x and the like: the address as a number; gdb
			   still names a vtable pointer's target.  */
			bool vptr = p->vptr && p->fmt != 'a';
			put_int(p, ptr, 8, false, false, b);
			if (vptr && !p->json)
				put_symbol(p->t, ptr, false, b);
			return;
		}
		if (p->json && wide && ptr) {
			put_wide_string_at(p, ptr, wide, type_size(&target), b);
			return;
		}
		if (p->json) {
			/* A char pointer is its string; others their address.  */
			put_pointer_json(p, ptr, chars);
			return;
		}
		if (top && !(chars && bare_string_pointer(&target))) {
			char *ts = sg_type_string_lang((Dwarf_Die *)&v->type, "", p->cplus);
			sg_lite_putc(b, '(');
			sg_lite_puts(b, ts);
			sg_lite_puts(b, ") ");
			free(ts);
		}
		put_hex(ptr, b);
		put_symbol(p->t, ptr, false, b);
		if (chars)
			put_pointed_string(p, &target, ptr, b);
		return;
	}
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		put_reference(p, &t, v, top, depth, b);
		return;
	case DW_TAG_ptr_to_member_type:
		put_member_pointer(p, &t, v, b);
		return;
	case DW_TAG_subroutine_type:
		if (v->lvalue) {
			/* A function a pointer led to: {int (int)} 0x... <twice>.  */
			char *ts = sg_type_string_lang((Dwarf_Die *)&v->type, "", p->cplus), tmp[40];
			snprintf(tmp, sizeof(tmp), "} 0x%" PRIx64, v->address);
			if (p->json) {
				sg_out_hex(p->json, take_key(p), v->address);
			} else {
				sg_lite_putc(b, '{');
				sg_lite_puts(b, ts ? ts : "?");
				sg_lite_puts(b, tmp);
				put_symbol(p->t, v->address, false, b);
			}
			free(ts);
			return;
		}
		put_special(p, "error", "<error: a function that is not in memory>", b);
		return;
	case DW_TAG_enumeration_type: {
		uint64_t raw = 0;
		struct sg_error *err = read_value(p->t, v, &raw, size <= 8 ? size : 8);
		if (err) {
			put_error(p, err, b);
			return;
		}
		if (p->fmt == 'f' && (size == 4 || size == 8)) {
			put_float(p, (unsigned char *)&raw, size, b);
			return;
		}
		/* JSON: an enumerator's name, else the number (a flag enum's
		   bits too).  */
		struct enum_kind kind;
		char *name = enum_text(p->t, &t, raw, size, !p->json, p->json, &kind);
		if (name && (!p->fmt || p->fmt == 's')) {
			put_leaf(p, name, b);
			free(name);
			return;
		}
		free(name);
		put_int(p, raw, size, kind.is_signed, false, b);
		return;
	}
	case DW_TAG_base_type: {
		Dwarf_Word enc = 0;
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		unsigned char raw[32] = { 0 };
		struct sg_error *err = read_value(p->t, v, raw, size <= 32 ? size : 32);
		if (err) {
			put_error(p, err, b);
			return;
		}
		if (enc == DW_ATE_complex_float && (size == 8 || size == 16 || size == 32) &&
		    (!p->fmt || p->fmt == 'f' || p->fmt == 's')) {
			put_complex(p, raw, size / 2, b);
			return;
		}
		if (enc == DW_ATE_float && size == 16 && p->fmt && strchr("xotzdu", p->fmt)) {
			/* gdb formats an x87 long double's 80 bits as an
			   integer (/z pads them to 16 bytes).  */
			memset(raw + 10, 0, 6);
			put_int128(p, raw, false, b);
			return;
		}
		if (size == 16 && enc != DW_ATE_float) {
			/* __int128, and a double complex in print/x: gdb
			   formats all 16 bytes as one integer.  */
			put_int128(p, raw, enc == DW_ATE_signed, b);
			return;
		}
		if (enc == DW_ATE_float && (!p->fmt || p->fmt == 'f' || p->fmt == 's')) {
			put_float(p, raw, size, b);
			return;
		}
		if (enc == DW_ATE_float && (p->fmt == 'c' || p->fmt == 'a')) {
			/* print/c and /a convert the value; the others show its
			   bits.  */
			put_int(p, (uint64_t)float_to_longest(raw, size), p->fmt == 'a' ? 8 : 4, true,
				false, b);
			return;
		}
		if (enc == DW_ATE_boolean && (!p->fmt || p->fmt == 's') && raw[0] <= 1) {
			/* gdb prints a bool holding another byte as its number. */
			if (p->json)
				sg_out_bool(p->json, take_key(p), raw[0]);
			else
				sg_lite_puts(b, raw[0] ? "true" : "false");
			return;
		}
		if (p->fmt == 'f' && (size == 4 || size == 8)) {
			/* print/f reads an integer's bits as a float of its size. */
			put_float(p, raw, size, b);
			return;
		}
		uint64_t u = 0;
		memcpy(&u, raw, size < 8 ? size : 8);
		bool is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		struct base_info bi;
		bool base = base_info(&t, &bi);	/* T is a base type: true */
		const char *wide = base ? wide_info(&bi) : NULL;
		if (wide && !p->fmt && !p->json) {
			/* 120 L'x' */
			put_int(p, u, size, is_signed, false, b);
			sg_lite_puts(b, " ");
			sg_lite_puts(b, wide);
			sg_lite_putc(b, '\'');
			if (u == 0)
				sg_lite_puts(b, "\\000");
			else
				escape_wide(b, (uint32_t)u, '\'');
			sg_lite_putc(b, '\'');
			return;
		}
		put_int(p, u, size, is_signed, base && char_info(&bi), b);
		return;
	}
	case DW_TAG_unspecified_type:
		/* std::nullptr_t, which gdb takes for void.  */
		put_special(p, "unavailable", "<incomplete type>", b);
		return;
	default: {
		char *ts = type_string((Dwarf_Die *)&v->type, ""), *text;
		if (asprintf(&text, "<unsupported type %s>", ts ? ts : "?") >= 0) {
			put_special(p, "error", text, b);
			free(text);
		}
		free(ts);
	}
	}
}

/* ---- whole values ---- */

/* gdb spells types in the selected frame's language: C++ when the
   frame's compilation unit is C++; C without a thread, frame or DWARF.  */
const struct sg_frame *selected_frame(struct sg_session *s)
{
	struct sg_stack *st;
	if (!sg_session_thread(s))
		return NULL;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err) {
		sg_error_destroy(err);
		return NULL;
	}
	return sg_stack_frame(st, sg_session_frame(s));
}

bool sg_frame_cplus(struct sg_session *s)
{
	const struct sg_frame *f = selected_frame(s);
	return f && f->scopes && f->scope_fn >= 0 && f->scope_fn < f->nscopes &&
	       sg_die_is_cplus((Dwarf_Die *)&f->scopes[f->scope_fn]);
}

/* The declared type of X as text ("struct point *" for &g_pt).  */
char *sg_xval_type(struct xval *x, bool cplus)
{
	if (x->is_void)
		return strdup("void");
	if (x->reg == REG_CODE)
		return strdup("void (*)()");
	if (x->type_name)
		return strdup(x->type_name);
	if (x->repeat) {
		char *elem = sg_type_string_lang(&x->v.type, "", cplus), *ret;
		size_t n = elem ? strlen(elem) : 0;
		if (asprintf(&ret, "%s%s[%" PRIu64 "]", elem ? elem : "?",
			     n && elem[n - 1] == '*' ? "" : " ", x->repeat) < 0)
			ret = NULL;
		free(elem);
		return ret;
	}
	char stars[MAX_TYPE_DEPTH + 3];
	int n = x->ptr_depth < MAX_TYPE_DEPTH ? x->ptr_depth : MAX_TYPE_DEPTH;
	memset(stars, '*', n);
	stars[n] = '\0';
	Dwarf_Die base;
	if (!x->void_base && !x->function)
		strip(&x->v.type, &base);
	if (n && ((!x->void_base && !x->function && dwarf_tag(&base) == DW_TAG_array_type) ||
		  x->function)) {
		/* A pointer to a function or an array: "int (*)(void)",
		   "int (*)[2]".  */
		memmove(stars + 1, stars, n + 1);
		stars[0] = '(';
		strcat(stars, ")");
	}
	return sg_type_string_lang(x->void_base ? NULL : &x->v.type, stars, cplus);
}

/* A value that cannot be read at all is an error, as in gdb, not a
   printed "<error: ...>".  */
static struct sg_error *probe_value(struct sg_target *t, struct xval *x)
{
	if (x->v.too_large && x->v.constant && !x->ptr_depth)
		return val_too_large(&x->v);
	Dwarf_Die st;
	strip(&x->v.type, &st);
	int tag = dwarf_tag(&st);
	if (!x->v.lvalue || x->ptr_depth || tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	    tag == DW_TAG_array_type || tag == DW_TAG_class_type)
		return NULL;
	if (tag == DW_TAG_unspecified_type)
		return sg_error_format(SG_ERROR_OTHER, NO_VOID_VALUE);
	unsigned char probe;
	struct sg_error *err = sg_target_read(t, x->v.address, &probe, 1);
	if (err && sg_error_code(err) == SG_ERROR_FAULT) {
		uint64_t bad = sg_error_address(err);
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64, bad);
	}
	return err;
}

static void printer_init(struct printer *p, struct sg_session *s, struct sg_target *t, char fmt, bool raw,
			 bool cplus)
{
	*p = (struct printer){ .s = s, .t = t, .fmt = fmt, .raw = raw };
	uint64_t limit = sg_setting_uint(s, "print elements", 200);
	p->limit = limit == 0 || limit > MAX_VALUES ? MAX_VALUES : limit;
	p->pretty = sg_setting_uint(s, "print pretty", 0) != 0;
	p->cplus = cplus;
}

/* TOP: a value printed by itself, whose pointers show their type, as in
   print; info locals shows them bare.  */
struct sg_error *sg_format_xval(struct sg_session *s, struct sg_target *t, struct xval *x, char fmt,
			      bool raw, bool cplus, bool top, char **ret)
{
	if (x->is_void) {
		*ret = strdup("void");
		return *ret ? NULL : &sg_enomem;
	}
	struct printer p;
	printer_init(&p, s, t, fmt, raw, cplus);
	struct sg_buf_lite b = { 0 };
	if (x->ptr_depth && fmt && fmt != 's' && fmt != 'a') {
		if (fmt == 'f')
			put_float(&p, (unsigned char *)&x->v.bits, 8, &b);
		else
			put_int(&p, x->v.bits, 8, false, false, &b);
		*ret = b.s;
		return NULL;
	}
	if (x->ptr_depth) {
		char tmp[40];
		/* &c of a char c: gdb shows the string there.  */
		bool text = x->ptr_depth == 1 && !x->function && !x->void_base && !x->type_name &&
			    (!fmt || fmt == 's') &&
			    (is_char_type(&x->v.type) || wide_prefix(&x->v.type));
		if ((!fmt || fmt == 's') && !(text && bare_string_pointer(&x->v.type))) {
			char *ts = sg_xval_type(x, p.cplus);
			sg_lite_putc(&b, '(');
			sg_lite_puts(&b, ts);
			sg_lite_puts(&b, ") ");
			free(ts);
		}
		snprintf(tmp, sizeof(tmp), "0x%" PRIx64, x->v.bits);
		sg_lite_puts(&b, tmp);
		if (!fmt || fmt == 'a' || fmt == 's')
			put_symbol(t, x->v.bits, fmt == 'a', &b);
		if (text)
			put_pointed_string(&p, &x->v.type, x->v.bits, &b);
		*ret = b.s;
		return NULL;
	}
	if (x->function && !x->ptr_depth) {
		/* gdb: {int (int, char **)} 0x55... <main>.  */
		unsigned char code;
		if (fmt && fmt != 's' && fmt != 'a') {
			/* gdb formats a function's value: its first byte.  */
			struct sg_error *err = sg_target_read(t, x->v.address, &code, 1);
			if (err)
				return err;
			put_int(&p, code, 1, false, false, &b);
		} else {
			char *ts = sg_type_string_lang(&x->v.type, "", p.cplus), tmp[40];
			sg_lite_putc(&b, '{');
			sg_lite_puts(&b, ts ? ts : "?");
			snprintf(tmp, sizeof(tmp), "} 0x%" PRIx64, x->v.address);
			sg_lite_puts(&b, tmp);
			free(ts);
			put_symbol(t, x->v.address, false, &b);
		}
		*ret = b.s;
		return NULL;
	}
	if (x->reg == REG_EFLAGS && (!fmt || fmt == 's')) {
		char flags[128];
		sg_eflags_text(x->v.bits, flags, sizeof(flags));
		*ret = strdup(flags);
		return *ret ? NULL : &sg_enomem;
	}
	struct sg_error *err = probe_value(t, x);
	if (err)
		return err;
	if (x->repeat)
		put_elements(&p, &x->v.type, &x->v, &x->repeat, 1, 0, &b);
	else
		put_value(&p, &x->v, top, 0, &b);
	*ret = b.s ? b.s : strdup("");
	return NULL;
}

/* X as a frame line shows an argument: on one line whatever "print
   pretty" says, and with SUMMARY (gdb's "print frame-arguments scalars")
   scalars in full, a value with a typed reader as its summary and
   "{...}", other aggregates (and references to them) as "...".  */
struct sg_error *sg_format_frame_arg(struct sg_session *s, struct sg_target *t, struct xval *x, bool cplus,
				  bool summary, char **ret)
{
	struct printer p;
	printer_init(&p, s, t, 0, false, cplus);
	p.summary = summary;
	p.frame_pretty = p.pretty;
	p.pretty = false;
	struct sg_error *err = probe_value(t, x);
	if (err)
		return err;
	struct sg_buf_lite b = { 0 };
	put_value(&p, &x->v, false, 0, &b);
	*ret = b.s ? b.s : strdup("");
	return *ret ? NULL : &sg_enomem;
}

/* X as the JSON member KEY of OUT: structs are objects, arrays and
   sequences arrays, maps arrays of {"key","value"}, strings strings.  */
void sg_json_xval(struct sg_session *s, struct sg_target *t, struct xval *x, char fmt, bool raw,
		bool cplus, struct sg_out *out, const char *key)
{
	if (x->is_void) {
		sg_out_null(out, key);
		return;
	}
	struct printer p;
	printer_init(&p, s, t, fmt, raw, cplus);
	p.json = out;
	p.key = key;
	if (x->ptr_depth || x->function) {
		sg_out_hex(out, key, x->ptr_depth ? x->v.bits : x->v.address);
		return;
	}
	struct sg_buf_lite scratch = { 0 };	/* text that JSON leaves out */
	if (x->repeat)
		put_elements(&p, &x->v.type, &x->v, &x->repeat, 1, 0, &scratch);
	else
		put_value(&p, &x->v, true, 0, &scratch);
	free(scratch.s);
}
