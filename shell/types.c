/* Types as gdb writes them: C declarations ("char *(*)[4]"), ptype's
   bodies, and the small DWARF type helpers the value printer shares.  */
#include <config.h>
#include "data.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

void strip(Dwarf_Die *in, Dwarf_Die *out)
{
	sg_type_strip(in, out);
}

uint64_t type_size(Dwarf_Die *type)
{
	return sg_type_size(type);
}

bool is_cplus(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	int lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* DIE's name with its C++ scopes ("ns::Derived"), into a new string; the
   plain name in C.  NULL for an unnamed DIE.  */
char *qualified_name(Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	if (!name)
		return NULL;
	return is_cplus(die) ? sg_type_qualified_name(die) : strdup(name);
}

static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type: return "struct ";
	case DW_TAG_class_type: return "class ";
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	default: return "";
	}
}

static void decl(Dwarf_Die *type, const char *inner, struct sg_buf_lite *b, int depth);

/* GCC names base types "long int", "long unsigned int"; gdb shows them as
   C programmers write them.  */
static const char *gdb_base_name(const char *name)
{
	static const char *const names[][2] = {
		{ "long int", "long" }, { "long unsigned int", "unsigned long" },
		{ "short int", "short" }, { "short unsigned int", "unsigned short" },
		{ "long long int", "long long" }, { "long long unsigned int", "unsigned long long" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return name;
}

static void params(Dwarf_Die *fn, struct sg_buf_lite *b, int depth)
{
	lite_putc(b, '(');
	Dwarf_Die child;
	bool any = false, prototyped = false;
	Dwarf_Attribute a;
	if (dwarf_attr(fn, DW_AT_prototyped, &a))
		dwarf_formflag(&a, &prototyped);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_formal_parameter) {
				if (any)
					lite_puts(b, ", ");
				Dwarf_Die pt;
				if (die_type(&child, &pt))
					decl(&pt, "", b, depth + 1);
				any = true;
			} else if (tag == DW_TAG_unspecified_parameters) {
				lite_puts(b, any ? ", ..." : "...");
				any = true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (!any && prototyped)
		lite_puts(b, "void");
	lite_putc(b, ')');
}

/* The C declaration of INNER (a declarator, maybe empty) with TYPE (NULL
   for void): "int *p", "int a[3]", "int (*fp)(int)", "const char *".  */
static void decl(Dwarf_Die *type, const char *inner, struct sg_buf_lite *b, int depth)
{
	if (depth > MAX_TYPE_DEPTH) {
		lite_puts(b, "...");
		return;
	}
	int tag = type ? dwarf_tag(type) : DW_TAG_unspecified_type;
	Dwarf_Die target, *tp = NULL;
	if (type && die_type(type, &target))
		tp = &target;
	struct sg_buf_lite in = { 0 };
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *mark = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&" : "&&";
		int ttag = tp ? dwarf_tag(tp) : 0;
		bool wrap = ttag == DW_TAG_array_type || ttag == DW_TAG_subroutine_type;
		if (wrap)
			lite_putc(&in, '(');
		lite_puts(&in, mark);
		lite_puts(&in, inner);
		if (wrap)
			lite_putc(&in, ')');
		decl(tp, in.s ? in.s : "", b, depth + 1);
		break;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const char *q = tag == DW_TAG_const_type ? "const" : "volatile";
		int ttag = tp ? dwarf_tag(tp) : 0;
		if (ttag == DW_TAG_pointer_type) {
			/* "char * const p": the qualifier follows the star.  */
			lite_puts(&in, " ");
			lite_puts(&in, q);
			if (*inner) {
				lite_putc(&in, ' ');
				lite_puts(&in, inner);
			}
			decl(tp, in.s ? in.s : "", b, depth + 1);
		} else {
			lite_puts(b, q);
			lite_putc(b, ' ');
			decl(tp, inner, b, depth + 1);
		}
		break;
	}
	case DW_TAG_array_type: {
		lite_puts(&in, inner);
		Dwarf_Die sub;
		if (dwarf_child(type, &sub) == 0) {
			do {
				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				Dwarf_Attribute a;
				Dwarf_Word n = 0;
				char dim[32] = "";
				if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
					snprintf(dim, sizeof(dim), "%" PRIu64, (uint64_t)n);
				else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
					 dwarf_formudata(&a, &n) == 0)
					snprintf(dim, sizeof(dim), "%" PRIu64, (uint64_t)n + 1);
				lite_putc(&in, '[');
				lite_puts(&in, dim);
				lite_putc(&in, ']');
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		/* An abstract array type reads "int [3]", as in gdb.  */
		decl(tp, in.s ? in.s : "", b, depth + 1);
		break;
	}
	case DW_TAG_subroutine_type: {
		lite_puts(&in, inner);
		struct sg_buf_lite p = { 0 };
		params(type, &p, depth);
		lite_puts(&in, p.s ? p.s : "()");
		free(p.s);
		decl(tp, in.s ? in.s : "", b, depth + 1);
		break;
	}
	default: {
		char *qname = type && tag != DW_TAG_base_type ? qualified_name(type) : NULL;
		const char *name = qname ? qname : type ? dwarf_diename(type) : "void";
		if (tag == DW_TAG_base_type && name)
			name = gdb_base_name(name);
		lite_puts(b, tag_keyword(tag));
		lite_puts(b, name ? name : "{...}");
		free(qname);
		if (*inner) {
			lite_putc(b, ' ');
			lite_puts(b, inner);
		}
	}
	}
	free(in.s);
}

char *type_string(Dwarf_Die *type, const char *inner)
{
	struct sg_buf_lite b = { 0 };
	decl(type, inner, &b, 0);
	return b.s ? b.s : strdup("");
}

/* ptype: one level of a struct, union or enum spelled out.  */
static void ptype_body(struct sg_target *t, Dwarf_Die *type, struct sg_buf_lite *b)
{
	Dwarf_Die full;
	sg_type_complete(t, type, &full);
	int tag = dwarf_tag(&full);
	char *name = qualified_name(&full);
	lite_puts(b, tag_keyword(tag));
	if (name) {
		lite_puts(b, name);
		lite_putc(b, ' ');
		free(name);
	}
	Dwarf_Die child;
	if (tag == DW_TAG_enumeration_type) {
		lite_putc(b, '{');
		int64_t next = 0;
		bool first = true;
		if (dwarf_child(&full, &child) == 0) {
			do {
				if (dwarf_tag(&child) != DW_TAG_enumerator)
					continue;
				Dwarf_Attribute a;
				Dwarf_Sword v = 0;
				if (dwarf_attr(&child, DW_AT_const_value, &a))
					dwarf_formsdata(&a, &v);
				lite_puts(b, first ? "" : ", ");
				lite_puts(b, dwarf_diename(&child));
				if (v != next) {
					char num[32];
					snprintf(num, sizeof(num), " = %" PRId64, (int64_t)v);
					lite_puts(b, num);
				}
				next = v + 1;
				first = false;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		lite_putc(b, '}');
		return;
	}
	lite_puts(b, "{\n");
	if (dwarf_child(&full, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_member)
				continue;
			Dwarf_Die mt;
			const char *mname = dwarf_diename(&child);
			char *d = die_type(&child, &mt) ? type_string(&mt, mname ? mname : "")
							 : strdup(mname ? mname : "");
			lite_puts(b, "    ");
			lite_puts(b, d);
			free(d);
			Dwarf_Attribute a;
			Dwarf_Word bits;
			if (dwarf_attr(&child, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bits) == 0) {
				char num[32];
				snprintf(num, sizeof(num), " : %" PRIu64, (uint64_t)bits);
				lite_puts(b, num);
			}
			lite_puts(b, ";\n");
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	lite_putc(b, '}');
}

/* "ptype T": typedefs resolved, the aggregate at the bottom of pointers and
   arrays spelled out, the declarator kept: "struct node {...} *".  */
char *ptype_string(struct sg_target *t, Dwarf_Die *type)
{
	Dwarf_Die cur = *type;
	for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(&cur) == DW_TAG_typedef; i++) {
		Dwarf_Die next;
		if (!die_type(&cur, &next))
			break;
		cur = next;
	}
	Dwarf_Die bottom = cur;
	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(&bottom);
		Dwarf_Die next;
		if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type &&
		     tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) || !die_type(&bottom, &next))
			break;
		bottom = next;
	}
	Dwarf_Die agg;
	strip(&bottom, &agg);
	int tag = dwarf_tag(&agg);
	char *text = type_string(&cur, "");
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_enumeration_type && tag != DW_TAG_class_type)
		return text;
	char *prefix = type_string(&bottom, "");
	const char *qual = "";
	if (!strncmp(prefix, "const ", 6))
		qual = "const ";
	struct sg_buf_lite b = { 0 };
	size_t plen = strlen(prefix);
	if (!strncmp(text, prefix, plen)) {
		lite_puts(&b, qual);
		ptype_body(t, &agg, &b);
		lite_puts(&b, text + plen);
		free(text);
		text = b.s;
	} else {
		free(b.s);
	}
	free(prefix);
	return text;
}

