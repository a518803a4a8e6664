/* Registries of handlers that plugins provide: unwinders, typed readers,
   stack providers and type printers.

   Each entry has a unique name, an ops table and an ARG passed back to every
   callback.  Entries are kept in priority order (lower runs first); a
   handler that has nothing to say returns &sg_not_found so that the next one
   tries.  Entries registered by a plugin are removed when it is unloaded, and
   ops->destroy (may be NULL) is then called with ARG.  */
#ifndef SPYGLASS_REGISTRY_H
#define SPYGLASS_REGISTRY_H

#include <spyglass/common.h>
#include <spyglass/target.h>
#include <elfutils/libdw.h>

SG_BEGIN_DECLS

enum sg_registry_kind {
	SG_REGISTRY_UNWINDER,
	SG_REGISTRY_READER,
	SG_REGISTRY_STACK_PROVIDER,
	SG_REGISTRY_TYPE_PRINTER,	/* ABI 1.3 */
	SG_REGISTRY_NKINDS
};

/* ---- Unwinders ------------------------------------------------------- */

/* A frame as unwinders see it.  */
struct sg_unwind_frame {
	struct sg_regs regs;
	/* The pc is exact: the innermost frame, or a frame interrupted by a
	   signal.  Otherwise pc is a return address, and lookups use pc - 1
	   (the call instruction).  */
	bool activation;
};

struct sg_unwinder_ops {
	/* Compute the caller of CALLEE into *CALLER (written only on
	   success).  Return NULL on success, &sg_not_found when this unwinder
	   has no information for CALLEE's pc, &sg_stop when CALLEE is the
	   outermost frame, any other error to end the walk with a reason.
	   Reads go through TARGET only, so the unwinder works on live
	   processes and cores alike.  */
	struct sg_error *(*step)(struct sg_target *target, const struct sg_unwind_frame *callee,
				 struct sg_unwind_frame *caller, void *arg);
	/* Forget cached data about TARGET (called when it is detached, or
	   when an attach fails after the unwinders were warmed up; TARGET may
	   then be freed already: use it as a key only).  May be NULL.  */
	void (*forget)(struct sg_target *target, void *arg);
	void (*destroy)(void *arg);	/* may be NULL */
};

SG_PUBLIC struct sg_error *sg_unwinder_register(struct sg_session *session, const char *name,
						int priority, const struct sg_unwinder_ops *ops,
						void *arg);

/* ---- Typed readers --------------------------------------------------- */

struct sg_value;

enum sg_display_hint {
	SG_HINT_NONE,		/* a struct-like value with named children */
	SG_HINT_ARRAY,		/* children are elements */
	SG_HINT_MAP,		/* children alternate key, value */
	SG_HINT_STRING,		/* the summary is the whole value */
};

struct sg_reader_ops {
	/* Does this reader handle VALUE?  Called only for values whose type
	   name matches the registered pattern; may be NULL (always).  */
	bool (*match)(struct sg_session *session, const struct sg_value *value, void *arg);
	/* The one-line summary ("std::vector of length 3, capacity 4"), into
	   a new string *RET.  May be NULL.  */
	struct sg_error *(*summary)(struct sg_session *session, const struct sg_value *value,
				    char **ret, void *arg);
	/* Call FN for each child, at most LIMIT of them.  FN returns SG_CB_OK
	   or SG_CB_ABORT.  May be NULL (no children).  */
	struct sg_error *(*children)(struct sg_session *session, const struct sg_value *value,
				     size_t limit,
				     int (*fn)(const char *name, struct sg_value *child, void *fn_arg),
				     void *fn_arg, void *arg);
	enum sg_display_hint hint;
	void (*destroy)(void *arg);	/* may be NULL */
	/* String-like readers: the bytes themselves, at most MAX, into a new
	   NUL-terminated buffer *RET of *LEN_RET bytes (which may hold NULs).
	   May be NULL.  */
	struct sg_error *(*bytes)(struct sg_session *session, const struct sg_value *value,
				  size_t max, char **ret, size_t *len_ret, void *arg);
	/* ABI 1.3.  Iterator-like readers: the object VALUE refers to, as a
	   new value *RET, for "*it" and "it->member" (what gdb's xmethods
	   answer).  &sg_not_found when VALUE refers to nothing (an end
	   iterator).  May be NULL.  */
	struct sg_error *(*deref)(struct sg_session *session, const struct sg_value *value,
				  struct sg_value **ret, void *arg);
	/* ABI 1.7.  Container shortcuts, what gdb's libstdc++ xmethods
	   answer: the result of member function NAME ("size", "at", "get",
	   "use_count", "value") or operator "[]" on VALUE, with NARGS
	   arguments ARGS (an index or a key), as a new value *RET (a scalar
	   result through sg_value_scalar).  &sg_not_found for a name the
	   reader does not know: the library then answers what it can from
	   the children (sg_value_method).  May be NULL.  */
	struct sg_error *(*method)(struct sg_session *session, const struct sg_value *value,
				   const char *name, struct sg_value *const *args, size_t nargs,
				   struct sg_value **ret, void *arg);
};

