/* Where gdb 13 puts a breakpoint on a function or a line: after the
   function's prologue, as its skip_prologue_sal and amd64_skip_prologue
   choose it.  info scope takes its block there.

   In order: a line-table row marked prologue_end inside the function
   (clang writes them) wins.  Else the code is read: after "push %rbp;
   mov %rsp,%rbp" (behind an endbr64), and then on to the next line if
   that lands mid-line; a function without that frame setup has no
   prologue to skip.  And gdb trusts GCC's optimized code to have valid
   locations from the first instruction on (a unit with location lists,
   from GCC 4.5 on): there it skips nothing unless prologue_end said so.
   A location already past that address stays where it is.  */
#include <config.h>
#include "internal.h"
#include "scope-info.h"
#include "src-symtab.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Whether a variable or parameter under DIE has a location list.  */
static bool has_loclist(Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    dwarf_attr(&child, DW_AT_location, &a)) {
			unsigned form = dwarf_whatform(&a);
			if (form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
			    form == DW_FORM_data4 || form == DW_FORM_data8)
				return true;
		}
		if (dwarf_haschildren(&child) && has_loclist(&child, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* gdb's cust->locations_valid (): GCC 4.5 or later, and the unit has
   location lists.  */
static bool locations_valid(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));
	if (!p || strncmp(p, "GNU ", 4))
		return false;
	/* "GNU C17 12.2.0 ...": the first word that starts with a digit.  */
	p += 4;
	while (*p && !(*p >= '0' && *p <= '9')) {
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	char *end;
	long major = strtol(p, &end, 10), minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
	if (major < 4 || (major == 4 && minor < 5))
		return false;
	return has_loclist(cu, 0);
}

/* The first row marked prologue_end in [START, END] (DWARF addresses),
   among the rows of the file of START's row: gdb looks in that file's
   line table only, so a mark on an inlined callee's row is not seen.  */
static bool prologue_end_row(Dwarf_Die *cu, Dwarf_Addr start, Dwarf_Addr end, Dwarf_Addr *ret)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return false;
	const char *file = NULL;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		if (dwarf_lineaddr(row, &a) == 0 && a == start) {
			file = dwarf_linesrc(row, NULL, NULL);
			break;
		}
	}
	if (!file)
		return false;
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool pe = false, endseq = false;
		const char *f = dwarf_linesrc(row, NULL, NULL);
		if (dwarf_lineaddr(row, &a) != 0 || a < start || a > end || !f || strcmp(f, file) ||
		    dwarf_lineendsequence(row, &endseq) != 0 || endseq ||
		    dwarf_lineprologueend(row, &pe) != 0 || !pe)
			continue;
		if (!found || a < *ret)
			*ret = a;
		found = true;
	}
	return found;
}

/* Whether ERR is an error; it is freed.  */
static bool failed(struct sg_error *err)
{
	sg_error_destroy(err);
	return err != NULL;
}

/* amd64_analyze_prologue: past "[endbr64] push %rbp; mov %rsp,%rbp",
   or ENTRY itself when the function sets up no frame.  */
static uint64_t analyze(struct sg_target *t, uint64_t entry)
{
	unsigned char b[12];
	if (failed(sg_target_read(t, entry, b, sizeof(b))))
		return entry;
	size_t i = 0;
	if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		i = 4;
	if (b[i] != 0x55)
		return entry;
	const unsigned char *m = b + i + 1;
	if ((m[0] == 0x48 && m[1] == 0x89 && m[2] == 0xe5) || (m[0] == 0x48 && m[1] == 0x8b && m[2] == 0xec))
		return entry + i + 4;
	if ((m[0] == 0x89 && m[1] == 0xe5) || (m[0] == 0x8b && m[1] == 0xec))
		return entry + i + 3;
	return entry;
}

uint64_t sg_skip_prologue(struct sg_target *t, uint64_t pc)
{
	struct sg_module *mod = sg_target_module_at(t, pc);
	Dwarf_Addr bias;
	Dwarf_Die *cu = mod ? sg_frame_cudie(t, mod, pc, &bias) : NULL;
	if (!cu)
		return pc;
	Dwarf_Die *scopes = NULL;
	int n = sg_frame_scopes(cu, pc - bias, &scopes);
	int fn = sg_scopes_subprogram(scopes, n);
	if (fn < 0) {
		free(scopes);
		return pc;
	}
	/* The function's entry (its first range) and the ranges' span.  */
	Dwarf_Addr base, start, end, entry = 0, entry_end = 0, span_end = 0;
	ptrdiff_t off = 0;
	bool first = true;
	while ((off = dwarf_ranges(&scopes[fn], off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (first) {
			entry = start;
			entry_end = end;
			first = false;
		}
		if (end > span_end)
			span_end = end;
	}
	free(scopes);
	if (first)
		return pc;
	uint64_t post = entry + bias;
	Dwarf_Addr pe = 0;
	if (prologue_end_row(cu, entry, entry_end, &pe)) {
		post = pe + bias;
	} else if (!locations_valid(cu)) {
		post = analyze(t, entry + bias);
		struct code_loc loc = { 0 };
		if (!failed(sg_code_loc_at(t, post, &loc))) {
			/* Mid-line: on to the next line, if still in the function.  */
			if (loc.start != post && entry + bias <= loc.end && loc.end < span_end + bias)
				post = loc.end;
			sg_symtab_clear(&loc.sym);
		}
	}
	return pc > post ? pc : post;
}
