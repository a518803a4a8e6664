/* The unwind driver and stacks.

   Physical frames come from the registered unwinders, chained per frame by
   priority: the first that knows the frame's pc gives its caller.  The
   driver checks each step (the stack pointer must move up, no frame may
   repeat) and caps the depth, so a corrupt or hostile stack ends the walk
   with a reason instead of looping.  Each physical frame is then described
   as logical frames (frame.c).  */
#include <config.h>
#include "internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>

/* A hard cap under any "backtrace limit": a stack this deep is corrupt or
   hostile, and each frame costs memory.  */
#define MAX_PHYSICAL_FRAMES 100000

struct phys_frame {
	struct sg_unwind_frame f;
	const char *unwinder;
};

struct sg_stack {
	struct sg_thread *thread;
	struct phys_frame *phys;
	size_t nphys, phys_cap;
	struct sg_frame *frames;
	size_t nframes, frames_cap;
	char *stop_reason;
	bool truncated;
	/* Entry values found so far (tailcall.c), a table of struct
	   entry_memo: a recursion's frames each ask their caller's, which
	   would make a bt quadratic.  */
	struct sg_table memo;
};

struct entry_memo {
	uint64_t key;		/* level << 16 | reg, plus one; 0: empty */
	int budget;		/* not found with this many callers left to follow */
	bool found;
	uint64_t value;
};

static bool memo_used(const void *e) { return ((const struct entry_memo *)e)->key != 0; }
static uint64_t memo_hash(const void *e) { return sg_hash64(((const struct entry_memo *)e)->key); }
static bool memo_eq(const void *e, const void *key)
{
	return ((const struct entry_memo *)e)->key == *(const uint64_t *)key;
}
static const struct sg_table_type memo_table = { sizeof(struct entry_memo), 64, memo_used, memo_hash };

static uint64_t memo_key(size_t level, unsigned reg)
{
	return ((uint64_t)level << 16 | (reg & 0xffff)) + 1;
}

bool sg_stack_memo_get(const struct sg_stack *st, size_t level, unsigned reg, int budget,
		       bool *found, uint64_t *value)
{
	uint64_t key = memo_key(level, reg);
	const struct entry_memo *m = sg_table_find((struct sg_table *)&st->memo, &memo_table,
						   sg_hash64(key), memo_eq, &key, false);
	/* A value holds for any budget; "not found" only for a budget no
	   larger than the one that found nothing.  */
	if (!m || (!m->found && budget > m->budget))
		return false;
	*found = m->found;
	*value = m->value;
	return true;
}

void sg_stack_memo_put(const struct sg_stack *cst, size_t level, unsigned reg, int budget,
		       bool found, uint64_t value)
{
	struct sg_stack *st = (struct sg_stack *)cst;	/* a cache, not the stack */
	uint64_t key = memo_key(level, reg);
	struct entry_memo *m = sg_table_find(&st->memo, &memo_table, sg_hash64(key), memo_eq, &key,
					     true);
	if (m)
		*m = (struct entry_memo){ key, budget, found, value };
}

size_t sg_stack_count(const struct sg_stack *st) { return st->nframes; }

bool sg_stack_cfa(const struct sg_stack *st, size_t level, uint64_t *ret)
{
	if (level >= st->nframes)
		return false;
	/* The caller's stack pointer, from the physical frames, which the
	   past-main cut leaves whole.  */
	size_t caller = st->frames[level].physical + 1;
	if (caller >= st->nphys || !sg_regs_has(&st->phys[caller].f.regs, SG_REG_RSP))
		return false;
	*ret = st->phys[caller].f.regs.r[SG_REG_RSP];
	return true;
}
struct sg_thread *sg_stack_thread(const struct sg_stack *st) { return st->thread; }
const char *sg_stack_stop_reason(const struct sg_stack *st) { return st->stop_reason; }
bool sg_stack_truncated(const struct sg_stack *st) { return st->truncated; }

const struct sg_frame *sg_stack_frame(const struct sg_stack *st, size_t level)
{
	return level < st->nframes ? &st->frames[level] : NULL;
}

void sg_stack_destroy(struct sg_stack *st)
{
	if (!st)
		return;
	free(st->phys);
	free(st->frames);
	free(st->stop_reason);
	free(st->memo.slots);
	free(st);
}

static void set_reason(struct sg_stack *st, const char *fmt, ...) SG_PRINTF(2, 3);
static void set_reason(struct sg_stack *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(st->stop_reason);
	if (vasprintf(&st->stop_reason, fmt, ap) < 0)
		st->stop_reason = NULL;
	va_end(ap);
}

