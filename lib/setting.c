/* Settings: "set NAME VALUE" and "show [NAME]".  */
#include <config.h>
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

static const char *const output_formats[] = { "text", "json", NULL };
static const char *const frame_arguments[] = { "scalars", "all", "none", "presence", NULL };

static const struct sg_setting core_settings[] = {
	{ "print elements", SG_SETTING_UINT, NULL, "200",
	  "Limit on string chars or array elements to print" },
	{ "print pretty", SG_SETTING_BOOL, NULL, "off",
	  "Whether to print structures one member per line, indented" },
	{ "print frame-arguments", SG_SETTING_ENUM, frame_arguments, "scalars",
	  "Printing of non-scalar frame arguments" },
	{ "output-format", SG_SETTING_ENUM, output_formats, "text",
	  "Output format of commands (text or json)" },
	{ "backtrace limit", SG_SETTING_UINT, NULL, "unlimited",
	  "Upper bound on the number of backtrace levels" },
	{ "backtrace past-main", SG_SETTING_BOOL, NULL, "off",
	  "Whether backtraces should continue past \"main\"" },
	{ "confirm", SG_SETTING_BOOL, NULL, "on",
	  "Whether to confirm potentially dangerous operations" },
};

/* Parse VALUE for SETTING into *RET.  */
static struct sg_error *parse_value(const struct sg_setting *setting, const char *value,
				    uint64_t *ret)
{
	switch (setting->type) {
	case SG_SETTING_UINT: {
		if (!strcmp(value, "unlimited")) {
			*ret = UINT64_MAX;
			return NULL;
		}
		char *end;
		errno = 0;
		unsigned long long v = strtoull(value, &end, 0);
		if (!*value || *end || errno || value[0] == '-')
			return sg_error_format(SG_ERROR_USAGE,
					       "\"%s\" needs a number or \"unlimited\", not \"%s\"",
					       setting->name, value);
		*ret = v == 0 ? UINT64_MAX : v;	/* 0 means unlimited, as in gdb */
		return NULL;
	}
	case SG_SETTING_BOOL:
		if (!strcmp(value, "on") || !strcmp(value, "1") || !strcmp(value, "yes") ||
		    !strcmp(value, "enable")) {
			*ret = 1;
			return NULL;
		}
		if (!strcmp(value, "off") || !strcmp(value, "0") || !strcmp(value, "no") ||
		    !strcmp(value, "disable")) {
			*ret = 0;
			return NULL;
		}
		return sg_error_format(SG_ERROR_USAGE, "\"on\" or \"off\" expected, not \"%s\"",
				       value);
	case SG_SETTING_ENUM: {
		size_t len = strlen(value), found = SIZE_MAX, count = 0;
		for (size_t i = 0; len && setting->choices[i]; i++) {
			if (!strcmp(setting->choices[i], value)) {
				found = i;
				count = 1;
				break;
			}
			if (!strncmp(setting->choices[i], value, len)) {
				found = i;
				count++;
			}
		}
		if (count == 1) {
			*ret = found;
			return NULL;
		}
		struct sg_buf b;
		sg_buf_init(&b);
		for (size_t i = 0; setting->choices[i]; i++)
			sg_buf_printf(&b, "%s%s", i ? ", " : "", setting->choices[i]);
		struct sg_error *err = sg_error_format(SG_ERROR_USAGE,
						       "\"%s\" must be one of: %s", setting->name,
						       b.data ? b.data : "");
		sg_buf_deinit(&b);
		return err;
	}
	}
	return sg_error_create(SG_ERROR_OTHER, "unknown setting type");
}

struct sg_error *sg_setting_register(struct sg_session *s, const struct sg_setting *setting)
{
	for (size_t i = 0; i < s->nsettings; i++)
		if (!strcmp(s->settings[i].setting->name, setting->name))
			return sg_error_format(SG_ERROR_PLUGIN, "setting \"%s\" is already registered",
					       setting->name);
	uint64_t value;
	struct sg_error *err = parse_value(setting, setting->default_value, &value);
	if (err)
		return sg_error_prefix(err, "default of setting \"%s\"", setting->name);
	char **words;
	ssize_t n = sg_split_words(setting->name, &words);
	if (n <= 0)
		return n < 0 ? &sg_enomem : sg_error_create(SG_ERROR_USAGE, "empty setting name");
	struct sg_setting_entry *e = sg_array_push(&s->settings, &s->nsettings,
						   &s->settings_cap, sizeof(*e));
	if (!e) {
		sg_free_words(words, n);
		return &sg_enomem;
	}
	e->setting = setting;
	e->words = words;
	e->nwords = n;
	e->value = value;
	e->owner = s->loading;
	return NULL;
}

struct sg_error *sg_settings_register_core(struct sg_session *s)
{
	for (size_t i = 0; i < SG_ARRAY_SIZE(core_settings); i++) {
		struct sg_error *err = sg_setting_register(s, &core_settings[i]);
		if (err)
			return err;
	}
	return NULL;
}

void sg_settings_remove_owner(struct sg_session *s, struct sg_plugin *owner)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nsettings; i++) {
		if (s->settings[i].owner == owner)
			sg_free_words(s->settings[i].words, s->settings[i].nwords);
		else
			s->settings[n++] = s->settings[i];
	}
	s->nsettings = n;
}

