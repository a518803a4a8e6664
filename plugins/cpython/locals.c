/* py-locals [FRAME]: the arguments and locals of a Python frame of the
   selected thread, each as repr() prints it.

   Up to 3.10 a frame's fast locals are PyFrameObject.f_localsplus: the
   co_nlocals locals named by co_varnames, then one cell per co_cellvars
   and per co_freevars name.  From 3.11 they are _PyInterpreterFrame's
   localsplus, named by co_localsplusnames, with a kind byte each in
   co_localspluskinds; cell and free variables hold a cell once the
   function has started (before, an argument that is also a cell holds
   its value).  Like locals(), unbound variables (NULL, or an empty cell)
   are left out.  Module and class bodies keep their variables in the
   f_locals dict instead: its items are printed when it is a dict.

   The values share the command's read budget: once it is spent, the
   value being printed ends with "..." and one line stands for the
   variables left.  */
#include <config.h>
#include "cpython.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOCALS 65536
#define MAX_NAME 1024
/* Output for all the variables of a frame (py_repr bounds each one).  */
#define MAX_TOTAL (16u << 20)
#define TOO_MUCH "too much output: the other variables are left out"
#define NO_READS PY_TOO_MANY_READS "; the other variables are left out"

/* co_localspluskinds bits (3.11+).  */
#define CO_FAST_CELL 0x40
#define CO_FAST_FREE 0x80
/* co_flags: the function uses fast locals (not a module or class body).  */
#define CO_OPTIMIZED 0x1

struct pick_frame {
	int want, n;
	bool found;
	uint64_t address, code;
	char *function, *file;
	int line;
};

static int pick(const struct py_frame *f, void *arg)
{
	struct pick_frame *pf = arg;
	if (pf->n++ != pf->want)
		return SG_CB_OK;
	pf->found = true;
	pf->address = f->address;
	pf->code = f->code;
	pf->function = f->function ? strdup(f->function) : NULL;
	pf->file = f->file ? strdup(f->file) : NULL;
	pf->line = f->line;
	return SG_CB_ABORT;
}

struct printer {
	struct py_proc *p;
	struct sg_out *out;
	size_t limit;
	uint64_t cell_type;	/* the type of cells, once seen */
	size_t n;
	size_t total;		/* bytes of repr printed */
	bool ended;		/* the last line said why the rest is left out */
	/* The names printed, so that f_locals does not repeat them.  */
	char **names;
	size_t nnames, names_cap;
};

static void remember(struct printer *pr, const char *name)
{
	char *copy = strdup(name);
	char **slot = copy ? sg_array_push(&pr->names, &pr->nnames, &pr->names_cap, sizeof(*slot))
			   : NULL;
	if (slot)
		*slot = copy;
	else
		free(copy);
}

static bool printed(const struct printer *pr, const char *name)
{
	for (size_t i = 0; i < pr->nnames; i++)
		if (!strcmp(pr->names[i], name))
			return true;
	return false;
}

/* The line that ends the list early, saying WHY.  */
static void print_end(struct printer *pr, const char *why)
{
	if (sg_out_json(pr->out)) {
		sg_out_object_begin(pr->out, NULL);
		sg_out_string(pr->out, "name", "...");
		sg_out_string(pr->out, "error", why);
		sg_out_object_end(pr->out);
	} else {
		sg_out_printf(pr->out, "... (%s)\n", why);
	}
	pr->ended = true;
}

/* Whether the list has ended: too much output, or the read budget spent
   (then every value would fail: one line says so, once).  */
static bool ended(struct printer *pr)
{
	if (!pr->ended && pr->total < MAX_TOTAL && py_budget_spent(pr->p))
		print_end(pr, NO_READS);
	return pr->ended || pr->total >= MAX_TOTAL;
}

