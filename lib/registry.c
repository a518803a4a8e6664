/* Registries of unwinders, typed readers, stack providers and type
   printers: named,
   priority-ordered handler lists in the manner of libdrgn's handler.h.  */
#include <config.h>
#include "internal.h"
#include "snapshot.h"

#include <fnmatch.h>

static const char *const kind_names[SG_REGISTRY_NKINDS] = {
	[SG_REGISTRY_UNWINDER] = "unwinder",
	[SG_REGISTRY_READER] = "reader",
	[SG_REGISTRY_STACK_PROVIDER] = "stack provider",
	[SG_REGISTRY_TYPE_PRINTER] = "type printer",
};

const char *sg_registry_kind_name(enum sg_registry_kind kind)
{
	return (unsigned)kind < SG_REGISTRY_NKINDS ? kind_names[kind] : "?";
}

static void handler_destroy(enum sg_registry_kind kind, struct sg_handler *h)
{
	void (*destroy)(void *) = NULL;
	switch (kind) {
	case SG_REGISTRY_UNWINDER:
		destroy = ((const struct sg_unwinder_ops *)h->e.ops)->destroy;
		break;
	case SG_REGISTRY_READER:
		destroy = ((const struct sg_reader_ops *)h->e.ops)->destroy;
		break;
	case SG_REGISTRY_STACK_PROVIDER:
		destroy = ((const struct sg_stack_provider_ops *)h->e.ops)->destroy;
		break;
	case SG_REGISTRY_TYPE_PRINTER:
		destroy = ((const struct sg_type_printer_ops *)h->e.ops)->destroy;
		break;
	case SG_REGISTRY_NKINDS:
		break;
	}
	if (destroy)
		destroy(h->e.arg);
	free(h->name_copy);
	free(h->pattern_copy);
}

static struct sg_error *registry_add(struct sg_session *s, enum sg_registry_kind kind,
				     const char *name, const char *pattern, int priority,
				     const void *ops, void *arg)
{
	if (!name || !name[0] || !ops)
		return sg_error_format(SG_ERROR_USAGE, "%s registration needs a name and ops",
				       kind_names[kind]);
	for (size_t i = 0; i < s->nhandlers[kind]; i++)
		if (!strcmp(s->handlers[kind][i].e.name, name))
			return sg_error_format(SG_ERROR_PLUGIN, "%s \"%s\" is already registered",
					       kind_names[kind], name);
	struct sg_handler *h = sg_array_push(&s->handlers[kind], &s->nhandlers[kind],
					     &s->handlers_cap[kind], sizeof(*h));
	if (!h)
		return &sg_enomem;
	h->name_copy = strdup(name);
	h->pattern_copy = pattern ? strdup(pattern) : NULL;
	if (!h->name_copy || (pattern && !h->pattern_copy)) {
		free(h->name_copy);
		free(h->pattern_copy);
		s->nhandlers[kind]--;
		return &sg_enomem;
	}
	h->e.name = h->name_copy;
	h->e.pattern = h->pattern_copy;
	h->e.priority = priority;
	h->e.ops = ops;
	h->e.arg = arg;
	h->owner = s->loading;
	h->e.plugin = s->loading ? s->loading->info->name : NULL;
	h->e.abi_minor = s->loading ? s->loading->info->abi_minor : SG_PLUGIN_ABI_MINOR;
	/* Keep priority order; equal priorities stay in registration order. */
	struct sg_handler tmp = *h;
	size_t i = s->nhandlers[kind] - 1;
	while (i > 0 && s->handlers[kind][i - 1].e.priority > priority) {
		s->handlers[kind][i] = s->handlers[kind][i - 1];
		i--;
	}
	s->handlers[kind][i] = tmp;
	s->registry_generation++;
	return NULL;
}

struct sg_error *sg_unwinder_register(struct sg_session *s, const char *name, int priority,
				      const struct sg_unwinder_ops *ops, void *arg)
{
	if (ops && !ops->step)
		return sg_error_format(SG_ERROR_USAGE, "unwinder \"%s\" has no step", name);
	return registry_add(s, SG_REGISTRY_UNWINDER, name, NULL, priority, ops, arg);
}

struct sg_error *sg_reader_register(struct sg_session *s, const char *name, const char *pattern,
				    const struct sg_reader_ops *ops, void *arg)
{
	if (!pattern || !pattern[0])
		return sg_error_format(SG_ERROR_USAGE, "reader \"%s\" needs a type pattern",
				       name ? name : "");
	return registry_add(s, SG_REGISTRY_READER, name, pattern, 0, ops, arg);
}

