/* Reading the headers and notes of an ELF core file.  Everything in the
   file is untrusted: counts and sizes are checked against the file's
   size before anything is allocated, and a core cut short is read as far
   as it goes.  */
#include <config.h>
#include "elfcore.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

/* Notes larger than this are not read: a real one is a few MB for
   thousands of threads.  */
#define MAX_NOTES_SIZE (256u << 20)
#define MAX_SEGMENTS (1u << 22)

void sg_regs_from_user(struct sg_regs *r, const struct user_regs_struct *u)
{
	memset(r, 0, sizeof(*r));
	sg_regs_set(r, SG_REG_RAX, u->rax);
	sg_regs_set(r, SG_REG_RDX, u->rdx);
	sg_regs_set(r, SG_REG_RCX, u->rcx);
	sg_regs_set(r, SG_REG_RBX, u->rbx);
	sg_regs_set(r, SG_REG_RSI, u->rsi);
	sg_regs_set(r, SG_REG_RDI, u->rdi);
	sg_regs_set(r, SG_REG_RBP, u->rbp);
	sg_regs_set(r, SG_REG_RSP, u->rsp);
	sg_regs_set(r, SG_REG_R8, u->r8);
	sg_regs_set(r, SG_REG_R9, u->r9);
	sg_regs_set(r, SG_REG_R10, u->r10);
	sg_regs_set(r, SG_REG_R11, u->r11);
	sg_regs_set(r, SG_REG_R12, u->r12);
	sg_regs_set(r, SG_REG_R13, u->r13);
	sg_regs_set(r, SG_REG_R14, u->r14);
	sg_regs_set(r, SG_REG_R15, u->r15);
	sg_regs_set(r, SG_REG_RIP, u->rip);
	sg_regs_set(r, SG_REG_EFLAGS, u->eflags);
	sg_regs_set(r, SG_REG_CS, u->cs);
	sg_regs_set(r, SG_REG_SS, u->ss);
	sg_regs_set(r, SG_REG_DS, u->ds);
	sg_regs_set(r, SG_REG_ES, u->es);
	sg_regs_set(r, SG_REG_FS, u->fs);
	sg_regs_set(r, SG_REG_GS, u->gs);
	sg_regs_set(r, SG_REG_FS_BASE, u->fs_base);
	sg_regs_set(r, SG_REG_GS_BASE, u->gs_base);
	sg_regs_set(r, SG_REG_ORIG_RAX, u->orig_rax);
}

void sg_regs_to_user(struct user_regs_struct *u, const struct sg_regs *r)
{
	memset(u, 0, sizeof(*u));
	u->rax = r->r[SG_REG_RAX];
	u->rdx = r->r[SG_REG_RDX];
	u->rcx = r->r[SG_REG_RCX];
	u->rbx = r->r[SG_REG_RBX];
	u->rsi = r->r[SG_REG_RSI];
	u->rdi = r->r[SG_REG_RDI];
	u->rbp = r->r[SG_REG_RBP];
	u->rsp = r->r[SG_REG_RSP];
	u->r8 = r->r[SG_REG_R8];
	u->r9 = r->r[SG_REG_R9];
	u->r10 = r->r[SG_REG_R10];
	u->r11 = r->r[SG_REG_R11];
	u->r12 = r->r[SG_REG_R12];
	u->r13 = r->r[SG_REG_R13];
	u->r14 = r->r[SG_REG_R14];
	u->r15 = r->r[SG_REG_R15];
	u->rip = r->r[SG_REG_RIP];
	u->eflags = r->r[SG_REG_EFLAGS];
	u->cs = r->r[SG_REG_CS];
	u->ss = r->r[SG_REG_SS];
	u->ds = r->r[SG_REG_DS];
	u->es = r->r[SG_REG_ES];
	u->fs = r->r[SG_REG_FS];
	u->gs = r->r[SG_REG_GS];
	u->fs_base = r->r[SG_REG_FS_BASE];
	u->gs_base = r->r[SG_REG_GS_BASE];
	u->orig_rax = r->r[SG_REG_ORIG_RAX];
}

