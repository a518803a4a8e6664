/* Walking the interpreter: interpreters, their threads, each thread's
   frames, and each frame's code object and line.

   Up to 3.10 a thread's frames are PyFrameObjects linked by f_back.  From
   3.11 they are _PyInterpreterFrames linked by previous, some of which are
   not Python functions: 3.12+ puts a shim frame (owner "C stack") where C
   called into the interpreter, and 3.14 adds the interpreter's own entry
   frame; both are skipped.  A frame whose caller is such a shim (3.11: the
   is_entry flag) was entered from C: merged stacks count on it.

   Every chain is capped and checked for loops; a pointer that cannot be
   read ends the walk with an error after the frames read so far.  */
#include <config.h>
#include "cpython.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INTERPRETERS 256
#define MAX_THREADS 4096
#define MAX_FRAMES 4096
#define MAX_NAME 1024
#define MAX_PATH 4096
#define MAX_LINETABLE (1u << 20)

enum { OWNER_THREAD, OWNER_GENERATOR, OWNER_FRAME_OBJECT };

/* A code object, read once per stop.  */
struct py_code {
	uint64_t address;
	char *name, *file;
	int firstlineno;
	unsigned char *table;
	size_t table_len;
	/* 3.11-3.12: the first instruction a traceback shows, -1 if
	   unknown.  Kept here, as the rest, so that a walk reads nothing
	   of a code object it has met before.  */
	int64_t firsttraceable;
	bool not_code;		/* 3.13+: a frame's executable that is no code object */
	struct sg_error *err;	/* why it could not be read */
};

static void code_destroy(struct py_code *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->file);
	free(c->table);
	sg_error_destroy(c->err);
	free(c);
}

void py_code_cache_clear(struct py_proc *p)
{
	for (size_t i = 0; i < p->codes_cap; i++)
		code_destroy(p->codes[i]);
	free(p->codes);
	p->codes = NULL;
	p->codes_cap = p->ncodes = 0;
}

static size_t code_slot(const struct py_proc *p, uint64_t addr)
{
	uint64_t h = (addr >> 4) * UINT64_C(0x9e3779b97f4a7c15);
	size_t mask = p->codes_cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask)
		if (!p->codes[i] || p->codes[i]->address == addr)
			return i;
}

static bool code_cache_grow(struct py_proc *p)
{
	size_t cap = p->codes_cap ? p->codes_cap * 2 : 256;
	struct py_code **old = p->codes;
	size_t old_cap = p->codes_cap;
	p->codes = calloc(cap, sizeof(*p->codes));
	if (!p->codes) {
		p->codes = old;
		return false;
	}
	p->codes_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			p->codes[code_slot(p, old[i]->address)] = old[i];
	free(old);
	return true;
}

/* 3.13+: f_executable may be something other than a code object (a
   frame run for a C function's tracing).  */
static struct sg_error *check_code(struct py_proc *p, struct py_code *c)
{
	uint64_t type;
	struct sg_error *err = py_read_ptr(p, c->address, PY_OB_TYPE, &type);
	if (err || type == p->code_type)
		return err;
	char *name;
	if ((err = py_type_name(p, c->address, &name)))
		return err;
	c->not_code = strcmp(name, "code") != 0;
	free(name);
	if (!c->not_code)
		p->code_type = type;
	return NULL;
}