/* Print one variable: NAME = repr(VALUE).  */
static void print_local(struct printer *pr, const char *name, uint64_t value)
{
	char *text = NULL;
	size_t len = 0;
	if (ended(pr))
		return;
	FILE *f = open_memstream(&text, &len);
	struct sg_error *err = f ? py_repr(pr->p, value, pr->limit, f) : &sg_enomem;
	if (f)
		fclose(f);
	/* The value whose reads ran out: the budget's own error, whatever
	   read failed (the next ones would fail the same way).  */
	if (err && py_budget_spent(pr->p)) {
		sg_error_destroy(err);
		err = sg_error_create(SG_ERROR_BAD_DATA, PY_TOO_MANY_READS);
	}
	if (sg_out_json(pr->out)) {
		sg_out_object_begin(pr->out, NULL);
		sg_out_string(pr->out, "name", name);
		if (err)
			sg_out_string(pr->out, "error", sg_error_message(err));
		else
			sg_out_string_len(pr->out, "repr", text ? text : "", len);
		sg_out_object_end(pr->out);
	} else if (err) {
		sg_out_printf(pr->out, "%s = <error: %s>\n", name, sg_error_message(err));
	} else {
		sg_out_printf(pr->out, "%s = %.*s\n", name, (int)len, text ? text : "");
	}
	pr->n++;
	pr->total += len;
	if (pr->total >= MAX_TOTAL && !pr->ended)
		print_end(pr, TOO_MUCH);
	sg_error_destroy(err);
	free(text);
}

static void print_error(struct printer *pr, const char *name, struct sg_error *err)
{
	if (sg_out_json(pr->out)) {
		sg_out_object_begin(pr->out, NULL);
		sg_out_string(pr->out, "name", name);
		sg_out_string(pr->out, "error", sg_error_message(err));
		sg_out_object_end(pr->out);
	} else {
		sg_out_printf(pr->out, "%s = <error: %s>\n", name, sg_error_message(err));
	}
	sg_error_destroy(err);
}

/* The object in a cell (ob_ref), when VALUE is a cell; VALUE itself
   otherwise.  0 for an empty cell.  */
static struct sg_error *deref(struct printer *pr, uint64_t value, uint64_t *ret)
{
	struct py_proc *p = pr->p;
	uint64_t type;
	struct sg_error *err = py_read_ptr(p, value, PY_OB_TYPE, &type);
	if (err)
		return err;
	if (type != pr->cell_type) {
		char *name;
		if ((err = py_type_name(p, value, &name)))
			return err;
		bool cell = !strcmp(name, "cell");
		free(name);
		if (!cell) {
			*ret = value;
			return NULL;
		}
		pr->cell_type = type;
	}
	return py_read_ptr(p, value, PY_CELL_REF, ret);
}

/* The name at index I of the tuple of str NAMES.  */
static struct sg_error *tuple_name(struct py_proc *p, uint64_t names, uint64_t i, char **ret)
{
	uint64_t s;
	struct sg_error *err =
		sg_target_read_u64(p->target, names + p->offs.off[PY_TUPLE_ITEM] + 8 * i, &s);
	return err ? err : py_read_str(p, s, MAX_NAME, ret, NULL);
}

static struct sg_error *tuple_size(struct py_proc *p, uint64_t tuple, uint64_t *ret)
{
	*ret = 0;
	if (!tuple)
		return NULL;
	struct sg_error *err = py_read_field(p, tuple, PY_VAR_SIZE, ret);
	if (!err && *ret > MAX_LOCALS)
		err = sg_error_format(SG_ERROR_BAD_DATA,
				      "a code object claims %" PRId64 " variables", (int64_t)*ret);
	return err;
}

/* One fast local: slot I of the frame's array at SLOTS, named by item J
   of NAMES; none if its name is one of the NSKIP in SKIP.  */
static void fast_local(struct printer *pr, uint64_t slots, uint64_t i, uint64_t names,
		       uint64_t j, bool may_be_cell, char **skip, size_t nskip)
{
	struct py_proc *p = pr->p;
	char *name = NULL;
	uint64_t value;
	if (ended(pr))
		return;
	struct sg_error *err = tuple_name(p, names, j, &name);
	if (err) {
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "<local %" PRIu64 ">", i);
		print_error(pr, fallback, err);
		return;
	}
	for (size_t k = 0; k < nskip; k++) {
		if (skip[k] && !strcmp(skip[k], name)) {
			free(name);
			return;
		}
	}
	err = sg_target_read_u64(p->target, slots + 8 * i, &value);
	/* 3.14: the slots are _PyStackRefs, with tags in the low bits.  */
	if (!err && p->version >= PY_V(3, 14))
		value &= ~UINT64_C(3);
	if (!err && value && may_be_cell)
		err = deref(pr, value, &value);
	if (err)
		print_error(pr, name, err);
	else if (value)
		print_local(pr, name, value);
	if (err || value)
		remember(pr, name);
	free(name);
}