static const struct sg_handler *find_unwinder(struct sg_session *s, const char *name)
{
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_UNWINDER]; i++)
		if (!strcmp(s->handlers[SG_REGISTRY_UNWINDER][i].e.name, name))
			return &s->handlers[SG_REGISTRY_UNWINDER][i];
	return NULL;
}

static struct sg_error *unwind_physical(struct sg_session *s, struct sg_target *t,
					struct sg_stack *st, const struct sg_regs *regs,
					const char *only, size_t limit)
{
	const struct sg_handler *forced = NULL;
	if (only && !(forced = find_unwinder(s, only))) {
		struct sg_buf b;
		sg_buf_init(&b);
		for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_UNWINDER]; i++)
			sg_buf_printf(&b, "%s%s", i ? ", " : "", s->handlers[SG_REGISTRY_UNWINDER][i].e.name);
		struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP, "no unwinder named \"%s\" (loaded: %s)",
						       only, b.len ? b.data : "none");
		sg_buf_deinit(&b);
		return err;
	}
	struct phys_frame *f0 = sg_array_push(&st->phys, &st->nphys, &st->phys_cap, sizeof(*f0));
	if (!f0)
		return &sg_enomem;
	f0->f.regs = *regs;
	f0->f.activation = true;
	size_t nunwinders = forced ? 1 : s->nhandlers[SG_REGISTRY_UNWINDER];
	if (nunwinders == 0) {
		set_reason(st, "no unwinder is loaded (the cfi-unwind and fp-unwind plugins)");
		return NULL;
	}
	if (limit == 0 || limit > MAX_PHYSICAL_FRAMES)
		limit = MAX_PHYSICAL_FRAMES;
	while (st->nphys < limit) {
		/* The caller is unwound in place, into the next slot.  */
		if (st->nphys == st->phys_cap) {
			if (!sg_array_push(&st->phys, &st->nphys, &st->phys_cap, sizeof(*st->phys)))
				return &sg_enomem;
			st->nphys--;
		}
		const struct phys_frame *callee = &st->phys[st->nphys - 1];
		struct phys_frame *pf = &st->phys[st->nphys];
		struct sg_unwind_frame *cf = &pf->f;
		const struct sg_handler *by = NULL;
		bool outermost = false;
		for (size_t k = 0; k < nunwinders && !by && !outermost; k++) {
			const struct sg_handler *h = forced ? forced : &s->handlers[SG_REGISTRY_UNWINDER][k];
			const struct sg_unwinder_ops *ops = h->e.ops;
			memset(cf, 0, sizeof(*cf));
			struct sg_error *err = ops->step(t, &callee->f, cf, h->e.arg);
			if (!err) {
				by = h;
			} else if (sg_error_code(err) == SG_ERROR_STOP) {
				outermost = true;
			} else if (sg_error_code(err) != SG_ERROR_NOT_FOUND) {
				if (sg_error_code(err) == SG_ERROR_TARGET) {
					/* The process died: no stack to speak of.  */
					return err;
				}
				set_reason(st, "%s", sg_error_message(err));
				sg_error_destroy(err);
				return NULL;
			}
			sg_error_destroy(err);
		}
		if (outermost)
			return NULL;
		uint64_t pc = callee->f.regs.r[SG_REG_RIP];
		if (!by) {
			set_reason(st, "no unwind information for pc 0x%" PRIx64, pc);
			return NULL;
		}
		if (!sg_regs_has(&cf->regs, SG_REG_RIP) || cf->regs.r[SG_REG_RIP] == 0)
			return NULL;	/* a zero return address ends the stack, as in gdb */
		uint64_t sp = callee->f.regs.r[SG_REG_RSP];
		uint64_t csp = cf->regs.r[SG_REG_RSP];
		if (!sg_regs_has(&cf->regs, SG_REG_RSP)) {
			set_reason(st, "frame at pc 0x%" PRIx64 " has no stack pointer", pc);
			return NULL;
		}
		/* A signal may run on another stack (sigaltstack), so only a
		   normal call must move the stack pointer up.  */
		if (!cf->activation && csp <= sp) {
			if (csp == sp && cf->regs.r[SG_REG_RIP] == pc)
				set_reason(st, "previous frame identical to this frame (corrupt stack?)");
			else
				set_reason(st, "previous frame inner to this frame (corrupt stack?)");
			return NULL;
		}
		pf->unwinder = by->e.name;
		st->nphys++;
	}
	st->truncated = true;
	return NULL;
}