/* PATTERN is a type name where a trailing "<*>" stands for any template
   arguments ("std::vector<*>").  */
SG_PUBLIC struct sg_error *sg_reader_register(struct sg_session *session, const char *name,
					      const char *pattern, const struct sg_reader_ops *ops,
					      void *arg);

/* Readers for other plugins: the reader of VALUE's type (the first whose
   pattern matches its qualified name and whose match accepts it), or
   NULL.  The entry is borrowed from the session.  */
SG_PUBLIC const struct sg_registry_entry *sg_reader_lookup(struct sg_session *session,
							   const struct sg_value *value);
/* VALUE through its reader: the summary ("std::vector of length 3,
   capacity 4"); each child, at most LIMIT; a string's bytes, at most MAX
   ("give me this std::string as bytes").  Without a reader that can, an
   SG_ERROR_LOOKUP error naming the type.  */
SG_PUBLIC struct sg_error *sg_value_summary(struct sg_session *session,
					    const struct sg_value *value, char **ret);
SG_PUBLIC struct sg_error *sg_value_children(struct sg_session *session,
					     const struct sg_value *value, size_t limit,
					     int (*fn)(const char *name, struct sg_value *child,
						       void *fn_arg),
					     void *fn_arg);
SG_PUBLIC struct sg_error *sg_value_bytes(struct sg_session *session, const struct sg_value *value,
					  size_t max, char **ret, size_t *len_ret);
/* ABI 1.3.  The object an iterator-like VALUE refers to, through its
   reader's deref.  */
SG_PUBLIC struct sg_error *sg_value_deref(struct sg_session *session, const struct sg_value *value,
					  struct sg_value **ret);

/* ABI 1.7.  Member function NAME (or operator "[]") of VALUE, with
   NARGS arguments: the reader's method op, else from the reader's
   children: "[]" (an index, or a map's key), "size", "empty", "front",
   "back", "at" (an index, checked), and NAME when a child is named
   "NAME()" (std::unique_ptr's "get()").  &sg_not_found when neither
   knows NAME for VALUE.  */
SG_PUBLIC struct sg_error *sg_value_method(struct sg_session *session, const struct sg_value *value,
					   const char *name, struct sg_value *const *args, size_t nargs,
					   struct sg_value **ret);

/* Around a reader's call of another reader's ops directly (a container
   handing its element to the element's reader): enter fails with an
   SG_ERROR_BAD_DATA error past 32 nested readers, which a value that
   contains itself would otherwise turn into a stack overflow.  The
   functions above, and print, do this themselves.  */
SG_PUBLIC struct sg_error *sg_reader_enter(struct sg_session *session);
SG_PUBLIC void sg_reader_leave(struct sg_session *session);

/* ---- Stack providers ------------------------------------------------- */

/* One runtime frame (a Python function, a Zeek script function).  Strings
   are borrowed for the duration of the callback.  */
struct sg_runtime_frame {
	const char *function;
	const char *file;	/* or NULL */
	int line;		/* or 0 */
	/* The native frame (stack pointer) this runtime frame runs in, for
	   merging with the native stack; 0 when unknown.  */
	uint64_t native_sp;
	/* ABI 1.1.  The frame was entered from native code: walking from
	   the innermost frame, each native frame for which the provider's
	   is_eval says true runs the runtime frames up to and including the
	   next entry frame.  A runtime with one native frame per runtime
	   frame marks every frame.  */
	bool entry;
};

