/* Stop, copy, resume: a live target turned into a snapshot of itself.

   While the process is stopped, each thread's registers are already
   known; what a walk of its stack reads is the top of the stack.  That
   much is copied, with the pages the stop has already read (the page
   cache: what a stack provider looked at), and the process runs on.
   Later reads come from the copies, or for read-only file mappings (code,
   constants) from the mapped files, as for a core; anything else is not
   in the snapshot, and says so.  The target keeps its modules, caches and
   threads, so every command that needs only these works unchanged.

   Runtime stacks (Python, Zeek) are in the interpreter's heap: before the
   release, each stack provider reads what its commands will need (its
   snapshot_prepare, or a walk of every thread's frames), and every read
   it makes meanwhile is kept.  */
#include <config.h>
#include "internal.h"
#include "snapshot.h"

#include <spyglass/registry.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define RED_ZONE 128		/* x86-64: below the stack pointer, still live */
/* What a pointer found on a stack or in a register points to is copied
   too, this much of it: a char * argument's string, as bt prints it
   (gdb's "print elements" is 200).  */
#define POINTEE_BYTES 256
#define MAX_POINTEES 4096	/* windows a snapshot copies, at most */
#define MAX_IOV 1024		/* process_vm_readv's limit (UIO_MAXIOV) */
/* What the stack providers' reads and sg_target_snapshot_keep() may add
   to one snapshot: a Python stack of 1,000 frames reads about 1 MiB.  */
#define KEEP_BYTES ((size_t)16 << 20)

const char sg_snapshot_session_key;

struct snap_region {
	uint64_t start;
	size_t size;
	unsigned char *data;	/* owned; the bytes are at DATA + OFF */
	size_t off;
	bool stack;		/* a stack in use, scanned for pointers */
};

/* A read-only mapping of a file: its pages are the file's.  */
struct snap_file {
	uint64_t start, end, offset;
	char *path;
	dev_t dev;		/* the mapped file's, to know it is still that one */
	ino_t ino;
	int fd;			/* -1: not opened yet; -2: cannot be */
};

struct sg_snapshot {
	struct snap_region *regions;	/* by address, disjoint */
	size_t nregions, regions_cap;
	struct snap_file *files;
	size_t nfiles, files_cap;
	size_t bytes;		/* copied */
	pid_t pid;
	/* While the stack providers prepare: the live target's ops, and
	   REC_OPS, the same but keeping what is read (record_read).  */
	const struct sg_target_ops *live_ops;
	struct sg_target_ops rec_ops;
	size_t kept;		/* bytes the providers' reads added */
};

static void snapshot_free(struct sg_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nregions; i++)
		free(s->regions[i].data);
	free(s->regions);
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].fd >= 0)
			close(s->files[i].fd);
		free(s->files[i].path);
	}
	free(s->files);
	free(s);
}

