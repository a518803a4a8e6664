/* Values, for typed readers: an object of a DWARF type at a target address.

   Readers (registry.h) receive values and build others from them: a member
   (found through base classes), a pointer's target, an array element.  All
   reads go through the target and are bounded by the caller.

   sg_eval() (eval.h) makes values of this type too.  One in target memory
   is an object at its address, as here; one that is not (1 + 2, a
   register, a variable the optimizer kept in a register, &x) has address
   0 and is synthetic, with its first 8 bytes as its bits; for &x the type
   is x's, and sg_value_type_name() names the pointer.  sg_value_format()
   prints any of them whole.  */
#ifndef SPYGLASS_VALUE_H
#define SPYGLASS_VALUE_H

#include <spyglass/common.h>
#include <elfutils/libdw.h>

SG_BEGIN_DECLS

struct sg_value;

/* A new value of TYPE at ADDRESS; free it with sg_value_destroy().  */
SG_PUBLIC struct sg_error *sg_value_at(struct sg_target *target, const Dwarf_Die *type,
				       uint64_t address, struct sg_value **ret);
SG_PUBLIC void sg_value_destroy(struct sg_value *value);
/* A value of the scalar TYPE (at most 8 bytes) that is not in target
   memory, holding BITS: what a reader computes, such as an element of
   std::vector<bool>.  Its address is 0 and it has no members.  */
SG_PUBLIC struct sg_error *sg_value_scalar(struct sg_target *target, const Dwarf_Die *type,
					   uint64_t bits, struct sg_value **ret);
/* Whether VALUE came from sg_value_scalar(), and then its bits.  */
SG_PUBLIC bool sg_value_is_synthetic(const struct sg_value *value, uint64_t *bits_ret);

SG_PUBLIC struct sg_target *sg_value_target(const struct sg_value *value);
/* The value's type as declared (typedefs and qualifiers kept).  */
SG_PUBLIC const Dwarf_Die *sg_value_type(const struct sg_value *value);
SG_PUBLIC uint64_t sg_value_address(const struct sg_value *value);

/* The member NAME, searched in the class and then its bases.  */
SG_PUBLIC struct sg_error *sg_value_member(const struct sg_value *value, const char *name,
					   struct sg_value **ret);
/* A scalar (integer, pointer, enum, bool) of at most 8 bytes, zero-extended. */
SG_PUBLIC struct sg_error *sg_value_read_uint(const struct sg_value *value, uint64_t *ret);
/* The type of template argument N (from 0) of the value's class.  */
SG_PUBLIC struct sg_error *sg_value_template_type(const struct sg_value *value, unsigned n,
						  Dwarf_Die *ret);

/* TYPE without typedefs and qualifiers, into *RET.  */
SG_PUBLIC void sg_type_strip(const Dwarf_Die *type, Dwarf_Die *ret);
/* The size of TYPE in bytes, 0 if unknown.  */
SG_PUBLIC uint64_t sg_type_size(const Dwarf_Die *type);
/* Where the bit field MEMBER lies: its first bit counted from the start of
   the object that holds it, and its width; from DWARF 4-5's
   DW_AT_data_bit_offset or DWARF 2-3's DW_AT_bit_offset (counted from the
   storage unit's most significant bit; little-endian targets).  False for
   a member that is not a bit field or whose numbers make no sense (width 0
   or over 64, outside its storage unit).  */
SG_PUBLIC bool sg_member_bit_field(Dwarf_Die *member, uint64_t *bit_pos, uint64_t *bit_size);
/* A base type's name as gdb and C programmers write it: GCC's "long int"
   is "long", "long unsigned int" "unsigned long"; other names unchanged
   (NAME itself is returned).  */
SG_PUBLIC const char *sg_type_base_name(const char *name);
/* TYPE's name with its C++ scopes and template arguments as DWARF spells
   them ("std::vector<int, std::allocator<int> >"), new string; NULL when
   unnamed.  */
SG_PUBLIC char *sg_type_qualified_name(const Dwarf_Die *type);

SG_END_DECLS

#endif
