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

void sg_sampler_prefetch_fini(struct sthread *th)
{
	free(th->pre.pages);
	free(th->pre.touched);
	free(th->pre.data);
	memset(&th->pre, 0, sizeof(th->pre));
}

/* Copy the pages thread TH's last walk touched; they serve this walk.  */
void sg_sampler_prefetch(struct sampler *sp, struct sthread *th)
{
	struct prefetch *p = &th->pre;
	if (sp->t->no_vm_readv)
		return;
	if (!p->pages && !(p->pages = calloc(PREFETCH_PAGES, sizeof(*p->pages))))
		return;
	if (!p->touched && !(p->touched = calloc(PREFETCH_PAGES, sizeof(*p->touched))))
		return;
	/* The last walk's pages are this one's to copy; this walk notes
	   its own in the other array.  */
	uint64_t *last = p->touched;
	size_t n = p->ntouched;
	p->touched = p->pages;
	p->ntouched = 0;
	p->pages = last;
	p->n = 0;
	sp->pre = p;
	if (!n)
		return;
	if (n > p->data_pages) {
		/* As many pages as the walk reads, not the cap: a recording
		   may sample a hundred threads.  */
		unsigned char *d = realloc(p->data, n * SG_PAGE_SIZE);
		if (!d)
			return;
		p->data = d;
		p->data_pages = n;
	}
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

size_t sg_sampler_prefetched(struct sampler *sp, uint64_t address, void *buf, size_t size)
{
	struct prefetch *p = sp->pre;
	uint64_t page = address & ~(uint64_t)(SG_PAGE_SIZE - 1);
	/* A walk reads a dozen pages or so: a scan of either list is
	   cheaper than keeping them sorted.  */
	bool seen = false;
	for (size_t i = 0; i < p->ntouched && !seen; i++)
		seen = p->touched[i] == page;
	if (!seen && p->ntouched < PREFETCH_PAGES)
		p->touched[p->ntouched++] = page;
	for (size_t i = 0; i < p->n; i++) {
		if (p->pages[i] == page) {
			memcpy(buf, p->data + i * SG_PAGE_SIZE + (address - page), size);
			return size;
		}
	}
	return 0;
}
