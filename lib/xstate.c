/* A thread's floating-point and vector registers from its XSAVE area
   (sg_thread_xregs): read with ptrace from a stopped thread, or from a
   core's notes, and taken apart into the registers gdb shows.

   The area is in the standard (not compacted) form both give: the
   512-byte FXSAVE image (x87 and SSE), the 64-byte XSAVE header whose
   first word, XSTATE_BV, says which components hold state, then each
   component at an offset CPUID leaf 0xD gives.  Bytes 464-471 of the
   FXSAVE image (reserved for software) hold XCR0: Linux puts it there
   for ptrace and cores.  */
#include <config.h>
#include "internal.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

/* Room for any XSAVE area: AMX tile data makes it about 11 kB.  */
#define XSTATE_MAX (32u << 10)
#define FXSAVE_SIZE 512
#define XSAVE_HEADER_END 576
#define XCR0_OFFSET 464

enum {
	X87 = 1 << 0, SSE = 1 << 1, AVX = 1 << 2,
	OPMASK = 1 << 5, ZMM_HI256 = 1 << 6, HI16_ZMM = 1 << 7, PKRU = 1 << 9,
};

/* The user components up to PKRU: their XCR0 bit, their size, the
   offset Intel's CPUs give them, which is the layout gdb writes and
   reads in cores, and the one AMD's Zen CPUs give them (0: they have
   none; an area of 2440 bytes).  MPX's are not read.  */
static const struct component {
	unsigned bit, size, intel_offset, amd_offset;
} components[] = {
	{ 2, 256, 576, 576 },	/* AVX: the upper halves of ymm0-15 */
	{ 3, 64, 960, 0 }, { 4, 64, 1024, 0 },	/* MPX */
	{ 5, 64, 1088, 832 },	/* opmask k0-7 */
	{ 6, 512, 1152, 896 },	/* the upper halves of zmm0-15 */
	{ 7, 1024, 1664, 1408 },	/* zmm16-31 */
	{ 9, 8, 2688, 2432 },	/* PKRU */
};

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The tag of an x87 register from its contents, as FSTENV would give
   it: 0 valid, 1 zero, 2 special (NaN, infinity, denormal, unsupported).  */
static unsigned x87_tag(const unsigned char *r)
{
	unsigned exponent = get16(r + 8) & 0x7fff;
	uint64_t mantissa = get64(r);
	if (exponent == 0x7fff)
		return 2;
	if (exponent == 0)
		return mantissa ? 2 : 1;
	return mantissa >> 63 ? 0 : 2;
}

/* The full tag word from FXSAVE's abridged one (a bit a physical
   register: not empty) and the registers, which FXSAVE keeps in stack
   order: physical register P is ST((P - TOP) mod 8).  */
static uint16_t full_tag(uint8_t abridged, uint16_t fstat, const unsigned char st[8][10])
{
	unsigned top = (fstat >> 11) & 7;
	uint16_t tag = 0;
	for (unsigned p = 0; p < 8; p++) {
		unsigned t = (abridged >> p) & 1 ? x87_tag(st[(p - top) & 7]) : 3;
		tag |= (uint16_t)(t << (2 * p));
	}
	return tag;
}

/* The FXSAVE image at AREA.  X87 and SSE_STATE say whether those
   components hold state; absent ones are in their initial state.  */
static void take_legacy(const unsigned char *area, bool x87, bool sse_state, bool mxcsr_init,
			struct sg_xregs *x)
{
	if (x87) {
		x->fctrl = get16(area);
		x->fstat = get16(area + 2);
		x->fop = get16(area + 6) & 0x7ff;
		/* 64-bit FXSAVE: the instruction and operand pointers are
		   64 bits; gdb shows their halves as fioff/fiseg and
		   fooff/foseg.  */
		x->fioff = get32(area + 8);
		x->fiseg = get32(area + 12);
		x->fooff = get32(area + 16);
		x->foseg = get32(area + 20);
		for (int i = 0; i < 8; i++)
			memcpy(x->st[i], area + 32 + 16 * i, 10);
		x->ftag = full_tag(area[4], x->fstat, x->st);
	} else {
		x->fctrl = 0x37f;
		x->ftag = 0xffff;
	}
	x->mxcsr = mxcsr_init ? 0x1f80 : get32(area + 24);
	if (sse_state)
		for (int i = 0; i < 16; i++)
			memcpy(x->zmm[i], area + 160 + 16 * i, 16);
}

/* Where the components are: at Intel's offsets, at AMD's, or at this
   CPU's (CPUID leaf 0xD).  */
enum layout { LAYOUT_INTEL, LAYOUT_CPUID, LAYOUT_AMD };

static size_t offset_in(enum layout layout, const struct component *c)
{
	unsigned eax, ebx, ecx, edx;
	switch (layout) {
	case LAYOUT_INTEL:
		return c->intel_offset;
	case LAYOUT_CPUID:
		if (!__get_cpuid_count(0xd, c->bit, &eax, &ebx, &ecx, &edx) || eax != c->size ||
		    ebx < XSAVE_HEADER_END)
			return 0;
		return ebx;
	case LAYOUT_AMD:
		return c->amd_offset;
	}
	return 0;
}