/* Up to 3.10.  */
static struct sg_error *locals_old(struct printer *pr, uint64_t frame, uint64_t code)
{
	struct py_proc *p = pr->p;
	uint64_t nlocals, varnames, cellvars, freevars, nvar, ncell, nfree;
	if (!py_has(p, PY_F_LOCALSPLUS) || !py_has(p, PY_TUPLE_ITEM))
		return sg_error_format(SG_ERROR_LOOKUP, "no offset for f_localsplus or ob_item"
				       " (%s)", p->offs.source);
	struct sg_error *err = py_read_field(p, code, PY_CO_NLOCALS, &nlocals);
	if (!err)
		err = py_read_ptr(p, code, PY_CO_VARNAMES, &varnames);
	if (!err)
		err = py_read_ptr(p, code, PY_CO_CELLVARS, &cellvars);
	if (!err)
		err = py_read_ptr(p, code, PY_CO_FREEVARS, &freevars);
	if (!err)
		err = tuple_size(p, varnames, &nvar);
	if (!err)
		err = tuple_size(p, cellvars, &ncell);
	if (!err)
		err = tuple_size(p, freevars, &nfree);
	if (err)
		return err;
	nlocals = (uint32_t)nlocals;
	if (nlocals > nvar)
		nlocals = nvar;
	/* An argument that is also a cell variable has the cell's name:
	   its value is the cell's (3.x clears the argument's slot; 2.7 leaves
	   the value the function was called with).  */
	char **cells = ncell ? calloc(ncell, sizeof(*cells)) : NULL;
	if (ncell && !cells)
		return &sg_enomem;
	for (uint64_t i = 0; i < ncell; i++)
		sg_error_destroy(tuple_name(p, cellvars, i, &cells[i]));
	uint64_t slots = frame + p->offs.off[PY_F_LOCALSPLUS];
	for (uint64_t i = 0; i < nlocals; i++)
		fast_local(pr, slots, i, varnames, i, false, cells, ncell);
	for (uint64_t i = 0; i < ncell; i++)
		fast_local(pr, slots, nlocals + i, cellvars, i, true, NULL, 0);
	for (uint64_t i = 0; i < nfree; i++)
		fast_local(pr, slots, nlocals + ncell + i, freevars, i, true, NULL, 0);
	for (uint64_t i = 0; i < ncell; i++)
		free(cells[i]);
	free(cells);
	return NULL;
}

/* 3.11+.  */
static struct sg_error *locals_new(struct printer *pr, uint64_t frame, uint64_t code)
{
	struct py_proc *p = pr->p;
	uint64_t names, kinds_obj, n;
	char *kinds = NULL;
	size_t nkinds = 0;
	if (!py_has(p, PY_IF_LOCALSPLUS) || !py_has(p, PY_TUPLE_ITEM))
		return sg_error_format(SG_ERROR_LOOKUP, "no offset for localsplus or ob_item (%s)",
				       p->offs.source);
	struct sg_error *err = py_read_ptr(p, code, PY_CO_LOCALSPLUSNAMES, &names);
	if (!err)
		err = py_read_ptr(p, code, PY_CO_LOCALSPLUSKINDS, &kinds_obj);
	if (!err)
		err = tuple_size(p, names, &n);
	if (!err && n)
		err = py_read_bytes(p, kinds_obj, n, &kinds, &nkinds);
	if (err)
		return err;
	if (nkinds < n) {
		free(kinds);
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "code object at 0x%" PRIx64 " has %" PRIu64
				       " variables and %zu kinds", code, n, nkinds);
	}
	uint64_t slots = frame + p->offs.off[PY_IF_LOCALSPLUS];
	for (uint64_t i = 0; i < n; i++) {
		/* CO_FAST_HIDDEN (0x10, 3.12+) marks the variables of an
		   inlined comprehension: bound only while it runs, when
		   locals() shows them too.  */
		unsigned char kind = (unsigned char)kinds[i];
		fast_local(pr, slots, i, names, i, kind & (CO_FAST_CELL | CO_FAST_FREE), NULL, 0);
	}
	free(kinds);
	return NULL;
}

static int dict_local(uint64_t key, uint64_t value, void *arg)
{
	struct printer *pr = arg;
	char *name = NULL;
	if (ended(pr))
		return SG_CB_ABORT;
	struct sg_error *err = py_read_str(pr->p, key, MAX_NAME, &name, NULL);
	if (err) {
		/* A key that is not a str: print its repr as the name.  */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		sg_error_destroy(err);
		if (f) {
			sg_error_destroy(py_repr(pr->p, key, 32, f));
			fclose(f);
		}
		name = text;
	}
	if (!name || !printed(pr, name))
		print_local(pr, name ? name : "?", value);
	free(name);
	return pr->n >= MAX_LOCALS || pr->ended || pr->total >= MAX_TOTAL ? SG_CB_ABORT : SG_CB_OK;
}

