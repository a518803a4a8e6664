/* The caches' hash tables: fixed-size entries in one array, open
   addressing with linear probing, doubled at half full.  Each cache says
   how big an entry is, when a slot is used, and how to hash a used one. */
#include <config.h>
#include "internal.h"

static void *slot(const struct sg_table *t, const struct sg_table_type *type, size_t i)
{
	return (char *)t->slots + i * type->entry_size;
}

static bool grow(struct sg_table *t, const struct sg_table_type *type)
{
	size_t ncap = t->cap ? t->cap * 2 : type->min_cap;
	struct sg_table bigger = { .slots = calloc(ncap, type->entry_size), .n = t->n, .cap = ncap };
	if (!bigger.slots)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		void *e = slot(t, type, i);
		if (!type->used(e))
			continue;
		size_t j = type->hash(e) & (ncap - 1);
		while (type->used(slot(&bigger, type, j)))
			j = (j + 1) & (ncap - 1);
		memcpy(slot(&bigger, type, j), e, type->entry_size);
	}
	free(t->slots);
	*t = bigger;
	return true;
}

void *sg_table_find(struct sg_table *t, const struct sg_table_type *type, uint64_t hash,
		    bool (*eq)(const void *entry, const void *key), const void *key, bool insert)
{
	if (insert && (t->n + 1) * 2 > t->cap && !grow(t, type))
		return NULL;
	if (!t->cap)
		return NULL;
	for (size_t j = hash & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
		void *e = slot(t, type, j);
		if (!type->used(e)) {
			if (!insert)
				return NULL;
			t->n++;
			return e;
		}
		if (eq(e, key))
			return e;
	}
}

uint64_t sg_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}
