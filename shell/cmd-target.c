/* Commands about the target: attach, detach, threads, modules, symbols.  */
#include <config.h>
#include "eval.h"
#include "shell.h"
#include "snapshot.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

void shell_describe_pc(struct sg_target *t, uint64_t pc, char *buf, size_t size)
{
	struct sg_symbol sym;
	struct sg_module *mod = sg_target_module_at(t, pc);
	struct sg_error *err = sg_symbolize(t, pc, &sym);
	const char *name = err ? "??" : sym.name;
	sg_error_destroy(err);
	/* gdb shows frames without parameter lists: cut "f(int)" to "f". */
	size_t len = strlen(name);
	if (len && name[len - 1] == ')') {
		int depth = 0;
		for (size_t i = len; i-- > 0;) {
			if (name[i] == ')')
				depth++;
			else if (name[i] == '(' && --depth == 0) {
				len = i;
				break;
			}
		}
	}
	int n = snprintf(buf, size, "0x%016" PRIx64 " in %.*s ()", pc, (int)len, name);
	if (mod && n >= 0 && (size_t)n < size) {
		struct sg_module_info info;
		sg_module_info(mod, &info);
		const char *exe = sg_target_exe(t);
		if (!exe || strcmp(exe, info.name))
			snprintf(buf + n, size - n, " from %s", info.name);
	}
}

static struct sg_error *parse_number(const char *s, uint64_t *ret)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *end || errno)
		return sg_error_format(SG_ERROR_USAGE, "invalid number \"%s\"", s);
	*ret = v;
	return NULL;
}

static struct sg_error *cmd_attach(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	uint64_t pid;
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Usage: attach PID");
	struct sg_error *err = parse_number(args, &pid);
	if (err)
		return err;
	if (pid == 0 || pid > INT32_MAX)
		return sg_error_format(SG_ERROR_USAGE, "invalid process ID %s", args);
	/* A snapshot of PID is not an attach to it: a new one replaces it.  */
	struct sg_target *t = sg_session_target(s);
	if (t && sg_target_pid(t) == (pid_t)pid && sg_target_is_snapshot(t, NULL))
		sg_error_destroy(sg_session_detach(s));
	err = sg_session_attach(s, (pid_t)pid);
	if (err)
		return err;
	t = sg_session_target(s);
	const char *exe = sg_target_exe(t);
	sg_out_printf(out, "Attached to process %d (%s), %zu thread%s\n", (int)pid, exe ? exe : "?",
		      sg_target_thread_count(t), sg_target_thread_count(t) == 1 ? "" : "s");
	sg_out_int(out, "pid", pid);
	sg_out_string(out, "executable", exe);
	sg_out_uint(out, "threads", sg_target_thread_count(t));
	/* set snapshot on: stop, copy, resume at once.  */
	return shell_snapshot_setting(arg) ? shell_snapshot_take(arg, out) : NULL;
}

static struct sg_error *cmd_detach(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	struct sg_target *t = sg_session_target(s);
	if (!t)
		return sg_error_create(SG_ERROR_TARGET, "The program is not being run.");
	pid_t pid = sg_target_pid(t);
	bool core = sg_target_kind(t) == SG_TARGET_CORE;
	bool snapshot = sg_target_is_snapshot(t, NULL);
	struct sg_error *err = sg_session_detach(s);
	if (err)
		return err;
	if (core) {
		/* gdb closes a core on detach.  */
		sg_out_printf(out, "No core file now.\n");
		return NULL;
	}
	if (snapshot) {
		/* The process runs since the snapshot was taken.  */
		sg_out_printf(out, "No snapshot of process %d now.\n", (int)pid);
		sg_out_int(out, "pid", pid);
		return NULL;
	}
	uint64_t paused = sg_session_last_paused_ns(s);
	/* gdb's words.  */
	sg_out_printf(out, "[Inferior 1 (process %d) detached]\n", (int)pid);
	sg_out_int(out, "pid", pid);
	sg_out_uint(out, "paused_us", paused / 1000);
	return NULL;
}

