#!/usr/bin/env python3
"""Write the seed corpus of fuzz-core (fuzz/corpus/core/): tiny x86-64
Linux cores, each under 8 KB, made from nothing but the layouts of
<elf.h> and <sys/procfs.h>: the ELF header, a PT_NOTE with NT_PRSTATUS,
NT_PRPSINFO, NT_SIGINFO, NT_AUXV and NT_FILE, and a few small PT_LOAD
segments.  Deterministic: run it again and the files are the same.

    fuzz/gen-core-seeds.py [DIR]      (default: fuzz/corpus/core next to it)
"""
import os
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4
PF_X, PF_W, PF_R = 1, 2, 4
NT_PRSTATUS, NT_FPREGSET, NT_PRPSINFO, NT_AUXV = 1, 2, 3, 6
NT_SIGINFO, NT_FILE = 0x53494749, 0x46494C45
AT_NULL, AT_PHDR, AT_PAGESZ, AT_ENTRY, AT_SYSINFO_EHDR = 0, 3, 6, 9, 33
PN_XNUM = 0xFFFF

# struct user_regs_struct, in order.
REGS = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax "
        "rip cs eflags rsp ss fs_base gs_base ds es fs gs").split()


def note(name, ntype, desc):
    name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), ntype) + pad(name) + pad(desc)


def prstatus(tid, signo, regs):
    """struct elf_prstatus (336 bytes): pr_info, pr_cursig, pr_pid at 32,
    pr_reg at 112."""
    b = bytearray(336)
    struct.pack_into("<iii", b, 0, signo, 0, 0)
    struct.pack_into("<h", b, 12, signo)
    struct.pack_into("<iiii", b, 32, tid, 1, tid, tid)
    for i, r in enumerate(REGS):
        struct.pack_into("<Q", b, 112 + 8 * i, regs.get(r, 0))
    return bytes(b)


def prpsinfo(pid, fname, psargs):
    """struct elf_prpsinfo (136 bytes): pr_pid at 24, pr_fname[16] at 40,
    pr_psargs[80] at 56."""
    b = bytearray(136)
    b[1] = ord("R")
    struct.pack_into("<iiii", b, 24, pid, 1, pid, pid)
    b[40:40 + len(fname)] = fname.encode()[:16]
    b[56:56 + len(psargs)] = psargs.encode()[:80]
    return bytes(b)


def siginfo(signo, code, addr=0, sender=0):
    """siginfo_t (128 bytes): si_signo, si_errno, si_code, then the union
    at 16 (si_addr, or si_pid)."""
    b = bytearray(128)
    struct.pack_into("<iii", b, 0, signo, 0, code)
    if sender:
        struct.pack_into("<ii", b, 16, sender, 0)
    else:
        struct.pack_into("<Q", b, 16, addr)
    return bytes(b)


def auxv(pairs):
    return b"".join(struct.pack("<QQ", k, v) for k, v in pairs + [(AT_NULL, 0)])


def nt_file(entries, page=4096):
    """entries: (start, end, page offset, name)."""
    b = struct.pack("<QQ", len(entries), page)
    b += b"".join(struct.pack("<QQQ", s, e, o) for s, e, o, _ in entries)
    return b + b"".join(n.encode() + b"\0" for *_, n in entries)


def tiny_elf(build_id):
    """A 64-bit ET_DYN image of its headers only: a PT_LOAD over itself and
    a PT_NOTE with a GNU build ID, at its vaddr (the image is linked at 0)."""
    gnu = struct.pack("<III", 4, len(build_id), 3) + b"GNU\0" + build_id
    phoff, phnum = 64, 2
    note_at = phoff + 56 * phnum
    size = note_at + len(gnu)
    eh = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    eh += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, phoff, 0, 0, 64, 56, phnum, 64, 0, 0)
    ph = struct.pack("<IIQQQQQQ", PT_LOAD, PF_R | PF_X, 0, 0, 0, size, size, 4096)
    ph += struct.pack("<IIQQQQQQ", PT_NOTE, PF_R, note_at, note_at, note_at, len(gnu), len(gnu), 4)
    return eh + ph + gnu


def core(notes, loads, xnum=False):
    """notes: bytes of the notes; loads: (vaddr, memsz, flags, data): the
    file holds DATA (b"" for a segment left out, as text is)."""
    phnum = 1 + len(loads)
    phoff = 64
    at = phoff + 56 * phnum
    shoff = 0
    if xnum:
        shoff = at
        at += 64
    note_off = at
    at += len(notes)
    phdrs, blobs = [], []
    phdrs.append(struct.pack("<IIQQQQQQ", PT_NOTE, 0, note_off, 0, 0, len(notes), 0, 4))
    for vaddr, memsz, flags, data in loads:
        at += -at % 16
        phdrs.append(struct.pack("<IIQQQQQQ", PT_LOAD, flags, at if data else at, vaddr, 0,
                                 len(data), memsz, 4096))
        blobs.append((at, data))
        at += len(data)
    eh = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, shoff, 0, 64, 56,
                      PN_XNUM if xnum else phnum, 64 if xnum else 0, 1 if xnum else 0, 0)
    out = bytearray(eh + b"".join(phdrs))
    if xnum:
        # Section 0: sh_info holds the program header count.
        out += struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, phnum, 0, 0)
    out += notes
    for off, data in blobs:
        out += b"\0" * (off - len(out)) + data
    return bytes(out)


