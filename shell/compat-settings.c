/* The settings gdb scripts and rc files start with ("set pagination off",
   "set logging enabled on", "set debuginfod enabled off", ...), so that
   such a file does not stop at its first line.

   Those whose "show" reads "DOC is VALUE." live in the session's registry
   (lib/setting.c), where plugins and other commands can read them.  The
   others (a file name, a list of folders, gdb's own wording in show: "CLI
   output styling is disabled.") are kept here, and "set" and "show"
   (cmd-misc.c) come here when the registry does not know the name.

   What they do here: logging copies the output to a file; "debuginfod
   enabled off" keeps the debug-file lookups from asking the servers of
   DEBUGINFOD_URLS.  The rest change nothing, as spyglass never pages,
   wraps, styles, loads gdb scripts, sets breakpoints or runs Python
   code; they are accepted, remembered and shown.  */
#include <config.h>
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const auto_bool[] = { "on", "off", "auto", NULL };

static const struct sg_setting registry_settings[] = {
	{ "pagination", SG_SETTING_BOOL, NULL, "on", "State of pagination" },
	{ "height", SG_SETTING_UINT, NULL, "unlimited",
	  "Number of lines gdb thinks are in a page" },
	{ "width", SG_SETTING_UINT, NULL, "unlimited",
	  "Number of characters gdb thinks are in a line" },
	{ "print object", SG_SETTING_BOOL, NULL, "off",
	  "Printing of object's derived type based on vtable info" },
	{ "print static-members", SG_SETTING_BOOL, NULL, "on", "Printing of C++ static members" },
	{ "breakpoint pending", SG_SETTING_ENUM, auto_bool, "auto",
	  "Debugger's behavior regarding pending breakpoints" },
	{ "disassemble-next-line", SG_SETTING_ENUM, auto_bool, "off",
	  "Debugger's willingness to use disassemble-next-line" },
};

enum kind { K_BOOL, K_ENUM, K_STRING };

struct compat_setting {
	const char *name;
	enum kind kind;
	const char *const *choices;	/* K_ENUM */
	const char *def;
	/* show: FMT with the value for %s, or ON and OFF for a K_BOOL.  */
	const char *fmt, *on, *off;
	const char *doc;	/* for help and apropos: what it is, what it does here */
	/* Called after a change; an error puts the old value back.  */
	struct sg_error *(*apply)(struct shell *sh, size_t i);
};

static const char *const symbol_loading[] = { "off", "brief", "full", NULL };
static const char *const debuginfod[] = { "on", "off", "ask", NULL };
static const char *const print_stack[] = { "none", "full", "message", NULL };

static struct sg_error *apply_logging(struct shell *sh, size_t i);
static struct sg_error *apply_debuginfod(struct shell *sh, size_t i);
static struct sg_error *apply_history_filename(struct shell *sh, size_t i);
static struct sg_error *apply_history_size(struct shell *sh, size_t i);

#define DEFAULT_SAFE_PATH "$debugdir:$datadir/auto-load"

