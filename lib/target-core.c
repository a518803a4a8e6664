/* The core-file target: threads from the notes, memory from the PT_LOAD
   segments and, where the core left a mapping out (text, read-only
   data), from the file NT_FILE says was mapped there.  Modules are
   reported to libdwfl from NT_FILE as the live target reports them from
   /proc/PID/maps, so everything above the target works unchanged.  */
#include <config.h>
#include "elfcore.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file NT_FILE names, opened on first read.  */
struct core_file {
	const char *name;	/* as the core has it */
	char *path;		/* where it was found, or NULL */
	bool host;		/* PATH is the host's file, outside the sysroot */
	int fd;			/* -1: not opened yet or cannot be */
	bool tried;
	uint64_t size;
};

struct core_target {
	struct sg_target t;	/* first: sg_target_destroy frees it */
	struct sg_elfcore *core;
	char *path;
	char *sysroot, *solib_path;	/* copies of the session's */
	struct core_file *files;	/* distinct names */
	size_t nfiles;
	uint32_t *file_of;	/* per NT_FILE entry, its index in FILES */
	struct sg_buf warnings;
};

static struct core_target *as_core(const struct sg_target *t);

/* ---- where the files are ---- */

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* NAME as found under the sysroot, in the search path or as it is (with
   a sysroot, *HOST says so: the caller must check it is the core's);
   NULL if nowhere.  */
static char *resolve(const struct core_target *c, const char *name, bool *host)
{
	*host = false;
	char *path = NULL;
	if (!name[0] || name[0] != '/')
		return NULL;
	if (c->sysroot && c->sysroot[0]) {
		if (asprintf(&path, "%s%s", c->sysroot, name) >= 0 && is_file(path))
			return path;
		free(path);
		path = NULL;
	}
	const char *base = strrchr(name, '/') + 1;
	for (const char *p = c->solib_path; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n && asprintf(&path, "%.*s/%s", (int)n, p, base) >= 0 && is_file(path))
			return path;
		free(path);
		path = NULL;
		p += n + (p[n] == ':');
	}
	if (!is_file(name))
		return NULL;
	*host = c->sysroot != NULL;
	return strdup(name);
}

static struct core_file *file_open(struct core_target *c, struct core_file *f)
{
	if (!f->tried) {
		f->tried = true;
		if (!f->path)
			f->path = resolve(c, f->name, &f->host);
		f->fd = f->path ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
		struct stat st;
		if (f->fd >= 0 && fstat(f->fd, &st) == 0)
			f->size = (uint64_t)st.st_size;
	}
	return f->fd >= 0 ? f : NULL;
}

/* ---- memory ---- */

/* Up to SIZE bytes at ADDRESS, a part of the core left out (or a
   mapping gdb's gcore wrote no header for), from the file mapped there:
   how many, or 0.  */
static size_t read_from_file(struct core_target *c, uint64_t address, void *out, size_t size)
{
	const struct sg_elfcore_file *fe = sg_elfcore_file_at(c->core, address);
	struct core_file *f = fe ? file_open(c, &c->files[c->file_of[fe - c->core->files]]) : NULL;
	if (!f)
		return 0;
	uint64_t at = fe->offset + (address - fe->start);
	size_t n = fe->end - address < size ? (size_t)(fe->end - address) : size;
	if (at >= f->size)
		return 0;
	if (n > f->size - at)
		n = (size_t)(f->size - at);
	ssize_t r = pread(f->fd, out, n, (off_t)at);
	return r > 0 ? (size_t)r : 0;
}

