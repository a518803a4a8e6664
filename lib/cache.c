/* The persistent per-build-ID cache of indexes.

   Sorting libc's symbol table and hashing its names cost more than the
   rest of an "info threads"; the results depend only on the file, so they
   are kept in sg_cache_dir()/index/BUILDID.KIND and the next run on the
   same binaries reads them instead.

   A cache file is untrusted input: another version of spyglass, a full
   disk or a hostile user may have written it.  The header names the
   format version, the kind, the build ID and the key (the file's size and
   mtime, the symbol count), and a checksum covers the payload; a file
   that does not check out is ignored, and the users bound-check what they
   take from the payload besides.  Files are written to a temporary name
   and renamed, so concurrent runs read an old file or a new one, whole.  */
#include <config.h>
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "SGINDEX\n"
#define CACHE_VERSION 1
/* Larger files are not ours (libc's symbol table takes about 400 KiB).  */
#define CACHE_MAX_SIZE (256u << 20)

static const char *const kind_names[SG_CACHE_NKINDS] = {
	[SG_CACHE_SYMTAB] = "symtab",
	[SG_CACHE_SYMNAMES] = "symnames",
	[SG_CACHE_PLUGIN] = "plugin",
	[SG_CACHE_UNITS] = "units",
};

struct cache_header {
	char magic[8];
	uint32_t version, kind;
	char hex[129];
	char pad[7];
	uint64_t key[SG_CACHE_KEY_WORDS];
	uint64_t payload_size;
	uint64_t checksum;
};

bool sg_tracing(const char *what)
{
	const char *t = getenv("SPYGLASS_TRACE");
	if (!t)
		return false;
	size_t n = strlen(what);
	for (const char *p = t; *p;) {
		size_t len = strcspn(p, ",");
		if ((len == n && !strncmp(p, what, n)) || (len == 3 && !strncmp(p, "all", 3)))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

void sg_trace(const char *what, const char *fmt, ...)
{
	if (!sg_tracing(what))
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "spyglass-trace: %s: ", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A 64-bit hash of the payload, 8 bytes at a time: it tells a damaged
   file from a good one, it is no defence against a forger (the users'
   bound checks are).  */
static uint64_t checksum(const struct iovec *parts, int nparts)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	uint64_t carry = 0;
	unsigned have = 0;
	for (int i = 0; i < nparts; i++) {
		const unsigned char *p = parts[i].iov_base;
		size_t n = parts[i].iov_len;
		for (; have == 0 && n >= 8; p += 8, n -= 8) {
			uint64_t w;
			memcpy(&w, p, 8);
			h = (h ^ w) * 0x100000001b3u;
			h ^= h >> 29;
		}
		for (; n; p++, n--) {
			carry |= (uint64_t)*p << (8 * have);
			if (++have == 8) {
				h = (h ^ carry) * 0x100000001b3u;
				h ^= h >> 29;
				carry = 0;
				have = 0;
			}
		}
	}
	if (have)
		h = (h ^ carry ^ have) * 0x100000001b3u;
	return h ^ (h >> 31);
}

static bool build_id_hex(Dwfl_Module *mod, char *hex)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > 64)
		return false;
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", bits[i]);
	return true;
}

