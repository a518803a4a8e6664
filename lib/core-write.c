/* Writing an ELF core of a live target (gcore).

   The file is laid out as the kernel lays out its own cores: the ELF
   header, one PT_NOTE and a PT_LOAD per mapping, the notes in the
   kernel's order, then each dumped mapping's bytes at a page-aligned
   offset.  Which mappings are dumped follows the kernel's rules for
   /proc/PID/coredump_filter (man 5 core), with /proc/PID/smaps telling
   which file mappings were written to.  Pages that read as zeros (or
   cannot be read at all) are left as holes in a sparse file.

   The target stays stopped throughout; the caller's detach lets it run.
   The core is written to a temporary name next to PATH and renamed at
   the end, so a failure leaves no partial core behind.  */
#include <config.h>
#include "elfcore.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Memory is read and written in chunks of this size.  */
#define CHUNK_SIZE (4u << 20)
/* Room for the largest XSAVE area (AMX tile data makes it about 11 kB);
   the buffer of CHUNK_SIZE holds it and its copy in gdb's layout.  */
#define XSTATE_MAX (32u << 10)
/* man 5 core: bits of /proc/PID/coredump_filter.  */
enum {
	FILTER_ANON_PRIVATE = 1 << 0,
	FILTER_ANON_SHARED = 1 << 1,
	FILTER_FILE_PRIVATE = 1 << 2,
	FILTER_FILE_SHARED = 1 << 3,
	FILTER_ELF_HEADERS = 1 << 4,
	FILTER_HUGE_PRIVATE = 1 << 5,
	FILTER_HUGE_SHARED = 1 << 6,
	FILTER_DEFAULT = 0x33,
};

/* One line of /proc/PID/smaps (or maps) and what smaps says of it.  */
struct cw_mapping {
	uint64_t start, end, pgoff;	/* pgoff: the file offset in bytes */
	bool readable, writable, executable, shared;
	const char *path;	/* into the writer's copy of smaps; "" if none */
	uint64_t rss, swap, anonymous;	/* bytes */
	bool dontdump, io, hugetlb;	/* VmFlags dd, io, ht */
	uint64_t dump;		/* bytes dumped from START */
	uint64_t offset;	/* of those bytes in the core */
};

struct core_writer {
	struct sg_target *t;
	pid_t proc;		/* the /proc entry: the first thread's */
	long page;
	unsigned filter;
	int mem_fd, pagemap_fd, fd;
	bool no_vm_readv;	/* refused (seccomp, ENOSYS): /proc/PID/mem only */
	char *smaps;
	bool have_smaps;	/* else maps: no Rss, Anonymous or VmFlags */
	struct cw_mapping *maps;
	size_t nmaps;
	struct sg_buf notes;
	unsigned char *buf;	/* CHUNK_SIZE */
	uint64_t memory;	/* bytes of memory dumped */
};

/* The whole of a /proc file into a new NUL-terminated buffer (*SIZE_RET
   bytes, may be NULL), or NULL with errno set.  */
static char *read_proc(pid_t pid, const char *name, size_t *size_ret)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct sg_buf b;
	sg_buf_init(&b);
	char chunk[16384];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			sg_buf_deinit(&b);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		sg_buf_append(&b, chunk, n);
	}
	close(fd);
	if (size_ret)
		*size_ret = b.len;
	sg_buf_putc(&b, '\0');
	if (b.failed) {
		sg_buf_deinit(&b);
		errno = ENOMEM;
		return NULL;
	}
	return sg_buf_steal(&b);
}

/* ---- the mappings ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Whether VMFLAGS (" rd wr mr ...") holds the two-letter flag FLAG.  */
static bool has_vmflag(const char *vmflags, const char *flag)
{
	for (const char *p = vmflags; (p = strstr(p, flag)); p += 2)
		if ((p == vmflags || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\0'))
			return true;
	return false;
}

/* A header line of smaps ("start-end perms offset dev inode path") into
   *M, its path pointing into LINE; false for a field line.  */
static bool parse_mapping_line(char *line, struct cw_mapping *m)
{
	char perms[8];
	int path_off = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &m->start, &m->end,
		   perms, &m->pgoff, &path_off) < 4 || !path_off || strlen(perms) < 4)
		return false;
	m->readable = perms[0] == 'r';
	m->writable = perms[1] == 'w';
	m->executable = perms[2] == 'x';
	m->shared = perms[3] == 's';
	m->path = line + path_off;
	return m->end > m->start;
}

