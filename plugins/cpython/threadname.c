/* Python thread names: what the threading module calls each thread, read
   from an interpreter's sys.modules.

   threading keeps every thread it knows in threading._active, a dict from
   the thread's ident (get_ident(): the pthread_t, which the thread state
   holds as thread_id) to its Thread object, whose name is its _name
   attribute (2.7: __name, which Python mangles to _Thread__name).  A
   thread started from C is there too once it called current_thread(),
   named "Dummy-N".  Threads threading does not know (started with
   _thread.start_new_thread, or not yet running) have no name.

   The reads count against the command's budget (dict.c): once it is
   spent, the threads named so far keep their names and the walk ends.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <stdlib.h>

/* At most this many entries of _active are looked at.  */
#define MAX_THREADS 4096
#define MAX_NAME 1024

struct walk {
	struct py_proc *p;
	const char *attr;
	int (*fn)(uint64_t ident, const char *name, void *arg);
	void *arg;
	size_t seen, named;
	struct sg_error *first_err;	/* why a thread was left out */
};

static int each_thread(uint64_t key, uint64_t value, void *arg)
{
	struct walk *w = arg;
	if (w->seen++ == MAX_THREADS)
		return SG_CB_ABORT;
	uint64_t ident, name_obj = 0;
	char *name = NULL;
	struct sg_error *err = py_int_value(w->p, key, &ident);
	if (!err)
		err = py_object_attr(w->p, value, w->attr, &name_obj);
	if (!err && !name_obj)
		err = sg_error_format(SG_ERROR_LOOKUP, "thread 0x%" PRIx64 " has no %s", value,
				      w->attr);
	if (!err)
		err = py_str_text(w->p, name_obj, MAX_NAME, &name);
	/* A thread that cannot be read is left out; the others still
	   count, until the read budget is spent.  */
	if (err) {
		if (!w->first_err)
			w->first_err = err;
		else
			sg_error_destroy(err);
		return py_budget_spent(w->p) ? SG_CB_ABORT : SG_CB_OK;
	}
	w->named++;
	int r = w->fn(ident, name, w->arg);
	free(name);
	return r;
}

struct sg_error *py_thread_names(struct py_proc *p, uint64_t interp,
				 int (*fn)(uint64_t ident, const char *name, void *arg), void *arg)
{
	uint64_t modules, module = 0, dict, active = 0;
	struct sg_error *err = py_read_ptr(p, interp, PY_IS_MODULES, &modules);
	if (!err && !modules)
		return sg_error_create(SG_ERROR_LOOKUP, "the interpreter has no sys.modules");
	if (!err)
		err = py_dict_get_str(p, modules, "threading", &module);
	if (err)
		return sg_error_prefix(err, "sys.modules");
	if (!module)
		return sg_error_create(SG_ERROR_LOOKUP, "threading is not imported");
	err = py_module_dict(p, module, &dict);
	if (!err)
		err = py_dict_get_str(p, dict, "_active", &active);
	if (!err && !active)
		err = sg_error_create(SG_ERROR_LOOKUP, "threading has no _active");
	if (err)
		return sg_error_prefix(err, "threading");
	struct walk w = {
		.p = p,
		.attr = p->version < PY_V(3, 0) ? "_Thread__name" : "_name",
		.fn = fn,
		.arg = arg,
	};
	err = py_dict_items(p, active, each_thread, &w);
	if (!err && !w.named && w.first_err) {
		err = w.first_err;
		w.first_err = NULL;
	}
	sg_error_destroy(w.first_err);
	return err ? sg_error_prefix(err, "threading._active") : NULL;
}
