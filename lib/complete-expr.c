/* Completion of expressions and file names at the prompt.

   An expression's word is its last operand: the identifier under the
   cursor, after whatever operator or "(" comes before it.  A plain
   identifier completes to the selected frame's locals and arguments, the
   target's globals and functions and its type names; after "struct",
   "union" or "enum" to tags of that kind; after "X." or "X->" to the
   members (base classes' too) of X's type, X being evaluated by the value
   engine as print would, which reads at most the pointers X follows.

   Completion must never hang the prompt: at most SG_MAX_COMPLETIONS
   candidates (gdb's max-completions), and the walks over the debug
   information stop after COMPLETE_BUDGET_NS.  Errors are dropped: a
   completion that cannot be made offers nothing.  */
#include <config.h>
#include "internal.h"
#include "eval.h"
#include "complete.h"

#include <ctype.h>
#include <dirent.h>
#include <dwarf.h>
#include <time.h>

#define COMPLETE_BUDGET_NS 1500000000ull

static size_t hint_skip;
static bool hint_files;

void sg_complete_hints_reset(void)
{
	hint_skip = 0;
	hint_files = false;
}

size_t sg_complete_word_skip(void)
{
	return hint_skip;
}

bool sg_complete_wants_filenames(void)
{
	return hint_files;
}

/* ---- the candidates of one completion ---- */

struct cands {
	struct sg_completions *c;
	const char *prefix;
	size_t plen;
	char **seen;		/* offered so far, for duplicates */
	size_t n;
	uint64_t deadline;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool cands_full(const struct cands *cs)
{
	return cs->n >= SG_MAX_COMPLETIONS || now_ns() > cs->deadline;
}

static void cands_init(struct cands *cs, struct sg_completions *c, const char *prefix, size_t plen)
{
	memset(cs, 0, sizeof(*cs));
	cs->c = c;
	cs->prefix = prefix;
	cs->plen = plen;
	cs->seen = calloc(SG_MAX_COMPLETIONS, sizeof(*cs->seen));
	cs->deadline = now_ns() + COMPLETE_BUDGET_NS;
}

static void cands_fini(struct cands *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->seen[i]);
	free(cs->seen);
}

/* Offer NAME if it starts with the prefix and is new.  */
static void offer(struct cands *cs, const char *name)
{
	if (!name || !*name || !cs->seen || cs->n >= SG_MAX_COMPLETIONS ||
	    strncmp(name, cs->prefix, cs->plen))
		return;
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->seen[i], name))
			return;
	char *copy = strdup(name);
	if (!copy)
		return;
	cs->seen[cs->n++] = copy;
	sg_completions_add(cs->c, name);
}

static int offer_symbol(const char *name, void *arg)
{
	struct cands *cs = arg;
	/* gdb offers no ELF-only local labels such as "foo.cold".  */
	if (!strchr(name, '.') && !strchr(name, '@'))
		offer(cs, name);
	return cands_full(cs) ? SG_CB_ABORT : SG_CB_OK;
}

static void offer_source_files(struct sg_target *t, struct cands *cs);

/* ---- scanning the expression ---- */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Skip blanks backwards from P (exclusive) down to START.  */
static size_t back_blanks(const char *s, size_t p)
{
	while (p > 0 && isspace((unsigned char)s[p - 1]))
		p--;
	return p;
}

/* The start of the postfix expression ending at END in S (identifiers,
   ".", "->", balanced [] and ()): the X of "X.member".  (size_t)-1 when
   it has anything that could have side effects or call a function.  */
