/* The order of a merged stack: native frames with the interpreter loop's
   replaced by the runtime frames they run (sampler.h).  Shared by bt
   --python and record --stack mixed, so that both merge alike.  */
#include <config.h>
#include "internal.h"

#include <spyglass/sampler.h>

bool sg_merge_order(const bool *eval, size_t nnative, const bool *entry, size_t nruntime,
		    bool native_cut, struct sg_merge_item *order, size_t *n, size_t *cut_at)
{
	size_t evals = 0, entries = 0;
	for (size_t i = 0; i < nnative; i++)
		evals += eval[i];
	for (size_t k = 0; k < nruntime; k++)
		entries += entry[k];
	/* Without a single eval frame the loop's symbols are missing (a
	   stripped build's cold part), not just the rest of the stack.  */
	bool cut = native_cut && evals > 0 && evals < entries;
	bool merge = evals == entries || cut;
	size_t m = 0, k = 0;
	*cut_at = SIZE_MAX;
	if (merge) {
		for (size_t i = 0; i < nnative; i++) {
			if (!eval[i]) {
				order[m++] = (struct sg_merge_item){ false, i };
				continue;
			}
			/* This eval frame runs the frames up to the next entry.  */
			while (k < nruntime) {
				order[m++] = (struct sg_merge_item){ true, k };
				if (entry[k++])
					break;
			}
		}
		if (cut && k < nruntime)
			*cut_at = m;
	}
	if (!merge || *cut_at != SIZE_MAX)
		for (; k < nruntime; k++)
			order[m++] = (struct sg_merge_item){ true, k };
	if (*cut_at == SIZE_MAX)
		*cut_at = m;
	*n = m;
	return merge;
}