struct sg_error *sg_stack_provider_register(struct sg_session *s, const char *name,
					    const struct sg_stack_provider_ops *ops, void *arg)
{
	if (ops && !ops->frames)
		return sg_error_format(SG_ERROR_USAGE, "stack provider \"%s\" has no frames",
				       name);
	return registry_add(s, SG_REGISTRY_STACK_PROVIDER, name, NULL, 0, ops, arg);
}

struct sg_error *sg_type_printer_register(struct sg_session *s, const char *name,
					  const struct sg_type_printer_ops *ops, void *arg)
{
	if (ops && !ops->name)
		return sg_error_format(SG_ERROR_USAGE, "type printer \"%s\" has no name op",
				       name ? name : "");
	return registry_add(s, SG_REGISTRY_TYPE_PRINTER, name, NULL, 0, ops, arg);
}

void sg_registry_foreach(struct sg_session *s, enum sg_registry_kind kind,
			 int (*fn)(const struct sg_registry_entry *entry, void *arg), void *arg)
{
	if ((unsigned)kind >= SG_REGISTRY_NKINDS)
		return;
	for (size_t i = 0; i < s->nhandlers[kind]; i++)
		if (fn(&s->handlers[kind][i].e, arg) != SG_CB_OK)
			break;
}

/* A reader that hands a value to another reader (std::optional to its
   contained type's) can be made to loop by the target: an std::any that
   holds itself.  Every such call is counted.  */
#define MAX_READER_DEPTH 32

struct sg_error *sg_reader_enter(struct sg_session *s)
{
	if (s->reader_depth >= MAX_READER_DEPTH)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "readers nested more than %d deep (a value that contains itself?)",
				       MAX_READER_DEPTH);
	s->reader_depth++;
	return NULL;
}

void sg_reader_leave(struct sg_session *s)
{
	if (s->reader_depth > 0)
		s->reader_depth--;
}

/* Finding a value's reader builds its type's qualified name, which walks
   the type's unit from the top (dwarf_getscopes_die), and a runtime
   plugin asks once per sample.  So the name is remembered per type DIE
   on the target, and so is the reader when patterns alone chose it: a
   reader's match may look at the value (std::any's reader asks what it
   holds), so an answer that called a match is found again each time.
   Answers hold for one generation of the registries.  */
#define READER_CACHE_SIZE 64	/* 32 sets of two: 5 bits of hash */

struct reader_slot {
	const void *type;	/* the type DIE's address; NULL: empty */
	char *name;		/* its qualified name, or NULL */
	uint64_t generation;	/* of the answer below */
	bool known;		/* INDEX is the answer */
	size_t index;		/* into the readers, or SIZE_MAX: none */
};

struct sg_reader_cache {
	struct reader_slot e[READER_CACHE_SIZE];
	unsigned char victim[READER_CACHE_SIZE / 2];	/* per set: the way to replace */
};

void sg_reader_cache_destroy(struct sg_reader_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < READER_CACHE_SIZE; i++)
		free(cache->e[i].name);
	free(cache);
}

/* The first reader whose pattern matches NAME and whose match accepts V;
   *MATCHED_RET says whether a match was asked.  */
static const struct sg_registry_entry *reader_find(struct sg_session *s, const char *name,
						   const struct sg_value *v, size_t *index_ret,
						   bool *matched_ret)
{
	*index_ret = SIZE_MAX;
	*matched_ret = false;
	for (size_t i = 0; name && i < s->nhandlers[SG_REGISTRY_READER]; i++) {
		const struct sg_registry_entry *e = &s->handlers[SG_REGISTRY_READER][i].e;
		const struct sg_reader_ops *ops = e->ops;
		if (!e->pattern || fnmatch(e->pattern, name, 0) != 0)
			continue;
		if (!ops->match) {
			*index_ret = i;
			return e;
		}
		/* match may look up the reader of a contained value (an
		   std::any's), and that one's match the next: counted too.  */
		*matched_ret = true;
		struct sg_error *err = sg_reader_enter(s);
		if (err) {
			sg_error_destroy(err);
			return NULL;
		}
		bool yes = ops->match(s, v, e->arg);
		sg_reader_leave(s);
		if (yes) {
			*index_ret = i;
			return e;
		}
	}
	return NULL;
}

