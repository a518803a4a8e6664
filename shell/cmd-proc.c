/* The process and the program: info proc and its subcommands, info auxv,
   info inferiors, as gdb 13 prints them.

   A live process's facts come from /proc/PID, as gdb's native target reads
   them.  A core's come from its notes: NT_FILE for the mappings, NT_AUXV
   for the auxiliary vector, NT_PRPSINFO for the command.  The first two are
   read here from the core file, as libspyglass keeps its parsed notes
   private (lib/elfcore.h).  */
#include <config.h>
#include "shell.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What "info proc" shows; "all" is every part a target can give.  */
enum proc_what {
	PROC_MINIMAL,		/* cmdline, cwd, exe */
	PROC_CMDLINE,
	PROC_CWD,
	PROC_EXE,
	PROC_MAPPINGS,
	PROC_STAT,
	PROC_STATUS,
	PROC_ALL,
};

/* ---- /proc files */

/* Where a process's files are: /proc/PID, or /proc/PID/task/TID for the
   files a zombie leader no longer has (below).  */
struct proc_dir {
	char path[64];
};

static void proc_dir_init(struct proc_dir *d, pid_t pid)
{
	snprintf(d->path, sizeof(d->path), "/proc/%d", (int)pid);
}

/* The folder for what belongs to the whole process (cmdline, cwd, exe,
   maps, auxv) of PID.  A process whose main thread exited while others
   run on has a zombie leader, whose /proc/PID has none of these: the
   target left it out (it has no thread PID), and its first live thread
   gives them.  */
static void process_dir(struct sg_session *s, pid_t pid, struct proc_dir *d)
{
	proc_dir_init(d, pid);
	struct sg_target *t = sg_session_target(s);
	if (!t || sg_target_kind(t) != SG_TARGET_LIVE || sg_target_pid(t) != pid ||
	    sg_target_thread_by_tid(t, pid) || !sg_target_thread(t, 0))
		return;
	snprintf(d->path, sizeof(d->path), "/proc/%d/task/%d", (int)pid,
		 (int)sg_thread_tid(sg_target_thread(t, 0)));
}

/* The whole of DIR/NAME (NUL-terminated, *LEN_RET its bytes without the
   NUL), or NULL with errno set.  /proc files report no size: read until
   the end.  */
