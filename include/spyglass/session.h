/* The session: what a spyglass run holds.

   A session owns the registries (commands, settings, unwinders, typed
   readers, stack providers), the loaded plugins and at most one target.
   It is not thread-safe: use one session from one thread.  */
#ifndef SPYGLASS_SESSION_H
#define SPYGLASS_SESSION_H

#include <spyglass/common.h>
#include <sys/types.h>

SG_BEGIN_DECLS

SG_PUBLIC struct sg_error *sg_session_create(struct sg_session **ret) SG_NONNULL(1);
/* Detach from the target, unload plugins (calling their fini), free all.
   NULL is ignored.  */
SG_PUBLIC void sg_session_destroy(struct sg_session *session);
/* ABI 1.5.  For a program about to exit: release the target as
   sg_session_destroy() does (a live process is detached and runs on, the
   copies of compressed debug files are stored) but free nothing.  Freeing
   a session that has read libc's DWARF takes a millisecond the exit does
   for free.  SESSION must not be used afterwards, except to destroy it.  */
SG_PUBLIC void sg_session_end(struct sg_session *session);

/* Attach to the live process PID: every thread is seized and stopped, so
   what follows sees one consistent snapshot.  Replaces (detaches) any current
   target.  Errors name the cause: no such process, permission denied
   (ptrace_scope / CAP_SYS_PTRACE), already traced by another process.  */
SG_PUBLIC struct sg_error *sg_session_attach(struct sg_session *session, pid_t pid);
/* A name that commands will look up, as a variable and/or a type
   ("g_map", "struct passwd"): the next attach finds it in the DWARF before
   it stops the target, so that the lookup does not lengthen the pause.
   Copied; the attach forgets the hints.  */
enum sg_name_kind { SG_NAME_VARIABLE = 1 << 0, SG_NAME_TYPE = 1 << 1 };
SG_PUBLIC struct sg_error *sg_session_hint_name(struct sg_session *session, const char *name,
						unsigned kinds);
/* The commands to come will not unwind native stacks (py-bt, info
   threads): the next attach skips warming up the unwinders' caches before
   the stop, which costs milliseconds a run.  The attach forgets it.  */
SG_PUBLIC void sg_session_hint_no_stacks(struct sg_session *session);
/* ABI 1.9.  The stacks will be read from a snapshot (sg_session_snapshot)
   taken after the next attach, before anything unwinds them: no unwind
   happens while the target is stopped, so the attach does not warm up the
   unwinders' caches before the stop (a walk of every stack, read live).
   The next attach or core forgets it, as it does the other hints.  */
SG_PUBLIC void sg_session_hint_snapshot(struct sg_session *session);
/* ABI 1.5.  Stop, copy, resume: copy what walking the stopped process's
   stacks needs (each thread's registers; its stack in use, from the stack
   pointer up, at most STACK_BYTES (0: 8 MiB); the pages read so far during
   the stop) and let the process run.  Commands then read the copy as they read a core: memory it lacks,
   except read-only file mappings (code, constants), is an error that says
   "not in the snapshot".  A live target only, once.  */
SG_PUBLIC struct sg_error *sg_session_snapshot(struct sg_session *session, size_t stack_bytes);
/* Whether TARGET is a snapshot; *BYTES (may be NULL) the bytes copied.  */
SG_PUBLIC bool sg_target_is_snapshot(const struct sg_target *target, size_t *bytes);
/* Detach from the current target and let it run.  Returns an error if there
   is no target.  */
SG_PUBLIC struct sg_error *sg_session_detach(struct sg_session *session);

/* How long the last detached target was stopped, in nanoseconds, from the
   first thread stop to the detach.  */
SG_PUBLIC uint64_t sg_session_last_paused_ns(struct sg_session *session);

/* The current target, or NULL.  */
SG_PUBLIC struct sg_target *sg_session_target(struct sg_session *session);
/* The current target, or an SG_ERROR_TARGET error "no target: use attach PID".  */
SG_PUBLIC struct sg_error *sg_session_need_target(struct sg_session *session,
						  struct sg_target **ret);

/* The selected thread (gdb's "thread N"), or NULL when there is no target.  */
SG_PUBLIC struct sg_thread *sg_session_thread(struct sg_session *session);
SG_PUBLIC struct sg_error *sg_session_select_thread(struct sg_session *session,
						    struct sg_thread *thread);

/* For a shell waiting for a command: whether the live target died since
   the last command.  Its threads are zombies that only spyglass may reap
   (its parent cannot reap it until then): they are reaped now.  The
   target stays, for the error lines of the commands that follow.  */
SG_PUBLIC bool sg_session_target_died(struct sg_session *session);

/* Async-signal-safe: detach every thread of the current target with raw
   system calls and nothing else.  For fatal signal handlers.  */
SG_PUBLIC void sg_session_emergency_detach(struct sg_session *session);

/* Settings ("set print elements 100"), registered by the core and plugins. */
enum sg_setting_type {
	SG_SETTING_UINT,	/* 0 or "unlimited" means no limit */
	SG_SETTING_BOOL,	/* on/off */
	SG_SETTING_ENUM,	/* one of CHOICES */
};