static struct sg_error *core_read(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	struct core_target *c = as_core(t);
	unsigned char *out = buf;
	while (size) {
		const struct sg_elfcore_segment *s = sg_elfcore_segment_at(c->core, address);
		size_t n = 0;
		if (s && address - s->vaddr < s->filesz) {
			uint64_t off = address - s->vaddr;
			n = s->filesz - off < size ? (size_t)(s->filesz - off) : size;
			ssize_t r = pread(c->core->fd, out, n, (off_t)(s->offset + off));
			n = r > 0 ? (size_t)r : 0;
		} else if (!s || !s->cut) {
			n = read_from_file(c, address, out, size);
			/* Not past the segment: the next one may hold the rest. */
			if (s && n > s->vaddr + s->memsz - address)
				n = (size_t)(s->vaddr + s->memsz - address);
		}
		if (n == 0)
			return sg_error_fault(address, size, s ? EIO : EFAULT);
		out += n;
		address += n;
		size -= n;
	}
	return NULL;
}

/* Whether all SIZE bytes at ADDRESS could be read; the error is not
   wanted.  */
static bool read_ok(struct sg_target *t, uint64_t address, void *buf, size_t size)
{
	struct sg_error *err = core_read(t, address, buf, size);
	sg_error_destroy(err);
	return !err;
}

static void core_detach(struct sg_target *t)
{
	struct core_target *c = as_core(t);
	for (size_t i = 0; i < c->nfiles; i++) {
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
		free(c->files[i].path);
	}
	free(c->files);
	c->files = NULL;
	c->nfiles = 0;
	free(c->file_of);
	c->file_of = NULL;
	sg_elfcore_close(c->core);
	c->core = NULL;
	free(c->path);
	c->path = NULL;
	free(c->sysroot);
	free(c->solib_path);
	c->sysroot = c->solib_path = NULL;
	sg_buf_deinit(&c->warnings);
}

static const struct sg_target_ops core_ops = {
	.read = core_read,
	.detach = core_detach,
};

static struct core_target *as_core(const struct sg_target *t)
{
	return t->ops == &core_ops ? (struct core_target *)t : NULL;
}

/* ---- modules ---- */

static char *debuginfo_path;

static const Dwfl_Callbacks core_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = sg_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* The distinct names of NT_FILE, and each entry's.  */
static struct sg_error *index_files(struct core_target *c)
{
	const struct sg_elfcore *core = c->core;
	c->files = calloc(core->nfiles ? core->nfiles : 1, sizeof(*c->files));
	c->file_of = calloc(core->nfiles ? core->nfiles : 1, sizeof(*c->file_of));
	if (!c->files || !c->file_of)
		return &sg_enomem;
	struct sg_strmap map = { 0 };
	for (size_t i = 0; i < core->nfiles; i++) {
		uint32_t k = sg_strmap_get(&map, core->files[i].name);
		if (k == UINT32_MAX) {
			k = (uint32_t)c->nfiles++;
			c->files[k] = (struct core_file){ .name = core->files[i].name, .fd = -1 };
			if (!sg_strmap_put(&map, core->files[i].name, k)) {
				sg_strmap_deinit(&map);
				return &sg_enomem;
			}
		}
		c->file_of[i] = k;
	}
	sg_strmap_deinit(&map);
	return NULL;
}

/* The GNU build ID of the ELF image whose headers the core has at
   ADDRESS, into BITS (up to 64 bytes): its length, or 0.  */