const struct sg_registry_entry *sg_reader_lookup(struct sg_session *s, const struct sg_value *v)
{
	Dwarf_Die type;
	sg_type_strip(sg_value_type(v), &type);
	struct sg_target *t = sg_value_target(v);
	if (!t->readers)
		t->readers = calloc(1, sizeof(*t->readers));
	struct reader_slot *slot = NULL;
	char *name;
	if (t->readers) {
		/* Two ways per set, the older one replaced: two types asked
		   for in turn (a profiler's two vectors) may share a set.  */
		uint64_t h = (uint64_t)(uintptr_t)type.addr * UINT64_C(0x9e3779b97f4a7c15);
		size_t set = (h >> 59) * 2;	/* 32 sets */
		struct sg_reader_cache *c = t->readers;
		slot = &c->e[set];
		if (slot->type != type.addr && c->e[set + 1].type == type.addr)
			slot = &c->e[set + 1];
		else if (slot->type != type.addr)
			slot = &c->e[set + c->victim[set / 2]];
		c->victim[set / 2] = slot == &c->e[set];
		if (slot->type != type.addr) {
			free(slot->name);
			slot->type = type.addr;
			slot->name = sg_type_qualified_name(&type);
			slot->known = false;
		}
		if (slot->known && slot->generation == s->registry_generation)
			return slot->index == SIZE_MAX ? NULL
						       : &s->handlers[SG_REGISTRY_READER][slot->index].e;
		/* A match may look up a type that takes this slot.  */
		name = slot->name ? strdup(slot->name) : NULL;
	} else {
		name = sg_type_qualified_name(&type);
	}
	size_t index;
	bool matched;
	const struct sg_registry_entry *found = reader_find(s, name, v, &index, &matched);
	free(name);
	/* The slot may have been taken by a type a match looked up.  */
	if (slot && slot->type == type.addr && slot->name && !matched) {
		slot->known = true;
		slot->generation = s->registry_generation;
		slot->index = index;
	}
	return found;
}

enum reader_op { OP_SUMMARY, OP_CHILDREN, OP_BYTES, OP_DEREF };

/* The deref op of E's reader, if its plugin was built for ABI 1.3 or
   later (older ops tables end before it).  */
static bool has_deref(const struct sg_registry_entry *e)
{
	return e->abi_minor >= 3 && ((const struct sg_reader_ops *)e->ops)->deref;
}

/* The reader of V that has operation OP.  */
static struct sg_error *reader_with(struct sg_session *s, const struct sg_value *v, enum reader_op op,
				    const struct sg_registry_entry **ret)
{
	static const char *const what[] = { "summary", "children", "bytes", "referent" };
	const struct sg_registry_entry *e = sg_reader_lookup(s, v);
	const struct sg_reader_ops *ops = e ? e->ops : NULL;
	if (ops && ((op == OP_SUMMARY && ops->summary) || (op == OP_CHILDREN && ops->children) ||
		    (op == OP_BYTES && ops->bytes) || (op == OP_DEREF && has_deref(e)))) {
		*ret = e;
		return NULL;
	}
	char *name = sg_type_qualified_name(sg_value_type(v));
	struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP, "no reader gives the %s of %s",
					       what[op], name ? name : "this type");
	free(name);
	return err;
}

struct sg_error *sg_value_summary(struct sg_session *s, const struct sg_value *v, char **ret)
{
	const struct sg_registry_entry *e;
	struct sg_error *err = reader_with(s, v, OP_SUMMARY, &e);
	if (err || (err = sg_reader_enter(s)))
		return err;
	err = ((const struct sg_reader_ops *)e->ops)->summary(s, v, ret, e->arg);
	sg_reader_leave(s);
	return err;
}

struct sg_error *sg_value_children(struct sg_session *s, const struct sg_value *v, size_t limit,
				   int (*fn)(const char *name, struct sg_value *child, void *fn_arg),
				   void *fn_arg)
{
	const struct sg_registry_entry *e;
	struct sg_error *err = reader_with(s, v, OP_CHILDREN, &e);
	if (err || (err = sg_reader_enter(s)))
		return err;
	err = ((const struct sg_reader_ops *)e->ops)->children(s, v, limit, fn, fn_arg, e->arg);
	sg_reader_leave(s);
	return err;
}

struct sg_error *sg_value_bytes(struct sg_session *s, const struct sg_value *v, size_t max, char **ret,
				size_t *len_ret)
{
	const struct sg_registry_entry *e;
	struct sg_error *err = reader_with(s, v, OP_BYTES, &e);
	if (err || (err = sg_reader_enter(s)))
		return err;
	err = ((const struct sg_reader_ops *)e->ops)->bytes(s, v, max, ret, len_ret, e->arg);
	sg_reader_leave(s);
	return err;
}

struct sg_error *sg_value_deref(struct sg_session *s, const struct sg_value *v, struct sg_value **ret)
{
	const struct sg_registry_entry *e;
	struct sg_error *err = reader_with(s, v, OP_DEREF, &e);
	if (err || (err = sg_reader_enter(s)))
		return err;
	err = ((const struct sg_reader_ops *)e->ops)->deref(s, v, ret, e->arg);
	sg_reader_leave(s);
	return err;
}

