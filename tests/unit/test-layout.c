/* Layout bindings against a real process: tests/fixtures/sg-layout prints
   what its compiler laid out (sizeof, member offsets, bit positions, the
   addresses and values of its globals); this attaches to it through the
   public session API, resolves bindings and compares.  Then the same with a
   copy stripped of its DWARF, where only a built-in table can answer.  */
#include <config.h>
#include <spyglass/spyglass.h>
#include <spyglass/layout.h>
#include "tap.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FACTS 128
#define TABLE_LABEL "sg-layout test table"

/* A running fixture and what it printed: "KEY VALUE" lines.  */
struct fixture {
	pid_t pid;
	size_t nfacts;
	char *keys[MAX_FACTS];
	uint64_t values[MAX_FACTS];
	struct sg_session *session;
	struct sg_target *target;
};

/* The value the fixture printed for the key FMT..., or UINT64_MAX (and a
   failed test) when it printed none.  */
static uint64_t fact(const struct fixture *fx, const char *fmt, ...) SG_PRINTF(2, 3);
static uint64_t fact(const struct fixture *fx, const char *fmt, ...)
{
	char key[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < fx->nfacts; i++)
		if (!strcmp(fx->keys[i], key))
			return fx->values[i];
	ok(false, "the fixture printed \"%s\"", key);
	return UINT64_MAX;
}

static void stop_fixture(struct fixture *fx)
{
	sg_session_destroy(fx->session);
	fx->session = NULL;
	if (fx->pid > 0) {
		kill(fx->pid, SIGKILL);
		waitpid(fx->pid, NULL, 0);
		fx->pid = 0;
	}
	for (size_t i = 0; i < fx->nfacts; i++)
		free(fx->keys[i]);
	fx->nfacts = 0;
}

/* Start PATH, read its facts up to "ready PID", attach.  False (with the
   fixture stopped) if any of it failed; *SKIP_RET says whether that was
   a lack of ptrace rights rather than a failure.  */
static bool start_fixture(struct fixture *fx, const char *path, bool *skip_ret)
{
	*fx = (struct fixture){ 0 };
	*skip_ret = false;
	int fds[2];
	if (pipe(fds) != 0)
		return false;
	fx->pid = fork();
	if (fx->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	char *line = NULL;
	size_t cap = 0;
	bool ready = false;
	while (fx->pid > 0 && in && getline(&line, &cap, in) > 0) {
		line[strcspn(line, "\n")] = '\0';
		char *sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(line, "ready")) {
			ready = true;
			break;
		}
		if (fx->nfacts < MAX_FACTS) {
			fx->keys[fx->nfacts] = strdup(line);
			fx->values[fx->nfacts++] = strtoull(sp + 1, NULL, 0);
		}
	}
	free(line);
	if (in)
		fclose(in);
	else
		close(fds[0]);
	ok(ready, "%s started and printed its layout", path);
	if (!ready) {
		stop_fixture(fx);
		return false;
	}
	struct sg_error *err = sg_session_create(&fx->session);
	if (!err)
		err = sg_session_attach(fx->session, fx->pid);
	/* The session says EPERM in words (with ptrace_scope), not errno.  */
	if (err && strstr(sg_error_message(err), "Operation not permitted")) {
		printf("ok %d - # SKIP no ptrace rights: %s\n", ++tap_n, sg_error_message(err));
		*skip_ret = true;
	} else {
		ok(!err, "attach to %s", path);
		if (err)
			printf("#   %s\n", sg_error_message(err));
	}
	sg_error_destroy(err);
	if (err) {
		stop_fixture(fx);
		return false;
	}
	fx->target = sg_session_target(fx->session);
	return true;
}

static struct sg_layout *resolve(const struct fixture *fx, const struct sg_layout_spec *spec,
				 const struct sg_layout_table *table)
{
	struct sg_layout *l = NULL;
	struct sg_error *err = sg_layout_resolve(fx->target, spec, table, &l);
	ok(!err, "resolve %s", spec->type);
	if (err)
		printf("#   %s\n", sg_error_message(err));
	sg_error_destroy(err);
	return l;
}

/* The resolve must fail with MESSAGE.  */
static void resolve_fails(const struct fixture *fx, const struct sg_layout_spec *spec,
			  const struct sg_layout_table *table, enum sg_error_code code,
			  const char *message)
{
	struct sg_layout *l = NULL;
	struct sg_error *err = sg_layout_resolve(fx->target, spec, table, &l);
	sg_ck_err(err, code, message, "%s: %s", spec->type, message);
	sg_layout_destroy(l);
}

