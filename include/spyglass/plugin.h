/* Writing a plugin.

   A plugin is a shared object that defines exactly one descriptor with
   SG_PLUGIN_DEFINE.  The macro also emits an ELF note (.note.spyglass)
   holding the ABI version, which the loader reads with libelf before it
   dlopen()s the file, so a plugin built for another ABI is refused before
   any of its code (even a constructor) runs.

   init registers the plugin's commands, unwinders, readers and stack
   providers, and may return state that fini receives.  A plugin keeps no
   global mutable state: everything lives in that state, or in the ARG
   given to each registration.  */
#ifndef SPYGLASS_PLUGIN_H
#define SPYGLASS_PLUGIN_H

#include <spyglass/common.h>
#include <spyglass/error.h>

SG_BEGIN_DECLS

/* A plugin built for ABI major M loads only into a spyglass of major M and a
   minor at least as new as the plugin's.  Structs handed to plugins only grow
   at the end, and the minor counts those additions.  Ops tables that plugins
   hand to the core grow the same way; the core reads a member added in
   minor N only from plugins built for N or later.
   1.1: sg_stack_provider_ops.prepare, .forget and .is_eval;
	sg_runtime_frame.entry; sg_registry_entry.abi_minor;
	sg_module_lookup_symbol(), sg_cache_dir(), sg_command_flags(),
	sg_session_hint_no_stacks(), sg_array_push(), sg_now_ns(); the command flag
	SG_CMD_NO_STACKS.
   1.2: sg_layout_resolve_table(), sg_trust_check(), sg_target_exited(),
	sg_target_exe_module().
   1.3: sg_reader_ops.deref, sg_value_deref(); type printers:
	SG_REGISTRY_TYPE_PRINTER, sg_type_printer_register(),
	sg_type_printer_name().
   1.4: core files (core.h): sg_session_open_core(), sg_core_info(),
	sg_core_write(), sg_session_set_sysroot(),
	sg_session_set_solib_search_path().
   1.5: sg_target_set_data(), sg_target_get_data(), sg_session_end(),
	sg_session_snapshot(), sg_target_is_snapshot().
   1.6: sg_stack_provider_ops.snapshot_prepare, sg_target_snapshot_keep();
	the command flags SG_CMD_SNAPSHOT_OK and SG_CMD_SNAPSHOT_ARGS,
	sg_command_set_snapshot_check(), sg_command_snapshot_ok();
	SG_PLUGIN_TRIGGERS (plugins loaded on demand).
   1.7: sg_reader_ops.method, sg_value_method() (container shortcuts).
   1.8: the value engine (eval.h): sg_eval(), sg_value_format(),
	sg_value_format_json(), sg_value_type_name(), sg_frame_variables();
	the symbol search (lookup.h): sg_lookup_symbols(); registers and
	files (core.h): sg_thread_xregs(), sg_module_sections(),
	sg_module_entry(), sg_core_sections(),
	sg_target_link_map_modules(); run control (session.h, target.h):
	sg_session_continue(), sg_session_kill(), sg_interrupt_*(),
	sg_target_interrupted().
   1.9: sg_session_hint_snapshot().  */
#define SG_PLUGIN_ABI_MAJOR 1
#define SG_PLUGIN_ABI_MINOR 9

/* The ELF note: owner "spyglass", type 1, descriptor {major, minor} as two
   32-bit words.  */
#define SG_PLUGIN_NOTE_NAME "spyglass"
#define SG_PLUGIN_NOTE_TYPE 1

/* Loading on demand (ABI 1.6).  A plugin in the plugin folders that says
   when it is needed, with SG_PLUGIN_TRIGGERS("WORD ..."), is not
   dlopen()ed at start-up once spyglass has seen it: its commands and
   settings are known from the cache (doc/plugins.md), and it is loaded
   when one of them is used, or when a target comes that needs it:
     stacks          a target whose native stacks will be unwound
     target          any target
     module=GLOB     a target with a module whose file name matches GLOB
     symbol=NAME     a target that defines the symbol NAME
   The words go into a note of type SG_PLUGIN_NOTE_TRIGGERS, read before
   any dlopen().  A plugin without the note is loaded at start-up.  */
#define SG_PLUGIN_NOTE_TRIGGERS 2