static size_t postfix_start(const char *s, size_t end)
{
	size_t p = end;
	for (;;) {
		p = back_blanks(s, p);
		if (p == 0)
			break;
		char c = s[p - 1];
		if (c == ']' || c == ')') {
			char open = c == ']' ? '[' : '(';
			int depth = 0;
			size_t q = p;
			while (q > 0) {
				char d = s[q - 1];
				if (d == c)
					depth++;
				else if (d == open && --depth == 0)
					break;
				else if (d == '=' || d == ';' || d == '"' || d == '\'')
					return (size_t)-1;
				q--;
			}
			if (q == 0)
				return (size_t)-1;
			/* A call: NAME( ... ).  */
			size_t before = back_blanks(s, q - 1);
			if (open == '(' && before > 0 && (ident_char(s[before - 1]) || s[before - 1] == ')'))
				return (size_t)-1;
			p = q - 1;
			if (open == '(')
				break;	/* (expr) begins the operand */
			continue;
		}
		if (ident_char(c)) {
			while (p > 0 && (ident_char(s[p - 1]) || s[p - 1] == ':'))
				p--;
			size_t q = back_blanks(s, p);
			if (q > 0 && s[q - 1] == '.') {
				p = q - 1;
				continue;
			}
			if (q > 1 && s[q - 1] == '>' && s[q - 2] == '-') {
				p = q - 2;
				continue;
			}
			break;
		}
		return (size_t)-1;
	}
	/* "++x" and "--x" change x.  */
	size_t q = back_blanks(s, p);
	if (q > 1 && ((s[q - 1] == '+' && s[q - 2] == '+') || (s[q - 1] == '-' && s[q - 2] == '-')))
		return (size_t)-1;
	return p;
}

/* ---- members ---- */

/* TYPE without typedefs, qualifiers and (DEREF) one pointer or a
   reference.  */
static bool aggregate_type(Dwarf_Die *type, bool deref, Dwarf_Die *ret)
{
	Dwarf_Die t;
	strip(type, &t);
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type ||
	    (deref && tag == DW_TAG_pointer_type)) {
		Dwarf_Die pointee;
		if (!sg_die_type(&t, &pointee))
			return false;
		strip(&pointee, &t);
		tag = dwarf_tag(&t);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
		return false;
	*ret = t;
	return true;
}

/* The members of the struct, class or union TYPE, its bases' and its
   anonymous members' too, and in C++ its methods.  */
static void offer_members(struct cands *cs, Dwarf_Die *type, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_TYPE_DEPTH || dwarf_child(type, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Die sub;
		if (tag == DW_TAG_inheritance) {
			if (sg_die_type(&child, &sub) && aggregate_type(&sub, false, &sub))
				offer_members(cs, &sub, depth + 1);
		} else if (tag == DW_TAG_member || tag == DW_TAG_variable) {
			const char *name = dwarf_diename(&child);
			/* An anonymous struct or union: its members are the
			   outer type's.  */
			if (!name) {
				if (sg_die_type(&child, &sub) && aggregate_type(&sub, false, &sub))
					offer_members(cs, &sub, depth + 1);
			} else {
				offer(cs, name);	/* gdb offers "_vptr.Base" too */
			}
		} else if (tag == DW_TAG_subprogram) {
			/* Methods, constructors and destructors, as gdb
			   offers them; not operators.  */
			const char *name = dwarf_diename(&child);
			if (name && strncmp(name, "operator", 8))
				offer(cs, name);
		}
	} while (!cands_full(cs) && dwarf_siblingof(&child, &child) == 0);
}

static void complete_members(struct sg_session *s, const char *args, size_t xstart, size_t xend,
			     bool arrow, struct cands *cs)
{
	struct sg_target *t = sg_session_target(s);
	if (!t || xend <= xstart)
		return;
	char *text = strndup(args + xstart, xend - xstart);
	if (!text)
		return;
	struct xval x;
	memset(&x, 0, sizeof(x));
	struct sg_error *err = sg_eval_xval(s, t, text, &x);
	free(text);
	if (err) {
		sg_error_destroy(err);
		return;
	}
	if (x.function || x.is_void || x.reg != REG_NONE || x.ptr_depth > 1 || (x.ptr_depth == 1 && !arrow))
		return;
	Dwarf_Die type;
	/* &obj-> has the synthetic pointer's pointee as its type.  */
	bool deref = x.ptr_depth == 1 ? false : true;
	if (aggregate_type(&x.v.type, deref, &type))
		offer_members(cs, &type, 0);
}

/* ---- names ---- */

