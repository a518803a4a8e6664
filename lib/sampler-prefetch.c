/* A runtime walk (a Python thread's frames, a Zeek call stack) reads
   the same few pages sample after sample: the thread state, the frames
   and the objects they name.  Read one by one, each page costs a system
   call while the thread is stopped, about 1.8 us here, and a 3.8 stack
   of 20 frames spans a dozen heap pages.  So a sample first copies the
   pages its thread's previous walk touched, with one process_vm_readv,
   and the walk takes them from that copy; a page the walk needs and the
   copy lacks is read live, as before, and joins the next sample's set.
   The copy is taken at the same moment as the live reads would be, so
   the walk sees the same memory.  */
#include <config.h>
#include "sampler-impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static int cmp_page(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void prefetch_free(struct prefetch *p)
{
	free(p->pages);
	free(p->touched);
	free(p->data);
	memset(p, 0, sizeof(*p));
}

void sg_sampler_prefetch_fini(struct sthread *th)
{
	prefetch_free(&th->pre);
}

/* Copy the pages thread TH's last walk touched; they serve this walk.  */
void sg_sampler_prefetch(struct sampler *sp, struct sthread *th)
{
	struct prefetch *p = &th->pre;
	if (!p->pages && !(p->pages = calloc(PREFETCH_PAGES, sizeof(*p->pages))))
		return;
	if (!p->touched && !(p->touched = calloc(PREFETCH_PAGES, sizeof(*p->touched))))
		return;
	size_t n = p->ntouched;
	p->n = 0;
	p->ntouched = 0;
	sp->pre = p;
	if (!n || sp->t->no_vm_readv)
		return;
	if (!p->data && !(p->data = malloc(PREFETCH_PAGES * SG_PAGE_SIZE)))
		return;
	memcpy(p->pages, p->touched, n * sizeof(*p->pages));
	qsort(p->pages, n, sizeof(*p->pages), cmp_page);
	struct iovec remote[PREFETCH_PAGES];
	for (size_t i = 0; i < n; i++)
		remote[i] = (struct iovec){ (void *)(uintptr_t)p->pages[i], SG_PAGE_SIZE };
	struct iovec local = { p->data, n * SG_PAGE_SIZE };
	pid_t pid = sp->t->nthreads ? sp->t->threads[0].tid : sp->t->pid;
	ssize_t got = process_vm_readv(pid, &local, 1, remote, n, 0);
	/* The copy stops at the first page that cannot be read: those
	   after it are read live, which gives their exact error.  */
	p->n = got > 0 ? (size_t)got / SG_PAGE_SIZE : 0;
}

void sg_sampler_prefetch_done(struct sampler *sp)
{
	sp->pre = NULL;
}

/* Note that the walk read PAGE, for the next sample's copy.  */
static void touch(struct prefetch *p, uint64_t page)
{
	for (size_t i = 0; i < p->ntouched; i++)
		if (p->touched[i] == page)
			return;
	if (p->ntouched < PREFETCH_PAGES)
		p->touched[p->ntouched++] = page;
}

size_t sg_sampler_prefetched(struct sampler *sp, uint64_t address, void *buf, size_t size)
{
	struct prefetch *p = sp->pre;
	uint64_t page = address & ~(uint64_t)(SG_PAGE_SIZE - 1);
	touch(p, page);
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->pages[mid] < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->n || p->pages[lo] != page)
		return 0;
	size_t off = address - page;
	if (size > SG_PAGE_SIZE - off)
		size = SG_PAGE_SIZE - off;
	memcpy(buf, p->data + lo * SG_PAGE_SIZE + off, size);
	return size;
}
