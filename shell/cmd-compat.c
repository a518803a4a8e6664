/* gdb's habits: apropos, show version, pwd and cd, the settings gdb scripts
   start with (compat-settings.c), and which commands an empty line at the
   prompt repeats.  */
#include <config.h>
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the command table, as help describes it in JSON ---- */

/* The JSON string that starts at P (after its opening quote), decoded into
   a new string; *END after its closing quote.  Only what sg_out writes:
   the short escapes and \u00XX.  */
static char *json_string(const char *p, const char **end)
{
	char *s = malloc(strlen(p) + 1), *o = s;
	if (!s)
		return NULL;
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u': {
			unsigned v = 0;
			if (sscanf(p + 1, "%4x", &v) == 1 && v < 0x80 && v)
				*o++ = (char)v;
			else
				*o++ = '?';
			for (int i = 0; i < 4 && p[1]; i++)
				p++;
			break;
		}
		case '\0': p--; break;
		default: *o++ = *p; break;
		}
	}
	*o = '\0';
	*end = *p ? p + 1 : p;
	return s;
}

/* The value of the string member KEY that follows FROM in JSON, or NULL
   (absent, or null).  */
static char *json_member(const char *from, const char *key, const char **end)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(from, pat);
	if (!p)
		return NULL;
	return json_string(p + strlen(pat), end);
}

/* The registry's settings as show lists them, in JSON; NULL without
   memory.  */
static char *settings_json(struct sg_session *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct sg_out *out;
	if (f && !sg_out_create(f, true, &out)) {
		sg_out_begin(out);
		struct sg_error *err = sg_setting_show(s, "", out);
		sg_out_end(out, err);
		sg_error_destroy(err);
		sg_out_destroy(out);
	}
	if (f)
		fclose(f);
	return buf;
}

