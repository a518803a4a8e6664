/* info functions, info variables, info types: gdb's search of every
   unit's global and static blocks, and of the ELF symbols (its minimal
   symbols) that no debugging symbol covers.

   gdb makes a symbol for each definition a unit holds at file scope or in
   a namespace (and in C++, classes nested in classes); this walks the
   same DIEs.  A definition whose declaration is elsewhere (a C++ method
   defined outside its class, a static data member) is named after the
   declaration's scopes.  */
#include <config.h>
#include "lookup.h"
#include "eval.h"

#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>

struct walk {
	struct sg_target *t;
	enum sg_lookup_kind kind;
	const regex_t *re;
	struct sg_lookup *out;
	size_t cap;
	/* Every DWARF definition's names in the current module, matched or
	   not: an ELF symbol with one of them is not listed again.  */
	struct sg_strmap described;
	Dwarf_Die cu;
	const char *cu_file;	/* the unit's own source, as gdb shows it */
	bool cplus, assembler;
	struct sg_error *err;
};

static bool flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr_integrate(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

static bool own_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	return dwarf_attr(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

static const char *string_attr(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, name, &a) ? dwarf_formstring(&a) : NULL;
}

/* The declaration DIE names: DW_AT_specification's or
   DW_AT_abstract_origin's, else DIE itself.  */
static void declaration(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	*ret = *die;
	for (int i = 0; i < 4; i++) {
		if (!dwarf_attr(ret, DW_AT_specification, &a) &&
		    !dwarf_attr(ret, DW_AT_abstract_origin, &a))
			return;
		if (!dwarf_formref_die(&a, ret))
			return;
	}
}

static void remember(struct walk *w, const char *name)
{
	if (name && *name && sg_strmap_get(&w->described, name) == UINT32_MAX &&
	    !sg_strmap_put(&w->described, name, 1))
		w->err = &sg_enomem;
}

static bool add(struct walk *w, Dwarf_Die *die, char *name, bool is_static)
{
	if (!name)
		return !(w->err = &sg_enomem);
	if (w->re && regexec(w->re, name, 0, NULL, 0) != 0) {
		free(name);
		return true;
	}
	if (w->out->nsyms == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct sg_lookup_sym *n = realloc(w->out->syms, cap * sizeof(*n));
		if (!n) {
			free(name);
			return !(w->err = &sg_enomem);
		}
		w->out->syms = n;
		w->cap = cap;
	}
	struct sg_lookup_sym *s = &w->out->syms[w->out->nsyms++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->die = *die;
	s->is_static = is_static;
	s->cplus = w->cplus;
	s->assembler = w->assembler;
	int line = 0;
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		s->line = (unsigned)line;
	/* A type without a declaration's place (a base type) belongs to the
	   unit's own file.  */
	const char *file = dwarf_decl_file(die);
	s->file = file ? sg_display_path(&w->cu, file) : w->cu_file;
	if (!s->file)
		s->file = "";
	return true;
}

static char *scoped(const char *prefix, const char *name)
{
	char *s;
	return asprintf(&s, "%s%s", prefix, name) < 0 ? NULL : s;
}

/* gdb names a symbol after its linkage name where it has one: demangled
   with the parameters in C++ ("ns::Base::get() const"), as it is in C
   (glibc's "__GI___libc_malloc").  New string, NULL without one.  */
static char *linkage_name(struct walk *w, Dwarf_Die *die)
{
	const char *linkage = string_attr(die, DW_AT_linkage_name);
	if (!linkage)
		linkage = string_attr(die, DW_AT_MIPS_linkage_name);
	if (!linkage)
		return NULL;
	char *d = w->cplus ? sg_demangle(linkage, true) : NULL;
	return d ? d : strdup(linkage);
}

static void function(struct walk *w, Dwarf_Die *die)
{
	if (own_flag(die, DW_AT_declaration) ||
	    (!dwarf_hasattr(die, DW_AT_low_pc) && !dwarf_hasattr(die, DW_AT_ranges)))
		return;
	remember(w, string_attr(die, DW_AT_linkage_name));
	remember(w, string_attr(die, DW_AT_name));
	if (w->kind != SG_LOOKUP_FUNCTIONS)
		return;
	char *name = linkage_name(w, die);
	if (!name) {
		const char *n = w->cplus ? sg_die_function_name(w->t, die)
					 : string_attr(die, DW_AT_name);
		if (!n)
			return;
		name = strdup(n);
	}
	add(w, die, name, !flag(die, DW_AT_external));
}

static void variable(struct walk *w, Dwarf_Die *die, const char *prefix)
{
	if (own_flag(die, DW_AT_declaration))
		return;
	bool external = flag(die, DW_AT_external);
	bool located = dwarf_hasattr(die, DW_AT_location) || dwarf_hasattr(die, DW_AT_const_value);
	const char *plain = string_attr(die, DW_AT_name);
	remember(w, string_attr(die, DW_AT_linkage_name));
	remember(w, plain);
	/* An external variable without a place is gdb's LOC_UNRESOLVED,
	   which it does not list; a static one is optimized out, listed.  */
	if (w->kind != SG_LOOKUP_VARIABLES || !plain || (external && !located))
		return;
	char *name = linkage_name(w, die);
	Dwarf_Die decl;
	declaration(die, &decl);
	if (name)
		;
	else if (decl.addr != die->addr && w->cplus)
		name = sg_type_qualified_name(&decl);
	else
		name = w->cplus ? scoped(prefix, plain) : strdup(plain);
	add(w, die, name, !external);
}

static bool type_tag(int tag)
{
	return tag == DW_TAG_base_type || tag == DW_TAG_typedef || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static void type(struct walk *w, Dwarf_Die *die, int tag, const char *prefix)
{
	const char *plain = dwarf_diename(die);
	if (!plain || own_flag(die, DW_AT_declaration))
		return;
	/* gdb puts a C++ class or enum in the global block, every other
	   type in the static one.  */
	bool global = w->cplus && tag != DW_TAG_base_type && tag != DW_TAG_typedef;
	add(w, die, w->cplus && tag != DW_TAG_base_type ? scoped(prefix, plain) : strdup(plain),
	    !global);
}

static void walk_children(struct walk *w, Dwarf_Die *parent, const char *prefix, int depth)
{
	Dwarf_Die child;
	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			function(w, &child);
		} else if (tag == DW_TAG_variable) {
			variable(w, &child, prefix);
		} else if (tag == DW_TAG_namespace && w->cplus) {
			const char *n = dwarf_diename(&child);
			char *p;
			if (asprintf(&p, "%s%s::", prefix, n ? n : "(anonymous namespace)") < 0) {
				w->err = &sg_enomem;
				return;
			}
			walk_children(w, &child, p, depth + 1);
			free(p);
		} else if (type_tag(tag)) {
			if (w->kind == SG_LOOKUP_TYPES)
				type(w, &child, tag, prefix);
			/* Nested classes are C++ symbols of their own.  */
			const char *n = dwarf_diename(&child);
			char *p;
			if (w->cplus && n && tag != DW_TAG_base_type && tag != DW_TAG_typedef &&
			    w->kind == SG_LOOKUP_TYPES) {
				if (asprintf(&p, "%s%s::", prefix, n) < 0) {
					w->err = &sg_enomem;
					return;
				}
				walk_children(w, &child, p, depth + 1);
				free(p);
			}
		}
		/* Ctrl-C: a search of a big program's DWARF takes a while.  */
		if (!w->err && sg_interrupt_pending())
			w->err = sg_interrupt_error();
	} while (!w->err && dwarf_siblingof(&child, &child) == 0);
}

static bool is_cplus(Dwarf_Die *cu)
{
	Dwarf_Word lang;
	Dwarf_Attribute a;
	if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) != 0)
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* The unit's primary source file as gdb names its symtab: the line
   table's first file (libdw joins it to the compilation directory),
   shown as frames show it.  */
