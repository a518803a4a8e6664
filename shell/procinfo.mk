# info all-registers, info files/target, info signals (shell/cmd-procinfo.c, doc/commands.md).
shell_spyglass_SOURCES += shell/cmd-procinfo.c shell/cmd-regs.c shell/cmd-signals.c shell/cmd-files.c \
	shell/procinfo.h
# A thread's x87 and vector registers from ptrace or a core's notes;
# a module's sections and entry point for info files.
lib_libsgcore_la_SOURCES += lib/xstate.c lib/files.c

# tests/run-procinfo.sh compares info all-registers, info files and
# info signals with gdb on tests/fixtures/sg-vecregs.c, which fills the
# x87 and vector registers with known values before it waits, and on
# cores of it.  An explicit rule: its registers must not depend on CFLAGS.
PROCINFO_FIXTURES = tests/fixtures/sg-vecregs
check_SCRIPTS += $(PROCINFO_FIXTURES)
CLEANFILES += $(PROCINFO_FIXTURES)

tests/fixtures/sg-vecregs: $(srcdir)/tests/fixtures/sg-vecregs.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-vecregs.c

TESTS += tests/run-procinfo.sh
EXTRA_DIST += shell/procinfo.mk tests/fixtures/sg-vecregs.c tests/run-procinfo.sh