static struct sg_error *read_code(struct py_proc *p, struct py_code *c)
{
	uint64_t name, file, table, first;
	c->firsttraceable = -1;
	struct sg_error *err = p->version >= PY_V(3, 13) ? check_code(p, c) : NULL;
	if (err || c->not_code)
		return err;
	if (py_has(p, PY_CO_FIRSTTRACEABLE) && !py_read_field(p, c->address, PY_CO_FIRSTTRACEABLE, &first))
		c->firsttraceable = (int64_t)first;
	enum py_field fname = py_has(p, PY_CO_QUALNAME) ? PY_CO_QUALNAME : PY_CO_NAME;
	err = py_read_ptr(p, c->address, fname, &name);
	if (!err)
		err = py_read_ptr(p, c->address, PY_CO_FILENAME, &file);
	if (!err)
		err = py_read_ptr(p, c->address, PY_CO_LINETABLE, &table);
	if (!err)
		err = py_read_field(p, c->address, PY_CO_FIRSTLINENO, &first);
	if (!err)
		err = py_read_str(p, name, MAX_NAME, &c->name, NULL);
	if (!err)
		err = py_read_str(p, file, MAX_PATH, &c->file, NULL);
	if (err)
		return sg_error_prefix(err, "code object at 0x%" PRIx64, c->address);
	c->firstlineno = (int)(int32_t)first;
	/* A table that cannot be read costs the line, not the frame.  */
	sg_error_destroy(py_read_bytes(p, table, MAX_LINETABLE, (char **)&c->table, &c->table_len));
	return NULL;
}

/* The code object at ADDR, read on first use.  */
static struct py_code *code_get(struct py_proc *p, uint64_t addr)
{
	if (p->ncodes * 2 >= p->codes_cap && !code_cache_grow(p))
		return NULL;
	size_t i = code_slot(p, addr);
	if (p->codes[i])
		return p->codes[i];
	struct py_code *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->address = addr;
	c->err = read_code(p, c);
	p->codes[i] = c;
	p->ncodes++;
	return c;
}

static int code_line(const struct py_proc *p, const struct py_code *c, int64_t pos)
{
	if (!c->table || pos < 0)
		return pos < 0 ? c->firstlineno : 0;
	if (p->version >= PY_V(3, 11))
		return py_locations_line(c->table, c->table_len, c->firstlineno, pos);
	if (p->version == PY_V(3, 10))
		return py_linetable310_line(c->table, c->table_len, c->firstlineno, pos);
	return py_lnotab_line(c->table, c->table_len, c->firstlineno, pos,
			      p->version >= PY_V(3, 6));
}

/* Addresses seen in one walk (frames, thread states, interpreters), to
   stop at a loop.  MAX, a power of two, is set by the walk, which stops
   well before half of it is used.  The table starts on the stack and
   doubles as it fills: a sampler walks a few dozen frames a thousand
   times a second, and a table of MAX entries zeroed for each walk would
   cost more than the walk's reads.  */
#define SEEN_SMALL 64

struct seen {
	uint64_t *a;
	size_t n, cap, max;
	uint64_t small[SEEN_SMALL];
};

static void seen_insert(uint64_t *a, size_t cap, uint64_t addr)
{
	uint64_t h = (addr >> 3) * UINT64_C(0x9e3779b97f4a7c15);
	size_t i = h & (cap - 1);
	while (a[i])
		i = (i + 1) & (cap - 1);
	a[i] = addr;
}

static void seen_grow(struct seen *s)
{
	size_t cap = s->cap * 2;
	uint64_t *a = cap <= s->max ? calloc(cap, sizeof(*a)) : NULL;
	if (!a)
		return;
	for (size_t i = 0; i < s->cap; i++)
		if (s->a[i])
			seen_insert(a, cap, s->a[i]);
	if (s->a != s->small)
		free(s->a);
	s->a = a;
	s->cap = cap;
}

static bool seen_add(struct seen *s, uint64_t addr)
{
	if (!s->a) {
		s->a = s->small;
		s->cap = SEEN_SMALL;
	}
	if (2 * (s->n + 1) > s->cap)
		seen_grow(s);
	/* No memory to grow: the walk's own cap still ends it.  */
	if (s->n + 1 >= s->cap)
		return true;
	uint64_t h = (addr >> 3) * UINT64_C(0x9e3779b97f4a7c15);
	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->a[i] == addr)
			return false;
		if (!s->a[i]) {
			s->a[i] = addr;
			s->n++;
			return true;
		}
	}
}

static void seen_free(struct seen *s)
{
	if (s->a != s->small)
		free(s->a);
}

/* ---- threads ---- */

