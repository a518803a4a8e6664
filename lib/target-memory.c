/* A target that is only memory: ELF files reported at chosen addresses and
   a callback that reads the rest.  Nothing runs and nothing is attached.
   The fuzz targets build their fake processes with it, so that the value
   printer, the readers and the unwinders meet random memory through the
   same paths as a live process's.  */
#include <config.h>
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

struct memory_target {
	struct sg_target t;	/* first: sg_target_destroy frees it */
	sg_memory_read_fn *read;
	void *arg;
};

static struct sg_error *memory_read(struct sg_target *t, uint64_t address, void *buf,
				    size_t size)
{
	struct memory_target *m = (struct memory_target *)t;
	return m->read(m->arg, address, buf, size);
}

static const struct sg_target_ops memory_ops = {
	.read = memory_read,
};

static char *debuginfo_path;

static const Dwfl_Callbacks memory_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = sg_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static struct sg_error *report(struct sg_target *t, const struct sg_memory_module *mods, size_t n)
{
	Dwfl *dwfl = dwfl_begin(&memory_callbacks);
	if (!dwfl)
		return sg_error_dwfl("dwfl_begin");
	t->dwfl = dwfl;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < n; i++) {
		int fd = open(mods[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return sg_error_os(errno, "cannot open %s", mods[i].path);
		/* libdwfl owns FD from here, also on failure.  */
		if (!dwfl_report_elf(dwfl, mods[i].path, mods[i].path, fd, mods[i].base, false))
			return sg_error_dwfl(mods[i].path);
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0)
		return sg_error_dwfl("cannot report modules");
	if (!(t->modules = calloc(n ? n : 1, sizeof(*t->modules))))
		return &sg_enomem;
	if (dwfl_getmodules(dwfl, sg_target_collect_module, t, 0) != 0)
		return &sg_enomem;
	qsort(t->modules, t->nmodules, sizeof(*t->modules), sg_module_cmp);
	if (t->nmodules)
		t->exe = strdup(mods[0].path);
	return NULL;
}

struct sg_error *sg_memory_target_create(const struct sg_memory_module *mods, size_t n,
					 sg_memory_read_fn *read, void *arg,
					 const struct sg_regs *regs, struct sg_target **ret)
{
	struct memory_target *m = calloc(1, sizeof(*m));
	if (!m)
		return &sg_enomem;
	struct sg_target *t = &m->t;
	m->read = read;
	m->arg = arg;
	t->kind = SG_TARGET_CORE;
	t->ops = &memory_ops;
	t->mem_fd = -1;
	t->threads = calloc(1, sizeof(*t->threads));
	struct sg_error *err = t->threads ? report(t, mods, n) : &sg_enomem;
	if (err) {
		sg_target_destroy(t);
		return err;
	}
	/* One thread, with the caller's registers.  */
	t->nthreads = t->threads_cap = 1;
	t->threads[0].tid = 1;
	t->threads[0].state = 'S';
	if (regs)
		t->threads[0].regs = *regs;
	*ret = t;
	return NULL;
}

void sg_target_memory_changed(struct sg_target *t)
{
	/* The buffers stay: the sampler forgets the pages at every sample.  */
	sg_page_cache_clear(t->pages);
}