#define SG_PLUGIN_TRIGGERS(WORDS)						\
	__asm__(".pushsection .note.spyglass,\"a\",@note\n"			\
		".balign 4\n"							\
		".long 9\n"							\
		".long 2f - 1f\n"						\
		".long " SG_PLUGIN_STR(SG_PLUGIN_NOTE_TRIGGERS) "\n"		\
		".asciz \"" SG_PLUGIN_NOTE_NAME "\"\n"				\
		".balign 4\n"							\
		"1: .asciz \"" WORDS "\"\n"					\
		"2: .balign 4\n"						\
		".popsection\n")

struct sg_plugin_info {
	uint32_t abi_major;
	uint32_t abi_minor;
	const char *name;		/* unique, e.g. "libstdcxx" */
	const char *version;		/* the plugin's own version */
	const char *description;	/* one line */
	/* Register handlers.  *STATE_RET (initially NULL) is passed to fini.
	   On error, everything registered so far is removed again and the
	   plugin is unloaded.  */
	struct sg_error *(*init)(struct sg_session *session, void **state_ret);
	/* May be NULL.  Called before unloading, after the plugin's handlers
	   are unregistered.  */
	void (*fini)(struct sg_session *session, void *state);
};

#define SG_PLUGIN_STR_(x) #x
#define SG_PLUGIN_STR(x) SG_PLUGIN_STR_(x)

#define SG_PLUGIN_ABI_NOTE(major, minor)					\
	__asm__(".pushsection .note.spyglass,\"a\",@note\n"			\
		".balign 4\n"							\
		".long 9\n"		/* namesz: "spyglass\0" */		\
		".long 8\n"		/* descsz */				\
		".long " SG_PLUGIN_STR(SG_PLUGIN_NOTE_TYPE) "\n"		\
		".asciz \"" SG_PLUGIN_NOTE_NAME "\"\n"				\
		".balign 4\n"							\
		".long " SG_PLUGIN_STR(major) "\n"				\
		".long " SG_PLUGIN_STR(minor) "\n"				\
		".popsection\n")

/* Define the plugin's descriptor and ABI note.  Use once per plugin.  */
#define SG_PLUGIN_DEFINE(NAME, VERSION, DESCRIPTION, INIT, FINI)		\
	SG_PLUGIN_ABI_NOTE(SG_PLUGIN_ABI_MAJOR, SG_PLUGIN_ABI_MINOR);		\
	SG_BEGIN_DECLS								\
	__attribute__((visibility("default")))					\
	extern const struct sg_plugin_info sg_plugin_info;			\
	SG_END_DECLS								\
	const struct sg_plugin_info sg_plugin_info = {				\
		.abi_major = SG_PLUGIN_ABI_MAJOR,				\
		.abi_minor = SG_PLUGIN_ABI_MINOR,				\
		.name = NAME,							\
		.version = VERSION,						\
		.description = DESCRIPTION,					\
		.init = INIT,							\
		.fini = FINI,							\
	}

/* Load the plugin at PATH.  A name without '/' is looked for in the
   install's plugin folder and the folders of SPYGLASS_PLUGIN_PATH, with or
   without ".so".  */
SG_PUBLIC struct sg_error *sg_plugin_load(struct sg_session *session, const char *path);

/* Whether the file at PATH is safe to load or run with our privileges:
   NULL if it is, else an error saying why not ("writable by everyone",
   "in /srv/x, owned by alice, neither root nor you").  Trusted is
   a file owned by root or by the effective user and not writable by
   everyone, in folders that are each owned by root or the user and not
   writable by everyone unless sticky (/tmp); or any file under a folder
   of SPYGLASS_SAFE_PATH (colon separated).  A PATH that cannot be
   resolved passes: opening it will fail on its own.  */
SG_PUBLIC struct sg_error *sg_trust_check(const char *path);

/* Load every *.so in the install's plugin folder, then in each folder of
   SPYGLASS_PLUGIN_PATH (colon separated).  Errors of single plugins are
   passed to REPORT (may be NULL) and do not stop the others.  A plugin
   that sg_trust_check() refuses is not loaded (its error is reported).  */
SG_PUBLIC void sg_plugin_load_defaults(struct sg_session *session,
				       void (*report)(const struct sg_error *err, void *arg),
				       void *arg);

/* Describe the loaded plugins to OUT (text or JSON).  */
SG_PUBLIC void sg_plugin_list(struct sg_session *session, struct sg_out *out);

SG_END_DECLS

#endif