static const struct compat_setting table[] = {
	{ "verbose", K_BOOL, NULL, "off", NULL,
	  "Verbose printing of informational messages is on.", "Verbosity is off.",
	  "Verbosity of informational messages (no effect in spyglass)", NULL },
	{ "print symbol-loading", K_ENUM, symbol_loading, "full",
	  "Printing of symbol loading messages is \"%s\".", NULL, NULL,
	  "Printing of symbol loading messages (spyglass prints none)", NULL },
	{ "style enabled", K_BOOL, NULL, "off", NULL, "CLI output styling is enabled.",
	  "CLI output styling is disabled.",
	  "CLI output styling (spyglass never styles its output)", NULL },
	{ "debuginfod enabled", K_ENUM, debuginfod, NULL,
	  "Debuginfod functionality is currently set to \"%s\".", NULL, NULL,
	  "Whether debug files are asked of the servers in DEBUGINFOD_URLS (off: never; on, ask: when DEBUGINFOD_URLS names some)",
	  apply_debuginfod },
	{ "auto-load safe-path", K_STRING, NULL, DEFAULT_SAFE_PATH,
	  "List of directories from which it is safe to auto-load files is %s.", NULL, NULL,
	  "Folders gdb may auto-load scripts from (spyglass auto-loads none)", NULL },
	{ "python print-stack", K_ENUM, print_stack, "message",
	  "The mode of Python stack printing on error is \"%s\".", NULL, NULL,
	  "Python stack printing on error (spyglass runs no Python)", NULL },
	{ "history expansion", K_BOOL, NULL, "off", NULL,
	  "History expansion on command input is on.", "History expansion on command input is off.",
	  "History expansion of ! in command lines (no effect in spyglass)", NULL },
	{ "history filename", K_STRING, NULL, "", "The filename in which to record the command history is \"%s\".",
	  NULL, NULL, "The history file (default $SPYGLASS_HISTORY, else ~/.spyglass_history)",
	  apply_history_filename },
	{ "history save", K_BOOL, NULL, "on", NULL, "Saving of the history record on exit is on.",
	  "Saving of the history record on exit is off.",
	  "Whether the prompt's history is saved at the exit", NULL },
	{ "history size", K_STRING, NULL, "2000", "The size of the command history is %s.", NULL, NULL,
	  "The number of lines of history kept (unlimited, or -1, for no limit)",
	  apply_history_size },
	{ "logging debugredirect", K_BOOL, NULL, "off", NULL,
	  "on: Debug output will go only to the log file.",
	  "off: Debug output will go to both the screen and the log file.",
	  "The logging debug output mode (spyglass has no debug output)", NULL },
	{ "logging enabled", K_BOOL, NULL, "off", NULL, "on: Logging is enabled.",
	  "off: Logging is disabled.", "Logging: a copy of the output and errors in the log file",
	  apply_logging },
	{ "logging file", K_STRING, NULL, "gdb.txt", "The current logfile is \"%s\".", NULL, NULL,
	  "The log file (used from the next \"set logging enabled on\")", NULL },
	{ "logging overwrite", K_BOOL, NULL, "off", NULL, "on: Logging overwrites the log file.",
	  "off: Logging appends to the log file.",
	  "Whether logging overwrites or appends to the log file", NULL },
	{ "logging redirect", K_BOOL, NULL, "off", NULL, "on: Output will go only to the log file.",
	  "off: Output will go to both the screen and the log file.",
	  "The logging output mode: only to the log file, or to the screen too", NULL },
};
#define NSETTINGS (sizeof(table) / sizeof(table[0]))

/* The current values: a choice (K_BOOL 1 on, K_ENUM an index) or a
   string.  */
static struct {
	size_t choice;
	char *str;
} values[NSETTINGS];
static bool values_ready;

static size_t index_of(const char *name)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(table[i].name, name))
			return i;
	abort();
}

static size_t choice_index(const char *const *choices, const char *value)
{
	for (size_t i = 0; choices[i]; i++)
		if (!strcmp(choices[i], value))
			return i;
	return 0;
}

static void init_values(void)
{
	if (values_ready)
		return;
	values_ready = true;
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct compat_setting *c = &table[i];
		if (c->kind == K_STRING)
			values[i].str = strdup(c->def);
		else if (c->kind == K_BOOL)
			values[i].choice = !strcmp(c->def, "on");
		else if (c->def)
			values[i].choice = choice_index(c->choices, c->def);
	}
	/* The history file the prompt has always used.  */
	const char *hist = getenv("SPYGLASS_HISTORY"), *home = getenv("HOME");
	char *path = NULL;
	if (hist && *hist)
		path = strdup(hist);
	else if (home && asprintf(&path, "%s/.spyglass_history", home) < 0)
		path = NULL;
	if (path) {
		free(values[index_of("history filename")].str);
		values[index_of("history filename")].str = path;
	}
	/* debuginfod is on when DEBUGINFOD_URLS names a server, as for
	   the lookups in lib/debuginfo.c.  */
	const char *urls = getenv("DEBUGINFOD_URLS");
	values[index_of("debuginfod enabled")].choice = urls && *urls ? 0 : 1;
}

static bool value_on(const char *name)
{
	return values[index_of(name)].choice != 0;
}

/* ---- words ---- */

#define MAX_WORDS 4

/* Split the first MAX_WORDS blank-separated words of S into W (pointers
   into S, lengths in LEN); *REST is what follows them.  Returns the count. */
static size_t split(const char *s, const char *w[MAX_WORDS], size_t len[MAX_WORDS],
		    const char **rest)
{
	size_t n = 0;
	for (;;) {
		s += strspn(s, " \t");
		if (!*s || n == MAX_WORDS)
			break;
		w[n] = s;
		len[n] = strcspn(s, " \t");
		s += len[n++];
	}
	*rest = s;
	return n;
}

/* The K-th word of NAME (NULL past the last), its length in *LEN.  */
static const char *name_word(const char *name, size_t k, size_t *len)
{
	const char *p = name;
	for (;;) {
		*len = strcspn(p, " ");
		if (!k--)
			return p;
		if (!p[*len])
			return NULL;
		p += *len + 1;
	}
}