/* A field line of smaps for the mapping M.  */
static void parse_field_line(const char *line, struct cw_mapping *m)
{
	uint64_t kb;
	if (!strncmp(line, "VmFlags:", 8)) {
		m->dontdump = has_vmflag(line + 8, "dd");
		m->io = has_vmflag(line + 8, "io");
		m->hugetlb = has_vmflag(line + 8, "ht");
	} else if (sscanf(line, "Rss: %" SCNu64 " kB", &kb) == 1) {
		m->rss = kb << 10;
	} else if (sscanf(line, "Swap: %" SCNu64 " kB", &kb) == 1) {
		m->swap = kb << 10;
	} else if (sscanf(line, "Anonymous: %" SCNu64 " kB", &kb) == 1) {
		m->anonymous = kb << 10;
	}
}

/* The mappings of /proc/PID/smaps, or of maps where smaps is missing (its
   fields then unknown: zero).  [vvar] (which cannot be read) and
   [vsyscall] (the same page in every process) are left out.  */
static struct sg_error *read_mappings(struct core_writer *w)
{
	w->smaps = read_proc(w->proc, "smaps", NULL);
	w->have_smaps = w->smaps != NULL;
	if (!w->smaps)
		w->smaps = read_proc(w->proc, "maps", NULL);
	if (!w->smaps)
		return sg_error_os(errno, "cannot read /proc/%d/maps", (int)w->proc);
	size_t cap = 0;
	struct cw_mapping *cur = NULL;
	for (char *line = w->smaps, *eol; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line) - 1;	/* the last line */
		else
			*eol = '\0';
		struct cw_mapping m = { 0 };
		if (parse_mapping_line(line, &m)) {
			if (!strncmp(m.path, "[vsyscall]", 10) || !strncmp(m.path, "[vvar", 5)) {
				cur = NULL;
				continue;
			}
			cur = sg_array_push(&w->maps, &w->nmaps, &cap, sizeof(*cur));
			if (!cur)
				return &sg_enomem;
			*cur = m;
		} else if (cur) {
			parse_field_line(line, cur);
		}
	}
	return NULL;
}

static unsigned read_filter(pid_t pid)
{
	char *s = read_proc(pid, "coredump_filter", NULL);
	if (!s)
		return FILTER_DEFAULT;
	char *end;
	unsigned long v = strtoul(s, &end, 16);
	bool ok = end != s;
	free(s);
	return ok ? (unsigned)v : FILTER_DEFAULT;
}

/* Whether the mapping M starts with the ELF magic.  */
static bool starts_with_elf(struct core_writer *w, const struct cw_mapping *m)
{
	unsigned char magic[SELFMAG];
	return pread(w->mem_fd, magic, SELFMAG, (off_t)m->start) == SELFMAG &&
	       !memcmp(magic, ELFMAG, SELFMAG);
}

/* How many bytes of M the kernel would dump under the filter: all, none,
   or (bit 4) the first page of an ELF file.  Unreadable mappings are
   left out as gdb leaves them; the vDSO is always dumped.  A private file
   mapping that was written to (smaps "Anonymous:") counts as anonymous.  */
static uint64_t dump_size(struct core_writer *w, const struct cw_mapping *m)
{
	uint64_t all = m->end - m->start;
	unsigned f = w->filter;
	if (!strcmp(m->path, "[vdso]"))
		return all;
	if (m->dontdump)
		return 0;
	if (m->io || !m->readable)
		return 0;
	if (m->hugetlb)
		return f & (m->shared ? FILTER_HUGE_SHARED : FILTER_HUGE_PRIVATE) ? all : 0;
	bool file = m->path[0] == '/';
	if (m->shared) {
		/* A deleted file (shared anonymous memory, SysV shm, memfd) is
		   anonymous to the kernel: its link count is 0.  */
		bool anon = !file || ends_with(m->path, " (deleted)");
		return f & (anon ? FILTER_ANON_SHARED : FILTER_FILE_SHARED) ? all : 0;
	}
	if ((!file || m->anonymous) && (f & FILTER_ANON_PRIVATE))
		return all;
	if (!file)
		return 0;
	if (f & FILTER_FILE_PRIVATE)
		return all;
	if ((f & FILTER_ELF_HEADERS) && m->pgoff == 0 && starts_with_elf(w, m))
		return (uint64_t)w->page < all ? (uint64_t)w->page : all;
	return 0;
}

