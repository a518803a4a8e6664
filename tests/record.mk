# Included from the top Makefile.am: the sampling profiler, record (issue 13).

# 75% hot, 25% cold, 20 frames deep; a sleeping thread.  -O0 so that the
# hot line is one line.
tests/fixtures/sg-hotcold: $(srcdir)/tests/fixtures/sg-hotcold.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-hotcold.c
check_SCRIPTS += tests/fixtures/sg-hotcold
CLEANFILES += tests/fixtures/sg-hotcold

TESTS += tests/run-record.sh
EXTRA_DIST += tests/run-record.sh tests/fixtures/sg-hotcold.c tests/fixtures/hotcold.py \
	bench/record.sh
