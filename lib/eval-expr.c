/* Expressions in gdb's C syntax: variables of the selected frame, then
   globals; literals, casts, sizeof, $registers, X@N, member access,
   indexing, dereference, address-of and C's binary operators.  */
#include <config.h>
#include "eval.h"

#include <ctype.h>
#include <signal.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct expr {
	struct sg_session *s;
	struct sg_target *t;
	const char *p;
	int depth;		/* parse_unary calls under way */
};

/* Every cycle of the recursive descent goes through parse_unary: a
   fixed bound there keeps "-(-(-(..." from overflowing the stack.  */
#define MAX_EXPR_DEPTH 256

static void skip_ws(struct expr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

/* The most arguments a member function call takes ("m.at(k)").  */
#define MAX_CALL_ARGS 4

static struct sg_error *shortcut(struct expr *e, struct xval *x, const char *name,
				 struct xval *args, size_t nargs);

static struct sg_error *parse_unary(struct expr *e, struct xval *ret);
static struct sg_error *parse_binary(struct expr *e, struct xval *x, int min_prec);

/* A bit field's place: BITS bits from bit SHIFT of the byte at the
   member's offset; BITS 0 for other members.  */
struct bitpos {
	unsigned shift, bits;
};

static struct sg_error *find_member(struct sg_target *t, Dwarf_Die *agg, const char *name,
				    Dwarf_Die *type_ret, uint64_t address, uint64_t *off_ret,
				    struct bitpos *bp);

/* NAME in the base classes of FULL, depth first, as C++ finds it.  */
static bool find_in_bases(struct sg_target *t, Dwarf_Die *full, const char *name, Dwarf_Die *type_ret,
			  uint64_t address, uint64_t *off_ret, struct bitpos *bp, int depth)
{
	Dwarf_Die m;
	if (depth > MAX_TYPE_DEPTH || dwarf_child(full, &m) != 0)
		return false;
	do {
		Dwarf_Die bt, bfull, st;
		uint64_t off;
		if (dwarf_tag(&m) != DW_TAG_inheritance || !sg_die_type(&m, &bt) ||
		    !member_offset(t, &m, address, &off))
			continue;
		strip(&bt, &st);
		sg_type_complete(t, &st, &bfull);
		uint64_t inner;
		struct sg_error *err = find_member(t, &bfull, name, type_ret, address ? address + off : 0,
						   &inner, bp);
		if (!err) {
			*off_ret = off + inner;
			return true;
		}
		sg_error_destroy(err);
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

static struct sg_error *find_member(struct sg_target *t, Dwarf_Die *agg, const char *name,
				    Dwarf_Die *type_ret, uint64_t address, uint64_t *off_ret,
				    struct bitpos *bp)
{
	*bp = (struct bitpos){ 0, 0 };
	Dwarf_Die full, m;
	sg_type_complete(t, agg, &full);
	if (dwarf_child(&full, &m) == 0) {
		do {
			const char *mn = dwarf_diename(&m);
			if (dwarf_tag(&m) != DW_TAG_member || !mn || strcmp(mn, name))
				continue;
			Dwarf_Attribute a;
			Dwarf_Word off = 0;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &off);
			if (!sg_die_type(&m, type_ret))
				break;
			uint64_t pos, bits;
			if (sg_member_bit_field(&m, &pos, &bits)) {
				/* gdb places the field in a unit of its type's
				   size, aligned: that is what & gives.  */
				Dwarf_Die st;
				strip(type_ret, &st);
				uint64_t unit = type_size(&st) * 8;
				if (unit == 0 || unit > 64)
					unit = 8;
				off = (pos - pos % unit) / 8;
				*bp = (struct bitpos){ pos % unit, bits };
			}
			*off_ret = off;
			return NULL;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	if (find_in_bases(t, &full, name, type_ret, address, off_ret, bp, 0))
		return NULL;
	return sg_error_format(SG_ERROR_LOOKUP, "There is no member named %s.", name);
}

/* The bit field at BP of X, as an rvalue of its type (gdb reads the
   field's bits, not the whole storage unit).  */
static struct sg_error *bit_field_value(struct expr *e, struct xval *x, struct bitpos bp)
{
	unsigned char raw[16] = { 0 };
	size_t n = (bp.shift + bp.bits + 7) / 8;
	if (bp.bits > 64 || n > sizeof(raw))
		return sg_error_create(SG_ERROR_BAD_DATA, "bit field wider than 64 bits");
	if (val_state(&x->v, 0, n) == VAL_LOST)
		return sg_error_create(SG_ERROR_OTHER, "value has been optimized out");
	struct sg_error *err = read_value(e->t, &x->v, raw, n);
	if (err)
		return err;
	unsigned __int128 word = 0;
	for (size_t i = n; i-- > 0;)
		word = word << 8 | raw[i];
	uint64_t v = (uint64_t)(word >> bp.shift);
	if (bp.bits < 64)
		v &= (UINT64_C(1) << bp.bits) - 1;
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	strip(&x->v.type, &t);
	if (dwarf_tag(&t) == DW_TAG_enumeration_type && sg_die_type(&t, &t))
		strip(&t, &t);
	if (dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if ((enc == DW_ATE_signed || enc == DW_ATE_signed_char) && bp.bits < 64 &&
	    (v >> (bp.bits - 1)) & 1)
		v |= ~((UINT64_C(1) << bp.bits) - 1);
	/* Only a field in memory has an address for &.  */
	x->bit_field = x->v.lvalue;
	x->v = (struct val){ .type = x->v.type, .address = x->v.address, .bits = v };
	return NULL;
}

/* The number of elements of the one-dimensional array type T, 0 when
   unknown.  */
static uint64_t array_length(Dwarf_Die *t)
{
	Dwarf_Die c;
	Dwarf_Attribute a;
	Dwarf_Word n = 0;
	Dwarf_Sword lo = 0, hi;
	if (dwarf_child(t, &c) != 0 || dwarf_tag(&c) != DW_TAG_subrange_type)
		return 0;
	if (dwarf_attr(&c, DW_AT_count, &a))
		return dwarf_formudata(&a, &n) == 0 ? n : 0;
	if (dwarf_attr(&c, DW_AT_lower_bound, &a) && dwarf_formsdata(&a, &lo) != 0)
		return 0;
	if (!dwarf_attr(&c, DW_AT_upper_bound, &a) || dwarf_formsdata(&a, &hi) != 0 || hi < lo)
		return 0;
	return (uint64_t)(hi - lo) + 1;
}

/* How many dimensions the array type T has.  */
static int array_dims(Dwarf_Die *t)
{
	Dwarf_Die c;
	int n = 0;
	if (dwarf_child(t, &c) == 0)
		do
			n += dwarf_tag(&c) == DW_TAG_subrange_type;
		while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* Whether A and B are the same type, qualifiers and typedefs aside.  */
static bool same_type(Dwarf_Die *a, Dwarf_Die *b)
{
	Dwarf_Die sa, sb;
	strip(a, &sa);
	strip(b, &sb);
	char *ta = type_string(&sa, ""), *tb = type_string(&sb, "");
	bool same = ta && tb && !strcmp(ta, tb);
	free(ta);
	free(tb);
	return same;
}

/* A value of TYPE cast from one optimized out to its own type: optimized
   out too, as in gdb (another type reads it: an error).  */
static struct sg_error *lost_cast(Dwarf_Die *type, struct xval *ret)
{
	uint64_t size = type_size(type);
	unsigned char *bytes, *known;
	struct sg_error *err = val_bytes(size, &bytes);
	if (!err)
		err = val_bytes(size, &known);
	if (err)
		return err;
	memset(ret, 0, sizeof(*ret));
	ret->v = (struct val){ .type = *type, .bytes = bytes, .known = known, .nbytes = size };
	return NULL;
}

/* Whether every byte of the rvalue V is lost.  */
static bool wholly_lost(const struct val *v)
{
	uint64_t size = type_size((Dwarf_Die *)&v->type);
	if (!v->bytes || !v->known)
		return false;
	for (uint64_t i = 0; i < v->nbytes && i < size; i++)
		if (v->known[i] != VAL_LOST)
			return false;
	return true;
}

/* Dereference X: a pointer becomes the lvalue it points to.  */
static struct sg_error *deref(struct expr *e, struct xval *x)
{
	if (x->function && !x->ptr_depth)
		return NULL;	/* *main is main, as in C */
	if (x->void_base && x->ptr_depth == 1)
		return sg_error_create(SG_ERROR_USAGE, "Attempt to dereference a generic pointer.");
	if (x->ptr_depth > 0) {
		x->ptr_depth--;
		if (x->ptr_depth == 0) {
			x->v.lvalue = true;
			x->v.address = x->v.bits;
		}
		return NULL;
	}
	Dwarf_Die t, target;
	if (x->v.too_large)
		return val_too_large(&x->v);
	if (wholly_lost(&x->v))
		return sg_error_create(SG_ERROR_OTHER, "value has been optimized out");
	strip(&x->v.type, &t);
	/* An array in memory decays to a pointer to its first element; only
	   one-dimensional ones, whose element type has a DIE of its own.  */
	if (dwarf_tag(&t) == DW_TAG_array_type && array_dims(&t) == 1 && sg_die_type(&t, &target)) {
		/* One not in memory: its first element, as gdb, in the
		   array's bytes (for *a@N).  */
		if (!x->v.lvalue && !x->v.constant)
			return sg_error_create(SG_ERROR_USAGE,
					       "Attempt to take address of value not located in memory.");
		if (!x->v.lvalue && !x->v.bytes) {
			unsigned char *bytes;
			struct sg_error *err = val_bytes(16, &bytes);
			if (err)
				return err;
			memcpy(bytes, &x->v.bits, 8);
			memcpy(bytes + 8, &x->v.bits_hi, 8);
			uint64_t size = type_size(&x->v.type);
			x->v.bytes = bytes;
			x->v.nbytes = size < 16 ? size : 16;
		}
		x->v = sub_value(&x->v, &target, 0);
		return NULL;
	}
	/* A pointer without a target type is a void *.  */
	if (dwarf_tag(&t) == DW_TAG_pointer_type && !sg_die_type(&t, &target))
		return sg_error_create(SG_ERROR_USAGE, "Attempt to dereference a generic pointer.");
	if (dwarf_tag(&t) != DW_TAG_pointer_type)
		return sg_error_create(SG_ERROR_USAGE, "Attempt to take contents of a non-pointer value.");
	uint64_t ptr;
	struct sg_error *err = read_value(e->t, &x->v, &ptr, 8);
	if (err)
		return err;
	x->v = (struct val){ .type = target, .lvalue = true, .address = ptr };
	return NULL;
}

/* The return type of the member function NAME of class CLS or of its
   bases (debug mode's iterators inherit operator*), with the typedefs at
   its top stripped as gdb shows a call's result ("reference" is "int &");
   false when its DWARF has none.  */
static bool method_type(struct sg_target *t, Dwarf_Die *cls, const char *name, Dwarf_Die *ret,
			int depth)
{
	Dwarf_Die full, m, base;
	sg_type_complete(t, cls, &full);
	if (depth > MAX_TYPE_DEPTH || dwarf_child(&full, &m) != 0)
		return false;
	do {
		const char *mn = dwarf_diename(&m);
		int tag = dwarf_tag(&m);
		if (tag == DW_TAG_inheritance && sg_die_type(&m, &base)) {
			strip(&base, &base);
			if (method_type(t, &base, name, ret, depth + 1))
				return true;
		}
		if (tag != DW_TAG_subprogram || !mn || strcmp(mn, name) || !sg_die_type(&m, ret))
			continue;
		for (int i = 0; i < MAX_TYPE_DEPTH && dwarf_tag(ret) == DW_TAG_typedef; i++)
			if (!sg_die_type(ret, ret))
				return false;
		return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* *X and X->member on an object X of class type: the object its typed
   reader's deref op gives (gdb calls the class's operator* or operator->,
   which libstdc++'s xmethods and iterators answer so).  *X is a
   reference to it when the class's operator* returns one, as gdb shows
   the call's result ("(int &) @0x...: 2"); a member access (STAR false)
   gets the object.  Classes without such a reader, and other values, are
   dereferenced as pointers.  */
/* R, a reader's answer, as X; R is freed.  */
static void take_value(struct xval *x, struct sg_value *r)
{
	memset(x, 0, sizeof(*x));
	x->v.type = *sg_value_type(r);
	x->v.lvalue = !sg_value_is_synthetic(r, &x->v.bits);
	x->v.address = sg_value_address(r);
	sg_value_destroy(r);
}

static struct sg_error *deref_value(struct expr *e, struct xval *x, bool star)
{
	Dwarf_Die t;
	strip(&x->v.type, &t);
	int tag = dwarf_tag(&t);
	if (x->ptr_depth || x->function || !x->v.lvalue ||
	    (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type))
		return deref(e, x);
	struct sg_session *s = e->s;
	struct sg_value *v, *r;
	struct sg_error *err = sg_value_at(e->t, &x->v.type, x->v.address, &v);
	if (err)
		return err;
	const struct sg_registry_entry *entry = sg_reader_lookup(s, v);
	if (!entry || entry->abi_minor < 3 || !((const struct sg_reader_ops *)entry->ops)->deref) {
		sg_value_destroy(v);
		/* A smart pointer: what its get() points at.  */
		struct xval p = *x;
		err = entry ? shortcut(e, &p, "get", NULL, 0) : &sg_not_found;
		if (err == &sg_not_found)
			return deref(e, x);
		if (err)
			return err;
		*x = p;
		return deref(e, x);
	}
	err = sg_value_deref(s, v, &r);
	if (err == &sg_not_found) {
		/* Nothing to refer to: the reader's summary says why
		   ("non-dereferenceable iterator for std::vector").  */
		char *why = NULL;
		struct sg_error *serr = sg_value_summary(s, v, &why);
		err = sg_error_format(SG_ERROR_USAGE, "Cannot dereference: %s.",
				      !serr && why ? why : "it refers to nothing");
		sg_error_destroy(serr);
		free(why);
	}
	sg_value_destroy(v);
	if (err && sg_error_code(err) == SG_ERROR_FAULT) {
		/* A garbage iterator: gdb's words for what its operator*
		   could not read.  */
		uint64_t bad = sg_error_address(err);
		sg_error_destroy(err);
		err = sg_error_format(SG_ERROR_FAULT, "Cannot access memory at address 0x%" PRIx64, bad);
	}
	if (err)
		return err;
	take_value(x, r);
	Dwarf_Die rt;
	if (star && x->v.lvalue && method_type(e->t, &t, "operator*", &rt, 0) &&
	    dwarf_tag(&rt) == DW_TAG_reference_type)
		x->v = (struct val){ .type = rt, .bits = x->v.address };
	return NULL;
}

/* V, a part of a value not in memory, in its bits when it fits and is
   known, as the operators read rvalues.  */
static void normalize(struct val *v)
{
	uint64_t size = type_size(&v->type);
	if (v->lvalue || !v->bytes || size > sizeof(v->bits) + sizeof(v->bits_hi))
		return;
	for (uint64_t i = 0; i < size; i++)
		if (i >= v->nbytes || (v->known && v->known[i] != VAL_KNOWN))
			return;
	unsigned char buf[16] = { 0 };
	memcpy(buf, v->bytes, size < v->nbytes ? size : v->nbytes);
	memcpy(&v->bits, buf, 8);
	memcpy(&v->bits_hi, buf + 8, 8);
	/* Signed integers sign-extended, as DW_FORM_sdata constants are.  */
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	strip(&v->type, &t);
	if (dwarf_tag(&t) == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if ((enc == DW_ATE_signed || enc == DW_ATE_signed_char) && size && size < 8 &&
	    (v->bits >> (size * 8 - 1)) & 1)
		v->bits |= ~((UINT64_C(1) << (size * 8)) - 1);
	v->bytes = v->known = NULL;
	v->nbytes = 0;
}

/* The integer value of X: an rvalue's bits, or what an lvalue of scalar
   type holds.  */
/* A reference used in an expression stands for the object it refers to,
   as in C++: replace X by that object.  */
static struct sg_error *unref(struct expr *e, struct xval *x)
{
	Dwarf_Die t, target;
	if (x->ptr_depth || x->repeat || x->reg)
		return NULL;
	strip(&x->v.type, &t);
	int tag = dwarf_tag(&t);
	if ((tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type) ||
	    !sg_die_type(&t, &target))
		return NULL;
	uint64_t addr = 0;
	struct sg_error *err = read_value(e->t, &x->v, &addr, 8);
	if (err)
		return err;
	x->v = (struct val){ .type = target, .lvalue = true, .address = addr };
	return NULL;
}

static struct sg_error *integer_of(struct expr *e, struct xval *x, uint64_t *ret)
{
	struct sg_error *err = unref(e, x);
	if (err)
		return err;
	normalize(&x->v);
	if (x->v.too_large && !x->ptr_depth)
		return val_too_large(&x->v);
	if (!x->ptr_depth && val_state(&x->v, 0, type_size(&x->v.type)) != VAL_KNOWN)
		return sg_error_create(SG_ERROR_OTHER, "value has been optimized out");
	if (x->ptr_depth || !x->v.lvalue) {
		*ret = x->v.bits;
		return NULL;
	}
	Dwarf_Die t;
	strip(&x->v.type, &t);
	int tag = dwarf_tag(&t);
	uint64_t size = type_size(&t);
	if ((tag != DW_TAG_base_type && tag != DW_TAG_pointer_type && tag != DW_TAG_enumeration_type) ||
	    size == 0 || size > 8)
		return sg_error_create(SG_ERROR_USAGE, "Invalid cast.");
	uint64_t v = 0;
	err = sg_target_read(e->t, x->v.address, &v, size);
	if (err)
		return err;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	if (tag == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if ((enc == DW_ATE_signed || enc == DW_ATE_signed_char) && size && size < 8 &&
	    (v >> (size * 8 - 1)) & 1)
		v |= ~((UINT64_C(1) << (size * 8)) - 1);
	*ret = v;
	return NULL;
}

/* An rvalue of the base type NAME ("int", "long unsigned int").  */
static struct sg_error *integer_value(struct expr *e, const char *name, uint64_t v, struct xval *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct sg_error *err = sg_lookup_type(e->t, name, &ret->v.type);
	if (err) {
		sg_error_destroy(err);
		return sg_error_format(SG_ERROR_LOOKUP, "No type \"%s\" in the program's DWARF.", name);
	}
	ret->v.bits = v;
	return NULL;
}

/* "(TYPE *...)" at P: the type and its pointer depth; false if what is in
   the parentheses is not a type.  */
/* C's spellings of GCC's base type names.  */
static const char *dwarf_base_name(const char *name)
{
	static const char *const names[][2] = {
		{ "long", "long int" }, { "unsigned long", "long unsigned int" },
		{ "short", "short int" }, { "unsigned short", "short unsigned int" },
		{ "long long", "long long int" }, { "unsigned long long", "long long unsigned int" },
		{ "unsigned", "unsigned int" }, { "signed", "int" }, { "long unsigned", "long unsigned int" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return name;
}

static bool parse_cast_type(struct expr *e, Dwarf_Die *type, int *stars, const char **after,
			    bool *is_void)
{
	const char *close = strchr(e->p, ')');
	if (!close)
		return false;
	size_t len = close - e->p;
	while (len && isspace((unsigned char)e->p[len - 1]))
		len--;
	int n = 0;
	while (len && (e->p[len - 1] == '*' || isspace((unsigned char)e->p[len - 1]))) {
		n += e->p[len - 1] == '*';
		len--;
	}
	char *name = strndup(e->p, len);
	if (!name)
		return false;
	*is_void = !strcmp(name, "void");
	bool ok = len && !strpbrk(name, "()[]&.-+") &&
		  (*is_void ? n > 0 : sg_lookup_type(e->t, dwarf_base_name(name), type) == NULL);
	free(name);
	if (ok) {
		*stars = n;
		*after = close + 1;
	}
	return ok;
}

/* $REG of the selected frame, typed as gdb types it: $pc void (*)(),
   $sp and $rbp void *, $eflags its flags, 64-bit registers int64_t, $eax
   and the other 32-bit halves int, segment registers int.  */
/* gdb's $_siginfo: a core's NT_SIGINFO, or the signal a live thread is
   stopped with, as the target's siginfo_t (from libc's DWARF), so that
   $_siginfo._sifields._sigfault.si_addr reads as in gdb.  */
static struct sg_error *siginfo_value(struct expr *e, struct xval *ret)
{
	struct sg_core_info ci;
	siginfo_t live;
	struct sg_thread *th = sg_session_thread(e->s);
	const void *si = NULL;
	if (sg_core_info(e->t, &ci))
		si = ci.siginfo;
	else if (th && sg_thread_siginfo(e->t, th, &live))
		si = &live;
	if (!si)
		return sg_error_create(SG_ERROR_LOOKUP,
				       "$_siginfo is known on a core that has NT_SIGINFO (see \"info siginfo\"), "
				       "and for a thread a signal stopped (not at the attach, which sends none)");
	memset(ret, 0, sizeof(*ret));
	struct sg_error *err = sg_lookup_type(e->t, "siginfo_t", &ret->v.type);
	if (err) {
		sg_error_destroy(err);
		return sg_error_create(SG_ERROR_LOOKUP,
				       "$_siginfo needs the type siginfo_t, which no module's DWARF has "
				       "(libc's debug file: libc6-dbg); \"info siginfo\" shows it");
	}
	uint64_t size = type_size(&ret->v.type);
	if (size != sizeof(siginfo_t))
		return sg_error_create(SG_ERROR_LOOKUP, "the target's siginfo_t is not the kernel's 128 bytes");
	unsigned char *bytes;
	if ((err = val_bytes(size, &bytes)))
		return err;
	memcpy(bytes, si, size);
	ret->v.bytes = bytes;
	ret->v.nbytes = size;
	snprintf(ret->rvalue_name, sizeof(ret->rvalue_name), "$_siginfo");
	return NULL;
}

/* $ (the last value), $$ and $$N (the Nth before it), $N: the value
   history, as gdb numbers it.  */
static struct sg_error *history_ref(struct expr *e, struct xval *ret)
{
	bool relative = true;
	uint64_t n = 0;
	if (*e->p == '$') {
		e->p++;
		n = 1;
		if (isdigit((unsigned char)*e->p))
			n = 0;
	} else if (isdigit((unsigned char)*e->p)) {
		relative = false;
	}
	while (isdigit((unsigned char)*e->p)) {
		if (n > UINT32_MAX)
			return sg_error_create(SG_ERROR_USAGE, "History number too large.");
		n = n * 10 + (uint64_t)(*e->p++ - '0');
	}
	return sg_history_value(e->s, n, relative, ret);
}

/* gdb's convenience variables that spyglass knows: the selected
   thread's number, the one inferior, how the last process ended.  */
static struct sg_error *builtin_convenience(struct expr *e, const char *name, struct xval *ret,
					    bool *found)
{
	*found = true;
	if (!strcmp(name, "_siginfo"))
		return siginfo_value(e, ret);
	if (!strcmp(name, "_thread") || !strcmp(name, "_gthread")) {
		struct sg_thread *th = sg_session_thread(e->s);
		return integer_value(e, "int", th ? sg_thread_index(th) + 1 : 0, ret);
	}
	if (!strcmp(name, "_inferior"))
		return integer_value(e, "int", 1, ret);
	/* How the last process ended: void until one has.  */
	int code, sig;
	bool ended = sg_session_exit_status(e->s, &code, &sig);
	if (!strcmp(name, "_exitcode") && ended && !sig)
		return integer_value(e, "int", code, ret);
	if (!strcmp(name, "_exitsignal") && ended && sig)
		return integer_value(e, "int", sig, ret);
	*found = false;
	return NULL;
}

static struct sg_error *register_value(struct expr *e, struct xval *ret)
{
	const char *start = ++e->p;
	if (*e->p == '$' || isdigit((unsigned char)*e->p) ||
	    !(isalnum((unsigned char)*e->p) || *e->p == '_'))
		return history_ref(e, ret);
	while (isalnum((unsigned char)*e->p) || *e->p == '_')
		e->p++;
	char name[64];
	if (e->p - start >= (ptrdiff_t)sizeof(name))
		return sg_error_format(SG_ERROR_USAGE, "name too long: $%.*s", (int)(e->p - start), start);
	snprintf(name, sizeof(name), "%.*s", (int)(e->p - start), start);
	bool found;
	struct sg_error *berr = builtin_convenience(e, name, ret, &found);
	if (found)
		return berr;
	static const struct { const char *alias, *reg; } aliases[] = {
		{ "pc", "rip" }, { "sp", "rsp" },
	};
	const char *reg_name = name;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			reg_name = aliases[i].reg;
	bool half = false;
	char wide[sizeof(name) + 1];
	int r = sg_reg_lookup(reg_name);
	if (r < 0 && name[0] == 'e' && strlen(name) == 3) {
		/* $eax is the low half of $rax.  */
		snprintf(wide, sizeof(wide), "r%s", name + 1);
		r = sg_reg_lookup(wide);
		half = r >= 0 && r <= SG_REG_RSP;
	} else if (r < 0 && name[0] == 'r' && strlen(name) >= 3 && name[strlen(name) - 1] == 'd') {
		/* $r8d .. $r15d.  */
		snprintf(wide, sizeof(wide), "%.*s", (int)strlen(name) - 1, name);
		r = sg_reg_lookup(wide);
		half = r >= SG_REG_R8 && r <= SG_REG_R15;
	}
	/* Not a register: a convenience variable, void until it is set. */
	if (r < 0) {
		if (sg_convenience_get(e->s, name, ret))
			return NULL;
		/* gdb creates it, void, on first use: "show convenience"
		   lists it.  */
		sg_history_void(ret);
		return sg_convenience_set(e->s, name, ret);
	}
	if (r == SG_REG_ORIG_RAX || (r != sg_reg_lookup(reg_name) && !half))
		return sg_error_format(SG_ERROR_LOOKUP, "Invalid register \"$%s\".", name);
	struct sg_stack *st;
	struct sg_error *err = sg_session_stack(e->s, &st);
	if (err)
		return err;
	const struct sg_frame *f = sg_stack_frame(st, sg_session_frame(e->s));
	if (!f)
		return sg_error_create(SG_ERROR_TARGET, "No registers.");
	if (!sg_regs_has(f->regs, r))
		return sg_error_format(SG_ERROR_LOOKUP, "value is not available");
	uint64_t v = f->regs->r[r];
	if (half || (r >= SG_REG_CS && r <= SG_REG_GS)) {
		err = integer_value(e, "int", half ? (uint64_t)(int64_t)(int32_t)v : v, ret);
		ret->type_name = "int32_t";
		return err;
	}
	memset(ret, 0, sizeof(*ret));
	switch (r) {
	case SG_REG_RIP:
		ret->reg = REG_CODE;
		/* fall through */
	case SG_REG_RSP:
	case SG_REG_RBP:
		ret->void_base = true;
		ret->ptr_depth = 1;
		ret->v.bits = v;
		return NULL;
	case SG_REG_EFLAGS:
		err = integer_value(e, "int", v, ret);
		ret->reg = REG_EFLAGS;
		ret->type_name = "i386_eflags";
		return err;
	default:
		err = integer_value(e, "long int", v, ret);
		ret->type_name = "int64_t";
		return err;
	}
}

/* The float size of X's type (4 or 8), or 0 when X is not a float.  */
static struct sg_error *double_of(struct expr *e, struct xval *x, double *ret);
static struct sg_error *long_double_of(struct expr *e, struct xval *x, long double *ret);

static uint64_t float_size(struct xval *x)
{
	if (x->ptr_depth || x->repeat || x->function || x->reg)
		return 0;
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	strip(&x->v.type, &t);
	if (dwarf_tag(&t) != DW_TAG_base_type || !dwarf_attr(&t, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc) != 0 || enc != DW_ATE_float)
		return 0;
	uint64_t size = type_size(&t);
	return size == 4 || size == 8 || size == 16 ? size : 0;
}

/* X's value as a long double (x86-64's x87 extended format, 16 bytes of
   storage of which 10 hold the value): a float's, or an integer's.  */
static struct sg_error *long_double_of(struct expr *e, struct xval *x, long double *ret)
{
	uint64_t size = float_size(x);
	if (size != 16) {
		double d;
		struct sg_error *err = double_of(e, x, &d);
		*ret = d;
		return err;
	}
	unsigned char raw[16] = { 0 };
	struct sg_error *err = read_value(e->t, &x->v, raw, 16);
	if (err)
		return err;
	long double v = 0;
	memcpy(&v, raw, 10);
	*ret = v;
	return NULL;
}

/* X's value as a double: a float's, or an integer's converted.  */
static struct sg_error *double_of(struct expr *e, struct xval *x, double *ret)
{
	uint64_t size = float_size(x), bits = 0;
	if (size == 16) {
		long double v;
		struct sg_error *err = long_double_of(e, x, &v);
		*ret = (double)v;
		return err;
	}
	if (!size) {
		uint64_t v;
		bool is_signed = false;
		struct sg_error *err = integer_of(e, x, &v);
		if (err)
			return err;
		Dwarf_Die t;
		Dwarf_Attribute a;
		Dwarf_Word enc = 0;
		strip(&x->v.type, &t);
		if (!x->ptr_depth && dwarf_attr(&t, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0)
			is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		*ret = is_signed ? (double)(int64_t)v : (double)v;
		return NULL;
	}
	struct sg_error *err = read_value(e->t, &x->v, &bits, size);
	if (err)
		return err;
	if (size == 4) {
		float f;
		memcpy(&f, &bits, 4);
		*ret = f;
	} else {
		memcpy(ret, &bits, 8);
	}
	return NULL;
}

/* A float value of SIZE bytes ("float" or "double" from the program's
   DWARF) holding D.  */
static struct sg_error *long_double_value(struct expr *e, long double v, struct xval *ret)
{
	unsigned char raw[16] = { 0 };
	memcpy(raw, &v, 10);
	struct sg_error *err = integer_value(e, "long double", 0, ret);
	if (err)
		return err;
	memcpy(&ret->v.bits, raw, 8);
	memcpy(&ret->v.bits_hi, raw + 8, 8);
	return NULL;
}

static struct sg_error *float_value(struct expr *e, uint64_t size, double d, struct xval *ret)
{
	if (size == 16)
		return long_double_value(e, d, ret);
	uint64_t bits = 0;
	if (size == 4) {
		float f = (float)d;
		memcpy(&bits, &f, 4);
	} else {
		memcpy(&bits, &d, 8);
	}
	return integer_value(e, size == 4 ? "float" : "double", bits, ret);
}

/* C's arithmetic when an operand is a float: the wider float type wins
   (float * int is a float, as in C and gdb); comparisons give an int.  */
static struct sg_error *float_binop(struct expr *e, const char *op, struct xval *l, struct xval *r)
{
	uint64_t size = float_size(l) > float_size(r) ? float_size(l) : float_size(r);
	/* In the wider type: long double when an operand is one.  */
	long double a, b, v;
	double da, db;
	struct sg_error *err;
	if (size == 16) {
		err = long_double_of(e, l, &a);
		if (!err)
			err = long_double_of(e, r, &b);
	} else {
		err = double_of(e, l, &da);
		if (!err)
			err = double_of(e, r, &db);
		a = da;
		b = db;
	}
	if (err)
		return err;
	if (!strcmp(op, "+")) v = a + b;
	else if (!strcmp(op, "-")) v = a - b;
	else if (!strcmp(op, "*")) v = a * b;
	else if (!strcmp(op, "/")) v = a / b;
	else if (!strcmp(op, "==")) return integer_value(e, "int", a == b, l);
	else if (!strcmp(op, "!=")) return integer_value(e, "int", a != b, l);
	else if (!strcmp(op, "<")) return integer_value(e, "int", a < b, l);
	else if (!strcmp(op, "<=")) return integer_value(e, "int", a <= b, l);
	else if (!strcmp(op, ">")) return integer_value(e, "int", a > b, l);
	else if (!strcmp(op, ">=")) return integer_value(e, "int", a >= b, l);
	else if (!strcmp(op, "&&")) return integer_value(e, "int", a && b, l);
	else if (!strcmp(op, "||")) return integer_value(e, "int", a || b, l);
	else
		return sg_error_create(SG_ERROR_USAGE, "Integer-only operation on floating point number.");
	if (size == 16)
		return long_double_value(e, v, l);
	return float_value(e, size, (double)v, l);
}

/* TYPE's size when it is a float type, else 0.  */
static uint64_t float_type_size(Dwarf_Die *type)
{
	struct xval x = { .v = { .type = *type } };
	return float_size(&x);
}

/* A cast between integers and floats converts the value, as in C.  */
static struct sg_error *convert(struct expr *e, struct xval *x, Dwarf_Die *type, struct xval *ret)
{
	long double d;
	struct sg_error *err = long_double_of(e, x, &d);
	if (err)
		return err;
	uint64_t fsize = float_type_size(type), size = type_size(type);
	memset(ret, 0, sizeof(*ret));
	ret->v.type = *type;
	if (fsize) {
		struct xval tmp;
		if ((err = fsize == 16 ? long_double_value(e, d, &tmp)
				       : float_value(e, fsize, (double)d, &tmp)))
			return err;
		ret->v.bits = tmp.v.bits;
		ret->v.bits_hi = tmp.v.bits_hi;
	} else {
		/* Truncated toward zero, then to the type's size.  C says
		   nothing of NaN: gdb makes it the largest value ((long) is
		   9223372036854775807, (int) -1).  */
		int64_t i = d != d || d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
		ret->v.bits = size >= 8 ? (uint64_t)i : (uint64_t)i & ((UINT64_C(1) << (size * 8)) - 1);
	}
	return NULL;
}

/* gdb's error for the address of a variable folded into a constant.  */
static struct sg_error *not_lvalue(const struct xval *x)
{
	return sg_error_format(SG_ERROR_USAGE, "Can't take address of \"%s\" which isn't an lvalue.",
			       x->rvalue_name);
}

static struct sg_error *parse_primary(struct expr *e, struct xval *ret)
{
	skip_ws(e);
	size_t digits = strspn(e->p, "0123456789");
	if ((digits || (e->p[0] == '.' && isdigit((unsigned char)e->p[1]))) &&
	    (e->p[digits] == '.' || e->p[digits] == 'e' || e->p[digits] == 'E') &&
	    !(e->p[0] == '0' && (e->p[1] == 'x' || e->p[1] == 'X'))) {
		/* A floating-point literal: a double, or a float with f.  */
		char *end;
		double d = strtod(e->p, &end);
		bool is_float = *end == 'f' || *end == 'F';
		if (is_float)
			end++;
		if (isalnum((unsigned char)*end) || *end == '_')
			return sg_error_format(SG_ERROR_USAGE, "Invalid number \"%.*s\".",
					       (int)strcspn(e->p, " )"), e->p);
		e->p = end;
		return float_value(e, is_float ? 4 : 8, d, ret);
	}
	if (isdigit((unsigned char)*e->p)) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(e->p, &end, 0);
		bool is_unsigned = false, is_long = false;
		for (; *end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'; end++) {
			if (*end == 'u' || *end == 'U')
				is_unsigned = true;
			else
				is_long = true;
		}
		if (errno || isalpha((unsigned char)*end) || *end == '_')
			return sg_error_format(SG_ERROR_USAGE, "Invalid number \"%.*s\".",
					       (int)strcspn(e->p, " )"), e->p);
		e->p = end;
		/* gdb types a literal as int when it fits, else long; suffixes
		   as in C.  */
		is_long |= v > (is_unsigned ? UINT32_MAX : INT32_MAX);
		return integer_value(e, is_long ? (is_unsigned ? "long unsigned int" : "long int")
						: (is_unsigned ? "unsigned int" : "int"), v, ret);
	}
	if (!strncmp(e->p, "sizeof", 6) && !isalnum((unsigned char)e->p[6]) && e->p[6] != '_') {
		e->p += 6;
		skip_ws(e);
		Dwarf_Die type;
		int stars;
		const char *after;
		uint64_t size;
		bool is_void;
		if (*e->p == '(' && (e->p++, parse_cast_type(e, &type, &stars, &after, &is_void))) {
			e->p = after;
			size = stars ? 8 : type_size(&type);
		} else {
			if (e->p[-1] == '(')
				e->p--;
			struct xval x;
			struct sg_error *err = parse_unary(e, &x);
			if (err)
				return err;
			/* gdb's sizeof (void) is 1.  */
			size = x.ptr_depth ? 8 : x.is_void ? 1 : type_size(&x.v.type);
		}
		/* gdb's C sizeof is an int.  */
		return integer_value(e, "int", size, ret);
	}
	if (*e->p == '(') {
		e->p++;
		Dwarf_Die type;
		int stars;
		const char *after;
		bool is_void;
		if (parse_cast_type(e, &type, &stars, &after, &is_void)) {
			e->p = after;
			struct xval operand;
			struct sg_error *err = parse_unary(e, &operand);
			if (!err && operand.is_void)
				return sg_error_create(SG_ERROR_USAGE, "Invalid cast.");
			uint64_t v;
			if (!err && !stars && !is_void && !operand.ptr_depth &&
			    val_state(&operand.v, 0, type_size(&operand.v.type)) == VAL_LOST &&
			    same_type(&type, &operand.v.type))
				return lost_cast(&type, ret);
			if (!err && !stars && !is_void && (float_size(&operand) || float_type_size(&type)))
				return convert(e, &operand, &type, ret);
			if (!err)
				err = integer_of(e, &operand, &v);
			if (err)
				return err;
			memset(ret, 0, sizeof(*ret));
			if (!is_void)
				ret->v.type = type;
			ret->void_base = is_void;
			ret->v.bits = v;
			ret->ptr_depth = stars;
			return NULL;
		}
		struct sg_error *err = parse_binary(e, ret, 1);
		if (err)
			return err;
		skip_ws(e);
		if (*e->p != ')')
			return sg_error_format(SG_ERROR_USAGE, "A syntax error in expression, near `%s'.", e->p);
		e->p++;
		return NULL;
	}
	if (*e->p == '$')
		return register_value(e, ret);
	const char *start = e->p;
	while (isalnum((unsigned char)*e->p) || *e->p == '_' || (*e->p == ':' && e->p[1] == ':' && (e->p += 1)))
		e->p++;
	if (e->p == start)
		return sg_error_format(SG_ERROR_USAGE, "A syntax error in expression, near `%s'.", start);
	char *name = strndup(start, e->p - start);
	if (!name)
		return &sg_enomem;
	memset(ret, 0, sizeof(*ret));
	/* The selected frame's variables hide globals, as in C.  */
	struct sg_error *err = sg_session_thread(e->s)
		? frame_variable(e->s, name, &ret->v) : &sg_not_found;
	/* A local that is optimized out stops here; a frame without DWARF
	   falls through to the globals.  */
	if (!err || (sg_error_code(err) == SG_ERROR_LOOKUP &&
		     strstr(sg_error_message(err), "optimized out"))) {
		if (!err && !ret->v.lvalue)
			snprintf(ret->rvalue_name, sizeof(ret->rvalue_name), "%s", name);
		free(name);
		return err;
	}
	sg_error_destroy(err);
	ret->v.lvalue = true;
	err = sg_lookup_thread_variable(e->t, sg_session_thread(e->s), name, &ret->v.type,
					&ret->v.address);
	if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND) {
		/* A function: its DIE is its type, its code its value.  */
		sg_error_destroy(err);
		err = sg_lookup_function(e->t, name, &ret->v.type, &ret->v.address);
		ret->function = !err;
	}
	if (err && sg_error_code(err) == SG_ERROR_NOT_FOUND)
		err = sg_error_format(SG_ERROR_LOOKUP, "No symbol \"%s\" in current context.", name);
	free(name);
	return err;
}

/* Whether X is an object of a class (not a pointer to one).  */
static bool is_class_object(struct xval *x)
{
	if (x->ptr_depth || x->function)
		return false;
	Dwarf_Die t;
	strip(&x->v.type, &t);
	int tag = dwarf_tag(&t);
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* X as a library value, for a reader: an object in memory, or a scalar
   (an index, a key).  */
static struct sg_error *as_sg_value(struct expr *e, struct xval *x, struct sg_value **ret)
{
	struct sg_error *err = unref(e, x);
	if (err)
		return err;
	if (x->is_void)
		return sg_error_create(SG_ERROR_USAGE, "Value can't be converted to integer.");
	if (x->v.lvalue && !x->ptr_depth && !x->bit_field)
		return sg_value_at(e->t, &x->v.type, x->v.address, ret);
	if (x->ptr_depth || x->function || is_class_object(x))
		return sg_error_create(SG_ERROR_USAGE,
				       "Attempt to take address of value not located in memory.");
	uint64_t bits;
	if ((err = integer_of(e, x, &bits)))
		return err;
	return sg_value_scalar(e->t, &x->v.type, bits, ret);
}

/* A container shortcut on the object X, as gdb's xmethods give them
   ("v[2]", "v.size()", "m[key]", "up.get()"): the reader of X's type
   answers (sg_value_method).  &sg_not_found when it has none.  */
static struct sg_error *shortcut(struct expr *e, struct xval *x, const char *name,
				 struct xval *args, size_t nargs)
{
	if (!x->v.lvalue)
		return sg_error_create(SG_ERROR_USAGE,
				       "Attempt to take address of value not located in memory.");
	struct sg_value *v = NULL, *r = NULL, *av[MAX_CALL_ARGS] = { 0 };
	struct sg_error *err = sg_value_at(e->t, &x->v.type, x->v.address, &v);
	for (size_t i = 0; !err && i < nargs; i++)
		err = as_sg_value(e, &args[i], &av[i]);
	if (!err)
		err = sg_value_method(e->s, v, name, av, nargs, &r);
	for (size_t i = 0; i < nargs; i++)
		sg_value_destroy(av[i]);
	sg_value_destroy(v);
	if (err)
		return err;
	take_value(x, r);
	return NULL;
}

/* "(ARG, ...)" at e->p: a member function call's arguments.  */
static struct sg_error *call_args(struct expr *e, struct xval *args, size_t *nargs)
{
	*nargs = 0;
	e->p++;
	skip_ws(e);
	if (*e->p == ')') {
		e->p++;
		return NULL;
	}
	for (;;) {
		if (*nargs == MAX_CALL_ARGS)
			return sg_error_format(SG_ERROR_USAGE, "more than %d arguments", MAX_CALL_ARGS);
		/* Above the comma operator's precedence.  */
		struct sg_error *err = parse_binary(e, &args[(*nargs)++], 1);
		if (err)
			return err;
		skip_ws(e);
		if (*e->p == ')') {
			e->p++;
			return NULL;
		}
		if (*e->p != ',')
			return sg_error_format(SG_ERROR_USAGE, "A syntax error in expression, near `%s'.", e->p);
		e->p++;
	}
}

static struct sg_error *parse_postfix(struct expr *e, struct xval *x)
{
	struct sg_error *err = parse_primary(e, x);
	for (;;) {
		if (err)
			return err;
		skip_ws(e);
		bool arrow = e->p[0] == '-' && e->p[1] == '>';
		if (x->is_void && (*e->p == '.' || arrow))
			return sg_error_format(SG_ERROR_USAGE,
					       "Attempt to extract a component of a value that is not a structure%s.",
					       arrow ? " pointer" : "");
		if (x->is_void && *e->p == '[')
			return sg_error_create(SG_ERROR_USAGE, "cannot subscript something of type `void'");
		if ((*e->p == '.' || arrow || *e->p == '[') && (err = unref(e, x)))
			return err;
		if (*e->p == '.' || arrow || *e->p == '[')
			x->rvalue_name[0] = 0;
		if (*e->p == '.' || arrow) {
			e->p += arrow ? 2 : 1;
			if (arrow && (err = deref_value(e, x, false)))
				return err;
			skip_ws(e);
			const char *s = e->p;
			while (isalnum((unsigned char)*e->p) || *e->p == '_')
				e->p++;
			char *field = strndup(s, e->p - s);
			if (!field)
				return &sg_enomem;
			skip_ws(e);
			if (*e->p == '(' && is_class_object(x)) {
				/* A member function: what the type's reader
				   answers for it; spyglass runs no code in the
				   target.  */
				struct xval args[MAX_CALL_ARGS];
				size_t nargs;
				if (!(err = call_args(e, args, &nargs))) {
					err = shortcut(e, x, field, args, nargs);
					if (err == &sg_not_found)
						err = sg_error_format(SG_ERROR_USAGE,
								      "Cannot evaluate function %s: spyglass runs no "
								      "code in the target, and no reader answers it",
								      field);
				}
				free(field);
				continue;
			}
			Dwarf_Die t, mt;
			strip(&x->v.type, &t);
			uint64_t off;
			struct bitpos bp;
			int tag = dwarf_tag(&t);
			if (x->ptr_depth || (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
					     tag != DW_TAG_class_type)) {
				char *ts = type_string(&x->v.type, "");
				err = sg_error_format(SG_ERROR_USAGE,
						      "Attempt to extract a component of a value that is not a structure%s.",
						      arrow ? " pointer" : "");
				free(ts);
			} else if (!(err = find_member(e->t, &t, field, &mt,
						       x->v.lvalue ? x->v.address : 0, &off, &bp))) {
				x->v = sub_value(&x->v, &mt, off);
				normalize(&x->v);
				if (bp.bits)
					err = bit_field_value(e, x, bp);
			}
			free(field);
		} else if (*e->p == '[') {
			e->p++;
			/* Any integer expression: a[i], a[n - 1]; a key of a
			   container.  */
			struct xval ix;
			uint64_t uidx;
			if ((err = parse_binary(e, &ix, 1)))
				return err;
			skip_ws(e);
			if (*e->p != ']')
				return sg_error_format(SG_ERROR_USAGE, "A syntax error in expression, near `%s'.", e->p);
			e->p++;
			if (is_class_object(x)) {
				err = shortcut(e, x, "[]", &ix, 1);
				if (err == &sg_not_found)
					err = sg_error_create(SG_ERROR_USAGE, "cannot subscript something of this type");
				continue;
			}
			if ((err = integer_of(e, &ix, &uidx)))
				return err;
			int64_t idx = (int64_t)uidx;
			Dwarf_Die t, elem;
			strip(&x->v.type, &t);
			int tag = dwarf_tag(&t);
			if (tag == DW_TAG_pointer_type && !x->ptr_depth) {
				if ((err = deref(e, x)))
					return err;
			} else if (tag != DW_TAG_array_type || x->ptr_depth) {
				return sg_error_create(SG_ERROR_USAGE, "cannot subscript something of this type");
			}
			strip(&x->v.type, &t);
			if (dwarf_tag(&t) == DW_TAG_array_type) {
				if (!sg_die_type(&t, &elem))
					return sg_error_create(SG_ERROR_BAD_DATA, "array without element type");
			} else {
				elem = x->v.type;
			}
			uint64_t len = dwarf_tag(&t) == DW_TAG_array_type ? array_length(&t) : 0;
			if (!x->v.lvalue && len && (idx < 0 || (uint64_t)idx >= len))
				return sg_error_create(SG_ERROR_USAGE, "no such vector element");
			x->v = sub_value(&x->v, &elem, (uint64_t)idx * type_size(&elem));
			normalize(&x->v);
		} else {
			return NULL;
		}
	}
}

static struct sg_error *parse_unary_at(struct expr *e, struct xval *x);

static struct sg_error *parse_unary(struct expr *e, struct xval *x)
{
	if (e->depth >= MAX_EXPR_DEPTH)
		return sg_error_format(SG_ERROR_USAGE, "expression nested too deeply (more than %d levels)",
				       MAX_EXPR_DEPTH);
	e->depth++;
	struct sg_error *err = parse_unary_at(e, x);
	e->depth--;
	return err;
}

static struct sg_error *parse_unary_at(struct expr *e, struct xval *x)
{
	skip_ws(e);
	if (*e->p == '*') {
		e->p++;
		struct sg_error *err = parse_unary(e, x);
		if (!err && x->is_void)
			return sg_error_create(SG_ERROR_USAGE, "Attempt to take contents of a non-pointer value.");
		if (!err)
			err = unref(e, x);
		return err ? err : deref_value(e, x, true);
	}
	if (*e->p == '-' && e->p[1] != '>') {
		e->p++;
		struct sg_error *err = parse_unary(e, x);
		x->bit_field = false;
		if (!err && x->is_void)
			return sg_error_create(SG_ERROR_USAGE, "Argument to negate operation not a number.");
		if (!err && float_size(x)) {
			long double d;
			uint64_t size = float_size(x);
			if ((err = long_double_of(e, x, &d)))
				return err;
			return size == 16 ? long_double_value(e, -d, x) : float_value(e, size, (double)-d, x);
		}
		uint64_t v;
		if (!err)
			err = integer_of(e, x, &v);
		if (err)
			return err;
		Dwarf_Die t;
		strip(&x->v.type, &t);
		if (x->ptr_depth || x->void_base || dwarf_tag(&t) != DW_TAG_base_type)
			return sg_error_create(SG_ERROR_USAGE, "Argument to arithmetic operation not a number or boolean.");
		x->v.lvalue = false;
		x->v.bits = -v;
		return NULL;
	}
	if (*e->p == '&') {
		e->p++;
		struct sg_error *err = parse_unary(e, x);
		if (!err && x->is_void)
			return sg_error_create(SG_ERROR_USAGE,
					       "Attempt to take address of value not located in memory.");
		if (!err)
			err = unref(e, x);
		if (err)
			return err;
		if (x->v.too_large && x->v.constant && !x->ptr_depth)
			return val_too_large(&x->v);
		if (x->rvalue_name[0] && !x->ptr_depth && x->v.in_register > 0)
			return sg_error_format(SG_ERROR_USAGE,
					       "Address requested for identifier \"%s\" which is in register $%s",
					       x->rvalue_name, sg_reg_name(x->v.in_register - 1));
		if (x->rvalue_name[0] && !x->ptr_depth && !x->v.in_register)
			return not_lvalue(x);
		if ((!x->v.lvalue && !x->bit_field) || x->ptr_depth)
			return sg_error_create(SG_ERROR_USAGE, "Attempt to take address of value not located in memory.");
		x->v.bits = x->v.address;
		x->v.lvalue = false;
		x->bit_field = false;
		x->ptr_depth = 1;
		return NULL;
	}
	return parse_postfix(e, x);
}

/* Binary operators by precedence, C's, highest last.  */
static const struct binop {
	const char *op;
	int prec;
} binops[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
	{ "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 }, { "@", 9 },
	{ "+", 10 }, { "-", 10 }, { "*", 11 }, { "/", 11 }, { "%", 11 },
};

static const struct binop *peek_binop(struct expr *e)
{
	skip_ws(e);
	if (e->p[0] == '-' && e->p[1] == '>')
		return NULL;
	const struct binop *best = NULL;
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++) {
		size_t n = strlen(binops[i].op);
		if (!strncmp(e->p, binops[i].op, n) && (!best || n > strlen(best->op)))
			best = &binops[i];
	}
	return best;
}

/* Size, signedness and whether X is a pointer (for arithmetic).  */
static bool arith_info(struct xval *x, uint64_t *size, bool *is_signed, uint64_t *elem_size)
{
	*elem_size = 0;
	if (x->ptr_depth) {
		*size = 8;
		*is_signed = false;
		*elem_size = x->ptr_depth > 1 || x->void_base ? (x->void_base && x->ptr_depth == 1 ? 1 : 8)
							      : type_size(&x->v.type);
		return true;
	}
	Dwarf_Die t;
	strip(&x->v.type, &t);
	int tag = dwarf_tag(&t);
	*size = type_size(&t);
	*is_signed = false;
	if (tag == DW_TAG_pointer_type) {
		Dwarf_Die target;
		*elem_size = sg_die_type(&t, &target) ? type_size(&target) : 1;
		return true;
	}
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	if (tag == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	*is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return false;
}

/* Whether X is an array that is no object in memory.  */
static bool is_rvalue_array(struct xval *x)
{
	Dwarf_Die t;
	if (x->ptr_depth || x->repeat || x->reg || x->function || x->v.lvalue)
		return false;
	strip(&x->v.type, &t);
	return dwarf_tag(&t) == DW_TAG_array_type;
}

/* An array in arithmetic is a pointer to its first element, as in C
   ("sg_bytes + 1"); a function a pointer to its code.  */
static void decay(struct xval *x)
{
	Dwarf_Die t, elem;
	if (x->function && !x->ptr_depth) {
		/* main + 4: bytes past the entry, as gdb counts them.  */
		uint64_t address = x->v.address;
		memset(x, 0, sizeof(*x));
		x->v.bits = address;
		x->void_base = true;
		x->ptr_depth = 1;
		return;
	}
	if (x->ptr_depth || x->repeat || x->reg || !x->v.lvalue)
		return;
	strip(&x->v.type, &t);
	if (dwarf_tag(&t) != DW_TAG_array_type || !sg_die_type(&t, &elem))
		return;
	uint64_t address = x->v.address;
	memset(x, 0, sizeof(*x));
	x->v.type = elem;
	x->v.bits = address;
	x->ptr_depth = 1;
}

static struct sg_error *apply_binop(struct expr *e, const char *op, struct xval *l, struct xval *r)
{
	/* An array not in memory has no address to decay to; gdb names
	   the variable in pointer arithmetic.  */
	if (is_rvalue_array(l) || is_rvalue_array(r)) {
		struct xval *a = is_rvalue_array(l) ? l : r;
		bool arith = !strcmp(op, "+") || !strcmp(op, "-");
		if (a->v.too_large && a->v.constant)
			return val_too_large(&a->v);
		if (wholly_lost(&a->v) && !(a->rvalue_name[0] && arith))
			return sg_error_create(SG_ERROR_OTHER, "value has been optimized out");
		return a->rvalue_name[0] && arith ? not_lvalue(a)
					: sg_error_create(SG_ERROR_USAGE,
							  "Attempt to take address of value not located in memory.");
	}
	decay(l);
	decay(r);
	if (float_size(l) || float_size(r)) {
		struct sg_error *err = unref(e, l);
		if (!err)
			err = unref(e, r);
		if (err)
			return err;
		if (!l->ptr_depth && !r->ptr_depth)
			return float_binop(e, op, l, r);
	}
	uint64_t a, b;
	struct sg_error *err = integer_of(e, l, &a);
	if (!err)
		err = integer_of(e, r, &b);
	if (err)
		return err;
	uint64_t lsize, rsize, lelem, relem;
	bool lsigned, rsigned;
	bool lptr = arith_info(l, &lsize, &lsigned, &lelem);
	bool rptr = arith_info(r, &rsize, &rsigned, &relem);
	bool cmp = strchr("<>=!", op[0]) && strcmp(op, "<<") && strcmp(op, ">>");
	bool logic = !strcmp(op, "&&") || !strcmp(op, "||");
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	uint64_t v;
	if (lptr && !rptr && (op[0] == '+' || op[0] == '-') && !op[1]) {
		/* Pointer arithmetic: scaled by the element size.  */
		v = op[0] == '+' ? a + b * lelem : a - b * lelem;
		if (l->ptr_depth) {
			l->v.bits = v;
		} else {
			l->v.lvalue = false;
			l->v.bits = v;
		}
		return NULL;
	}
	if (lptr && rptr && !strcmp(op, "-")) {
		v = lelem ? (uint64_t)((sa - sb) / (int64_t)lelem) : 0;
		return integer_value(e, "long int", v, l);
	}
	if ((op[0] == '/' || op[0] == '%') && b == 0)
		return sg_error_create(SG_ERROR_USAGE, "Division by zero");
	/* C's conversions, simplified: the wider operand wins; at equal
	   width, unsigned wins.  */
	bool is_signed = lsize == rsize ? lsigned && rsigned : lsize > rsize ? lsigned : rsigned;
	if (!strcmp(op, "+")) v = a + b;
	else if (!strcmp(op, "-")) v = a - b;
	else if (!strcmp(op, "*")) v = a * b;
	else if (!strcmp(op, "/")) v = is_signed ? (uint64_t)(sa / sb) : a / b;
	else if (!strcmp(op, "%")) v = is_signed ? (uint64_t)(sa % sb) : a % b;
	else if (!strcmp(op, "<<")) v = b >= 64 ? 0 : a << b;
	else if (!strcmp(op, ">>")) v = b >= 64 ? 0 : is_signed ? (uint64_t)(sa >> b) : a >> b;
	else if (!strcmp(op, "&")) v = a & b;
	else if (!strcmp(op, "|")) v = a | b;
	else if (!strcmp(op, "^")) v = a ^ b;
	else if (!strcmp(op, "&&")) v = a && b;
	else if (!strcmp(op, "||")) v = a || b;
	else if (!strcmp(op, "==")) v = a == b;
	else if (!strcmp(op, "!=")) v = a != b;
	else if (!strcmp(op, "<")) v = is_signed ? sa < sb : a < b;
	else if (!strcmp(op, "<=")) v = is_signed ? sa <= sb : a <= b;
	else if (!strcmp(op, ">")) v = is_signed ? sa > sb : a > b;
	else v = is_signed ? sa >= sb : a >= b;
	if (cmp || logic)
		return integer_value(e, "int", v, l);
	/* The wider operand's type; ints at least.  */
	struct xval *wide = rsize > lsize ? r : l;
	if ((lsize < 4 && rsize < 4) || lptr || rptr)
		return integer_value(e, "int", v, l);
	Dwarf_Die type = wide->v.type;
	memset(l, 0, sizeof(*l));
	l->v.type = type;
	l->v.bits = v;
	return NULL;
}

/* X@COUNT: COUNT objects like X, from X's address (gdb's artificial
   arrays, as in print *argv@argc).  */
static struct sg_error *apply_repeat(struct expr *e, struct xval *x, struct xval *count)
{
	uint64_t n;
	struct sg_error *err = integer_of(e, count, &n);
	if (err)
		return err;
	/* An element of an array not in memory (*a@3): within its bytes.  */
	bool in_bytes = !x->v.lvalue && x->v.bytes && !x->ptr_depth && !x->repeat && !x->reg;
	if ((!x->v.lvalue && !in_bytes) || x->ptr_depth || x->repeat || x->reg)
		return sg_error_create(SG_ERROR_USAGE, "Only values in memory can be extended with '@'.");
	if (in_bytes && n > x->v.nbytes / (type_size(&x->v.type) ? type_size(&x->v.type) : 1))
		return sg_error_create(SG_ERROR_USAGE, "Only values in memory can be extended with '@'.");
	if ((int64_t)n <= 0)
		return sg_error_format(SG_ERROR_USAGE, "Invalid number %" PRId64 " of repetitions.",
				       (int64_t)n);
	uint64_t esize = type_size(&x->v.type);
	if (esize == 0)
		return sg_error_create(SG_ERROR_USAGE, "Only values in memory can be extended with '@'.");
	if (n > (UINT64_C(1) << 32) / esize)
		return sg_error_format(SG_ERROR_USAGE, "%" PRIu64 " elements are too many.", n);
	x->repeat = n;
	return NULL;
}

/* gdb's error for a void operand of binary operator OP.  */
static struct sg_error *void_operand(const char *op)
{
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return sg_error_create(SG_ERROR_USAGE, "Invalid type combination in equality test.");
	if (!strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">="))
		return sg_error_create(SG_ERROR_USAGE, "Invalid type combination in ordering comparison.");
	if (!strcmp(op, "@"))
		return sg_error_create(SG_ERROR_USAGE, "Only values in memory can be extended with '@'.");
	return sg_error_create(SG_ERROR_USAGE, "Argument to arithmetic operation not a number or boolean.");
}

static struct sg_error *parse_binary(struct expr *e, struct xval *x, int min_prec)
{
	struct sg_error *err = parse_unary(e, x);
	if (err)
		return err;
	for (;;) {
		const struct binop *op = peek_binop(e);
		if (!op || op->prec < min_prec)
			return NULL;
		e->p += strlen(op->op);
		struct xval rhs;
		if ((err = parse_binary(e, &rhs, op->prec + 1)))
			return err;
		if (x->is_void || rhs.is_void)
			return void_operand(op->op);
		if ((err = !strcmp(op->op, "@") ? apply_repeat(e, x, &rhs) : apply_binop(e, op->op, x, &rhs)))
			return err;
		x->bit_field = false;
	}
}

struct sg_error *sg_eval_xval(struct sg_session *s, struct sg_target *t, const char *text, struct xval *x)
{
	struct expr e = { s, t, text, 0 };
	/* The values of the last command are done with.  */
	val_bytes_release();
	struct sg_error *err = parse_binary(&e, x, 1);
	if (err)
		return err;
	skip_ws(&e);
	if (*e.p)
		return sg_error_format(SG_ERROR_USAGE, "A syntax error in expression, near `%s'.", e.p);
	return NULL;
}

/* TEXT as "NAME", "&NAME" or "'NAME'" of the symbol table: its address. */
static struct sg_error *symbol_address(struct sg_session *s, struct sg_target *t, const char *text,
				       uint64_t *ret)
{
	while (isspace((unsigned char)*text) || *text == '&')
		text++;
	size_t len = strlen(text);
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	if (len >= 2 && text[0] == '\'' && text[len - 1] == '\'') {
		text++;
		len -= 2;
	} else if (!len || strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789_:.$@") < len) {
		return &sg_not_found;
	}
	char *name = strndup(text, len);
	if (!name)
		return &sg_enomem;
	struct sg_symbol sym;
	struct sg_error *err = sg_lookup_symbol(t, name, &sym);
	free(name);
	if (err)
		return err;
	if (sym.kind == STT_TLS) {
		/* Its value is an offset in its module's TLS block.  */
		struct sg_module_info info;
		sg_module_info(sym.module, &info);
		return sg_tls_address(t, sg_session_thread(s), sym.module, sym.address - info.bias, ret);
	}
	*ret = sym.address;
	return NULL;
}

/* The address TEXT names for x and info symbol, as gdb takes it: a
   pointer's value, where an array or a function is, an integer's value.
   So "x/s p" follows the char pointer p, and "$sp" is the selected
   frame's.  */
/* X, evaluated, as a number is taken from it: a reference stands for
   its object; void is gdb's error.  */
static struct sg_error *as_number(struct expr *e, struct xval *x)
{
	if (x->is_void)
		return sg_error_create(SG_ERROR_USAGE, "Value can't be converted to integer.");
	return unref(e, x);
}

struct sg_error *sg_eval_address(struct sg_session *s, const char *text, uint64_t *ret)
{
	struct sg_target *t;
	struct sg_error *err = sg_session_need_target(s, &t);
	if (err)
		return err;
	struct xval x;
	if ((err = sg_eval_xval(s, t, text, &x))) {
		/* A symbol without DWARF (a stripped module, 'ns::f(int)'):
		   its address, as before typed expressions.  */
		if (sg_error_code(err) == SG_ERROR_LOOKUP || sg_error_code(err) == SG_ERROR_USAGE) {
			struct sg_error *serr = symbol_address(s, t, text, ret);
			if (!serr) {
				sg_error_destroy(err);
				return NULL;
			}
			sg_error_destroy(serr);
		}
		return err;
	}
	struct expr e = { s, t, text, 0 };
	if ((err = as_number(&e, &x)))
		return err;
	if (x.ptr_depth) {
		*ret = x.v.bits;
		return NULL;
	}
	if (x.function) {
		*ret = x.v.address;
		return NULL;
	}
	Dwarf_Die type;
	strip(&x.v.type, &type);
	switch (dwarf_tag(&type)) {
	case DW_TAG_array_type:
		if (!x.v.lvalue)
			break;
		*ret = x.v.address;
		return NULL;
	case DW_TAG_pointer_type:
		return read_value(t, &x.v, ret, 8);
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		if (float_size(&x))
			break;
		return integer_of(&e, &x, ret);
	}
	return sg_error_create(SG_ERROR_USAGE, "Value can't be converted to integer.");
}

struct sg_error *sg_eval_scalar(struct sg_session *s, struct sg_target *t, const char *text,
				   struct scalar *ret)
{
	struct xval x;
	struct sg_error *err = sg_eval_xval(s, t, text, &x);
	if (err)
		return err;
	struct expr e = { s, t, text, 0 };
	if ((err = as_number(&e, &x)))
		return err;
	decay(&x);
	memset(ret, 0, sizeof(*ret));
	if (float_size(&x)) {
		ret->is_float = true;
		if ((err = long_double_of(&e, &x, &ret->f)))
			return err;
		/* C's conversion is undefined out of range: saturate.  */
		ret->i = ret->f != ret->f ? 0
			 : ret->f >= 0x1p63L ? (uint64_t)INT64_MAX
			 : ret->f <= -0x1p63L ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)ret->f;
		return NULL;
	}
	uint64_t size, elem;
	bool is_signed;
	if ((err = integer_of(&e, &x, &ret->i)))
		return err;
	ret->is_pointer = arith_info(&x, &size, &is_signed, &elem);
	ret->size = size;
	/* A narrower signed value stands for its sign-extended self.  */
	if (is_signed && size && size < 8 && (ret->i >> (size * 8 - 1)) & 1)
		ret->i |= ~UINT64_C(0) << (size * 8);
	else if (size && size < 8)
		ret->i &= (UINT64_C(1) << (size * 8)) - 1;
	ret->f = is_signed ? (long double)(int64_t)ret->i : (long double)ret->i;
	return NULL;
}

struct sg_error *sg_set_examined(struct sg_session *s, struct sg_target *t, uint64_t address,
				    int size, uint64_t bits)
{
	/* gdb's intN_t are integers, never characters: an int holds the
	   narrower ones, sign-extended.  */
	static const char *const c_names[] = { "int", "int", "int", "long" };
	static const char *const gdb_names[] = { "int8_t", "int16_t", "int32_t", "int64_t" };
	static const char *const ptr_names[] = { "int8_t *", "int16_t *", "int32_t *", "int64_t *" };
	int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
	if (size < 8 && (bits >> (size * 8 - 1)) & 1)
		bits |= ~UINT64_C(0) << (size * 8);
	struct expr e = { s, t, "", 0 };
	struct xval x;
	const char *c = dwarf_base_name(c_names[k]);
	struct sg_error *err = integer_value(&e, c ? c : c_names[k], bits, &x);
	if (err) {
		/* A program without such a type in its DWARF: no $_.  */
		sg_error_destroy(err);
		return NULL;
	}
	x.type_name = gdb_names[k];
	if ((err = sg_convenience_set(s, "__", &x)))
		return err;
	/* $_ points at an integer of the unit's own size (gdb's int8_t is
	   an integer; a byte here is a signed char).  */
	static const char *const sized[] = { "signed char", "short int", "int", "long int" };
	if ((err = integer_value(&e, sized[k], 0, &x))) {
		sg_error_destroy(err);
		return NULL;
	}
	x.type_name = ptr_names[k];
	x.ptr_depth = 1;
	x.v.bits = address;
	return sg_convenience_set(s, "_", &x);
}
