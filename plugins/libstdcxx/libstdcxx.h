/* Shared helpers of the libstdc++ readers.  Layouts come from the
   program's DWARF: member offsets through base classes, node types from the
   containers' allocator base classes; nothing here hard-codes an offset.  */
#ifndef SG_LIBSTDCXX_H
#define SG_LIBSTDCXX_H

#include <spyglass/spyglass.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A container claiming more elements than this is garbage.  */
#define MAX_SANE_COUNT (UINT64_C(1) << 32)

/* Brent's cycle check for lists without a count: a saved node, moved at
   each power of two steps, is met again within two rounds of a cycle.  */
struct lsx_cycle {
	uint64_t saved, steps, power;
};

static inline bool lsx_cycle_seen(struct lsx_cycle *c, uint64_t node)
{
	if (c->power && node == c->saved)
		return true;
	if (c->steps == c->power) {
		c->saved = node;
		c->power = c->power ? c->power * 2 : 1;
		c->steps = 0;
	}
	c->steps++;
	return false;
}

typedef int lsx_child_fn(const char *name, struct sg_value *child, void *fn_arg);

/* "set print elements", capped.  */
size_t lsx_print_limit(struct sg_session *session);

/* The member at the path A.B.C (NULL-terminated, non-empty) of V.  */
struct sg_error *lsx_member_path(const struct sg_value *v, const char *const *path,
				 struct sg_value **ret);
/* The member path A.B.C of V read as an unsigned integer.  */
struct sg_error *lsx_read_path(const struct sg_value *v, const char *const *path, uint64_t *ret);
/* The offset of the member path A.B.C in TYPE, and its type (may be NULL). */
struct sg_error *lsx_offset(struct sg_target *t, const Dwarf_Die *type, const char *const *path,
			    uint64_t *off_ret, Dwarf_Die *type_ret);

/* Hand FN the object of TYPE at ADDR named NAME; *R gets FN's answer.  */
struct sg_error *lsx_emit(struct sg_target *t, const Dwarf_Die *type, uint64_t addr,
			  const char *name, lsx_child_fn *fn, void *fn_arg, int *r);
/* The same, named "[I]" as gdb names a container's elements.  */
struct sg_error *lsx_emit_index(struct sg_target *t, const Dwarf_Die *type, uint64_t addr,
				uint64_t i, lsx_child_fn *fn, void *fn_arg, int *r);

/* Children [0] .. [LEN - 1], at most LIMIT: the LEN objects of type ELEM
   at ARRAY (sequence.c).  */
struct sg_error *lsx_emit_array(struct sg_target *t, const Dwarf_Die *elem, uint64_t array, uint64_t len,
				size_t limit, lsx_child_fn *fn, void *fn_arg);

/* The offset of a list or tree node's value: _M_storage, or OLD_NAME in
   C++98 (_M_data, _M_value_field) (sequence.c).  */
struct sg_error *lsx_value_offset(struct sg_target *t, const Dwarf_Die *node, const char *old_name,
				  uint64_t *ret);

/* std::pair's members, for maps: a key child, then a value child.  */
struct lsx_pair {
	Dwarf_Die first, second;
	uint64_t first_off, second_off;
};
struct sg_error *lsx_pair_layout(struct sg_target *t, const Dwarf_Die *pair, struct lsx_pair *ret);
struct sg_error *lsx_emit_pair(struct sg_target *t, const struct lsx_pair *pl, uint64_t addr,
			       uint64_t i, lsx_child_fn *fn, void *fn_arg, int *r);

/* Template argument N (from 0) of TYPE, parameter packs included.  */
bool lsx_template_arg(struct sg_target *t, const Dwarf_Die *type, unsigned n, Dwarf_Die *ret);
unsigned lsx_template_count(struct sg_target *t, const Dwarf_Die *type);
/* The base class of TYPE (searched breadth first) whose name starts with
   PREFIX, and its offset.  */
bool lsx_find_base(struct sg_target *t, const Dwarf_Die *type, const char *prefix, Dwarf_Die *ret,
		   uint64_t *off_ret);
/* The class or enumeration NAME that TYPE declares (basic_string::_Rep,
   path::_Type) (string.c).  */
bool lsx_nested_type(struct sg_target *t, const Dwarf_Die *type, const char *name, Dwarf_Die *ret);
/* A container's node type: the argument of the std::allocator<Node> that
   its implementation struct IMPL derives from.  */
struct sg_error *lsx_node_type(struct sg_target *t, const Dwarf_Die *impl, Dwarf_Die *ret);

/* A type as gdb's str(gdb.Type) spells it in C++ ("P", "long", "int *"), and as the
   libstdc++ type printers recognise it ("std::vector<int>", "std::string").  */
char *lsx_raw_type_name(const Dwarf_Die *type);
char *lsx_type_name(struct sg_target *t, const Dwarf_Die *type);

/* gdb's quoted string of the N characters (code points, or LSX_RAW | a
   byte) at S with repeat blocks and PREFIX ("", "L", "u", "U") before the
   first quote only, as gdb writes it; "..." when MORE.  */
#define LSX_RAW UINT32_C(0x80000000)
char *lsx_quote(const uint32_t *s, size_t n, const char *prefix, bool more);
/* The N bytes at S as characters: valid UTF-8 sequences of printable code
   points become one each, other bytes past ASCII LSX_RAW | byte.  Returns
   the count, at most N.  */
size_t lsx_utf8_decode(const unsigned char *s, size_t n, uint32_t *out);

/* "NAME with 1 element", "NAME with N elements".  */
struct sg_error *lsx_with_elements(const char *name, uint64_t n, char **ret);

/* The reader of the value of TYPE at ADDRESS (sg_reader_lookup: pattern,
   then match), for printers that show a contained value as gdb's printers
   do (optional, variant, any, the adapters).  */
struct lsx_reader {
	const struct sg_reader_ops *ops;
	void *arg;
};
bool lsx_find_reader(struct sg_session *session, struct sg_target *t, const Dwarf_Die *type,
		     uint64_t address, struct lsx_reader *ret);

struct sg_error *lsx_register_string(struct sg_session *session);
struct sg_error *lsx_register_sequence(struct sg_session *session);
struct sg_error *lsx_register_tree(struct sg_session *session);
struct sg_error *lsx_register_hashtable(struct sg_session *session);
struct sg_error *lsx_register_utility(struct sg_session *session);
struct sg_error *lsx_register_iterator(struct sg_session *session);
struct sg_error *lsx_register_extra(struct sg_session *session);
struct sg_error *lsx_register_type_printer(struct sg_session *session);

#endif
