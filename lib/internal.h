/* libspyglass internals shared between lib/ files.  Not installed.  */
#ifndef SG_INTERNAL_H
#define SG_INTERNAL_H

#include <spyglass/spyglass.h>

#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#define SG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Cleanup helpers in the style of libdrgn's cleanup.h.  */
static inline void sg_freep(void *p) { free(*(void **)p); }
#define _cleanup_free_ __attribute__((cleanup(sg_freep)))

/* ---- growable byte buffer (strbuf.c) ---- */
struct sg_buf {
	char *data;
	size_t len, cap;
	bool failed;		/* an allocation failed; contents are truncated */
};
void sg_buf_init(struct sg_buf *b);
void sg_buf_deinit(struct sg_buf *b);
void sg_buf_reset(struct sg_buf *b);
void sg_buf_append(struct sg_buf *b, const void *data, size_t len);
void sg_buf_puts(struct sg_buf *b, const char *s);
void sg_buf_putc(struct sg_buf *b, char c);
void sg_buf_printf(struct sg_buf *b, const char *fmt, ...) SG_PRINTF(2, 3);
void sg_buf_vprintf(struct sg_buf *b, const char *fmt, va_list ap) SG_PRINTF(2, 0);
/* Append S as a JSON string literal, quotes included.  */
void sg_buf_json_string(struct sg_buf *b, const char *s, size_t len);
/* Hand the NUL-terminated contents to the caller; B is left empty.  */
char *sg_buf_steal(struct sg_buf *b);


/* ---- threads and targets (target.c, target-ptrace.c) ---- */
struct sg_thread {
	pid_t tid;
	char name[32];
	char state;
	size_t index;
	struct sg_regs regs;
	int pending_signal;	/* a signal caught by the stop, re-sent at detach */
	bool seized;
	bool auto_attached;	/* traced through PTRACE_O_TRACECLONE */
	bool stopped;		/* its attach stop was waited for */
};

struct sg_target_ops {
	struct sg_error *(*read)(struct sg_target *target, uint64_t address, void *buf,
				 size_t size);
	bool (*alive)(struct sg_target *target);
	/* Release the process; must not fail.  */
	void (*detach)(struct sg_target *target);
	void (*emergency_detach)(struct sg_target *target);
};

/* symtab.c */
struct sg_symtab;
struct sg_symtab_entry {
	uint64_t addr, size;
	const char *name;	/* raw, in the ELF string table */
	Elf *elf;
	uint32_t shndx;
	uint32_t index;		/* in the symbol table */
	uint8_t type, bind;
};
void sg_symtab_destroy(struct sg_symtab *st);
struct sg_symnames;
void sg_symnames_destroy(struct sg_symnames *sn);
/* MOD's address index, built on first use.  */
struct sg_error *sg_module_symtab(struct sg_module *mod, const struct sg_symtab **ret);
/* The symbol covering ADDR, or NULL.  */
const struct sg_symtab_entry *sg_symtab_lookup(const struct sg_symtab *st, uint64_t addr);

/* FNV-1a of the N bytes at S: the string map's and the symbol name
   hash's.  */
static inline uint32_t sg_hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* ---- string-keyed map of uint32_t (typeindex.c) ---- */
struct sg_strmap_slot {
	const char *key;	/* borrowed: the caller keeps it alive */
	uint32_t hash, value;
};
struct sg_strmap {
	struct sg_strmap_slot *slots;
	size_t cap, n;
};
/* The value of KEY, or UINT32_MAX.  */
uint32_t sg_strmap_get(const struct sg_strmap *m, const char *key);
/* Add KEY (not already there); false on allocation failure.  */
bool sg_strmap_put(struct sg_strmap *m, const char *key, uint32_t value);
void sg_strmap_deinit(struct sg_strmap *m);