/* Field I of L is KEY (TYPE.MEMBER in the fixture's words), matched by
   alternative ALT spelled NAME, at the offset and of the size the fixture
   printed.  */
static void check_field(const struct fixture *fx, const struct sg_layout *l, size_t i,
			const char *key, const char *name, unsigned alt)
{
	const struct sg_layout_field *f = &l->fields[i];
	ok(f->present && f->name && !strcmp(f->name, name) && f->alternative == alt,
	   "%s: %s matched as %s (alternative %u)", key, f->member, name, alt);
	uint64_t off = fact(fx, "off %s", key), size = fact(fx, "msize %s", key);
	ok(f->offset == off && f->size == size && !f->bit_size,
	   "%s at %" PRIu64 ", %" PRIu64 " bytes (got %" PRIu64 ", %" PRIu64 ")", key, off, size,
	   f->offset, f->size);
}

/* The bit field KEY as the fixture found it: "bit KEY LOW WIDTH" (the
   fact's key holds LOW).  False when it printed none.  */
static bool bit_fact(const struct fixture *fx, const char *key, uint64_t *low, uint64_t *width)
{
	size_t n = strlen(key);
	for (size_t k = 0; k < fx->nfacts; k++) {
		if (!strncmp(fx->keys[k], "bit ", 4) && !strncmp(fx->keys[k] + 4, key, n) &&
		    fx->keys[k][4 + n] == ' ') {
			*low = strtoull(fx->keys[k] + 5 + n, NULL, 10);
			*width = fx->values[k];
			return true;
		}
	}
	ok(false, "the fixture printed the bits of %s", key);
	return false;
}

/* Field I of L is the bit field KEY, where the fixture found its bits.  */
static void check_bits(const struct fixture *fx, const struct sg_layout *l, size_t i,
		       const char *key)
{
	const struct sg_layout_field *f = &l->fields[i];
	uint64_t low, width;
	if (!bit_fact(fx, key, &low, &width))
		return;
	ok(f->present && f->offset * 8 + f->bit_offset == low && f->bit_size == width,
	   "%s: bits %" PRIu64 "+%" PRIu64 " (got byte %" PRIu64 " bit %u, %u bits)", key, low,
	   width, f->offset, f->bit_offset, f->bit_size);
}

/* Field I of L read in the object at the fixture's global GLOBAL equals
   the value the fixture printed for KEY.  */
static void check_read(const struct fixture *fx, const struct sg_layout *l, size_t i,
		       const char *global, const char *key)
{
	uint64_t got = 0, want = fact(fx, "val %s", key);
	struct sg_error *err = sg_layout_read_uint(fx->target, l, i, fact(fx, "addr %s", global),
						   &got);
	ok(!err && got == want, "read %s: %" PRIu64 " (got %" PRIu64 "%s%s)", key, want, got,
	   err ? ", " : "", err ? sg_error_message(err) : "");
	sg_error_destroy(err);
}

static const char *const plain_members[] = { "c", "i", "d", "s", "tail", NULL };
static const struct sg_layout_spec plain = { "sg_plain", plain_members };

/* A table that must not be used while DWARF describes the type.  */
static const struct sg_layout_row wrong_rows[] = {
	SG_LAYOUT_SIZE("sg_plain", 1000),
	SG_LAYOUT_MEMBER("sg_plain", "c", 100, 1),
	SG_LAYOUT_MEMBER("sg_plain", "i", 104, 4),
	SG_LAYOUT_MEMBER("sg_plain", "d", 108, 8),
	SG_LAYOUT_MEMBER("sg_plain", "s", 116, 2),
	SG_LAYOUT_MEMBER("sg_plain", "tail", 118, 3),
	SG_LAYOUT_END,
};
static const struct sg_layout_table wrong_table = { "wrong on purpose", wrong_rows };

static const char *const callinfo_members[] = { "call", "frame|func", "args", NULL };
static const struct sg_layout_spec callinfo = { "CallInfoOld|ns::detail::CallInfo",
						callinfo_members };

static const char *const func_members[] = { "location", "ref_cnt", "name", "kind", NULL };
static const struct sg_layout_spec func = { "ns::Func", func_members };