static struct sg_error *first_interpreter(struct py_proc *p, uint64_t *ret)
{
	if (p->runtime)
		return py_read_ptr(p, p->runtime, PY_RT_INTERP_HEAD, ret);
	if (p->interp_head)
		return sg_target_read_u64(p->target, p->interp_head, ret);
	/* 2.7 or 3.6 without .symtab: the thread holding the GIL knows its
	   interpreter.  */
	uint64_t ts = 0;
	struct sg_error *err = p->tstate_current
				       ? sg_target_read_u64(p->target, p->tstate_current, &ts)
				       : NULL;
	if (err)
		return err;
	if (!ts)
		return sg_error_create(SG_ERROR_LOOKUP,
				       "no interp_head symbol and no thread holds the GIL: "
				       "cannot find the interpreter");
	return py_read_ptr(p, ts, PY_TS_INTERP, ret);
}

/* The thread that holds the GIL, or 0.  */
static uint64_t gil_holder(struct py_proc *p, uint64_t interp)
{
	uint64_t v = 0, gil, locked;
	struct sg_error *err = NULL;
	if (p->version >= PY_V(3, 12)) {
		err = py_read_ptr(p, interp, PY_IS_GIL, &gil);
		if (!err)
			err = py_read_field(p, gil, PY_GIL_LOCKED, &locked);
		if (!err && locked)
			err = py_read_ptr(p, gil, PY_GIL_HOLDER, &v);
	} else if (p->runtime) {
		err = py_read_ptr(p, p->runtime, PY_RT_TSTATE_CURRENT, &v);
	} else if (p->tstate_current) {
		err = sg_target_read_u64(p->target, p->tstate_current, &v);
	}
	sg_error_destroy(err);
	return err ? 0 : v;
}

/* Before 3.11 a thread state knows only its pthread_t; on x86-64 glibc
   that is the thread's TCB, which its fs_base points to.  */
static pid_t tid_of_pthread(struct py_proc *p, uint64_t pthread)
{
	size_t n = sg_target_thread_count(p->target);
	for (size_t i = 0; i < n; i++) {
		const struct sg_regs *r = sg_thread_regs(sg_target_thread(p->target, i));
		if (sg_regs_has(r, SG_REG_FS_BASE) && r->r[SG_REG_FS_BASE] == pthread)
			return sg_thread_tid(sg_target_thread(p->target, i));
	}
	return 0;
}

struct sg_error *py_threads(struct py_proc *p,
			    int (*fn)(const struct py_thread *thread, void *arg), void *arg)
{
	uint64_t interp;
	struct sg_error *err = first_interpreter(p, &interp);
	if (err)
		return sg_error_prefix(err, "cannot read the interpreter list");
	if (!interp)
		return sg_error_create(SG_ERROR_TARGET,
				       "Python is not running yet, or has finalized: no interpreter");
	/* Thread states are unique across interpreters: one set and one
	   cap for all.  */
	struct seen interps = { .max = 2 * MAX_INTERPRETERS }, states = { .max = 2 * MAX_THREADS };
	size_t nt = 0;
	for (size_t ni = 0; interp && !err; ni++) {
		if (ni == MAX_INTERPRETERS || !seen_add(&interps, interp)) {
			err = sg_error_format(SG_ERROR_BAD_DATA, "the interpreter list loops at 0x%" PRIx64,
					      interp);
			break;
		}
		uint64_t ts, holder = gil_holder(p, interp);
		err = py_read_ptr(p, interp, PY_IS_THREADS, &ts);
		for (; !err && ts; nt++) {
			if (nt == MAX_THREADS || !seen_add(&states, ts)) {
				err = sg_error_format(SG_ERROR_BAD_DATA,
						      "the thread list loops at 0x%" PRIx64, ts);
				break;
			}
			struct py_thread th = { .tstate = ts, .interp = interp };
			uint64_t native = 0;
			err = py_read_field(p, ts, PY_TS_THREAD_ID, &th.thread_id);
			if (!err && py_has(p, PY_TS_NATIVE_ID))
				err = py_read_field(p, ts, PY_TS_NATIVE_ID, &native);
			if (!err)
				err = py_read_ptr(p, ts, PY_TS_NEXT, &ts);
			if (err)
				break;
			th.tid = native ? (pid_t)native : tid_of_pthread(p, th.thread_id);
			th.holds_gil = holder == th.tstate;
			if (fn(&th, arg) != SG_CB_OK)
				goto out;
		}
		if (!err)
			err = py_read_ptr(p, interp, PY_IS_NEXT, &interp);
	}
	if (err)
		err = sg_error_prefix(err, "cannot read the thread list");
out:
	seen_free(&interps);
	seen_free(&states);
	return err;
}