/* The selected frame's variables and arguments, innermost block first.  */
static void offer_locals(struct sg_session *s, struct cands *cs)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err) {
		sg_error_destroy(err);
		return;
	}
	const struct sg_frame *f = sg_stack_frame(st, sg_session_frame(s));
	if (!f || !f->scopes || f->scope_fn < 0 || f->signal_trampoline)
		return;
	for (int i = f->scope_first + 1; i <= f->scope_fn && i < f->nscopes; i++) {
		Dwarf_Die scope = f->scopes[i];
		Dwarf_Die child;
		if (dwarf_child(&scope, &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
				offer(cs, dwarf_diename(&child));
		} while (dwarf_siblingof(&child, &child) == 0);
	}
}

enum type_kind {
	TYPES_ALL,		/* typedefs, base types, tags */
	TYPES_STRUCT,
	TYPES_UNION,
	TYPES_ENUM,
};

static bool type_tag_wanted(int tag, enum type_kind kind)
{
	switch (kind) {
	case TYPES_STRUCT:
		return tag == DW_TAG_structure_type || tag == DW_TAG_class_type;
	case TYPES_UNION:
		return tag == DW_TAG_union_type;
	case TYPES_ENUM:
		return tag == DW_TAG_enumeration_type;
	case TYPES_ALL:
		break;
	}
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef || tag == DW_TAG_base_type;
}

/* FN for each unit of every module of T with DWARF, while CS has room.  */
static void each_unit(struct sg_target *t, struct cands *cs,
		      void (*fn)(Dwarf_Die *cu, struct cands *cs, void *arg), void *arg)
{
	if (sg_target_load_modules(t))
		return;
	for (size_t m = 0; m < t->nmodules && !cands_full(cs); m++) {
		Dwarf_Addr bias;
		if (!dwfl_module_getdwarf(t->modules[m]->dwmod, &bias))
			continue;
		Dwarf_Die *cu = NULL;
		while (!cands_full(cs) && (cu = dwfl_module_nextcu(t->modules[m]->dwmod, cu, &bias)))
			fn(cu, cs, arg);
	}
}

/* Type names at the top level of unit CU (and, in C, enumerators with
   them: gdb completes those as symbols).  */
