/* Plugin loading.

   The ABI note is read with libelf before dlopen(), because dlopen() runs
   constructors: a plugin built for another ABI is refused before any of its
   code runs.  */
#include <config.h>
#include "cache.h"
#include "cache-plugins.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The words of a SG_PLUGIN_TRIGGERS note, NUL-terminated within DESCSZ.  */
static char *copy_triggers(const char *desc, size_t descsz)
{
	size_t n = strnlen(desc, descsz);
	return n < descsz ? strndup(desc, n) : NULL;
}

/* The {major, minor} of ELF's .note.spyglass, checking that ELF is a
   shared object for this machine, and into *TRIGGERS (if not NULL) a copy
   of its SG_PLUGIN_TRIGGERS words or NULL; PATH names it in errors.  */
static struct sg_error *scan_notes(Elf *elf, const char *path, uint32_t *major, uint32_t *minor,
				   char **triggers)
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
	bool found = false;
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
			if (nhdr.n_namesz != sizeof(SG_PLUGIN_NOTE_NAME) ||
			    memcmp((char *)data->d_buf + name_off, SG_PLUGIN_NOTE_NAME,
				   sizeof(SG_PLUGIN_NOTE_NAME)))
				continue;
			const char *desc = (char *)data->d_buf + desc_off;
			if (nhdr.n_type == SG_PLUGIN_NOTE_TYPE && nhdr.n_descsz == 8 && !found) {
				uint32_t v[2];
				memcpy(v, desc, sizeof(v));
				*major = v[0];
				*minor = v[1];
				found = true;
			} else if (nhdr.n_type == SG_PLUGIN_NOTE_TRIGGERS && triggers && !*triggers) {
				*triggers = copy_triggers(desc, nhdr.n_descsz);
			}
		}
	}
	if (found)
		return NULL;
none:
	if (triggers) {
		free(*triggers);
		*triggers = NULL;
	}
	return sg_error_format(SG_ERROR_PLUGIN,
			       "cannot load plugin %s: not a spyglass plugin (no .note.spyglass ABI note)",
			       path);
}

struct sg_error *sg_plugin_read_note(Elf *elf, const char *path, uint32_t *major, uint32_t *minor)
{
	return scan_notes(elf, path, major, minor, NULL);
}

/* Also the file's status, into *ST, and the trigger words (TRIGGERS may
   be NULL).  */