static char *read_proc_file(const struct proc_dir *dir, const char *name, size_t *len_ret)
{
	char path[96];
	snprintf(path, sizeof(path), "%s/%s", dir->path, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (len + 1 == cap) {
			/* A cap on what a hostile process can make us hold: its
			   maps of a million mappings fit.  */
			char *more = cap < (256u << 20) ? realloc(buf, cap * 2) : NULL;
			if (!more) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = more;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (n == 0) {
			buf[len] = '\0';
			*len_ret = len;
			break;
		}
		len += n;
	}
	close(fd);
	return buf;
}

/* The target of the link DIR/NAME, new string, or NULL.  */
static char *read_proc_link(const struct proc_dir *dir, const char *name)
{
	char path[96], target[4096];
	snprintf(path, sizeof(path), "%s/%s", dir->path, name);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return NULL;
	target[n] = '\0';
	return strdup(target);
}

/* gdb warns, and goes on with the next part, when a /proc file cannot be
   read (the process is gone, or is not ours).  */
static void warn_open(const struct proc_dir *dir, const char *name)
{
	fprintf(stderr, "warning: unable to open /proc file '%s/%s'\n", dir->path, name);
}

static void warn_link(const struct proc_dir *dir, const char *name)
{
	fprintf(stderr, "warning: unable to read link '%s/%s'\n", dir->path, name);
}

/* cmdline: the arguments joined by blanks, as gdb shows them (every NUL
   but the last is a blank).  */
static void show_cmdline(const struct proc_dir *dir, struct sg_out *out)
{
	size_t len;
	char *buf = read_proc_file(dir, "cmdline", &len);
	if (!buf) {
		warn_open(dir, "cmdline");
		sg_out_null(out, "cmdline");
		return;
	}
	if (len) {
		for (size_t i = 0; i + 1 < len; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[len - 1] = '\0';
		sg_out_printf(out, "cmdline = '%s'\n", buf);
		sg_out_string(out, "cmdline", buf);
	} else {
		/* A zombie or a kernel thread: gdb shows nothing.  */
		sg_out_null(out, "cmdline");
	}
	free(buf);
}

/* cwd and exe: a link each.  */
static void show_link(const struct proc_dir *dir, const char *name, struct sg_out *out)
{
	char *target = read_proc_link(dir, name);
	if (!target) {
		warn_link(dir, name);
		sg_out_null(out, name);
		return;
	}
	sg_out_printf(out, "%s = '%s'\n", name, target);
	sg_out_string(out, name, target);
	free(target);
}

/* ---- a core's notes */

/* An NT_FILE entry: [START, END) maps NAME from byte OFFSET.  */
struct proc_core_file {
	uint64_t start, end, offset;
	const char *name;	/* into the note's copy */
};

struct proc_core_notes {
	bool has_files;
	bool files_bad;		/* an NT_FILE too short for what it says it holds */
	struct proc_core_file *files;
	size_t nfiles;
	char *file_note;	/* the NT_FILE note's copy, for the names */
	uint64_t *auxv;		/* (type, value) pairs, or NULL */
	size_t nauxv;
};

static void proc_core_free(struct proc_core_notes *n)
{
	free(n->files);
	free(n->file_note);
	free(n->auxv);
}

/* The NT_FILE note DESC of SIZE bytes: a count, the page size, COUNT
   (start, end, page offset) triples, then COUNT NUL-terminated names.
   Takes DESC.  A malformed one is only noted: the auxiliary vector is
   still there to show.  */
static struct sg_error *parse_nt_file(struct proc_core_notes *n, char *desc, size_t size)
{
	uint64_t count, page_size;
	if (size < 16)
		goto bad;
	memcpy(&count, desc, 8);
	memcpy(&page_size, desc + 8, 8);
	if (count > (size - 16) / 24)
		goto bad;
	n->files = calloc(count ? count : 1, sizeof(*n->files));
	if (!n->files) {
		free(desc);
		return &sg_enomem;
	}
	const char *name = desc + 16 + count * 24, *end = desc + size;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v[3];
		memcpy(v, desc + 16 + i * 24, sizeof(v));
		size_t len = strnlen(name, end - name);
		if (name + len == end)
			break;	/* the names are cut short: keep those before */
		n->files[n->nfiles++] = (struct proc_core_file){ v[0], v[1], v[2] * page_size, name };
		name += len + 1;
	}
	n->file_note = desc;
	n->has_files = true;
	return NULL;
bad:
	free(desc);
	n->files_bad = true;
	return NULL;
}

/* Read the NT_FILE and NT_AUXV notes of the core at PATH.  The notes are
   bounded by their PT_NOTE segments, which are bounded by the file.  */
static struct sg_error *proc_core_read(const char *path, struct proc_core_notes *ret)
{
	*ret = (struct proc_core_notes){ 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sg_error_os(errno, "%s", path);
	struct sg_error *err = NULL;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return sg_error_format(SG_ERROR_BAD_DATA, "%s: not a 64-bit ELF core", path);
	}
	for (unsigned i = 0; i < eh.e_phnum && !err; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_NOTE || ph.p_filesz > (64u << 20))
			continue;
		char *seg = malloc(ph.p_filesz ? ph.p_filesz : 1);
		if (!seg) {
			err = &sg_enomem;
			break;
		}
		ssize_t got = pread(fd, seg, ph.p_filesz, ph.p_offset);
		size_t size = got > 0 ? (size_t)got : 0;
		for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= size && !err;) {
			Elf64_Nhdr nh;
			memcpy(&nh, seg + off, sizeof(nh));
			size_t name_at = off + sizeof(nh);
			size_t desc_at = name_at + ((nh.n_namesz + 3) & ~(size_t)3);
			if (desc_at > size || nh.n_descsz > size - desc_at)
				break;
			bool core_note = nh.n_namesz == 5 && !memcmp(seg + name_at, "CORE", 5);
			if (core_note && nh.n_type == NT_FILE && !ret->has_files &&
			    !ret->files_bad) {
				char *desc = malloc(nh.n_descsz + 1);
				if (!desc) {
					err = &sg_enomem;
					break;
				}
				memcpy(desc, seg + desc_at, nh.n_descsz);
				desc[nh.n_descsz] = '\0';
				err = parse_nt_file(ret, desc, nh.n_descsz);
			} else if (core_note && nh.n_type == NT_AUXV && !ret->auxv &&
				   nh.n_descsz >= 16) {
				if (!(ret->auxv = malloc(nh.n_descsz))) {
					err = &sg_enomem;
					break;
				}
				memcpy(ret->auxv, seg + desc_at, nh.n_descsz / 16 * 16);
				ret->nauxv = nh.n_descsz / 16;
			}
			off = desc_at + ((nh.n_descsz + 3) & ~(size_t)3);
		}
		free(seg);
	}
	close(fd);
	if (err)
		proc_core_free(ret);
	return err;
}

/* ---- mappings */

/* One row of gdb's table.  PERMS is NULL on a core: gdb 13 shows no
   permissions there.  */
static void mapping_row(struct sg_out *out, uint64_t start, uint64_t end, uint64_t offset,
			const char *perms, const char *objfile)
{
	char s[24], e[24], z[24], o[24];
	snprintf(s, sizeof(s), "0x%" PRIx64, start);
	snprintf(e, sizeof(e), "0x%" PRIx64, end);
	snprintf(z, sizeof(z), "0x%" PRIx64, end - start);
	snprintf(o, sizeof(o), "0x%" PRIx64, offset);
	if (perms)
		sg_out_printf(out, "  %18s %18s %10s %10s  %-5s  %s\n", s, e, z, o, perms, objfile);
	else
		sg_out_printf(out, "  %18s %18s %10s %10s %s\n", s, e, z, o, objfile);
	sg_out_object_begin(out, NULL);
	sg_out_hex(out, "start", start);
	sg_out_hex(out, "end", end);
	sg_out_uint(out, "size", end - start);
	sg_out_uint(out, "offset", offset);
	if (perms)
		sg_out_string(out, "perms", perms);
	sg_out_string(out, "objfile", objfile);
	sg_out_object_end(out);
}

/* One line of /proc/PID/maps: "start-end perms offset dev inode   path".
   The path is the rest of the line, blanks and " (deleted)" included.  */