static const char *unit_file(struct walk *w, Dwarf_Die *cu)
{
	(void)w;
	Dwarf_Files *files;
	size_t n;
	const char *name = dwarf_diename(cu);
	if (dwarf_getsrcfiles(cu, &files, &n) == 0 && name)
		for (size_t i = 0; i < n; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);
			size_t fl = f ? strlen(f) : 0, nl = strlen(name);
			if (f && fl >= nl && !strcmp(f + fl - nl, name) &&
			    (fl == nl || f[fl - nl - 1] == '/'))
				return sg_display_path(cu, f);
		}
	return name;
}

static void walk_dwarf(struct walk *w, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	while (!w->err && dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, &subdie) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_skeleton)
			continue;
		if (unit_type == DW_UT_skeleton)
			cudie = subdie;
		w->cu = cudie;
		w->cplus = is_cplus(&cudie);
		w->assembler = dwarf_srclang(&cudie) == DW_LANG_Mips_Assembler;
		w->cu_file = unit_file(w, &cudie);
		walk_children(w, &cudie, "", 0);
	}
}

/* ---- ELF symbols ---- */

static bool add_minsym(struct walk *w, uint64_t address, char *name, size_t *cap)
{
	if (!name)
		return !(w->err = &sg_enomem);
	if (w->re && regexec(w->re, name, 0, NULL, 0) != 0) {
		free(name);
		return true;
	}
	struct sg_lookup *l = w->out;
	if (l->nminsyms == *cap) {
		size_t n = *cap ? 2 * *cap : 32;
		struct sg_lookup_minsym *m = realloc(l->minsyms, n * sizeof(*m));
		if (!m) {
			free(name);
			return !(w->err = &sg_enomem);
		}
		l->minsyms = m;
		*cap = n;
	}
	l->minsyms[l->nminsyms++] = (struct sg_lookup_minsym){ address, name };
	return true;
}