static struct sg_error *read_abi_note(const char *path, uint32_t *major, uint32_t *minor,
				      struct stat *st, char **triggers)
{
	if (triggers)
		*triggers = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sg_error_os(errno, "cannot open plugin %s", path);
	if (fstat(fd, st) == 0 && !S_ISREG(st->st_mode)) {
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
		err = scan_notes(elf, path, major, minor, triggers);
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
				   void *handle, const char *path, const char *real,
				   const struct stat *st)
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
	if (st) {
		plugin->dev = st->st_dev;
		plugin->ino = st->st_ino;
	}
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

/* The plugin loaded (or waiting to be) from the file REAL (a resolved
   path) whose status is ST: by path or, for a hard link, by device and
   inode; NULL if none. */
static struct sg_plugin *loaded_from(const struct sg_session *s, const char *real,
				     const struct stat *st)
{
	for (struct sg_plugin *p = s->plugins; p; p = p->next) {
		if (!p->handle && p->info->init)
			continue;	/* linked in */
		if (!strcmp(p->path, real) || (p->dev == st->st_dev && p->ino == st->st_ino))
			return p;
	}
	return NULL;
}

/* Load the plugin at REAL (PATH as the user gave it), whose status is ST
   and whose ABI note said MAJOR.MINOR.  */
static struct sg_error *load_file(struct sg_session *s, const char *path, const char *real,
				  const struct stat *st, uint32_t major, uint32_t minor)
{
	if (major != SG_PLUGIN_ABI_MAJOR || minor > SG_PLUGIN_ABI_MINOR)
		return sg_error_format(SG_ERROR_PLUGIN,
				       "cannot load plugin %s: built for plugin ABI %u.%u, this spyglass supports %d.0 to %d.%d",
				       path, major, minor, SG_PLUGIN_ABI_MAJOR, SG_PLUGIN_ABI_MAJOR,
				       SG_PLUGIN_ABI_MINOR);
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
	struct sg_error *err = add_plugin(s, info, handle, path, real, st);
	if (err)
		dlclose(handle);
	return err;
}

/* ---- loading on demand ----

   A plugin with SG_PLUGIN_TRIGGERS whose commands and settings the cache
   knows (cache-plugins.c) waits as a record of its own in the session's
   list: info->init is NULL, the state is a struct lazy, and stand-ins
   owned by the record take the place of its commands and settings.  A
   stand-in command loads the plugin and runs the real one.  Targets are
   met by a core stack provider that never has frames: its prepare, which
   every attach and core runs before anything is unwound, loads the
   plugins the target triggers; the registry then prepares them too, as
   they come after it.  */

struct lazy {
	struct sg_plugin_info info;	/* the manifest's names; no init */
	struct sg_manifest *m;
	char *triggers;			/* blank-separated words */
};

static bool is_pending(const struct sg_plugin *p)
{
	return p->info && !p->info->init;
}

static bool lazy_enabled(void)
{
	const char *v = getenv("SPYGLASS_LAZY_PLUGINS");
	return !v || (strcmp(v, "0") && strcmp(v, "off"));
}

static void lazy_free(struct lazy *lz)
{
	if (!lz)
		return;
	sg_manifest_free(lz->m);
	free(lz->triggers);
	free(lz);
}

/* The value of each of P's settings, by name, to be set again on those
   its real registration makes.  */
struct saved_setting {
	const char *name;	/* the manifest's */
	uint64_t value;
};

static void remove_standins(struct sg_session *s, struct sg_plugin *p,
			    struct saved_setting *saved, size_t *nsaved)
{
	for (size_t i = 0; saved && i < s->nsettings; i++)
		if (s->settings[i].owner == p) {
			saved[*nsaved].name = s->settings[i].setting->name;
			saved[(*nsaved)++].value = s->settings[i].value;
		}
	sg_commands_remove_owner(s, p);
	sg_settings_remove_owner(s, p);
}

/* Move the last plugin of the list to *AT.  */
static void move_last_to(struct sg_session *s, struct sg_plugin **at)
{
	struct sg_plugin **last = &s->plugins;
	while ((*last)->next)
		last = &(*last)->next;
	if (last == at)
		return;
	struct sg_plugin *p = *last;
	*last = NULL;
	p->next = *at;
	*at = p;
}

/* Load the pending plugin P, for WHY (the trace says it); P is freed, and
   the plugin takes its place in the list.  The file is checked again:
   it may have changed since the start.  */
static struct sg_error *load_pending(struct sg_session *s, struct sg_plugin *p, const char *why)
{
	struct lazy *lz = p->state;
	struct sg_plugin **at = &s->plugins;
	while (*at != p)
		at = &(*at)->next;
	*at = p->next;
	struct saved_setting *saved = calloc(lz->m->nsettings + 1, sizeof(*saved));
	size_t nsaved = 0;
	remove_standins(s, p, saved, &nsaved);