static size_t name_words(const char *name)
{
	size_t n = 1;
	for (const char *p = name; *p; p++)
		n += *p == ' ';
	return n;
}

/* Whether the N typed words W are prefixes of the first N words of
   NAME; with LAST_EXACT the last one must be the whole word.  */
static bool words_match(const char *name, const char *const *w, const size_t *len, size_t n,
			bool last_exact)
{
	for (size_t k = 0; k < n; k++) {
		size_t nl;
		const char *nw = name_word(name, k, &nl);
		if (!nw || len[k] > nl || strncmp(nw, w[k], len[k]))
			return false;
		if (last_exact && k == n - 1 && len[k] != nl)
			return false;
	}
	return true;
}

/* The setting the first words of ARGS name, by a unique prefix of each
   word (an exact name wins); *REST is its value.  SIZE_MAX for none or
   several.  */
static size_t find(const char *args, const char **rest)
{
	const char *w[MAX_WORDS];
	size_t len[MAX_WORDS];
	const char *after;
	size_t n = split(args, w, len, &after);
	size_t found = SIZE_MAX, count = 0;
	for (size_t i = 0; i < NSETTINGS; i++) {
		size_t k = name_words(table[i].name);
		if (k > n || !words_match(table[i].name, w, len, k, false))
			continue;
		bool exact = true;
		for (size_t j = 0; j < k && exact; j++) {
			size_t nl;
			name_word(table[i].name, j, &nl);
			exact = nl == len[j];
		}
		if (exact) {
			found = i;
			count = 1;
			break;
		}
		found = i;
		count++;
	}
	if (count != 1)
		return SIZE_MAX;
	size_t k = name_words(table[found].name);
	const char *p = w[k - 1] + len[k - 1];
	*rest = p + strspn(p, " \t");
	return found;
}

/* ---- set ---- */

static struct sg_error *parse_bool(const char *v, size_t *ret)
{
	static const char *const yes[] = { "on", "1", "yes", "enable" };
	static const char *const no[] = { "off", "0", "no", "disable" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(v, yes[i])) {
			*ret = 1;
			return NULL;
		}
		if (!strcmp(v, no[i])) {
			*ret = 0;
			return NULL;
		}
	}
	return sg_error_create(SG_ERROR_USAGE, "\"on\" or \"off\" expected.");
}