/* Run the handler of help (TOPIC) into a JSON string; NULL on an error.  */
static char *help_json(struct sg_session *s, const char *topic)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	struct sg_out *out;
	struct sg_error *err = sg_out_create(f, true, &out);
	if (!err) {
		sg_out_begin(out);
		err = sg_command_help(s, topic, out);
		sg_out_end(out, err);
		sg_out_destroy(out);
	}
	fclose(f);
	if (err) {
		sg_error_destroy(err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The name of the command LINE runs ("backtrace" for "bt 3"), or NULL. */
static char *command_name(struct sg_session *s, const char *line)
{
	char *json = help_json(s, line);
	const char *end;
	char *name = json ? json_member(json, "name", &end) : NULL;
	free(json);
	return name;
}

/* ---- apropos ---- */

struct topic {
	char *name;	/* "backtrace", "set pagination" */
	char *aliases;	/* "bt where", or NULL */
	char *summary;
	char *details;
};

struct topics {
	struct topic *v;
	size_t n, cap;
};

static struct topic *topic_add(struct topics *t)
{
	if (t->n == t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 64;
		struct topic *v = realloc(t->v, ncap * sizeof(*v));
		if (!v)
			return NULL;
		t->v = v;
		t->cap = ncap;
	}
	struct topic *e = &t->v[t->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

static void topics_free(struct topics *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].aliases);
		free(t->v[i].summary);
		free(t->v[i].details);
	}
	free(t->v);
}

/* A setting as gdb's apropos shows it: "set NAME" and "show NAME", with
   its doc after "Set " and "Show ".  */
static void add_setting(struct topics *t, const char *name, const char *doc)
{
	for (int show = 0; show < 2; show++) {
		struct topic *e = topic_add(t);
		if (!e)
			return;
		char first = doc[0];
		/* "State of pagination" becomes "Set state of pagination";
		   "CLI output styling" keeps its capitals.  */
		if (doc[0] && doc[1] >= 'a' && doc[1] <= 'z' && first >= 'A' && first <= 'Z')
			first = (char)(first - 'A' + 'a');
		if (asprintf(&e->name, "%s %s", show ? "show" : "set", name) < 0)
			e->name = NULL;
		if (asprintf(&e->summary, "%s %c%s", show ? "Show" : "Set", first,
			     doc[0] ? doc + 1 : "") < 0)
			e->summary = NULL;
	}
}

static void add_compat_setting(const char *name, const char *doc, void *arg)
{
	add_setting(arg, name, doc);
}

/* Every command (with its full help) and every setting.  */
static void collect_topics(struct sg_session *s, struct topics *t)
{
	char *list = help_json(s, NULL);
	const char *p = list;
	char *name;
	while (p && (name = json_member(p, "name", &p))) {
		struct topic *e = topic_add(t);
		if (!e) {
			free(name);
			break;
		}
		e->name = name;
		char *json = help_json(s, name);
		if (!json)
			continue;
		const char *end;
		e->summary = json_member(json, "summary", &end);
		e->details = json_member(json, "details", &end);
		e->aliases = json_member(json, "aliases", &end);
		free(json);
	}
	free(list);
	/* The registry's settings, as show lists them.  */
	char *buf = settings_json(s);
	p = buf;
	while (p && (name = json_member(p, "name", &p))) {
		char *doc = json_member(p, "doc", &p);
		add_setting(t, name, doc ? doc : "");
		free(name);
		free(doc);
	}
	free(buf);
	compat_settings_foreach(add_compat_setting, t);
}

static int topic_cmp(const void *a, const void *b)
{
	const struct topic *x = a, *y = b;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* "name, alias, alias" as gdb's apropos writes a command's names.  */
static void print_names(struct sg_out *out, const struct topic *e)
{
	sg_out_printf(out, "%s", e->name);
	const char *a = e->aliases;
	size_t prefix = strrchr(e->name, ' ') ? (size_t)(strrchr(e->name, ' ') - e->name) + 1 : 0;
	while (a && *a) {
		a += strspn(a, " ");
		size_t n = strcspn(a, " ");
		if (n)
			sg_out_printf(out, ", %.*s%.*s", (int)prefix, e->name, (int)n, a);
		a += n;
	}
}

static struct sg_error *cmd_apropos(struct sg_session *s, const char *args, struct sg_out *out,
				    void *arg)
{
	bool verbose = false;
	if (!strncmp(args, "-v", 2) && (args[2] == ' ' || args[2] == '\t' || !args[2])) {
		verbose = true;
		args += 2 + strspn(args + 2, " \t");
	}
	if (!*args)
		return sg_error_create(SG_ERROR_USAGE, "REGEXP string is empty");
	regex_t re;
	int rc = regcomp(&re, args, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, &re, msg, sizeof(msg));
		return sg_error_format(SG_ERROR_USAGE, "Invalid regexp: %s", msg);
	}
	struct topics t = { 0 };
	collect_topics(s, &t);
	qsort(t.v, t.n, sizeof(*t.v), topic_cmp);
	sg_out_array_begin(out, "commands");
	for (size_t i = 0; i < t.n; i++) {
		const struct topic *e = &t.v[i];
		if (!e->name)
			continue;
		bool hit = !regexec(&re, e->name, 0, NULL, 0) ||
			   (e->summary && !regexec(&re, e->summary, 0, NULL, 0)) ||
			   (e->details && !regexec(&re, e->details, 0, NULL, 0));
		for (const char *a = e->aliases; a && *a && !hit;) {
			a += strspn(a, " ");
			size_t n = strcspn(a, " ");
			char *one = strndup(a, n);
			hit = one && n && !regexec(&re, one, 0, NULL, 0);
			free(one);
			a += n;
		}
		if (!hit)
			continue;
		const char *summary = e->summary ? e->summary : "";
		const char *dot = *summary && summary[strlen(summary) - 1] != '.' ? "." : "";
		if (verbose) {
			/* gdb's -v: a blank line, the names, the whole help.  */
			sg_out_printf(out, "\n");
			print_names(out, e);
			sg_out_printf(out, "\n%s%s\n", summary, dot);
			if (e->details)
				sg_out_printf(out, "%s%s", e->details,
					      e->details[strlen(e->details) - 1] == '\n' ? "" : "\n");
		} else {
			print_names(out, e);
			sg_out_printf(out, " -- %s%s\n", summary, dot);
		}
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", e->name);
		sg_out_string(out, "aliases", e->aliases);
		sg_out_string(out, "summary", e->summary);
		if (verbose)
			sg_out_string(out, "details", e->details);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	topics_free(&t);
	regfree(&re);
	return NULL;
}

/* ---- completion of setting names ---- */

struct name_complete {
	const char *args;	/* the words typed before the one completed */
	size_t ws;
	const char *word;
	struct sg_completions *c;
};

/* Offer the word of NAME that comes after the words typed, if those
   begin NAME (each a prefix of NAME's word) and it begins with WORD.  */
static void offer_name(const char *name, const char *doc, void *arg)
{
	(void)doc;
	struct name_complete *nc = arg;
	const char *n = name, *a = nc->args, *end = nc->args + nc->ws;
	for (;;) {
		a += strspn(a, " \t");
		if (a >= end)
			break;
		size_t al = strcspn(a, " \t"), nl = strcspn(n, " ");
		if (a + al > end || al > nl || strncmp(a, n, al) || !n[nl])
			return;
		a += al;
		n += nl + 1;
	}
	size_t nl = strcspn(n, " ");
	char w[128];
	if (nl >= sizeof(w) || strncmp(n, nc->word, strlen(nc->word)))
		return;
	memcpy(w, n, nl);
	w[nl] = '\0';
	sg_completions_add(nc->c, w);
}

void compat_complete_setting(struct sg_session *s, const char *args, size_t ws, const char *word,
			     struct sg_completions *c, void *arg)
{
	(void)arg;
	struct name_complete nc = { args, ws, word, c };
	char *buf = settings_json(s);
	const char *p = buf;
	char *name;
	while (p && (name = json_member(p, "name", &p))) {
		offer_name(name, NULL, &nc);
		free(name);
	}
	free(buf);
	compat_settings_foreach(offer_name, &nc);
}

/* ---- show version, pwd, cd ---- */

static struct sg_error *cmd_show_version(struct sg_session *s, const char *args,
					 struct sg_out *out, void *arg)
{
	sg_out_printf(out, "spyglass %s\n"
			   "A debugger shell for Linux: it inspects a live process or a core, and answers as gdb does.\n"
			   "Type \"help\" for a list of commands, \"apropos WORD\" to search them.\n",
		      sg_version());
	sg_out_string(out, "version", sg_version());
	return NULL;
}

static struct sg_error *cmd_pwd(struct sg_session *s, const char *args, struct sg_out *out,
				void *arg)
{
	if (*args)
		return sg_error_format(SG_ERROR_USAGE,
				       "The \"pwd\" command does not take an argument: %s", args);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return sg_error_os(errno, "Error finding name of working directory");
	sg_out_printf(out, "Working directory %s.\n", cwd);
	sg_out_string(out, "directory", cwd);
	free(cwd);
	return NULL;
}

static struct sg_error *cmd_cd(struct sg_session *s, const char *args, struct sg_out *out,
			       void *arg)
{
	struct shell *sh = arg;
	const char *home = getenv("HOME");
	char *dir = NULL;
	/* gdb's cd: no argument is the home folder; ~ and ~/ at the start
	   are too.  */
	if (!*args || ((args[0] == '~') && (!args[1] || args[1] == '/'))) {
		if (!home || !*home)
			return sg_error_create(SG_ERROR_USAGE, "No home directory (HOME is not set)");
		if (asprintf(&dir, "%s%s", home, *args ? args + 1 : "") < 0)
			return &sg_enomem;
	} else if (!(dir = strdup(args))) {
		return &sg_enomem;
	}
	if (chdir(dir) != 0) {
		struct sg_error *err = sg_error_format(SG_ERROR_USAGE, "%s: %s.", dir, strerror(errno));
		free(dir);
		return err;
	}
	free(dir);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return sg_error_os(errno, "Error finding name of working directory");
	/* gdb says where it went only to the user at the prompt.  */
	if (sh->interactive && !sh->source_depth)
		sg_out_printf(out, "Working directory %s.\n", cwd);
	sg_out_string(out, "directory", cwd);
	free(cwd);
	return NULL;
}

/* ---- the repeat of an empty line ---- */

/* The x that goes on after LINE: gdb's repeat keeps the count (x/2xg $sp,
   then Enter, shows the next 2 giants), and the format and size, which x
   remembers.  A backward count (x/-3) repeats as a plain x.  */
static char *x_repeat(const char *line)
{
	const char *p = line + strspn(line, " \t");
	p += strcspn(p, "/ \t");
	unsigned long count = 0;
	if (*p == '/' && isdigit((unsigned char)p[1]))
		count = strtoul(p + 1, NULL, 10);
	char *ret;
	if (count <= 1 || count > 1000000 || asprintf(&ret, "x/%lu", count) < 0)
		ret = strdup("x");
	return ret;
}

char *compat_repeat_line(struct shell *sh, const char *line)
{
	/* gdb's "dont_repeat" commands: those that change what the session
	   is (set, cd, attach, detach, ...), or would do it again for no
	   good reason (record samples for seconds and writes a file).  */
	static const char *const no_repeat[] = {
		"set", "cd", "directory", "attach", "detach", "core-file", "quit", "kill",
		"file", "target", "plugin load", "record",
	};
	char *name = command_name(sh->session, line);
	if (!name)
		return NULL;
	char *ret = NULL;
	bool repeat = true;
	for (size_t i = 0; i < sizeof(no_repeat) / sizeof(no_repeat[0]); i++) {
		size_t n = strlen(no_repeat[i]);
		if (!strncmp(name, no_repeat[i], n) && (!name[n] || name[n] == ' '))
			repeat = false;
	}
	if (!repeat)
		ret = NULL;
	/* x and list go on from where they stopped: gdb repeats them
	   without their arguments.  */
	else if (!strcmp(name, "list"))
		ret = strdup(name);
	else if (!strcmp(name, "x"))
		ret = x_repeat(line);
	else
		ret = strdup(line);
	free(name);
	return ret;
}

static const struct sg_command compat_cmds[] = {
	{ .name = "apropos", .synopsis = "apropos [-v] REGEXP",
	  .summary = "Search for commands matching a REGEXP",
	  .details = "Lists each command and setting whose name, summary or help matches the\n"
		     "regular expression (extended, case-insensitive), one line each:\n"
		     "\"name, alias -- summary\".  With -v, the whole help of each.",
	  .handler = cmd_apropos, .flags = SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
	{ .name = "show version", .synopsis = "show version",
	  .summary = "Show what version of spyglass this is",
	  .details = "The first line is \"spyglass VERSION\", as spyglass --version prints it.",
	  .handler = cmd_show_version, .flags = SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
	{ .name = "pwd", .synopsis = "pwd", .summary = "Print working directory",
	  .details = "The folder that relative file names (source, gcore, record -o,\n"
		     "set logging file) are taken from.",
	  .handler = cmd_pwd, .flags = SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
	{ .name = "cd", .synopsis = "cd [DIR]", .summary = "Set working directory to DIR",
	  .details = "Without DIR, the home folder (~).  The target's own working directory\n"
		     "does not change.  An empty line does not repeat cd.",
	  .handler = cmd_cd, .flags = SG_CMD_NO_STACKS | SG_CMD_SNAPSHOT_OK },
};

struct sg_error *shell_register_compat_commands(struct shell *sh)
{
	struct sg_error *err = shell_register_table(sh, compat_cmds,
						    sizeof(compat_cmds) / sizeof(compat_cmds[0]));
	if (!err)
		err = compat_settings_register(sh);
	return err;
}