/* ---- the lazy name index of a module's DWARF (typeindex.c) ---- */
struct sg_name_index;
/* A named type or variable at a unit's top level or in a namespace.  */
struct sg_name_entry {
	Dwarf_Off off;		/* the DIE */
	uint32_t scope;		/* see sg_name_index_scope() */
	uint32_t next;		/* private */
	uint16_t tag;
	uint8_t flags;
};
#define SG_NAME_DECLARATION 1	/* DW_AT_declaration */
#define SG_NAME_LOCATION 2	/* DW_AT_location */
struct sg_name_index_stats {
	size_t units_scanned, units_raw, entries, names;
	bool complete;
};
struct sg_module;
/* MOD's index, created empty on first use; &sg_not_found without DWARF.  */
struct sg_error *sg_module_name_index(struct sg_module *mod, struct sg_name_index **ret);
/* An index of DW's names, for a module or (the fuzz target) any Dwarf.  */
struct sg_error *sg_name_index_create(Dwarf *dw, Dwarf_Addr bias, struct sg_name_index **ret);
void sg_name_index_destroy(struct sg_name_index *idx);
Dwarf *sg_name_index_dwarf(const struct sg_name_index *idx, Dwarf_Addr *bias_ret);
/* The entries called NAME (the last component of a qualified name), in
   DWARF order, indexing more units as needed.  *CURSOR is 0 for the first
   call.  False when there are no more.  */
bool sg_name_index_next(struct sg_name_index *idx, const char *name, uint32_t *cursor,
			struct sg_name_entry *ret);
/* The qualified namespace of an entry: "" (global), "ns", "a::b".  */
const char *sg_name_index_scope(const struct sg_name_index *idx, uint32_t scope);
/* The entry of the DIE at OFF, if it is indexed.  */
bool sg_name_index_at(struct sg_name_index *idx, Dwarf_Off off, struct sg_name_entry *ret);
/* The variable DIE that defines the declaration at DECL through
   DW_AT_specification (static members), or 0.  */
Dwarf_Off sg_name_index_definition(struct sg_name_index *idx, Dwarf_Off decl);
void sg_name_index_scan_all(struct sg_name_index *idx);
void sg_name_index_stats(const struct sg_name_index *idx, struct sg_name_index_stats *ret);

struct sg_module {
	Dwfl_Module *dwmod;
	struct sg_symtab *symtab;
	struct sg_symnames *symnames;	/* symbol.c: raw names, for lookups by name */
	struct sg_name_index *names;	/* typeindex.c */
	const char *name;
	uint64_t start, end;
	char *build_id;
	char *link_name;	/* the name in the link_map, when it differs */
	int dwarf_state;	/* 0 unknown, 1 has DWARF, -1 none */
	const char *debug_file;
};

struct sg_demangle_cache;

/* A direct-mapped cache of target pages, valid while the target is
   stopped (target.c).  */
#define SG_PAGE_SIZE 4096
#define SG_PAGE_CACHE_SLOTS 256
/* A slot's page when it holds none: no page is at an odd address.  */
#define SG_PAGE_EMPTY 1
struct sg_cached_page {
	uint64_t page;
	unsigned char *data;
	/* PAGE cannot be read whole (the stack's lowest page in a
	   snapshot, a mapping's end): its reads go straight to the target,
	   without trying the whole page again each time.  */
	bool partial;
};
struct sg_page_cache {
	struct sg_cached_page slots[SG_PAGE_CACHE_SLOTS];
};
/* Empty every slot, keeping the buffers for the next reads.  */
void sg_page_cache_clear(struct sg_page_cache *cache);
void sg_page_cache_destroy(struct sg_page_cache *cache);
struct sg_reader_cache;
void sg_reader_cache_destroy(struct sg_reader_cache *cache);
struct sg_frame_cache;
struct sg_tailcall_cache;
struct sg_lookup_cache;
void sg_lookup_cache_destroy(struct sg_lookup_cache *cache);

struct sg_target {
	enum sg_target_kind kind;
	const struct sg_target_ops *ops;
	pid_t pid;
	char *exe;
	struct sg_thread *threads;
	size_t nthreads, threads_cap;

	Dwfl *dwfl;
	struct sg_module **modules;	/* address order */
	size_t nmodules;

