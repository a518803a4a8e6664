/* What the fuzz targets share: a shell with the built-in commands and the
   C++ and unwinder plugins linked in, and a fake process built from a test
   fixture's ELF file whose writable memory is the fuzzer's input.  */
#ifndef SG_FUZZ_HARNESS_H
#define SG_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "shell.h"

/* The shell whose target is the fixture called NAME (a file in the build
   tree's tests/fixtures), with MEM[0..LEN) as its memory: read cyclically
   from the start of its first writable segment for 16 MiB.  Its code and
   read-only data come from the file; other addresses cannot be read.
   REGS (may be NULL) are its one thread's.  Each fixture keeps its shell
   and target from input to input; its output goes to /dev/null, and the
   commands that reach outside the process (shell, source, plugin load,
   attach) and detach are taken away.  */
struct shell *fz_target(const char *name, const uint8_t *mem, size_t len,
			const struct sg_regs *regs);

/* Where the fixture's writable memory starts and its code lies, for the fixture of the last
   fz_target.  */
uint64_t fz_data_start(void);
void fz_text_range(uint64_t *start, uint64_t *end);

/* The fixture's global variables whose names start with "g_", in symbol
   table order (NULL-terminated).  */
const char *const *fz_globals(void);

#endif
