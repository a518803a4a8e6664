/* Line numbers from code objects' line tables, in the three formats
   CPython has had (Objects/lnotab_notes.txt, Objects/locations.md).  The
   decoders take the table's bytes and never read past them.  */
#include <config.h>
#include "cpython.h"

/* Up to 3.9, co_lnotab: pairs of (bytecode offset increment, line
   increment), starting at offset 0 and line co_firstlineno.  The line
   increment became signed in 3.6.  LASTI is the byte offset of the last
   instruction.  */
int py_lnotab_line(const unsigned char *table, size_t len, int firstlineno, int64_t lasti,
		   bool signed_deltas)
{
	int line = firstlineno;
	int64_t addr = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += table[i];
		if (addr > lasti)
			break;
		line += signed_deltas ? (int)(signed char)table[i + 1] : (int)table[i + 1];
	}
	return line;
}

/* 3.10, co_linetable: pairs of (byte length of a range, line increment),
   where an increment of -128 means the range has no line (and leaves the
   running line alone).  LASTI counts code units of 2 bytes.  */
int py_linetable310_line(const unsigned char *table, size_t len, int firstlineno, int64_t lasti)
{
	int line = firstlineno;
	int64_t addr = 0, target = lasti * 2;
	for (size_t i = 0; i + 1 < len; i += 2) {
		int delta = (signed char)table[i + 1];
		if (delta != -128)
			line += delta;
		int64_t end = addr + table[i];
		if (target >= addr && target < end)
			return delta == -128 ? 0 : line;
		addr = end;
	}
	return 0;
}

/* 3.11+, the location table: entries of a first byte (bit 7 set, bits 3-6
   a code, bits 0-2 the length in code units minus one) and then varints
   whose count depends on the code.  Only the line matters here.  */
struct cursor {
	const unsigned char *p, *end;
};

static bool varint(struct cursor *c, uint64_t *ret)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end && shift < 64; shift += 6) {
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 63) << shift;
		if (!(b & 64)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

static bool svarint(struct cursor *c, int64_t *ret)
{
	uint64_t u;
	if (!varint(c, &u))
		return false;
	*ret = u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
	return true;
}

int py_locations_line(const unsigned char *table, size_t len, int firstlineno, int64_t index)
{
	struct cursor c = { table, table + len };
	int64_t line = firstlineno, addr = 0;
	while (c.p < c.end) {
		unsigned char first = *c.p++;
		if (!(first & 0x80))
			return 0;	/* not at an entry: a broken table */
		unsigned code = (first >> 3) & 15;
		int64_t length = (first & 7) + 1, delta = 0;
		bool none = false;
		uint64_t skip;
		switch (code) {
		case 15:
			none = true;
			break;
		case 14:
			if (!svarint(&c, &delta) || !varint(&c, &skip) || !varint(&c, &skip) ||
			    !varint(&c, &skip))
				return 0;
			break;
		case 13:
			if (!svarint(&c, &delta))
				return 0;
			break;
		case 10: case 11: case 12:
			delta = code - 10;
			if (c.end - c.p < 2)
				return 0;
			c.p += 2;
			break;
		default:
			if (c.p == c.end)
				return 0;
			c.p += 1;
			break;
		}
		/* A crafted varint could carry the line anywhere: lines are
		   ints, and past them the table is garbage.  */
		if (delta > INT32_MAX || delta < -(int64_t)INT32_MAX)
			return 0;
		line += delta;
		if (line > INT32_MAX || line < -(int64_t)INT32_MAX)
			return 0;
		if (index >= addr && index < addr + length)
			return none || line < 0 || line > INT32_MAX ? 0 : (int)line;
		addr += length;
	}
	return 0;
}
