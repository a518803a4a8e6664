/* Modules (the executable, shared libraries, the vdso) and their symbols.

   libdwfl is the source of truth: modules are reported from the target and
   symbols, build-ids and debug files come from it.  */
#ifndef SPYGLASS_MODULE_H
#define SPYGLASS_MODULE_H

#include <spyglass/common.h>

SG_BEGIN_DECLS

struct sg_module;

struct sg_module_info {
	const char *name;	/* path as mapped, or "[vdso]" */
	uint64_t start, end;	/* the address range [START, END) */
	uint64_t bias;		/* load bias: runtime address - ELF address */
	const char *build_id;	/* hex string, or NULL */
	const char *file;	/* the ELF file actually opened, or NULL */
};

/* Call FN for each module of TARGET in address order.  FN returns SG_CB_OK
   to go on, SG_CB_ABORT to stop.  */
SG_PUBLIC struct sg_error *sg_target_modules(struct sg_target *target,
					     int (*fn)(struct sg_module *mod, void *arg),
					     void *arg);

/* ABI 1.2.  The executable's module (the one mapped from
   sg_target_exe()), or NULL; among the modules already reported, so call
   it after sg_target_modules() or a symbol lookup.  */
SG_PUBLIC struct sg_module *sg_target_exe_module(struct sg_target *target);

/* The module containing ADDRESS, or NULL.  */
SG_PUBLIC struct sg_module *sg_target_module_at(struct sg_target *target, uint64_t address);

/* Fill *RET with MOD's description.  Strings are borrowed from the module,
   valid until the target is destroyed.  */
SG_PUBLIC void sg_module_info(struct sg_module *mod, struct sg_module_info *ret);

/* Whether MOD has DWARF, loading its debug information (possibly from a
   separate file under /usr/lib/debug) if that was not done yet.  *DEBUG_FILE_RET
   (may be NULL) receives the separate debug file's path, or NULL when the
   DWARF is in the module itself or absent.  */
SG_PUBLIC bool sg_module_has_dwarf(struct sg_module *mod, const char **debug_file_ret);

/* Whether MOD has a symbol table (.symtab or at least .dynsym).  */
SG_PUBLIC bool sg_module_has_symbols(struct sg_module *mod);

/* A symbol found by address.  */
struct sg_symbol {
	const char *name;	/* demangled, without "@VERSION"; borrowed */
	const char *raw_name;	/* as in the symbol table; borrowed */
	uint64_t address;	/* the symbol's runtime start */
	uint64_t size;
	uint64_t offset;	/* the looked-up address minus ADDRESS */
	int kind;		/* STT_FUNC, STT_OBJECT, ... */
	struct sg_module *module;
	const char *section;	/* ".text", or NULL */
};

/* Find the symbol covering ADDRESS.  Returns &sg_not_found if there is none.
   The names in *RET are valid until the next call on TARGET from the same
   thread, or until the target is destroyed.  */
SG_PUBLIC struct sg_error *sg_symbolize(struct sg_target *target, uint64_t address,
					struct sg_symbol *ret);

/* Find a symbol by NAME: a raw (possibly mangled) name, or a demangled
   qualified name with or without its parameter list
   ("zeek::detail::call_stack", "ns::f(int)", "ns::f").  Defined symbols are
   preferred, then the executable, then global binding.  Returns
   &sg_not_found when no module has it.  */
SG_PUBLIC struct sg_error *sg_lookup_symbol(struct sg_target *target, const char *name,
					    struct sg_symbol *ret);

/* The same in MOD only: a plugin that knows where its runtime lives
   need not search every module's symbols.  */
SG_PUBLIC struct sg_error *sg_module_lookup_symbol(struct sg_target *target, struct sg_module *mod,
						   const char *name, struct sg_symbol *ret);

/* Call FN with each defined symbol name (demangled, without parameters) that
   starts with PREFIX, for completion.  Names may repeat.  */
SG_PUBLIC struct sg_error *sg_symbol_names(struct sg_target *target, const char *prefix,
					   int (*fn)(const char *name, void *arg), void *arg);

/* Demangle a C++ symbol name.  Returns a new string the caller frees, or
   NULL if NAME is not mangled.  "@VERSION" suffixes are ignored.  With
   PARAMS the parameter list is included.  */
SG_PUBLIC char *sg_demangle(const char *name, bool params);

SG_END_DECLS

#endif
