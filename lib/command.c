/* The command table: registration, name resolution with gdb-style unique
   prefixes and aliases, execution, help and completion.  */
#include <config.h>
#include "internal.h"

#include <ctype.h>
#include <stdio.h>

struct sg_completions {
	void (*fn)(const char *candidate, void *arg);
	void *arg;
};

void sg_completions_add(struct sg_completions *c, const char *candidate)
{
	c->fn(candidate, c->arg);
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

struct sg_error *sg_command_register(struct sg_session *s, const struct sg_command *cmd, void *arg)
{
	if (!cmd->name || !cmd->name[0])
		return sg_error_create(SG_ERROR_USAGE, "a command needs a name");
	for (const char *p = cmd->name; *p; p++)
		if (!word_char(*p) && *p != ' ')
			return sg_error_format(SG_ERROR_USAGE,
					       "command name \"%s\" has a character other than letters, digits, '-', '_' and spaces",
					       cmd->name);
	char **words;
	ssize_t n = sg_split_words(cmd->name, &words);
	if (n < 0)
		return &sg_enomem;
	for (size_t i = 0; i < s->ncmds; i++) {
		struct sg_command_entry *e = &s->cmds[i];
		if (e->nwords != (size_t)n)
			continue;
		size_t j = 0;
		while (j < e->nwords && !strcmp(e->words[j], words[j]))
			j++;
		if (j == e->nwords) {
			sg_free_words(words, n);
			return sg_error_format(SG_ERROR_PLUGIN, "command \"%s\" is already registered",
					       cmd->name);
		}
	}
	struct sg_command_entry *e = sg_array_push(&s->cmds, &s->ncmds, &s->cmds_cap, sizeof(*e));
	if (!e) {
		sg_free_words(words, n);
		return &sg_enomem;
	}
	e->cmd = cmd;
	e->arg = arg;
	e->owner = s->loading;
	e->words = words;
	e->nwords = n;
	return NULL;
}

/* A row the core copied to give it a snapshot check
   (sg_command_set_snapshot_check); its flags have CMD_CHECKED.  */
struct checked_command {
	struct sg_command cmd;	/* first: the entry points to it */
	sg_command_snapshot_fn *check;
};
#define CMD_CHECKED (1u << 31)

static void entry_free(struct sg_command_entry *e)
{
	sg_free_words(e->words, e->nwords);
	if (e->cmd->flags & CMD_CHECKED)
		free((struct checked_command *)e->cmd);
}

void sg_commands_remove_owner(struct sg_session *s, struct sg_plugin *owner)
{
	size_t n = 0;
	for (size_t i = 0; i < s->ncmds; i++) {
		if (s->cmds[i].owner == owner)
			entry_free(&s->cmds[i]);
		else
			s->cmds[n++] = s->cmds[i];
	}
	s->ncmds = n;
}

bool sg_command_unregister(struct sg_session *s, const char *name)
{
	for (size_t i = 0; i < s->ncmds; i++) {
		if (strcmp(s->cmds[i].cmd->name, name))
			continue;
		entry_free(&s->cmds[i]);
		memmove(&s->cmds[i], &s->cmds[i + 1], (s->ncmds - i - 1) * sizeof(s->cmds[i]));
		s->ncmds--;
		return true;
	}
	return false;
}

void sg_commands_deinit(struct sg_session *s)
{
	for (size_t i = 0; i < s->ncmds; i++)
		entry_free(&s->cmds[i]);
	free(s->cmds);
	s->cmds = NULL;
	s->ncmds = s->cmds_cap = 0;
}

/* Does entry E continue the resolved words PATH[0..DEPTH)?  */
static bool entry_under(const struct sg_command_entry *e, char *const *path, size_t depth)
{
	if (e->nwords <= depth)
		return false;
	for (size_t i = 0; i < depth; i++)
		if (strcmp(e->words[i], path[i]))
			return false;
	return true;
}

static bool alias_matches(const struct sg_command_entry *e, size_t depth, const char *w, size_t len)
{
	if (depth != e->nwords - 1 || !e->cmd->aliases)
		return false;
	for (const char *a = e->cmd->aliases; *a;) {
		while (*a == ' ')
			a++;
		size_t n = strcspn(a, " ");
		if (n && n == len && !strncmp(a, w, len))
			return true;
		a += n;
	}
	return false;
}

enum match { MATCH_NONE, MATCH_ONE, MATCH_AMBIGUOUS };

/* Match the typed word W (LEN bytes) against the words at DEPTH under PATH:
   an exact name or alias wins, else a unique prefix.  *RET is the canonical
   word.  On ambiguity, *RET is one of the candidates and the caller can list
   them.  */
static enum match match_word(struct sg_session *s, char *const *path, size_t depth,
			     const char *w, size_t len, const char **ret)
{
	const char *found = NULL;
	bool ambiguous = false;
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (!entry_under(e, path, depth))
			continue;
		const char *cw = e->words[depth];
		if ((strlen(cw) == len && !strncmp(cw, w, len)) || alias_matches(e, depth, w, len)) {
			*ret = cw;
			return MATCH_ONE;
		}
		if (!strncmp(cw, w, len) && !(e->cmd->flags & SG_CMD_HIDDEN)) {
			if (found && strcmp(found, cw))
				ambiguous = true;
			found = cw;
		}
	}
	*ret = found;
	return ambiguous ? MATCH_AMBIGUOUS : found ? MATCH_ONE : MATCH_NONE;
}