	struct sg_error *trust = sg_trust_check(p->path), *err = NULL;
	uint32_t major, minor;
	struct stat st;
	if (trust) {
		err = sg_error_format(SG_ERROR_PLUGIN,
				      "not loading plugin %s: %s (SPYGLASS_SAFE_PATH can trust its folder)",
				      p->path, sg_error_message(trust));
		sg_error_destroy(trust);
	}
	if (!err)
		err = read_abi_note(p->path, &major, &minor, &st, NULL);
	if (!err)
		err = load_file(s, p->path, p->path, &st, major, minor);
	if (!err) {
		move_last_to(s, at);
		for (size_t i = 0; i < s->nsettings; i++)
			for (size_t k = 0; s->settings[i].owner == *at && k < nsaved; k++)
				if (!strcmp(s->settings[i].setting->name, saved[k].name))
					s->settings[i].value = saved[k].value;
	}
	sg_trace("plugins", "%s %s (%s)%s%s", err ? "failed to load" : "loaded", lz->info.name, why,
		 err ? ": " : "", err ? sg_error_message(err) : "");
	free(saved);
	lazy_free(lz);
	free(p->path);
	free(p);
	return err;
}

/* The stand-in of a command: load its plugin, then run the real one.  */
static struct sg_error *standin_run(struct sg_session *s, const char *args, struct sg_out *out,
				    void *arg)
{
	const struct sg_manifest_command *mc = arg;
	char *name = strdup(mc->cmd.name);
	if (!name)
		return &sg_enomem;
	struct sg_error *err = load_pending(s, mc->plugin, name);	/* frees MC */
	for (size_t i = 0; !err && i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (e->cmd->handler && !strcmp(e->cmd->name, name)) {
			sg_command_fn *handler = e->cmd->handler;
			void *harg = e->arg;
			free(name);
			return handler(s, args, out, harg);
		}
	}
	if (!err)
		err = sg_error_format(SG_ERROR_PLUGIN, "the plugin that had \"%s\" has it no more",
				      name);
	free(name);
	return err;
}

static void standin_complete(struct sg_session *s, const char *args, size_t word_start,
			     const char *word, struct sg_completions *c, void *arg)
{
	const struct sg_manifest_command *mc = arg;
	char *name = strdup(mc->cmd.name);
	struct sg_error *err = name ? load_pending(s, mc->plugin, "completion") : &sg_enomem;
	for (size_t i = 0; !err && i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (e->cmd->complete && !strcmp(e->cmd->name, name)) {
			e->cmd->complete(s, args, word_start, word, c, e->arg);
			break;
		}
	}
	sg_error_destroy(err);
	free(name);
}

/* Whether target T needs the plugin whose trigger words are WORDS.  */
static bool triggered(struct sg_session *s, struct sg_target *t, const char *words)
{
	for (const char *w = words; *w;) {
		size_t len = strcspn(w, " ");
		char word[256];
		if (len && len < sizeof(word)) {
			memcpy(word, w, len);
			word[len] = '\0';
			if (!strcmp(word, "target") || (!strcmp(word, "stacks") && !s->no_stacks))
				return true;
			for (size_t i = 0; !strncmp(word, "module=", 7) && i < t->nmodules; i++) {
				const char *name = t->modules[i]->name;
				const char *base = name ? strrchr(name, '/') : NULL;
				if (name && !fnmatch(word + 7, base ? base + 1 : name, 0))
					return true;
			}
			/* In the executable only: a shared library has a name
			   (module=), and each lookup elsewhere would cost the
			   hash of libc's names.  */
			struct sg_symbol sym;
			struct sg_module *exe = !strncmp(word, "symbol=", 7) ? sg_target_exe_module(t)
									      : NULL;
			if (exe && !sg_module_lookup_symbol(t, exe, word + 7, &sym))
				return true;
		}
		w += len;
		w += strspn(w, " ");
	}
	return false;
}

static void ondemand_prepare(struct sg_session *s, struct sg_target *t, void *arg SG_UNUSED)
{
	for (struct sg_plugin *p = s->plugins, *next; p; p = next) {
		next = p->next;
		if (is_pending(p) && triggered(s, t, ((struct lazy *)p->state)->triggers))
			sg_error_destroy(load_pending(s, p, "the target needs it"));
	}
}

static struct sg_error *ondemand_frames(struct sg_session *s SG_UNUSED,
					struct sg_thread *thread SG_UNUSED,
					int (*fn)(const struct sg_runtime_frame *, void *) SG_UNUSED,
					void *fn_arg SG_UNUSED, void *arg SG_UNUSED)
{
	return &sg_not_found;
}

static const struct sg_stack_provider_ops ondemand_ops = {
	.frames = ondemand_frames,
	.prepare = ondemand_prepare,
};

#define ONDEMAND_NAME "plugins-on-demand"

/* The provider's owner, which is in no list: it names the provider in
   "info registries", and removes it once nothing waits.  */
static const struct sg_plugin_info ondemand_info = {
	.abi_major = SG_PLUGIN_ABI_MAJOR,
	.abi_minor = SG_PLUGIN_ABI_MINOR,
	.name = ONDEMAND_NAME,
};

/* The owner of the provider, or NULL if it is not registered.  */
static struct sg_plugin *ondemand_owner(struct sg_session *s)
{
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_STACK_PROVIDER]; i++) {
		const struct sg_handler *h = &s->handlers[SG_REGISTRY_STACK_PROVIDER][i];
		if (h->e.ops == &ondemand_ops)
			return h->owner;
	}
	return NULL;
}

static struct sg_error *need_ondemand(struct sg_session *s)
{
	if (ondemand_owner(s))
		return NULL;
	struct sg_plugin *owner = calloc(1, sizeof(*owner));
	if (!owner)
		return &sg_enomem;
	owner->info = &ondemand_info;
	owner->path = (char *)"(on demand)";
	struct sg_plugin *loading = s->loading;
	s->loading = owner;
	struct sg_error *err = sg_stack_provider_register(s, ONDEMAND_NAME, &ondemand_ops, NULL);
	s->loading = loading;
	if (err)
		free(owner);
	return err;
}

/* Remove the provider, when no plugin waits (or at the end).  Not from
   its own prepare: the registry is walking its list then.  */