/* Exactly SIZE bytes at OFFSET, or false.  */
static bool read_at(int fd, void *buf, size_t size, uint64_t offset)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386: return "i386";
	case EM_ARM: return "ARM";
	case EM_AARCH64: return "AArch64";
	case EM_PPC: return "PowerPC";
	case EM_PPC64: return "PowerPC64";
	case EM_S390: return "s390";
	case EM_RISCV: return "RISC-V";
	case EM_MIPS: return "MIPS";
	case EM_SPARCV9: return "SPARC64";
	default: return NULL;
	}
}

static uint16_t get16(const unsigned char *p, bool big)
{
	return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

/* IDENT and the two fields after it (e_type, e_machine, at the same
   offsets in both classes and byte orders) of a file that is not a
   64-bit little-endian one.  */
static struct sg_error *foreign_elf(const unsigned char *head, size_t len)
{
	unsigned class = head[EI_CLASS], data = head[EI_DATA];
	if ((class != ELFCLASS32 && class != ELFCLASS64) ||
	    (data != ELFDATA2LSB && data != ELFDATA2MSB))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "is not a core file (an ELF file of unknown class %u or byte order %u)",
				       class, data);
	bool big = data == ELFDATA2MSB;
	if (len < 20)
		return sg_error_create(SG_ERROR_BAD_DATA, "is truncated in its ELF header");
	uint16_t type = get16(head + 16, big), machine = get16(head + 18, big);
	const char *name = machine_name(machine);
	const char *bits = class == ELFCLASS32 ? ", 32-bit" : "", *order = big ? ", big-endian" : "";
	char what[64];
	if (name)
		snprintf(what, sizeof(what), "%s%s%s", name, bits, order);
	else
		snprintf(what, sizeof(what), "ELF machine %u%s%s", machine, bits, order);
	if (type == ET_CORE)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "is a core of another architecture (%s): spyglass reads x86-64 cores",
				       what);
	return sg_error_format(SG_ERROR_BAD_DATA, "is not a core file (an ELF file for %s)", what);
}

static struct sg_error *check_header(struct sg_elfcore *c, Elf64_Ehdr *eh)
{
	unsigned char head[20];
	size_t len = c->size < sizeof(head) ? (size_t)c->size : sizeof(head);
	if (c->size == 0)
		return sg_error_create(SG_ERROR_BAD_DATA, "is empty, not a core file");
	if (!read_at(c->fd, head, len, 0))
		return sg_error_os(errno ? errno : EIO, "cannot read the core");
	if (len < SELFMAG || memcmp(head, ELFMAG, SELFMAG) != 0)
		return sg_error_create(SG_ERROR_BAD_DATA, "is not a core file (not ELF)");
	if (len < EI_NIDENT)
		return sg_error_create(SG_ERROR_BAD_DATA, "is truncated in its ELF header");
	if (head[EI_CLASS] != ELFCLASS64 || head[EI_DATA] != ELFDATA2LSB)
		return foreign_elf(head, len);
	if (c->size < sizeof(*eh) || !read_at(c->fd, eh, sizeof(*eh), 0))
		return sg_error_create(SG_ERROR_BAD_DATA, "is truncated in its ELF header");
	if (eh->e_type != ET_CORE)
		return sg_error_format(SG_ERROR_BAD_DATA, "is not a core file (an ELF %s)",
				       eh->e_type == ET_EXEC ? "executable"
				       : eh->e_type == ET_DYN ? "shared object or PIE executable"
				       : eh->e_type == ET_REL ? "object file" : "file of another type");
	if (eh->e_machine != EM_X86_64)
		return foreign_elf((const unsigned char *)eh, sizeof(*eh));
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return sg_error_format(SG_ERROR_BAD_DATA, "has program headers of %u bytes, not %zu",
				       eh->e_phentsize, sizeof(Elf64_Phdr));
	return NULL;
}