static bool parse_maps_line(char *line, uint64_t *start, uint64_t *end, char perms[8],
			    uint64_t *offset, const char **path)
{
	char *p = line, *q;
	*start = strtoull(p, &q, 16);
	if (q == p || *q != '-')
		return false;
	p = q + 1;
	*end = strtoull(p, &q, 16);
	if (q == p || *q != ' ')
		return false;
	p = q + 1;
	size_t n = strcspn(p, " ");
	if (n == 0 || n > 7)
		return false;
	memcpy(perms, p, n);
	perms[n] = '\0';
	p += n;
	*offset = strtoull(p, &q, 16);
	if (q == p)
		return false;
	p = q;
	/* The device and the inode.  */
	for (int field = 0; field < 2; field++) {
		while (*p == ' ')
			p++;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	*path = p;
	return true;
}

static struct sg_error *live_mappings(const struct proc_dir *dir, struct sg_out *out)
{
	size_t len;
	char *maps = read_proc_file(dir, "maps", &len);
	if (!maps) {
		warn_open(dir, "maps");
		return NULL;
	}
	sg_out_printf(out, "Mapped address spaces:\n\n");
	sg_out_printf(out, "  %18s %18s %10s %10s  %-5s  %s\n", "Start Addr", "End Addr", "Size",
		      "Offset", "Perms", "objfile");
	sg_out_array_begin(out, "mappings");
	for (char *line = maps, *next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		uint64_t start, end, offset;
		char perms[8];
		const char *path;
		if (parse_maps_line(line, &start, &end, perms, &offset, &path))
			mapping_row(out, start, end, offset, perms, path);
	}
	sg_out_array_end(out);
	free(maps);
	return NULL;
}

static struct sg_error *core_mappings(const struct proc_core_notes *notes, struct sg_out *out)
{
	if (notes->files_bad)
		return sg_error_create(SG_ERROR_BAD_DATA, "malformed NT_FILE note in core file");
	if (!notes->has_files) {
		fprintf(stderr, "warning: unable to find mappings in core file\n");
		return NULL;
	}
	sg_out_printf(out, "Mapped address spaces:\n\n");
	sg_out_printf(out, "  %18s %18s %10s %10s %s\n", "Start Addr", "End Addr", "Size", "Offset",
		      "objfile");
	sg_out_array_begin(out, "mappings");
	for (size_t i = 0; i < notes->nfiles; i++) {
		const struct proc_core_file *f = &notes->files[i];
		mapping_row(out, f->start, f->end, f->offset, NULL, f->name);
	}
	sg_out_array_end(out);
	return NULL;
}

/* ---- stat and status */

/* gdb's label of each field of /proc/PID/stat it shows, in order, from
   the pid (field 1) to the start of the stack (field 28).  HEX: shown as
   0x..., else in decimal, unsigned (a -1 shows as 2^64 - 1, as gdb reads
   every field as unsigned).  */
static const struct {
	const char *label;
	const char *key;	/* the JSON member */
	bool hex;
} stat_fields[] = {
	{ "Parent process", "ppid", false },
	{ "Process group", "pgrp", false },
	{ "Session id", "session", false },
	{ "TTY", "tty_nr", false },
	{ "TTY owner process group", "tpgid", false },
	{ "Flags", "flags", true },
	{ "Minor faults (no memory page)", "minflt", false },
	{ "Minor faults, children", "cminflt", false },
	{ "Major faults (memory page faults)", "majflt", false },
	{ "Major faults, children", "cmajflt", false },
	{ "utime", "utime", false },
	{ "stime", "stime", false },
	{ "utime, children", "cutime", false },
	{ "stime, children", "cstime", false },
	{ "jiffies remaining in current time slice", "priority", false },
	{ "'nice' value", "nice", false },
	{ "jiffies until next timeout", "num_threads", false },
	{ "jiffies until next SIGALRM", "itrealvalue", false },
	{ "start time (jiffies since system boot)", "starttime", false },
	{ "Virtual memory size", "vsize", false },
	{ "Resident set size", "rss", false },
	{ "rlim", "rsslim", false },
	{ "Start of text", "startcode", true },
	{ "End of text", "endcode", true },
	{ "Start of stack", "startstack", true },
};

static void show_stat(const struct proc_dir *dir, struct sg_out *out)
{
	size_t len;
	char *stat = read_proc_file(dir, "stat", &len);
	if (!stat) {
		warn_open(dir, "stat");
		return;
	}
	/* "PID (COMM) S ...": COMM may hold blanks and parentheses, so it
	   ends at the last ')'.  */
	char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren) {
		free(stat);
		return;
	}
	*close_paren = '\0';
	sg_out_object_begin(out, "stat");
	unsigned long long spid = strtoull(stat, NULL, 10);
	sg_out_printf(out, "Process: %llu\n", spid);
	sg_out_uint(out, "pid", spid);
	sg_out_printf(out, "Exec file: %s\n", open_paren + 1);
	sg_out_string(out, "comm", open_paren + 1);
	char *p = close_paren + 1;
	while (*p == ' ')
		p++;
	if (*p && *p != '\n') {
		sg_out_printf(out, "State: %c\n", *p);
		char state[2] = { *p, '\0' };
		sg_out_string(out, "state", state);
		p++;
	}
	for (size_t i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
		while (*p == ' ')
			p++;
		bool negative = *p == '-';
		char *q;
		unsigned long long v = strtoull(p, &q, 10);
		if (q == p)
			break;
		p = q;
		if (stat_fields[i].hex)
			sg_out_printf(out, "%s: 0x%llx\n", stat_fields[i].label, v);
		else
			sg_out_printf(out, "%s: %llu\n", stat_fields[i].label, v);
		/* The fields the kernel writes signed (tpgid, priority, nice)
		   keep their sign in JSON.  */
		if (negative)
			sg_out_int(out, stat_fields[i].key, (int64_t)v);
		else
			sg_out_uint(out, stat_fields[i].key, v);
	}
	sg_out_object_end(out);
	free(stat);
}

