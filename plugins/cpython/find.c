/* Finding the interpreter in a target: the module it lives in (the
   executable, a libpython, or libpython in a program that embeds it), its
   anchor (_PyRuntime, or interp_head before 3.7) and its version.

   The anchor is looked for by symbol, then by the .PyRuntime section
   (3.10+, found in the ELF file even without any symbol table), then by a
   scan of the module's writable memory for the "xdebugpy" cookie of
   _Py_DebugOffsets (3.13+).  The version comes from _Py_DebugOffsets, then
   Py_Version (3.11+), then the sys.version string in the module's memory,
   and from the file name only as a last resort.  */
#include <config.h>
#include "cache.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUG_COOKIE "xdebugpy"
/* Writable memory scanned per module for the version string or cookie.  */
#define MAX_SCAN (64u << 20)
#define SCAN_CHUNK (1u << 20)

/* NAME in MOD, or in every module when MOD is NULL.  */
static bool lookup(struct sg_target *t, struct sg_module *mod, const char *name,
		   struct sg_symbol *ret)
{
	struct sg_error *err = mod ? sg_module_lookup_symbol(t, mod, name, ret)
				   : sg_lookup_symbol(t, name, ret);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	return true;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* "libpython3.11.so.1.0", "python3.11", "libpython2.7.so": the version
   the name says, or 0.  */
static unsigned version_from_name(const char *path, bool *library_ret)
{
	const char *b = base_name(path);
	*library_ret = !strncmp(b, "libpython", 9);
	const char *v = *library_ret ? b + 9 : !strncmp(b, "python", 6) ? b + 6 : NULL;
	unsigned major, minor;
	if (!v || sscanf(v, "%u.%u", &major, &minor) != 2 || major < 2 || major > 3 || minor > 99)
		return 0;
	return PY_V(major, minor);
}

struct module_pick {
	struct sg_module *mod;
	unsigned version;
};

/* The module that is libpython, else one named like the interpreter.  */
static int pick_module(struct sg_module *mod, void *arg)
{
	struct module_pick *pick = arg;
	struct sg_module_info info;
	sg_module_info(mod, &info);
	bool library;
	unsigned v = version_from_name(info.name, &library);
	if (v && (library || !pick->mod)) {
		pick->mod = mod;
		pick->version = v;
	}
	return library && v ? SG_CB_ABORT : SG_CB_OK;
}

/* The run-time address of section NAME of MOD's ELF file, or 0.  */
static uint64_t section_address(struct sg_module *mod, const char *name, uint64_t *size_ret)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	const char *path = info.file ? info.file : info.name;
	if (!path || path[0] != '/')
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t addr = 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr shdr;
			const char *n;
			if (gelf_getshdr(scn, &shdr) && (n = elf_strptr(elf, shstrndx, shdr.sh_name)) &&
			    !strcmp(n, name) && shdr.sh_addr) {
				addr = shdr.sh_addr + info.bias;
				*size_ret = shdr.sh_size;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

/* Call FN on MOD's writable memory, a chunk at a time, at most MAX_SCAN
   bytes.  FN returns true to stop.  */
static bool scan_writable(struct sg_target *t, struct sg_module *mod,
			  bool (*fn)(const char *buf, size_t len, uint64_t addr, void *arg), void *arg)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	char *buf = malloc(SCAN_CHUNK);
	if (!buf)
		return false;
	size_t scanned = 0;
	bool found = false;
	/* The module's range ends with its file; .bss goes on in the
	   anonymous mapping right after it.  */
	bool bss = false;
	for (uint64_t a = info.start; !found && scanned < MAX_SCAN && (a < info.end || !bss);) {
		struct sg_mapping m;
		if (!sg_target_mapping_at(t, a, &m))
			break;
		if (a >= info.end) {
			bss = true;
			if (m.path && m.path[0])
				break;
		}
		if (m.readable && m.writable) {
			for (uint64_t c = m.start; c < m.end && !found && scanned < MAX_SCAN;
			     c += SCAN_CHUNK) {
				size_t n = m.end - c < SCAN_CHUNK ? m.end - c : SCAN_CHUNK;
				struct sg_error *err = sg_target_read(t, c, buf, n);
				if (err) {
					sg_error_destroy(err);
					break;
				}
				scanned += n;
				found = fn(buf, n, c, arg);
			}
		}
		a = m.end;
	}
	free(buf);
	return found;
}

/* sys.version as Py_GetVersion() formats it: "3.9.18 (main, ...".  */
static bool find_version_string(const char *buf, size_t len, uint64_t addr SG_UNUSED, void *arg)
{
	unsigned *hex = arg;
	for (size_t i = 1; i + 8 < len; i++) {
		if ((buf[i] != '2' && buf[i] != '3') || buf[i + 1] != '.' ||
		    isdigit((unsigned char)buf[i - 1]) || buf[i - 1] == '.')
			continue;
		char tmp[24];
		size_t n = len - i < sizeof(tmp) - 1 ? len - i : sizeof(tmp) - 1;
		memcpy(tmp, buf + i, n);
		tmp[n] = '\0';
		unsigned major, minor, micro;
		int end = 0;
		if (sscanf(tmp, "%u.%u.%u%n", &major, &minor, &micro, &end) != 3 || minor > 99 ||
		    micro > 99)
			continue;
		const char *s = tmp + end;
		while (*s && (isalnum((unsigned char)*s) || *s == '+'))
			s++;
		if (s[0] != ' ' || s[1] != '(')
			continue;
		*hex = major << 24 | minor << 16 | micro << 8 | 0xf0;
		return true;
	}
	return false;
}

struct cookie_scan {
	uint64_t addr;
};

static bool find_cookie(const char *buf, size_t len, uint64_t addr, void *arg)
{
	struct cookie_scan *cs = arg;
	for (size_t i = 0; i + 16 <= len; i += 8) {
		if (memcmp(buf + i, DEBUG_COOKIE, 8))
			continue;
		uint64_t v;
		memcpy(&v, buf + i + 8, 8);
		if (v >> 24 == 3 && ((v >> 16) & 0xff) >= 13) {
			cs->addr = addr + i;
			return true;
		}
	}
	return false;
}

void py_proc_destroy(struct py_proc *p)
{
	if (!p)
		return;
	free(p->module_path);
	py_code_cache_clear(p);
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].name);
	free(p->names);
	free(p);
}

