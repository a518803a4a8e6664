/* Finding Zeek in a target: its call stack, its version, and the layouts
   of what the walk reads.  Runs before the target is stopped; what it
   keeps (addresses, layouts, DWARF types) cannot change while the
   process lives.  */
#include <config.h>
#include "zeek.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A data symbol of MOD.  */
static bool find_object(struct sg_target *t, struct sg_module *mod, const char *name,
			uint64_t *ret)
{
	struct sg_symbol sym;
	struct sg_error *err = sg_module_lookup_symbol(t, mod, name, &sym);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	if (sym.kind != STT_OBJECT || !sym.address)
		return false;
	*ret = sym.address;
	return true;
}

static int take_libzeek(struct sg_module *mod, void *arg)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	const char *base = strrchr(info.name, '/');
	base = base ? base + 1 : info.name;
	if (strncmp(base, "libzeek", 7))
		return SG_CB_OK;
	*(struct sg_module **)arg = mod;
	return SG_CB_ABORT;
}

/* Where Zeek's globals may be: the executable (zeek links its objects
   in, and exports them with -rdynamic), else a libzeek (a program that
   embeds Zeek).  Asking every module would read every symbol table,
   libc's debug symbols included, on each attach to any process.  */
static int zeek_modules(struct sg_target *t, struct sg_module *mods[2])
{
	struct sg_module *lib = NULL;
	struct sg_error *err = sg_target_modules(t, take_libzeek, &lib);
	sg_error_destroy(err);
	int n = 0;
	if ((mods[n] = sg_target_exe_module(t)))
		n++;
	if (lib && lib != mods[0])
		mods[n++] = lib;
	return n;
}

/* The ZK_V number of "8.1.0", "3.0.13-debug", "8_1_0" (the patch level
   matters: 3.0.2 changed Frame); 0 if not a version.  */
static unsigned parse_version(const char *s, char sep)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return 0;
	unsigned long major = strtoul(s, &end, 10);
	if (*end != sep || !isdigit((unsigned char)end[1]))
		return 0;
	unsigned long minor = strtoul(end + 1, &end, 10), patch = 0;
	if (*end == sep && isdigit((unsigned char)end[1]))
		patch = strtoul(end + 1, &end, 10);
	if (major == 0 || major > 99 || minor > 99 || patch > 99)
		return 0;
	return ZK_V(major, minor, patch);
}

struct version_symbol {
	char name[64];
};

static int take_version_symbol(const char *name, void *arg)
{
	struct version_symbol *vs = arg;
	snprintf(vs->name, sizeof(vs->name), "%s", name);
	return SG_CB_ABORT;
}

/* The version from the C string `version` (src/version.c), else from the
   name of the function zeek_version_8_1_0_plugin_N (bro_version_... up
   to 3.1), which is in the symbol table even when the string is not.  */
static void find_version(struct sg_target *t, struct sg_module *mod, struct zk_proc *p)
{
	uint64_t addr;
	if (find_object(t, mod, "version", &addr)) {
		char *s = NULL;
		bool truncated;
		struct sg_error *err = sg_target_read_string(t, addr, sizeof(p->version) - 1, &s,
							     &truncated);
		if (!err && !truncated && parse_version(s, '.')) {
			snprintf(p->version, sizeof(p->version), "%s", s);
			p->version_number = parse_version(s, '.');
			p->version_source = "the version string";
			free(s);
			return;
		}
		sg_error_destroy(err);
		free(s);
	}
	static const char *const prefixes[] = { "zeek_version_", "bro_version_" };
	for (size_t i = 0; i < ZK_ARRAY_SIZE(prefixes); i++) {
		struct version_symbol vs = { "" };
		struct sg_error *err = sg_symbol_names(t, prefixes[i], take_version_symbol, &vs);
		sg_error_destroy(err);
		if (!vs.name[0])
			continue;
		const char *v = vs.name + strlen(prefixes[i]);
		unsigned n = parse_version(v, '_');
		if (!n)
			continue;
		/* 8_1_0_plugin_4 -> 8.1.0 */
		size_t len = 0;
		for (const char *c = v; *c && len + 1 < sizeof(p->version); c++) {
			if (*c == '_' && !isdigit((unsigned char)c[1]))
				break;
			p->version[len++] = *c == '_' ? '.' : *c;
		}
		p->version[len] = '\0';
		p->version_number = n;
		p->version_source = i == 0 ? "the symbol zeek_version_*" : "the symbol bro_version_*";
		return;
	}
	p->version_source = "nowhere";
}

static int find_libcxx(struct sg_module *mod, void *arg)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	const char *base = strrchr(info.name, '/');
	base = base ? base + 1 : info.name;
	if (strncmp(base, "libc++.so", 9))
		return SG_CB_OK;
	*(bool *)arg = true;
	return SG_CB_ABORT;
}

/* Resolve every layout, from DWARF, or from TABLE alone.  Frame and
   FuncType may be missing: lines of the innermost script frame and
   flavors are then unknown.  */
static struct sg_error *resolve(struct sg_target *t, struct zk_proc *p,
				const struct sg_layout_table *table)
{
	const struct sg_layout_spec *specs = p->global_names ? zk_specs_global : zk_specs;
	for (int i = 0; i < ZK_NTYPES; i++) {
		struct sg_error *err =
			table ? sg_layout_resolve_table(&specs[i], table, &p->layouts[i])
			      : sg_layout_resolve(t, &specs[i], NULL, &p->layouts[i]);
		if (!err)
			continue;
		if ((i == ZK_FRAME || i == ZK_FUNCTYPE) && sg_error_code(err) == SG_ERROR_LOOKUP) {
			sg_error_destroy(err);
			p->layouts[i] = NULL;
			continue;
		}
		return err;
	}
	return NULL;
}

