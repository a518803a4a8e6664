/* A plugin's commands and settings, kept in the persistent cache
   (cache-plugins.c), for plugins loaded on demand (plugin.c).  */
#ifndef SG_CACHE_PLUGINS_H
#define SG_CACHE_PLUGINS_H

#include "internal.h"

struct stat;

struct sg_manifest {
	char *name, *version, *description;
	struct sg_manifest_command {
		struct sg_command cmd;	/* strings owned; handler unset */
		uint32_t has;		/* 1: a handler, 2: a completer */
		struct sg_plugin *plugin;	/* plugin.c: the stand-in's owner */
	} *cmds;
	size_t ncmds;
	struct sg_setting *settings;	/* strings owned */
	size_t nsettings;
};

/* The manifest of the plugin file whose status is ST, if the cache has
   one for this very file; NULL otherwise.  */
struct sg_manifest *sg_manifest_load(const struct stat *st);
/* Keep what plugin P (loaded from the file whose status is ST)
   registered in S.  */
void sg_manifest_store(struct sg_session *s, const struct sg_plugin *p, const struct stat *st);
void sg_manifest_free(struct sg_manifest *m);

#endif