/* By address; at one address the larger first.  */
static int region_cmp(const void *a, const void *b)
{
	const struct snap_region *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

/* The region containing ADDR, or NULL.  */
static const struct snap_region *region_at(const struct sg_snapshot *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nregions;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->regions[mid].start + s->regions[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nregions && s->regions[lo].start <= addr)
		return &s->regions[lo];
	return NULL;
}

static struct snap_file *file_at(struct sg_snapshot *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (addr >= s->files[i].start && addr < s->files[i].end)
			return &s->files[i];
	return NULL;
}

/* Take DATA (malloc'd), the bytes at [START, START + SIZE).  */
static struct sg_error *add_region(struct sg_snapshot *s, uint64_t start, unsigned char *data,
				   size_t size)
{
	struct snap_region *r = sg_array_push(&s->regions, &s->nregions, &s->regions_cap,
					      sizeof(*r));
	if (!r) {
		free(data);
		return &sg_enomem;
	}
	*r = (struct snap_region){ start, size, data, 0, false };
	return NULL;
}

/* Sort the regions and make them disjoint: copies of the same stop, so
   where two overlap either is right; the earlier is kept.  */
static void finish_regions(struct sg_snapshot *s)
{
	if (s->nregions > 1)	/* none: REGIONS may be NULL, which qsort may not take */
		qsort(s->regions, s->nregions, sizeof(*s->regions), region_cmp);
	size_t n = 0;
	uint64_t end = 0;
	s->bytes = 0;
	for (size_t i = 0; i < s->nregions; i++) {
		struct snap_region r = s->regions[i];
		if (n && r.start + r.size <= end) {
			free(r.data);
			continue;
		}
		if (n && r.start < end) {
			size_t cut = end - r.start;
			r.start += cut;
			r.off += cut;
			r.size -= cut;
		}
		s->regions[n++] = r;
		s->bytes += r.size;
		end = r.start + r.size;
	}
	s->nregions = n;
}

/* The read-only file mappings in MAPS (/proc/PID/maps's text).  */
static struct sg_error *add_files(struct sg_snapshot *s, const char *maps)
{
	for (const char *p = maps; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[4200];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p = eol ? eol + 1 : p + len;
		uint64_t start, end, offset, ino;
		unsigned maj, min;
		char perms[8];
		int path_off = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start,
			   &end, perms, &offset, &maj, &min, &ino, &path_off) < 7 ||
		    !path_off || line[path_off] != '/' || perms[0] != 'r' || perms[1] == 'w')
			continue;
		/* A file deleted or replaced since it was mapped is not
		   what the process sees.  */
		if (strstr(line + path_off, " (deleted)"))
			continue;
		struct snap_file *f = sg_array_push(&s->files, &s->nfiles, &s->files_cap, sizeof(*f));
		if (!f || !(f->path = strdup(line + path_off))) {
			if (f)
				s->nfiles--;
			return &sg_enomem;
		}
		f->start = start;
		f->end = end;
		f->offset = offset;
		f->dev = makedev(maj, min);
		f->ino = (ino_t)ino;
		f->fd = -1;
	}
	return NULL;
}

/* Not a fault (SG_ERROR_FAULT), which print and x would put in gdb's
   words for an unmapped address: the memory was there, the process runs
   on with it, and the reader must know why it cannot be read.  */
static struct sg_error *not_in_snapshot(const struct sg_snapshot *s, uint64_t address,
					size_t size)
{
	return sg_error_format(SG_ERROR_TARGET,
			       "not in the snapshot of process %d: cannot read %zu byte%s at 0x%" PRIx64,
			       (int)s->pid, size, size == 1 ? "" : "s", address);
}

/* F's file, if the path still names the file that was mapped: opened
   after the process ran on, it may have been replaced since, by another
   file or by a FIFO that would block the open.  */
static int open_mapped(const struct snap_file *f)
{
	int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != f->dev ||
			st.st_ino != f->ino)) {
		close(fd);
		fd = -1;
	}
	return fd >= 0 ? fd : -2;
}

/* ADDRESS is in no readable mapping of the process at the stop: reading it
   fails as it did live, with a fault.  */
static bool unmapped(struct sg_target *t, uint64_t address)
{
	long i = sg_target_mapping_index(t, address);
	return i < 0 || !t->mappings[i].readable;
}

static struct sg_error *snapshot_read(struct sg_target *t, uint64_t address, void *buf,
				      size_t size)
{
	struct sg_snapshot *s = t->snapshot;
	unsigned char *out = buf;
	while (size) {
		const struct snap_region *r = region_at(s, address);
		if (r) {
			size_t n = r->start + r->size - address;
			if (n > size)
				n = size;
			memcpy(out, r->data + r->off + (address - r->start), n);
			out += n;
			address += n;
			size -= n;
			continue;
		}
		if (unmapped(t, address))
			return sg_error_fault(address, size, EFAULT);
		struct snap_file *f = file_at(s, address);
		if (!f)
			return not_in_snapshot(s, address, size);
		if (f->fd == -1)
			f->fd = open_mapped(f);
		size_t n = f->end - address < size ? f->end - address : size;
		ssize_t got = f->fd >= 0 ? pread(f->fd, out, n, (off_t)(f->offset + address - f->start))
					 : -1;
		if (got <= 0)
			return not_in_snapshot(s, address, size);
		out += got;
		address += (size_t)got;
		size -= (size_t)got;
	}
	return NULL;
}

static bool snapshot_alive(struct sg_target *t)
{
	(void)t;
	return true;	/* the copy does not die with the process */
}

static void snapshot_detach(struct sg_target *t)
{
	snapshot_free(t->snapshot);
	t->snapshot = NULL;
}

static const struct sg_target_ops snapshot_ops = {
	.read = snapshot_read,
	.alive = snapshot_alive,
	.detach = snapshot_detach,
};

/* ---- what the stack providers read while the target is stopped ---- */

