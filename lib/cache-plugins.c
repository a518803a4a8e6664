/* What a plugin registers at the shell's surface, kept in the persistent
   cache so that later runs need not dlopen() it to know it.

   A plugin that declares when it is needed (SG_PLUGIN_TRIGGERS) is loaded
   once, and its commands (names, aliases, help, flags) and settings are
   written to sg_cache_dir()/index/plugin-DEV-INO.plugin, keyed by the
   file's size, mtime and ctime and the core's ABI: plugin.c then
   registers stand-ins from it, and loads the plugin when one is used or
   when a target needs it.  The file is read as untrusted input: every
   string and count is bound-checked.  */
#include <config.h>
#include "cache.h"
#include "cache-plugins.h"

#include <stdio.h>
#include <sys/stat.h>

/* ---- writing ---- */

static void put_u32(struct sg_buf *b, uint32_t v)
{
	sg_buf_append(b, (const char *)&v, sizeof(v));
}

static void put_str(struct sg_buf *b, const char *s)
{
	if (!s) {
		put_u32(b, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	put_u32(b, n);
	sg_buf_append(b, s, n);
}

static bool manifest_id(const struct stat *st, struct sg_cache_id *id)
{
	memset(id, 0, sizeof(*id));
	snprintf(id->hex, sizeof(id->hex), "plugin-%jx-%jx", (uintmax_t)st->st_dev,
		 (uintmax_t)st->st_ino);
	id->key[0] = st->st_size;
	id->key[1] = sg_cache_ns(&st->st_mtim);
	id->key[2] = sg_cache_ns(&st->st_ctim);
	id->key[3] = (uint64_t)SG_PLUGIN_ABI_MAJOR << 32 | SG_PLUGIN_ABI_MINOR;
	return sg_cache_id_dir(id);
}

void sg_manifest_store(struct sg_session *s, const struct sg_plugin *p, const struct stat *st)
{
	struct sg_cache_id id;
	if (!manifest_id(st, &id))
		return;
	struct sg_buf b = { 0 };
	put_str(&b, p->info->name);
	put_str(&b, p->info->version);
	put_str(&b, p->info->description);
	uint32_t n = 0;
	for (size_t i = 0; i < s->ncmds; i++)
		n += s->cmds[i].owner == p;
	put_u32(&b, n);
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sg_command *c = s->cmds[i].cmd;
		if (s->cmds[i].owner != p)
			continue;
		put_str(&b, c->name);
		put_str(&b, c->aliases);
		put_str(&b, c->synopsis);
		put_str(&b, c->summary);
		put_str(&b, c->details);
		put_u32(&b, c->flags);
		put_u32(&b, (c->handler ? 1 : 0) | (c->complete ? 2 : 0));
	}
	n = 0;
	for (size_t i = 0; i < s->nsettings; i++)
		n += s->settings[i].owner == p;
	put_u32(&b, n);
	for (size_t i = 0; i < s->nsettings; i++) {
		const struct sg_setting *set = s->settings[i].setting;
		if (s->settings[i].owner != p)
			continue;
		put_str(&b, set->name);
		put_u32(&b, set->type);
		put_str(&b, set->default_value);
		put_str(&b, set->doc);
		uint32_t nc = 0;
		while (set->choices && set->choices[nc])
			nc++;
		put_u32(&b, nc);
		for (uint32_t k = 0; k < nc; k++)
			put_str(&b, set->choices[k]);
	}
	if (!b.failed) {
		struct iovec part = { b.data, b.len };
		sg_cache_write(&id, SG_CACHE_PLUGIN, &part, 1);
	}
	sg_buf_deinit(&b);
	sg_cache_id_fini(&id);
}

/* ---- reading ---- */

struct reader {
	const char *p, *end;
	bool bad;
};

static uint32_t get_u32(struct reader *r)
{
	uint32_t v = 0;
	if (r->bad || r->end - r->p < 4) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, 4);
	r->p += 4;
	return v;
}

