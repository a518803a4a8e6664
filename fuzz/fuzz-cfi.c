/* Unwinding over random stacks, and the DWARF expression evaluator over
   random operations.  The first byte chooses:
   - even: bt of the fixture bt-c-O2-nofp (CFI only, no frame pointers),
     with the pc somewhere in its code, the stack pointer and the frame
     pointer in the input's memory, and the rest of the input as memory;
   - odd: the input's operations evaluated over random registers and the
     same memory.  */
#include <config.h>
#include "internal.h"
#include "harness.h"

#include <dwarf.h>
#include <string.h>

#define MAX_OPS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **p, const uint8_t *end, size_t n)
{
	uint64_t v = 0;
	n = n < (size_t)(end - *p) ? n : (size_t)(end - *p);
	memcpy(&v, *p, n);
	*p += n;
	return v;
}

/* Operations that carry a block (libdw: NUMBER its length, NUMBER2 the
   address of the length's ULEB128, which the block follows).  Evaluators
   may read it, so it must be real memory, as it is from libdw.  */
#define MAX_BLOCK 16
static bool has_block(uint8_t atom)
{
	return atom == DW_OP_implicit_value || atom == DW_OP_entry_value ||
	       atom == DW_OP_GNU_entry_value || atom == DW_OP_const_type ||
	       atom == DW_OP_GNU_const_type;
}

static void eval_ops(struct sg_target *t, const struct sg_regs *regs, const uint8_t *p,
		     const uint8_t *end)
{
	Dwarf_Op ops[MAX_OPS];
	/* Blocks for the operations whose NUMBER2 libdw makes a pointer to
	   their block: a ULEB128 length, then the bytes.  */
	unsigned char blocks[MAX_OPS][1 + MAX_BLOCK];
	size_t n = 0;
	while (p < end && n < MAX_OPS) {
		Dwarf_Op *op = &ops[n];
		op->atom = take(&p, end, 1);
		op->number = take(&p, end, op->atom & 1 ? 8 : 1);
		op->number2 = take(&p, end, 1);
		if (has_block(op->atom)) {
			unsigned char *b = blocks[n];
			op->number %= MAX_BLOCK + 1;
			b[0] = op->number;
			memset(b + 1, 0, MAX_BLOCK);
			size_t k = op->number < (size_t)(end - p) ? op->number : (size_t)(end - p);
			memcpy(b + 1, p, k);
			p += k;
			op->number2 = (Dwarf_Word)(uintptr_t)b;
		}
		/* A branch's target is an offset into the expression.  */
		op->offset = n ? ops[n - 1].offset + 1 + (op->atom % 7) : 0;
		n++;
	}
	struct sg_dwarf_expr_ctx ctx = { .target = t, .regs = regs, .cfa = fz_data_start(),
					 .has_cfa = true };
	struct sg_dwarf_result res;
	uint64_t initial = fz_data_start() + 64;
	sg_error_destroy(sg_dwarf_expr_eval(ops, n, &ctx, n & 1 ? &initial : NULL, &res));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	const uint8_t *p = data + 1, *end = data + size;
	struct sg_regs regs = { 0 };
	uint64_t pc = take(&p, end, 4), sp = take(&p, end, 2) * 8, fp = take(&p, end, 1) * 8;
	/* The memory is the whole input: the registers name places in it.  */
	struct shell *sh = fz_target("bt-c-O2-nofp", data, size, NULL);
	uint64_t text_start, text_end;
	fz_text_range(&text_start, &text_end);
	if (text_end > text_start)
		sg_regs_set(&regs, SG_REG_RIP, text_start + pc % (text_end - text_start));
	sg_regs_set(&regs, SG_REG_RSP, fz_data_start() + sp);
	sg_regs_set(&regs, SG_REG_RBP, fz_data_start() + fp);
	struct sg_target *t = sg_session_target(sh->session);
	t->threads[0].regs = regs;
	if (data[0] & 1) {
		for (int r = 0; r < 16 && p + 1 <= end; r++)
			sg_regs_set(&regs, r, fz_data_start() + take(&p, end, 1) * 8);
		eval_ops(t, &regs, p, end);
	} else {
		shell_run_line(sh, "bt 32", NULL);
	}
	return 0;
}