static struct sg_error *record_read(struct sg_target *t, uint64_t address, void *buf,
				    size_t size);

/* The snapshot T's reads are kept in, or NULL when none is being taken.  */
static struct sg_snapshot *recording(const struct sg_target *t)
{
	if (!t->ops || t->ops->read != record_read)
		return NULL;
	return (struct sg_snapshot *)((char *)t->ops - offsetof(struct sg_snapshot, rec_ops));
}

/* Whether S may keep SIZE more bytes of the providers' reads.  */
static bool has_room(const struct sg_snapshot *s, size_t size)
{
	return size <= KEEP_BYTES - s->kept;
}

/* Keep DATA (malloc'd, SIZE bytes, within has_room), the bytes at
   ADDRESS.  */
static struct sg_error *keep_region(struct sg_snapshot *s, uint64_t address, unsigned char *data,
				    size_t size)
{
	struct sg_error *err = add_region(s, address, data, size);
	if (!err)
		s->kept += size;
	return err;
}

static struct sg_error *record_read(struct sg_target *t, uint64_t address, void *buf,
				    size_t size)
{
	struct sg_snapshot *s = recording(t);
	struct sg_error *err = s->live_ops->read(t, address, buf, size);
	/* Past the bound the read still answers; the snapshot will not.  */
	unsigned char *copy = err || !has_room(s, size) ? NULL : malloc(size);
	if (copy) {
		memcpy(copy, buf, size);
		sg_error_destroy(keep_region(s, address, copy, size));
	}
	return err;
}

struct sg_error *sg_target_snapshot_keep(struct sg_target *t, uint64_t address, size_t size)
{
	struct sg_snapshot *s = recording(t);
	if (!s || !size)
		return NULL;
	if (address + size < address)
		return sg_error_fault(address, size, EFAULT);
	if (!has_room(s, size))
		return sg_error_format(SG_ERROR_USAGE,
				       "a snapshot keeps at most %zu MiB of the stack providers' reads",
				       KEEP_BYTES >> 20);
	unsigned char *buf = malloc(size);
	if (!buf)
		return &sg_enomem;
	struct sg_error *err;
	if ((err = s->live_ops->read(t, address, buf, size))) {
		free(buf);
		return err;
	}
	return keep_region(s, address, buf, size);
}

/* Let SESSION's stack providers read what they will need, keeping every
   read.  The page cache is empty (its pages are in S): each page they
   read is fetched, so kept.  */
static void keep_runtimes(struct sg_target *t, struct sg_snapshot *s, struct sg_session *session)
{
	s->live_ops = t->ops;
	s->rec_ops = *t->ops;
	s->rec_ops.read = record_read;
	t->ops = &s->rec_ops;
	sg_registry_snapshot_prepare(session, t);
	t->ops = s->live_ops;
}

/* ---- the stacks, and what they point to ---- */

/* The parsed mapping that holds the stack at SP: SP's, or the red zone's
   below it.  */
static bool stack_mapping(struct sg_target *t, uint64_t sp, struct sg_mapping *ret)
{
	return sg_target_mapping_at(t, sp, ret) || sg_target_mapping_at(t, sp - RED_ZONE, ret);
}

/* Whether a thread's stack pointer is in no mapping of those parsed.  */
static bool stale_maps(struct sg_target *t)
{
	struct sg_mapping m;
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct sg_thread *th = &t->threads[i];
		if (sg_regs_has(&th->regs, SG_REG_RSP) && !stack_mapping(t, th->regs.r[SG_REG_RSP], &m))
			return true;
	}
	return false;
}

/* The part of TH's stack a walk reads: from its stack pointer (less the
   red zone) to the end of its mapping, at most STACK_BYTES; false when
   there is none.  */
static bool stack_range(struct sg_target *t, const struct sg_thread *th, size_t stack_bytes,
			uint64_t *start_ret, uint64_t *end_ret)
{
	if (!sg_regs_has(&th->regs, SG_REG_RSP))
		return false;
	uint64_t sp = th->regs.r[SG_REG_RSP];
	struct sg_mapping m;
	if (!stack_mapping(t, sp, &m))
		return false;	/* a wild stack pointer: nothing to walk */
	*start_ret = sp < RED_ZONE || sp - RED_ZONE < m.start ? m.start : sp - RED_ZONE;
	*end_ret = m.end > sp && m.end - sp > stack_bytes ? sp + stack_bytes : m.end;
	return *end_ret > *start_ret;
}