static void drop_ondemand(struct sg_session *s, bool always)
{
	for (const struct sg_plugin *p = s->plugins; p && !always; p = p->next)
		if (is_pending(p))
			return;
	struct sg_plugin *owner = ondemand_owner(s);
	if (!owner)
		return;
	sg_registry_remove_owner(s, owner);
	free(owner);
}

/* Register P's stand-ins from its manifest.  */
static struct sg_error *add_standins(struct sg_session *s, struct sg_plugin *p)
{
	struct lazy *lz = p->state;
	struct sg_error *err = NULL;
	s->loading = p;
	for (size_t i = 0; !err && i < lz->m->ncmds; i++) {
		struct sg_manifest_command *mc = &lz->m->cmds[i];
		mc->plugin = p;
		mc->cmd.handler = mc->has & 1 ? standin_run : NULL;
		mc->cmd.complete = mc->has & 2 ? standin_complete : NULL;
		err = sg_command_register(s, &mc->cmd, mc);
	}
	for (size_t i = 0; !err && i < lz->m->nsettings; i++)
		err = sg_setting_register(s, &lz->m->settings[i]);
	s->loading = NULL;
	return err;
}

/* Make P, the pending record of the plugin at REAL with manifest M (taken
   over, also on error) and *TRIGGERS (taken), and its stand-ins.  */
static struct sg_error *defer(struct sg_session *s, const char *real, const struct stat *st,
			      uint32_t major, uint32_t minor, struct sg_manifest *m,
			      char **triggers)
{
	struct lazy *lz = calloc(1, sizeof(*lz));
	struct sg_plugin *p = calloc(1, sizeof(*p));
	if (!lz || !p || !(p->path = strdup(real))) {
		free(lz);
		free(p);
		sg_manifest_free(m);
		return &sg_enomem;
	}
	lz->m = m;
	lz->triggers = *triggers;
	*triggers = NULL;
	lz->info = (struct sg_plugin_info){
		.abi_major = major, .abi_minor = minor, .name = m->name, .version = m->version,
		.description = m->description,
	};
	p->info = &lz->info;
	p->state = lz;
	p->dev = st->st_dev;
	p->ino = st->st_ino;
	struct sg_error *err = add_standins(s, p);
	if (!err && *lz->triggers)
		err = need_ondemand(s);
	if (err) {
		remove_standins(s, p, NULL, NULL);
		*triggers = lz->triggers;	/* the caller's again */
		lz->triggers = NULL;
		lazy_free(lz);
		free(p->path);
		free(p);
		return err;
	}
	struct sg_plugin **tail = &s->plugins;
	while (*tail)
		tail = &(*tail)->next;
	*tail = p;
	sg_trace("plugins", "deferred %s (%s)", m->name, lz->triggers);
	return NULL;
}

/* Load the plugin at REAL (found as PATH) later, when TRIGGERS or one of
   its commands call for it, if the cache knows what it registers; else
   now, keeping that for the next run.  */
static struct sg_error *load_lazily(struct sg_session *s, const char *path, const char *real,
				    const struct stat *st, uint32_t major, uint32_t minor,
				    char **triggers)
{
	struct sg_manifest *m = major == SG_PLUGIN_ABI_MAJOR && minor <= SG_PLUGIN_ABI_MINOR
		? sg_manifest_load(st) : NULL;
	for (struct sg_plugin *q = s->plugins; m && q; q = q->next)
		if (!strcmp(q->info->name, m->name)) {
			sg_manifest_free(m);	/* let load_file say so */
			m = NULL;
		}
	struct sg_error *err = m ? defer(s, real, st, major, minor, m, triggers) : NULL;
	if (!m || err) {
		/* No manifest, or one whose stand-ins cannot be registered (a
		   name taken since): load it now and keep what it does.  */
		sg_error_destroy(err);
		err = load_file(s, path, real, st, major, minor);
		if (!err) {
			struct sg_plugin *last = s->plugins;
			while (last->next)
				last = last->next;
			sg_manifest_store(s, last, st);
			sg_trace("plugins", "loaded %s (to learn its commands)", last->info->name);
		}
	}
	return err;
}

static struct sg_error *load_path(struct sg_session *s, const char *path)
{
	uint32_t major, minor;
	struct stat st;
	struct sg_error *err = read_abi_note(path, &major, &minor, &st, NULL);
	if (err)
		return err;
	char real[PATH_MAX];
	if (!realpath(path, real))
		return sg_error_os(errno, "cannot load plugin %s", path);
	/* The file is loaded already (the default folder also named by
	   --plugin or SPYGLASS_PLUGIN_PATH): what was asked for is done, once
	   a plugin waiting to be needed is loaded.  */
	struct sg_plugin *known = loaded_from(s, real, &st);
	if (known)
		return is_pending(known) ? load_pending(s, known, "plugin load") : NULL;
	return load_file(s, path, real, &st, major, minor);
}

