/* Walking Zeek's script call stack.

   call_stack holds one CallInfo per call, outermost first.  Frame i
   runs the function of entry i; the line it is at is where it made the
   next call (entry i+1's CallExpr), or for the innermost frame, and for
   a call made from C++ (no CallExpr, as for events), the statement its
   Frame executes next.  Built-in functions execute no statement.

   Everything is read from a stopped target whose memory may be broken:
   every vector is bounded, every pointer read can fail, and a Func must
   look like one (a known kind, a printable name) before it is used.  */
#include <config.h>
#include "zeek.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s std::vector and std::string, for builds without DWARF
   (the table's case): _M_start and _M_finish, _M_p and
   _M_string_length, the first two words of each.  With DWARF the
   libstdc++ readers read them.  */
struct words {
	uint64_t first, second;
};

static struct sg_error *read_words(struct sg_target *t, uint64_t addr, struct words *w)
{
	uint64_t buf[2];
	struct sg_error *err = sg_target_read(t, addr, buf, sizeof(buf));
	if (!err)
		*w = (struct words){ buf[0], buf[1] };
	return err;
}

struct addrs {
	uint64_t *a;
	size_t n, cap;
	bool nomem;
};

static int take_address(const char *name SG_UNUSED, struct sg_value *child, void *arg)
{
	struct addrs *l = arg;
	uint64_t *slot = sg_array_push(&l->a, &l->n, &l->cap, sizeof(*slot));
	if (!slot) {
		l->nomem = true;
		return SG_CB_ABORT;
	}
	*slot = sg_value_address(child);
	return SG_CB_OK;
}

/* The addresses of the elements of the vector VAR (of type DIE when
   DWARF gives it), of ELEM_SIZE bytes each; at most ZK_MAX_DEPTH.  */
static struct sg_error *vector_elements(struct sg_session *s, struct sg_target *t,
					const struct zk_proc *p, const Dwarf_Die *die,
					uint64_t var, uint64_t elem_size, const char *what,
					struct addrs *ret)
{
	struct sg_error *err;
	if (p->have_dies) {
		struct sg_value *v;
		err = sg_value_at(t, die, var, &v);
		if (err)
			return err;
		err = sg_value_children(s, v, ZK_MAX_DEPTH + 1, take_address, ret);
		sg_value_destroy(v);
		if (!err && ret->nomem)
			err = &sg_enomem;
		if (!err && ret->n > ZK_MAX_DEPTH)
			err = sg_error_format(SG_ERROR_BAD_DATA,
					      "%s has more than %d entries: not a call stack", what,
					      ZK_MAX_DEPTH);
		if (err && err != &sg_enomem && strncmp(sg_error_message(err), what, strlen(what))) {
			struct sg_error *e = sg_error_format(sg_error_code(err), "%s: %s", what,
							     sg_error_message(err));
			sg_error_destroy(err);
			err = e;
		}
		return err;
	}
	struct words w;
	err = read_words(t, var, &w);
	if (err)
		return err;
	uint64_t start = w.first, finish = w.second;
	if (finish < start || (finish - start) % elem_size || (!start && finish))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "%s is not a vector of %" PRIu64 "-byte entries "
				       "(start 0x%" PRIx64 ", finish 0x%" PRIx64 ")",
				       what, elem_size, start, finish);
	uint64_t n = (finish - start) / elem_size;
	if (n > ZK_MAX_DEPTH)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "%s has %" PRIu64 " entries, more than %d: not a call stack",
				       what, n, ZK_MAX_DEPTH);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t *slot = sg_array_push(&ret->a, &ret->n, &ret->cap, sizeof(*slot));
		if (!slot)
			return &sg_enomem;
		*slot = start + i * elem_size;
	}
	return NULL;
}

static bool printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return false;
	return len > 0;
}

