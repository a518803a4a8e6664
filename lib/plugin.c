/* Plugin loading.

   The ABI note is read with libelf before dlopen(), because dlopen() runs
   constructors: a plugin built for another ABI is refused before any of its
   code runs.  */
#include <config.h>
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The {major, minor} of ELF's .note.spyglass, checking that ELF is a
   shared object for this machine; PATH names it in errors.  */
struct sg_error *sg_plugin_read_note(Elf *elf, const char *path, uint32_t *major, uint32_t *minor)
{
	GElf_Ehdr ehdr;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return sg_error_format(SG_ERROR_PLUGIN, "cannot load plugin %s: not an ELF file", path);
	if (ehdr.e_type != ET_DYN)
		return sg_error_format(SG_ERROR_PLUGIN, "cannot load plugin %s: not a shared object",
				       path);
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_machine != EM_X86_64)
		return sg_error_format(SG_ERROR_PLUGIN,
				       "cannot load plugin %s: built for another machine", path);
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto none;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".note.spyglass"))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nhdr;
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
			if (nhdr.n_type != SG_PLUGIN_NOTE_TYPE || nhdr.n_descsz != 8 ||
			    nhdr.n_namesz != sizeof(SG_PLUGIN_NOTE_NAME) ||
			    memcmp((char *)data->d_buf + name_off, SG_PLUGIN_NOTE_NAME,
				   sizeof(SG_PLUGIN_NOTE_NAME)))
				continue;
			uint32_t v[2];
			memcpy(v, (char *)data->d_buf + desc_off, sizeof(v));
			*major = v[0];
			*minor = v[1];
			return NULL;
		}
	}
none:
	return sg_error_format(SG_ERROR_PLUGIN,
			       "cannot load plugin %s: not a spyglass plugin (no .note.spyglass ABI note)",
			       path);
}

static struct sg_error *read_abi_note(const char *path, uint32_t *major, uint32_t *minor)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sg_error_os(errno, "cannot open plugin %s", path);
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* libelf would only say "invalid file descriptor" for a folder.  */
		close(fd);
		return sg_error_format(SG_ERROR_PLUGIN, "cannot load plugin %s: not a regular file", path);
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct sg_error *err;
	if (!elf)	/* not the file's content: libelf could not map or read it */
		err = sg_error_format(SG_ERROR_PLUGIN, "cannot load plugin %s: %s", path,
				      elf_errmsg(-1));
	else
		err = sg_plugin_read_note(elf, path, major, minor);
	elf_end(elf);
	close(fd);
	return err;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Find NAME in DIR as NAME or NAME.so.  */
static char *find_in_dir(const char *dir, size_t dirlen, const char *name)
{
	static const char *const suffixes[] = { "", ".so" };
	for (size_t i = 0; i < SG_ARRAY_SIZE(suffixes); i++) {
		char *path;
		if (asprintf(&path, "%.*s/%s%s", (int)dirlen, dir, name, suffixes[i]) < 0)
			return NULL;
		if (is_file(path))
			return path;
		free(path);
	}
	return NULL;
}

static char *resolve_path(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *dir = sg_plugin_dir();
	char *path = find_in_dir(dir, strlen(dir), name);
	if (path)
		return path;
	const char *env = getenv("SPYGLASS_PLUGIN_PATH");
	for (const char *p = env; p && *p;) {
		size_t len = strcspn(p, ":");
		if (len && (path = find_in_dir(p, len, name)))
			return path;
		p += len + (p[len] == ':');
	}
	return strdup(name);	/* let open() say it is missing */
}

/* Initialise INFO, loaded from REAL (PATH as the user gave it) with
   HANDLE, and append it to the session's plugins.  */
static struct sg_error *add_plugin(struct sg_session *s, const struct sg_plugin_info *info,
				   void *handle, const char *path, const char *real)
{
	for (struct sg_plugin *p = s->plugins; p; p = p->next)
		if (!strcmp(p->info->name, info->name))
			return sg_error_format(SG_ERROR_PLUGIN,
					       "cannot load plugin %s: a plugin named \"%s\" is already loaded from %s",
					       path, info->name, p->path);
	struct sg_plugin *plugin = calloc(1, sizeof(*plugin));
	if (!plugin || !(plugin->path = strdup(real))) {
		free(plugin);
		return &sg_enomem;
	}
	plugin->handle = handle;
	plugin->info = info;
	s->loading = plugin;
	struct sg_error *err = info->init(s, &plugin->state);
	s->loading = NULL;
	if (err) {
		sg_commands_remove_owner(s, plugin);
		sg_settings_remove_owner(s, plugin);
		sg_registry_remove_owner(s, plugin);
		if (info->fini)
			info->fini(s, plugin->state);
		free(plugin->path);
		free(plugin);
		return sg_error_prefix(err, "plugin %s failed to initialize", info->name);
	}
	struct sg_plugin **tail = &s->plugins;
	while (*tail)
		tail = &(*tail)->next;
	*tail = plugin;
	return NULL;
}