/* status: the file as it is, as gdb prints it; in JSON, its "Key: value"
   lines as members.  */
static void show_status(const struct proc_dir *dir, struct sg_out *out)
{
	size_t len;
	char *status = read_proc_file(dir, "status", &len);
	if (!status) {
		warn_open(dir, "status");
		return;
	}
	sg_out_puts(out, status);
	sg_out_object_begin(out, "status");
	for (char *line = status, *next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *value = colon + 1;
		while (*value == ' ' || *value == '\t')
			value++;
		sg_out_string(out, line, value);
	}
	sg_out_object_end(out);
	free(status);
}

/* ---- info proc */

/* "info proc [PID]": gdb's parsing.  A leading number is the process;
   without one, the target's.  Anything after is an error.  */
static struct sg_error *proc_pid(struct sg_session *s, const char *args, pid_t *ret)
{
	struct sg_target *t = sg_session_target(s);
	pid_t pid = t ? sg_target_pid(t) : 0;
	const char *p = args;
	if (isdigit((unsigned char)*p)) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		pid = v > INT32_MAX ? -1 : (pid_t)v;
		p = end;
		if (pid < 0)
			return sg_error_format(SG_ERROR_USAGE, "Invalid process ID: %s", args);
	} else if (!pid) {
		return sg_error_create(SG_ERROR_TARGET, "No current process: you must name one.");
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return sg_error_format(SG_ERROR_USAGE, "Too many parameters: %s", p);
	*ret = pid;
	return NULL;
}

/* A core: gdb shows the command the core recorded for the exe, and the
   mappings of NT_FILE; nothing else.  */
static struct sg_error *core_info_proc(const struct sg_core_info *core, enum proc_what what,
				       struct sg_out *out)
{
	const struct sg_core_info ci = *core;
	bool exe = what == PROC_MINIMAL || what == PROC_EXE || what == PROC_ALL;
	bool mappings = what == PROC_MAPPINGS || what == PROC_ALL;
	if (!exe && !mappings)
		return sg_error_create(SG_ERROR_USAGE, "unable to handle request");
	sg_out_int(out, "pid", ci.pid);
	if (exe) {
		if (ci.psargs && ci.psargs[0]) {
			sg_out_printf(out, "exe = '%s'\n", ci.psargs);
			sg_out_string(out, "exe", ci.psargs);
		} else {
			fprintf(stderr, "warning: unable to find command name in core file\n");
			sg_out_null(out, "exe");
		}
	}
	if (!mappings)
		return NULL;
	struct proc_core_notes notes;
	struct sg_error *err = proc_core_read(ci.path, &notes);
	if (err)
		return err;
	err = core_mappings(&notes, out);
	proc_core_free(&notes);
	return err;
}

static struct sg_error *info_proc(struct sg_session *s, const char *args, struct sg_out *out,
				  enum proc_what what)
{
	struct sg_target *t = sg_session_target(s);
	struct sg_core_info ci;
	/* A memory target is of the core kind but has no core file.  */
	if (t && sg_target_kind(t) == SG_TARGET_CORE && sg_core_info(t, &ci))
		return core_info_proc(&ci, what, out);
	pid_t pid;
	struct sg_error *err = proc_pid(s, args, &pid);
	if (err)
		return err;
	sg_out_printf(out, "process %d\n", (int)pid);
	sg_out_int(out, "pid", pid);
	/* stat and status are the leader's own, zombie or not, as the
	   kernel shows the process.  */
	struct proc_dir process, leader;
	process_dir(s, pid, &process);
	proc_dir_init(&leader, pid);
	bool all = what == PROC_ALL;
	if (what == PROC_MINIMAL || all || what == PROC_CMDLINE)
		show_cmdline(&process, out);
	if (what == PROC_MINIMAL || all || what == PROC_CWD)
		show_link(&process, "cwd", out);
	if (what == PROC_MINIMAL || all || what == PROC_EXE)
		show_link(&process, "exe", out);
	if (all || what == PROC_MAPPINGS)
		err = live_mappings(&process, out);
	if (!err && (all || what == PROC_STATUS))
		show_status(&leader, out);
	if (!err && (all || what == PROC_STAT))
		show_stat(&leader, out);
	return err;
}

#define PROC_HANDLER(fn, what)                                                          \
	static struct sg_error *fn(struct sg_session *s, const char *args,              \
				   struct sg_out *out, void *arg)                       \
	{                                                                               \
		(void)arg;                                                              \
		return info_proc(s, args, out, what);                                   \
	}

