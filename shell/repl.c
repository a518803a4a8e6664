/* The interactive prompt: readline, history in ~/.spyglass_history (or
   $SPYGLASS_HISTORY), completion from the command table, and gdb's
   repeat of the last command on an empty line.  */
#include <config.h>
#include "shell.h"
#include "compat.h"
#include "complete.h"

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <readline/history.h>
#include <readline/readline.h>

static struct shell *repl_shell;
static sigjmp_buf prompt_jmp;
static volatile sig_atomic_t at_prompt;

/* Ctrl-C at the prompt drops the line, as in gdb; during a command it
   raises the library's interrupt flag: a command reading memory stops
   with "Quit", and continue stops the target (lib/runctl.c).  */
static void on_sigint(int sig)
{
	if (at_prompt)
		siglongjmp(prompt_jmp, 1);
	sg_interrupt_request();
}

struct candidates {
	char **v;
	size_t n, cap;
};

static void add_candidate(const char *c, void *arg)
{
	struct candidates *cs = arg;
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i], c))
			return;
	if (cs->n + 1 >= cs->cap) {
		size_t ncap = cs->cap ? cs->cap * 2 : 16;
		char **v = realloc(cs->v, ncap * sizeof(*v));
		if (!v)
			return;
		cs->v = v;
		cs->cap = ncap;
	}
	char *copy = strdup(c);
	if (copy)
		cs->v[cs->n++] = copy;
}

static struct candidates current;
static size_t next_candidate;
/* The word break hook computed CURRENT for this completion.  */
static bool current_ready;

static char *generator(const char *text, int state)
{
	if (next_candidate < current.n)
		return strdup(current.v[next_candidate++]);
	return NULL;
}

/* The candidates for the line up to the cursor, and what the completer
   said of them (lib/complete.h).  */
static void collect(void)
{
	for (size_t i = 0; i < current.n; i++)
		free(current.v[i]);
	current.n = 0;
	next_candidate = 0;
	sg_complete_hints_reset();
	/* The completer walks DWARF and reads memory: Ctrl-C during it must
	   not jump out of libdw or malloc, so it raises the interrupt flag
	   (reads fail, the candidates stop) and the prompt stays.  */
	at_prompt = 0;
	sg_command_complete(repl_shell->session, rl_line_buffer, rl_point, add_candidate, &current);
	sg_interrupt_clear();
	at_prompt = 1;
}

/* Readline's word is what the candidates replace.  For most commands it
   is the blank-delimited word; an expression's candidates replace only
   its last identifier (the "g_" of "&g_", the "ne" of "p->ne"), as in
   gdb: the character before that identifier breaks words too.  */
static char *word_breaks(void)
{
	static char breaks[8];
	collect();
	current_ready = true;
	strcpy(breaks, " \t\n");
	size_t skip = sg_complete_word_skip();
	if (skip) {
		size_t ws = rl_point;
		while (ws > 0 && !strchr(" \t\n", rl_line_buffer[ws - 1]))
			ws--;
		if (ws + skip <= (size_t)rl_point && ws + skip > 0)
			breaks[3] = rl_line_buffer[ws + skip - 1];
	}
	return breaks;
}

static char **complete(const char *text, int start, int end)
{
	if (!current_ready)
		collect();
	current_ready = false;
	rl_attempted_completion_over = 1;	/* no file-name fallback */
	/* File names: readline lists their base names and ends a
	   directory with "/", as gdb's file name completer does.  */
	rl_filename_completion_desired = sg_complete_wants_filenames();
	return rl_completion_matches(text, generator);
}

/* The history file: "set history filename", whose default is
   $SPYGLASS_HISTORY, else ~/.spyglass_history; NULL for none.  */
static char *history_path(void)
{
	const char *f = compat_history_file();
	return f && *f ? strdup(f) : NULL;
}

/* Called ten times a second while readline waits for a key.  */
static int idle_hook(void)
{
	/* A dead target's detach must not be jumped out of either.  */
	at_prompt = 0;
	sg_session_target_died(repl_shell->session);
	at_prompt = 1;
	return 0;
}

void shell_repl(struct shell *sh)
{
	repl_shell = sh;
	rl_readline_name = "spyglass";
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t\n";
	rl_completion_word_break_hook = word_breaks;
	rl_catch_signals = 0;
	rl_event_hook = idle_hook;
	char *hist = history_path();
	using_history();
	long size = compat_history_size();
	if (size >= 0)
		stifle_history(size < INT32_MAX ? (int)size : INT32_MAX);
	if (hist)
		read_history(hist);

	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);

	/* What an empty line runs again: the last command, as gdb does,
	   unless it is one gdb does not repeat (compat_repeat_line).  Only
	   here: an empty line in a file or a pipe does nothing.  */
	char *repeat = NULL;
	while (!sh->quit) {
		if (sigsetjmp(prompt_jmp, 1)) {
			rl_free_line_state();
			rl_cleanup_after_signal();
			rl_reset_after_signal();
			fputs("\nQuit\n", stdout);
			/* gdb forgets the command to repeat at a Ctrl-C too.  */
			free(repeat);
			repeat = NULL;
		}
		/* While logging, the prompt and what is typed go to the
		   terminal only.  */
		compat_logging_sync();
		rl_outstream = compat_logging_terminal();
		at_prompt = 1;
		char *line = readline("(spyglass) ");
		at_prompt = 0;
		if (!line) {
			fputs("quit\n", rl_outstream);
			break;
		}
		const char *p = line + strspn(line, " \t");
		if (!*p) {
			if (repeat)
				shell_run_line(sh, repeat, NULL);
			free(line);
			continue;
		}
		HIST_ENTRY *last = history_length ? history_get(history_base + history_length - 1) : NULL;
		if (!last || strcmp(last->line, line))
			add_history(line);
		shell_run_line(sh, line, NULL);
		free(repeat);
		repeat = *p == '#' ? NULL : compat_repeat_line(sh, line);
		free(line);
	}
	free(repeat);
	/* "set history" at the prompt counts too.  */
	free(hist);
	hist = history_path();
	if (hist && compat_history_save()) {
		long keep = compat_history_size();
		if (keep >= 0)
			stifle_history(keep < INT32_MAX ? (int)keep : INT32_MAX);
		write_history(hist);
	}
	free(hist);
	for (size_t i = 0; i < current.n; i++)
		free(current.v[i]);
	free(current.v);
	sigaction(SIGINT, &old, NULL);
}