/* ---- the notes ---- */

static void add_note(struct sg_buf *b, const char *name, uint32_t type, const void *desc,
		     size_t size)
{
	static const char pad[4];
	Elf64_Nhdr nh = { .n_namesz = strlen(name) + 1, .n_descsz = size, .n_type = type };
	sg_buf_append(b, &nh, sizeof(nh));
	sg_buf_append(b, name, nh.n_namesz);
	sg_buf_append(b, pad, -nh.n_namesz & 3);
	sg_buf_append(b, desc, size);
	sg_buf_append(b, pad, -size & 3);
}

/* What /proc/PID[/task/TID]/stat and status say of a process or thread.  */
struct proc_stat {
	char comm[16];
	char state;
	int ppid, pgrp, sid, nice;
	unsigned long flags;
	uint64_t utime, stime, cutime, cstime;	/* clock ticks */
	uint64_t sigpnd, sigblk;
	unsigned uid, gid;
};

static void read_proc_stat(pid_t pid, pid_t tid, struct proc_stat *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->state = '?';
	char name[48];
	if (tid)
		snprintf(name, sizeof(name), "task/%d/stat", (int)tid);
	else
		snprintf(name, sizeof(name), "stat");
	char *s = read_proc(pid, name, NULL);
	/* "pid (comm) S ppid pgrp sid tty tpgid flags minflt cminflt majflt
	   cmajflt utime stime cutime cstime priority nice ...": the comm may
	   hold ") ", so it ends at the last one.  */
	char *open = s ? strchr(s, '(') : NULL;
	char *close = s ? strrchr(s, ')') : NULL;
	if (open && close && close > open) {
		size_t len = close - open - 1;
		if (len >= sizeof(ret->comm))
			len = sizeof(ret->comm) - 1;
		memcpy(ret->comm, open + 1, len);
		long nice = 0;
		sscanf(close + 1,
		       " %c %d %d %d %*d %*d %lu %*u %*u %*u %*u %" SCNu64 " %" SCNu64 " %" SCNu64
		       " %" SCNu64 " %*d %ld",
		       &ret->state, &ret->ppid, &ret->pgrp, &ret->sid, &ret->flags, &ret->utime,
		       &ret->stime, &ret->cutime, &ret->cstime, &nice);
		ret->nice = (int)nice;
	}
	free(s);
	if (tid)
		snprintf(name, sizeof(name), "task/%d/status", (int)tid);
	else
		snprintf(name, sizeof(name), "status");
	s = read_proc(pid, name, NULL);
	const char *p;
	if (s && (p = strstr(s, "\nSigPnd:")))
		sscanf(p + 8, "%" SCNx64, &ret->sigpnd);
	if (s && (p = strstr(s, "\nSigBlk:")))
		sscanf(p + 8, "%" SCNx64, &ret->sigblk);
	if (s && (p = strstr(s, "\nUid:")))
		sscanf(p + 5, "%u", &ret->uid);
	if (s && (p = strstr(s, "\nGid:")))
		sscanf(p + 5, "%u", &ret->gid);
	free(s);
}

static struct timeval ticks_to_timeval(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	return (struct timeval){ .tv_sec = ticks / hz, .tv_usec = ticks % hz * 1000000 / hz };
}

