/* Values for typed readers: a DWARF type at a target address, members
   found through base classes, template arguments.  */
#include <config.h>
#include "internal.h"
#include "eval.h"

#include <dwarf.h>
#include <inttypes.h>

struct sg_value {
	struct sg_target *target;
	Dwarf_Die type;
	uint64_t address;
	/* A value computed by a reader (a bit of std::vector<bool>), not in
	   target memory: its bytes, zero-extended.  */
	bool synthetic;
	uint64_t bits;
	/* A value that sg_eval made (value_from_xval): the engine's value,
	   which holds what the fields above cannot (bytes not in memory,
	   registers, synthetic pointers); NULL for a reader's value.  */
	struct xval_saved *eval;
};

struct sg_error *sg_value_at(struct sg_target *target, const Dwarf_Die *type, uint64_t address,
			     struct sg_value **ret)
{
	struct sg_value *v = malloc(sizeof(*v));
	if (!v)
		return &sg_enomem;
	v->target = target;
	v->type = *type;
	v->address = address;
	v->synthetic = false;
	v->bits = 0;
	v->eval = NULL;
	*ret = v;
	return NULL;
}

struct sg_error *sg_value_scalar(struct sg_target *target, const Dwarf_Die *type, uint64_t bits,
				 struct sg_value **ret)
{
	uint64_t size = sg_type_size(type);
	if (size == 0 || size > 8)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "not a scalar type of at most 8 bytes (%" PRIu64 ")", size);
	struct sg_error *err = sg_value_at(target, type, 0, ret);
	if (!err) {
		(*ret)->synthetic = true;
		(*ret)->bits = size == 8 ? bits : bits & ((UINT64_C(1) << (size * 8)) - 1);
	}
	return err;
}

bool sg_value_is_synthetic(const struct sg_value *v, uint64_t *bits_ret)
{
	if (v->synthetic && bits_ret)
		*bits_ret = v->bits;
	return v->synthetic;
}

void sg_value_destroy(struct sg_value *v)
{
	if (v && v->eval) {
		xval_saved_free(v->eval);
		free(v->eval);
	}
	free(v);
}

struct sg_error *value_from_xval(struct sg_target *t, const struct xval *x, struct sg_value **ret)
{
	struct xval_saved *saved = malloc(sizeof(*saved));
	if (!saved)
		return &sg_enomem;
	struct sg_error *err = xval_save(x, saved);
	if (err) {
		free(saved);
		return err;
	}
	/* A reader sees an object in memory at its address, or a value
	   not in memory as a synthetic one (its first 8 bytes).  */
	bool in_memory = x->v.lvalue && !x->ptr_depth;
	if ((err = sg_value_at(t, &x->v.type, in_memory ? x->v.address : 0, ret))) {
		xval_saved_free(saved);
		free(saved);
		return err;
	}
	(*ret)->synthetic = !in_memory;
	(*ret)->bits = in_memory ? 0 : x->v.bits;
	(*ret)->eval = saved;
	return NULL;
}

void value_to_xval(const struct sg_value *v, struct xval *ret)
{
	if (v->eval) {
		*ret = v->eval->x;
		return;
	}
	memset(ret, 0, sizeof(*ret));
	ret->v.type = v->type;
	ret->v.lvalue = !v->synthetic;
	ret->v.address = v->address;
	ret->v.bits = v->bits;
}
struct sg_target *sg_value_target(const struct sg_value *v) { return v->target; }
const Dwarf_Die *sg_value_type(const struct sg_value *v) { return &v->type; }
uint64_t sg_value_address(const struct sg_value *v) { return v->address; }

static bool die_type(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, ret);
}

void sg_type_strip(const Dwarf_Die *type, Dwarf_Die *ret)
{
	*ret = *type;
	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(ret);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return;
		Dwarf_Die next;
		if (!die_type(ret, &next))
			return;
		*ret = next;
	}
}

uint64_t sg_type_size(const Dwarf_Die *type)
{
	Dwarf_Die t;
	sg_type_strip(type, &t);
	Dwarf_Word size;
	if (dwarf_aggregate_size(&t, &size) == 0)
		return size;
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type)
		return 8;
	if (tag == DW_TAG_ptr_to_member_type) {
		/* The Itanium ABI's: a member function pointer is {ptr, adj},
		   a data member pointer an offset.  */
		Dwarf_Die m;
		return die_type(&t, &m) && dwarf_tag(&m) == DW_TAG_subroutine_type ? 16 : 8;
	}
	return 0;
}