static void thread_json(struct sg_out *out, struct sg_target *t, struct sg_thread *th,
			bool current)
{
	uint64_t pc = sg_thread_regs(th)->r[SG_REG_RIP];
	struct sg_symbol sym;
	struct sg_error *err = sg_symbolize(t, pc, &sym);
	struct sg_module *mod = sg_target_module_at(t, pc);
	struct sg_module_info info;
	if (mod)
		sg_module_info(mod, &info);
	char state[2] = { sg_thread_state(th), '\0' };
	sg_out_object_begin(out, NULL);
	sg_out_uint(out, "id", sg_thread_index(th) + 1);
	sg_out_int(out, "tid", sg_thread_tid(th));
	sg_out_string(out, "name", sg_thread_name(th));
	sg_out_string(out, "state", state);
	sg_out_bool(out, "current", current);
	sg_out_hex(out, "pc", pc);
	sg_out_string(out, "function", err ? NULL : sym.name);
	if (err)
		sg_out_null(out, "offset");
	else
		sg_out_uint(out, "offset", sym.offset);
	sg_out_string(out, "module", mod ? info.name : NULL);
	sg_out_object_end(out);
	sg_error_destroy(err);
}

static struct sg_error *cmd_info_threads(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	struct sg_target *t = sg_session_target(s);
	struct sg_thread *cur = sg_session_thread(s);
	size_t n = sg_target_thread_count(t);
	if (sg_out_json(out)) {
		sg_out_int(out, "pid", sg_target_pid(t));
		sg_out_array_begin(out, "threads");
		for (size_t i = 0; i < n; i++) {
			struct sg_thread *th = sg_target_thread(t, i);
			thread_json(out, t, th, th == cur);
		}
		sg_out_array_end(out);
		return NULL;
	}
	/* Size the Target Id column to its widest entry, as gdb does.  */
	char (*ids)[64] = calloc(n ? n : 1, sizeof(*ids));
	if (!ids)
		return &sg_enomem;
	int width = (int)strlen("Target Id");
	for (size_t i = 0; i < n; i++) {
		struct sg_thread *th = sg_target_thread(t, i);
		const char *name = sg_thread_name(th);
		int w = snprintf(ids[i], sizeof(ids[i]), "LWP %d%s%s%s", (int)sg_thread_tid(th),
				 name[0] ? " \"" : "", name, name[0] ? "\"" : "");
		if (w > width)
			width = w < 63 ? w : 63;
	}
	sg_out_printf(out, "  Id   %-*s State Frame \n", width, "Target Id");
	for (size_t i = 0; i < n; i++) {
		struct sg_thread *th = sg_target_thread(t, i);
		char frame[1024];
		shell_describe_pc(t, sg_thread_regs(th)->r[SG_REG_RIP], frame, sizeof(frame));
		char id[24];
		snprintf(id, sizeof(id), "%zu", i + 1);
		sg_out_printf(out, "%c %-4s %-*s %c     %s\n", th == cur ? '*' : ' ', id, width, ids[i],
			      sg_thread_state(th), frame);
	}
	free(ids);
	return NULL;
}

static struct sg_error *cmd_thread(struct sg_session *s, const char *args, struct sg_out *out,
				   void *arg)
{
	struct sg_target *t = sg_session_target(s);
	struct sg_thread *th = sg_session_thread(s);
	if (*args) {
		uint64_t id;
		struct sg_error *err = parse_number(args, &id);
		if (err)
			return err;
		th = id >= 1 ? sg_target_thread(t, id - 1) : NULL;
		if (!th)
			return sg_error_format(SG_ERROR_USAGE, "Invalid thread ID: %s", args);
		err = sg_session_select_thread(s, th);
		if (err)
			return err;
	}
	uint64_t pc = sg_thread_regs(th)->r[SG_REG_RIP];
	if (*args) {
		sg_out_printf(out, "[Switching to thread %zu (LWP %d)]\n", sg_thread_index(th) + 1,
			      (int)sg_thread_tid(th));
		/* Frame 0 as bt shows it (DWARF names, source line), as gdb
		   does; the symbol table's name if the stack is unavailable. */
		struct sg_stack *st;
		FILE *f = sg_out_file(out);
		struct sg_error *err = sg_session_stack(s, &st);
		if (!err && f) {
			shell_format_frame(arg, st, sg_stack_frame(st, 0), f);
		} else if (f) {
			char frame[1024];
			shell_describe_pc(t, pc, frame, sizeof(frame));
			fprintf(f, "#0  %s\n", frame);
		}
		/* The frame's source line, which list then starts from.  */
		if (!err)
			shell_source_frame_line(arg, sg_stack_frame(st, 0), out);
		sg_error_destroy(err);
	} else
		sg_out_printf(out, "[Current thread is %zu (LWP %d)]\n", sg_thread_index(th) + 1,
			      (int)sg_thread_tid(th));
	sg_out_uint(out, "id", sg_thread_index(th) + 1);
	sg_out_int(out, "tid", sg_thread_tid(th));
	sg_out_string(out, "name", sg_thread_name(th));
	sg_out_hex(out, "pc", pc);
	return NULL;
}