static const struct sg_command_entry *find_exact(struct sg_session *s, char *const *path,
						 size_t depth)
{
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (e->nwords == depth && entry_under(e, path, depth - 1) &&
		    !strcmp(e->words[depth - 1], path[depth - 1]))
			return e;
	}
	return NULL;
}

static void join_path(struct sg_buf *b, char *const *path, size_t depth)
{
	for (size_t i = 0; i < depth; i++) {
		if (i)
			sg_buf_putc(b, ' ');
		sg_buf_puts(b, path[i]);
	}
}

/* The candidates at DEPTH under PATH that start with W, comma separated.  */
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The commands under PATH that W (LEN bytes) abbreviates, sorted, as gdb
   lists them in its "Ambiguous command" error.  */
static void list_candidates(struct sg_session *s, char *const *path, size_t depth, const char *w,
			    size_t len, struct sg_buf *b)
{
	const char **names = calloc(s->ncmds ? s->ncmds : 1, sizeof(*names));
	size_t n = 0;
	if (!names)
		return;
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (!entry_under(e, path, depth) || strncmp(e->words[depth], w, len) ||
		    (e->cmd->flags & SG_CMD_HIDDEN))
			continue;
		const char *cw = e->words[depth];
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], cw);
		if (!seen)
			names[n++] = cw;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sg_buf_puts(b, ", ");
		sg_buf_puts(b, names[i]);
	}
	free(names);
}

#define MAX_DEPTH 8

/* Resolve LINE to the deepest command with a handler.  On success *RET is
   the entry and *ARGS_RET the rest of the line.  *DEPTH_RET and PATH receive
   the words resolved, even on failure.  */
