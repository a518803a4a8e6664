/* Finding and caching debug information.

   Debian's -dbg packages ship compressed DWARF: libc's takes about 50 ms to
   inflate, and that would be time the target stays stopped.  So:
   - before the stop, the threads are unwound once from the pcs in
     /proc/PID/task/TID/syscall (sg_session_prewarm), which loads the DWARF
     of the modules they run in;
   - after the detach, an uncompressed copy of each separate debug file we
     used is kept in a cache (keyed by build ID), which later runs map
     instead of inflating;
   - debuginfod is consulted only when DEBUGINFOD_URLS asks for it:
     elfutils would otherwise load its client (libcurl and ~30 libraries)
     on every miss.  */
#include <config.h>
#include "cache.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

char *sg_cache_dir(void)
{
	const char *off = getenv("SPYGLASS_DEBUG_CACHE");
	if (off && (!strcmp(off, "0") || !strcmp(off, "off")))
		return NULL;
	const char *dir = getenv("SPYGLASS_CACHE_DIR");
	char *path = NULL;
	if (dir && *dir) {
		path = strdup(dir);
	} else if ((dir = getenv("XDG_CACHE_HOME")) && *dir) {
		if (asprintf(&path, "%s/spyglass", dir) < 0)
			path = NULL;
	} else if ((dir = getenv("HOME")) && *dir) {
		if (asprintf(&path, "%s/.cache/spyglass", dir) < 0)
			path = NULL;
	}
	return path;
}

static char *build_id_hex(Dwfl_Module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0 || n > 64)
		return NULL;
	char *hex = malloc(2 * n + 1);
	if (hex)
		for (int i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", bits[i]);
	return hex;
}

static char *cached_path(Dwfl_Module *mod)
{
	char *dir = sg_cache_dir();
	char *hex = dir ? build_id_hex(mod) : NULL;
	char *path = NULL;
	if (hex && asprintf(&path, "%s/debug/%s.debug", dir, hex) < 0)
		path = NULL;
	free(dir);
	free(hex);
	return path;
}

static int open_debuglink(const char *file_name, const char *link, char **ret)
{
	if (!file_name || !link || strchr(link, '/'))
		return -1;
	const char *slash = strrchr(file_name, '/');
	int dlen = slash ? (int)(slash - file_name) : 0;
	/* The places gdb and elfutils look: beside the file, in .debug/
	   beside it, and under /usr/lib/debug.  */
	static const char *const dirs[] = { "", "/.debug", "/usr/lib/debug" };
	for (size_t i = 0; i < SG_ARRAY_SIZE(dirs); i++) {
		char *path;
		int r = i < 2 ? asprintf(&path, "%.*s%s/%s", dlen, file_name, dirs[i], link)
			      : asprintf(&path, "%s%.*s/%s", dirs[i], dlen, file_name, link);
		if (r < 0)
			return -1;
		int fd = strcmp(path, file_name) ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			*ret = path;
			return fd;
		}
		free(path);
	}
	return -1;
}

int sg_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	char *cached = cached_path(mod);
	if (cached) {
		int fd = open(cached, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			*debuginfo_file_name = cached;
			return fd;
		}
		free(cached);
	}
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (urls && *urls)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	return open_debuglink(file_name, debuglink_file, debuginfo_file_name);
}

/* ---- the cache ---- */

static bool has_compressed_sections(Elf *elf)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		if (gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED))
			return true;
	}
	return false;
}

static bool copy_file(const char *src, int out)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return false;
	char buf[1 << 16];
	ssize_t n;
	bool ok = true;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			ok = false;
			break;
		}
	close(in);
	return ok && n == 0;
}