struct sg_setting {
	const char *name;		/* "print elements" */
	enum sg_setting_type type;
	const char *const *choices;	/* SG_SETTING_ENUM: NULL-terminated */
	const char *default_value;	/* as typed: "200", "on", "text" */
	const char *doc;		/* one line: "Limit on array elements to print" */
};

/* Register SETTING (borrowed) with its default value.  */
SG_PUBLIC struct sg_error *sg_setting_register(struct sg_session *session,
					       const struct sg_setting *setting);
/* Set NAME (words may be abbreviated) to VALUE, checked against the type.  */
SG_PUBLIC struct sg_error *sg_setting_set(struct sg_session *session, const char *name_and_value);
/* The value as a number: UINT (UINT64_MAX for unlimited), BOOL 0/1, ENUM index.
   NAME must be exact.  Returns DEFAULT_VALUE if NAME is not registered.  */
SG_PUBLIC uint64_t sg_setting_uint(struct sg_session *session, const char *name,
				   uint64_t default_value);
/* Call FN for each setting whose name starts with PREFIX words.  */
SG_PUBLIC struct sg_error *sg_setting_show(struct sg_session *session, const char *prefix,
					   struct sg_out *out);

/* The folder where spyglass keeps what later runs can reuse (debug files,
   a plugin's resolved layouts), as a new string the caller frees:
   $SPYGLASS_CACHE_DIR, else $XDG_CACHE_HOME/spyglass, else
   ~/.cache/spyglass.  NULL when SPYGLASS_DEBUG_CACHE is 0 or off, when
   none of those variables is set, or without memory.  It may not exist
   yet.  */
SG_PUBLIC char *sg_cache_dir(void);

/* The plugin folder of the install.  */
SG_PUBLIC const char *sg_plugin_dir(void);

/* ---- Run control (lib/runctl.c) ---- */

/* The process-wide interrupt flag: Ctrl-C at the prompt.  A shell's
   SIGINT handler calls sg_interrupt_request() (async-signal-safe); from
   then on, until sg_interrupt_clear(), every read of target memory
   fails with sg_interrupt_error()'s "Quit", as do sg_target_exited()
   and sg_target_interrupted(), so that a long command stops with one
   line.  sg_session_continue() takes it as the order to stop the
   running target, and clears it.  The shell clears it before each
   command.  */
SG_PUBLIC void sg_interrupt_request(void);
SG_PUBLIC bool sg_interrupt_pending(void);
SG_PUBLIC void sg_interrupt_clear(void);
/* A new "Quit" error (SG_ERROR_OTHER), as gdb words an interrupted
   command.  */
SG_PUBLIC struct sg_error *sg_interrupt_error(void) SG_RETURNS_NONNULL;
/* Whether ERR (may be NULL) is such an error.  */
SG_PUBLIC bool sg_error_is_interrupt(const struct sg_error *err);

/* Why sg_session_continue() returned.  */
enum sg_run_stop {
	SG_RUN_INTERRUPTED,	/* the interrupt flag: every thread stopped */
	SG_RUN_SIGNAL,		/* a signal stopped it, as gdb's stops do */
	SG_RUN_EXITED,		/* the process exited (EXIT_CODE) */
	SG_RUN_SIGNALED,	/* the process was killed by SIGNAL */
};
struct sg_run_event {
	enum sg_run_stop kind;
	pid_t pid;
	/* SG_RUN_SIGNAL: the thread that received SIGNAL (delivered when
	   the target is resumed or detached, except SIGINT and SIGTRAP);
	   SG_RUN_INTERRUPTED: 0, and SIGNAL is SIGINT.  */
	pid_t tid;
	int signal;
	int exit_code;		/* SG_RUN_EXITED */
};
/* Resume every thread of the stopped live target and wait until it
   stops again: at an interrupt (sg_interrupt_request), or when a thread
   receives a signal that gdb stops for (not SIGALRM, SIGCHLD, SIGWINCH,
   SIGPROF, SIGVTALRM, SIGURG, SIGIO, glibc's 32 and 33, which pass
   through), or when the process exits.  Stopped, the target's threads
   are read again (new ones at the end, exited ones gone) and the thread
   to show is selected (the signal's; for an interrupt, the one SIGINT
   would reach).  Exited, the target is dropped: the session has none.
   Nothing is written into the process.  *RET says which.  Errors: no
   live target ("The program is not being run."), a snapshot.  */
SG_PUBLIC struct sg_error *sg_session_continue(struct sg_session *session,
					       struct sg_run_event *ret) SG_NONNULL(1, 2);
/* Kill the live target with SIGKILL, reap it and drop it; *PID_RET is
   its process ID.  A target that had exited already is dropped with
   the error that says how it ended.  */
SG_PUBLIC struct sg_error *sg_session_kill(struct sg_session *session, pid_t *pid_ret)
	SG_NONNULL(1, 2);
/* How the last process sg_session_continue() saw end did (gdb's
   $_exitcode and $_exitsignal): false before one has.  *CODE is its exit
   status, -1 when a signal killed it; *SIGNAL that signal, 0 when it
   exited.  */
SG_PUBLIC bool sg_session_exit_status(struct sg_session *session, int *code, int *signal)
	SG_NONNULL(1, 2, 3);

SG_END_DECLS

#endif