/* As gdb does by default, end the stack at the executable's main: what
   runs before it (__libc_start_call_main, _start) is rarely of interest.  */
static void cut_after_main(struct sg_target *t, struct sg_stack *st)
{
	const char *exe = sg_target_exe(t);
	for (size_t i = 0; i < st->nframes; i++) {
		const struct sg_frame *f = &st->frames[i];
		if (!f->function || strcmp(f->function, "main") || !f->module ||
		    (exe && strcmp(f->module->name, exe)))
			continue;
		/* Keep main's inlined callers' frames (none, usually).  */
		size_t end = i + 1;
		while (end < st->nframes && st->frames[end].physical == f->physical)
			end++;
		st->nframes = end;
		st->truncated = false;
		free(st->stop_reason);
		st->stop_reason = NULL;
		return;
	}
}

/* The frames the prewarm described already: a frame's pc and kind, and
   its caller's pc, which are all the keys of the description and
   tail-call caches.  The threads of a process share most frames.  */
struct seen_frame {
	uint64_t key;		/* pc << 2 | activation << 1 | trampoline, plus one; 0: empty */
	uint64_t caller;	/* the caller's pc, or 0 */
};

static bool seen_used(const void *e) { return ((const struct seen_frame *)e)->key != 0; }

static uint64_t seen_hash(const void *e)
{
	const struct seen_frame *f = e;
	return sg_hash64(f->key * UINT64_C(0x9e3779b97f4a7c15) ^ f->caller);
}

static bool seen_eq(const void *e, const void *key)
{
	const struct seen_frame *a = e, *b = key;
	return a->key == b->key && a->caller == b->caller;
}

static const struct sg_table_type seen_table = { sizeof(struct seen_frame), 256, seen_used, seen_hash };

/* Whether SEEN had physical frame I of ST (its trampoline flag TRAMP);
   adds it.  */
static bool seen_before(struct sg_table *seen, const struct sg_stack *st, size_t i, bool tramp)
{
	const struct sg_unwind_frame *f = &st->phys[i].f;
	struct seen_frame key = {
		(f->regs.r[SG_REG_RIP] << 2 | (f->activation ? 2 : 0) | (tramp ? 1 : 0)) + 1,
		i + 1 < st->nphys ? st->phys[i + 1].f.regs.r[SG_REG_RIP] : 0,
	};
	uint64_t h = seen_hash(&key);
	if (sg_table_find(seen, &seen_table, h, seen_eq, &key, false))
		return true;
	struct seen_frame *e = sg_table_find(seen, &seen_table, h, seen_eq, &key, true);
	if (e)
		*e = key;
	return false;
}

/* Unwind from REGS on T (THREAD may be NULL) into a new stack.  With SEEN
   (the prewarm), frames described before are skipped: their descriptions
   are in the caches already, and the stack is thrown away.  */
static struct sg_error *stack_build(struct sg_session *s, struct sg_target *t,
				   struct sg_thread *thread, const struct sg_regs *regs,
				   const char *only, size_t limit, unsigned flags,
				   struct sg_table *seen, struct sg_stack **ret)
{
	struct sg_stack *st = calloc(1, sizeof(*st));
	if (!st)
		return &sg_enomem;
	st->thread = thread;
	struct sg_error *err = unwind_physical(s, t, st, regs, only, limit);
	if (!err && !(flags & SG_UNWIND_NO_SYMBOLS)) {
		for (size_t i = 0; i < st->nphys && !err; i++) {
			const struct phys_frame *p = &st->phys[i];
			/* A frame whose caller has an exact pc was interrupted
			   by a signal: it is the signal trampoline.  */
			bool tramp = i > 0 && i + 1 < st->nphys && st->phys[i + 1].f.activation;
			if (seen && seen_before(seen, st, i, tramp))
				continue;
			err = sg_frame_describe(t, &p->f, tramp, p->unwinder, i, &st->frames,
						&st->nframes, &st->frames_cap);
			/* Functions that tail-called this frame sit between it
			   and its caller.  */
			const struct sg_frame *outer = st->nframes ? &st->frames[st->nframes - 1] : NULL;
			if (!err && outer && outer->has_offset && i + 1 < st->nphys &&
			    !st->phys[i + 1].f.activation && !tramp)
				err = sg_frame_tailcalls(t, outer->pc - outer->offset,
							 st->phys[i + 1].f.regs.r[SG_REG_RIP],
							 &st->frames, &st->nframes, &st->frames_cap, i,
							 &p->f.regs);
		}
	}
	if (!err && !(flags & SG_UNWIND_NO_SYMBOLS) && !sg_setting_uint(s, "backtrace past-main", 0))
		cut_after_main(t, st);
	if (err) {
		sg_stack_destroy(st);
		return err;
	}
	*ret = st;
	return NULL;
}