	struct sg_demangle_cache *demangled;
	struct sg_frame_cache *frame_cache;	/* frame.c */
	struct sg_tailcall_cache *tailcalls;	/* tailcall.c */
	struct sg_lookup_cache *lookups;	/* dwlookup.c */
	struct sg_member_cache *members;	/* value.c */
	struct sg_reader_cache *readers;	/* registry.c */
	struct sg_target_data {	/* sg_target_set_data */
		const void *key;
		void *data;
		void (*destroy)(void *data);
	} *data;
	size_t ndata, data_cap;
	struct sg_page_cache *pages;
	char *maps;		/* /proc/PID/maps when the modules were reported */
	struct sg_mapping *mappings;	/* parsed from MAPS, by address */
	size_t nmappings;
	bool mappings_parsed;
	char *maps_lines;	/* a copy of MAPS that the mappings' paths point into */

	/* Keep uncompressed copies of the debug files used, at the end
	   (sg_debug_cache_store): a process's or a core's, not a fuzz
	   target's memory.  */
	bool cache_debug;
	bool ended;		/* sg_target_end() has run */

	/* live */
	int mem_fd;
	bool no_vm_readv;
	bool gone;		/* the process exited while attached */
	struct sg_target_stats stats;
	/* sg_target_overlay_push: values answered from the shell's bytes.  */
	struct sg_overlay {
		uint64_t address;
		size_t size;
		const unsigned char *data, *known;
	} overlays[SG_TARGET_OVERLAYS];
	unsigned noverlays;
	int gone_status;
	uint64_t stop_start_ns, stop_end_ns;
	struct sg_snapshot *snapshot;	/* snapshot.c: the copy reads come from */
};

/* table.c: the caches' open-addressing hash tables.  */
struct sg_table {
	void *slots;
	size_t n, cap;		/* cap is 0 or a power of two */
};
struct sg_table_type {
	size_t entry_size;
	size_t min_cap;		/* a power of two */
	bool (*used)(const void *entry);
	uint64_t (*hash)(const void *entry);
};
/* The used entry EQ matches with KEY, probing from HASH; with INSERT
   instead the free slot where it belongs, already counted, which the
   caller makes used at once.  NULL when absent or out of memory.  */
void *sg_table_find(struct sg_table *t, const struct sg_table_type *type, uint64_t hash,
		    bool (*eq)(const void *entry, const void *key), const void *key, bool insert);
/* A 64-bit mix (MurmurHash3's finaliser).  */
uint64_t sg_hash64(uint64_t x);

/* value.c: members and template arguments found per type DIE.  */
void sg_member_cache_destroy(struct sg_member_cache *cache);

/* Attach to PID.  PREWARM (may be NULL) runs with ARG after the modules are
   reported and before any thread is stopped.  */
struct sg_error *sg_ptrace_attach(pid_t pid, void (*prewarm)(struct sg_target *t, void *arg),
				  void *arg, struct sg_target **ret);
/* command.c: remove the command called NAME ("plugin load"); false if
   there is none.  The fuzz targets take away what reaches outside.  */
bool sg_command_unregister(struct sg_session *session, const char *name);
/* plugin.c: the ABI note of a plugin's ELF (PATH names it in errors).  */
struct sg_error *sg_plugin_read_note(Elf *elf, const char *path, uint32_t *major,
				     uint32_t *minor);
/* Add a plugin linked into the program (the fuzz targets).  */
struct sg_error *sg_plugin_add_static(struct sg_session *session,
				      const struct sg_plugin_info *info);

/* target.c: a dwfl_getmodules callback adding each module to the
   sg_target ARG (whose modules array has room), and their order.  */
int sg_target_collect_module(Dwfl_Module *dwmod, void **userdata, const char *name,
			     Dwarf_Addr start, void *arg);
int sg_module_cmp(const void *a, const void *b);
/* A dwfl_getmodules callback adding one to the size_t ARG.  */
int sg_count_module(Dwfl_Module *m, void **u, const char *n, Dwarf_Addr s, void *arg);
/* target-memory.c: a target made of ELF files at chosen addresses (the
   first is the executable) and READ for everything else; one thread with
   REGS (may be NULL).  */