static int cmp_minsym(const void *a, const void *b)
{
	const struct sg_lookup_minsym *x = a, *y = b;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A relocation that fills a GOT slot the PLT jumps through.  */
struct slot {
	uint64_t got;		/* ELF address of the slot */
	const char *name;	/* the symbol's, borrowed from ELF; NULL: IRELATIVE */
	int64_t addend;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

/* ELF's JUMP_SLOT, GLOB_DAT and IRELATIVE relocations, sorted by slot,
   into *RET (N_RET of them): one pass over the relocations, however
   many PLT entries look them up.  */
static bool collect_slots(Elf *elf, struct slot **ret, size_t *n_ret)
{
	struct slot *v = NULL;
	size_t n = 0, cap = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh, symsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Data *relocs = elf_getdata(scn, NULL);
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		Elf_Data *syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
		for (size_t i = 0; relocs && syms && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name = NULL;
			if (!gelf_getrela(relocs, (int)i, &r))
				continue;
			unsigned type = GELF_R_TYPE(r.r_info);
			if (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) {
				if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
				    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
					continue;
			} else if (type != R_X86_64_IRELATIVE) {
				continue;
			}
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct slot *nv = realloc(v, nc * sizeof(*nv));
				if (!nv) {
					free(v);
					return false;
				}
				v = nv;
				cap = nc;
			}
			v[n++] = (struct slot){ r.r_offset, name, r.r_addend };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_slot);
	*ret = v;
	*n_ret = n;
	return true;
}

/* The name BFD gives the PLT entry that jumps through slot GOT:
   "name@plt", "*ABS*+0xADDEND@plt" for an IRELATIVE one.  New string,
   NULL if no relocation fills the slot.  */
static char *slot_plt_name(const struct slot *v, size_t n, uint64_t got)
{
	struct slot key = { .got = got };
	const struct slot *s = n ? bsearch(&key, v, n, sizeof(*v), cmp_slot) : NULL;
	char *name = NULL;
	if (!s)
		return NULL;
	if (!s->name) {
		if (asprintf(&name, "*ABS*+0x%" PRIx64 "@plt", (uint64_t)s->addend) < 0)
			name = NULL;
	} else if (asprintf(&name, "%.*s@plt", (int)strcspn(s->name, "@"), s->name) < 0) {
		name = NULL;
	}
	return name;
}

/* BFD's synthetic symbols, which gdb lists as functions: "puts@plt" for
   each PLT entry that jumps through a GOT slot a relocation names (.plt,
   .plt.sec with IBT, .plt.got; 16 bytes an entry, 8 in .plt.got).  */
static void plt_minsyms(struct walk *w, Dwfl_Module *dm, size_t *cap)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(dm, &bias);
	size_t shstrndx, nslots = 0;
	struct slot *slots = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	if (!collect_slots(elf, &slots, &nslots)) {
		w->err = &sg_enomem;
		return;
	}
	for (Elf_Scn *scn = NULL; nslots && !w->err && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *sn;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(sn, ".plt") && strcmp(sn, ".plt.sec") && strcmp(sn, ".plt.got")))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t entsize = !strcmp(sn, ".plt.got") ? 8 : 16;
		for (uint64_t off = 0; d && off + entsize <= d->d_size && !w->err; off += entsize) {
			const unsigned char *code = (const unsigned char *)d->d_buf + off;
			for (uint64_t i = 0; i + 6 <= entsize; i++) {
				if (code[i] != 0xff || code[i + 1] != 0x25)
					continue;
				int32_t disp;
				memcpy(&disp, code + i + 2, 4);
				char *full = slot_plt_name(slots, nslots,
							   sh.sh_addr + off + i + 6 + (int64_t)disp);
				if (full)
					add_minsym(w, sh.sh_addr + off + bias, full, cap);
				break;
			}
		}
	}
	free(slots);
}

