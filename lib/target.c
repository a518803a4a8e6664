/* Backend-independent target code: accessors, bounded reads, modules.  */
#include <config.h>
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

static const char *const reg_names[SG_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs",
	"fs_base", "gs_base", "orig_rax",
};

const char *sg_reg_name(enum sg_reg reg)
{
	return (unsigned)reg < SG_NREGS ? reg_names[reg] : NULL;
}

int sg_reg_lookup(const char *name)
{
	if (name[0] == '$')
		name++;
	if (!strcmp(name, "pc"))
		return SG_REG_RIP;
	if (!strcmp(name, "sp"))
		return SG_REG_RSP;
	if (!strcmp(name, "fp"))
		return SG_REG_RBP;
	for (int i = 0; i < SG_NREGS; i++)
		if (!strcmp(name, reg_names[i]))
			return i;
	return -1;
}

pid_t sg_thread_tid(const struct sg_thread *thread) { return thread->tid; }
const char *sg_thread_name(const struct sg_thread *thread) { return thread->name; }
char sg_thread_state(const struct sg_thread *thread) { return thread->state; }
const struct sg_regs *sg_thread_regs(const struct sg_thread *thread) { return &thread->regs; }
size_t sg_thread_index(const struct sg_thread *thread) { return thread->index; }

enum sg_target_kind sg_target_kind(const struct sg_target *target) { return target->kind; }
pid_t sg_target_pid(const struct sg_target *target) { return target->pid; }
const char *sg_target_exe(const struct sg_target *target) { return target->exe; }
size_t sg_target_thread_count(const struct sg_target *target) { return target->nthreads; }

struct sg_thread *sg_target_thread(const struct sg_target *target, size_t i)
{
	return i < target->nthreads ? &target->threads[i] : NULL;
}

struct sg_thread *sg_target_thread_by_tid(const struct sg_target *target, pid_t tid)
{
	for (size_t i = 0; i < target->nthreads; i++)
		if (target->threads[i].tid == tid)
			return &target->threads[i];
	return NULL;
}

bool sg_target_alive(struct sg_target *target)
{
	return target->ops->alive ? target->ops->alive(target) : true;
}

uint64_t sg_target_paused_ns(const struct sg_target *target)
{
	if (!target->stop_start_ns)
		return 0;
	uint64_t end = target->stop_end_ns ? target->stop_end_ns : sg_now_ns();
	return end - target->stop_start_ns;
}

static void drop_modules(struct sg_target *t);

/* A read can fail with ESRCH before the kernel has made the exit status
   of a killed tracee available to waitpid: give it a moment, so that the
   error can say which signal it was.  */
static void wait_for_exit_status(struct sg_target *t)
{
	if (t->gone || t->kind != SG_TARGET_LIVE || !t->ops->alive)
		return;
	uint64_t deadline = sg_now_ns() + 100 * 1000000;
	while (t->ops->alive(t) && sg_now_ns() < deadline) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

struct sg_module *sg_target_exe_module(struct sg_target *t)
{
	for (size_t i = 0; t->exe && i < t->nmodules; i++)
		if (!strcmp(t->modules[i]->name, t->exe))
			return t->modules[i];
	return NULL;
}

struct sg_error *sg_target_exited(struct sg_target *t)
{
	return t->gone ? sg_target_gone_error(t) : sg_target_interrupted();
}

struct sg_error *sg_target_interrupted(void)
{
	return sg_interrupt_pending() ? sg_interrupt_error() : NULL;
}

struct sg_error *sg_target_gone_error(struct sg_target *t)
{
	wait_for_exit_status(t);
	int st = t->gone_status;
	if (t->gone && WIFSIGNALED(st))
		return sg_error_format(SG_ERROR_TARGET,
				       "process %d exited while attached (killed by signal %d, %s)",
				       t->pid, WTERMSIG(st), sigabbrev_np(WTERMSIG(st)) ?: "?");
	if (t->gone && WIFEXITED(st) && st)
		return sg_error_format(SG_ERROR_TARGET,
				       "process %d exited while attached (exit status %d)",
				       t->pid, WEXITSTATUS(st));
	return sg_error_format(SG_ERROR_TARGET, "process %d exited while attached", t->pid);
}

void sg_target_stats(const struct sg_target *target, struct sg_target_stats *ret)
{
	*ret = target->stats;
	for (size_t i = 0; i < target->nmodules; i++) {
		if (!target->modules[i]->names)
			continue;
		struct sg_name_index_stats s;
		sg_name_index_stats(target->modules[i]->names, &s);
		ret->index_modules++;
		ret->index_units += s.units_scanned;
		ret->index_names += s.entries;
	}
}

/* Every read of the process's memory goes through here.  */
static struct sg_error *fetch(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	t->stats.fetches++;
	t->stats.bytes_fetched += size;
	return t->ops->read(t, address, buf, size);
}

/* The cached page at PAGE, reading it on a miss; NULL if it cannot be read
   whole (the caller then reads directly, for an exact error).  */
static const unsigned char *page_cache_get(struct sg_target *t, uint64_t page)
{
	struct sg_page_cache *c = t->pages;
	if (!c) {
		if (!(c = t->pages = calloc(1, sizeof(*c))))
			return NULL;
	}
	size_t slot = (page / SG_PAGE_SIZE) % SG_PAGE_CACHE_SLOTS;
	struct sg_cached_page *p = &c->slots[slot];
	if (p->data && p->page == page)
		return p->partial ? NULL : p->data;
	if (!p->data && !(p->data = malloc(SG_PAGE_SIZE)))
		return NULL;
	struct sg_error *err = fetch(t, page, p->data, SG_PAGE_SIZE);
	sg_error_destroy(err);
	p->page = page;
	p->partial = err != NULL;
	return err ? NULL : p->data;
}

void sg_page_cache_clear(struct sg_page_cache *c)
{
	for (size_t i = 0; c && i < SG_PAGE_CACHE_SLOTS; i++)
		c->slots[i].page = SG_PAGE_EMPTY;
}

void sg_page_cache_destroy(struct sg_page_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < SG_PAGE_CACHE_SLOTS; i++)
		free(c->slots[i].data);
	free(c);
}