/* The plugin loaded from the file at PATH, by real path or, for a hard
   link, by device and inode; NULL if none.  */
static const struct sg_plugin *loaded_from(const struct sg_session *s, const char *path)
{
	char real[PATH_MAX];
	struct stat st, pst;
	bool have_real = realpath(path, real) != NULL;
	bool have_st = stat(path, &st) == 0;
	for (const struct sg_plugin *p = s->plugins; p; p = p->next) {
		if (!p->handle)
			continue;	/* linked in */
		if ((have_real && !strcmp(p->path, real)) ||
		    (have_st && stat(p->path, &pst) == 0 && pst.st_dev == st.st_dev &&
		     pst.st_ino == st.st_ino))
			return p;
	}
	return NULL;
}

static struct sg_error *load_path(struct sg_session *s, const char *path)
{
	uint32_t major, minor;
	struct sg_error *err = read_abi_note(path, &major, &minor);
	if (err)
		return err;
	if (major != SG_PLUGIN_ABI_MAJOR || minor > SG_PLUGIN_ABI_MINOR)
		return sg_error_format(SG_ERROR_PLUGIN,
				       "cannot load plugin %s: built for plugin ABI %u.%u, this spyglass supports %d.0 to %d.%d",
				       path, major, minor, SG_PLUGIN_ABI_MAJOR, SG_PLUGIN_ABI_MAJOR,
				       SG_PLUGIN_ABI_MINOR);
	char real[PATH_MAX];
	if (!realpath(path, real))
		return sg_error_os(errno, "cannot load plugin %s", path);
	const struct sg_plugin *p = loaded_from(s, real);
	if (p)
		return sg_error_format(SG_ERROR_PLUGIN, "plugin %s is already loaded from %s",
				       p->info->name, p->path);

	dlerror();
	void *handle = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return sg_error_format(SG_ERROR_PLUGIN, "cannot load plugin %s: %s", path, dlerror());
	const struct sg_plugin_info *info = dlsym(handle, "sg_plugin_info");
	if (!info) {
		dlclose(handle);
		return sg_error_format(SG_ERROR_PLUGIN,
				       "cannot load plugin %s: no entry point sg_plugin_info", path);
	}
	if (info->abi_major != major || info->abi_minor != minor || !info->name || !info->init) {
		dlclose(handle);
		return sg_error_format(SG_ERROR_PLUGIN,
				       "cannot load plugin %s: its descriptor does not match its ABI note",
				       path);
	}
	err = add_plugin(s, info, handle, path, real);
	if (err)
		dlclose(handle);
	return err;
}

struct sg_error *sg_plugin_add_static(struct sg_session *s, const struct sg_plugin_info *info)
{
	return add_plugin(s, info, NULL, info->name, "(linked in)");
}