/* Write an uncompressed copy of the debug file SRC to DST, atomically.  */
static void store_uncompressed(const char *src, const char *dst)
{
	char *tmp;
	if (asprintf(&tmp, "%s.%d.tmp", dst, (int)getpid()) < 0)
		return;
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return;
	}
	bool ok = copy_file(src, fd);
	Elf *elf = ok ? elf_begin(fd, ELF_C_RDWR, NULL) : NULL;
	ok = elf != NULL;
	for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		if (gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED))
			ok = elf_compress(scn, 0, 0) >= 0;
	}
	if (ok)
		ok = elf_update(elf, ELF_C_WRITE) >= 0;
	elf_end(elf);
	close(fd);
	if (ok && rename(tmp, dst) == 0) {
		free(tmp);
		return;
	}
	unlink(tmp);
	free(tmp);
}

/* Whether ELF holds a .debug_info that libdw has inflated in place.  */
static bool inflated_dwarf(Elf *elf)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name)
							      : NULL;
		if (name && !strcmp(name, ".debug_info"))
			return !(shdr.sh_flags & SHF_COMPRESSED);
	}
	return false;
}

/* The separate debug file whose DWARF libdwfl read for M, or NULL.  A
   backtrace gets at the DWARF through dwfl_module_addrdie(), not
   sg_module_has_dwarf(): ask libdwfl which debug file it found, and the
   file's ELF (the symbol table's) whether its DWARF was inflated; an
   "info threads" reads only the symbol table, which is worth no copy.  */
static const char *debug_file_used(struct sg_module *m)
{
	if (m->dwarf_state < 0)
		return NULL;
	if (m->debug_file)
		return m->debug_file;
	const char *mainfile = NULL, *debugfile = NULL;
	dwfl_module_info(m->dwmod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	if (!debugfile || (mainfile && !strcmp(debugfile, mainfile)))
		return NULL;
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	Dwarf_Addr bias;
	if (dwfl_module_getsymtab(m->dwmod) <= 1 ||
	    !dwfl_module_getsym_info(m->dwmod, 1, &sym, &addr, &shndx, &elf, &bias))
		return NULL;
	return inflated_dwarf(elf) ? debugfile : NULL;
}

void sg_debug_cache_store(struct sg_target *t)
{
	char *dir = sg_cache_dir();
	if (!dir)
		return;
	/* The indexes built in this run, for the next.  */
	for (size_t i = 0; i < t->nmodules; i++) {
		sg_symtab_cache_store(t->modules[i]);
		sg_symnames_cache_store(t->modules[i]);
	}
	sg_unit_index_cache_store(t);
	char *sub;
	if (asprintf(&sub, "%s/debug", dir) < 0) {
		free(dir);
		return;
	}
	bool made = false;
	for (size_t i = 0; i < t->nmodules; i++) {
		struct sg_module *m = t->modules[i];
		const char *debug_file = debug_file_used(m);
		if (!debug_file || !strncmp(debug_file, sub, strlen(sub)))
			continue;
		/* libdw inflates sections in place, so ask the file on disk
		   whether it is compressed.  */
		int fd = open(debug_file, O_RDONLY | O_CLOEXEC);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
		bool compressed = elf && has_compressed_sections(elf);
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		if (!compressed)
			continue;
		char *dst = cached_path(m->dwmod);
		if (dst && access(dst, F_OK) != 0) {
			if (!made) {
				sg_cache_mkdirs(sub);
				made = true;
			}
			store_uncompressed(debug_file, dst);
		}
		free(dst);
	}
	free(sub);
	free(dir);
}

/* ---- loading before the stop ---- */

bool sg_task_pc_sp(pid_t pid, const char *tid, uint64_t *pc, uint64_t *sp)
{
	char file[320], buf[512];
	snprintf(file, sizeof(file), "/proc/%d/task/%.32s/syscall", pid, tid);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	/* "NR ARG1 ... ARG6 SP PC" for a thread in a system call, else
	   "running" or "-1 SP PC".  */
	char *pc_s = strrchr(buf, ' ');
	if (!pc_s || pc_s == buf)
		return false;
	*pc_s = '\0';
	char *sp_s = strrchr(buf, ' ');
	if (!sp_s)
		return false;
	*pc = strtoull(pc_s + 1, NULL, 16);
	*sp = strtoull(sp_s + 1, NULL, 16);
	return *pc != 0;
}
