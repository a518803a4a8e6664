/* fp-unwind: unwinding by the saved frame-pointer chain.

   With frame pointers, [rbp] holds the caller's rbp and [rbp+8] the return
   address.  Each step is checked, since rbp may hold anything in code built
   without frame pointers: the frame must lie in the same stack mapping as
   the stack pointer, above it, and the next frame must be higher still; the
   return address must be in executable memory.  A step that fails a check
   ends the walk.

   It also handles a frame 0 whose pc is not in executable memory (a call
   through a bad function pointer): the return address is then at [rsp].  */
#include <spyglass/spyglass.h>

#include <inttypes.h>
#include <string.h>

/* A frame larger than this is not a frame (libunwind uses 0x4000 for the
   distance from the CFA; we allow for big local arrays).  */
#define MAX_FRAME_SIZE (64 * 1024 * 1024)

static bool executable(struct sg_target *target, uint64_t addr)
{
	struct sg_mapping m;
	return sg_target_mapping_at(target, addr, &m) && m.executable;
}

static struct sg_error *fp_step(struct sg_target *target, const struct sg_unwind_frame *callee,
				struct sg_unwind_frame *caller, void *arg SG_UNUSED)
{
	const struct sg_regs *r = &callee->regs;
	if (!sg_regs_has(r, SG_REG_RIP) || !sg_regs_has(r, SG_REG_RSP))
		return &sg_not_found;
	uint64_t pc = r->r[SG_REG_RIP], sp = r->r[SG_REG_RSP];
	struct sg_unwind_frame out;
	memset(&out, 0, sizeof(out));
	struct sg_error *err;

	if (callee->activation && !executable(target, pc)) {
		/* Jumped to a bad address: the call pushed the return
		   address, nothing else happened.  */
		uint64_t ra;
		if ((err = sg_target_read_u64(target, sp, &ra)))
			return err;
		if (!executable(target, ra))
			return sg_error_format(SG_ERROR_BAD_DATA,
					       "pc 0x%" PRIx64 " is not code and [rsp] is no return address", pc);
		sg_regs_set(&out.regs, SG_REG_RIP, ra);
		sg_regs_set(&out.regs, SG_REG_RSP, sp + 8);
		if (sg_regs_has(r, SG_REG_RBP))
			sg_regs_set(&out.regs, SG_REG_RBP, r->r[SG_REG_RBP]);
		*caller = out;
		return NULL;
	}

	if (!sg_regs_has(r, SG_REG_RBP))
		return &sg_not_found;
	uint64_t fp = r->r[SG_REG_RBP];
	if (fp == 0)
		return &sg_stop;	/* _start and clone clear rbp */
	struct sg_mapping stack;
	if (fp < sp || fp - sp > MAX_FRAME_SIZE || fp % 8 ||
	    !sg_target_mapping_at(target, sp, &stack) || fp + 16 > stack.end)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "frame pointer 0x%" PRIx64 " is not in this stack", fp);
	uint64_t saved[2];
	if ((err = sg_target_read(target, fp, saved, sizeof(saved))))
		return err;
	uint64_t next_fp = saved[0], ra = saved[1];
	/* A saved rbp that points into this stack but not above us is a
	   corrupt chain.  One that points elsewhere may be a caller built
	   without frame pointers (__libc_start_call_main): the return address
	   is still good, and the next step will stop.  */
	if (next_fp != 0 && next_fp <= fp && next_fp >= stack.start)
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "saved frame pointer 0x%" PRIx64 " is not above 0x%" PRIx64,
				       next_fp, fp);
	if (!executable(target, ra))
		return sg_error_format(SG_ERROR_BAD_DATA,
				       "return address 0x%" PRIx64 " is not in executable memory", ra);
	sg_regs_set(&out.regs, SG_REG_RIP, ra);
	sg_regs_set(&out.regs, SG_REG_RSP, fp + 16);
	sg_regs_set(&out.regs, SG_REG_RBP, next_fp);
	*caller = out;
	return NULL;
}

static const struct sg_unwinder_ops fp_ops = {
	.step = fp_step,
};

static struct sg_error *fp_init(struct sg_session *session, void **state_ret SG_UNUSED)
{
	return sg_unwinder_register(session, "fp", 20, &fp_ops, NULL);
}

SG_PLUGIN_DEFINE("fp-unwind", "1.0", "Unwinds by the saved frame-pointer chain", fp_init, NULL);