struct sg_error *sg_plugin_load(struct sg_session *s, const char *name)
{
	if (!name || !*name)
		return sg_error_create(SG_ERROR_USAGE, "plugin load needs a path");
	char *path = resolve_path(name);
	if (!path)
		return &sg_enomem;
	struct sg_error *err = load_path(s, path);
	free(path);
	return err;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_dir(struct sg_session *s, const char *dir, size_t len,
		     void (*report)(const struct sg_error *, void *), void *arg)
{
	char *d = strndup(dir, len);
	DIR *dh = d ? opendir(d) : NULL;
	if (!dh) {
		free(d);
		return;
	}
	/* Sorted, so the load order does not depend on the file system.  */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dh))) {
		size_t l = strlen(de->d_name);
		if (l < 4 || strcmp(de->d_name + l - 3, ".so"))
			continue;
		char **slot = sg_array_push(&names, &n, &cap, sizeof(*names));
		if (!slot || asprintf(slot, "%s/%s", d, de->d_name) < 0) {
			if (slot)
				n--;
			break;
		}
	}
	closedir(dh);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		/* The same folder twice in the search path (or a link to a
		   loaded file) finds the same plugin again: it is loaded, so
		   there is nothing to say.  */
		if (loaded_from(s, names[i])) {
			free(names[i]);
			continue;
		}
		/* Found, not asked for: load only what nobody else could
		   have put there.  */
		struct sg_error *err = sg_trust_check(names[i]);
		if (err) {
			struct sg_error *e = sg_error_format(
				SG_ERROR_PLUGIN,
				"not loading plugin %s: %s (SPYGLASS_SAFE_PATH can trust its folder)",
				names[i], sg_error_message(err));
			sg_error_destroy(err);
			err = e;
		}
		else
			err = load_path(s, names[i]);
		if (err && report)
			report(err, arg);
		sg_error_destroy(err);
		free(names[i]);
	}
	free(names);
	free(d);
}

void sg_plugin_load_defaults(struct sg_session *s,
			     void (*report)(const struct sg_error *err, void *arg), void *arg)
{
	const char *dir = sg_plugin_dir();
	load_dir(s, dir, strlen(dir), report, arg);
	const char *env = getenv("SPYGLASS_PLUGIN_PATH");
	for (const char *p = env; p && *p;) {
		size_t len = strcspn(p, ":");
		if (len)
			load_dir(s, p, len, report, arg);
		p += len + (p[len] == ':');
	}
}

void sg_plugin_list(struct sg_session *s, struct sg_out *out)
{
	sg_out_array_begin(out, "plugins");
	if (!s->plugins)
		sg_out_printf(out, "No plugins are loaded.\n");
	for (struct sg_plugin *p = s->plugins; p; p = p->next) {
		size_t ncmds = 0, nh[SG_REGISTRY_NKINDS] = { 0 };
		for (size_t i = 0; i < s->ncmds; i++)
			ncmds += s->cmds[i].owner == p;
		for (int k = 0; k < SG_REGISTRY_NKINDS; k++)
			for (size_t i = 0; i < s->nhandlers[k]; i++)
				nh[k] += s->handlers[k][i].owner == p;
		sg_out_printf(out, "%-12s %-8s %s\n", p->info->name,
			      p->info->version ? p->info->version : "", p->path);
		if (p->info->description)
			sg_out_printf(out, "             %s\n", p->info->description);
		sg_out_printf(out, "             %zu command%s, %zu unwinder%s, %zu reader%s, %zu stack provider%s\n",
			      ncmds, ncmds == 1 ? "" : "s",
			      nh[SG_REGISTRY_UNWINDER], nh[SG_REGISTRY_UNWINDER] == 1 ? "" : "s",
			      nh[SG_REGISTRY_READER], nh[SG_REGISTRY_READER] == 1 ? "" : "s",
			      nh[SG_REGISTRY_STACK_PROVIDER],
			      nh[SG_REGISTRY_STACK_PROVIDER] == 1 ? "" : "s");
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", p->info->name);
		sg_out_string(out, "version", p->info->version);
		sg_out_string(out, "description", p->info->description);
		sg_out_string(out, "path", p->path);
		sg_out_uint(out, "commands", ncmds);
		sg_out_uint(out, "unwinders", nh[SG_REGISTRY_UNWINDER]);
		sg_out_uint(out, "readers", nh[SG_REGISTRY_READER]);
		sg_out_uint(out, "stack_providers", nh[SG_REGISTRY_STACK_PROVIDER]);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
}

void sg_plugins_unload_all(struct sg_session *s)
{
	/* Newest first: a plugin may use what an older one registered.  */
	while (s->plugins) {
		struct sg_plugin **last = &s->plugins;
		while ((*last)->next)
			last = &(*last)->next;
		struct sg_plugin *p = *last;
		*last = NULL;
		sg_commands_remove_owner(s, p);
		sg_settings_remove_owner(s, p);
		sg_registry_remove_owner(s, p);
		if (p->info->fini)
			p->info->fini(s, p->state);
		/* ASan reports leaks with unknown frames once a module is
		   unmapped; keep it mapped under sanitizers.  */
#ifndef SG_KEEP_PLUGINS_MAPPED
		if (p->handle)
			dlclose(p->handle);
#endif
		free(p->path);
		free(p);
	}
}