static void add_prstatus(struct core_writer *w, const struct sg_thread *th, int cursig,
			 bool fpvalid)
{
	struct proc_stat ps;
	read_proc_stat(w->proc, th->tid, &ps);
	struct elf_prstatus st;
	memset(&st, 0, sizeof(st));
	st.pr_info.si_signo = cursig;
	st.pr_cursig = cursig;
	st.pr_sigpend = ps.sigpnd;
	st.pr_sighold = ps.sigblk;
	st.pr_pid = th->tid;
	st.pr_ppid = ps.ppid;
	st.pr_pgrp = ps.pgrp;
	st.pr_sid = ps.sid;
	st.pr_utime = ticks_to_timeval(ps.utime);
	st.pr_stime = ticks_to_timeval(ps.stime);
	st.pr_cutime = ticks_to_timeval(ps.cutime);
	st.pr_cstime = ticks_to_timeval(ps.cstime);
	struct user_regs_struct u;
	sg_regs_to_user(&u, &th->regs);
	_Static_assert(sizeof(u) == sizeof(st.pr_reg), "pr_reg is a user_regs_struct");
	memcpy(&st.pr_reg, &u, sizeof(u));
	st.pr_fpvalid = fpvalid;
	add_note(&w->notes, "CORE", NT_PRSTATUS, &st, sizeof(st));
}

/* The XSAVE components gdb reads at Intel's fixed offsets (before gdb 14,
   whatever the CPU): XCR0 bit, offset, size.  */
static const struct {
	unsigned bit, offset, size;
} intel_components[] = {
	{ 2, 576, 256 },	/* AVX */
	{ 3, 960, 64 }, { 4, 1024, 64 },	/* MPX */
	{ 5, 1088, 64 }, { 6, 1152, 512 }, { 7, 1664, 1024 },	/* AVX-512 */
	{ 9, 2688, 8 },		/* PKRU */
};

/* The size gdb expects of an NT_X86_XSTATE for XCR0, or 0 for state it
   does not know.  */
static size_t intel_xstate_size(uint64_t xcr0)
{
	if (xcr0 & ~UINT64_C(0x2ff))
		return 0;
	return xcr0 & 0x200 ? 2696 : xcr0 & 0xe0 ? 2688 : xcr0 & 0x18 ? 1088
	       : xcr0 & 0x4 ? 832 : 576;
}

/* The XSAVE area XSTATE (*SIZE bytes, as ptrace and the kernel's cores
   give it: each component at the offset CPUID gives) in the layout gdb
   reads, into OUT (room for 2696 bytes), with its size in *SIZE; XSTATE
   itself when that is its layout already or cannot be made.  A CPU without MPX
   (AMD Zen 4) puts AVX-512 state lower than Intel's: gdb 13 then
   ignores the note with a warning.  */
static const unsigned char *intel_xstate(const unsigned char *xstate, size_t *size,
					 unsigned char *out)
{
	uint64_t xcr0;
	if (*size < 576)
		return xstate;
	memcpy(&xcr0, xstate + 464, sizeof(xcr0));	/* sw_reserved: xstate_fx_sw_bytes */
	size_t want = intel_xstate_size(xcr0);
	if (!want || want == *size)
		return xstate;
	memset(out, 0, want);
	memcpy(out, xstate, 576);	/* legacy area and XSAVE header */
	for (size_t i = 0; i < sizeof(intel_components) / sizeof(intel_components[0]); i++) {
		unsigned bit = intel_components[i].bit, eax, ebx, ecx, edx;
		if (!(xcr0 >> bit & 1))
			continue;
		if (!__get_cpuid_count(0xd, bit, &eax, &ebx, &ecx, &edx) ||
		    eax != intel_components[i].size || ebx + eax > *size)
			return xstate;
		memcpy(out + intel_components[i].offset, xstate + ebx, eax);
	}
	*size = want;
	return out;
}

/* The thread's NT_FPREGSET (FP, if VALID) and NT_X86_XSTATE, when
   ptrace gives it.  */
static void add_fpregs(struct core_writer *w, const struct sg_thread *th,
		       const struct user_fpregs_struct *fp, bool valid)
{
	_Static_assert(sizeof(*fp) == SG_FPREGSET_SIZE, "fpregset");
	if (valid)
		add_note(&w->notes, "CORE", NT_FPREGSET, fp, sizeof(*fp));
	struct iovec iov = { w->buf, XSTATE_MAX };
	if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_X86_XSTATE, &iov) < 0 || !iov.iov_len)
		return;
	size_t size = iov.iov_len;
	const unsigned char *xstate = intel_xstate(w->buf, &size, w->buf + XSTATE_MAX);
	add_note(&w->notes, "LINUX", NT_X86_XSTATE, xstate, size);
}