static void unit_types(Dwarf_Die *cu, struct cands *cs, void *arg)
{
	enum type_kind kind = *(enum type_kind *)arg;
	Dwarf_Die child;
	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (type_tag_wanted(tag, kind) && !dwarf_hasattr(&child, DW_AT_declaration))
			offer(cs, dwarf_diename(&child));
		if (kind == TYPES_ALL && tag == DW_TAG_enumeration_type) {
			Dwarf_Die e;
			if (dwarf_child(&child, &e) == 0)
				do
					offer(cs, dwarf_diename(&e));
				while (dwarf_siblingof(&e, &e) == 0);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void offer_types(struct sg_target *t, enum type_kind kind, struct cands *cs)
{
	each_unit(t, cs, unit_types, &kind);
}

/* The keyword before the identifier at P: a tag kind, or TYPES_ALL.  */
static enum type_kind tag_keyword(const char *s, size_t p, bool *is_tag)
{
	size_t q = back_blanks(s, p);
	*is_tag = false;
	if (q == p)
		return TYPES_ALL;
	size_t k = q;
	while (k > 0 && ident_char(s[k - 1]))
		k--;
	if (k > 0 && !isspace((unsigned char)s[k - 1]) && s[k - 1] != '(' && s[k - 1] != ',')
		return TYPES_ALL;
	static const struct {
		const char *word;
		enum type_kind kind;
	} kw[] = { { "struct", TYPES_STRUCT }, { "class", TYPES_STRUCT }, { "union", TYPES_UNION },
		   { "enum", TYPES_ENUM } };
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (q - k == strlen(kw[i].word) && !strncmp(s + k, kw[i].word, q - k)) {
			*is_tag = true;
			return kw[i].kind;
		}
	return TYPES_ALL;
}

void sg_complete_expression(struct sg_session *s, const char *args, size_t word_start, const char *word,
			    struct sg_completions *c, void *arg)
{
	(void)word;
	(void)arg;
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return;
	size_t end = strlen(args);
	size_t id = end;
	while (id > 0 && ident_char(args[id - 1]))
		id--;
	/* A number is no name.  */
	if (id < end && isdigit((unsigned char)args[id]))
		return;
	if (id >= word_start)
		hint_skip = id - word_start;
	struct cands cs;
	cands_init(&cs, c, args + id, end - id);
	size_t q = back_blanks(args, id);
	bool dot = q > 0 && args[q - 1] == '.';
	bool arrow = q > 1 && args[q - 1] == '>' && args[q - 2] == '-';
	if (dot || arrow) {
		size_t xend = q - (arrow ? 2 : 1);
		size_t xstart = postfix_start(args, xend);
		if (xstart != (size_t)-1)
			complete_members(s, args, xstart, xend, arrow, &cs);
	} else {
		bool is_tag;
		enum type_kind kind = tag_keyword(args, id, &is_tag);
		if (is_tag) {
			offer_types(t, kind, &cs);
		} else if (id < end) {
			/* gdb offers everything for an empty word, up to
			   max-completions; a name needs a letter first.  */
			offer_locals(s, &cs);
			struct sg_error *err = sg_symbol_names(t, args + id, offer_symbol, &cs);
			sg_error_destroy(err);
			offer_types(t, TYPES_ALL, &cs);
			/* gdb's symbol completer offers the line tables'
			   source files too ("labs.c").  */
			offer_source_files(t, &cs);
		}
	}
	cands_fini(&cs);
}

/* ---- file names ---- */

void sg_complete_filename(struct sg_session *s, const char *args, size_t word_start, const char *word,
			  struct sg_completions *c, void *arg)
{
	(void)s;
	(void)args;
	(void)word_start;
	(void)arg;
	hint_files = true;
	const char *slash = strrchr(word, '/');
	const char *base = slash ? slash + 1 : word;
	char *dir = slash ? strndup(word, slash == word ? 1 : (size_t)(slash - word)) : strdup(".");
	if (!dir)
		return;
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return;
	struct cands cs;
	cands_init(&cs, c, word, strlen(word));
	size_t blen = strlen(base);
	struct dirent *e;
	while (!cands_full(&cs) && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || strncmp(e->d_name, base, blen))
			continue;
		size_t dl = base - word;
		char *full = malloc(dl + strlen(e->d_name) + 1);
		if (!full)
			break;
		memcpy(full, word, dl);
		strcpy(full + dl, e->d_name);
		offer(&cs, full);
		free(full);
	}
	closedir(d);
	cands_fini(&cs);
}

/* ---- list's linespecs ---- */

/* The base names of the files of unit CU's line table.  */
static void unit_files(Dwarf_Die *cu, struct cands *cs, void *arg)
{
	(void)arg;
	Dwarf_Files *files;
	size_t n;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);
		if (!f || !*f || !strcmp(f, "<built-in>"))
			continue;
		const char *b = strrchr(f, '/');
		offer(cs, b ? b + 1 : f);
	}
}

static void offer_source_files(struct sg_target *t, struct cands *cs)
{
	each_unit(t, cs, unit_files, NULL);
}

void sg_complete_linespec(struct sg_session *s, const char *args, size_t word_start, const char *word,
			  struct sg_completions *c, void *arg)
{
	(void)args;
	(void)word_start;
	(void)arg;
	struct sg_target *t = sg_session_target(s);
	if (!t || !*word)
		return;
	const char *colon = strrchr(word, ':');
	if (colon && colon[-1] != ':' && colon[1] != ':') {
		/* FILE:FUNCTION: the functions (of any file).  */
		hint_skip = colon + 1 - word;
		struct cands cs;
		cands_init(&cs, c, colon + 1, strlen(colon + 1));
		sg_error_destroy(sg_symbol_names(t, colon + 1, offer_symbol, &cs));
		cands_fini(&cs);
		return;
	}
	struct cands cs;
	cands_init(&cs, c, word, strlen(word));
	offer_source_files(t, &cs);
	sg_error_destroy(sg_symbol_names(t, word, offer_symbol, &cs));
	cands_fini(&cs);
}
