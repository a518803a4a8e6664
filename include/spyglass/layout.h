/* Layout bindings: the members a plugin needs, resolved to offsets once.

   A plugin that reads a runtime's structures (CPython frames, Zeek's call
   stack) declares the type and the members it uses, with the spellings each
   version has had:

	static const char *const callinfo_members[] = { "call", "frame|func", NULL };
	static const struct sg_layout_spec callinfo = {
		"zeek::detail::CallInfo|CallInfo", callinfo_members,
	};

   sg_layout_resolve() finds them in the target's DWARF (through base
   classes and anonymous members) and returns their offsets and sizes, and
   which spelling matched.  Where no DWARF describes the type, a table the
   plugin chose for the target's version (struct sg_layout_table) can stand
   in; the result then says so, for the plugin to print.  Resolve once per
   target and keep the layout in the plugin's state: resolving walks DWARF,
   reading a member afterwards is an addition.  */
#ifndef SPYGLASS_LAYOUT_H
#define SPYGLASS_LAYOUT_H

#include <spyglass/common.h>

SG_BEGIN_DECLS

/* What a plugin needs of one type.

   TYPE names the type as sg_lookup_type() takes it ("ns::Klass",
   "PyFrameObject", "struct _frame"); several spellings are separated by
   '|' and tried in order: "zeek::detail::Location|Location".

   MEMBERS is a NULL-terminated array, one string per member the plugin
   needs:
   - '|' separates alternatives, tried in order: "frame|func";
   - '.' walks into a member that is itself a struct, class or union
     (embedded, not through a pointer): "f_frame_data.previous";
   - a leading '?' makes the member optional: if no alternative exists,
     the result says it is absent instead of failing ("?first_column").
   Each name is looked for in the class, its anonymous structs and unions,
   then its base classes, nearest first, as C++ name lookup does.  */
struct sg_layout_spec {
	const char *type;
	const char *const *members;
};

/* One row of a built-in table: the offset and size of MEMBER of TYPE as
   the plugin knows them for one version and build, or the size of TYPE
   when MEMBER is NULL.  TYPE is one of the spec's type spellings; MEMBER
   one of the spec's alternatives, spelled the same way ("func",
   "f_frame_data.previous").  For a bit field, OFFSET is the byte holding
   its lowest bit, BIT_OFFSET that bit (0-7, from the least significant)
   and BIT_SIZE its width; both are 0 for other members.  */
struct sg_layout_row {
	const char *type;
	const char *member;
	uint64_t offset, size;
	unsigned bit_offset, bit_size;
};

/* A plugin's layouts for one version of its runtime, used only for types
   that no DWARF of the target describes.  LABEL says which version and
   build the numbers are for ("Zeek 8.1, GCC, x86-64"); ROWS ends with a row
   whose TYPE is NULL.  */
/* Rows with the fields not given zeroed, so that tables compile quietly
   with -Wextra:
	SG_LAYOUT_SIZE("zeek::detail::CallInfo", 16),
	SG_LAYOUT_MEMBER("zeek::detail::CallInfo", "frame", 8, 8),
	SG_LAYOUT_BITS("PyASCIIObject", "state.kind", 32, 2, 3),
	SG_LAYOUT_END  */
#define SG_LAYOUT_SIZE(TYPE, SIZE) { .type = (TYPE), .size = (SIZE) }
#define SG_LAYOUT_MEMBER(TYPE, MEMBER, OFFSET, SIZE) \
	{ .type = (TYPE), .member = (MEMBER), .offset = (OFFSET), .size = (SIZE) }
/* A bit field: the byte holding its lowest bit, that bit and the width.  */
#define SG_LAYOUT_BITS(TYPE, MEMBER, OFFSET, BIT_OFFSET, BIT_SIZE) \
	{ .type = (TYPE), .member = (MEMBER), .offset = (OFFSET), \
	  .size = ((BIT_OFFSET) + (BIT_SIZE) + 7) / 8, .bit_offset = (BIT_OFFSET), \
	  .bit_size = (BIT_SIZE) }
#define SG_LAYOUT_END { .type = NULL }

