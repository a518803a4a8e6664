/* info files: what gdb's "info files" (and "info target") prints: the
   symbol file, the process or core file with the core's segments, the
   executable with its entry point and sections, then each shared
   library's sections and the vDSO's.

   The libraries come in the dynamic linker's order, as in gdb.  */
#include <config.h>
#include "procinfo.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gdb names files by absolute paths, the current directory put before
   a relative one.  */
static char *absolute(const char *path)
{
	if (!path)
		return NULL;
	if (path[0] == '/')
		return strdup(path);
	char *cwd = getcwd(NULL, 0), *ret = NULL;
	if (cwd && asprintf(&ret, "%s/%s", cwd, path) < 0)
		ret = NULL;
	free(cwd);
	return ret;
}

struct listing {
	struct sg_out *out;
	const char *in;		/* " in NAME" after each line, or "" */
	const char *file;	/* for JSON: the module, or NULL */
	uint64_t interp_start, interp_end;	/* the executable's .interp */
};

static int print_section(const struct sg_section *sec, void *arg)
{
	struct listing *l = arg;
	sg_out_printf(l->out, "\t0x%016" PRIx64 " - 0x%016" PRIx64 " is %s%s\n", sec->start,
		      sec->end, sec->name, l->in);
	sg_out_object_begin(l->out, NULL);
	sg_out_hex(l->out, "start", sec->start);
	sg_out_hex(l->out, "end", sec->end);
	sg_out_string(l->out, "name", sec->name);
	sg_out_string(l->out, "file", l->file);
	sg_out_object_end(l->out);
	if (!strcmp(sec->name, ".interp") && !l->interp_end) {
		l->interp_start = sec->start;
		l->interp_end = sec->end;
	}
	return SG_CB_OK;
}

struct modules {
	struct sg_module **v;
	size_t n, cap;
	bool failed;
};

static int collect_module(struct sg_module *mod, void *arg)
{
	struct modules *m = arg;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct sg_module **v = realloc(m->v, cap * sizeof(*v));
		if (!v) {
			m->failed = true;
			return SG_CB_ABORT;
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = mod;
	return SG_CB_OK;
}

static void print_module(struct sg_module *mod, const char *in, struct listing *l)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	l->in = in;
	l->file = info.name;
	sg_error_destroy(sg_module_sections(mod, print_section, l));
}

static void print_library(struct sg_module *mod, struct listing *l)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	char in[4200];
	snprintf(in, sizeof(in), " in %s", info.name);
	print_module(mod, in, l);
}

/* The libraries after the executable: in the dynamic linker's order;
   those it does not list (it cannot be read) from the highest address
   down, the dynamic linker (INTERP, may be NULL) after them; the vDSO
   last.  */
static void print_libraries(struct sg_target *t, struct sg_module *exe, const char *interp,
			    struct listing *l)
{
	struct modules m = { 0 };
	sg_error_destroy(sg_target_modules(t, collect_module, &m));
	struct sg_module **order = calloc(m.n + 1, sizeof(*order));
	size_t nordered = order ? sg_target_link_map_modules(t, order, m.n) : 0;
	for (size_t i = 0; i < nordered; i++)
		print_library(order[i], l);
	struct sg_module *ld = NULL, *vdso = NULL;
	for (size_t i = m.n; i-- > 0;) {
		struct sg_module_info info;
		sg_module_info(m.v[i], &info);
		bool listed = m.v[i] == exe;
		for (size_t k = 0; k < nordered && !listed; k++)
			listed = order[k] == m.v[i];
		if (listed)
			continue;
		if (info.name[0] != '/')
			vdso = vdso ? vdso : m.v[i];
		else if (interp && !strcmp(info.name, interp))
			ld = m.v[i];
		else
			print_library(m.v[i], l);
	}
	if (ld)
		print_library(ld, l);
	if (vdso) {
		struct sg_module_info info;
		sg_module_info(vdso, &info);
		char in[64];
		snprintf(in, sizeof(in), " in system-supplied DSO at 0x%" PRIx64, info.start);
		print_module(vdso, in, l);
	}
	free(order);
	free(m.v);
}