struct sg_error *sg_plugin_add_static(struct sg_session *s, const struct sg_plugin_info *info)
{
	return add_plugin(s, info, NULL, info->name, "(linked in)", NULL);
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

static struct sg_error *untrusted(const char *path, const struct sg_error *why)
{
	return sg_error_format(SG_ERROR_PLUGIN,
			       "not loading plugin %s: %s (SPYGLASS_SAFE_PATH can trust its folder)",
			       path, sg_error_message(why));
}

/* PATH, found in a folder, by its real path: checked and loaded.  */
static struct sg_error *load_untrusted(struct sg_session *s, const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	if (realpath(path, real) && stat(real, &st) == 0 && loaded_from(s, real, &st))
		return NULL;
	struct sg_error *trust = sg_trust_check(path);
	if (!trust)
		return load_path(s, path);
	struct sg_error *err = untrusted(path, trust);
	sg_error_destroy(trust);
	return err;
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
	/* The folder is resolved, and it and those above it are checked,
	   once: a file in it that is not a link has a real path of
	   REAL_DIR/NAME.  */
	char *real_dir = realpath(d, NULL);
	struct sg_error *folder_err = NULL;
	bool folder_checked = false;
	for (size_t i = 0; i < n; i++) {
		char *real = NULL;
		struct stat st;
		const char *base = strrchr(names[i], '/') + 1;
		if (!real_dir || asprintf(&real, "%s/%s", real_dir, base) < 0)
			real = NULL;
		if (real && (lstat(real, &st) != 0 || !S_ISREG(st.st_mode))) {
			free(real);	/* a link, or gone: the long way */
			real = NULL;
		}
		struct sg_error *err = NULL;
		if (!real) {
			err = load_untrusted(s, names[i]);
		} else if (loaded_from(s, real, &st)) {
			/* The same folder twice in the search path (or a
			   link to a loaded file) finds the same plugin
			   again: it is loaded, so there is nothing to say.  */
		} else {
			/* Found, not asked for: load only what nobody else
			   could have put there.  */
			struct sg_error *trust = NULL;
			const struct sg_error *why = NULL;
			if (!sg_trust_in_safe_path(real)) {
				if (!(why = trust = sg_trust_file(&st)) && !folder_checked) {
					folder_err = sg_trust_folders(real_dir);
					folder_checked = true;
				}
				why = why ? why : folder_err;
			}
			if (why) {
				err = untrusted(names[i], why);
				sg_error_destroy(trust);
			} else {
				uint32_t major, minor;
				struct stat now;
				char *triggers = NULL;
				err = read_abi_note(real, &major, &minor, &now, &triggers);
				if (!err && triggers && lazy_enabled())
					err = load_lazily(s, names[i], real, &now, major, minor,
							  &triggers);
				else if (!err)
					err = load_file(s, names[i], real, &now, major, minor);
				free(triggers);
			}
		}
		if (err && report)
			report(err, arg);
		sg_error_destroy(err);
		free(real);
		free(names[i]);
	}
	sg_error_destroy(folder_err);
	free(real_dir);
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

static void load_all_pending(struct sg_session *s,
			     void (*report)(const struct sg_error *err, void *arg), void *arg)
{
	for (struct sg_plugin *p = s->plugins, *next; p; p = next) {
		next = p->next;
		if (!is_pending(p))
			continue;
		struct sg_error *err = load_pending(s, p, "all asked for");
		if (err && report)
			report(err, arg);
		sg_error_destroy(err);
	}
	drop_ondemand(s, false);
}

void sg_plugin_list(struct sg_session *s, struct sg_out *out)
{
	/* What each registers is what the list says.  */
	load_all_pending(s, NULL, NULL);
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
	drop_ondemand(s, true);
	/* Newest first: a plugin may use what an older one registered.  */
	while (s->plugins) {
		struct sg_plugin **last = &s->plugins;
		while ((*last)->next)
			last = &(*last)->next;
		struct sg_plugin *p = *last;
		*last = NULL;
		if (is_pending(p)) {
			remove_standins(s, p, NULL, NULL);
			lazy_free(p->state);
			free(p->path);
			free(p);
			continue;
		}
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