static struct sg_error *resolve(struct sg_session *s, const char *line,
				const struct sg_command_entry **ret, const char **args_ret,
				const char *path[MAX_DEPTH], size_t *depth_ret)
{
	const char *p = line;
	size_t depth = 0;
	const struct sg_command_entry *leaf = NULL;
	const char *leaf_args = NULL;
	size_t leaf_depth = 0;
	*depth_ret = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		const char *w = p;
		while (word_char(*p))
			p++;
		size_t len = p - w;
		if (len == 0 || depth == MAX_DEPTH) {
			p = w;
			break;
		}
		const char *canon;
		enum match m = match_word(s, (char *const *)path, depth, w, len, &canon);
		if (m == MATCH_NONE || (m == MATCH_AMBIGUOUS && leaf && leaf_depth == depth)) {
			p = w;
			break;
		}
		if (m == MATCH_AMBIGUOUS) {
			struct sg_buf b;
			sg_buf_init(&b);
			list_candidates(s, (char *const *)path, depth, w, len, &b);
			struct sg_buf prefix;
			sg_buf_init(&prefix);
			join_path(&prefix, (char *const *)path, depth);
			struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP, "Ambiguous %s%scommand \"%.*s\": %s.",
					      depth ? prefix.data : "", depth ? " " : "", (int)len, w,
					      b.data ? b.data : "");
			sg_buf_deinit(&b);
			sg_buf_deinit(&prefix);
			return err;
		}
		path[depth++] = canon;
		*depth_ret = depth;
		const struct sg_command_entry *e = find_exact(s, (char *const *)path, depth);
		if (e && e->cmd->handler) {
			leaf = e;
			leaf_depth = depth;
			const char *a = p;
			while (isspace((unsigned char)*a))
				a++;
			leaf_args = a;
		}
	}
	if (leaf && leaf_depth == depth) {
		*ret = leaf;
		*args_ret = leaf_args;
		return NULL;
	}
	/* A prefix command such as "info" with a missing or unknown
	   subcommand.  */
	struct sg_buf prefix;
	sg_buf_init(&prefix);
	join_path(&prefix, (char *const *)path, depth);
	struct sg_error *err;
	size_t wlen = 0;
	while (p[wlen] && !isspace((unsigned char)p[wlen]))
		wlen++;
	if (depth == 0)
		err = sg_error_format(SG_ERROR_LOOKUP, "Undefined command: \"%.*s\".  Try \"help\".",
				      (int)wlen, p);
	else if (wlen == 0)
		err = sg_error_format(SG_ERROR_USAGE,
				      "\"%s\" must be followed by the name of a subcommand.  Try \"help %s\".",
				      prefix.data, prefix.data);
	else
		err = sg_error_format(SG_ERROR_LOOKUP,
				      "Undefined %s command: \"%.*s\".  Try \"help %s\".",
				      prefix.data, (int)wlen, p, prefix.data);
	sg_buf_deinit(&prefix);
	return err;
}

/* The command LINE runs, and its arguments.  */
static struct sg_error *resolve_line(struct sg_session *s, const char *line,
				     const struct sg_command_entry **ret, const char **args_ret)
{
	const char *path[MAX_DEPTH];
	size_t depth;
	return resolve(s, line, ret, args_ret, path, &depth);
}

struct sg_error *sg_command_flags(struct sg_session *s, const char *line, unsigned *flags_ret)
{
	const struct sg_command_entry *e;
	const char *args;
	struct sg_error *err = resolve_line(s, line + strspn(line, " \t"), &e, &args);
	if (!err)
		*flags_ret = e->cmd->flags & ~CMD_CHECKED;
	return err;
}

struct sg_error *sg_command_set_snapshot_check(struct sg_session *s, const char *name,
					       sg_command_snapshot_fn *fn)
{
	for (size_t i = 0; i < s->ncmds; i++) {
		struct sg_command_entry *e = &s->cmds[i];
		if (strcmp(e->cmd->name, name))
			continue;
		if (e->cmd->flags & CMD_CHECKED) {
			((struct checked_command *)e->cmd)->check = fn;
			return NULL;
		}
		struct checked_command *c = malloc(sizeof(*c));
		if (!c)
			return &sg_enomem;
		c->cmd = *e->cmd;
		c->cmd.flags |= SG_CMD_SNAPSHOT_ARGS | CMD_CHECKED;
		c->check = fn;
		e->cmd = &c->cmd;
		return NULL;
	}
	return sg_error_format(SG_ERROR_LOOKUP, "no command \"%s\"", name);
}

/* ARGS without the trailing blanks, which are not part of them, as a new
   string.  */
static char *trim_args(const char *args)
{
	size_t len = strlen(args);
	while (len && isspace((unsigned char)args[len - 1]))
		len--;
	return strndup(args, len);
}

bool sg_command_snapshot_ok(struct sg_session *s, const char *line)
{
	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return true;
	const struct sg_command_entry *e;
	const char *args;
	struct sg_error *err = resolve_line(s, line, &e, &args);
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	unsigned flags = e->cmd->flags;
	if (flags & SG_CMD_SNAPSHOT_OK)
		return true;
	if (!(flags & SG_CMD_SNAPSHOT_ARGS) || !(flags & CMD_CHECKED))
		return false;
	char *a = trim_args(args);
	bool ok = a && ((const struct checked_command *)e->cmd)->check(s, a, e->arg);
	free(a);
	return ok;
}

/* What gdb says to command NAME once its process has gone (exited,
   killed, detached): the session had a target, and has none now.  NULL
   where spyglass's own words stay.  */