struct modules_arg {
	struct sg_out *out;
	bool any_separate;
	const regex_t *filter;	/* on the module's name; NULL for all */
	size_t shown;
};

static int print_module(struct sg_module *mod, void *argp)
{
	struct modules_arg *a = argp;
	struct sg_module_info info;
	sg_module_info(mod, &info);
	if (a->filter && (!info.name || regexec(a->filter, info.name, 0, NULL, 0) != 0))
		return SG_CB_OK;
	/* The heading only above rows, as gdb does.  */
	if (a->shown++ == 0)
		sg_out_printf(a->out, "%-18s  %-18s  %-18s  %-4s %-6s %-40s  %s\n", "From", "To",
			      "Bias", "Syms", "DWARF", "Build ID", "Module");
	const char *debug_file;
	bool dwarf = sg_module_has_dwarf(mod, &debug_file);
	bool syms = sg_module_has_symbols(mod);
	if (sg_out_json(a->out)) {
		sg_out_object_begin(a->out, NULL);
		sg_out_string(a->out, "name", info.name);
		sg_out_hex(a->out, "from", info.start);
		sg_out_hex(a->out, "to", info.end);
		sg_out_hex(a->out, "bias", info.bias);
		sg_out_string(a->out, "build_id", info.build_id);
		sg_out_string(a->out, "file", info.file);
		sg_out_bool(a->out, "symbols", syms);
		sg_out_bool(a->out, "dwarf", dwarf);
		sg_out_string(a->out, "debug_file", debug_file);
		sg_out_object_end(a->out);
		return SG_CB_OK;
	}
	if (debug_file)
		a->any_separate = true;
	sg_out_printf(a->out, "0x%016" PRIx64 "  0x%016" PRIx64 "  0x%016" PRIx64 "  %-4s %-6s %-40s  %s\n",
		      info.start, info.end, info.bias, syms ? "Yes" : "No",
		      dwarf ? (debug_file ? "Yes*" : "Yes") : "No",
		      info.build_id ? info.build_id : "-", info.name);
	return SG_CB_OK;
}

static struct sg_error *cmd_info_sharedlibrary(struct sg_session *s, const char *args,
					       struct sg_out *out, void *arg)
{
	struct sg_target *t = sg_session_target(s);
	struct modules_arg a = { out, false, NULL, 0 };
	/* gdb's REGEX, on the module's name.  */
	regex_t re;
	if (*args) {
		int rc = regcomp(&re, args, REG_NOSUB);
		if (rc) {
			char msg[256];
			regerror(rc, &re, msg, sizeof(msg));
			return sg_error_format(SG_ERROR_USAGE, "Invalid regexp: %s", msg);
		}
		a.filter = &re;
	}
	sg_out_array_begin(out, "modules");
	struct sg_error *err = sg_target_modules(t, print_module, &a);
	sg_out_array_end(out);
	if (a.filter)
		regfree(&re);
	if (!err && a.shown == 0)
		sg_out_printf(out, a.filter ? "No shared libraries matched.\n"
					    : "No shared libraries loaded at this time.\n");
	if (a.any_separate)
		sg_out_printf(out, "(*): DWARF read from a separate debug file.\n");
	return err;
}

static struct sg_error *cmd_info_symbol(struct sg_session *s, const char *args,
					struct sg_out *out, void *arg)
{
	struct shell *sh = arg;
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Argument required (address).");
	uint64_t addr;
	struct sg_error *err = sg_eval_address(sh->session, args, &addr);
	if (err)
		return err;
	struct sg_target *t = sg_session_target(s);
	struct sg_symbol sym;
	err = sg_symbolize(t, addr, &sym);
	if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
		sg_out_printf(out, "No symbol matches %s.\n", args);
		sg_out_hex(out, "address", addr);
		sg_out_null(out, "symbol");
		return NULL;
	}
	if (err)
		return err;
	struct sg_module_info info;
	sg_module_info(sym.module, &info);
	if (sym.offset)
		sg_out_printf(out, "%s + %" PRIu64, sym.name, sym.offset);
	else
		sg_out_printf(out, "%s", sym.name);
	/* gdb names the file whenever the process has several objfiles, which
	   with the vdso is always.  */
	sg_out_printf(out, " in section %s of %s\n", sym.section ? sym.section : "?", info.name);
	sg_out_hex(out, "address", addr);
	sg_out_string(out, "symbol", sym.name);
	sg_out_string(out, "raw_name", sym.raw_name);
	sg_out_uint(out, "offset", sym.offset);
	sg_out_string(out, "section", sym.section);
	sg_out_string(out, "module", info.name);
	return NULL;
}