/* MOD's ELF symbols of the kind searched, after the DWARF walk filled
   W->DESCRIBED: functions are code symbols, variables data ones.  gdb
   leaves out a symbol whose name the DWARF defines, and a function whose
   address a unit covers.  */
static void walk_elf(struct walk *w, Dwfl_Module *dm, Dwarf *dw, Dwarf_Addr dwbias,
		     size_t *cap)
{
	size_t first = w->out->nminsyms;
	if (w->kind == SG_LOOKUP_FUNCTIONS)
		plt_minsyms(w, dm, cap);
	int n = dwfl_module_getsymtab(dm);
	for (int i = 1; i < n && !w->err; i++) {
		if (sg_interrupt_pending()) {
			w->err = sg_interrupt_error();
			break;
		}
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *raw = dwfl_module_getsym_info(dm, i, &sym, &addr, &shndx, NULL, NULL);
		if (!raw || !*raw || sym.st_shndx == SHN_UNDEF)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		bool code = type == STT_FUNC || type == STT_GNU_IFUNC;
		bool data = type == STT_OBJECT || type == STT_TLS || type == STT_COMMON;
		if (w->kind == SG_LOOKUP_FUNCTIONS ? !code : !data)
			continue;
		/* "name@@VERSION", the default version, is the name; another
		   version stays, as gdb shows "stdout@GLIBC_2.2.5".  */
		const char *at = strstr(raw, "@@");
		size_t len = at ? (size_t)(at - raw) : strlen(raw);
		char *base = strndup(raw, len);
		if (!base) {
			w->err = &sg_enomem;
			return;
		}
		size_t bl = strcspn(base, "@");
		char c = base[bl];
		base[bl] = '\0';
		bool named = sg_strmap_get(&w->described, base) != UINT32_MAX;
		base[bl] = c;
		bool covered = false;
		if (code) {
			Dwarf_Die cudie;
			covered = dw && dwarf_addrdie(dw, addr - dwbias, &cudie) != NULL;
		}
		if (named || covered) {
			free(base);
			continue;
		}
		char *shown = sg_demangle(base, true);
		if (shown)
			free(base);
		add_minsym(w, addr, shown ? shown : base, cap);
	}
	struct sg_lookup *l = w->out;
	if (l->nminsyms > first)
		qsort(l->minsyms + first, l->nminsyms - first, sizeof(*l->minsyms), cmp_minsym);
	/* .symtab and .dynsym name the same symbol twice.  */
	size_t k = first;
	for (size_t i = first; i < l->nminsyms; i++) {
		if (k > first && l->minsyms[k - 1].address == l->minsyms[i].address &&
		    !strcmp(l->minsyms[k - 1].name, l->minsyms[i].name)) {
			free(l->minsyms[i].name);
			continue;
		}
		l->minsyms[k++] = l->minsyms[i];
	}
	l->nminsyms = k;
}