/* Func::name: through the std::string reader, or libstdc++'s layout.  */
static struct sg_error *read_name(struct sg_session *s, struct sg_target *t,
				  const struct zk_proc *p, uint64_t addr, char **ret)
{
	struct sg_error *err;
	size_t len;
	char *name = NULL;
	if (p->have_dies) {
		struct sg_value *v;
		err = sg_value_at(t, &p->name_die, addr, &v);
		if (err)
			return err;
		err = sg_value_bytes(s, v, ZK_MAX_NAME + 1, &name, &len);
		sg_value_destroy(v);
		if (err)
			return err;
	} else {
		struct words w;
		err = read_words(t, addr, &w);
		if (err)
			return err;
		len = w.second;
		if (len > ZK_MAX_NAME)
			return sg_error_format(SG_ERROR_BAD_DATA, "a std::string of %" PRIu64 " bytes: not a name",
					       w.second);
		name = malloc(len + 1);
		if (!name)
			return &sg_enomem;
		err = sg_target_read(t, w.first, name, len);
		if (err) {
			free(name);
			return err;
		}
		name[len] = '\0';
	}
	if (len > ZK_MAX_NAME || !printable(name, len)) {
		free(name);
		return sg_error_create(SG_ERROR_BAD_DATA, "its name is not text");
	}
	*ret = name;
	return NULL;
}

/* The Func at ADDR into F, read once and then remembered.  */
static struct sg_error *get_func(struct sg_session *s, struct sg_target *t, struct zk_proc *p,
				 uint64_t addr, struct zk_frame *f)
{
	const struct zk_func *zf = NULL;
	for (size_t i = 0; i < p->nfuncs && !zf; i++)
		if (p->funcs[i].address == addr)
			zf = &p->funcs[i];
	if (!zf) {
		const struct sg_layout *fl = p->layouts[ZK_FUNC];
		uint64_t kind, type;
		struct sg_error *err = sg_layout_read_uint(t, fl, FN_KIND, addr, &kind);
		if (!err && kind != ZK_KIND_SCRIPT && kind != ZK_KIND_BUILTIN)
			err = sg_error_format(SG_ERROR_BAD_DATA,
					      "its kind is %" PRIu64 ", not 0 or 1 (not a Func?)", kind);
		if (!err)
			err = sg_layout_read_uint(t, fl, FN_TYPE, addr, &type);
		char *name = NULL;
		if (!err) {
			err = read_name(s, t, p, addr + fl->fields[FN_NAME].offset, &name);
			if (err && err != &sg_enomem && strncmp(sg_error_message(err), "its name", 8)) {
				struct sg_error *e = sg_error_format(sg_error_code(err), "its name: %s",
								     sg_error_message(err));
				sg_error_destroy(err);
				err = e;
			}
		}
		if (err)
			return err;
		/* The flavor is FuncType's; a Func without a type is a plain
		   function.  */
		int flavor = ZK_FLAVOR_FUNCTION;
		if (type && p->layouts[ZK_FUNCTYPE]) {
			uint64_t fv;
			struct sg_error *e = sg_layout_read_uint(t, p->layouts[ZK_FUNCTYPE], FT_FLAVOR,
								 type, &fv);
			flavor = e || fv > ZK_FLAVOR_HOOK ? -1 : (int)fv;
			sg_error_destroy(e);
		} else if (type) {
			flavor = -1;
		}
		struct zk_func *slot = sg_array_push(&p->funcs, &p->nfuncs, &p->funcs_cap,
						     sizeof(*slot));
		if (!slot) {
			free(name);
			return &sg_enomem;
		}
		*slot = (struct zk_func){ addr, name, (int)kind, flavor };
		zf = slot;
	}
	/* The name stays where it is when the cache grows.  */
	f->function = zf->name;
	f->flavor = zf->flavor;
	f->builtin = zf->kind == ZK_KIND_BUILTIN;
	return NULL;
}

/* The Location of the Obj at OBJ (a Stmt or a CallExpr, by LAYOUT):
   file and first line; both unknown for a null location.  */