typedef struct sg_error *sg_memory_read_fn(void *arg, uint64_t address, void *buf, size_t size);
struct sg_memory_module {
	const char *path;
	uint64_t base;		/* the load bias of an ET_DYN file */
};
struct sg_error *sg_memory_target_create(const struct sg_memory_module *mods, size_t n,
					 sg_memory_read_fn *read, void *arg,
					 const struct sg_regs *regs, struct sg_target **ret);
/* target-core.c: a target of the core file PATH; EXE (may be NULL)
   replaces the executable the core names; SYSROOT and SOLIB_PATH (may
   be NULL) say where the files it names are.  */
struct sg_error *sg_core_target_open(const char *path, const char *exe, const char *sysroot,
				     const char *solib_path, struct sg_target **ret);
/* What READ returns has changed: drop what was read before.  */
void sg_target_memory_changed(struct sg_target *target);
/* session.c: make TARGET the session's, dropping the current one.  */
void sg_session_set_target(struct sg_session *session, struct sg_target *target);
/* The target's memory changed: forget the stacks and what handlers keep.  */
void sg_session_memory_changed(struct sg_session *session);

/* Release the target (detach, free).  NULL is ignored.  */
void sg_target_destroy(struct sg_target *target);
/* snapshot.c: copy what a walk of the stopped TARGET's stacks needs (the
   top STACK_BYTES of each thread's stack, the pages read so far), then
   let the process run and read from the copy.  */
struct sg_error *sg_target_snapshot(struct sg_target *target, size_t stack_bytes);
/* mapping.c: the index in TARGET->mappings of the mapping holding ADDR,
   or -1 (the mappings are parsed on first use).  */
long sg_target_mapping_index(struct sg_target *target, uint64_t addr);
/* Let TARGET go (detach a live process) and store what is stored at the
   end, freeing nothing; sg_target_destroy() may follow.  */
void sg_target_end(struct sg_target *target);
/* Report modules to libdwfl, once.  */
struct sg_error *sg_target_load_modules(struct sg_target *target);
/* debuginfo.c */
int sg_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);
/* Keep uncompressed copies of the compressed debug files TARGET used.  */
void sg_debug_cache_store(struct sg_target *target);
/* The pc and stack pointer of thread TID of PID from /proc, without
   stopping it; false when it is not in a system call.  */
bool sg_task_pc_sp(pid_t pid, const char *tid, uint64_t *pc, uint64_t *sp);

/* Name modules as the dynamic linker's link_map does (linkmap.c).  */
void sg_target_link_map_names(struct sg_target *target);
/* The address of MOD's node in the dynamic linker's link_map, or 0.  */
uint64_t sg_link_map_of(struct sg_target *target, struct sg_module *mod);
/* Report the modules again if /proc/PID/maps changed since they were.  */
struct sg_error *sg_target_refresh_modules(struct sg_target *target);
/* The "process exited" error, with its status.  */
struct sg_error *sg_target_gone_error(struct sg_target *target);

/* symbol.c */
void sg_demangle_cache_destroy(struct sg_demangle_cache *cache);
const char *sg_demangle_cached(struct sg_target *target, const char *raw);
/* Demangled without parameters ("ns::f"); RAW itself if not mangled.  */
const char *sg_demangle_base_cached(struct sg_target *target, const char *raw);

/* tailcall.c: append the tail-call frames between a frame whose function
   starts at CALLEE_ENTRY and its caller, which returns to CALLER_PC.  */
struct sg_error *sg_frame_tailcalls(struct sg_target *t, uint64_t callee_entry, uint64_t caller_pc,
				    struct sg_frame **frames, size_t *nframes, size_t *cap,
				    size_t physical, const struct sg_regs *regs);

void sg_tailcall_cache_destroy(struct sg_tailcall_cache *cache);

/* unwind.c: the entry values of stack ST's frames already worked out
   (tailcall.c), FOUND or not with BUDGET callers left to follow.  */
bool sg_stack_memo_get(const struct sg_stack *st, size_t level, unsigned reg, int budget,
		       bool *found, uint64_t *value);
void sg_stack_memo_put(const struct sg_stack *st, size_t level, unsigned reg, int budget,
		       bool found, uint64_t value);

