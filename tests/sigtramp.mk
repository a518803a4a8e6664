# Included from the top Makefile.am: sigtramp tests (gdb parity, issue 11).

# Threads blocked inside signal handlers, on the normal stack and on a
# sigaltstack, for unwinding through the signal trampoline.  Explicit rules
# (see BT_FIXTURES in tests/Makefile.inc): frame pointers at every level of
# optimisation, since the frame-pointer unwinder is what they test.
SIGTRAMP_FIXTURES = tests/fixtures/sg-sigtramp-O0 tests/fixtures/sg-sigtramp-O2
check_SCRIPTS += $(SIGTRAMP_FIXTURES)
CLEANFILES += $(SIGTRAMP_FIXTURES)

tests/fixtures/sg-sigtramp-O0: $(srcdir)/tests/fixtures/sg-sigtramp.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -fno-omit-frame-pointer -pthread -o $@ $(srcdir)/tests/fixtures/sg-sigtramp.c

tests/fixtures/sg-sigtramp-O2: $(srcdir)/tests/fixtures/sg-sigtramp.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O2 -g -fno-omit-frame-pointer -pthread -o $@ $(srcdir)/tests/fixtures/sg-sigtramp.c

TESTS += tests/run-sigtramp.sh
EXTRA_DIST += tests/fixtures/sg-sigtramp.c tests/run-sigtramp.sh