/* Module and class bodies: the f_locals dict.  */
static struct sg_error *locals_dict(struct printer *pr, uint64_t frame, uint64_t code)
{
	struct py_proc *p = pr->p;
	uint64_t flags, dict;
	enum py_field locals = py_has(p, PY_IF_LOCALS) ? PY_IF_LOCALS : PY_F_LOCALS;
	/* _Py_DebugOffsets has neither.  */
	if (!py_has(p, PY_CO_FLAGS) || !py_has(p, locals))
		return NULL;
	struct sg_error *err = py_read_field(p, code, PY_CO_FLAGS, &flags);
	if (err || (flags & CO_OPTIMIZED))
		return err;
	err = py_read_ptr(p, frame, locals, &dict);
	if (err || !dict)
		return err;
	char *type;
	if ((err = py_type_name(p, dict, &type)))
		return err;
	bool is_dict = !strcmp(type, "dict");
	free(type);
	if (!is_dict)
		return NULL;
	err = py_dict_items(p, dict, dict_local, pr);
	/* What was read is printed; the last line says why the rest is not.  */
	if (err && py_budget_spent(p)) {
		sg_error_destroy(err);
		ended(pr);
		err = NULL;
	}
	return err;
}

static struct sg_error *parse_level(const char *args, int *ret)
{
	while (isspace((unsigned char)*args))
		args++;
	*ret = 0;
	if (!*args)
		return NULL;
	char *end;
	long v = strtol(args, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == args || *end || v < 0 || v > 1000000 || !isdigit((unsigned char)*args))
		return sg_error_format(SG_ERROR_USAGE, "Usage: py-locals [FRAME] (not \"%s\")",
				       args);
	*ret = (int)v;
	return NULL;
}

struct sg_error *py_locals_command(struct sg_session *s, const char *args, struct sg_out *out,
				   void *state)
{
	int level;
	struct sg_error *err = parse_level(args, &level);
	if (err)
		return err;
	struct py_proc *p;
	if ((err = py_session_proc(s, state, &p)))
		return err;
	struct sg_thread *thread = sg_session_thread(s);
	if (!thread)
		return sg_error_create(SG_ERROR_TARGET, "No thread selected.");
	uint64_t tstate;
	if ((err = py_thread_state(p, sg_thread_tid(thread), &tstate)))
		return err;
	if (!tstate)
		return sg_error_format(SG_ERROR_LOOKUP, "thread %zu runs no Python code",
				       sg_thread_index(thread) + 1);
	struct pick_frame pf = { .want = level };
	err = py_frames(p, tstate, pick, &pf);
	/* A chain broken further out does not matter to this frame.  */
	if (err && pf.found) {
		sg_error_destroy(err);
		err = NULL;
	}
	if (err)
		return err;
	if (!pf.found)
		return sg_error_format(SG_ERROR_LOOKUP, "No Python frame at level %d.", level);

	uint64_t limit = sg_setting_uint(s, "print elements", 200);
	struct printer pr = {
		.p = p,
		.out = out,
		.limit = limit == UINT64_MAX || limit > SIZE_MAX ? 0 : (size_t)limit,
	};
	sg_out_object_begin(out, "frame");
	sg_out_int(out, "level", level);
	sg_out_string(out, "function", pf.function);
	sg_out_string(out, "file", pf.file);
	if (pf.line)
		sg_out_int(out, "line", pf.line);
	else
		sg_out_null(out, "line");
	sg_out_object_end(out);
	sg_out_array_begin(out, "locals");
	err = p->version >= PY_V(3, 11) ? locals_new(&pr, pf.address, pf.code)
					: locals_old(&pr, pf.address, pf.code);
	if (!err)
		err = locals_dict(&pr, pf.address, pf.code);
	sg_out_array_end(out);
	for (size_t i = 0; i < pr.nnames; i++)
		free(pr.names[i]);
	free(pr.names);
	free(pf.function);
	free(pf.file);
	if (err)
		return sg_error_prefix(err, "frame %d", level);
	return NULL;
}
