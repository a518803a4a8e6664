# Included from the top Makefile.am: generate-core-file (gcore) tests.

# tests/run-gcore.sh writes cores of tests/fixtures/sg-gcore.c (three
# threads in pause(), a heap string, an anonymous shared mapping) and of
# run-frames.sh's optimised C++ fixture, and has gdb read them.  An
# explicit rule, so that the user's CFLAGS do not change the frames.
GCORE_FIXTURES = tests/fixtures/sg-gcore
check_SCRIPTS += $(GCORE_FIXTURES)
CLEANFILES += $(GCORE_FIXTURES)

tests/fixtures/sg-gcore: $(srcdir)/tests/fixtures/sg-gcore.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-gcore.c

TESTS += tests/run-gcore.sh
EXTRA_DIST += tests/fixtures/sg-gcore.c tests/run-gcore.sh