struct sg_error *sg_stack_unwind(struct sg_session *s, struct sg_thread *thread, const char *only,
				 size_t limit, unsigned flags, struct sg_stack **ret)
{
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	if (err)
		return err;
	if (!limit) {
		uint64_t l = sg_setting_uint(s, "backtrace limit", UINT64_MAX);
		limit = l == UINT64_MAX ? 0 : l;
	}
	return stack_build(s, t, thread, sg_thread_regs(thread), only, limit, flags, NULL, ret);
}

/* Before the stop: look up the names commands will need
   (sg_session_hint_name), and unwind each thread that sits in a system
   call from the pc and stack pointer /proc/PID/task/TID/syscall shows,
   without stopping it.  The stack may change under us, so the result is thrown away; what
   stays are the caches keyed by pc (CFI rows, frame descriptions,
   tail-call paths), which the real unwind after the stop then finds warm.
   The target's page cache is dropped after the stop.  */
#define MAX_PREWARM_THREADS 4096
#define MAX_PREWARM_FRAMES 256
void sg_session_prewarm(struct sg_target *t, void *arg)
{
	struct sg_session *s = arg;
	/* The names commands will look up, as a variable and as a type:
	   the lookups' caches keep both answers, found or not.  */
	for (size_t i = 0; i < s->nhints; i++) {
		Dwarf_Die die;
		uint64_t addr;
		if (s->hints[i].kinds & SG_NAME_VARIABLE)
			sg_error_destroy(sg_lookup_variable(t, s->hints[i].name, &die, &addr));
		if (s->hints[i].kinds & SG_NAME_TYPE)
			sg_error_destroy(sg_lookup_type(t, s->hints[i].name, &die));
	}
	s->prewarmed = t;
	sg_registry_prepare_target(s, t);
	/* Unwinds that will read a snapshot run after the release: the
	   caches they fill then cost the target nothing, and warming them
	   here would only walk every stack twice.  */
	if (!s->nhandlers[SG_REGISTRY_UNWINDER] || s->no_stacks || s->snapshot_next)
		return;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	DIR *dir = opendir(path);
	if (!dir)
		return;
	struct dirent *de;
	struct sg_table seen = { 0 };
	for (size_t n = 0; (de = readdir(dir)) && n < MAX_PREWARM_THREADS;) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		uint64_t pc, sp;
		if (!sg_task_pc_sp(t->pid, de->d_name, &pc, &sp))
			continue;
		struct sg_regs regs = { 0 };
		sg_regs_set(&regs, SG_REG_RIP, pc);
		sg_regs_set(&regs, SG_REG_RSP, sp);
		struct sg_stack *st;
		if (stack_build(s, t, NULL, &regs, NULL, MAX_PREWARM_FRAMES, 0, &seen, &st) == NULL)
			sg_stack_destroy(st);
	}
	free(seen.slots);
	closedir(dir);
}

/* ---- the session's selected stack and frame ---- */

void sg_session_forget_stack(struct sg_session *s)
{
	sg_stack_destroy(s->stack);
	s->stack = NULL;
	s->frame = 0;
}

struct sg_error *sg_session_stack(struct sg_session *s, struct sg_stack **ret)
{
	struct sg_thread *th = sg_session_thread(s);
	if (!th)
		return sg_error_create(SG_ERROR_TARGET, "No stack.");
	if (s->stack && s->stack->thread != th)
		sg_session_forget_stack(s);
	if (!s->stack) {
		struct sg_error *err = sg_stack_unwind(s, th, NULL, 0, 0, &s->stack);
		if (err)
			return err;
	}
	*ret = s->stack;
	return NULL;
}

size_t sg_session_frame(struct sg_session *s) { return s->frame; }

struct sg_error *sg_session_select_frame(struct sg_session *s, size_t level)
{
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(s, &st);
	if (err)
		return err;
	if (level >= st->nframes)
		return sg_error_format(SG_ERROR_USAGE, "No frame at level %zu.", level);
	s->frame = level;
	return NULL;
}