PROC_HANDLER(cmd_info_proc, PROC_MINIMAL)
PROC_HANDLER(cmd_info_proc_cmdline, PROC_CMDLINE)
PROC_HANDLER(cmd_info_proc_cwd, PROC_CWD)
PROC_HANDLER(cmd_info_proc_exe, PROC_EXE)
PROC_HANDLER(cmd_info_proc_mappings, PROC_MAPPINGS)
PROC_HANDLER(cmd_info_proc_stat, PROC_STAT)
PROC_HANDLER(cmd_info_proc_status, PROC_STATUS)
PROC_HANDLER(cmd_info_proc_all, PROC_ALL)

/* ---- info auxv */

enum auxv_format { AUXV_DEC, AUXV_HEX, AUXV_STR };

/* The entry types gdb 13 names, with its descriptions and the way it
   shows each value.  Any other type is "???", in hex.  The AT_SUN_ ones
   are Solaris's; gdb names them whatever the system.  */
static const struct auxv_type {
	uint64_t type;
	const char *name;
	const char *description;
	enum auxv_format format;
} auxv_types[] = {
	{ 0, "AT_NULL", "End of vector", AUXV_HEX },
	{ 1, "AT_IGNORE", "Entry should be ignored", AUXV_HEX },
	{ 2, "AT_EXECFD", "File descriptor of program", AUXV_DEC },
	{ 3, "AT_PHDR", "Program headers for program", AUXV_HEX },
	{ 4, "AT_PHENT", "Size of program header entry", AUXV_DEC },
	{ 5, "AT_PHNUM", "Number of program headers", AUXV_DEC },
	{ 6, "AT_PAGESZ", "System page size", AUXV_DEC },
	{ 7, "AT_BASE", "Base address of interpreter", AUXV_HEX },
	{ 8, "AT_FLAGS", "Flags", AUXV_HEX },
	{ 9, "AT_ENTRY", "Entry point of program", AUXV_HEX },
	{ 10, "AT_NOTELF", "Program is not ELF", AUXV_DEC },
	{ 11, "AT_UID", "Real user ID", AUXV_DEC },
	{ 12, "AT_EUID", "Effective user ID", AUXV_DEC },
	{ 13, "AT_GID", "Real group ID", AUXV_DEC },
	{ 14, "AT_EGID", "Effective group ID", AUXV_DEC },
	{ 15, "AT_PLATFORM", "String identifying platform", AUXV_STR },
	{ 16, "AT_HWCAP", "Machine-dependent CPU capability hints", AUXV_HEX },
	{ 17, "AT_CLKTCK", "Frequency of times()", AUXV_DEC },
	{ 18, "AT_FPUCW", "Used FPU control word", AUXV_DEC },
	{ 19, "AT_DCACHEBSIZE", "Data cache block size", AUXV_DEC },
	{ 20, "AT_ICACHEBSIZE", "Instruction cache block size", AUXV_DEC },
	{ 21, "AT_UCACHEBSIZE", "Unified cache block size", AUXV_DEC },
	{ 22, "AT_IGNOREPPC", "Entry should be ignored", AUXV_DEC },
	{ 23, "AT_SECURE", "Boolean, was exec setuid-like?", AUXV_DEC },
	{ 24, "AT_BASE_PLATFORM", "String identifying base platform", AUXV_STR },
	{ 25, "AT_RANDOM", "Address of 16 random bytes", AUXV_HEX },
	{ 26, "AT_HWCAP2", "Extension of AT_HWCAP", AUXV_HEX },
	{ 31, "AT_EXECFN", "File name of executable", AUXV_STR },
	{ 32, "AT_SYSINFO", "Special system info/entry points", AUXV_HEX },
	{ 33, "AT_SYSINFO_EHDR", "System-supplied DSO's ELF header", AUXV_HEX },
	{ 34, "AT_L1I_CACHESHAPE", "L1 Instruction cache information", AUXV_HEX },
	{ 35, "AT_L1D_CACHESHAPE", "L1 Data cache information", AUXV_HEX },
	{ 36, "AT_L2_CACHESHAPE", "L2 cache information", AUXV_HEX },
	{ 37, "AT_L3_CACHESHAPE", "L3 cache information", AUXV_HEX },
	{ 40, "AT_L1I_CACHESIZE", "L1 Instruction cache size", AUXV_HEX },
	{ 41, "AT_L1I_CACHEGEOMETRY", "L1 Instruction cache geometry", AUXV_HEX },
	{ 42, "AT_L1D_CACHESIZE", "L1 Data cache size", AUXV_HEX },
	{ 43, "AT_L1D_CACHEGEOMETRY", "L1 Data cache geometry", AUXV_HEX },
	{ 44, "AT_L2_CACHESIZE", "L2 cache size", AUXV_HEX },
	{ 45, "AT_L2_CACHEGEOMETRY", "L2 cache geometry", AUXV_HEX },
	{ 46, "AT_L3_CACHESIZE", "L3 cache size", AUXV_HEX },
	{ 47, "AT_L3_CACHEGEOMETRY", "L3 cache geometry", AUXV_HEX },
	{ 51, "AT_MINSIGSTKSZ", "Minimum stack size for signal delivery", AUXV_HEX },
	{ 2000, "AT_SUN_UID", "Effective user ID", AUXV_DEC },
	{ 2001, "AT_SUN_RUID", "Real user ID", AUXV_DEC },
	{ 2002, "AT_SUN_GID", "Effective group ID", AUXV_DEC },
	{ 2003, "AT_SUN_RGID", "Real group ID", AUXV_DEC },
	{ 2004, "AT_SUN_LDELF", "Dynamic linker's ELF header", AUXV_HEX },
	{ 2005, "AT_SUN_LDSHDR", "Dynamic linker's section headers", AUXV_HEX },
	{ 2006, "AT_SUN_LDNAME", "String giving name of dynamic linker", AUXV_STR },
	{ 2007, "AT_SUN_LPAGESZ", "Large pagesize", AUXV_DEC },
	{ 2008, "AT_SUN_PLATFORM", "Platform name string", AUXV_STR },
	{ 2009, "AT_SUN_CAP_HW1", "Machine-dependent CPU capability hints", AUXV_HEX },
	{ 2010, "AT_SUN_IFLUSH", "Should flush icache?", AUXV_DEC },
	{ 2011, "AT_SUN_CPU", "CPU name string", AUXV_STR },
	{ 2012, "AT_SUN_EMUL_ENTRY", "COFF entry point address", AUXV_HEX },
	{ 2013, "AT_SUN_EMUL_EXECFD", "COFF executable file descriptor", AUXV_DEC },
	{ 2014, "AT_SUN_EXECNAME", "Canonicalized file name given to execve", AUXV_STR },
	{ 2015, "AT_SUN_MMU", "String for name of MMU module", AUXV_STR },
	{ 2016, "AT_SUN_LDDATA", "Dynamic linker's data segment address", AUXV_HEX },
	{ 2017, "AT_SUN_AUXFLAGS", "AF_SUN_ flags passed from the kernel", AUXV_HEX },
	{ 2018, "AT_SUN_EMULATOR", "Name of emulation binary for runtime linker", AUXV_STR },
	{ 2019, "AT_SUN_BRANDNAME", "Name of brand library", AUXV_STR },
	{ 2020, "AT_SUN_BRAND_AUX1", "Aux vector for brand modules 1", AUXV_HEX },
	{ 2021, "AT_SUN_BRAND_AUX2", "Aux vector for brand modules 2", AUXV_HEX },
	{ 2022, "AT_SUN_BRAND_AUX3", "Aux vector for brand modules 3", AUXV_HEX },
	{ 2023, "AT_SUN_CAP_HW2", "Machine-dependent CPU capability hints 2", AUXV_HEX },
};

