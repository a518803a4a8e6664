/* Linked into each of GCC's libstdc++ pretty-printer test programs, whose
 * "Mark SPOT" line run-gcc-printers.sh prefixes with a call of
 * sg_gcc_spot(): it says "ready" on stderr and waits there, in the
 * program's state at that line, for spyglass and gdb to attach.  The wait
 * is a raw pause system call made from this very frame, so that frame 1 is
 * always the SPOT's, in gdb as in spyglass, whatever libc's frames are. */
#include <unistd.h>

void sg_gcc_spot(void);

void sg_gcc_spot(void)
{
	static const char ready[] = "ready\n";

	if (write(2, ready, sizeof ready - 1) < 0)
		_exit(1);
	for (;;) {
		long ret;

		__asm__ volatile("syscall" : "=a"(ret) : "0"(34L /* SYS_pause */) : "rcx", "r11", "memory");
		(void)ret;
	}
}
