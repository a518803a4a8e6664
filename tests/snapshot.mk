# Included from the top Makefile.am: stop, copy, resume (issue 13).

# Arguments that point to the heap and to .data, which a snapshot must
# have copied for bt to print them as live.
tests/fixtures/sg-snapheap: $(srcdir)/tests/fixtures/sg-snapheap.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-snapheap.c
check_SCRIPTS += tests/fixtures/sg-snapheap
CLEANFILES += tests/fixtures/sg-snapheap

TESTS += tests/run-snapshot.sh
EXTRA_DIST += tests/run-snapshot.sh tests/fixtures/sg-snapheap.c