struct sg_error *sg_target_overlay_push(struct sg_target *t, uint64_t address, const void *data,
					const unsigned char *known, size_t size)
{
	if (t->noverlays == SG_TARGET_OVERLAYS)
		return sg_error_format(SG_ERROR_USAGE, "more than %d values outside memory at once",
				       SG_TARGET_OVERLAYS);
	if (address + size < address)
		return sg_error_fault(address, size, EFAULT);
	t->overlays[t->noverlays++] = (struct sg_overlay){ address, size, data, known };
	return NULL;
}

void sg_target_overlay_pop(struct sg_target *t)
{
	if (t->noverlays)
		t->noverlays--;
}

/* The overlay ADDRESS is in, or NULL.  */
static const struct sg_overlay *overlay_at(const struct sg_target *t, uint64_t address)
{
	for (unsigned i = t->noverlays; i-- > 0;) {
		const struct sg_overlay *o = &t->overlays[i];
		if (address >= o->address && address - o->address < o->size)
			return o;
	}
	return NULL;
}

/* A read that starts in overlay O: all of it in O and known, or a fault
   at the first byte that is not.  */
static struct sg_error *overlay_read(const struct sg_overlay *o, uint64_t address, void *buf,
				     size_t size)
{
	uint64_t off = address - o->address;
	for (size_t i = 0; i < size; i++)
		if (off + i >= o->size || (o->known && !o->known[off + i]))
			return sg_error_fault(address + i, size - i, EFAULT);
	memcpy(buf, o->data + off, size);
	return NULL;
}

struct sg_error *sg_target_read(struct sg_target *target, uint64_t address, void *buf,
				size_t size)
{
	if (size == 0)
		return NULL;
	if (address + size < address)
		return sg_error_fault(address, size, EFAULT);
	const struct sg_overlay *o = target->noverlays ? overlay_at(target, address) : NULL;
	if (o)
		return overlay_read(o, address, buf, size);
	if (target->gone)
		return sg_target_gone_error(target);
	/* Ctrl-C: a command reading memory in a loop stops at its next
	   read, page-cache hits included.  */
	if (sg_interrupt_pending())
		return sg_interrupt_error();
	target->stats.reads++;
	target->stats.bytes_read += size;
	/* Small reads (unwinding, list walks) go through a page cache: the
	   target is stopped, so its memory does not change under us, and a
	   warm unwind then costs no system call.  */
	uint64_t page = address & ~(uint64_t)(SG_PAGE_SIZE - 1);
	if (size <= 64 && address + size <= page + SG_PAGE_SIZE) {
		const unsigned char *data = page_cache_get(target, page);
		if (data) {
			memcpy(buf, data + (address - page), size);
			return NULL;
		}
	}
	return fetch(target, address, buf, size);
}