bool py_gc_running(struct py_proc *p)
{
	uint64_t interp, v = 0;
	struct sg_error *err = NULL;
	if (py_has(p, PY_RT_GC_COLLECTING) && p->runtime)
		err = py_read_field(p, p->runtime, PY_RT_GC_COLLECTING, &v);
	else if (py_has(p, PY_IS_GC_COLLECTING) && !(err = first_interpreter(p, &interp)) && interp)
		err = py_read_field(p, interp, PY_IS_GC_COLLECTING, &v);
	sg_error_destroy(err);
	return !err && v;
}

/* ---- frames ---- */

/* The Nth frame of a walk, FRAME, is one too many or seen before.  */
static struct sg_error *seen_check(struct seen *s, size_t n, uint64_t frame)
{
	if (n == MAX_FRAMES)
		return sg_error_format(SG_ERROR_BAD_DATA, "more than %d frames", MAX_FRAMES);
	if (!seen_add(s, frame))
		return sg_error_format(SG_ERROR_BAD_DATA, "the frame chain loops at 0x%" PRIx64,
				       frame);
	return NULL;
}

static struct sg_error *emit(struct py_proc *p, uint64_t frame, uint64_t code, int64_t pos,
			     bool entry, int (*fn)(const struct py_frame *, void *), void *arg,
			     bool *stop)
{
	struct py_code *c = code_get(p, code);
	if (!c)
		return &sg_enomem;
	if (c->err)
		return sg_error_format(SG_ERROR_BAD_DATA, "frame 0x%" PRIx64 ": %s", frame,
				       sg_error_message(c->err));
	struct py_frame f = {
		.address = frame,
		.code = code,
		.function = c->name,
		.file = c->file,
		.line = code_line(p, c, pos),
		.entry = entry,
	};
	*stop = fn(&f, arg) != SG_CB_OK;
	return NULL;
}

static struct sg_error *walk_old(struct py_proc *p, uint64_t frame,
				 int (*fn)(const struct py_frame *, void *), void *arg)
{
	struct seen seen = { .max = 2 * MAX_FRAMES };
	struct sg_error *err = NULL;
	bool stop = false;
	for (size_t n = 0; frame && !stop; n++) {
		if ((err = seen_check(&seen, n, frame)))
			break;
		uint64_t code, lasti, back;
		err = py_read_ptr(p, frame, PY_F_CODE, &code);
		if (!err)
			err = py_read_field(p, frame, PY_F_LASTI, &lasti);
		if (!err)
			err = py_read_ptr(p, frame, PY_F_BACK, &back);
		if (err) {
			err = sg_error_prefix(err, "Python frame at 0x%" PRIx64, frame);
			break;
		}
		if ((err = emit(p, frame, code, (int64_t)(int32_t)lasti, true, fn, arg, &stop)))
			break;
		frame = back;
	}
	seen_free(&seen);
	return err;
}

/* The code object FRAME runs, or NULL for none (3.13+: an executable
   that is no code object).  3.14 tags f_executable as a _PyStackRef in
   its low bits.  */