/* The file ends before EXPECTED, the end of the last thing its headers
   place in it.  */
static void warn_truncated(struct sg_elfcore *c, uint64_t expected)
{
	sg_buf_printf(&c->warnings,
		      "core file is truncated: expected %" PRIu64 " bytes, found %" PRIu64
		      "; memory past that is not available\n",
		      expected, c->size);
}

static struct sg_error *add_thread(struct sg_elfcore *c, const unsigned char *desc, size_t size)
{
	if (size < sizeof(struct elf_prstatus))
		return NULL;	/* too short to be one: skipped */
	struct elf_prstatus st;
	memcpy(&st, desc, sizeof(st));
	/* The array doubles at each power of two: thousands of threads
	   are not thousands of reallocations.  */
	size_t n = c->nthreads;
	if ((n & (n - 1)) == 0) {
		struct sg_elfcore_thread *grown = realloc(c->threads, (n ? 2 * n : 1) * sizeof(*grown));
		if (!grown)
			return &sg_enomem;
		c->threads = grown;
	}
	struct sg_elfcore_thread *t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = st.pr_pid;
	t->cursig = st.pr_cursig;
	struct user_regs_struct u;
	_Static_assert(sizeof(u) == sizeof(st.pr_reg), "pr_reg is a user_regs_struct");
	memcpy(&u, &st.pr_reg, sizeof(u));
	sg_regs_from_user(&t->regs, &u);
	return NULL;
}

static void files_malformed(struct sg_elfcore *c, const char *why)
{
	sg_buf_printf(&c->warnings, "the core's file note (NT_FILE) is malformed (%s): ignored\n",
		      why);
}

/* NT_FILE: count, page size, COUNT triples (start, end, page offset),
   then COUNT NUL-terminated names.  The kernel writes absolute paths;
   a note with anything else is not trusted at all, as names shifted by
   one would put each file at another's address: without it libdwfl
   finds the modules through the dynamic linker's list.  */
static struct sg_error *parse_files(struct sg_elfcore *c, const unsigned char *desc, size_t size)
{
	if (c->files)
		return NULL;
	if (size < 16) {
		files_malformed(c, "too short");
		return NULL;
	}
	uint64_t count, page;
	memcpy(&count, desc, 8);
	memcpy(&page, desc + 8, 8);
	if (count > (size - 16) / 24) {
		files_malformed(c, "more entries than it holds");
		return NULL;
	}
	if (page == 0 || (page & (page - 1)) != 0 || page > (UINT64_C(1) << 30)) {
		files_malformed(c, "a page size that is not one");
		return NULL;
	}
	const char *names = (const char *)desc + 16 + count * 24;
	size_t names_size = size - 16 - count * 24, at = 0;
	for (uint64_t i = 0; i < count; i++) {
		const char *end = memchr(names + at, '\0', names_size - at);
		if (!end) {
			files_malformed(c, "fewer names than entries");
			return NULL;
		}
		if (names[at] != '/') {
			files_malformed(c, "a name that is not a path");
			return NULL;
		}
		for (const char *p = names + at; p < end; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				files_malformed(c, "a name with control characters");
				return NULL;
			}
		}
		at = (size_t)(end - names) + 1;
	}
	if (!(c->file_names = malloc(names_size + 1)))
		return &sg_enomem;
	memcpy(c->file_names, names, names_size);
	c->file_names[names_size] = '\0';
	if (!(c->files = calloc(count ? count : 1, sizeof(*c->files))))
		return &sg_enomem;
	at = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v[3];
		memcpy(v, desc + 16 + i * 24, sizeof(v));
		const char *name = c->file_names + at;
		at += strlen(name) + 1;
		if (v[1] <= v[0] || v[2] > UINT64_MAX / page)
			continue;
		c->files[c->nfiles++] = (struct sg_elfcore_file){
			.start = v[0], .end = v[1], .offset = v[2] * page, .name = name,
		};
	}
	return NULL;
}