static size_t memory_build_id(struct core_target *c, uint64_t address, unsigned char *bits)
{
	struct sg_target *t = &c->t;
	Elf64_Ehdr eh;
	if (!read_ok(t, address, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 64)
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (!read_ok(t, address + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
			continue;
		/* The notes are at their vaddr from the image's start, for an
		   image linked at 0; an executable's are at their vaddr.  */
		uint64_t at = eh.e_type == ET_DYN ? address + ph.p_vaddr : ph.p_vaddr;
		unsigned char notes[4096];
		if (!read_ok(t, at, notes, ph.p_filesz))
			continue;
		for (size_t o = 0; o + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
			Elf64_Nhdr nh;
			memcpy(&nh, notes + o, sizeof(nh));
			size_t name = o + sizeof(nh), desc = name + ((nh.n_namesz + 3) & ~3u);
			if (desc > ph.p_filesz || nh.n_descsz > ph.p_filesz - desc)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(notes + name, "GNU", 4) && nh.n_descsz <= 64) {
				memcpy(bits, notes + desc, nh.n_descsz);
				return nh.n_descsz;
			}
			o = desc + ((nh.n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static void hex(char *out, const unsigned char *bits, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bits[i]);
}

/* The load bias of ELF, mapped from offset 0 at START.  */
static uint64_t load_bias(Elf *elf, uint64_t start)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_DYN)
		return 0;
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			return start - (ph.p_vaddr - ph.p_offset);
	}
	return 0;
}

/* The permissions (PF_*) of NT_FILE entry FE: its segment's, else (gdb's
   gcore writes no header for a file's unmodified text) those of the
   file's PT_LOAD at that offset, else r-x, a guess that only lets the
   frame-pointer unwinder through.  */
static uint32_t file_flags(struct core_target *c, const struct sg_elfcore_file *fe)
{
	const struct sg_elfcore_segment *s = sg_elfcore_segment_at(c->core, fe->start);
	if (s)
		return s->flags;
	struct core_file *f = file_open(c, &c->files[c->file_of[fe - c->core->files]]);
	Elf64_Ehdr eh;
	if (f && pread(f->fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(f->fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
				break;
			uint64_t start = ph.p_offset & ~(uint64_t)(SG_PAGE_SIZE - 1);
			if (ph.p_type == PT_LOAD && fe->offset >= start && fe->offset < ph.p_offset + ph.p_filesz)
				return ph.p_flags;
		}
		return PF_R;
	}
	return PF_R | PF_X;
}

/* A module whose file is not to be had: its extent, and the build ID
   the core has (WANT, NWANT bytes), which dwfl_build_id_find_elf may
   still find a file by; NAME joins the list MISSING.  */
static void report_missing(Dwfl *dwfl, const char *name, uint64_t start, uint64_t end,
			   const unsigned char *want, size_t nwant, struct sg_buf *missing)
{
	sg_buf_printf(missing, "%s%s", missing->len ? ", " : "", name);
	Dwfl_Module *m = dwfl_report_module(dwfl, name, start, end);
	if (m && nwant)
		dwfl_module_report_build_id(m, want, nwant, 0);
}

/* Report file K, mapped from offset 0 at START (END: its last byte).  */
static void report_file(struct core_target *c, Dwfl *dwfl, uint32_t k, uint64_t start,
			uint64_t end, bool code, const char *exe, struct sg_buf *missing)
{
	struct core_file *f = &c->files[k];
	unsigned char want[64];
	size_t nwant = memory_build_id(c, start, want);
	/* The command line's executable wins over the file NT_FILE names,
	   which report_modules may have opened already (file_flags).  */
	if (exe && (!f->path || strcmp(f->path, exe))) {
		if (f->fd >= 0)
			close(f->fd);
		free(f->path);
		f->path = strdup(exe);
		f->host = false;
		f->fd = -1;
		f->tried = false;
	}
	int fd = -1;
	if (file_open(c, f))
		fd = dup(f->fd);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		/* A data file (a locale archive, a font): not a module.  */
		elf_end(elf);
		close(fd);
		return;
	}
	if (!elf) {
		if (fd >= 0)
			close(fd);
		/* Only code matters: a data file that is gone is not worth a
		   warning.  */
		if (nwant || code)
			report_missing(dwfl, f->name, start, end, want, nwant, missing);
		return;
	}
	if (f->host) {
		/* A sysroot that lacks the file: the host's copy serves only
		   if it is the one the core had.  */
		const void *note = NULL;
		ssize_t nhave = dwelf_elf_gnu_build_id(elf, &note);
		if (!nwant || nhave != (ssize_t)nwant || memcmp(note, want, nwant)) {
			elf_end(elf);
			close(fd);
			close(f->fd);
			f->fd = -1;
			report_missing(dwfl, f->name, start, end, want, nwant, missing);
			return;
		}
	}
	uint64_t bias = load_bias(elf, start);
	elf_end(elf);
	/* libdwfl owns FD from here, also on failure.  */
	Dwfl_Module *m = dwfl_report_elf(dwfl, f->name, f->path, fd, bias, false);
	if (!m) {
		sg_buf_printf(&c->warnings, "warning: cannot use %s: %s\n", f->path, dwfl_errmsg(-1));
		return;
	}
	const unsigned char *have;
	GElf_Addr vaddr;
	int nhave = dwfl_module_build_id(m, &have, &vaddr);
	if (nwant && nhave > 0 && ((size_t)nhave != nwant || memcmp(have, want, nwant))) {
		char a[129], b[129];
		hex(a, have, (size_t)nhave);
		hex(b, want, nwant);
		sg_buf_printf(&c->warnings,
			      "warning: %s does not match the core: its build ID is %s, the core's %s\n",
			      f->path, a, b);
	}
}

/* The vDSO's image, from the core, into a memory file libdwfl can read. */
static void report_vdso(struct core_target *c, Dwfl *dwfl)
{
	uint64_t ehdr = sg_elfcore_auxv(c->core, AT_SYSINFO_EHDR);
	const struct sg_elfcore_segment *s = ehdr ? sg_elfcore_segment_at(c->core, ehdr) : NULL;
	if (!s || ehdr - s->vaddr >= s->filesz || s->filesz > (64u << 20))
		return;
	size_t size = (size_t)(s->filesz - (ehdr - s->vaddr));
	void *image = malloc(size);
	int fd = image ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	bool ok = fd >= 0 && read_ok(&c->t, ehdr, image, size) &&
		  write(fd, image, size) == (ssize_t)size;
	free(image);
	if (!ok) {
		if (fd >= 0)
			close(fd);
		return;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint64_t bias = elf && elf_kind(elf) == ELF_K_ELF ? load_bias(elf, ehdr) : 0;
	bool is_elf = elf && elf_kind(elf) == ELF_K_ELF;
	elf_end(elf);
	if (!is_elf) {
		close(fd);
		return;
	}
	dwfl_report_elf(dwfl, "[vdso]", "[vdso]", fd, bias, false);
}

/* The NT_FILE name of the executable: the file mapped where the program
   starts (AT_ENTRY), or NULL.  */
static const char *exe_name(const struct core_target *c)
{
	uint64_t entry = sg_elfcore_auxv(c->core, AT_ENTRY);
	const struct sg_elfcore_file *f = entry ? sg_elfcore_file_at(c->core, entry) : NULL;
	return f ? f->name : NULL;
}

static struct sg_error *report_modules(struct core_target *c, const char *exe)
{
	struct sg_target *t = &c->t;
	Dwfl *dwfl = dwfl_begin(&core_callbacks);
	if (!dwfl)
		return sg_error_dwfl("dwfl_begin");
	t->dwfl = dwfl;
	const char *exe_core_name = exe_name(c);
	struct sg_buf missing;
	sg_buf_init(&missing);
	dwfl_report_begin(dwfl);
	/* Each file once, at its mapping from offset 0 (its headers); its
	   extent is that of its entries.  */
	const struct sg_elfcore *core = c->core;
	/* One pass over the entries: a core may map tens of thousands.  */
	struct extent { uint64_t start, end; bool found, code; } *ext = calloc(c->nfiles + 1, sizeof(*ext));
	if (!ext) {
		sg_buf_deinit(&missing);
		return &sg_enomem;
	}
	for (size_t i = 0; i < core->nfiles; i++) {
		struct extent *x = &ext[c->file_of[i]];
		if (!x->found && core->files[i].offset == 0) {
			x->start = core->files[i].start;
			x->found = true;
		}
		if (core->files[i].end > x->end)
			x->end = core->files[i].end;
		if (!x->code)
			x->code = file_flags(c, &core->files[i]) & PF_X;
	}
	for (uint32_t k = 0; k < c->nfiles; k++) {
		if (!ext[k].found)
			continue;
		bool is_exe = exe_core_name && !strcmp(c->files[k].name, exe_core_name);
		report_file(c, dwfl, k, ext[k].start, ext[k].end, ext[k].code, is_exe ? exe : NULL,
			    &missing);
	}
	free(ext);
	/* Without NT_FILE, dwfl_core_file_report below finds the vDSO.  */
	if (core->nfiles)
		report_vdso(c, dwfl);
	if (core->nfiles == 0) {
		/* No NT_FILE (an old kernel's core): libdwfl finds the modules
		   through the dynamic linker's list in the core's memory.  */
		Elf *elf = elf_begin(core->fd, ELF_C_READ, NULL);
		if (elf && dwfl_core_file_report(dwfl, elf, exe) < 0)
			sg_buf_printf(&c->warnings, "warning: cannot find the core's modules: %s\n",
				      dwfl_errmsg(-1));
		/* Not mapped, libdwfl copied what it kept of ELF (an image
		   of a mapped core it would use in place): ELF is ours to
		   end, which nothing else would.  */
		elf_end(elf);
	}
	if (missing.len)
		sg_buf_printf(&c->warnings,
			      "warning: cannot find %s%s: frames in %s show module+offset\n",
			      missing.data, c->sysroot && c->sysroot[0] ? " in the sysroot" : "",
			      strchr(missing.data, ',') ? "them" : "it");
	sg_buf_deinit(&missing);
	if (dwfl_report_end(dwfl, NULL, NULL) != 0)
		return sg_error_dwfl("cannot report the core's modules");
	size_t n = 0;
	dwfl_getmodules(dwfl, sg_count_module, &n, 0);
	if (!(t->modules = calloc(n ? n : 1, sizeof(*t->modules))))
		return &sg_enomem;
	if (dwfl_getmodules(dwfl, sg_target_collect_module, t, 0) != 0)
		return &sg_enomem;
	qsort(t->modules, t->nmodules, sizeof(*t->modules), sg_module_cmp);
	/* Modules span their mappings, as the live target's do (libdwfl's
	   extent ends at the last segment's last byte).  */
	for (size_t i = 0; i < t->nmodules; i++) {
		struct sg_module *mod = t->modules[i];
		uint64_t end = 0;
		for (size_t j = 0; j < core->nfiles; j++)
			if (!strcmp(core->files[j].name, mod->name) && core->files[j].start >= mod->start &&
			    core->files[j].start < mod->end && core->files[j].end > end)
				end = core->files[j].end;
		if (end)
			mod->end = end;
		if (!strcmp(mod->name, "[vdso]")) {
			const struct sg_elfcore_segment *s = sg_elfcore_segment_at(core, mod->start);
			if (s && s->vaddr + s->memsz > mod->end)
				mod->end = s->vaddr + s->memsz;
		}
	}
	/* The module's name, as a live target's is: the frames of the
	   executable are then told from the libraries'.  */
	if (exe_core_name)
		t->exe = strdup(exe_core_name);
	else if (exe)
		t->exe = strdup(exe);
	return NULL;
}

/* /proc/PID/maps as the process had it, as far as the core tells: the
   segments, and the files' mappings the core has no segment for.  For
   "info proc mappings" and the mapping lookups (sg_target_mapping_at).  */
struct region {
	uint64_t start, end;
	uint32_t flags;
	const struct sg_elfcore_file *file;
};

static int region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static char *make_maps(struct core_target *c)
{
	const struct sg_elfcore *core = c->core;
	struct region *r = calloc(core->nsegments + core->nfiles + 1, sizeof(*r));
	if (!r)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < core->nsegments; i++) {
		const struct sg_elfcore_segment *s = &core->segments[i];
		const struct sg_elfcore_file *f = sg_elfcore_file_at(core, s->vaddr);
		r[n++] = (struct region){ s->vaddr, s->vaddr + s->memsz, s->flags,
					  f && f->start == s->vaddr ? f : NULL };
	}
	for (size_t i = 0; i < core->nfiles; i++) {
		const struct sg_elfcore_file *f = &core->files[i];
		if (!sg_elfcore_segment_at(core, f->start))
			r[n++] = (struct region){ f->start, f->end, file_flags(c, f), f };
	}
	qsort(r, n, sizeof(*r), region_cmp);
	struct sg_buf b;
	sg_buf_init(&b);
	uint64_t vdso = sg_elfcore_auxv(core, AT_SYSINFO_EHDR);
	for (size_t i = 0; i < n; i++) {
		const struct sg_elfcore_file *f = r[i].file;
		sg_buf_printf(&b, "%08" PRIx64 "-%08" PRIx64 " %c%c%cp %08" PRIx64 " 00:00 %u",
			      r[i].start, r[i].end, r[i].flags & PF_R ? 'r' : '-',
			      r[i].flags & PF_W ? 'w' : '-', r[i].flags & PF_X ? 'x' : '-',
			      f ? f->offset : 0, f ? c->file_of[f - core->files] + 1 : 0);
		if (f)
			sg_buf_printf(&b, "    %s", f->name);
		else if (vdso && r[i].start == vdso)
			sg_buf_puts(&b, "    [vdso]");
		sg_buf_putc(&b, '\n');
	}
	free(r);
	return sg_buf_steal(&b);
}

struct sg_error *sg_core_target_open(const char *path, const char *exe, const char *sysroot,
				     const char *solib_path, struct sg_target **ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sg_error_os(errno, "%s", path);
	struct sg_elfcore *core;
	struct sg_error *err = sg_elfcore_open(fd, &core);
	if (err) {
		close(fd);
		struct sg_error *named = sg_error_format(sg_error_code(err), "%s %s", path,
							 sg_error_message(err));
		sg_error_destroy(err);
		return named;
	}
	struct core_target *c = calloc(1, sizeof(*c));
	if (!c) {
		sg_elfcore_close(core);
		return &sg_enomem;
	}
	struct sg_target *t = &c->t;
	c->core = core;
	sg_buf_init(&c->warnings);
	t->kind = SG_TARGET_CORE;
	t->ops = &core_ops;
	t->cache_debug = true;
	t->mem_fd = -1;
	t->pid = core->pid;
	c->path = strdup(path);
	c->sysroot = sysroot && sysroot[0] ? strdup(sysroot) : NULL;
	c->solib_path = solib_path && solib_path[0] ? strdup(solib_path) : NULL;
	/* The reader's warnings, a line each.  */
	for (const char *w = core->warnings.data; w && *w;) {
		size_t n = strcspn(w, "\n");
		sg_buf_printf(&c->warnings, "warning: %.*s\n", (int)n, w);
		w += n + (w[n] == '\n');
	}
	t->threads = calloc(core->nthreads, sizeof(*t->threads));
	err = !t->threads || !c->path ? &sg_enomem : index_files(c);
	if (!err) {
		t->nthreads = t->threads_cap = core->nthreads;
		for (size_t i = 0; i < core->nthreads; i++) {
			struct sg_thread *th = &t->threads[i];
			th->tid = core->threads[i].tid;
			th->index = i;
			th->state = '?';
			th->regs = core->threads[i].regs;
		}
		err = report_modules(c, exe);
	}
	if (!err) {
		t->maps = make_maps(c);
		if (!t->maps)
			err = &sg_enomem;
	}
	if (err) {
		sg_target_destroy(t);
		return err;
	}
	/* Names as the dynamic linker's list has them, as gdb shows them.  */
	sg_target_link_map_names(t);
	*ret = t;
	return NULL;
}

bool sg_core_info(const struct sg_target *t, struct sg_core_info *ret)
{
	const struct core_target *c = as_core(t);
	if (!c || !c->core)
		return false;
	const struct sg_elfcore *core = c->core;
	memset(ret, 0, sizeof(*ret));
	ret->path = c->path;
	ret->pid = core->pid;
	ret->fname = core->fname;
	ret->psargs = core->psargs;
	ret->warnings = c->warnings.data ? c->warnings.data : "";
	ret->signo = core->threads[0].cursig;
	if (core->has_siginfo) {
		const siginfo_t *si = &core->siginfo;
		ret->has_siginfo = true;
		ret->siginfo = si;
		ret->si_signo = si->si_signo;
		ret->errno_ = si->si_errno;
		ret->code = si->si_code;
		switch (si->si_signo) {
		case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
			ret->addr = (uint64_t)(uintptr_t)si->si_addr;
			break;
		default:
			if (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE)
				ret->sender_pid = si->si_pid;
		}
	}
	return true;
}

struct sg_error *sg_core_thread_fpstate(const struct sg_target *t, size_t index, void *buf,
					size_t size, size_t *len_ret, bool *xstate_ret)
{
	const struct core_target *c = as_core(t);
	if (!c || !c->core || index >= c->core->nthreads)
		return &sg_not_found;
	struct sg_error *err = sg_elfcore_xstate(c->core, index, buf, size, len_ret);
	if (err != &sg_not_found) {
		*xstate_ret = true;
		return err;
	}
	const struct sg_elfcore_thread *th = &c->core->threads[index];
	if (!th->has_fpregs || size < SG_FPREGSET_SIZE)
		return &sg_not_found;
	memcpy(buf, th->fpregs, SG_FPREGSET_SIZE);
	*len_ret = SG_FPREGSET_SIZE;
	*xstate_ret = false;
	return NULL;
}

static int segment_index_cmp(const void *a, const void *b)
{
	const struct sg_elfcore_segment *const *x = a, *const *y = b;
	return (*x)->phindex < (*y)->phindex ? -1 : (*x)->phindex > (*y)->phindex;
}

bool sg_core_sections(const struct sg_target *t, sg_section_fn *fn, void *arg)
{
	const struct core_target *c = as_core(t);
	if (!c || !c->core)
		return false;
	const struct sg_elfcore *core = c->core;
	const struct sg_elfcore_segment **order = malloc((core->nsegments + 1) * sizeof(*order));
	if (!order)
		return true;
	for (size_t i = 0; i < core->nsegments; i++)
		order[i] = &core->segments[i];
	qsort(order, core->nsegments, sizeof(*order), segment_index_cmp);
	for (size_t i = 0; i < core->nsegments; i++) {
		const struct sg_elfcore_segment *s = order[i];
		uint64_t filesz = s->header_filesz < s->memsz ? s->header_filesz : s->memsz;
		bool split = filesz && filesz < s->memsz;
		char name[32];
		struct sg_section sec = { .start = s->vaddr, .end = s->vaddr + s->memsz, .name = name };
		if (split) {
			snprintf(name, sizeof(name), "load%" PRIu32 "a", s->phindex);
			sec.end = s->vaddr + filesz;
			if (fn(&sec, arg) != SG_CB_OK)
				break;
			snprintf(name, sizeof(name), "load%" PRIu32 "b", s->phindex);
			sec.start = sec.end;
			sec.end = s->vaddr + s->memsz;
		} else {
			snprintf(name, sizeof(name), "load%" PRIu32, s->phindex);
		}
		if (fn(&sec, arg) != SG_CB_OK)
			break;
	}
	free(order);
	return true;
}