/* The DWARF types handed to the libstdc++ readers: the vectors' own
   types from their variables, and Func::name's.  */
static struct sg_error *find_dies(struct sg_session *s, struct sg_target *t, struct zk_proc *p)
{
	uint64_t addr;
	struct sg_error *err = sg_lookup_variable(t, p->call_stack_symbol, &p->call_stack_die, &addr);
	if (err) {
		sg_error_destroy(err);
		return sg_error_create(SG_ERROR_LOOKUP,
				       "Zeek has DWARF for its classes but not for call_stack");
	}
	if (p->frame_stack) {
		err = sg_lookup_variable(t, "g_frame_stack", &p->frame_stack_die, &addr);
		if (err) {
			sg_error_destroy(err);
			return sg_error_create(SG_ERROR_LOOKUP,
					       "Zeek has DWARF for its classes but not for g_frame_stack");
		}
	}
	Dwarf_Die func;
	err = sg_lookup_type(t, p->layouts[ZK_FUNC]->type, &func);
	struct sg_value *v = NULL, *name = NULL;
	if (!err)
		err = sg_value_at(t, &func, 0, &v);
	if (!err)
		err = sg_value_member(v, "name", &name);
	if (!err)
		p->name_die = *sg_value_type(name);
	sg_value_destroy(name);
	sg_value_destroy(v);
	if (err)
		return err == &sg_not_found ? sg_error_create(SG_ERROR_LOOKUP,
							      "no DWARF type for zeek::Func")
					    : err;
	p->have_dies = true;
	/* Find the readers of the three types now: that builds their
	   qualified names, a walk of their units, which the target would
	   otherwise wait for.  */
	const Dwarf_Die *dies[] = { &p->call_stack_die, &p->name_die,
				    p->frame_stack ? &p->frame_stack_die : NULL };
	for (size_t i = 0; i < ZK_ARRAY_SIZE(dies); i++) {
		struct sg_value *dv;
		if (dies[i] && !sg_value_at(t, dies[i], 0, &dv)) {
			sg_reader_lookup(s, dv);
			sg_value_destroy(dv);
		}
	}
	return NULL;
}

struct sg_error *zk_find(struct sg_session *s, struct sg_target *t, struct zk_proc **ret)
{
	struct zk_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return &sg_enomem;
	/* 3.2 moved call_stack into zeek::detail; 3.0 and 3.1 have the
	   plain global.  Zeek links with -rdynamic, so both are in .dynsym
	   and survive stripping.  */
	struct sg_module *mods[2], *mod = NULL;
	int nmods = zeek_modules(t, mods);
	for (int i = 0; i < nmods && !mod; i++) {
		if (find_object(t, mods[i], "_ZN4zeek6detail10call_stackE", &p->call_stack)) {
			p->call_stack_symbol = "zeek::detail::call_stack";
		} else if (find_object(t, mods[i], "call_stack", &p->call_stack)) {
			p->call_stack_symbol = "call_stack";
			p->global_names = true;
		} else {
			continue;
		}
		mod = mods[i];
	}
	if (!mod) {
		free(p);
		return &sg_not_found;
	}
	if (!find_object(t, mod, "g_frame_stack", &p->frame_stack))
		p->frame_stack = 0;
	find_version(t, mod, p);

	/* Zeek's classes are described where call_stack is defined, if
	   anywhere: without DWARF there (a release build) the table of this
	   version serves, and no other module's DWARF is searched.  */
	struct sg_error *err = NULL;
	if (sg_module_has_dwarf(mod, NULL))
		err = resolve(t, p, NULL);
	else {
		bool libcxx = false;
		err = sg_target_modules(t, find_libcxx, &libcxx);
		sg_error_destroy(err);
		p->table = p->version_number ? zk_table_for(p->version_number) : NULL;
		if (libcxx)
			err = sg_error_format(SG_ERROR_LOOKUP,
					      "Zeek %s is built with libc++ and has no DWARF: "
					      "the built-in tables are for libstdc++ builds",
					      p->version[0] ? p->version : "(version unknown)");
		else if (!p->version_number)
			err = sg_error_create(SG_ERROR_LOOKUP,
					      "Zeek without DWARF and of unknown version: "
					      "no built-in table applies");
		else if (!p->table)
			err = sg_error_format(SG_ERROR_LOOKUP,
					      "Zeek %s has no DWARF and the built-in tables do not know "
					      "this version (they cover %s)",
					      p->version, zk_table_range());
		else
			err = resolve(t, p, &p->table->layout);
	}
	if (!err && !p->table)
		err = find_dies(s, t, p);
	if (err) {
		zk_proc_destroy(p);
		return err;
	}
	p->frames_walk = !strcmp(p->layouts[ZK_CALLINFO]->fields[CI_FRAME_OR_FUNC].name, "frame");
	*ret = p;
	return NULL;
}

void zk_proc_destroy(struct zk_proc *p)
{
	if (!p)
		return;
	for (int i = 0; i < ZK_NTYPES; i++)
		sg_layout_destroy(p->layouts[i]);
	for (size_t i = 0; i < p->nfuncs; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	free(p);
}