static struct sg_error *parse_enum(const char *const *choices, const char *v, size_t *ret)
{
	size_t len = strlen(v), found = SIZE_MAX, count = 0;
	if (!len) {
		char list[128] = "";
		for (size_t i = 0; choices[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", choices[i]);
		return sg_error_format(SG_ERROR_USAGE,
				       "Requires an argument. Valid arguments are %s.", list);
	}
	for (size_t i = 0; choices[i]; i++) {
		if (!strcmp(choices[i], v)) {
			*ret = i;
			return NULL;
		}
		if (!strncmp(choices[i], v, len)) {
			found = i;
			count++;
		}
	}
	if (count == 1) {
		*ret = found;
		return NULL;
	}
	return sg_error_format(SG_ERROR_USAGE, "%s item: \"%s\".",
			       count ? "Ambiguous" : "Undefined", v);
}

/* "set logging on|off", gdb's older spelling of "set logging enabled". */
static struct sg_error *old_logging(struct shell *sh, const char *args, bool *handled)
{
	const char *w[MAX_WORDS];
	size_t len[MAX_WORDS];
	const char *rest;
	size_t n = split(args, w, len, &rest);
	if (n != 2 || len[0] < 4 || strncmp("logging", w[0], len[0]) ||
	    !((len[1] == 2 && !strncmp(w[1], "on", 2)) || (len[1] == 3 && !strncmp(w[1], "off", 3))))
		return NULL;
	*handled = true;
	bool on = len[1] == 2;
	fflush(stdout);
	fprintf(stderr,
		"Warning: 'set logging %s', an alias for the command 'set logging enabled', is deprecated.\n"
		"Use 'set logging enabled %s'.\n", on ? "on" : "off", on ? "on" : "off");
	return compat_set(sh, on ? "logging enabled on" : "logging enabled off", handled);
}

struct sg_error *compat_set(struct shell *sh, const char *args, bool *handled)
{
	init_values();
	*handled = false;
	struct sg_error *err = old_logging(sh, args, handled);
	if (err || *handled)
		return err;
	const char *value;
	size_t i = find(args, &value);
	if (i == SIZE_MAX)
		return NULL;
	*handled = true;
	const struct compat_setting *c = &table[i];
	size_t vlen = strlen(value);
	while (vlen && isspace((unsigned char)value[vlen - 1]))
		vlen--;
	char *v = strndup(value, vlen);
	if (!v)
		return &sg_enomem;
	size_t old_choice = values[i].choice, choice = 0;
	char *old_str = values[i].str;
	switch (c->kind) {
	case K_BOOL:
		/* A bare boolean is "on", as in gdb.  */
		err = *v ? parse_bool(v, &choice) : NULL;
		if (!*v)
			choice = 1;
		break;
	case K_ENUM:
		err = parse_enum(c->choices, v, &choice);
		break;
	case K_STRING:
		if (!*v && !strcmp(c->name, "logging file")) {
			err = sg_error_create(SG_ERROR_USAGE,
					      "Argument required (filename to set it to.).");
		} else if (!*v && !strcmp(c->name, "history size")) {
			err = sg_error_create(SG_ERROR_USAGE,
					      "Argument required (integer to set it to, or \"unlimited\").");
		} else if (!*v && !strcmp(c->name, "history filename")) {
			/* gdb takes an empty name: no history file.  */
		} else if (!*v) {
			/* gdb puts the default back.  */
			free(v);
			v = strdup(c->def);
			if (!v)
				return &sg_enomem;
		}
		break;
	}
	if (err) {
		free(v);
		return err;
	}
	values[i].choice = choice;
	if (c->kind == K_STRING) {
		values[i].str = v;
		v = NULL;
	}
	err = c->apply ? c->apply(sh, i) : NULL;
	if (err) {
		values[i].choice = old_choice;
		if (c->kind == K_STRING) {
			free(values[i].str);
			values[i].str = old_str;
		}
	} else if (c->kind == K_STRING) {
		free(old_str);
	}
	free(v);
	return err;
}

/* Whether the user typed the command at the prompt, where gdb says what
   logging does (in a file or batch run it is silent).  */
static bool chatty(struct shell *sh)
{
	return sh->interactive && !sh->source_depth && !sh->json;
}

static struct sg_error *apply_logging(struct shell *sh, size_t i)
{
	const char *file = values[index_of("logging file")].str;
	bool redirect = value_on("logging redirect");
	if (!values[i].choice) {
		if (compat_logging_active()) {
			compat_logging_stop();
			if (chatty(sh))
				printf("Done logging to %s.\n", file);
		}
		return NULL;
	}
	/* The copy is taken of the descriptors 1 and 2: a shell whose
	   output goes elsewhere (the fuzz harness's /dev/null) has nothing
	   there to copy, and must not have its descriptors moved.  */
	if (!sg_out_json(sh->out) && sg_out_file(sh->out) != stdout)
		return sg_error_create(SG_ERROR_USAGE,
				       "logging copies standard output, which this shell does not write to");
	if (compat_logging_active()) {
		if (!sh->json)
			printf("Already logging to %s.\n", file);
		return NULL;
	}
	/* Said before the copy starts, as gdb does: the terminal gets
	   it, the log does not.  */
	if (chatty(sh)) {
		if (redirect)
			printf("Redirecting output to %s.\n", file);
		else
			printf("Copying output to %s.\nCopying debug output to %s.\n", file, file);
	}
	return compat_logging_start(file, value_on("logging overwrite"), redirect);
}

/* debuginfod off: DEBUGINFOD_URLS, which lib/debuginfo.c reads at each
   lookup, is put aside; on (or ask) puts it back.  */
static struct sg_error *apply_debuginfod(struct shell *sh, size_t i)
{
	(void)sh;
	static char *saved;
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (values[i].choice == 1) {
		if (urls && *urls) {
			free(saved);
			saved = strdup(urls);
			if (!saved)
				return &sg_enomem;
			unsetenv("DEBUGINFOD_URLS");
		}
	} else if (saved && !(urls && *urls)) {
		setenv("DEBUGINFOD_URLS", saved, 1);
	}
	return NULL;
}

/* gdb's history filename: ~ expanded, a relative name made absolute
   against the working directory, as gdb does.  */
static struct sg_error *apply_history_filename(struct shell *sh, size_t i)
{
	(void)sh;
	char *v = values[i].str, *path = NULL;
	if (!*v)
		return NULL;
	const char *home = getenv("HOME");
	if (v[0] == '~' && (!v[1] || v[1] == '/') && home) {
		if (asprintf(&path, "%s%s", home, v + 1) < 0)
			return &sg_enomem;
	} else if (v[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return sg_error_os(errno, "cannot find the working directory");
		int r = asprintf(&path, "%s/%s", cwd, v);
		free(cwd);
		if (r < 0)
			return &sg_enomem;
	} else {
		return NULL;
	}
	free(values[i].str);
	values[i].str = path;
	return NULL;
}

/* A size: a number, or "unlimited" (and gdb's -1 for it).  */
static struct sg_error *apply_history_size(struct shell *sh, size_t i)
{
	(void)sh;
	char *v = values[i].str, *end;
	if (!strcmp(v, "unlimited"))
		return NULL;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (*end || end == v || errno || n < -1 || n > INT32_MAX)
		return sg_error_format(SG_ERROR_USAGE, "integer %s out of range", v);
	if (n == -1) {
		free(values[i].str);
		values[i].str = strdup("unlimited");
		if (!values[i].str)
			return &sg_enomem;
	}
	return NULL;
}

const char *compat_history_file(void)
{
	init_values();
	return values[index_of("history filename")].str;
}

bool compat_history_save(void)
{
	init_values();
	return value_on("history save");
}

long compat_history_size(void)
{
	init_values();
	const char *v = values[index_of("history size")].str;
	return strcmp(v, "unlimited") ? strtol(v, NULL, 10) : -1;
}

/* ---- show ---- */

static void show_one(size_t i, struct sg_out *out, bool with_name)
{
	const struct compat_setting *c = &table[i];
	char value[4096];
	char *text = NULL;
	if (c->kind == K_STRING)
		snprintf(value, sizeof(value), "%s", values[i].str ? values[i].str : "");
	else if (c->kind == K_BOOL)
		snprintf(value, sizeof(value), "%s", values[i].choice ? "on" : "off");
	else
		snprintf(value, sizeof(value), "%s", c->choices[values[i].choice]);
	if (!strcmp(c->name, "auto-load safe-path")) {
		/* "/" among the folders: anything goes, and gdb says so.  */
		bool any = false;
		for (const char *p = value; *p;) {
			size_t n = strcspn(p, ":");
			any |= n == 1 && *p == '/';
			p += n + (p[n] == ':');
		}
		if (any)
			text = strdup("Auto-load files are safe to load from any directory.");
	}
	if (!text && c->fmt) {
		/* FMT has one %s, for the value.  */
		const char *at = strstr(c->fmt, "%s");
		if (asprintf(&text, "%.*s%s%s", (int)(at - c->fmt), c->fmt, value, at + 2) < 0)
			text = NULL;
	} else if (!text) {
		text = strdup(values[i].choice ? c->on : c->off);
	}
	sg_out_printf(out, "%s%s%s\n", with_name ? c->name : "", with_name ? ":  " : "",
		      text ? text : value);
	sg_out_object_begin(out, NULL);
	sg_out_string(out, "name", c->name);
	sg_out_string(out, "value", value);
	sg_out_string(out, "doc", c->doc);
	sg_out_object_end(out);
	free(text);
}

/* Whether ARGS name exactly one of the settings kept here.  */
static bool show_single(const char *args)
{
	init_values();
	const char *w[MAX_WORDS];
	size_t len[MAX_WORDS];
	const char *rest;
	size_t n = split(args, w, len, &rest);
	if (!n || *rest)
		return false;
	const char *value;
	size_t i = find(args, &value);
	return i != SIZE_MAX && name_words(table[i].name) == n;
}

size_t compat_show(struct shell *sh, const char *args, struct sg_out *out, const char *key,
		   bool with_name)
{
	(void)sh;
	init_values();
	const char *w[MAX_WORDS];
	size_t len[MAX_WORDS];
	const char *rest;
	size_t n = split(args, w, len, &rest);
	size_t shown = 0;
	if (n && show_single(args)) {
		const char *value;
		sg_out_array_begin(out, key);
		show_one(find(args, &value), out, false);
		sg_out_array_end(out);
		return 1;
	}
	if (*rest)
		return 0;
	/* gdb lists a group in the order of the names.  */
	for (size_t i = 0; i < NSETTINGS; i++) {
		if (n && (n >= name_words(table[i].name) ||
			  !words_match(table[i].name, w, len, n, true)))
			continue;
		if (!shown++)
			sg_out_array_begin(out, key);
		show_one(i, out, with_name && n);
	}
	if (shown)
		sg_out_array_end(out);
	return shown;
}

void compat_settings_foreach(void (*fn)(const char *name, const char *doc, void *arg), void *arg)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		fn(table[i].name, table[i].doc, arg);
}

struct sg_error *compat_settings_register(struct shell *sh)
{
	init_values();
	for (size_t i = 0; i < sizeof(registry_settings) / sizeof(registry_settings[0]); i++) {
		struct sg_error *err = sg_setting_register(sh->session, &registry_settings[i]);
		if (err)
			return err;
	}
	return NULL;
}