static bool udata(Dwarf_Die *die, int name, Dwarf_Word *ret)
{
	Dwarf_Attribute a;
	return dwarf_attr(die, name, &a) && dwarf_formudata(&a, ret) == 0;
}

bool sg_member_bit_field(Dwarf_Die *m, uint64_t *bit_pos, uint64_t *bit_size)
{
	Dwarf_Word bits, pos, loc = 0, storage;
	if (!udata(m, DW_AT_bit_size, &bits) || bits == 0 || bits > 64)
		return false;
	if (udata(m, DW_AT_data_bit_offset, &pos)) {
		*bit_pos = pos;
		*bit_size = bits;
		return true;
	}
	/* DWARF 2-3: DW_AT_bit_offset counts from the most significant bit
	   of a storage unit of DW_AT_byte_size bytes at the member's
	   location; on a little-endian target that is the far end.  */
	udata(m, DW_AT_data_member_location, &loc);
	Dwarf_Die type;
	Dwarf_Attribute a;
	if (!udata(m, DW_AT_byte_size, &storage))
		storage = dwarf_attr_integrate(m, DW_AT_type, &a) && dwarf_formref_die(&a, &type)
			? sg_type_size(&type) : 0;
	if (!udata(m, DW_AT_bit_offset, &pos))
		pos = storage * 8 - bits;
	if (storage == 0 || storage > 8 || pos + bits > storage * 8)
		return false;
	*bit_pos = loc * 8 + storage * 8 - pos - bits;
	*bit_size = bits;
	return true;
}

const char *sg_type_base_name(const char *name)
{
	static const char *const names[][2] = {
		{ "long int", "long" }, { "long unsigned int", "unsigned long" },
		{ "short int", "short" }, { "short unsigned int", "unsigned short" },
		{ "long long int", "long long" }, { "long long unsigned int", "unsigned long long" },
	};
	for (size_t i = 0; i < SG_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return name;
}

char *sg_type_qualified_name(const Dwarf_Die *type)
{
	Dwarf_Die die = *type;
	const char *name = dwarf_diename(&die);
	if (!name)
		return NULL;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(&die, &scopes);
	struct sg_buf b;
	sg_buf_init(&b);
	for (int i = n - 1; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_class_type && tag != DW_TAG_union_type)
			continue;
		const char *sn = dwarf_diename(&scopes[i]);
		sg_buf_puts(&b, sn ? sn : "(anonymous namespace)");
		sg_buf_puts(&b, "::");
	}
	free(scopes);
	sg_buf_puts(&b, name);
	return sg_buf_steal(&b);
}

/* NAME in the class TYPE or its bases, nearest first (breadth first: a
   member of a nearer base hides one further up, as in C++ lookup; this
   finds std::tuple's first element before its later ones).  *OFF_RET is
   its offset.  */