static const char *gone_words(const char *name)
{
	static const char *const words[][2] = {
		{ "backtrace", "No stack." }, { "frame", "No stack." }, { "up", "No stack." },
		{ "down", "No stack." }, { "info frame", "No stack." },
		{ "info locals", "No frame selected." }, { "info args", "No frame selected." },
		{ "info threads", "No threads." },
		{ "info registers", "The program has no registers now." },
		{ "info all-registers", "The program has no registers now." },
		{ "detach", "The program is not being run." },
		{ "generate-core-file", "You can't do that without a process to debug." },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(name, words[i][0]))
			return words[i][1];
	return NULL;
}

struct sg_error *sg_command_execute(struct sg_session *s, const char *line, struct sg_out *out)
{
	while (isspace((unsigned char)*line))
		line++;
	if (!*line || *line == '#')
		return NULL;
	const struct sg_command_entry *e;
	const char *args;
	struct sg_error *err = resolve_line(s, line, &e, &args);
	if (err)
		return err;
	char *a = trim_args(args);
	if (!a)
		return &sg_enomem;
	s->exec_depth++;
	if (e->cmd->flags & SG_CMD_NEEDS_TARGET) {
		struct sg_target *t;
		err = sg_session_need_target(s, &t);
		const char *gdb = err && !s->target && s->had_target ? gone_words(e->cmd->name) : NULL;
		if (gdb) {
			sg_error_destroy(err);
			err = sg_error_create(SG_ERROR_TARGET, gdb);
		}
	}
	if (!err)
		err = e->cmd->handler(s, a, out, e->arg);
	s->exec_depth--;
	/* A read may have found the target dead.  */
	if (!s->exec_depth)
		sg_session_release_gone(s);
	free(a);
	return err;
}

/* ---- help ---- */

static int entry_cmp(const void *a, const void *b)
{
	const struct sg_command_entry *x = *(const struct sg_command_entry *const *)a;
	const struct sg_command_entry *y = *(const struct sg_command_entry *const *)b;
	return strcmp(x->cmd->name, y->cmd->name);
}

static void help_list(struct sg_session *s, char *const *path, size_t depth, struct sg_out *out)
{
	const struct sg_command_entry **list = calloc(s->ncmds ? s->ncmds : 1, sizeof(*list));
	if (!list)
		return;
	size_t n = 0;
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sg_command_entry *e = &s->cmds[i];
		if (!(e->cmd->flags & SG_CMD_HIDDEN) && entry_under(e, path, depth) &&
		    (e->cmd->handler || e->nwords == depth + 1))
			list[n++] = e;
	}
	qsort(list, n, sizeof(*list), entry_cmp);
	sg_out_array_begin(out, "commands");
	for (size_t i = 0; i < n; i++) {
		const struct sg_command *c = list[i]->cmd;
		sg_out_printf(out, "%-24s -- %s\n", c->synopsis ? c->synopsis : c->name,
			      c->summary ? c->summary : "");
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", c->name);
		sg_out_string(out, "synopsis", c->synopsis ? c->synopsis : c->name);
		sg_out_string(out, "summary", c->summary);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	free(list);
}

struct sg_error *sg_command_help(struct sg_session *s, const char *topic, struct sg_out *out)
{
	if (!topic || !*topic) {
		sg_out_printf(out, "List of commands:\n\n");
		help_list(s, NULL, 0, out);
		sg_out_printf(out, "\nType \"help\" followed by a command name for its full documentation.\n"
				   "Command names may be abbreviated if unambiguous.\n");
		return NULL;
	}
	const char *path[MAX_DEPTH];
	size_t depth;
	const struct sg_command_entry *e;
	const char *args;
	struct sg_error *err = resolve(s, topic, &e, &args, path, &depth);
	if (err) {
		if (depth == 0)
			return err;
		sg_error_destroy(err);
		/* A prefix without a handler: describe it and list its
		   subcommands.  */
		e = find_exact(s, (char *const *)path, depth);
		if (!e)
			return sg_error_format(SG_ERROR_LOOKUP, "Undefined command: \"%s\".  Try \"help\".",
					       topic);
	} else {
		depth = e->nwords;
	}
	const struct sg_command *c = e->cmd;
	sg_out_string(out, "name", c->name);
	sg_out_string(out, "synopsis", c->synopsis ? c->synopsis : c->name);
	sg_out_string(out, "summary", c->summary);
	sg_out_string(out, "details", c->details);
	sg_out_string(out, "aliases", c->aliases);
	sg_out_printf(out, "%s.\n", c->summary ? c->summary : c->name);
	sg_out_printf(out, "Usage: %s\n", c->synopsis ? c->synopsis : c->name);
	if (c->details)
		sg_out_printf(out, "%s%s", c->details,
			      c->details[strlen(c->details) - 1] == '\n' ? "" : "\n");
	if (c->aliases)
		sg_out_printf(out, "Aliases: %s\n", c->aliases);
	bool has_sub = false;
	for (size_t i = 0; i < s->ncmds && !has_sub; i++)
		has_sub = entry_under(&s->cmds[i], (char *const *)path, depth);
	if (has_sub) {
		sg_out_printf(out, "\nList of %s subcommands:\n\n", c->name);
		help_list(s, (char *const *)path, depth, out);
	}
	return NULL;
}