bool sg_cache_module_id(Dwfl_Module *mod, int nsyms, struct sg_cache_id *id)
{
	memset(id, 0, sizeof(*id));
	const char *mainfile = NULL;
	Dwarf_Addr low, high;
	if (nsyms <= 0 || !build_id_hex(mod, id->hex) ||
	    !dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, &mainfile, NULL) || !mainfile)
		return false;
	struct stat st;
	if (stat(mainfile, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	id->key[0] = st.st_size;
	id->key[1] = sg_cache_ns(&st.st_mtim);
	id->key[2] = nsyms;
	id->key[3] = high - low;
	return sg_cache_id_dir(id);
}

bool sg_cache_id_dir(struct sg_cache_id *id)
{
	char *dir = sg_cache_dir();
	if (dir && asprintf(&id->dir, "%s/index", dir) < 0)
		id->dir = NULL;
	free(dir);
	return id->dir != NULL;
}

void sg_cache_id_fini(struct sg_cache_id *id)
{
	free(id->dir);
	id->dir = NULL;
}

static char *cache_path(const struct sg_cache_id *id, enum sg_cache_kind kind)
{
	char *path;
	if (asprintf(&path, "%s/%s.%s", id->dir, id->hex, kind_names[kind]) < 0)
		return NULL;
	return path;
}

static const char *check_header(const struct cache_header *h, const struct sg_cache_id *id,
				enum sg_cache_kind kind, size_t size)
{
	if (memcmp(h->magic, CACHE_MAGIC, 8))
		return "not a spyglass index";
	if (h->version != CACHE_VERSION)
		return "another format version";
	if (h->kind != (uint32_t)kind || memchr(h->hex, '\0', sizeof(h->hex)) == NULL ||
	    strcmp(h->hex, id->hex))
		return "another kind or build ID";
	if (memcmp(h->key, id->key, sizeof(h->key)))
		return "stale: the file or its symbols changed";
	if (h->payload_size != size - sizeof(*h))
		return "truncated";
	return NULL;
}

bool sg_cache_read(const struct sg_cache_id *id, enum sg_cache_kind kind, void **data,
		   size_t *size)
{
	if (!id->dir)
		return false;
	char *path = cache_path(id, kind);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	if (fd < 0) {
		sg_trace("cache", "%s %s: miss", kind_names[kind], id->hex);
		free(path);
		return false;
	}
	struct stat st;
	const char *why = NULL;
	char *buf = NULL;
	struct cache_header h;
	size_t n = 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if ((uint64_t)st.st_size < sizeof(h) || (uint64_t)st.st_size > CACHE_MAX_SIZE)
		why = "truncated or too large";
	else if (pread(fd, &h, sizeof(h), 0) != sizeof(h))
		why = "short read";
	else
		why = check_header(&h, id, kind, st.st_size);
	/* The payload straight into its buffer, aligned for the users.  */
	if (!why && (n = st.st_size - sizeof(h)) && !(buf = malloc(n)))
		why = "out of memory";
	else if (!why && n && pread(fd, buf, n, sizeof(h)) != (ssize_t)n)
		why = "short read";
	if (!why) {
		struct iovec part = { buf, n };
		if (checksum(&part, 1) != h.checksum)
			why = "damaged (checksum)";
	}
	close(fd);
	if (why) {
		sg_trace("cache", "%s %s: ignored %s: %s", kind_names[kind], id->hex, path, why);
		free(buf);
		free(path);
		return false;
	}
	sg_trace("cache", "%s %s: hit (%zu bytes)", kind_names[kind], id->hex, n);
	free(path);
	*data = buf;
	*size = n;
	return true;
}

void sg_cache_mkdirs(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return;
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
	free(p);
}

static bool write_all(int fd, const struct iovec *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		const char *p = parts[i].iov_base;
		size_t n = parts[i].iov_len;
		while (n) {
			ssize_t w = write(fd, p, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return false;
			p += w;
			n -= w;
		}
	}
	return true;
}

void sg_cache_write(const struct sg_cache_id *id, enum sg_cache_kind kind,
		    const struct iovec *parts, int nparts)
{
	if (!id->dir || nparts > 7)
		return;
	struct cache_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.kind = kind;
	strcpy(h.hex, id->hex);
	memcpy(h.key, id->key, sizeof(h.key));
	for (int i = 0; i < nparts; i++)
		h.payload_size += parts[i].iov_len;
	h.checksum = checksum(parts, nparts);
	struct iovec all[8] = { { &h, sizeof(h) } };
	memcpy(all + 1, parts, nparts * sizeof(*parts));

	char *path = cache_path(id, kind), *tmp = NULL;
	if (!path || asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0) {
		free(path);
		return;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == ENOENT) {
		sg_cache_mkdirs(id->dir);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	if (fd < 0 && errno == EEXIST) {
		/* Left by a run of this PID that was killed.  */
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	bool ok = fd >= 0 && write_all(fd, all, nparts + 1);
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (ok && rename(tmp, path) == 0)
		sg_trace("cache", "%s %s: stored %s", kind_names[kind], id->hex, path);
	else if (fd >= 0)
		unlink(tmp);
	free(tmp);
	free(path);
}