struct sg_layout_table {
	const char *label;
	const struct sg_layout_row *rows;
};

/* A resolved member, in the order of the spec's MEMBERS.  */
struct sg_layout_field {
	/* The member as declared, without the '?' ("frame|func").  */
	const char *member;
	/* The alternative that matched ("func") and its index from 0; NULL
	   and 0 when an optional member is absent.  */
	const char *name;
	unsigned alternative;
	/* False only for an optional member that is absent.  */
	bool present;
	/* Bytes from the start of the type.  */
	uint64_t offset;
	/* Bytes, from the member's type (0 for a flexible array member).
	   For a bit field: the bytes its bits span from OFFSET.  */
	uint64_t size;
	/* Bit fields only (BIT_SIZE > 0): the member's lowest bit within the
	   byte at OFFSET (0-7, from the least significant), and its width.  */
	unsigned bit_offset, bit_size;
};

/* A resolved type.  Read-only; free it with sg_layout_destroy().  */
struct sg_layout {
	/* The type spelling that matched and its index from 0.  */
	const char *type;
	unsigned type_alternative;
	/* sizeof the type; 0 if a built-in table did not give it.  */
	uint64_t size;
	/* NULL when the layout came from DWARF.  Otherwise the label of the
	   built-in table it came from, and NOTE is the line to show the user:
	   "layout from built-in table LABEL: no DWARF for TYPE".  */
	const char *table;
	const char *note;
	size_t nfields;
	struct sg_layout_field *fields;
};

/* Resolve SPEC against TARGET: the first of the spec's type spellings that
   some module's DWARF defines (the executable's first, then the other
   modules'), else, if FALLBACK is not NULL, the first spelling FALLBACK has
   rows for.  SPEC and FALLBACK are only read during the call; the layout
   holds copies of what it needs and stays valid after the target is gone.

   Errors (SG_ERROR_LOOKUP unless noted) name the type and the member:
   - "no type ns::X|X in the target's DWARF"
     (" or in built-in table LABEL" when FALLBACK was given);
   - "ns::X has no member frame|func" (" in built-in table LABEL");
   - "ns::X member m is in a virtual base: no fixed offset";
   - "ns::X member m is static: no offset in the object";
   - "ns::X member a.b: a is not a struct, class or union";
   - SG_ERROR_USAGE for a malformed spec ("bad layout member \"a..b\"").
   On success *RET is a new layout.  */
SG_PUBLIC struct sg_error *sg_layout_resolve(struct sg_target *target,
					     const struct sg_layout_spec *spec,
					     const struct sg_layout_table *fallback,
					     struct sg_layout **ret) SG_NONNULL(1, 2, 4);

/* ABI 1.2.  Resolve SPEC from TABLE alone, without looking at any DWARF:
   for a plugin that knows its runtime's module has none (a release build),
   where sg_layout_resolve() would first search every other module's DWARF
   for the type.  The result is marked as from the table, as above.
   Errors: "no type ns::X|X in built-in table LABEL", "ns::X has no member
   m in built-in table LABEL", and the usage errors above.  */
SG_PUBLIC struct sg_error *sg_layout_resolve_table(const struct sg_layout_spec *spec,
						   const struct sg_layout_table *table,
						   struct sg_layout **ret) SG_NONNULL(1, 2, 3);

/* Free LAYOUT.  NULL is ignored.  */
SG_PUBLIC void sg_layout_destroy(struct sg_layout *layout);

/* Read field INDEX of LAYOUT, of the object at ADDRESS in TARGET, as an
   unsigned integer: a scalar of at most 8 bytes (zero-extended) or a bit
   field (its bits only).  Errors: the member is absent ("ns::X has no
   member first_column"), too big ("ns::X member name is 32 bytes, not a
   scalar of at most 8"), or the read failed (SG_ERROR_FAULT).  */
SG_PUBLIC struct sg_error *sg_layout_read_uint(struct sg_target *target,
					       const struct sg_layout *layout, size_t index,
					       uint64_t address, uint64_t *ret)
	SG_NONNULL(1, 2, 5);

SG_END_DECLS

#endif