struct sg_stack_provider_ops {
	/* Walk THREAD's runtime frames, innermost first.  Return &sg_not_found
	   when the thread does not run this runtime.  */
	struct sg_error *(*frames)(struct sg_session *session, struct sg_thread *thread,
				   int (*fn)(const struct sg_runtime_frame *frame, void *fn_arg),
				   void *fn_arg, void *arg);
	void (*destroy)(void *arg);	/* may be NULL */
	/* ABI 1.1.  Before TARGET is stopped (spyglass -p, attach): find
	   what frames() will need (symbols, layouts, the runtime's version),
	   so that while the target is stopped only the runtime's own data is
	   read.  Memory read here is read from a running process: keep what
	   cannot change, or what may be slightly stale without harm (the
	   cpython plugin keeps thread names).  May be NULL.  */
	void (*prepare)(struct sg_session *session, struct sg_target *target, void *arg);
	/* ABI 1.1.  Forget cached data about TARGET (called when it is
	   detached, or when an attach fails after prepare; TARGET may then
	   be freed already: use it as a key only).  May be NULL.  */
	void (*forget)(struct sg_target *target, void *arg);
	/* ABI 1.1.  Is the native function FUNCTION (as bt names it) the
	   runtime's interpreter loop, whose frames merged stacks replace by
	   the runtime frames they run?  May be NULL.  */
	bool (*is_eval)(const char *function, void *arg);
	/* ABI 1.6.  TARGET is stopped and a snapshot of it is being taken
	   (sg_session_snapshot(), doc/snapshot.md): read now everything the
	   provider's commands and frames() will read once the process runs
	   on, such as each thread's runtime frames, code objects and line
	   tables.  Every read through TARGET meanwhile is kept in the
	   snapshot (sg_target_snapshot_keep() keeps more).  May be NULL:
	   frames() is then walked for every thread, its frames dropped.  */
	void (*snapshot_prepare)(struct sg_session *session, struct sg_target *target, void *arg);
};

SG_PUBLIC struct sg_error *sg_stack_provider_register(struct sg_session *session,
						      const char *name,
						      const struct sg_stack_provider_ops *ops,
						      void *arg);

/* ABI 1.6.  While a snapshot of TARGET is taken (from snapshot_prepare):
   copy the SIZE bytes at ADDRESS into it, for a region the provider will
   need but has not read yet.  What snapshot_prepare reads is kept anyway.
   The copies a snapshot keeps this way are bounded (16 MiB in all): past
   that, and for memory that cannot be read, an error, and the reads will
   fail later with "not in the snapshot".  Outside snapshot_prepare, does
   nothing.  */
SG_PUBLIC struct sg_error *sg_target_snapshot_keep(struct sg_target *target, uint64_t address,
						   size_t size);

/* ---- Type printers (ABI 1.3) ---------------------------------------

   gdb's type printers: the names a library gives its types
   ("std::string" for std::__cxx11::basic_string<char,
   std::char_traits<char>, std::allocator<char> >, "std::vector<int>"
   without its default allocator).  whatis and ptype ask them for every
   named type they write, and for the types a name's template arguments
   spell ("holder<std::string>"); as in gdb, print's value types do not.
   Entries run in registration order; the first answer wins.  */

struct sg_type_printer_ops {
	/* TYPE's name (TYPE is a DIE of TARGET's modules, as declared:
	   typedefs and qualifiers are not stripped) into a new string *RET,
	   or &sg_not_found when this printer does not recognise it.  */
	struct sg_error *(*name)(struct sg_session *session, struct sg_target *target,
				 const Dwarf_Die *type, char **ret, void *arg);
	void (*destroy)(void *arg);	/* may be NULL */
};

SG_PUBLIC struct sg_error *sg_type_printer_register(struct sg_session *session, const char *name,
						    const struct sg_type_printer_ops *ops,
						    void *arg);

/* TYPE's name by the first type printer that recognises it, into a new
   string *RET; &sg_not_found when none does.  Printers that name a
   template's arguments ask this for each.  Nesting is bounded (an
   SG_ERROR_BAD_DATA error past 32, as for readers).  */
SG_PUBLIC struct sg_error *sg_type_printer_name(struct sg_session *session,
						struct sg_target *target, const Dwarf_Die *type,
						char **ret);

/* ---- Walking a registry --------------------------------------------- */

struct sg_registry_entry {
	const char *name;
	const char *pattern;	/* readers only, else NULL */
	int priority;
	const void *ops;	/* the kind's ops struct */
	void *arg;
	const char *plugin;	/* the registering plugin's name, or NULL for the core */
	/* The ABI minor the registering plugin was built for (the core's
	   own for the core): members of OPS added in later minors are not
	   there.  */
	uint32_t abi_minor;
};

/* Call FN for each entry of KIND in priority order.  */
SG_PUBLIC void sg_registry_foreach(struct sg_session *session, enum sg_registry_kind kind,
				   int (*fn)(const struct sg_registry_entry *entry, void *arg),
				   void *arg);

/* "unwinder", "reader", "stack provider", "type printer".  */
SG_PUBLIC const char *sg_registry_kind_name(enum sg_registry_kind kind);

SG_END_DECLS

#endif
