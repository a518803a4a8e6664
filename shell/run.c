/* Running command lines: from -ex, files (-x, source), pipes and the prompt.
   Each command's error becomes one line: "WHERE: message" on stderr, or
   {"error": "..."} in JSON mode.  */
#include <config.h>
#include "shell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SOURCE_DEPTH 16

void shell_sync_output(struct shell *sh)
{
	sg_out_set_json(sh->out, sg_setting_uint(sh->session, "output-format", 0) == 1);
}

static void print_error(struct shell *sh, const struct sg_error *err, const char *where)
{
	if (sg_out_json(sh->out) || sg_error_code(err) == SG_ERROR_STOP)
		return;	/* sg_out_end() wrote it, or it was reported already */
	fflush(stdout);
	if (where)
		fprintf(stderr, "%s: %s\n", where, sg_error_message(err));
	else
		fprintf(stderr, "%s\n", sg_error_message(err));
}

bool shell_run_line(struct shell *sh, const char *line, const char *where)
{
	const char *p = line + strspn(line, " \t");
	if (!*p || *p == '#' || *p == '\n')
		return true;
	shell_sync_output(sh);
	sg_out_begin(sh->out);
	struct sg_error *err = sg_command_execute(sh->session, line, sh->out);
	struct sg_error *shown = err;
	if (err && where && sg_out_json(sh->out))
		shown = err = sg_error_prefix(err, "%s", where);
	sg_out_end(sh->out, shown);
	if (err)
		print_error(sh, err, where);
	sg_error_destroy(err);
	shell_sync_output(sh);
	return !err;
}

bool shell_run_stream(struct shell *sh, FILE *stream, const char *name, bool stop_on_error)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	bool ok = true;
	while (!sh->quit && (len = getline(&line, &cap, stream)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		char where[4096];
		snprintf(where, sizeof(where), "%s:%u", name, lineno);
		const char *p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;	/* an empty line does not repeat the last command */
		ok = shell_run_line(sh, line, where);
		if (!ok && stop_on_error)
			break;
	}
	free(line);
	return ok;
}

struct sg_error *shell_source(struct shell *sh, const char *path)
{
	if (sh->source_depth >= MAX_SOURCE_DEPTH)
		return sg_error_format(SG_ERROR_USAGE, "%s: files are sourced %d deep; is there a loop?",
				       path, MAX_SOURCE_DEPTH);
	FILE *f = fopen(path, "r");
	if (!f)
		return sg_error_os(errno, "cannot open %s", path);
	sh->source_depth++;
	bool ok = shell_run_stream(sh, f, path, true);
	sh->source_depth--;
	fclose(f);
	/* The failing line already printed "FILE:LINE: message": &sg_stop says
	   so, and is not printed again.  */
	return ok ? NULL : &sg_stop;
}