static void set_version(struct py_proc *p, uint32_t hex, const char *how)
{
	p->hexversion = hex;
	p->version = PY_V(hex >> 24, (hex >> 16) & 0xff);
	snprintf(p->how_version, sizeof(p->how_version), "%s", how);
}

/* The anchor: _PyRuntime, or before 3.7 the interpreter list and the
   current thread, in MOD (NULL: any module).  */
static bool find_anchor_symbols(struct py_proc *p, struct sg_module *mod, struct sg_symbol *sym)
{
	struct sg_target *t = p->target;
	if (lookup(t, mod, "_PyRuntime", sym)) {
		p->runtime = sym->address;
		p->module = sym->module;
		snprintf(p->how_runtime, sizeof(p->how_runtime), "symbol _PyRuntime");
		return true;
	}
	if (lookup(t, mod, "_PyThreadState_Current", sym)) {
		p->tstate_current = sym->address;
		p->module = sym->module;
		snprintf(p->how_runtime, sizeof(p->how_runtime), "symbol _PyThreadState_Current");
	}
	/* Static in Python/pystate.c: only in .symtab.  */
	if (lookup(t, p->module ? p->module : mod, "interp_head", sym)) {
		p->interp_head = sym->address;
		p->module = sym->module;
		snprintf(p->how_runtime, sizeof(p->how_runtime), "symbol interp_head");
	}
	return p->module != NULL;
}

/* The module named like libpython or python is tried first: a lookup in
   every module reads every symbol table, libc's debug symbols
   included.  */
/* SPYGLASS_PYTHON_FIND (a comma separated list of symbol, section, scan;
   all of them by default) limits how the anchor may be found, so that the
   tests reach the section and the scan on interpreters whose symbols
   would find it first.  */
enum { WAY_SYMBOL = 1 << 0, WAY_SECTION = 1 << 1, WAY_SCAN = 1 << 2 };

static void find_anchor(struct py_proc *p, struct module_pick pick, struct sg_symbol *sym)
{
	struct sg_target *t = p->target;
	static const char *const words[] = { "symbol", "section", "scan", NULL };
	unsigned ways = py_env_words("SPYGLASS_PYTHON_FIND", words);
	/* Without a module named like Python, the interpreter can only be
	   linked into the executable: asking every module would read every
	   symbol table (libc's debug symbols, libstdc++'s) on each attach
	   to a process that is not Python.  */
	struct sg_module *exe = pick.mod ? NULL : sg_target_exe_module(t);
	if ((ways & WAY_SYMBOL) &&
	    ((pick.mod && find_anchor_symbols(p, pick.mod, sym)) ||
	     (!pick.mod && exe && find_anchor_symbols(p, exe, sym))))
		return;
	if (!pick.mod)
		return;
	uint64_t size = 0, addr = ways & WAY_SECTION ? section_address(pick.mod, ".PyRuntime", &size)
						     : 0;
	if (addr) {
		p->runtime = addr;
		p->module = pick.mod;
		snprintf(p->how_runtime, sizeof(p->how_runtime), "section .PyRuntime");
		return;
	}
	struct cookie_scan cs = { 0 };
	if ((ways & WAY_SCAN) && pick.version >= PY_V(3, 13) &&
	    scan_writable(t, pick.mod, find_cookie, &cs)) {
		p->runtime = cs.addr;
		p->module = pick.mod;
		snprintf(p->how_runtime, sizeof(p->how_runtime),
			 "scan for the _Py_DebugOffsets cookie");
	}
}