struct modules {
	struct walk *w;
	bool minsyms;
	size_t mcap;
};

static int each_module(struct sg_module *mod, void *arg)
{
	struct modules *m = arg;
	struct walk *w = m->w;
	Dwfl_Module *dm = sg_module_dwfl(mod);
	if (!dm)
		return SG_CB_OK;
	Dwarf_Addr bias = 0;
	Dwarf *dw = dwfl_module_getdwarf(dm, &bias);
	sg_strmap_deinit(&w->described);
	if (dw)
		walk_dwarf(w, dw);
	if (!w->err && m->minsyms && w->kind != SG_LOOKUP_TYPES)
		walk_elf(w, dm, dw, bias, &m->mcap);
	return w->err ? SG_CB_ABORT : SG_CB_OK;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sg_lookup_sym *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->is_static != y->is_static)
		return x->is_static ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* ---- the text gdb prints ---- */

/* TYPE without its typedefs (qualifiers kept), as gdb's check_typedef.  */
static void through_typedefs(Dwarf_Die *type, Dwarf_Die *ret)
{
	*ret = *type;
	for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(ret) == DW_TAG_typedef; i++)
		if (!sg_die_type(ret, ret))
			break;
}

/* "(void)" at the end of S becomes "()": gdb lists a C++ function of no
   parameters so, where its whatis says "(void)".  */
static void cplus_empty_params(char *s)
{
	size_t n = strlen(s);
	if (n >= 6 && !strcmp(s + n - 6, "(void)"))
		strcpy(s + n - 5, ")");
}

/* "()" at the end of *S becomes "(void)" for a prototyped C function: a
   concrete instance of an inlined one (its parameters are its own, in
   its own order) has DW_AT_prototyped on the abstract origin.  */
static void c_void_params(Dwarf_Die *fn, char **s)
{
	Dwarf_Attribute a;
	bool prototyped = false;
	size_t n = strlen(*s);
	if (n < 2 || strcmp(*s + n - 2, "()") || !dwarf_attr_integrate(fn, DW_AT_prototyped, &a) ||
	    dwarf_formflag(&a, &prototyped) != 0 || !prototyped)
		return;
	char *t;
	if (asprintf(&t, "%.*s(void)", (int)(n - 2), *s) < 0)
		return;
	free(*s);
	*s = t;
}