static void add_prpsinfo(struct core_writer *w)
{
	struct proc_stat ps;
	read_proc_stat(w->proc, 0, &ps);
	struct elf_prpsinfo pi;
	memset(&pi, 0, sizeof(pi));
	/* The state before our stop (ps's is 't': traced).  */
	char state = w->t->threads[0].state;
	if (state == '?' || state == '\0' || state == 't')
		state = ps.state;
	static const char states[] = "RSDTZW";
	const char *at = state ? strchr(states, state) : NULL;
	pi.pr_state = at ? at - states : 0;
	pi.pr_sname = state;
	pi.pr_zomb = state == 'Z';
	pi.pr_nice = ps.nice;
	pi.pr_flag = ps.flags;
	pi.pr_uid = ps.uid;
	pi.pr_gid = ps.gid;
	pi.pr_pid = w->t->pid;
	pi.pr_ppid = ps.ppid;
	pi.pr_pgrp = ps.pgrp;
	pi.pr_sid = ps.sid;
	memcpy(pi.pr_fname, ps.comm, sizeof(pi.pr_fname) - 1);
	/* The command line's first 79 bytes, its NULs as spaces.  */
	size_t len = 0;
	char *cmdline = read_proc(w->proc, "cmdline", &len);
	if (cmdline) {
		if (len >= sizeof(pi.pr_psargs))
			len = sizeof(pi.pr_psargs) - 1;
		while (len && cmdline[len - 1] == '\0')
			len--;
		for (size_t i = 0; i < len; i++)
			pi.pr_psargs[i] = cmdline[i] ? cmdline[i] : ' ';
		free(cmdline);
	}
	add_note(&w->notes, "CORE", NT_PRPSINFO, &pi, sizeof(pi));
}

/* The signal that stopped the first thread, or zeros: the stop of a
   PTRACE_INTERRUPT is no signal the process received.  */
static void first_siginfo(const struct sg_thread *th, siginfo_t *si)
{
	if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, si) < 0 ||
	    (si->si_signo == SIGTRAP && si->si_code == (SIGTRAP | PTRACE_EVENT_STOP << 8)))
		memset(si, 0, sizeof(*si));
}

static void add_auxv(struct core_writer *w)
{
	size_t len = 0;
	char *auxv = read_proc(w->proc, "auxv", &len);
	if (auxv && len)
		add_note(&w->notes, "CORE", NT_AUXV, auxv, len);
	free(auxv);
}

/* NT_FILE: count and page size, then (start, end, file offset in pages)
   for each file mapping, then their names.  */
static void add_file_note(struct core_writer *w)
{
	struct sg_buf b;
	sg_buf_init(&b);
	uint64_t head[2] = { 0, (uint64_t)w->page };
	sg_buf_append(&b, head, sizeof(head));
	for (size_t i = 0; i < w->nmaps; i++) {
		const struct cw_mapping *m = &w->maps[i];
		if (m->path[0] != '/')
			continue;
		uint64_t e[3] = { m->start, m->end, m->pgoff / w->page };
		sg_buf_append(&b, e, sizeof(e));
		head[0]++;
	}
	for (size_t i = 0; i < w->nmaps; i++)
		if (w->maps[i].path[0] == '/')
			sg_buf_append(&b, w->maps[i].path, strlen(w->maps[i].path) + 1);
	if (!b.failed) {
		memcpy(b.data, head, sizeof(head));
		add_note(&w->notes, "CORE", NT_FILE, b.data, b.len);
	}
	sg_buf_deinit(&b);
}

/* The notes in the kernel's order: the first thread's NT_PRSTATUS,
   NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE, its floating-point
   registers, then each other thread's NT_PRSTATUS and registers.  */
static void build_notes(struct core_writer *w)
{
	struct sg_target *t = w->t;
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct sg_thread *th = &t->threads[i];
		struct user_fpregs_struct fp;
		bool fpvalid = ptrace(PTRACE_GETFPREGS, th->tid, NULL, &fp) == 0;
		if (i > 0) {
			add_prstatus(w, th, th->pending_signal, fpvalid);
			add_fpregs(w, th, &fp, fpvalid);
			continue;
		}
		siginfo_t si;
		first_siginfo(th, &si);
		add_prstatus(w, th, si.si_signo ? si.si_signo : th->pending_signal, fpvalid);
		add_prpsinfo(w);
		add_note(&w->notes, "CORE", NT_SIGINFO, &si, sizeof(si));
		add_auxv(w);
		add_file_note(w);
		add_fpregs(w, th, &fp, fpvalid);
	}
}