static void find_version(struct py_proc *p, struct sg_symbol *sym)
{
	struct sg_target *t = p->target;
	char cookie[16];
	struct sg_error *err = NULL;
	if (p->runtime && !(err = sg_target_read(t, p->runtime, cookie, 16))) {
		uint64_t v;
		memcpy(&v, cookie + 8, 8);
		if (!memcmp(cookie, DEBUG_COOKIE, 8) && v >> 24 == 3) {
			uint64_t ft = 0;
			sg_error_destroy(sg_target_read_u64(t, p->runtime + 16, &ft));
			p->free_threaded = ft == 1;
			set_version(p, (uint32_t)v, "_Py_DebugOffsets.version");
			return;
		}
	} else {
		sg_error_destroy(err);
	}
	uint64_t v;
	if (lookup(t, p->module, "Py_Version", sym) &&
	    !(err = sg_target_read_u64(t, sym->address, &v))) {
		if (v >> 24 == 3) {
			set_version(p, (uint32_t)v, "symbol Py_Version");
			return;
		}
	} else {
		sg_error_destroy(err);
	}
	unsigned hex = 0;
	if (scan_writable(t, p->module, find_version_string, &hex)) {
		set_version(p, hex, "the sys.version string in memory");
		return;
	}
	bool library;
	struct sg_module_info info;
	sg_module_info(p->module, &info);
	unsigned fv = version_from_name(info.name, &library);
	if (fv)
		set_version(p, (fv >> 8) << 24 | (fv & 0xff) << 16, "the file name");
}

/* What no cache can tell: where the module is, and what it is to the
   program.  */
static struct sg_error *describe_module(struct py_proc *p)
{
	struct sg_module_info info;
	sg_module_info(p->module, &info);
	p->module_path = strdup(info.name);
	if (!p->module_path)
		return &sg_enomem;
	bool library;
	version_from_name(info.name, &library);
	p->shared = library;
	const char *exe = sg_target_exe(p->target);
	p->embedded = library && exe && strncmp(base_name(exe), "python", 6);
	return NULL;
}

/* Everything, from the process and its files.  */
static struct sg_error *find_all(struct py_proc *p, struct module_pick pick)
{
	struct sg_symbol sym;
	find_anchor(p, pick, &sym);
	if (!p->module)
		return sg_error_create(SG_ERROR_NOT_FOUND,
				       "no Python interpreter in this process (no _PyRuntime, "
				       "interp_head or libpython)");
	struct sg_error *err = describe_module(p);
	if (err)
		return err;
	p->debug_build = lookup(p->target, p->module, "_Py_RefTotal", &sym) ||
			 lookup(p->target, p->module, "_Py_GetGlobalRefTotal", &sym);
	find_version(p, &sym);
	if (!p->version)
		return sg_error_format(SG_ERROR_LOOKUP, "cannot tell the Python version of %s",
				       p->module_path);
	if (p->version < PY_V(2, 7) || (p->version >= PY_V(3, 0) && p->version < PY_V(3, 6)) ||
	    p->version > PY_V(3, 15))
		return sg_error_format(SG_ERROR_LOOKUP,
				       "Python %u.%u is not supported (2.7 and 3.6 to 3.15 are)",
				       p->version >> 8, p->version & 0xff);
	if ((err = py_offsets_resolve(p)))
		return err;
	if (p->version >= PY_V(3, 7) && !p->runtime)
		return sg_error_format(SG_ERROR_LOOKUP, "cannot find _PyRuntime in %s",
				       p->module_path);
	return NULL;
}

struct sg_error *py_find(struct sg_target *t, struct py_proc **ret)
{
	struct py_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return &sg_enomem;
	p->target = t;
	struct module_pick pick = { 0 };
	sg_error_destroy(sg_target_modules(t, pick_module, &pick));
	/* A build seen before: one small file instead of symbol tables and
	   DWARF.  */
	unsigned sources = py_sources();
	struct sg_error *err;
	if (pick.mod && (sources & PY_SRC_CACHE) && py_cache_load(p, pick.mod)) {
		p->module = pick.mod;
		err = describe_module(p);
	} else {
		err = find_all(p, pick);
		if (!err && (sources & PY_SRC_CACHE))
			py_cache_store(p);
	}
	if (err) {
		py_proc_destroy(p);
		return err;
	}
	/* 3.14 renumbered the frame owners: 3 is now the interpreter's own
	   entry frame, 4 the C stack's shim.  */
	p->owner_cstack = p->version >= PY_V(3, 14) ? 4 : 3;
	p->owner_interpreter = p->version >= PY_V(3, 14) ? 3 : -1;
	/* Modules are reported again after the stop, which frees these;
	   what was needed of it is copied.  */
	p->module = NULL;
	*ret = p;
	return NULL;
}