/* ---- completion ---- */

void sg_command_complete(struct sg_session *s, const char *line, size_t end,
			 void (*fn)(const char *candidate, void *arg), void *arg)
{
	char *text = strndup(line, end);
	if (!text)
		return;
	const char *path[MAX_DEPTH];
	size_t depth = 0;
	const struct sg_command_entry *leaf = NULL;
	const char *leaf_args = NULL;
	const char *p = text;
	bool after_format = false;
	/* Resolve every complete word (one followed by a blank).  */
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		const char *w = p;
		while (word_char(*p))
			p++;
		size_t len = p - w;
		/* "x/4xg", "print/x": a command word ends at its format too.  */
		bool format = depth == 0 && *p == '/';
		if (!*p || len == 0 || (!isspace((unsigned char)*p) && !format) ||
		    depth == MAX_DEPTH) {
			p = w;
			break;
		}
		const char *canon;
		if (match_word(s, (char *const *)path, depth, w, len, &canon) != MATCH_ONE) {
			p = w;
			break;
		}
		path[depth++] = canon;
		const struct sg_command_entry *e = find_exact(s, (char *const *)path, depth);
		if (e && e->cmd->handler) {
			leaf = e;
			leaf_args = p;
		}
		if (format) {
			after_format = true;
			break;
		}
	}
	/* The cursor still in "/FMT": nothing to complete there (the
	   format's letters are no identifier, and readline's word is the
	   whole "x/4xg").  */
	if (after_format && !strpbrk(p, " \t")) {
		free(text);
		return;
	}
	/* P is the word being typed, or the arguments.  */
	const char *word = p;
	while (*word && word_char(*word))
		word++;
	bool in_name = *word == '\0';
	word = p;
	if (in_name) {
		size_t len = strlen(word);
		const char *last = NULL;
		for (size_t i = 0; i < s->ncmds; i++) {
			const struct sg_command_entry *e = &s->cmds[i];
			if (!entry_under(e, (char *const *)path, depth) ||
			    (e->cmd->flags & SG_CMD_HIDDEN) || strncmp(e->words[depth], word, len))
				continue;
			if (last && !strcmp(last, e->words[depth]))
				continue;
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = entry_under(&s->cmds[j], (char *const *)path, depth) &&
				       !strcmp(s->cmds[j].words[depth], e->words[depth]);
			if (!seen)
				fn(e->words[depth], arg);
			last = e->words[depth];
		}
	}
	/* Arguments of the leaf command (also when the word could be either).  */
	if (leaf && leaf->cmd->complete && (!in_name || depth == leaf->nwords)) {
		while (isspace((unsigned char)*leaf_args))
			leaf_args++;
		const char *args = leaf_args;
		size_t ws = strlen(args);
		while (ws > 0 && !isspace((unsigned char)args[ws - 1]))
			ws--;
		struct sg_completions c = { fn, arg };
		leaf->cmd->complete(s, args, ws, args + ws, &c, leaf->arg);
	}
	free(text);
}

static int add_symbol_candidate(const char *name, void *arg)
{
	sg_completions_add(arg, name);
	return SG_CB_OK;
}

void sg_complete_symbol(struct sg_session *s, const char *args, size_t word_start,
			const char *word, struct sg_completions *c, void *arg)
{
	if (!s->target || !word[0])
		return;
	sg_symbol_names(s->target, word, add_symbol_candidate, c);
}