static struct sg_error *add_stack(struct sg_snapshot *s, uint64_t start, unsigned char *buf,
				  size_t size)
{
	struct sg_error *err = add_region(s, start, buf, size);
	if (!err)
		s->regions[s->nregions - 1].stack = true;
	return err;
}

/* Copy the top STACK_BYTES of TH's stack (and the red zone below its
   stack pointer), within the mapping that holds it.  */
static struct sg_error *copy_stack(struct sg_target *t, struct sg_snapshot *s,
				   const struct sg_thread *th, size_t stack_bytes)
{
	uint64_t start, end;
	if (!stack_range(t, th, stack_bytes, &start, &end))
		return NULL;
	unsigned char *buf = malloc(end - start);
	if (!buf)
		return &sg_enomem;
	struct sg_error *err = t->ops->read(t, start, buf, end - start);
	if (err) {
		/* Part of it is unreadable (the stack pointer in a guard
		   page, say): keep the readable pages above it.  */
		sg_error_destroy(err);
		uint64_t at = (start + SG_PAGE_SIZE) & ~(uint64_t)(SG_PAGE_SIZE - 1);
		while (at < end && (err = t->ops->read(t, at, buf, end - at))) {
			sg_error_destroy(err);
			at += SG_PAGE_SIZE;
		}
		if (at >= end) {
			free(buf);
			return NULL;
		}
		start = at;
	}
	return add_stack(s, start, buf, end - start);
}

/* Every thread's stack with one process_vm_readv: each system call
   while stopped costs.  False when that cannot be (then copy_stack
   reads them one by one, for exact errors); *ERR is set only when all
   was read.  */
static bool copy_stacks_at_once(struct sg_target *t, struct sg_snapshot *s, size_t stack_bytes,
				struct sg_error **err)
{
	if (t->no_vm_readv || !t->nthreads || t->nthreads > MAX_IOV)
		return false;
	struct iovec *local = calloc(t->nthreads, sizeof(*local));
	struct iovec *remote = calloc(t->nthreads, sizeof(*remote));
	size_t k = 0, total = 0;
	bool ok = local && remote;
	for (size_t i = 0; ok && i < t->nthreads; i++) {
		uint64_t start, end;
		if (!stack_range(t, &t->threads[i], stack_bytes, &start, &end))
			continue;
		if (!(local[k].iov_base = malloc(end - start))) {
			ok = false;
			break;
		}
		local[k].iov_len = remote[k].iov_len = end - start;
		remote[k].iov_base = (void *)(uintptr_t)start;
		total += end - start;
		k++;
	}
	ssize_t got = ok && k ? process_vm_readv(t->pid, local, k, remote, k, 0) : -1;
	ok = ok && (!k || (got >= 0 && (size_t)got == total));
	for (size_t j = 0; j < k; j++) {
		if (ok && !*err)
			*err = add_stack(s, (uintptr_t)remote[j].iov_base, local[j].iov_base,
					 local[j].iov_len);
		else
			free(local[j].iov_base);
	}
	free(local);
	free(remote);
	return ok;
}

/* What a stack word or a register may point to.  */
struct window {
	uint64_t start, end;
};