/* Type printers name a template's arguments through this again, and
   hostile DWARF can nest a template in itself: counted as readers are. */
struct sg_error *sg_type_printer_name(struct sg_session *s, struct sg_target *target,
				      const Dwarf_Die *type, char **ret)
{
	struct sg_error *err = sg_reader_enter(s);
	if (err)
		return err;
	err = &sg_not_found;
	for (size_t i = 0; err == &sg_not_found && i < s->nhandlers[SG_REGISTRY_TYPE_PRINTER]; i++) {
		const struct sg_registry_entry *e = &s->handlers[SG_REGISTRY_TYPE_PRINTER][i].e;
		err = ((const struct sg_type_printer_ops *)e->ops)->name(s, target, type, ret, e->arg);
	}
	sg_reader_leave(s);
	return err;
}

/* The members a stack provider's ops have, by the ABI minor its plugin
   was built for (the core's own registrations have all of them).  */
static const struct sg_stack_provider_ops *provider_ops_v1_1(const struct sg_handler *h)
{
	if (h->e.abi_minor < 1)
		return NULL;
	return h->e.ops;
}

void sg_registry_forget_target(struct sg_session *s, struct sg_target *target)
{
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_UNWINDER]; i++) {
		struct sg_handler *h = &s->handlers[SG_REGISTRY_UNWINDER][i];
		const struct sg_unwinder_ops *ops = h->e.ops;
		if (ops->forget)
			ops->forget(target, h->e.arg);
	}
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_STACK_PROVIDER]; i++) {
		struct sg_handler *h = &s->handlers[SG_REGISTRY_STACK_PROVIDER][i];
		const struct sg_stack_provider_ops *ops = provider_ops_v1_1(h);
		if (ops && ops->forget)
			ops->forget(target, h->e.arg);
	}
}

void sg_registry_prepare_target(struct sg_session *s, struct sg_target *target)
{
	/* A snapshot taken of a live TARGET later asks these providers, and
	   needs its mappings: parsed now, before the stop.  */
	if (sg_target_kind(target) == SG_TARGET_LIVE) {
		sg_error_destroy(sg_target_set_data(target, &sg_snapshot_session_key, s, NULL));
		sg_target_mapping_index(target, 0);
	}
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_STACK_PROVIDER]; i++) {
		struct sg_handler *h = &s->handlers[SG_REGISTRY_STACK_PROVIDER][i];
		const struct sg_stack_provider_ops *ops = provider_ops_v1_1(h);
		if (ops && ops->prepare)
			ops->prepare(s, target, h->e.arg);
	}
}

static int drop_frame(const struct sg_runtime_frame *frame SG_UNUSED, void *arg SG_UNUSED)
{
	return SG_CB_OK;
}

void sg_registry_snapshot_prepare(struct sg_session *s, struct sg_target *target)
{
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_STACK_PROVIDER]; i++) {
		struct sg_handler *h = &s->handlers[SG_REGISTRY_STACK_PROVIDER][i];
		const struct sg_stack_provider_ops *ops = h->e.ops;
		if (h->e.abi_minor >= 6 && ops->snapshot_prepare) {
			ops->snapshot_prepare(s, target, h->e.arg);
			continue;
		}
		/* What frames() reads, for a provider that says no more.  */
		for (size_t k = 0; k < sg_target_thread_count(target); k++)
			sg_error_destroy(ops->frames(s, sg_target_thread(target, k), drop_frame, NULL,
						     h->e.arg));
	}
}

void sg_registry_remove_owner(struct sg_session *s, struct sg_plugin *owner)
{
	for (int k = 0; k < SG_REGISTRY_NKINDS; k++) {
		size_t n = 0;
		for (size_t i = 0; i < s->nhandlers[k]; i++) {
			struct sg_handler *h = &s->handlers[k][i];
			if (h->owner == owner)
				handler_destroy(k, h);
			else
				s->handlers[k][n++] = *h;
		}
		s->nhandlers[k] = n;
	}
	s->registry_generation++;
}

void sg_registry_deinit(struct sg_session *s)
{
	for (int k = 0; k < SG_REGISTRY_NKINDS; k++) {
		for (size_t i = 0; i < s->nhandlers[k]; i++)
			handler_destroy(k, &s->handlers[k][i]);
		free(s->handlers[k]);
		s->handlers[k] = NULL;
		s->nhandlers[k] = s->handlers_cap[k] = 0;
	}
}