static struct sg_error *read_location(struct sg_target *t, const struct zk_proc *p,
				      enum zk_type type, uint64_t obj, char **file, int *line)
{
	uint64_t loc, fname, first;
	struct sg_error *err = sg_layout_read_uint(t, p->layouts[type], 0, obj, &loc);
	if (err || !loc)
		return err;
	const struct sg_layout *ll = p->layouts[ZK_LOCATION];
	err = sg_layout_read_uint(t, ll, LOC_FILENAME, loc, &fname);
	if (!err)
		err = sg_layout_read_uint(t, ll, LOC_FIRST_LINE, loc, &first);
	if (err)
		return sg_error_format(sg_error_code(err), "its Location at 0x%" PRIx64 ": %s", loc,
				       sg_error_message(err));
	if (fname) {
		bool truncated;
		err = sg_target_read_string(t, fname, ZK_MAX_FILE, file, &truncated);
		if (!err && (truncated || !printable(*file, strlen(*file)))) {
			free(*file);
			*file = NULL;
			err = sg_error_create(SG_ERROR_BAD_DATA, "not text");
		}
		if (err) {
			struct sg_error *e = sg_error_format(
				sg_error_code(err), "the file name at 0x%" PRIx64 " of its Location at 0x%" PRIx64 ": %s",
				fname, loc, sg_error_message(err));
			sg_error_destroy(err);
			return e;
		}
	}
	*line = (int)(uint32_t)first;
	return NULL;
}

/* One entry of call_stack, read.  */
struct entry {
	uint64_t call;		/* CallExpr in the caller, or 0 */
	uint64_t frame;		/* its Frame, or 0 (built-ins up to 8.0) */
	uint64_t func;
};

static struct sg_error *entry_error(struct sg_error *err, size_t i, size_t n, const char *what,
				    uint64_t addr)
{
	if (err == &sg_enomem)
		return err;
	struct sg_error *e = sg_error_format(sg_error_code(err),
					     "call_stack[%zu] (of %zu): %s at 0x%" PRIx64 ": %s", i, n,
					     what, addr, sg_error_message(err));
	sg_error_destroy(err);
	return e;
}

/* Up to 8.0 Frames are on g_frame_stack, one per call of a script
   function, in call_stack's order; built-ins have none.  When the two
   agree (as many Frames as script entries, each Frame's function the
   entry's), every script entry gets its Frame; otherwise only the
   innermost, when the last Frame is its, as zeek-spy did.  */
static struct sg_error *match_frames(struct sg_session *s, struct sg_target *t,
				     const struct zk_proc *p, struct entry *e,
				     const struct zk_frame *out, size_t n)
{
	if (!p->frame_stack || !p->layouts[ZK_FRAME])
		return NULL;
	struct addrs fs = { 0 };
	struct sg_error *err = vector_elements(s, t, p, &p->frame_stack_die, p->frame_stack, 8,
					       "g_frame_stack", &fs);
	/* Each Frame and its function.  */
	uint64_t *frames = NULL, *fns = NULL;
	if (!err && fs.n) {
		frames = calloc(fs.n, sizeof(*frames));
		fns = calloc(fs.n, sizeof(*fns));
		if (!frames || !fns)
			err = &sg_enomem;
	}
	for (size_t j = 0; !err && j < fs.n; j++) {
		err = sg_target_read_u64(t, fs.a[j], &frames[j]);
		if (err)
			break;
		struct sg_error *r = sg_layout_read_uint(t, p->layouts[ZK_FRAME], FR_FUNCTION,
							 frames[j], &fns[j]);
		sg_error_destroy(r);
	}
	size_t scripts = 0;
	for (size_t i = 0; i < n; i++)
		scripts += e[i].func && !out[n - 1 - i].builtin;
	bool agree = !err && fs.n == scripts;
	for (size_t i = 0, j = 0; agree && i < n; i++)
		if (e[i].func && !out[n - 1 - i].builtin)
			agree = fns[j++] == e[i].func;
	for (size_t i = 0, j = 0; agree && i < n; i++)
		if (e[i].func && !out[n - 1 - i].builtin)
			e[i].frame = frames[j++];
	if (!err && !agree && fs.n) {
		size_t i = n;
		while (i-- > 0 && (!e[i].func || out[n - 1 - i].builtin))
			;
		if (i < n && fns[fs.n - 1] == e[i].func)
			e[i].frame = frames[fs.n - 1];
	}
	free(fs.a);
	free(frames);
	free(fns);
	return err;
}