static struct sg_error *frame_code(struct py_proc *p, uint64_t frame, struct py_code **ret)
{
	uint64_t code;
	struct sg_error *err = py_read_ptr(p, frame, PY_IF_CODE, &code);
	if (err)
		return err;
	if (p->version >= PY_V(3, 14))
		code &= ~UINT64_C(3);
	*ret = NULL;
	if (!code)
		return NULL;
	struct py_code *c = code_get(p, code);
	if (!c)
		return &sg_enomem;
	/* One that cannot be read fails the frame when it is shown.  */
	*ret = c->not_code ? NULL : c;
	return NULL;
}

static struct sg_error *walk_new(struct py_proc *p, uint64_t frame,
				 int (*fn)(const struct py_frame *, void *), void *arg)
{
	struct seen seen = { .max = 2 * MAX_FRAMES };
	struct sg_error *err = NULL;
	bool stop = false;
	/* The frame waiting to be emitted: whether it is an entry frame
	   is known only from its caller (3.12+).  */
	uint64_t pend = 0, pend_code = 0;
	int64_t pend_pos = 0;
	bool pend_entry = false;
	for (size_t n = 0; frame && !stop; n++) {
		if ((err = seen_check(&seen, n, frame)))
			break;
		uint64_t owner, instr, prev, entry = 0;
		struct py_code *c;
		err = py_read_field(p, frame, PY_IF_OWNER, &owner);
		if (!err)
			err = py_read_ptr(p, frame, PY_IF_PREVIOUS, &prev);
		if (err) {
			err = sg_error_prefix(err, "Python frame at 0x%" PRIx64, frame);
			break;
		}
		bool shim = (int)owner == p->owner_cstack || (int)owner == p->owner_interpreter;
		if (shim) {
			pend_entry = true;
			frame = prev;
			continue;
		}
		err = frame_code(p, frame, &c);
		if (!err)
			err = py_read_ptr(p, frame, PY_IF_INSTR, &instr);
		if (!err && py_has(p, PY_IF_IS_ENTRY))
			err = py_read_field(p, frame, PY_IF_IS_ENTRY, &entry);
		if (err) {
			err = sg_error_prefix(err, "Python frame at 0x%" PRIx64, frame);
			break;
		}
		if (!c) {
			frame = prev;
			continue;
		}
		int64_t pos = ((int64_t)instr - (int64_t)(c->address + p->offs.off[PY_CO_CODE_ADAPTIVE])) / 2;
		/* 3.11 and 3.12 link a frame before it has run its first
		   instruction; CPython hides such incomplete frames too.  */
		if (c->firsttraceable >= 0 && owner != OWNER_GENERATOR && pos < c->firsttraceable) {
			frame = prev;
			continue;
		}
		if (pend && (err = emit(p, pend, pend_code, pend_pos, pend_entry, fn, arg, &stop)))
			break;
		pend = frame;
		pend_code = c->address;
		pend_pos = pos;
		pend_entry = entry != 0;
		frame = prev;
	}
	/* The outermost frame was entered from C.  A walk that broke off
	   still shows the frame it had read.  */
	if (!stop && pend) {
		struct sg_error *e = emit(p, pend, pend_code, pend_pos, true, fn, arg, &stop);
		if (err)
			sg_error_destroy(e);
		else
			err = e;
	}
	seen_free(&seen);
	return err;
}

struct sg_error *py_frames(struct py_proc *p, uint64_t tstate,
			   int (*fn)(const struct py_frame *frame, void *arg), void *arg)
{
	uint64_t frame;
	struct sg_error *err;
	if (py_has(p, PY_TS_CFRAME)) {
		uint64_t cframe;
		err = py_read_ptr(p, tstate, PY_TS_CFRAME, &cframe);
		if (!err)
			err = cframe ? py_read_ptr(p, cframe, PY_CF_CURRENT, &frame)
				     : (frame = 0, NULL);
	} else {
		err = py_read_ptr(p, tstate, PY_TS_FRAME, &frame);
	}
	if (err)
		return sg_error_prefix(err, "thread state 0x%" PRIx64, tstate);
	return p->version >= PY_V(3, 11) ? walk_new(p, frame, fn, arg)
					 : walk_old(p, frame, fn, arg);
}