static const char *const stmt_members[] = { "tag", "breakpoint_count", "location", NULL };
static const struct sg_layout_spec stmt = { "ns::detail::Stmt", stmt_members };

static const char *const frame_members[] = {
	"ob_base.ob_refcnt", "f_back", "f_code|f_frame_data.previous", "?f_trace", "f_lineno",
	NULL,
};
static const struct sg_layout_spec frame = { "SgFrameObject", frame_members };

static const char *const flags_members[] = { "a", "b", "c", "wide", "after", NULL };
static const struct sg_layout_spec flags = { "sg_flags", flags_members };

static const char *const nope_members[] = { "call", "nope|frame_ptr", NULL };
static const struct sg_layout_spec nope = { "ns::detail::CallInfo", nope_members };

static void test_dwarf(const struct fixture *fx)
{
	struct sg_layout *l = resolve(fx, &plain, &wrong_table);
	if (l) {
		ok(!l->table && !l->note && !strcmp(l->type, "sg_plain"),
		   "sg_plain: from DWARF although a table was given");
		ok(l->size == fact(fx, "size sg_plain"), "sizeof sg_plain is %" PRIu64, l->size);
		static const char *const names[] = { "c", "i", "d", "s", "tail" };
		for (size_t i = 0; i < 5; i++) {
			char key[64];
			snprintf(key, sizeof(key), "sg_plain.%s", names[i]);
			check_field(fx, l, i, key, names[i], 0);
		}
		check_read(fx, l, 3, "g_plain", "g_plain.s");
		sg_layout_destroy(l);
	}

	static const struct sg_layout_spec plain_struct = { "struct sg_plain", plain_members };
	l = resolve(fx, &plain_struct, NULL);
	if (l)
		check_field(fx, l, 4, "sg_plain.tail", "tail", 0);
	sg_layout_destroy(l);

	l = resolve(fx, &callinfo, NULL);
	if (l) {
		ok(!strcmp(l->type, "ns::detail::CallInfo") && l->type_alternative == 1,
		   "CallInfo: the second type spelling matched (%s)", l->type);
		ok(l->size == fact(fx, "size CallInfo"), "sizeof CallInfo is %" PRIu64, l->size);
		check_field(fx, l, 0, "CallInfo.call", "call", 0);
		check_field(fx, l, 1, "CallInfo.func", "func", 1);
		is_str(l->fields[1].member, "frame|func", "the field keeps the declared member");
		check_field(fx, l, 2, "CallInfo.args", "args", 0);
		check_read(fx, l, 1, "g_callinfo", "g_callinfo.func");
		sg_layout_destroy(l);
	}

	l = resolve(fx, &func, NULL);
	if (l) {
		ok(l->size == fact(fx, "size Func"), "sizeof ns::Func is %" PRIu64, l->size);
		check_field(fx, l, 0, "Func.location", "location", 0);
		check_field(fx, l, 1, "Func.ref_cnt", "ref_cnt", 0);
		check_field(fx, l, 2, "Func.name", "name", 0);
		check_field(fx, l, 3, "Func.kind", "kind", 0);
		check_read(fx, l, 1, "g_func", "g_func.ref_cnt");
		check_read(fx, l, 3, "g_func", "g_func.kind");
		uint64_t x;
		sg_ck_err(sg_layout_read_uint(fx->target, l, 2, fact(fx, "addr g_func"), &x),
			  SG_ERROR_BAD_DATA, "ns::Func member name is 32 bytes, not a scalar of at most 8",
			  "reading a std::string as an integer is refused");
		sg_layout_destroy(l);
	}

	l = resolve(fx, &stmt, NULL);
	if (l) {
		check_field(fx, l, 0, "Stmt.tag", "tag", 0);
		check_field(fx, l, 1, "Stmt.breakpoint_count", "breakpoint_count", 0);
		check_field(fx, l, 2, "Stmt.location", "location", 0);
		check_read(fx, l, 0, "g_stmt", "g_stmt.tag");
		sg_layout_destroy(l);
	}

	l = resolve(fx, &frame, NULL);
	if (l) {
		ok(l->size == fact(fx, "size SgFrameObject"), "sizeof SgFrameObject is %" PRIu64,
		   l->size);
		check_field(fx, l, 0, "SgFrameObject.ob_base.ob_refcnt", "ob_base.ob_refcnt", 0);
		check_field(fx, l, 1, "SgFrameObject.f_back", "f_back", 0);
		check_field(fx, l, 2, "SgFrameObject.f_frame_data.previous", "f_frame_data.previous",
			    1);
		ok(!l->fields[3].present && !l->fields[3].name && !strcmp(l->fields[3].member, "f_trace"),
		   "the optional f_trace is absent");
		check_field(fx, l, 4, "SgFrameObject.f_lineno", "f_lineno", 0);
		check_read(fx, l, 0, "g_frame", "g_frame.ob_refcnt");
		check_read(fx, l, 4, "g_frame", "g_frame.f_lineno");
		uint64_t x;
		sg_ck_err(sg_layout_read_uint(fx->target, l, 3, fact(fx, "addr g_frame"), &x),
			  SG_ERROR_LOOKUP, "SgFrameObject has no member f_trace",
			  "reading an absent member names it");
		sg_layout_destroy(l);
	}

	l = resolve(fx, &flags, NULL);
	if (l) {
		static const char *const names[] = { "a", "b", "c", "wide" };
		for (size_t i = 0; i < 4; i++) {
			char key[64];
			snprintf(key, sizeof(key), "sg_flags.%s", names[i]);
			check_bits(fx, l, i, key);
			snprintf(key, sizeof(key), "g_flags.%s", names[i]);
			check_read(fx, l, i, "g_flags", key);
		}
		check_field(fx, l, 4, "sg_flags.after", "after", 0);
		check_read(fx, l, 4, "g_flags", "g_flags.after");
		sg_layout_destroy(l);
	}

	resolve_fails(fx, &nope, NULL, SG_ERROR_LOOKUP,
		      "ns::detail::CallInfo has no member nope|frame_ptr");
	static const struct sg_layout_spec missing = { "ns::Missing|Missing2", plain_members };
	resolve_fails(fx, &missing, NULL, SG_ERROR_LOOKUP,
		      "no type ns::Missing|Missing2 in the target's DWARF");
	resolve_fails(fx, &missing, &wrong_table, SG_ERROR_LOOKUP,
		      "no type ns::Missing|Missing2 in the target's DWARF or in built-in table "
		      "wrong on purpose");
	static const char *const shared_members[] = { "own", "ref_cnt", NULL };
	static const struct sg_layout_spec shared = { "ns::detail::Shared", shared_members };
	resolve_fails(fx, &shared, NULL, SG_ERROR_LOOKUP,
		      "ns::detail::Shared member ref_cnt is in a virtual base: no fixed offset");
	static const char *const static_members[] = { "x", "counter", NULL };
	static const struct sg_layout_spec with_static = { "ns::detail::WithStatic",
							   static_members };
	resolve_fails(fx, &with_static, NULL, SG_ERROR_LOOKUP,
		      "ns::detail::WithStatic member counter is static: no offset in the object");
	static const char *const through_pointer[] = { "f_back.f_lineno", NULL };
	static const struct sg_layout_spec pointer_path = { "SgFrameObject", through_pointer };
	resolve_fails(fx, &pointer_path, NULL, SG_ERROR_LOOKUP,
		      "SgFrameObject member f_back.f_lineno: f_back is not a struct, class or union");
	static const char *const bad_members[] = { "f_back", "a..b", NULL };
	static const struct sg_layout_spec bad = { "SgFrameObject", bad_members };
	resolve_fails(fx, &bad, NULL, SG_ERROR_USAGE, "bad layout member \"a..b\"");
}