void sg_settings_deinit(struct sg_session *s)
{
	for (size_t i = 0; i < s->nsettings; i++)
		sg_free_words(s->settings[i].words, s->settings[i].nwords);
	free(s->settings);
	s->settings = NULL;
	s->nsettings = s->settings_cap = 0;
}

/* Settings whose leading words match WORDS[0..N) word by word, each an
   exact word or a prefix of one.  */
static bool words_match(const struct sg_setting_entry *e, char **words, size_t n, bool exact)
{
	if (n > e->nwords || (exact && n != e->nwords))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strncmp(e->words[i], words[i], strlen(words[i])) ||
		    (exact && strcmp(e->words[i], words[i])))
			return false;
	return true;
}

/* Find the setting named by the first words of WORDS; *USED_RET is how many
   words name it.  An exact name wins over prefixes.  */
static struct sg_error *find_setting(struct sg_session *s, char **words, size_t n,
				     struct sg_setting_entry **ret, size_t *used_ret)
{
	struct sg_setting_entry *found = NULL;
	size_t used = 0, count = 0;
	for (size_t i = 0; i < s->nsettings; i++) {
		struct sg_setting_entry *e = &s->settings[i];
		size_t k = e->nwords;
		if (k > n || !words_match(e, words, k, false))
			continue;
		if (words_match(e, words, k, true)) {
			*ret = e;
			*used_ret = k;
			return NULL;
		}
		found = e;
		used = k;
		count++;
	}
	if (count == 1) {
		*ret = found;
		*used_ret = used;
		return NULL;
	}
	struct sg_buf b;
	sg_buf_init(&b);
	for (size_t i = 0; i < n; i++)
		sg_buf_printf(&b, "%s%s", i ? " " : "", words[i]);
	struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP, "%s setting: \"%s\".  Try \"show\".",
					       count ? "Ambiguous" : "Undefined",
					       b.data ? b.data : "");
	sg_buf_deinit(&b);
	return err;
}

struct sg_error *sg_setting_set(struct sg_session *s, const char *name_and_value)
{
	char **words;
	ssize_t n = sg_split_words(name_and_value, &words);
	if (n < 0)
		return &sg_enomem;
	if (n == 0)
		return sg_error_create(SG_ERROR_USAGE,
				       "\"set\" needs a setting and a value.  Try \"show\".");
	struct sg_setting_entry *e;
	size_t used;
	struct sg_error *err = find_setting(s, words, n, &e, &used);
	if (!err && used == (size_t)n && e->setting->type != SG_SETTING_BOOL)
		err = sg_error_format(SG_ERROR_USAGE, "\"set %s\" needs a value", e->setting->name);
	if (!err && (size_t)n > used + 1)
		err = sg_error_format(SG_ERROR_USAGE, "\"set %s\" takes one value",
				      e->setting->name);
	if (!err) {
		uint64_t v;
		err = parse_value(e->setting, used < (size_t)n ? words[used] : "on", &v);
		if (!err)
			e->value = v;
	}
	sg_free_words(words, n);
	return err;
}

uint64_t sg_setting_uint(struct sg_session *s, const char *name, uint64_t default_value)
{
	for (size_t i = 0; i < s->nsettings; i++)
		if (!strcmp(s->settings[i].setting->name, name))
			return s->settings[i].value;
	return default_value;
}

static void value_string(const struct sg_setting_entry *e, char *buf, size_t size)
{
	switch (e->setting->type) {
	case SG_SETTING_UINT:
		if (e->value == UINT64_MAX)
			snprintf(buf, size, "unlimited");
		else
			snprintf(buf, size, "%" PRIu64, e->value);
		break;
	case SG_SETTING_BOOL:
		snprintf(buf, size, "%s", e->value ? "on" : "off");
		break;
	case SG_SETTING_ENUM:
		snprintf(buf, size, "%s", e->setting->choices[e->value]);
		break;
	}
}

struct sg_error *sg_setting_show(struct sg_session *s, const char *prefix, struct sg_out *out)
{
	char **words;
	ssize_t n = sg_split_words(prefix ? prefix : "", &words);
	if (n < 0)
		return &sg_enomem;
	struct sg_setting_entry *only = NULL;
	size_t used;
	if (n > 0) {
		struct sg_error *err = find_setting(s, words, n, &only, &used);
		if (err) {
			/* "show print" lists every "print ..." setting.  */
			bool any = false;
			for (size_t i = 0; i < s->nsettings && !any; i++)
				any = words_match(&s->settings[i], words, n, false);
			if (!any) {
				sg_free_words(words, n);
				return err;
			}
			sg_error_destroy(err);
			only = NULL;
		}
	}
	sg_out_array_begin(out, "settings");
	for (size_t i = 0; i < s->nsettings; i++) {
		struct sg_setting_entry *e = &s->settings[i];
		if (only ? e != only : !words_match(e, words, n, false))
			continue;
		char value[32];
		value_string(e, value, sizeof(value));
		sg_out_printf(out, "%s is %s.\n", e->setting->doc, value);
		sg_out_object_begin(out, NULL);
		sg_out_string(out, "name", e->setting->name);
		sg_out_string(out, "value", value);
		sg_out_string(out, "doc", e->setting->doc);
		sg_out_object_end(out);
	}
	sg_out_array_end(out);
	sg_free_words(words, n);
	return NULL;
}