/* ---- the file ---- */

static struct sg_error *write_at(struct core_writer *w, const void *data, size_t size,
				 uint64_t offset, const char *path)
{
	while (size) {
		ssize_t n = pwrite(w->fd, data, size, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sg_error_os(n < 0 ? errno : ENOSPC, "cannot write core file %s", path);
		data = (const char *)data + n;
		size -= n;
		offset += n;
	}
	return NULL;
}

/* SIZE bytes of memory at ADDRESS into BUF; a page that cannot be read
   reads as zeros.  An error only when the process is gone.  */
static struct sg_error *read_memory(struct core_writer *w, uint64_t address, unsigned char *buf,
				    size_t size)
{
	size_t done = 0;
	/* process_vm_readv copies straight from the target's pages, where
	   /proc/PID/mem goes through a bounce page; the latter then reads
	   what the former could not.  */
	if (!w->no_vm_readv) {
		struct iovec local = { buf, size };
		struct iovec remote = { (void *)(uintptr_t)address, size };
		ssize_t n = process_vm_readv(w->proc, &local, 1, &remote, 1, 0);
		if (n > 0)
			done = n;
		else if (errno == ENOSYS || errno == EPERM)
			w->no_vm_readv = true;
	}
	while (done < size) {
		ssize_t n = pread(w->mem_fd, buf + done, size - done, (off_t)(address + done));
		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* /proc/PID/mem reads nothing once the process's memory is
		   gone, and EIO for a page that is not there.  */
		if (n == 0 || errno == ESRCH)
			return sg_target_gone_error(w->t);
		size_t skip = w->page - (address + done) % w->page;
		if (skip > size - done)
			skip = size - done;
		memset(buf + done, 0, skip);
		done += skip;
	}
	return NULL;
}

static bool all_zero(const unsigned char *p, size_t size)
{
	const uint64_t *q = (const uint64_t *)p;
	for (size_t i = 0; i < size / 8; i += 8) {
		uint64_t x = 0;
		for (size_t j = 0; j < 8 && i + j < size / 8; j++)
			x |= q[i + j];
		if (x)
			return false;
	}
	return true;
}

/* Write BUF's SIZE bytes at OFFSET, leaving its zero pages as holes.  */
static struct sg_error *write_sparse(struct core_writer *w, const unsigned char *buf, size_t size,
				     uint64_t offset, const char *path)
{
	size_t run = 0, i;	/* [run, i): pages with data not yet written */
	for (i = 0; i < size; i += w->page) {
		size_t n = size - i < (size_t)w->page ? size - i : (size_t)w->page;
		if (!all_zero(buf + i, n))
			continue;
		if (run < i) {
			struct sg_error *err = write_at(w, buf + run, i - run, offset + run, path);
			if (err)
				return err;
		}
		run = i + n;
	}
	if (run < size)
		return write_at(w, buf + run, size - run, offset + run, path);
	return NULL;
}

/* Whether the pages of M that are neither in memory nor in swap read as
   zeros: those of private anonymous memory (a file mapping's hold the
   file, a shared one's may be in the shared object).  */
static bool absent_is_zero(const struct cw_mapping *m)
{
	return !m->shared && m->path[0] != '/' && strcmp(m->path, "[vdso]");
}

/* Into PRESENT, one byte per page of the N pages at ADDRESS: whether it
   is in memory or swap (/proc/PID/pagemap bits 63 and 62).  False when
   pagemap cannot tell: then every page is to be read.  */
static bool pages_present(struct core_writer *w, uint64_t address, size_t n, uint64_t *entries,
			  unsigned char *present)
{
	if (w->pagemap_fd < 0)
		return false;
	size_t size = n * sizeof(*entries);
	if (pread(w->pagemap_fd, entries, size, (off_t)(address / w->page * sizeof(*entries))) !=
	    (ssize_t)size)
		return false;
	for (size_t i = 0; i < n; i++)
		present[i] = (entries[i] >> 62) != 0;
	return true;
}

/* The chunk of SIZE bytes at ADDRESS of M, to OFFSET in the core: the
   runs of pages that may hold data are read and written; the rest are
   holes.  */
static struct sg_error *write_chunk(struct core_writer *w, const struct cw_mapping *m,
				    uint64_t address, size_t size, uint64_t offset,
				    const char *path)
{
	size_t npages = size / w->page;
	unsigned char present[CHUNK_SIZE / 4096];
	uint64_t entries[CHUNK_SIZE / 4096];
	if (npages > sizeof(present) || !absent_is_zero(m) ||
	    !pages_present(w, address, npages, entries, present))
		npages = 0;
	if (!npages) {
		struct sg_error *err = read_memory(w, address, w->buf, size);
		return err ? err : write_sparse(w, w->buf, size, offset, path);
	}
	for (size_t i = 0; i < npages;) {
		size_t j = i;
		while (j < npages && present[j] == present[i])
			j++;
		if (present[i]) {
			size_t at = i * w->page, len = (j - i) * w->page;
			struct sg_error *err = read_memory(w, address + at, w->buf + at, len);
			if (!err)
				err = write_sparse(w, w->buf + at, len, offset + at, path);
			if (err)
				return err;
		}
		i = j;
	}
	return NULL;
}

static struct sg_error *write_mapping(struct core_writer *w, const struct cw_mapping *m,
				      const char *path)
{
	/* Nothing of it in memory or swap: all a hole, nothing to read.  */
	if (w->have_smaps && absent_is_zero(m) && !m->rss && !m->swap && !m->anonymous)
		return NULL;
	for (uint64_t done = 0; done < m->dump;) {
		size_t n = m->dump - done < CHUNK_SIZE ? m->dump - done : CHUNK_SIZE;
		struct sg_error *err = write_chunk(w, m, m->start + done, n, m->offset + done, path);
		if (err)
			return err;
		done += n;
	}
	return NULL;
}

static uint32_t segment_flags(const struct cw_mapping *m)
{
	return (m->readable ? PF_R : 0) | (m->writable ? PF_W : 0) | (m->executable ? PF_X : 0);
}

/* The headers, the notes, and where each mapping goes; *SIZE_RET is the
   file's size.  */
static struct sg_error *write_headers(struct core_writer *w, const char *path,
				      uint64_t *size_ret)
{
	size_t phnum = w->nmaps + 1;
	bool extnum = phnum >= PN_XNUM;
	uint64_t phoff = sizeof(Elf64_Ehdr);
	uint64_t shoff = phoff + phnum * sizeof(Elf64_Phdr);
	uint64_t notes_off = shoff + (extnum ? sizeof(Elf64_Shdr) : 0);
	uint64_t data_off = (notes_off + w->notes.len + w->page - 1) / w->page * w->page;

	struct sg_buf b;
	sg_buf_init(&b);
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT,
			     ELFOSABI_NONE },
		.e_type = ET_CORE,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_phoff = phoff,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = extnum ? PN_XNUM : phnum,
	};
	if (extnum) {
		eh.e_shoff = shoff;
		eh.e_shentsize = sizeof(Elf64_Shdr);
		eh.e_shnum = 1;
	}
	sg_buf_append(&b, &eh, sizeof(eh));
	Elf64_Phdr note = { .p_type = PT_NOTE, .p_offset = notes_off, .p_filesz = w->notes.len,
			    .p_align = 4 };
	sg_buf_append(&b, &note, sizeof(note));
	uint64_t off = data_off;
	for (size_t i = 0; i < w->nmaps; i++) {
		struct cw_mapping *m = &w->maps[i];
		m->offset = off;
		Elf64_Phdr ph = {
			.p_type = PT_LOAD,
			.p_flags = segment_flags(m),
			.p_offset = off,
			.p_vaddr = m->start,
			.p_filesz = m->dump,
			.p_memsz = m->end - m->start,
			.p_align = w->page,
		};
		sg_buf_append(&b, &ph, sizeof(ph));
		off += m->dump;
		w->memory += m->dump;
	}
	if (extnum) {
		Elf64_Shdr sh = { .sh_type = SHT_NULL, .sh_size = 1, .sh_info = phnum };
		sg_buf_append(&b, &sh, sizeof(sh));
	}
	sg_buf_append(&b, w->notes.data, w->notes.len);
	struct sg_error *err = b.failed ? &sg_enomem : write_at(w, b.data, b.len, 0, path);
	sg_buf_deinit(&b);
	*size_ret = off;
	return err;
}