static int window_cmp(const void *a, const void *b)
{
	const struct window *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Note the window V points to, if it is writable memory (read-only file
   mappings are read from the files) not copied yet.  A pointer into
   another stack (the main one, or a mapping above a guard page: a
   thread's) is an interrupted context's stack pointer or frame, as in
   the signal frame of a handler on an alternate stack: that stack's part
   in use is copied as a thread's is.  */
static void note_pointer(struct sg_target *t, const struct sg_snapshot *s, uint64_t v,
			 size_t stack_bytes, struct window *w, size_t *n)
{
	if (*n >= MAX_POINTEES || v < SG_PAGE_SIZE || region_at(s, v))
		return;
	long i = sg_target_mapping_index(t, v);
	if (i < 0)
		return;
	const struct sg_mapping *m = &t->mappings[i];
	if (!m->readable || !m->writable)
		return;
	bool stack = !strcmp(m->path, "[stack]") ||
		     (i > 0 && t->mappings[i - 1].end == m->start && !t->mappings[i - 1].readable);
	size_t len = stack ? stack_bytes : POINTEE_BYTES;
	uint64_t start = stack && v - m->start > RED_ZONE ? v - RED_ZONE : stack ? m->start : v;
	uint64_t end = m->end - v > len ? v + len : m->end;
	w[(*n)++] = (struct window){ start, end };
}

/* Sort the windows and merge those that overlap or touch.  */
static size_t merge_windows(struct window *w, size_t n)
{
	if (!n)
		return 0;
	qsort(w, n, sizeof(*w), window_cmp);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (w[i].start <= w[k].end) {
			if (w[i].end > w[k].end)
				w[k].end = w[i].end;
		} else {
			w[++k] = w[i];
		}
	}
	return k + 1;
}

/* Read the N windows W into regions of S: as many as process_vm_readv
   takes at once, each failure (an unmapped page) costing one more call;
   window by window where it cannot be used.  */
static struct sg_error *read_windows(struct sg_target *t, struct sg_snapshot *s,
				     const struct window *w, size_t n)
{
	size_t cap = n < MAX_IOV ? n : MAX_IOV;
	struct iovec *local = calloc(cap ? cap : 1, sizeof(*local));
	struct iovec *remote = calloc(cap ? cap : 1, sizeof(*remote));
	struct sg_error *err = local && remote ? NULL : &sg_enomem;
	for (size_t i = 0; i < n && !err;) {
		size_t k = 0;
		for (; k < cap && i + k < n; k++) {
			size_t len = w[i + k].end - w[i + k].start;
			if (!(local[k].iov_base = malloc(len))) {
				err = &sg_enomem;
				break;
			}
			local[k].iov_len = remote[k].iov_len = len;
			remote[k].iov_base = (void *)(uintptr_t)w[i + k].start;
		}
		ssize_t got = err || t->no_vm_readv ? -1
			: process_vm_readv(t->pid, local, k, remote, k, 0);
		size_t done = 0;	/* windows read whole */
		for (size_t j = 0; j < k; j++) {
			size_t len = local[j].iov_len;
			if (got >= 0 && (size_t)got >= len && !err) {
				got -= (ssize_t)len;
				err = add_region(s, w[i + j].start, local[j].iov_base, len);
				done = j + 1;
			} else if (got < 0 && !err) {
				/* One by one, through the target's reader.  */
				struct sg_error *e = t->ops->read(t, w[i + j].start, local[j].iov_base, len);
				if (e) {
					sg_error_destroy(e);
					free(local[j].iov_base);
				} else {
					err = add_region(s, w[i + j].start, local[j].iov_base, len);
				}
				done = j + 1;
			} else {
				free(local[j].iov_base);
				got = -2;	/* the rest of this batch: read again */
			}
		}
		/* Skip the window where the batch stopped; retry the rest.  */
		i += done < k ? done + 1 : k;
	}
	free(local);
	free(remote);
	return err;
}

/* The first words of an object are where containers keep their links (a
   list node's next and prev, a tree node's parent and children; a
   vector's begin and end): what those of the N windows W (read into S,
   as noted, before they were merged) point to is copied too: noted into
   W2, at most LEFT windows; returns how many.  A reader summarising a
   container in a frame's arguments follows them: "l=std::list = {...}"
   for a list the stack refers to reads the list, its first node and the
   next.  */
#define LINK_WORDS 4
#define LINK_LEVELS 2		/* levels of links followed from the first */

static size_t note_links(struct sg_target *t, struct sg_snapshot *s, const struct window *w,
			 size_t n, size_t stack_bytes, struct window *w2, size_t left)
{
	finish_regions(s);
	size_t n2 = 0;
	for (size_t j = 0; j < n && n2 < left; j++) {
		const struct snap_region *r = region_at(s, w[j].start);
		if (!r)
			continue;
		uint64_t end = r->start + r->size < w[j].end ? r->start + r->size : w[j].end;
		for (uint64_t a = w[j].start; a + 8 <= end && a < w[j].start + 8 * LINK_WORDS; a += 8) {
			uint64_t v;
			memcpy(&v, r->data + r->off + (a - r->start), 8);
			note_pointer(t, s, v, stack_bytes, w2, &n2);
		}
	}
	return n2 < left ? n2 : left;
}

/* Read the N windows W into S, merged; keep them as noted in NOTED.  */
static struct sg_error *read_noted(struct sg_target *t, struct sg_snapshot *s, struct window *w,
				   size_t n, struct window *noted)
{
	memcpy(noted, w, n * sizeof(*w));
	return read_windows(t, s, w, merge_windows(w, n));
}

/* Copy what the stacks and the registers point to (see note_pointer),
   and what their links point to (note_links), MAX_POINTEES windows in
   all.  */
static struct sg_error *copy_pointees(struct sg_target *t, struct sg_snapshot *s,
				      size_t stack_bytes)
{
	struct window *w = malloc(MAX_POINTEES * sizeof(*w));
	struct window *noted = malloc(MAX_POINTEES * sizeof(*noted));
	if (!w || !noted) {
		free(w);
		free(noted);
		return &sg_enomem;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		for (int r = 0; r < SG_NREGS; r++)
			if (sg_regs_has(&t->threads[i].regs, (enum sg_reg)r))
				note_pointer(t, s, t->threads[i].regs.r[r], stack_bytes, w, &n);
	for (size_t i = 0; i < s->nregions; i++) {
		const struct snap_region *r = &s->regions[i];
		if (!r->stack)
			continue;
		const unsigned char *d = r->data + r->off;
		for (size_t off = (8 - r->start % 8) % 8; off + 8 <= r->size; off += 8) {
			uint64_t v;
			memcpy(&v, d + off, 8);
			note_pointer(t, s, v, stack_bytes, w, &n);
		}
	}
	size_t total = n;
	struct sg_error *err = read_noted(t, s, w, n, noted);
	for (int level = 0; level < LINK_LEVELS && !err && n && total < MAX_POINTEES; level++) {
		n = note_links(t, s, noted, n, stack_bytes, w, MAX_POINTEES - total);
		total += n;
		err = read_noted(t, s, w, n, noted);
	}
	free(w);
	free(noted);
	return err;
}

struct sg_error *sg_target_snapshot(struct sg_target *t, size_t stack_bytes)
{
	if (t->kind != SG_TARGET_LIVE || t->snapshot)
		return sg_error_create(SG_ERROR_USAGE, "only a stopped live process can be snapshot");
	if (!t->mappings_parsed && !t->maps)
		sg_error_destroy(sg_target_load_modules(t));
	/* The maps were read before the stop.  A stack pointer in none of
	   them means they changed since (an exec just before the stop, whose
	   maps the attach read before it, and whose modules it dropped):
	   read them again, still stopped, or no stack would be copied.  */
	if (stale_maps(t))
		sg_error_destroy(t->dwfl ? sg_target_refresh_modules(t) : sg_target_load_modules(t));
	struct sg_snapshot *s = calloc(1, sizeof(*s));
	if (!s)
		return &sg_enomem;
	s->pid = t->pid;
	struct sg_error *err = NULL;
	if (!copy_stacks_at_once(t, s, stack_bytes, &err))
		for (size_t i = 0; i < t->nthreads && !err; i++)
			err = copy_stack(t, s, &t->threads[i], stack_bytes);
	/* The pages read during the stop (a stack provider's objects) are
	   the process's memory at this stop too: the snapshot takes them.  */
	for (size_t i = 0; t->pages && i < SG_PAGE_CACHE_SLOTS && !err; i++) {
		struct sg_cached_page *p = &t->pages->slots[i];
		if (p->data && p->page != SG_PAGE_EMPTY && !p->partial) {
			err = add_region(s, p->page, p->data, SG_PAGE_SIZE);
			p->data = NULL;
			p->page = SG_PAGE_EMPTY;
		}
	}
	struct sg_session *session = sg_target_get_data(t, &sg_snapshot_session_key);
	if (!err && session)
		keep_runtimes(t, s, session);
	finish_regions(s);
	if (!err)
		err = copy_pointees(t, s, stack_bytes);
	if (err) {
		snapshot_free(s);
		return err;
	}
	/* Let the process go: what the commands read now comes from S, and
	   from the files of the maps read at the attach.  */
	t->ops->detach(t);
	t->snapshot = s;
	t->ops = &snapshot_ops;
	finish_regions(s);
	/* Without them, reads of code and constants say they are not in the
	   snapshot.  */
	sg_error_destroy(add_files(s, t->maps));
	return NULL;
}

bool sg_target_is_snapshot(const struct sg_target *t, size_t *bytes)
{
	if (bytes)
		*bytes = t->snapshot ? t->snapshot->bytes : 0;
	return t->snapshot != NULL;
}
