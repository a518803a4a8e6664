/* fp-unwind: unwinding by the saved frame-pointer chain.

   With frame pointers, [rbp] holds the caller's rbp and [rbp+8] the return
   address.  Each step is checked, since rbp may hold anything in code built
   without frame pointers: the frame must lie in the same stack mapping as
   the stack pointer, above it, and the next frame must be higher still; the
   return address must be in executable memory.  A step that fails a check
   ends the walk.

   It also handles a frame 0 whose pc is not in executable memory (a call
   through a bad function pointer): the return address is then at [rsp].

   A signal handler returns to the sigreturn trampoline, which has no frame
   pointer: the kernel left the interrupted registers in a ucontext just
   above the handler's return address, where the trampoline's stack pointer
   points.  We know the trampoline by its code, as gdb and libunwind do, and
   take its caller from that ucontext.  */
#define _GNU_SOURCE	/* REG_RIP and friends */
#include <spyglass/spyglass.h>

#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

/* A frame larger than this is not a frame (libunwind uses 0x4000 for the
   distance from the CFA; we allow for big local arrays).  */
#define MAX_FRAME_SIZE (64 * 1024 * 1024)

static bool executable(struct sg_target *target, uint64_t addr)
{
	struct sg_mapping m;
	return sg_target_mapping_at(target, addr, &m) && m.executable;
}

/* x86-64 rt_sigreturn, "mov $0xf,%rax; syscall": glibc's __restore_rt, and
   the bytes gdb and libunwind look for too.  */
static const uint8_t sigreturn_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
#define SIGRETURN_SYSCALL_OFFSET 7

static bool is_sigreturn_code(struct sg_target *target, uint64_t addr)
{
	uint8_t code[sizeof(sigreturn_code)];
	struct sg_error *err = sg_target_read(target, addr, code, sizeof(code));
	if (err) {
		sg_error_destroy(err);
		return false;
	}
	return !memcmp(code, sigreturn_code, sizeof(code));
}

/* Is PC in the sigreturn trampoline?  A handler's return address is its
   first byte; a thread stopped in it (frame 0) may also be at the syscall.  */
static bool in_sigreturn(struct sg_target *target, uint64_t pc, bool activation)
{
	return is_sigreturn_code(target, pc) ||
	       (activation && pc >= SIGRETURN_SYSCALL_OFFSET &&
		is_sigreturn_code(target, pc - SIGRETURN_SYSCALL_OFFSET));
}

/* The registers a signal interrupted, from the ucontext at UC, in the order
   of its gregs (sys/ucontext.h).  */
static const struct {
	int greg;
	enum sg_reg reg;
} greg_map[] = {
	{ REG_R8, SG_REG_R8 },	 { REG_R9, SG_REG_R9 },	  { REG_R10, SG_REG_R10 },
	{ REG_R11, SG_REG_R11 }, { REG_R12, SG_REG_R12 }, { REG_R13, SG_REG_R13 },
	{ REG_R14, SG_REG_R14 }, { REG_R15, SG_REG_R15 }, { REG_RDI, SG_REG_RDI },
	{ REG_RSI, SG_REG_RSI }, { REG_RBP, SG_REG_RBP }, { REG_RBX, SG_REG_RBX },
	{ REG_RDX, SG_REG_RDX }, { REG_RAX, SG_REG_RAX }, { REG_RCX, SG_REG_RCX },
	{ REG_RSP, SG_REG_RSP }, { REG_RIP, SG_REG_RIP }, { REG_EFL, SG_REG_EFLAGS },
};

static struct sg_error *sigreturn_step(struct sg_target *target, uint64_t uc,
				       struct sg_unwind_frame *caller)
{
	uint64_t gregs[REG_EFL + 1];
	struct sg_error *err = sg_target_read(target, uc + offsetof(ucontext_t, uc_mcontext.gregs),
					      gregs, sizeof(gregs));
	if (err)
		return sg_error_prefix(err, "signal frame at 0x%" PRIx64, uc);
	struct sg_unwind_frame out;
	memset(&out, 0, sizeof(out));
	for (size_t i = 0; i < sizeof(greg_map) / sizeof(greg_map[0]); i++)
		sg_regs_set(&out.regs, greg_map[i].reg, gregs[greg_map[i].greg]);
	/* Interrupted, not calling: the pc is exact, and the core shows the
	   trampoline as <signal handler called>.  */
	out.activation = true;
	*caller = out;
	return NULL;
}

static struct sg_error *fp_step(struct sg_target *target, const struct sg_unwind_frame *callee,
				struct sg_unwind_frame *caller, void *arg SG_UNUSED)
{
	const struct sg_regs *r = &callee->regs;
	if (!sg_regs_has(r, SG_REG_RIP) || !sg_regs_has(r, SG_REG_RSP))
		return &sg_not_found;
	uint64_t pc = r->r[SG_REG_RIP], sp = r->r[SG_REG_RSP];
	if (in_sigreturn(target, pc, callee->activation))
		return sigreturn_step(target, sp, caller);
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
	   is still good, and the next step will stop.  A signal handler's
	   saved rbp is the interrupted code's, maybe on another stack: the
	   trampoline's step does not use it.  */
	if (next_fp != 0 && next_fp <= fp && next_fp >= stack.start &&
	    !in_sigreturn(target, ra, false))
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

/* Loaded when needed (ABI 1.6): doc/plugins.md.  */
SG_PLUGIN_TRIGGERS("stacks");
SG_PLUGIN_DEFINE("fp-unwind", "1.0", "Unwinds by the saved frame-pointer chain", fp_init, NULL);