/* The plugin's table for "this build", made of what the stripped fixture
   printed, as a plugin's table is made from a build it knows.  */
static void test_table(const struct fixture *fx)
{
	uint64_t low = 0, width = 0;
	bit_fact(fx, "sg_flags.wide", &low, &width);
	const struct sg_layout_row rows[] = {
		SG_LAYOUT_SIZE("ns::detail::CallInfo", fact(fx, "size CallInfo")),
		SG_LAYOUT_MEMBER("ns::detail::CallInfo", "call", fact(fx, "off CallInfo.call"), 8),
		SG_LAYOUT_MEMBER("ns::detail::CallInfo", "func", fact(fx, "off CallInfo.func"), 8),
		SG_LAYOUT_MEMBER("ns::detail::CallInfo", "args", fact(fx, "off CallInfo.args"), 8),
		SG_LAYOUT_BITS("sg_flags", "wide", low / 8, low % 8, width),
		SG_LAYOUT_END,
	};
	const struct sg_layout_table table = { TABLE_LABEL, rows };

	resolve_fails(fx, &callinfo, NULL, SG_ERROR_LOOKUP,
		      "no type CallInfoOld|ns::detail::CallInfo in the target's DWARF");
	struct sg_layout *l = resolve(fx, &callinfo, &table);
	if (l) {
		is_str(l->table, TABLE_LABEL, "CallInfo: from the built-in table");
		is_str(l->note,
		       "layout from built-in table " TABLE_LABEL ": no DWARF for ns::detail::CallInfo",
		       "  and the note says so");
		ok(l->type_alternative == 1 && l->size == fact(fx, "size CallInfo"),
		   "  the second type spelling, sizeof %" PRIu64, l->size);
		check_field(fx, l, 0, "CallInfo.call", "call", 0);
		check_field(fx, l, 1, "CallInfo.func", "func", 1);
		check_field(fx, l, 2, "CallInfo.args", "args", 0);
		check_read(fx, l, 1, "g_callinfo", "g_callinfo.func");
		sg_layout_destroy(l);
	}
	resolve_fails(fx, &nope, &table, SG_ERROR_LOOKUP,
		      "ns::detail::CallInfo has no member nope|frame_ptr in built-in table " TABLE_LABEL);

	/* The table alone: the same answer, without a target.  */
	struct sg_error *err = sg_layout_resolve_table(&callinfo, &table, &l);
	ok(!err, "sg_layout_resolve_table: CallInfo%s%s", err ? ": " : "",
	   err ? sg_error_message(err) : "");
	sg_error_destroy(err);
	if (!err) {
		is_str(l->table, TABLE_LABEL, "  from the table, marked");
		check_field(fx, l, 1, "CallInfo.func", "func", 1);
		sg_layout_destroy(l);
	}
	static const char *const missing_members[] = { "a", NULL };
	static const struct sg_layout_spec missing = { "ns::Missing|Missing2", missing_members };
	err = sg_layout_resolve_table(&missing, &table, &l);
	is_str(err ? sg_error_message(err) : "(no error)",
	       "no type ns::Missing|Missing2 in built-in table " TABLE_LABEL,
	       "sg_layout_resolve_table: a type the table lacks");
	sg_error_destroy(err);

	static const char *const wide_members[] = { "?a", "wide", NULL };
	static const struct sg_layout_spec wide = { "sg_flags", wide_members };
	l = resolve(fx, &wide, &table);
	if (l) {
		ok(!l->fields[0].present, "sg_flags.a: optional and not in the table");
		check_bits(fx, l, 1, "sg_flags.wide");
		check_read(fx, l, 1, "g_flags", "g_flags.wide");
		sg_layout_destroy(l);
	}
}