/* DESC (SIZE bytes) is at byte OFFSET of the file.  */
static struct sg_error *parse_note(struct sg_elfcore *c, uint32_t type, const char *name,
				   size_t namesz, const unsigned char *desc, size_t size,
				   uint64_t offset)
{
	bool core = namesz == 5 && !memcmp(name, "CORE", 5);
	bool linux_ = namesz == 6 && !memcmp(name, "LINUX", 6);
	if (linux_ && type == NT_X86_XSTATE && c->nthreads) {
		/* The thread's XSAVE area follows its NT_PRSTATUS; its
		   bytes are read when a command asks for them.  */
		struct sg_elfcore_thread *t = &c->threads[c->nthreads - 1];
		if (!t->xstate_size && size >= SG_FPREGSET_SIZE) {
			t->xstate_offset = offset;
			t->xstate_size = size;
		}
		return NULL;
	}
	if (!core)
		return NULL;	/* other "LINUX" notes are not read */
	switch (type) {
	case NT_PRSTATUS:
		return add_thread(c, desc, size);
	case NT_FPREGSET:
		if (c->nthreads && size >= SG_FPREGSET_SIZE) {
			struct sg_elfcore_thread *t = &c->threads[c->nthreads - 1];
			memcpy(t->fpregs, desc, SG_FPREGSET_SIZE);
			t->has_fpregs = true;
		}
		return NULL;
	case NT_PRPSINFO:
		if (size >= sizeof(struct elf_prpsinfo) && !c->has_psinfo) {
			struct elf_prpsinfo ps;
			memcpy(&ps, desc, sizeof(ps));
			c->has_psinfo = true;
			c->pid = ps.pr_pid;
			memcpy(c->fname, ps.pr_fname, sizeof(ps.pr_fname));
			c->fname[sizeof(ps.pr_fname)] = '\0';
			memcpy(c->psargs, ps.pr_psargs, sizeof(ps.pr_psargs));
			c->psargs[sizeof(ps.pr_psargs)] = '\0';
			/* The kernel pads with NULs and ends with a space.  */
			size_t n = strlen(c->psargs);
			while (n && c->psargs[n - 1] == ' ')
				c->psargs[--n] = '\0';
		}
		return NULL;
	case NT_SIGINFO:
		if (size >= sizeof(siginfo_t) && !c->has_siginfo) {
			memcpy(&c->siginfo, desc, sizeof(siginfo_t));
			c->has_siginfo = true;
		}
		return NULL;
	case NT_AUXV:
		if (!c->auxv && size >= 16) {
			if (!(c->auxv = malloc(size / 16 * 16)))
				return &sg_enomem;
			memcpy(c->auxv, desc, size / 16 * 16);
			c->nauxv = size / 16;
		}
		return NULL;
	case NT_FILE:
		return parse_files(c, desc, size);
	default:
		return NULL;
	}
}