/* frame.c */
void sg_frame_cache_destroy(struct sg_frame_cache *cache);
/* Append the logical frames of physical frame UF to *FRAMES.  */
struct sg_error *sg_frame_describe(struct sg_target *t, const struct sg_unwind_frame *uf,
				   bool tramp, const char *unwinder, size_t physical,
				   struct sg_frame **frames, size_t *nframes, size_t *cap);
/* The CU DIE around target address ADDR in MOD, and the DWARF's bias,
   also where there is no .debug_aranges (clang).  */
Dwarf_Die *sg_frame_cudie(struct sg_target *t, struct sg_module *mod, uint64_t addr,
			  Dwarf_Addr *bias);
/* The chain of scopes at ADDR in CUDIE, innermost first, also inside
   namespaces and classes; 0 when no function has code there.  */
int sg_frame_scopes(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Die **scopes);
/* The innermost DW_TAG_subprogram of N SCOPES (gdb's block_linkage_function:
   not an inlined call), -1 if none.  */
int sg_scopes_subprogram(const Dwarf_Die *scopes, int n);
/* The concrete subprogram around the call that returns to RETURN_PC,
   from the caller frame's description.  */
bool sg_frame_caller_subprogram(struct sg_target *t, uint64_t return_pc, Dwarf_Die *ret);
/* A subprogram, an inlined call or an entry point.  */
bool sg_die_is_function(Dwarf_Die *die);

/* DWARF registers 0-16 (the general registers and the return address)
   are numbered as ours; 17 on are the vector and x87 registers, which
   sg_regs has not.  */
#define SG_DWARF_NGPRS 17

/* sg_dwarf_location_eval, with UNIT an attribute of the unit OPS come
   from (NULL: none): DW_OP_addrx and DW_OP_constx index its .debug_addr
   (DWARF 5, clang's default).  */
struct sg_error *sg_dwarf_location_eval_unit(const Dwarf_Op *ops, size_t nops,
					     const struct sg_dwarf_expr_ctx *ctx, uint64_t bias,
					     Dwarf_Attribute *unit, sg_dwarf_entry_fn *entry,
					     void *entry_arg, struct sg_dwarf_location *ret);
/* The same, where DW_OP_form_tls_address finds MODULE's thread-local
   storage in THREAD (tls.c).  */
struct sg_dwarf_tls {
	struct sg_target *target;
	const struct sg_thread *thread;
	struct sg_module *module;
};
struct sg_error *sg_dwarf_location_eval_tls(const Dwarf_Op *ops, size_t nops,
					    const struct sg_dwarf_expr_ctx *ctx, uint64_t bias,
					    Dwarf_Attribute *unit, sg_dwarf_entry_fn *entry,
					    void *entry_arg, const struct sg_dwarf_tls *tls,
					    struct sg_dwarf_location *ret);
/* Where the thread-local variable at OFFSET in MOD's TLS block lives in
   THREAD (tls.c).  */
struct sg_error *sg_tls_address(struct sg_target *target, const struct sg_thread *thread,
				struct sg_module *mod, uint64_t offset, uint64_t *ret);

/* ---- registries (registry.c) ---- */
struct sg_plugin;

struct sg_handler {
	struct sg_registry_entry e;
	char *name_copy, *pattern_copy;
	struct sg_plugin *owner;
};

struct sg_command_entry {
	const struct sg_command *cmd;
	void *arg;
	struct sg_plugin *owner;
	char **words;		/* the name split into words */
	size_t nwords;
};

struct sg_setting_entry {
	const struct sg_setting *setting;
	char **words;
	size_t nwords;
	uint64_t value;		/* see sg_setting_uint() */
	struct sg_plugin *owner;
};

struct sg_plugin {
	struct sg_plugin *next;
	void *handle;
	const struct sg_plugin_info *info;
	char *path;
	dev_t dev;		/* of the file, to know it under another name */
	ino_t ino;
	void *state;
};

/* trust.c: sg_trust_check() in parts, for a folder of plugins, whose
   folders are checked once.  Whether REAL (a resolved path) is in one of
   SPYGLASS_SAFE_PATH's folders; the checks of a file whose status is ST;
   those of the folder REAL and the folders above it.  */
