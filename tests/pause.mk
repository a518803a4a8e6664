# Included from the top Makefile.am: how long an attach keeps the target
# stopped (issue 13, doc/pause.md).

# bench/fixture-threads.c, as the benchmarks build it: 64 threads, each
# 40 frames deep, asleep in the kernel.
tests/fixtures/sg-threads64: $(srcdir)/bench/fixture-threads.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O2 -pthread -o $@ $(srcdir)/bench/fixture-threads.c
check_SCRIPTS += tests/fixtures/sg-threads64
CLEANFILES += tests/fixtures/sg-threads64

TESTS += tests/run-pause.sh
EXTRA_DIST += tests/run-pause.sh