static struct sg_error *read_notes(struct sg_elfcore *c, const Elf64_Phdr *ph)
{
	/* Cut to what the file holds: the truncation is warned of once,
	   for the whole file.  */
	if (ph->p_offset >= c->size)
		return NULL;
	uint64_t size = ph->p_filesz;
	bool cut = size > c->size - ph->p_offset;
	if (cut)
		size = c->size - ph->p_offset;
	if (size > MAX_NOTES_SIZE)
		return sg_error_format(SG_ERROR_BAD_DATA, "has a note segment of %" PRIu64
				       " bytes, more than a core's", size);
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return &sg_enomem;
	if (!read_at(c->fd, buf, size, ph->p_offset)) {
		free(buf);
		return sg_error_os(errno ? errno : EIO, "cannot read the core's notes");
	}
	struct sg_error *err = NULL;
	size_t at = 0;
	while (!err && size - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t start = at;
		memcpy(&nh, buf + at, sizeof(nh));
		at += sizeof(nh);
		size_t namesz = nh.n_namesz, descsz = nh.n_descsz;
		size_t name_room = (namesz + 3) & ~(size_t)3;
		if (name_room > size - at || descsz > size - at - name_room) {
			/* A note that does not fit: cut short with the file,
			   or a bad size.  */
			if (!cut)
				sg_buf_printf(&c->warnings,
					      "the core's notes are malformed at byte %" PRIu64
					      ": the rest of them is not read\n",
					      ph->p_offset + start);
			break;
		}
		const char *name = (const char *)buf + at;
		at += name_room;
		err = parse_note(c, nh.n_type, name, namesz, buf + at, descsz, ph->p_offset + at);
		at += (descsz + 3) & ~(size_t)3;
		if (at > size)
			at = size;
	}
	free(buf);
	return err;
}

static int segment_cmp(const void *a, const void *b)
{
	const struct sg_elfcore_segment *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int file_cmp(const void *a, const void *b)
{
	const struct sg_elfcore_file *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static struct sg_error *read_headers(struct sg_elfcore *c)
{
	Elf64_Ehdr eh;
	struct sg_error *err = check_header(c, &eh);
	if (err)
		return err;
	uint64_t phnum = eh.e_phnum;
	if (phnum == PN_XNUM) {
		/* More than 65534 segments: the count is in section 0.  */
		Elf64_Shdr sh;
		if (!eh.e_shoff)
			return sg_error_create(SG_ERROR_BAD_DATA,
					       "has no section 0 to give its segment count (e_phnum is PN_XNUM)");
		if (!read_at(c->fd, &sh, sizeof(sh), eh.e_shoff))
			return sg_error_create(SG_ERROR_BAD_DATA,
					       "is truncated before its segment count (section 0)");
		phnum = sh.sh_info;
	}
	if (phnum == 0)
		return sg_error_create(SG_ERROR_BAD_DATA, "has no segments");
	if (phnum > MAX_SEGMENTS || eh.e_phoff > c->size ||
	    phnum * sizeof(Elf64_Phdr) > c->size - eh.e_phoff)
		return sg_error_create(SG_ERROR_BAD_DATA, "is truncated in its program headers");
	Elf64_Phdr *ph = malloc(phnum * sizeof(*ph));
	if (!ph)
		return &sg_enomem;
	if (!read_at(c->fd, ph, phnum * sizeof(*ph), eh.e_phoff)) {
		free(ph);
		return sg_error_create(SG_ERROR_BAD_DATA, "is truncated in its program headers");
	}
	size_t nload = 0;
	uint64_t expected = 0;
	for (uint64_t i = 0; i < phnum; i++) {
		nload += ph[i].p_type == PT_LOAD;
		if ((ph[i].p_type == PT_LOAD || ph[i].p_type == PT_NOTE) && ph[i].p_filesz) {
			uint64_t end = ph[i].p_offset + ph[i].p_filesz;
			if (end < ph[i].p_offset)
				end = UINT64_MAX;
			if (end > expected)
				expected = end;
		}
	}
	if (expected > c->size)
		warn_truncated(c, expected);
	c->segments = calloc(nload ? nload : 1, sizeof(*c->segments));
	for (uint64_t i = 0; !err && c->segments && i < phnum; i++) {
		if (ph[i].p_type == PT_NOTE) {
			err = read_notes(c, &ph[i]);
			continue;
		}
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0 ||
		    ph[i].p_vaddr + ph[i].p_memsz < ph[i].p_vaddr)
			continue;
		struct sg_elfcore_segment s = {
			.vaddr = ph[i].p_vaddr, .memsz = ph[i].p_memsz,
			.offset = ph[i].p_offset, .filesz = ph[i].p_filesz,
			.flags = ph[i].p_flags,
			.phindex = (uint32_t)i, .header_filesz = ph[i].p_filesz,
		};
		if (s.filesz > s.memsz)
			s.filesz = s.memsz;
		if (s.filesz && (s.offset > c->size || s.filesz > c->size - s.offset)) {
			/* Cut short: what the file lost is lost, not read from
			   the file mapped there, which has the mapping's
			   first contents, not the process's.  */
			s.filesz = s.offset > c->size ? 0 : c->size - s.offset;
			s.cut = true;
		}
		c->segments[c->nsegments++] = s;
	}
	free(ph);
	if (!c->segments)
		return &sg_enomem;
	if (err)
		return err;
	if (c->nthreads == 0)
		return sg_error_create(SG_ERROR_BAD_DATA,
				       expected > c->size ? "is truncated before its first thread (NT_PRSTATUS)"
							  : "has no thread (no NT_PRSTATUS note)");
	qsort(c->segments, c->nsegments, sizeof(*c->segments), segment_cmp);
	if (c->files)
		qsort(c->files, c->nfiles, sizeof(*c->files), file_cmp);
	if (!c->has_psinfo)
		c->pid = c->threads[0].tid;
	return NULL;
}

struct sg_error *sg_elfcore_open(int fd, struct sg_elfcore **ret)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return sg_error_os(errno, "cannot stat the core");
	if (S_ISDIR(st.st_mode))
		return sg_error_create(SG_ERROR_BAD_DATA, "is a directory, not a core file");
	if (!S_ISREG(st.st_mode))
		return sg_error_create(SG_ERROR_BAD_DATA, "is not a core file (not a regular file)");
	struct sg_elfcore *c = calloc(1, sizeof(*c));
	if (!c)
		return &sg_enomem;
	c->fd = fd;
	c->size = (uint64_t)st.st_size;
	sg_buf_init(&c->warnings);
	struct sg_error *err = read_headers(c);
	if (err) {
		c->fd = -1;	/* the caller's still */
		sg_elfcore_close(c);
		return err;
	}
	*ret = c;
	return NULL;
}

