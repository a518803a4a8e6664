/* Running command lines: from -ex, files (-x, source), pipes and the prompt.
   Each command's error becomes one line: "WHERE: message" on stderr, or
   {"error": "..."} in JSON mode.  */
#include <config.h>
#include "shell.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SOURCE_DEPTH 16
/* A command line longer than this is not one: /dev/zero, a binary file
   given to source.  */
#define MAX_LINE (1024 * 1024)

ssize_t shell_read_line(FILE *f, char **line, size_t *cap, struct sg_error **err)
{
	size_t len = 0;
	int c;
	*err = NULL;
	while ((c = getc(f)) != EOF) {
		if (len + 2 > *cap) {
			if (len >= MAX_LINE) {
				*err = sg_error_format(SG_ERROR_USAGE, "a line longer than %d bytes",
						       MAX_LINE);
				return -1;
			}
			size_t ncap = *cap ? 2 * *cap : 256;
			char *n = realloc(*line, ncap);
			if (!n) {
				*err = &sg_enomem;
				return -1;
			}
			*line = n;
			*cap = ncap;
		}
		(*line)[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(f)) {
		*err = sg_error_os(errno ? errno : EIO, "cannot read");
		return -1;
	}
	if (!len)
		return -1;	/* end of file */
	(*line)[len] = '\0';
	return (ssize_t)len;
}

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

/* Lines running: one inside another (source, thread apply).  */
static int run_depth;

bool shell_run_line(struct shell *sh, const char *line, const char *where)
{
	const char *p = line + strspn(line, " \t");
	if (!*p || *p == '#' || *p == '\n')
		return true;
	shell_sync_output(sh);
	/* A Ctrl-C before this command is not this command's.  */
	if (!run_depth)
		sg_interrupt_clear();
	sg_out_begin(sh->out);
	run_depth++;
	struct sg_error *err = sg_command_execute(sh->session, line, sh->out);
	run_depth--;
	/* Ctrl-C during the command (continue takes it for itself): the
	   command was quit, as gdb says, whatever it made of its reads
	   failing.  */
	if (sg_interrupt_pending()) {
		if (!sg_error_is_interrupt(err)) {
			sg_error_destroy(err);
			err = sg_interrupt_error();
		}
		/* Said once: a source file around it stops without another.  */
		sg_interrupt_clear();
	}
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

/* Until a pipe or terminal has a line, look every 100 ms whether the
   target died: its zombies are ours to reap, and its parent waits.  */
static void wait_input(struct shell *sh, FILE *f)
{
	struct stat st;
	int fd = fileno(f);
	if (fd < 0 || fstat(fd, &st) < 0 || S_ISREG(st.st_mode))
		return;
	/* glibc's FILE: what is buffered needs no wait.  */
	if (f->_IO_read_ptr < f->_IO_read_end)
		return;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (sg_session_target(sh->session)) {
		int r = poll(&p, 1, 100);
		if (r > 0 || (r < 0 && errno != EINTR))
			return;
		if (sg_session_target_died(sh->session))
			return;
	}
}

bool shell_run_stream(struct shell *sh, FILE *stream, const char *name, bool stop_on_error)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	bool ok = true;
	struct sg_error *err = NULL;
	while (!sh->quit) {
		wait_input(sh, stream);
		if ((len = shell_read_line(stream, &line, &cap, &err)) < 0)
			break;
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
	if (!sh->quit && err) {
		/* The rest of the stream cannot be split into lines.  */
		char where[4096];
		snprintf(where, sizeof(where), "%s:%u", name, lineno + 1);
		print_error(sh, err, where);
		sg_error_destroy(err);
		ok = false;
	}
	free(line);
	return ok;
}

void shell_warn_untrusted(const char *what, const char *path)
{
	struct sg_error *err = sg_trust_check(path);
	if (!err)
		return;
	fflush(stdout);
	fprintf(stderr, "warning: %s %s, as asked, although others could have written it: %s\n",
		what, path, sg_error_message(err));
	sg_error_destroy(err);
}

struct sg_error *shell_source(struct shell *sh, const char *path)
{
	if (sh->source_depth >= MAX_SOURCE_DEPTH)
		return sg_error_format(SG_ERROR_USAGE, "%s: files are sourced %d deep; is there a loop?",
				       path, MAX_SOURCE_DEPTH);
	FILE *f = fopen(path, "r");
	if (!f)
		return sg_error_os(errno, "cannot open %s", path);
	/* The rc file was checked by its caller; files it sources are not.  */
	bool rc = sh->sourcing_rc;
	sh->sourcing_rc = false;
	if (!rc)
		shell_warn_untrusted("running", path);
	sh->source_depth++;
	bool ok = shell_run_stream(sh, f, path, true);
	sh->source_depth--;
	sh->sourcing_rc = rc;
	fclose(f);
	/* The failing line already printed "FILE:LINE: message": &sg_stop says
	   so, and is not printed again.  */
	return ok ? NULL : &sg_stop;
}