struct sg_error *sg_target_read_u64(struct sg_target *target, uint64_t address, uint64_t *ret)
{
	uint64_t v;
	struct sg_error *err = sg_target_read(target, address, &v, sizeof(v));
	if (!err)
		*ret = v;
	return err;
}

struct sg_error *sg_target_read_string(struct sg_target *target, uint64_t address, size_t max,
				       char **ret, bool *truncated_ret)
{
	/* Read page by page, through the page cache where the page can be
	   read whole (a name read once per sample then costs no system
	   call), else in chunks that stop at page boundaries, so a string
	   that ends just before an unmapped page is still read.  */
	struct sg_buf b;
	sg_buf_init(&b);
	bool truncated = true;
	while (b.len < max) {
		if (sg_interrupt_pending()) {
			sg_buf_deinit(&b);
			return sg_interrupt_error();
		}
		uint64_t at = address + b.len;
		uint64_t page = at & ~(uint64_t)(SG_PAGE_SIZE - 1);
		size_t want = SG_PAGE_SIZE - (at - page);
		if (want > max - b.len)
			want = max - b.len;
		const struct sg_overlay *o = target->noverlays ? overlay_at(target, at) : NULL;
		if (o && want > o->size - (at - o->address))
			want = o->size - (at - o->address);
		const unsigned char *data = target->gone || at < address || o
						    ? NULL : page_cache_get(target, page);
		if (data) {
			const unsigned char *src = data + (at - page);
			const unsigned char *nul = memchr(src, '\0', want);
			size_t n = nul ? (size_t)(nul - src) : want;
			target->stats.reads++;
			target->stats.bytes_read += n + (nul != NULL);
			sg_buf_append(&b, src, n);
			if (nul) {
				truncated = false;
				break;
			}
			continue;
		}
		char chunk[256];
		if (want > sizeof(chunk))
			want = sizeof(chunk);
		struct sg_error *err = sg_target_read(target, at, chunk, want);
		if (err) {
			sg_buf_deinit(&b);
			return err;
		}
		size_t n = strnlen(chunk, want);
		sg_buf_append(&b, chunk, n);
		if (n < want) {
			truncated = false;
			break;
		}
	}
	if (b.len >= max && truncated) {
		/* Exactly MAX bytes: is the next byte the NUL?  */
		char c;
		struct sg_error *err = sg_target_read(target, address + b.len, &c, 1);
		if (!err && c == '\0')
			truncated = false;
		sg_error_destroy(err);
	}
	char *s = sg_buf_steal(&b);
	if (!s)
		return &sg_enomem;
	*ret = s;
	if (truncated_ret)
		*truncated_ret = truncated;
	return NULL;
}

void sg_target_end(struct sg_target *t)
{
	if (t->ended)
		return;
	t->ended = true;
	if (t->ops->detach)
		t->ops->detach(t);
	/* The target runs again: now is the time for slow work.  */
	if (t->cache_debug && t->nmodules)
		sg_debug_cache_store(t);
}

void sg_target_destroy(struct sg_target *t)
{
	if (!t)
		return;
	sg_target_end(t);
	drop_modules(t);
	free(t->maps);
	free(t->mappings);
	free(t->maps_lines);
	sg_demangle_cache_destroy(t->demangled);
	sg_frame_cache_destroy(t->frame_cache);
	sg_page_cache_destroy(t->pages);
	free(t->threads);
	free(t->exe);
	free(t);
}

struct sg_error *sg_target_set_data(struct sg_target *t, const void *key, void *data,
				    void (*destroy)(void *data))
{
	for (size_t i = 0; i < t->ndata; i++) {
		struct sg_target_data *d = &t->data[i];
		if (d->key == key) {
			if (d->destroy && d->data != data)
				d->destroy(d->data);
			d->data = data;
			d->destroy = destroy;
			return NULL;
		}
	}
	struct sg_target_data *d = sg_array_push(&t->data, &t->ndata, &t->data_cap, sizeof(*d));
	if (!d)
		return &sg_enomem;
	*d = (struct sg_target_data){ key, data, destroy };
	return NULL;
}

void *sg_target_get_data(const struct sg_target *t, const void *key)
{
	for (size_t i = 0; i < t->ndata; i++)
		if (t->data[i].key == key)
			return t->data[i].data;
	return NULL;
}

/* ---- modules ---- */

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = sg_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