void sg_elfcore_close(struct sg_elfcore *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->segments);
	free(c->threads);
	free(c->files);
	free(c->file_names);
	free(c->auxv);
	sg_buf_deinit(&c->warnings);
	free(c);
}

uint64_t sg_elfcore_auxv(const struct sg_elfcore *c, uint64_t type)
{
	for (size_t i = 0; i < c->nauxv && c->auxv[2 * i] != AT_NULL; i++)
		if (c->auxv[2 * i] == type)
			return c->auxv[2 * i + 1];
	return 0;
}

const struct sg_elfcore_segment *sg_elfcore_segment_at(const struct sg_elfcore *c,
							uint64_t address)
{
	size_t lo = 0, hi = c->nsegments;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->segments[mid].vaddr + c->segments[mid].memsz <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nsegments && c->segments[lo].vaddr <= address)
		return &c->segments[lo];
	return NULL;
}

struct sg_error *sg_elfcore_xstate(const struct sg_elfcore *c, size_t index, void *buf,
				   size_t size, size_t *len_ret)
{
	if (index >= c->nthreads || !c->threads[index].xstate_size)
		return &sg_not_found;
	const struct sg_elfcore_thread *t = &c->threads[index];
	size_t n = t->xstate_size < size ? t->xstate_size : size;
	if (!read_at(c->fd, buf, n, t->xstate_offset))
		return sg_error_os(errno ? errno : EIO, "cannot read the core's NT_X86_XSTATE");
	*len_ret = n;
	return NULL;
}

const struct sg_elfcore_file *sg_elfcore_file_at(const struct sg_elfcore *c, uint64_t address)
{
	size_t lo = 0, hi = c->nfiles;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->files[mid].end <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nfiles && c->files[lo].start <= address)
		return &c->files[lo];
	return NULL;
}