static const struct auxv_type *auxv_type(uint64_t type)
{
	for (size_t i = 0; i < sizeof(auxv_types) / sizeof(auxv_types[0]); i++)
		if (auxv_types[i].type == type)
			return &auxv_types[i];
	return NULL;
}

/* gdb prints at most "print elements" (200) characters of a string.  */
#define AUXV_STRING_MAX 200

/* gdb repeats a character in a run of more than this many as
   'x' <repeats N times> (its "set print repeats").  */
#define REPEAT_THRESHOLD 10

/* C as gdb writes it between QUOTEs: the other quote as it is.  */
static void put_char(FILE *f, unsigned char c, char quote)
{
	const char *esc = NULL;
	switch (c) {
	case '\\': esc = "\\\\"; break;
	case '\n': esc = "\\n"; break;
	case '\t': esc = "\\t"; break;
	case '\r': esc = "\\r"; break;
	case '\a': esc = "\\a"; break;
	case '\b': esc = "\\b"; break;
	case '\f': esc = "\\f"; break;
	case '\v': esc = "\\v"; break;
	case 033: esc = "\\033"; break;
	}
	if (esc)
		fputs(esc, f);
	else if (c == (unsigned char)quote)
		fprintf(f, "\\%c", quote);
	else if (c < 0x20 || c == 0x7f)
		fprintf(f, "\\%03o", c);
	else
		fputc(c, f);
}

/* S as gdb prints a char string: quoted pieces and repeat blocks joined
   by ", " ("/tmp/", 'x' <repeats 30 times>, "/a"), then "..." when it
   was TRUNCATED.  */
static void quote_string(FILE *f, const char *s, bool truncated)
{
	bool quoted = false, any = false;
	for (size_t i = 0; s[i];) {
		size_t run = 1;
		while (s[i + run] == s[i])
			run++;
		if (run > REPEAT_THRESHOLD) {
			fputs(quoted ? "\", " : any ? ", " : "", f);
			quoted = false;
			fputc('\'', f);
			put_char(f, s[i], '\'');
			fprintf(f, "' <repeats %zu times>", run);
		} else {
			if (!quoted)
				fputs(any ? ", \"" : "\"", f);
			quoted = true;
			for (size_t k = 0; k < run; k++)
				put_char(f, s[i], '"');
		}
		any = true;
		i += run;
	}
	if (quoted || !any)
		fputs(any ? "\"" : "\"\"", f);
	if (truncated)
		fputs("...", f);
}

/* The C string at ADDRESS as gdb quotes it: "x86_64", with escapes, and
   "..." after it when it goes on past AUXV_STRING_MAX; or gdb's
   <error: ...> when it cannot be read.  New string in *RET; the raw
   string (or NULL) in *RAW.  */