int sg_target_collect_module(Dwfl_Module *dwmod, void **userdata, const char *name,
			     Dwarf_Addr start, void *arg)
{
	struct sg_target *t = arg;
	struct sg_module *mod = calloc(1, sizeof(*mod));
	if (!mod)
		return DWARF_CB_ABORT;
	mod->dwmod = dwmod;
	/* libdwfl calls it "[vdso: PID]"; gdb and /proc/PID/maps say "[vdso]". */
	mod->name = !strncmp(name, "[vdso", 5) ? "[vdso]" : name;
	dwfl_module_info(dwmod, NULL, &mod->start, &mod->end, NULL, NULL, NULL, NULL);
	t->modules[t->nmodules++] = mod;
	*userdata = mod;
	return DWARF_CB_OK;
}

int sg_module_cmp(const void *a, const void *b)
{
	const struct sg_module *x = *(struct sg_module *const *)a;
	const struct sg_module *y = *(struct sg_module *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int sg_count_module(Dwfl_Module *m, void **u, const char *n, Dwarf_Addr s, void *arg)
{
	(*(size_t *)arg)++;
	return DWARF_CB_OK;
}

/* The /proc entry to read a live process's maps through: its first
   thread's, which is the leader unless the leader exited alone
   (pthread_exit), whose maps are empty (see target-ptrace.c).  */
static pid_t proc_pid(const struct sg_target *t)
{
	return t->kind == SG_TARGET_LIVE && t->nthreads ? t->threads[0].tid : t->pid;
}

/* /proc/PID/maps as text, in a new buffer, or NULL.  */
static char *read_maps(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	struct sg_buf b;
	sg_buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sg_buf_append(&b, chunk, n);
	fclose(f);
	return sg_buf_steal(&b);
}

static void drop_modules(struct sg_target *t)
{
	/* Frame descriptions point into the modules' DWARF.  */
	sg_frame_cache_destroy(t->frame_cache);
	t->frame_cache = NULL;
	sg_tailcall_cache_destroy(t->tailcalls);
	t->tailcalls = NULL;
	/* Lookup results point into the modules' DWARF too.  */
	sg_lookup_cache_destroy(t->lookups);
	t->lookups = NULL;
	sg_member_cache_destroy(t->members);
	t->members = NULL;
	sg_reader_cache_destroy(t->readers);
	t->readers = NULL;
	/* The callers' data may point into the DWARF as well.  */
	for (size_t i = 0; i < t->ndata; i++)
		if (t->data[i].destroy)
			t->data[i].destroy(t->data[i].data);
	free(t->data);
	t->data = NULL;
	t->ndata = t->data_cap = 0;
	for (size_t i = 0; i < t->nmodules; i++) {
		sg_symtab_destroy(t->modules[i]->symtab);
		sg_symnames_destroy(t->modules[i]->symnames);
		sg_name_index_destroy(t->modules[i]->names);
		free(t->modules[i]->build_id);
		free(t->modules[i]->link_name);
		free(t->modules[i]);
	}
	free(t->modules);
	t->modules = NULL;
	t->nmodules = 0;
	if (t->dwfl)
		dwfl_end(t->dwfl);
	t->dwfl = NULL;
}

/* The next line of the maps text at *P that maps a file (its path
   starts with '/'), or NULL; *P moves past it.  */
static const char *next_file_line(const char **p, size_t *len)
{
	while (**p) {
		const char *line = *p, *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		*p = line + n + (eol != NULL);
		/* The path is the sixth field; the fifth (the inode) is 0
		   for anonymous memory.  */
		const char *q = line;
		for (int field = 0; field < 5 && q < line + n; field++) {
			q += strcspn(q, " \n");
			q += strspn(q, " ");
		}
		if (q < line + n && *q == '/') {
			*len = n;
			return line;
		}
	}
	return NULL;
}

/* Whether the maps texts A and B map the same files at the same places:
   the modules are the same, only anonymous memory (heap, stacks, arenas)
   differs.  */
static bool same_files(const char *a, const char *b)
{
	for (;;) {
		size_t la = 0, lb = 0;
		const char *x = next_file_line(&a, &la), *y = next_file_line(&b, &lb);
		if (!x || !y)
			return x == y;
		if (la != lb || memcmp(x, y, la))
			return false;
	}
}

struct sg_error *sg_target_refresh_modules(struct sg_target *t)
{
	if (!t->dwfl)
		return NULL;
	char *now = read_maps(proc_pid(t));
	if (now && t->maps && !strcmp(now, t->maps)) {
		free(now);
		return NULL;
	}
	if (now && t->maps && same_files(now, t->maps)) {
		/* New anonymous mappings (a thread's stack, a malloc arena):
		   the modules and what was learnt from them stay.  */
		bool parsed = t->mappings_parsed;
		free(t->maps);
		free(t->mappings);
		free(t->maps_lines);
		t->maps = now;
		t->mappings = NULL;
		t->maps_lines = NULL;
		t->nmappings = 0;
		t->mappings_parsed = false;
		if (parsed)
			sg_target_mapping_index(t, 0);	/* parse them again now */
		return NULL;
	}
	free(now);
	drop_modules(t);
	return sg_target_load_modules(t);
}

struct sg_error *sg_target_load_modules(struct sg_target *t)
{
	if (t->dwfl)
		return NULL;
	if (t->kind == SG_TARGET_LIVE) {
		free(t->maps);
		t->maps = read_maps(proc_pid(t));
		free(t->mappings);
		free(t->maps_lines);
		t->mappings = NULL;
		t->maps_lines = NULL;
		t->nmappings = 0;
		t->mappings_parsed = false;
	}
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);
	if (!dwfl)
		return sg_error_dwfl("dwfl_begin");
	dwfl_report_begin(dwfl);
	int r = dwfl_linux_proc_report(dwfl, proc_pid(t));
	if (dwfl_report_end(dwfl, NULL, NULL) != 0 || r != 0) {
		/* ESRCH: /proc/PID went while it was read, though a dying
		   process can still look alive for a moment.  */
		struct sg_error *err = r == ESRCH || !sg_target_alive(t) ? sg_target_gone_error(t)
			: r > 0
			? sg_error_os(r, "cannot read the modules of process %d", t->pid)
			: sg_error_dwfl("cannot report modules");
		dwfl_end(dwfl);
		return err;
	}
	size_t n = 0;
	dwfl_getmodules(dwfl, sg_count_module, &n, 0);
	t->modules = calloc(n ? n : 1, sizeof(*t->modules));
	if (!t->modules) {
		dwfl_end(dwfl);
		return &sg_enomem;
	}
	t->dwfl = dwfl;
	t->nmodules = 0;
	if (dwfl_getmodules(dwfl, sg_target_collect_module, t, 0) != 0)
		return &sg_enomem;
	qsort(t->modules, t->nmodules, sizeof(*t->modules), sg_module_cmp);
	if (t->kind == SG_TARGET_LIVE)
		sg_target_link_map_names(t);
	return NULL;
}

struct sg_error *sg_target_modules(struct sg_target *target,
				   int (*fn)(struct sg_module *mod, void *arg), void *arg)
{
	struct sg_error *err = sg_target_load_modules(target);
	if (err)
		return err;
	for (size_t i = 0; i < target->nmodules; i++)
		if (fn(target->modules[i], arg) != SG_CB_OK)
			break;
	return NULL;
}

struct sg_module *sg_target_module_at(struct sg_target *target, uint64_t address)
{
	if (sg_target_load_modules(target))
		return NULL;
	Dwfl_Module *dwmod = dwfl_addrmodule(target->dwfl, address);
	if (!dwmod)
		return NULL;
	void **userdata;
	dwfl_module_info(dwmod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	return userdata ? *userdata : NULL;
}

void sg_module_info(struct sg_module *mod, struct sg_module_info *ret)
{
	const char *mainfile = NULL;
	Dwarf_Addr bias = 0;
	/* The ELF file is opened on first use; the build ID comes with it. */
	if (dwfl_module_getelf(mod->dwmod, &bias))
		dwfl_module_info(mod->dwmod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	if (!mod->build_id) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(mod->dwmod, &bits, &vaddr);
		if (n > 0 && (mod->build_id = malloc(2 * n + 1))) {
			for (int i = 0; i < n; i++)
				sprintf(mod->build_id + 2 * i, "%02x", bits[i]);
		}
	}
	ret->name = mod->name;
	ret->start = mod->start;
	ret->end = mod->end;
	ret->bias = bias;
	ret->build_id = mod->build_id;
	ret->file = mainfile;
}

bool sg_module_has_dwarf(struct sg_module *mod, const char **debug_file_ret)
{
	if (mod->dwarf_state == 0) {
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(mod->dwmod, &bias);
		mod->dwarf_state = dw ? 1 : -1;
		const char *mainfile = NULL, *debugfile = NULL;
		dwfl_module_info(mod->dwmod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
		if (dw && debugfile && (!mainfile || strcmp(debugfile, mainfile)))
			mod->debug_file = debugfile;
	}
	if (debug_file_ret)
		*debug_file_ret = mod->debug_file;
	return mod->dwarf_state > 0;
}

bool sg_module_has_symbols(struct sg_module *mod)
{
	return dwfl_module_getsymtab(mod->dwmod) > 0;
}