struct sg_error *zk_walk(struct sg_session *s, struct sg_target *t, struct zk_proc *p,
			 struct zk_frame **frames_ret, size_t *count_ret)
{
	*frames_ret = NULL;
	*count_ret = 0;
	const struct sg_layout *ci = p->layouts[ZK_CALLINFO];
	uint64_t ci_size = ci->size ? ci->size : (p->frames_walk ? 16 : 24);
	struct addrs cs = { 0 };
	struct sg_error *err = vector_elements(s, t, p, &p->call_stack_die, p->call_stack, ci_size,
					       "call_stack", &cs);
	if (err || !cs.n) {
		free(cs.a);
		return err;
	}
	size_t n = cs.n;
	struct entry *e = calloc(n, sizeof(*e));
	struct zk_frame *out = calloc(n, sizeof(*out));
	if (!e || !out) {
		err = &sg_enomem;
		goto out;
	}
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t second;
		err = sg_layout_read_uint(t, ci, CI_CALL, cs.a[i], &e[i].call);
		if (!err)
			err = sg_layout_read_uint(t, ci, CI_FRAME_OR_FUNC, cs.a[i], &second);
		if (err) {
			err = entry_error(err, i, n, "CallInfo", cs.a[i]);
			break;
		}
		if (!p->frames_walk) {
			e[i].func = second;
			continue;
		}
		e[i].frame = second;
		if (second && p->layouts[ZK_FRAME]) {
			err = sg_layout_read_uint(t, p->layouts[ZK_FRAME], FR_FUNCTION, second,
						  &e[i].func);
			if (err)
				err = entry_error(err, i, n, "Frame", second);
		}
	}
	/* Innermost first in OUT.  */
	for (size_t i = 0; i < n && !err; i++) {
		struct zk_frame *f = &out[n - 1 - i];
		f->func_address = e[i].func;
		f->flavor = -1;
		if (e[i].func) {
			err = get_func(s, t, p, e[i].func, f);
			if (err)
				err = entry_error(err, i, n, "Func", e[i].func);
		}
	}
	if (!err && !p->frames_walk)
		err = match_frames(s, t, p, e, out, n);
	for (size_t i = 0; i < n && !err; i++) {
		struct zk_frame *f = &out[n - 1 - i];
		if (f->builtin)
			continue;
		/* Where this frame is: its call of the next entry, else the
		   statement its Frame runs.  */
		if (i + 1 < n && e[i + 1].call) {
			err = read_location(t, p, ZK_CALLEXPR, e[i + 1].call, (char **)&f->file,
					    &f->line);
			if (err)
				err = entry_error(err, i + 1, n, "CallExpr", e[i + 1].call);
		} else if (e[i].frame && p->layouts[ZK_FRAME]) {
			uint64_t stmt;
			err = sg_layout_read_uint(t, p->layouts[ZK_FRAME], FR_NEXT_STMT, e[i].frame,
						  &stmt);
			if (!err && stmt)
				err = read_location(t, p, ZK_STMT, stmt, (char **)&f->file, &f->line);
			if (err)
				err = entry_error(err, i, n, "Frame", e[i].frame);
		}
	}
out:
	free(cs.a);
	free(e);
	if (err) {
		zk_frames_free(out, n);
		return err;
	}
	*frames_ret = out;
	*count_ret = n;
	return NULL;
}

void zk_frames_free(struct zk_frame *frames, size_t count)
{
	if (!frames)
		return;
	for (size_t i = 0; i < count; i++)
		free((char *)frames[i].file);
	free(frames);
}

const char *zk_frame_kind(const struct zk_frame *f)
{
	if (!f->function)
		return "unknown";
	if (f->builtin)
		return "built-in";
	switch (f->flavor) {
	case ZK_FLAVOR_FUNCTION:
		return "function";
	case ZK_FLAVOR_EVENT:
		return "event";
	case ZK_FLAVOR_HOOK:
		return "hook";
	}
	return "script";
}