static struct sg_error *write_core(struct core_writer *w, const char *path, uint64_t *size_ret)
{
	struct sg_error *err = read_mappings(w);
	if (err)
		return err;
	w->filter = read_filter(w->proc);
	for (size_t i = 0; i < w->nmaps; i++)
		w->maps[i].dump = dump_size(w, &w->maps[i]);
	build_notes(w);
	if (w->notes.failed)
		return &sg_enomem;
	err = write_headers(w, path, size_ret);
	for (size_t i = 0; !err && i < w->nmaps; i++)
		err = write_mapping(w, &w->maps[i], path);
	/* The size, as trailing holes write nothing.  */
	if (!err && ftruncate(w->fd, (off_t)*size_ret) < 0)
		err = sg_error_os(errno, "cannot write core file %s", path);
	return err;
}

/* A new file next to PATH to write into, its name into *TMP_RET.  */
static struct sg_error *create_temp(const char *path, char **tmp_ret, int *fd_ret)
{
	char *tmp;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return &sg_enomem;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return sg_error_os(e, "cannot create core file %s", path);
	}
	*tmp_ret = tmp;
	*fd_ret = fd;
	return NULL;
}

static struct sg_error *check_target(struct sg_target *t)
{
	if (t->kind != SG_TARGET_LIVE)
		return sg_error_create(SG_ERROR_TARGET,
				       "cannot write a core: the target is not a live process");
	if (t->gone || !t->nthreads)
		return sg_error_format(SG_ERROR_TARGET,
				       "cannot write a core: process %d has exited", (int)t->pid);
	return NULL;
}