/* A global whose symbol carries an ABI tag ("g[abi:cxx11]", demangled from
   _Z1gB5cxx11): gdb finds it by its plain name, as print does, and by the
   tagged one.  Through DWARF, then back to its symbol.  */
static struct sg_error *lookup_tagged(struct sg_target *t, const char *name, struct sg_symbol *ret)
{
	char *plain = strdup(name);
	if (!plain)
		return &sg_enomem;
	char *tag;
	while ((tag = strstr(plain, "[abi:"))) {
		char *end = strchr(tag, ']');
		if (!end)
			break;
		memmove(tag, end + 1, strlen(end + 1) + 1);
	}
	Dwarf_Die type;
	uint64_t addr;
	struct sg_error *err = sg_lookup_variable(t, plain, &type, &addr);
	free(plain);
	if (!err)
		err = sg_symbolize(t, addr, ret);
	if (!err && ret->offset)
		err = &sg_not_found;
	return err;
}

static struct sg_error *cmd_info_address(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "Argument required (symbol name).");
	char *name = strdup(args);
	if (!name)
		return &sg_enomem;
	/* gdb accepts 'quoted' names for ones with parentheses.  */
	size_t len = strlen(name);
	if (len >= 2 && name[0] == '\'' && name[len - 1] == '\'') {
		memmove(name, name + 1, len - 2);
		name[len - 2] = '\0';
	}
	struct sg_error *local_err = NULL;
	if (sg_frame_local_address(s, name, out, &local_err)) {
		free(name);
		return local_err;
	}
	struct sg_target *t = sg_session_target(s);
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, name, &sym);
	if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
		sg_error_destroy(err);
		err = lookup_tagged(t, name, &sym);
	}
	Dwarf_Die var;
	if (err && !sg_lookup_constant(t, name, &var)) {
		/* Folded into a DW_AT_const_value: no storage at all.  */
		sg_error_destroy(err);
		sg_out_printf(out, "Symbol \"%s\" is constant.\n", name);
		sg_out_string(out, "symbol", name);
		sg_out_string(out, "kind", "constant");
		free(name);
		return NULL;
	}
	if (err) {
		if (sg_error_code(err) == SG_ERROR_NOT_FOUND)
			err = sg_error_format(SG_ERROR_LOOKUP, "No symbol \"%s\" in current context.",
					      name);
		free(name);
		return err;
	}
	const char *what = sym.kind == STT_FUNC || sym.kind == STT_GNU_IFUNC ? "a function"
			   : sym.kind == STT_TLS ? "a thread-local variable"
						 : "static storage";
	struct sg_module_info info;
	sg_module_info(sym.module, &info);
	char *debug_name = sg_symbol_debug_name(s, &sym);
	/* Like gdb, name the symbol as demangled (with its parameters).  A
	   thread-local one is at an offset in its module's TLS block.  One
	   without DWARF of its own is gdb's minimal symbol, named as typed.  */
	if (sym.kind == STT_TLS)
		sg_out_printf(out, "Symbol \"%s\" is %s at offset 0x%" PRIx64
				   " in the thread-local storage for `%s'.\n",
			      sym.name, what, sym.address - info.bias, info.name);
	else if (!debug_name)
		sg_out_printf(out, "Symbol \"%s\" is at 0x%" PRIx64
				   " in a file compiled without debugging.\n", name, sym.address);
	else
		sg_out_printf(out, "Symbol \"%s\" is %s at address 0x%" PRIx64 ".\n", debug_name,
			      what, sym.address);
	sg_out_bool(out, "debug_info", debug_name != NULL);
	free(debug_name);
	sg_out_string(out, "symbol", sym.name);
	sg_out_string(out, "raw_name", sym.raw_name);
	sg_out_string(out, "kind", sym.kind == STT_FUNC || sym.kind == STT_GNU_IFUNC ? "function"
				    : sym.kind == STT_TLS ? "tls" : "data");
	if (sym.kind == STT_TLS)
		sg_out_hex(out, "offset", sym.address - info.bias);
	else
		sg_out_hex(out, "address", sym.address);
	sg_out_uint(out, "size", sym.size);
	sg_out_string(out, "module", info.name);
	free(name);
	return NULL;
}