static void auxv_string(struct sg_target *t, uint64_t address, char **ret, char **raw)
{
	char *s = NULL;
	bool truncated = false;
	struct sg_error *err = sg_target_read_string(t, address, AUXV_STRING_MAX, &s, &truncated);
	*raw = NULL;
	if (err) {
		char *text = NULL;
		if (sg_error_code(err) == SG_ERROR_FAULT) {
			if (asprintf(&text, "<error: Cannot access memory at address 0x%" PRIx64 ">",
				     sg_error_address(err)) < 0)
				text = NULL;
		} else if (asprintf(&text, "<error: %s>", sg_error_message(err)) < 0) {
			text = NULL;
		}
		sg_error_destroy(err);
		*ret = text;
		return;
	}
	size_t size = 0;
	FILE *f = open_memstream(ret, &size);
	if (!f) {
		*ret = NULL;
		free(s);
		return;
	}
	quote_string(f, s, truncated);
	if (fclose(f))
		*ret = NULL;
	*raw = s;
}

/* One entry, as gdb lays it out: the type, the name in 20 columns, the
   description in 30, then the value.  */
static void auxv_entry(struct sg_target *t, uint64_t type, uint64_t value, struct sg_out *out)
{
	const struct auxv_type *at = auxv_type(type);
	const char *name = at ? at->name : "???";
	const char *description = at ? at->description : "";
	enum auxv_format format = at ? at->format : AUXV_HEX;
	char typebuf[24];
	snprintf(typebuf, sizeof(typebuf), "%" PRId64, (int64_t)type);
	sg_out_printf(out, "%-4s %-20s %-30s ", typebuf, name, description);
	sg_out_object_begin(out, NULL);
	sg_out_uint(out, "type", type);
	if (at)
		sg_out_string(out, "name", name);
	else
		sg_out_null(out, "name");
	sg_out_string(out, "description", description);
	sg_out_hex(out, "value", value);
	switch (format) {
	case AUXV_DEC:
		sg_out_printf(out, "%" PRIu64 "\n", value);
		sg_out_string(out, "format", "dec");
		break;
	case AUXV_HEX:
		sg_out_printf(out, "0x%" PRIx64 "\n", value);
		sg_out_string(out, "format", "hex");
		break;
	case AUXV_STR: {
		char *text, *raw;
		auxv_string(t, value, &text, &raw);
		sg_out_printf(out, "0x%" PRIx64 " %s\n", value, text ? text : "");
		sg_out_string(out, "format", "str");
		if (raw)
			sg_out_string(out, "string", raw);
		else
			sg_out_null(out, "string");
		free(text);
		free(raw);
		break;
	}
	}
	sg_out_object_end(out);
}

static struct sg_error *no_auxv(void)
{
	return sg_error_create(SG_ERROR_TARGET, "The program has no auxiliary information now.");
}

/* The (type, value) pairs of the target's auxiliary vector, *N_RET of
   them, in a new array: /proc/PID/auxv, or the core's NT_AUXV.  */
static struct sg_error *read_auxv(struct sg_session *s, struct sg_target *t, uint64_t **ret,
				 size_t *n_ret)
{
	struct sg_core_info ci;
	if (sg_target_kind(t) == SG_TARGET_CORE) {
		if (!sg_core_info(t, &ci))
			return no_auxv();
		struct proc_core_notes notes;
		struct sg_error *err = proc_core_read(ci.path, &notes);
		if (err)
			return err;
		*ret = notes.auxv;
		*n_ret = notes.nauxv;
		notes.auxv = NULL;
		proc_core_free(&notes);
		return *ret ? NULL : no_auxv();
	}
	size_t len;
	struct proc_dir dir;
	process_dir(s, sg_target_pid(t), &dir);
	char *buf = read_proc_file(&dir, "auxv", &len);
	if (!buf)
		return no_auxv();
	*ret = (uint64_t *)(void *)buf;
	*n_ret = len / 16;
	return NULL;
}

static struct sg_error *cmd_info_auxv(struct sg_session *s, const char *args, struct sg_out *out,
				      void *arg)
{
	(void)args;
	(void)arg;
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return no_auxv();
	uint64_t *auxv;
	size_t n;
	struct sg_error *err = read_auxv(s, t, &auxv, &n);
	if (err)
		return err;
	if (n == 0) {
		free(auxv);
		return sg_error_create(SG_ERROR_TARGET, "Auxiliary vector is empty.");
	}
	sg_out_array_begin(out, "auxv");
	for (size_t i = 0; i < n; i++) {
		uint64_t type, value;
		memcpy(&type, &auxv[2 * i], sizeof(type));
		memcpy(&value, &auxv[2 * i + 1], sizeof(value));
		auxv_entry(t, type, value, out);
		if (type == 0)
			break;
	}
	sg_out_array_end(out);
	free(auxv);
	return NULL;
}

/* ---- info inferiors */

/* gdb's table of one inferior: a column for the current mark, then Num (4),
   Description (17), Connection (20) and Executable (17), each padded and
   followed by a blank, wider values pushing the rest right.  */