struct stat;
bool sg_trust_in_safe_path(const char *real);
struct sg_error *sg_trust_file(const struct stat *st);
struct sg_error *sg_trust_folders(const char *real);

struct sg_session {
	struct sg_target *target;
	/* How the last process continue ran ended: $_exitcode (-1 when a
	   signal killed it) and $_exitsignal (0 when it exited).  */
	bool exit_known;
	int exit_code, exit_signal;
	bool had_target;		/* a target was dropped: gdb's "No stack." */
	size_t thread;			/* selected thread index */
	uint64_t last_paused_ns;
	int exec_depth;			/* nesting of sg_command_execute */
	int reader_depth;		/* readers calling readers (sg_reader_enter) */

	struct sg_command_entry *cmds;
	size_t ncmds, cmds_cap;

	struct sg_setting_entry *settings;
	size_t nsettings, settings_cap;

	struct sg_handler *handlers[SG_REGISTRY_NKINDS];
	size_t nhandlers[SG_REGISTRY_NKINDS], handlers_cap[SG_REGISTRY_NKINDS];
	/* Counts changes to the registries: remembered reader lookups
	   (sg_reader_cache) are for one generation.  */
	uint64_t registry_generation;

	struct sg_stack *stack;		/* the selected thread's, once unwound */
	size_t frame;			/* the selected frame */

	/* Names the next attach looks up before it stops the target
	   (sg_session_hint_name).  */
	struct sg_name_hint { char *name; unsigned kinds; } *hints;
	size_t nhints, hints_cap;
	bool no_stacks;			/* sg_session_hint_no_stacks */
	bool snapshot_next;		/* sg_session_hint_snapshot */
	/* The target the last prewarm prepared: an attach that fails after
	   it must make the handlers forget it.  */
	struct sg_target *prewarmed;

	struct sg_plugin *plugins;	/* in load order */
	char *sysroot, *solib_search_path;	/* for cores (core.h) */
	struct sg_plugin *loading;	/* the plugin whose init is running */
};

void sg_registry_remove_owner(struct sg_session *session, struct sg_plugin *owner);
void sg_registry_deinit(struct sg_session *session);
void sg_commands_remove_owner(struct sg_session *session, struct sg_plugin *owner);
void sg_commands_deinit(struct sg_session *session);
void sg_settings_remove_owner(struct sg_session *session, struct sg_plugin *owner);
void sg_settings_deinit(struct sg_session *session);
struct sg_error *sg_settings_register_core(struct sg_session *session);
void sg_plugins_unload_all(struct sg_session *session);
/* Stack providers' prepare, before the target is stopped.  */
void sg_registry_prepare_target(struct sg_session *s, struct sg_target *target);
void sg_registry_forget_target(struct sg_session *session, struct sg_target *target);
void sg_session_forget_stack(struct sg_session *session);
/* Lets go of the zombies of a target that died while attached, keeping
   it for the error lines of the commands that follow.  */
void sg_session_release_gone(struct sg_session *session);
/* Warm the unwind caches of T before the stop (unwind.c); ARG is the
   session.  */
void sg_session_prewarm(struct sg_target *t, void *arg);

/* Split S into blank-separated words (no quoting).  Returns the count, and
   the words in a new array of new strings, or -1 on allocation failure.  */
ssize_t sg_split_words(const char *s, char ***ret);
void sg_free_words(char **words, size_t n);

/* Wrap libdwfl's last error: "WHAT: dwfl message".  */
struct sg_error *sg_error_dwfl(const char *what) SG_RETURNS_NONNULL;

/* target-core.c: the floating-point and vector state of thread INDEX of
   the core target T: its XSAVE area (NT_X86_XSTATE, *XSTATE_RET true),
   else its FXSAVE area (NT_FPREGSET, 512 bytes), into BUF (SIZE bytes at
   most), with the size in *LEN_RET.  &sg_not_found when T is not a core
   or recorded neither.  */
struct sg_error *sg_core_thread_fpstate(const struct sg_target *t, size_t index, void *buf,
					size_t size, size_t *len_ret, bool *xstate_ret);

#endif