/* A string of the payload, copied; NULL for none or on error.  */
static char *get_str(struct reader *r)
{
	uint32_t n = get_u32(r);
	if (r->bad || n == UINT32_MAX)
		return NULL;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	char *s = strndup(r->p, n);
	r->p += n;
	if (!s || strlen(s) != n)	/* out of memory, or a NUL inside */
		r->bad = true;
	return s;
}

/* A count of items each taking at least MIN bytes, bounded by what is
   left.  */
static uint32_t get_count(struct reader *r, size_t min)
{
	uint32_t n = get_u32(r);
	if (!r->bad && n > (size_t)(r->end - r->p) / min)
		r->bad = true;
	return r->bad ? 0 : n;
}

void sg_manifest_free(struct sg_manifest *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->version);
	free(m->description);
	for (size_t i = 0; i < m->ncmds; i++) {
		struct sg_command *c = &m->cmds[i].cmd;
		free((char *)c->name);
		free((char *)c->aliases);
		free((char *)c->synopsis);
		free((char *)c->summary);
		free((char *)c->details);
	}
	free(m->cmds);
	for (size_t i = 0; i < m->nsettings; i++) {
		struct sg_setting *set = &m->settings[i];
		free((char *)set->name);
		free((char *)set->default_value);
		free((char *)set->doc);
		for (size_t k = 0; set->choices && set->choices[k]; k++)
			free((char *)set->choices[k]);
		free((char **)set->choices);
	}
	free(m->settings);
	free(m);
}

static void read_commands(struct reader *r, struct sg_manifest *m)
{
	uint32_t n = get_count(r, 7 * 4);
	if (n && !(m->cmds = calloc(n, sizeof(*m->cmds))))
		r->bad = true;
	for (uint32_t i = 0; !r->bad && i < n; i++, m->ncmds++) {
		struct sg_command *c = &m->cmds[i].cmd;
		c->name = get_str(r);
		c->aliases = get_str(r);
		c->synopsis = get_str(r);
		c->summary = get_str(r);
		c->details = get_str(r);
		c->flags = get_u32(r);
		m->cmds[i].has = get_u32(r);
		if (!c->name || m->cmds[i].has > 3)
			r->bad = true;
	}
}

static void read_settings(struct reader *r, struct sg_manifest *m)
{
	uint32_t n = get_count(r, 5 * 4);
	if (n && !(m->settings = calloc(n, sizeof(*m->settings))))
		r->bad = true;
	for (uint32_t i = 0; !r->bad && i < n; i++, m->nsettings++) {
		struct sg_setting *set = &m->settings[i];
		set->name = get_str(r);
		uint32_t type = get_u32(r);
		set->default_value = get_str(r);
		set->doc = get_str(r);
		uint32_t nc = get_count(r, 4);
		const char **choices = nc ? calloc(nc + 1, sizeof(*choices)) : NULL;
		set->choices = choices;
		if (nc && !choices)
			r->bad = true;
		for (uint32_t k = 0; !r->bad && k < nc; k++)
			if (!(choices[k] = get_str(r)))
				r->bad = true;
		if (type > SG_SETTING_ENUM || (type == SG_SETTING_ENUM) != (nc > 0) || !set->name ||
		    !set->default_value)
			r->bad = true;
		set->type = type;
	}
}

struct sg_manifest *sg_manifest_load(const struct stat *st)
{
	struct sg_cache_id id;
	if (!manifest_id(st, &id))
		return NULL;
	void *data;
	size_t size;
	bool found = sg_cache_read(&id, SG_CACHE_PLUGIN, &data, &size);
	struct sg_manifest *m = found ? calloc(1, sizeof(*m)) : NULL;
	if (m) {
		struct reader r = { data, (char *)data + size, false };
		m->name = get_str(&r);
		m->version = get_str(&r);
		m->description = get_str(&r);
		if (!m->name)
			r.bad = true;
		read_commands(&r, m);
		read_settings(&r, m);
		if (r.bad || r.p != r.end) {
			sg_trace("cache", "plugin %s: ignored: malformed", id.hex);
			sg_manifest_free(m);
			m = NULL;
		}
	}
	if (found)
		free(data);
	sg_cache_id_fini(&id);
	return m;
}