static struct sg_error *cmd_info_target(struct sg_session *s, const char *args SG_UNUSED,
					struct sg_out *out, void *arg SG_UNUSED)
{
	struct sg_target *t = sg_session_target(s);
	const char *exe = sg_target_exe(t);
	int pid = (int)sg_target_pid(t);
	size_t bytes;
	const char *kind;
	if (sg_target_kind(t) == SG_TARGET_CORE) {
		kind = "core";
		sg_out_printf(out, "A core file of process %d (%s).\n", pid, exe ? exe : "?");
	} else if (sg_target_is_snapshot(t, &bytes)) {
		kind = "snapshot";
		sg_out_printf(out, "A snapshot of process %d (%s): %zu bytes copied; the process "
				   "runs on.\n"
				   "Memory not in the snapshot, except read-only file mappings, "
				   "cannot be read.\n",
			      pid, exe ? exe : "?", bytes);
		sg_out_uint(out, "snapshot_bytes", bytes);
	} else {
		kind = "live";
		sg_out_printf(out, "Attached to process %d (%s), stopped.\n", pid, exe ? exe : "?");
	}
	sg_out_string(out, "kind", kind);
	sg_out_int(out, "pid", pid);
	sg_out_string(out, "executable", exe);
	return NULL;
}

static const struct sg_command target_cmds[] = {
	{ .name = "attach", .synopsis = "attach PID", .summary = "Attach to a running process",
	  .details = "Seizes and stops every thread of process PID, so that what follows sees one\n"
		     "consistent snapshot.  The process runs again on detach or when spyglass exits.",
	  .handler = cmd_attach },
	{ .name = "detach", .synopsis = "detach", .summary = "Detach from the process and let it run",
	  .handler = cmd_detach, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info threads", .synopsis = "info threads",
	  .summary = "List the threads: ID, LWP, name, state and innermost frame",
	  .details = "State is the scheduler state just before spyglass stopped the thread\n"
		     "(R running, S sleeping, D disk sleep, T stopped, t traced).",
	  .handler = cmd_info_threads,
	  /* shell/snapshot.c checks the settings its frames print by.  */
	  .flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_ARGS },
	{ .name = "info target", .synopsis = "info target",
	  .summary = "Say what the target is: a stopped process, a snapshot of one, a core",
	  .details = "For a snapshot (set snapshot on, --snapshot): the bytes it copied; the\n"
		     "process runs on, and memory the snapshot lacks cannot be read.",
	  .handler = cmd_info_target,
	  .flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
	{ .name = "thread", .synopsis = "thread [ID]", .summary = "Select a thread, or show the current one",
	  .handler = cmd_thread, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info sharedlibrary", .aliases = "dll", .synopsis = "info sharedlibrary [REGEX]",
	  .summary = "List the modules: executable, shared libraries, vdso",
	  .details = "Shows each module's address range, load bias, whether it has a symbol table\n"
		     "and DWARF (Yes* when from a separate debug file), and its build ID.\n"
		     "With REGEX, only the modules whose name matches it.",
	  .handler = cmd_info_sharedlibrary, .flags = SG_CMD_NEEDS_TARGET | SG_CMD_NO_STACKS },
	{ .name = "info symbol", .synopsis = "info symbol ADDR",
	  .summary = "Describe the symbol at an address",
	  .handler = cmd_info_symbol, .complete = sg_complete_symbol, .flags = SG_CMD_NEEDS_TARGET },
	{ .name = "info address", .synopsis = "info address SYMBOL",
	  .summary = "Show where a symbol is stored",
	  .details = "SYMBOL may be mangled, or a qualified C++ name such as ns::klass::member\n"
		     "or ns::f(int); quote names with parentheses: info address 'ns::f(int)'.",
	  .handler = cmd_info_address, .complete = sg_complete_symbol, .flags = SG_CMD_NEEDS_TARGET },
};

struct sg_error *shell_register_target_commands(struct shell *sh)
{
	return shell_register_table(sh, target_cmds, sizeof(target_cmds) / sizeof(target_cmds[0]));
}