/* Copy the fixture without its DWARF into DIR; the copy's path.  */
static char *strip_copy(const char *fixture, char *dir)
{
	if (!mkdtemp(dir))
		return NULL;
	char *out;
	if (asprintf(&out, "%s/sg-layout-stripped", dir) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		execlp("objcopy", "objcopy", "--strip-debug", fixture, out, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		printf("# objcopy --strip-debug failed (status %d)\n", status);
		free(out);
		return NULL;
	}
	return out;
}

int main(void)
{
	/* A hang must not outlive the test; the fixture dies with us.  */
	alarm(120);
	const char *dir = getenv("FIXTURES");
	char *path;
	if (asprintf(&path, "%s/sg-layout", dir ? dir : "tests/fixtures") < 0)
		return 1;

	struct fixture fx;
	bool skip;
	if (start_fixture(&fx, path, &skip)) {
		test_dwarf(&fx);
		stop_fixture(&fx);
	} else if (skip) {
		free(path);
		return tap_done();
	}

	const char *tmp = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/sg-layout-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *stripped = strip_copy(path, tmpl);
	ok(stripped != NULL, "a copy of the fixture without DWARF");
	if (stripped && start_fixture(&fx, stripped, &skip)) {
		test_table(&fx);
		stop_fixture(&fx);
	}
	if (stripped) {
		unlink(stripped);
		rmdir(tmpl);
	}
	free(stripped);
	free(path);
	return tap_done();
}