/* The line gdb prints for S, without "LINE:\t", new string.  */
static char *declaration_text(const struct sg_lookup_sym *s, enum sg_lookup_kind kind)
{
	Dwarf_Die die = s->die, type;
	bool typed = sg_die_type(&die, &type);
	char *body = NULL, *out = NULL;
	switch (kind) {
	case SG_LOOKUP_FUNCTIONS:
		if (s->assembler) {
			/* gdb's type of a function it knows nothing of.  */
			if (asprintf(&body, "void %s(void)", s->name) < 0)
				body = NULL;
		} else if (strchr(s->name, '(')) {
			body = sg_type_string_lang(typed ? &type : NULL, s->name, s->cplus);
		} else {
			body = sg_type_string_lang(&die, s->name, s->cplus);
			if (body && s->cplus)
				cplus_empty_params(body);
			else if (body)
				c_void_params(&die, &body);
		}
		break;
	case SG_LOOKUP_VARIABLES:
		body = sg_type_string_lang(typed ? &type : NULL, s->name, s->cplus);
		break;
	case SG_LOOKUP_TYPES: {
		int tag = dwarf_tag(&die);
		if (tag == DW_TAG_typedef) {
			Dwarf_Die target;
			char *t = NULL;
			if (typed)
				through_typedefs(&type, &target);
			t = sg_type_string_lang(typed ? &target : NULL, "", s->cplus);
			if (t && asprintf(&out, "typedef %s %s;", t, s->name) < 0)
				out = NULL;
			free(t);
			return out;
		}
		body = sg_type_string_lang(&die, "", s->cplus);
		if (tag == DW_TAG_base_type)
			return body;
		break;
	}
	}
	if (body && asprintf(&out, "%s%s;", s->is_static && kind != SG_LOOKUP_TYPES ? "static " : "",
			     body) < 0)
		out = NULL;
	free(body);
	return out;
}

/* The type -t matches: a function's or a variable's, as whatis spells it. */
static bool type_matches(const struct sg_lookup_sym *s, enum sg_lookup_kind kind,
			 const regex_t *re)
{
	Dwarf_Die die = s->die, type;
	char *t;
	if (kind == SG_LOOKUP_FUNCTIONS)
		t = sg_type_string_lang(&die, "", s->cplus);
	else
		t = sg_type_string_lang(sg_die_type(&die, &type) ? &type : NULL, "", s->cplus);
	bool m = t && regexec(re, t, 0, NULL, 0) == 0;
	free(t);
	return m;
}

struct sg_error *sg_lookup_symbols(struct sg_session *session, enum sg_lookup_kind kind,
				   const regex_t *re, const regex_t *type_re, bool minsyms,
				   struct sg_lookup *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct sg_target *target = sg_session_target(session);
	if (!target)
		return sg_error_create(SG_ERROR_TARGET, "No target.");
	struct walk w = { .t = target, .kind = kind, .re = re, .out = ret };
	struct modules m = { &w, minsyms, 0 };
	struct sg_error *err = sg_target_modules(target, each_module, &m);
	sg_strmap_deinit(&w.described);
	if (!err)
		err = w.err;
	if (err) {
		sg_lookup_free(ret);
		return err;
	}
	if (ret->nsyms)
		qsort(ret->syms, ret->nsyms, sizeof(*ret->syms), cmp_sym);
	size_t k = 0;
	for (size_t i = 0; i < ret->nsyms; i++) {
		if (k && !cmp_sym(&ret->syms[k - 1], &ret->syms[i])) {
			free(ret->syms[i].name);
			continue;
		}
		ret->syms[k++] = ret->syms[i];
	}
	ret->nsyms = k;
	/* The declarations, in the type printers' names ("std::vector<int>")
	   as gdb's type printer gives them; -t filters on the type.  */
	sg_type_printers_begin(session, target, false);
	k = 0;
	for (size_t i = 0; i < ret->nsyms; i++) {
		struct sg_lookup_sym *s = &ret->syms[i];
		if (type_re && !type_matches(s, kind, type_re)) {
			free(s->name);
			continue;
		}
		if (!(s->declaration = declaration_text(s, kind))) {
			err = &sg_enomem;
			free(s->name);
			continue;
		}
		ret->syms[k++] = *s;
	}
	ret->nsyms = k;
	sg_type_printers_end();
	if (err)
		sg_lookup_free(ret);
	return err;
}

void sg_lookup_free(struct sg_lookup *l)
{
	for (size_t i = 0; i < l->nsyms; i++) {
		free(l->syms[i].name);
		free(l->syms[i].declaration);
	}
	for (size_t i = 0; i < l->nminsyms; i++)
		free(l->minsyms[i].name);
	free(l->syms);
	free(l->minsyms);
	memset(l, 0, sizeof(*l));
}