struct sg_error *sg_core_write(struct sg_target *target, const char *path,
			       struct sg_core_write_stats *ret)
{
	uint64_t start = sg_now_ns();
	struct sg_error *err = check_target(target);
	if (err)
		return err;
	struct core_writer w = {
		.t = target,
		.proc = target->threads[0].tid,
		.page = sysconf(_SC_PAGESIZE),
		.mem_fd = -1,
		.pagemap_fd = -1,
		.fd = -1,
	};
	sg_buf_init(&w.notes);
	char *tmp = NULL;
	err = create_temp(path, &tmp, &w.fd);
	if (!err) {
		char mem[64];
		snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)w.proc);
		w.mem_fd = open(mem, O_RDONLY | O_CLOEXEC);
		if (w.mem_fd < 0)
			err = sg_error_os(errno, "cannot open %s", mem);
		/* Optional: without it every page is read.  */
		snprintf(mem, sizeof(mem), "/proc/%d/pagemap", (int)w.proc);
		w.pagemap_fd = open(mem, O_RDONLY | O_CLOEXEC);
	}
	if (!err && !(w.buf = malloc(CHUNK_SIZE)))
		err = &sg_enomem;
	uint64_t size = 0;
	if (!err)
		err = write_core(&w, path, &size);
	if (w.fd >= 0 && close(w.fd) < 0 && !err)
		err = sg_error_os(errno, "cannot write core file %s", path);
	if (!err && rename(tmp, path) < 0)
		err = sg_error_os(errno, "cannot rename %s to %s", tmp, path);
	if (err && tmp)
		unlink(tmp);
	if (!err && ret) {
		ret->bytes = size;
		ret->memory = w.memory;
		ret->segments = w.nmaps;
		ret->elapsed_ns = sg_now_ns() - start;
	}
	if (w.mem_fd >= 0)
		close(w.mem_fd);
	if (w.pagemap_fd >= 0)
		close(w.pagemap_fd);
	free(tmp);
	free(w.buf);
	free(w.maps);
	free(w.smaps);
	sg_buf_deinit(&w.notes);
	return err;
}