struct sg_error *shell_info_files(struct sg_session *s, struct sg_out *out)
{
	struct sg_target *t = sg_session_target(s);
	/* sg_target_exe_module() knows the modules already reported.  */
	struct modules none = { 0 };
	sg_error_destroy(sg_target_modules(t, collect_module, &none));
	free(none.v);
	struct sg_module *exe = sg_target_exe_module(t);
	char *exe_path = absolute(sg_target_exe(t));
	if (exe_path)
		sg_out_printf(out, "Symbols from \"%s\".\n", exe_path);
	sg_out_string(out, "symbols", exe_path);
	struct listing l = { .out = out, .in = "" };
	struct sg_core_info core;
	sg_out_array_begin(out, "sections");
	if (sg_core_info(t, &core)) {
		char *path = absolute(core.path);
		sg_out_printf(out, "Local core dump file:\n\t`%s', file type elf64-x86-64.\n",
			      path ? path : core.path);
		sg_core_sections(t, print_section, &l);
		free(path);
	} else if (sg_target_kind(t) == SG_TARGET_LIVE) {
		const struct sg_thread *th = sg_session_thread(s);
		const struct sg_regs *regs = sg_thread_regs(th);
		/* glibc's pthread_t on x86-64 is the thread pointer, fs_base:
		   what gdb shows, from libthread_db.  */
		uint64_t self = sg_regs_has(regs, SG_REG_FS_BASE) ? regs->r[SG_REG_FS_BASE] : 0;
		sg_out_printf(out, "Native process:\n");
		if (self)
			sg_out_printf(out, "\tUsing the running image of attached Thread 0x%" PRIx64
					   " (LWP %d).\n", self, (int)sg_thread_tid(th));
		else
			sg_out_printf(out, "\tUsing the running image of attached process %d.\n",
				      (int)sg_target_pid(t));
	}
	sg_out_printf(out, "\tWhile running this, GDB does not access memory from...\n");
	uint64_t entry;
	char *interp = NULL;
	if (exe && exe_path) {
		sg_out_printf(out, "Local exec file:\n\t`%s', file type elf64-x86-64.\n", exe_path);
		if (sg_module_entry(exe, &entry))
			sg_out_printf(out, "\tEntry point: 0x%" PRIx64 "\n", entry);
		l.in = "";
		l.file = NULL;
		sg_error_destroy(sg_module_sections(exe, print_section, &l));
		/* The dynamic linker is the file .interp names.  */
		if (l.interp_end > l.interp_start && l.interp_end - l.interp_start < 4096)
			sg_error_destroy(sg_target_read_string(t, l.interp_start,
							       l.interp_end - l.interp_start,
							       &interp, NULL));
	}
	print_libraries(t, exe, interp, &l);
	sg_out_array_end(out);
	if (exe && sg_module_entry(exe, &entry))
		sg_out_hex(out, "entry", entry);
	sg_out_string(out, "kind", sg_target_kind(t) == SG_TARGET_CORE ? "core" : "process");
	free(interp);
	free(exe_path);
	return NULL;
}

static struct sg_error *cmd_info_files(struct sg_session *s, const char *args SG_UNUSED,
				       struct sg_out *out, void *arg SG_UNUSED)
{
	/* Without a target gdb prints nothing, and that is no error.  */
	return sg_session_target(s) ? shell_info_files(s, out) : NULL;
}

static const struct sg_command files_cmds[] = {
	{ .name = "info files", .synopsis = "info files",
	  .summary = "Name the program's files and the sections of each in memory",
	  .details = "As gdb prints it: the symbol file, the process (its selected thread) or\n"
		     "the core file with its segments (load1, ...), the executable with its\n"
		     "entry point and sections, then each shared library's sections and the\n"
		     "vDSO's, the libraries in the dynamic linker's order.",
	  .handler = cmd_info_files, .flags = SG_CMD_NO_STACKS },
};

struct sg_error *shell_register_files_commands(struct shell *sh)
{
	return shell_register_table(sh, files_cmds, sizeof(files_cmds) / sizeof(files_cmds[0]));
}