static struct sg_error *cmd_info_inferiors(struct sg_session *s, const char *args,
					   struct sg_out *out, void *arg)
{
	(void)args;
	(void)arg;
	struct sg_target *t = sg_session_target(s);
	char description[32] = "<null>", connection[32] = "";
	const char *exe = "";
	if (t) {
		snprintf(description, sizeof(description), "process %d", (int)sg_target_pid(t));
		snprintf(connection, sizeof(connection), "1 (%s)",
			 sg_target_kind(t) == SG_TARGET_CORE ? "core" : "native");
		if (sg_target_exe(t))
			exe = sg_target_exe(t);
	}
	sg_out_printf(out, "%-1s %-4s %-17s %-20s %-17s \n", "", "Num", "Description", "Connection",
		      "Executable");
	sg_out_printf(out, "%-1s %-4s %-17s %-20s %-17s \n", "*", "1", description, connection, exe);
	sg_out_array_begin(out, "inferiors");
	sg_out_object_begin(out, NULL);
	sg_out_bool(out, "current", true);
	sg_out_int(out, "number", 1);
	if (t) {
		sg_out_int(out, "pid", sg_target_pid(t));
		sg_out_string(out, "description", description);
		sg_out_string(out, "connection", sg_target_kind(t) == SG_TARGET_CORE ? "core" : "native");
		if (*exe)
			sg_out_string(out, "executable", exe);
		else
			sg_out_null(out, "executable");
	} else {
		sg_out_null(out, "pid");
		sg_out_null(out, "description");
		sg_out_null(out, "connection");
		sg_out_null(out, "executable");
	}
	sg_out_object_end(out);
	sg_out_array_end(out);
	return NULL;
}

/* ---- the rows */

/* The last line of each info proc row's help.  The info proc rows do not
   run from a snapshot: /proc tells what the process is when the command
   runs, and a snapshot's process has run on by then.  */
#define PROC_PID_DETAILS "PID names another process, read from /proc/PID; without it, the attached one."

static const struct sg_command proc_cmds[] = {
	{ .name = "info proc", .synopsis = "info proc [PID]",
	  .summary = "Show the process's command line, working folder and executable",
	  .details = "As gdb prints them: \"process PID\", then cmdline (the arguments joined by\n"
		     "blanks), cwd and exe, from /proc/PID.  On a core: the command the core\n"
		     "recorded (its NT_PRPSINFO), as exe.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc mappings", .synopsis = "info proc mappings [PID]",
	  .summary = "Show the process's memory mappings",
	  .details = "gdb's table: start and end address, size, file offset, permissions and\n"
		     "the file mapped ([heap], [stack], [vdso], or nothing for anonymous\n"
		     "memory), from /proc/PID/maps.  On a core: the mapped files its NT_FILE\n"
		     "note lists, without permissions, as gdb 13 shows them.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_mappings, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc cmdline", .synopsis = "info proc cmdline [PID]",
	  .summary = "Show the process's command line",
	  .details = "Its arguments joined by blanks.  Not on a core.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_cmdline, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc cwd", .synopsis = "info proc cwd [PID]",
	  .summary = "Show the process's current working folder",
	  .details = "Not on a core.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_cwd, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc exe", .synopsis = "info proc exe [PID]",
	  .summary = "Show the process's executable",
	  .details = "On a core: the command the core recorded.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_exe, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc stat", .synopsis = "info proc stat [PID]",
	  .summary = "Show the process's /proc/PID/stat, field by field",
	  .details = "Its first 28 fields, with gdb's labels (some are those of old kernels:\n"
		     "\"jiffies until next timeout\" is the number of threads).  Not on a core.\n"
		     PROC_PID_DETAILS,
	  .handler = cmd_info_proc_stat, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc status", .synopsis = "info proc status [PID]",
	  .summary = "Show the process's /proc/PID/status",
	  .details = "The file as the kernel writes it; in JSON, its lines as members.  Not on\n"
		     "a core.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_status, .flags = SG_CMD_NO_STACKS },
	{ .name = "info proc all", .synopsis = "info proc all [PID]",
	  .summary = "Show everything info proc can about the process",
	  .details = "cmdline, cwd, exe, mappings, status and stat, in that order.  On a core:\n"
		     "exe and mappings.\n" PROC_PID_DETAILS,
	  .handler = cmd_info_proc_all, .flags = SG_CMD_NO_STACKS },
	{ .name = "info auxv", .synopsis = "info auxv",
	  .summary = "Show the auxiliary vector the kernel passed to the program",
	  .details = "One line per entry, as gdb prints it: the type, its name and description,\n"
		     "and the value in decimal, in hex, or as an address and the string there\n"
		     "(AT_EXECFN, AT_PLATFORM).  Types gdb 13 does not name show as ???.\n"
		     "From /proc/PID/auxv, or the core's NT_AUXV note.",
	  .handler = cmd_info_auxv, .flags = SG_CMD_NO_STACKS },
	{ .name = "info inferiors", .synopsis = "info inferiors",
	  .summary = "Show the process being debugged",
	  .details = "gdb's table: its number (always 1: spyglass debugs one process), the\n"
		     "process, the connection (native for a live process, core for a core) and\n"
		     "the executable.",
	  .handler = cmd_info_inferiors, .flags = SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
};

struct sg_error *shell_register_proc_commands(struct shell *sh)
{
	return shell_register_table(sh, proc_cmds, sizeof(proc_cmds) / sizeof(proc_cmds[0]));
}