/* Whether every component XCR0 enables is inside an area of SIZE bytes
   laid out as LAYOUT says.  */
static bool layout_fits(enum layout layout, uint64_t xcr0, size_t size)
{
	for (size_t i = 0; i < SG_ARRAY_SIZE(components); i++) {
		const struct component *c = &components[i];
		if (!(xcr0 >> c->bit & 1))
			continue;
		size_t off = offset_in(layout, c);
		if (!off || off + c->size > size)
			return false;
	}
	return true;
}

/* The layout of an area of SIZE bytes: a live thread's is this CPU's;
   a core's Intel's (gdb's) when it fits, else AMD's, else this CPU's.
   False when none fits: only the legacy area is read.  */
static bool choose_layout(uint64_t xcr0, size_t size, bool live, enum layout *ret)
{
	static const enum layout live_order[] = { LAYOUT_CPUID, LAYOUT_INTEL };
	static const enum layout core_order[] = { LAYOUT_INTEL, LAYOUT_AMD, LAYOUT_CPUID };
	const enum layout *order = live ? live_order : core_order;
	size_t n = live ? SG_ARRAY_SIZE(live_order) : SG_ARRAY_SIZE(core_order);
	for (size_t i = 0; i < n; i++) {
		if (layout_fits(order[i], xcr0, size)) {
			*ret = order[i];
			return true;
		}
	}
	return false;
}

static void take_xsave(const unsigned char *area, size_t size, bool live, struct sg_xregs *x)
{
	uint64_t bv = get64(area + FXSAVE_SIZE);
	/* x86-64 always has x87 and SSE registers: gdb shows them whatever
	   the area says.  */
	x->xcr0 = get64(area + XCR0_OFFSET) | X87 | SSE;
	/* MXCSR is saved with SSE or AVX state; gdb takes its initial value
	   when both are absent.  */
	take_legacy(area, bv & X87, bv & SSE, !(bv & (SSE | AVX)), x);
	enum layout layout;
	if (!choose_layout(x->xcr0, size, live, &layout))
		return;
	for (size_t i = 0; i < SG_ARRAY_SIZE(components); i++) {
		const struct component *c = &components[i];
		if (!(x->xcr0 >> c->bit & 1) || !(bv >> c->bit & 1))
			continue;
		size_t off = offset_in(layout, c);
		const unsigned char *p = area + off;
		switch (c->bit) {
		case 2:
			for (int r = 0; r < 16; r++)
				memcpy(x->zmm[r] + 16, p + 16 * r, 16);
			break;
		case 5:
			for (int k = 0; k < 8; k++)
				x->k[k] = get64(p + 8 * k);
			break;
		case 6:
			for (int r = 0; r < 16; r++)
				memcpy(x->zmm[r] + 32, p + 32 * r, 32);
			break;
		case 7:
			for (int r = 0; r < 16; r++)
				memcpy(x->zmm[16 + r], p + 64 * r, 64);
			break;
		case 9:
			x->pkru = get32(p);
			break;
		}
	}
}

/* The area of a stopped thread: NT_X86_XSTATE, else the FXSAVE image
   (a CPU without XSAVE).  */
static struct sg_error *read_live(pid_t tid, unsigned char *buf, size_t *len, bool *xsave)
{
	struct iovec iov = { buf, XSTATE_MAX };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) == 0 &&
	    iov.iov_len >= XSAVE_HEADER_END) {
		*len = iov.iov_len;
		*xsave = true;
		return NULL;
	}
	iov.iov_len = FXSAVE_SIZE;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRFPREG, &iov) == 0 &&
	    iov.iov_len >= FXSAVE_SIZE) {
		*len = iov.iov_len;
		*xsave = false;
		return NULL;
	}
	return sg_error_os(errno, "cannot read the vector registers of thread %d", (int)tid);
}

struct sg_error *sg_thread_xregs(struct sg_target *t, const struct sg_thread *th,
				 struct sg_xregs *ret)
{
	unsigned char *buf = malloc(XSTATE_MAX);
	if (!buf)
		return &sg_enomem;
	size_t len = 0;
	bool xsave = false, live = t->kind == SG_TARGET_LIVE;
	struct sg_error *err;
	if (live && t->snapshot)
		err = sg_error_format(SG_ERROR_TARGET,
				      "the vector registers of process %d are not in its snapshot",
				      (int)t->pid);
	else if (live && t->gone)
		err = sg_target_gone_error(t);
	else if (live)
		err = read_live(th->tid, buf, &len, &xsave);
	else {
		err = sg_core_thread_fpstate(t, th->index, buf, XSTATE_MAX, &len, &xsave);
		if (err == &sg_not_found)
			err = sg_error_format(SG_ERROR_TARGET,
					      "the core has no floating-point registers of thread %d",
					      (int)th->tid);
	}
	if (!err) {
		memset(ret, 0, sizeof(*ret));
		if (xsave && len >= XSAVE_HEADER_END) {
			take_xsave(buf, len, live, ret);
		} else {
			ret->xcr0 = X87 | SSE;
			take_legacy(buf, true, true, false, ret);
		}
	}
	free(buf);
	return err;
}