EXE = 0x555555554000
STACK = 0x7FFFFFFDE000
VDSO = 0x7FFFF7FC1000
LIB = 0x7FFFF7DC3000


def stack_bytes():
    # Frame pointers and return addresses into the program's text, then
    # a string for RDI.
    words = [STACK + 0x40, EXE + 0x1150, STACK + 0x80, EXE + 0x1180, 0, 0, 0, 0]
    b = b"".join(struct.pack("<Q", w) for w in words)
    return (b + b"hello, core\0").ljust(0x200, b"\xaa")


def regs(rip=EXE + 0x1139, tid=0):
    return {"rip": rip, "rsp": STACK + 0x10, "rbp": STACK + 0x20, "rdi": STACK + 0x40,
            "cs": 0x33, "ss": 0x2b, "eflags": 0x246, "rax": tid}


def xstate(xcr0=0x7):
    """An XSAVE area as Linux writes NT_X86_XSTATE: the 512-byte FXSAVE
    area (XCR0 in its software-reserved bytes at 464), the 64-byte
    header (XSTATE_BV first), then the AVX upper halves at 576."""
    legacy = bytearray(bytes(range(256)) * 2)
    legacy[0:2] = (0x37F).to_bytes(2, "little")       # x87 control word
    legacy[24:28] = (0x1F80).to_bytes(4, "little")    # MXCSR
    legacy[464:472] = xcr0.to_bytes(8, "little")
    header = xcr0.to_bytes(8, "little") + bytes(56)
    return bytes(legacy) + header + bytes((i * 7) & 0xFF for i in range(256))


def base_notes(threads=1, with_file=True, files=None, aux=None, sig=None):
    n = b""
    for i in range(threads):
        n += note("CORE", NT_PRSTATUS, prstatus(4242 + i, 11, regs(tid=i)))
        n += note("CORE", NT_FPREGSET, bytes(range(256)) * 2)
        n += note("LINUX", 0x202, xstate())	# NT_X86_XSTATE
    n += note("CORE", NT_PRPSINFO, prpsinfo(4242, "sg-corecrash", "./sg-corecrash seed "))
    n += note("CORE", NT_SIGINFO, sig or siginfo(11, 1, addr=0))
    n += note("CORE", NT_AUXV, auxv(aux or [(AT_PHDR, EXE + 64), (AT_PAGESZ, 4096),
                                           (AT_ENTRY, EXE + 0x1040)]))
    if with_file:
        n += note("CORE", NT_FILE, nt_file(files or [
            (EXE, EXE + 0x1000, 0, "/usr/bin/sg-corecrash"),
            (EXE + 0x1000, EXE + 0x2000, 1, "/usr/bin/sg-corecrash"),
        ]))
    return n


def seeds():
    exe_head = tiny_elf(bytes(range(20)))
    lib_head = tiny_elf(bytes(range(100, 120)))
    vdso = tiny_elf(bytes(range(200, 220)))
    text = (EXE + 0x1000, 0x1000, PF_R | PF_X, b"")
    stack = (STACK, 0x1000, PF_R | PF_W, stack_bytes())
    yield "basic", core(base_notes(), [(EXE, 0x1000, PF_R, exe_head), text, stack])
    yield "threads", core(base_notes(threads=3), [(EXE, 0x1000, PF_R, exe_head), text, stack])
    yield "no-file-note", core(base_notes(with_file=False),
                               [(EXE, 0x1000, PF_R, exe_head), text, stack])
    yield "vdso-and-lib", core(
        base_notes(files=[(EXE, EXE + 0x1000, 0, "/usr/bin/sg-corecrash"),
                          (EXE + 0x1000, EXE + 0x2000, 1, "/usr/bin/sg-corecrash"),
                          (LIB, LIB + 0x1000, 0, "/usr/lib/libmissing.so.1"),
                          (LIB + 0x1000, LIB + 0x3000, 1, "/usr/lib/libmissing.so.1")],
                   aux=[(AT_PHDR, EXE + 64), (AT_ENTRY, EXE + 0x1040),
                        (AT_SYSINFO_EHDR, VDSO)]),
        [(EXE, 0x1000, PF_R, exe_head), text, (LIB, 0x1000, PF_R, lib_head),
         (LIB + 0x1000, 0x2000, PF_R | PF_X, b""), (VDSO, 0x1000, PF_R | PF_X, vdso), stack])
    yield "xnum", core(base_notes(), [(EXE, 0x1000, PF_R, exe_head), text, stack], xnum=True)
    yield "killed", core(base_notes(sig=siginfo(15, 0, sender=1)),
                         [(EXE, 0x1000, PF_R, exe_head), text, stack])
    whole = core(base_notes(), [(EXE, 0x1000, PF_R, exe_head), text, stack])
    yield "truncated", whole[:len(whole) - 0x180]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "core")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        assert len(data) < 8192, (name, len(data))
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