#define MAX_BASES 64
static bool find_member(struct sg_target *t, Dwarf_Die *type, const char *name, Dwarf_Die *type_ret,
			uint64_t *off_ret, int depth)
{
	struct { Dwarf_Die type; uint64_t off; } queue[MAX_BASES];
	size_t head = 0, tail = 0;
	queue[tail].type = *type;
	queue[tail++].off = 0;
	(void)depth;
	while (head < tail) {
		Dwarf_Die st, full, c;
		uint64_t base_off = queue[head].off;
		sg_type_strip(&queue[head++].type, &st);
		sg_type_complete(t, &st, &full);
		if (dwarf_child(&full, &c) != 0)
			continue;
		do {
			int tag = dwarf_tag(&c);
			Dwarf_Attribute a;
			Dwarf_Word off = 0;
			Dwarf_Die mt;
			if (dwarf_attr(&c, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &off);
			if (tag == DW_TAG_member) {
				const char *n = dwarf_diename(&c);
				if (n && !strcmp(n, name) && die_type(&c, type_ret)) {
					*off_ret = base_off + off;
					return true;
				}
			} else if (tag == DW_TAG_inheritance && die_type(&c, &mt) && tail < MAX_BASES) {
				queue[tail].type = mt;
				queue[tail++].off = base_off + off;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return false;
}

/* A reader asks the same questions of every element of a container:
   "where is _M_p in basic_string<char>", "what is its template argument
   0".  Finding the answer walks the class's children (hundreds of
   methods for library classes); remember it per type DIE and question, in
   a direct-mapped table on the target.  */
#define MEMBER_CACHE_SIZE 256
#define MEMBER_KEY_MAX 40

struct member_cache_entry {
	const void *type;	/* the type DIE's address; NULL: empty */
	char key[MEMBER_KEY_MAX];	/* a member name, or "#N" for template argument N */
	bool found;
	Dwarf_Die result;
	uint64_t offset;
};

struct sg_member_cache {
	struct member_cache_entry e[MEMBER_CACHE_SIZE];
};

void sg_member_cache_destroy(struct sg_member_cache *cache)
{
	free(cache);
}

/* The slot for (TYPE, KEY), or NULL when the key is too long to keep or
   there is no memory (then the caller just does the work).  */
static struct member_cache_entry *member_slot(struct sg_target *t, const Dwarf_Die *type,
					      const char *key)
{
	size_t len = strlen(key);
	if (len >= MEMBER_KEY_MAX)
		return NULL;
	if (!t->members && !(t->members = calloc(1, sizeof(*t->members))))
		return NULL;
	uint64_t h = (uint64_t)(uintptr_t)type->addr * UINT64_C(0x9e3779b97f4a7c15);
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * UINT64_C(0x100000001b3);
	return &t->members->e[(h >> 32) % MEMBER_CACHE_SIZE];
}

static bool member_hit(const struct member_cache_entry *slot, const Dwarf_Die *type, const char *key)
{
	return slot && slot->type == type->addr && !strcmp(slot->key, key);
}

static void member_store(struct member_cache_entry *slot, const Dwarf_Die *type, const char *key,
			 bool found, const Dwarf_Die *result, uint64_t offset)
{
	if (!slot)
		return;
	slot->type = type->addr;
	strcpy(slot->key, key);
	slot->found = found;
	if (found)
		slot->result = *result;
	slot->offset = offset;
}

struct sg_error *sg_value_member(const struct sg_value *v, const char *name, struct sg_value **ret)
{
	Dwarf_Die mt;
	uint64_t off = 0;
	if (v->synthetic)
		return sg_error_format(SG_ERROR_BAD_DATA, "a computed value has no member %s", name);
	struct member_cache_entry *slot = member_slot(v->target, &v->type, name);
	bool found;
	if (member_hit(slot, &v->type, name)) {
		found = slot->found;
		mt = slot->result;
		off = slot->offset;
	} else {
		found = find_member(v->target, (Dwarf_Die *)&v->type, name, &mt, &off, 0);
		member_store(slot, &v->type, name, found, &mt, off);
	}
	if (!found) {
		char *tn = sg_type_qualified_name(&v->type);
		struct sg_error *err = sg_error_format(SG_ERROR_LOOKUP, "%s has no member %s",
						       tn ? tn : "the type", name);
		free(tn);
		return err;
	}
	return sg_value_at(v->target, &mt, v->address + off, ret);
}

struct sg_error *sg_value_read_uint(const struct sg_value *v, uint64_t *ret)
{
	uint64_t size = sg_type_size(&v->type), x = 0;
	if (size == 0 || size > 8)
		return sg_error_format(SG_ERROR_BAD_DATA, "not a scalar of at most 8 bytes (%" PRIu64 ")",
				       size);
	if (v->synthetic) {
		*ret = v->bits;
		return NULL;
	}
	struct sg_error *err = sg_target_read(v->target, v->address, &x, size);
	if (!err)
		*ret = x;
	return err;
}

static struct sg_error *template_type(const struct sg_value *v, unsigned n, Dwarf_Die *ret);

struct sg_error *sg_value_template_type(const struct sg_value *v, unsigned n, Dwarf_Die *ret)
{
	char key[16];
	snprintf(key, sizeof(key), "#%u", n);
	struct member_cache_entry *slot = member_slot(v->target, &v->type, key);
	if (member_hit(slot, &v->type, key) && slot->found) {
		*ret = slot->result;
		return NULL;
	}
	struct sg_error *err = template_type(v, n, ret);
	if (!err)
		member_store(slot, &v->type, key, true, ret, 0);
	return err;
}

static struct sg_error *template_type(const struct sg_value *v, unsigned n, Dwarf_Die *ret)
{
	Dwarf_Die st, full, c;
	sg_type_strip(&v->type, &st);
	sg_type_complete(v->target, &st, &full);
	unsigned i = 0;
	if (dwarf_child(&full, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_template_type_parameter)
				continue;
			if (i++ == n)
				return die_type(&c, ret) ? NULL
					: sg_error_create(SG_ERROR_BAD_DATA, "template argument without a type");
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return sg_error_format(SG_ERROR_LOOKUP, "no template argument %u", n);
}
