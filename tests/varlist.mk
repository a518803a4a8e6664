# Included from the top Makefile.am: tests added for issue 11 (varlist).

# Which variables info locals, info args and frame lines list
# (tests/run-varlist.sh): one C source built by gcc and clang at -O2, by
# explicit rules (see tests/names.mk) so that the user's CFLAGS do not
# override the level.  Without clang the clang variant is a script that
# says so; the test skips it.
VARLIST_FIXTURES = tests/fixtures/varlist-gcc-O2 tests/fixtures/varlist-clang-O2 \
	tests/fixtures/varlist-tmpl-gcc-O0
check_SCRIPTS += $(VARLIST_FIXTURES)
CLEANFILES += $(VARLIST_FIXTURES)

tests/fixtures/varlist-gcc-O2: $(srcdir)/tests/fixtures/sg-varlist.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O2 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-varlist.c

tests/fixtures/varlist-clang-O2: $(srcdir)/tests/fixtures/sg-varlist.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)if command -v clang >/dev/null; then \
		clang -O2 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-varlist.c; \
	else printf '#!/bin/sh\necho "no clang" >&2; exit 77\n' >$@; chmod +x $@; fi

# A C++ template's static local that g++ -O0 folds into a constant.
tests/fixtures/varlist-tmpl-gcc-O0: $(srcdir)/tests/fixtures/sg-varlist-tmpl.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-varlist-tmpl.cc

TESTS += tests/run-varlist.sh
EXTRA_DIST += tests/fixtures/sg-varlist.c tests/fixtures/sg-varlist-tmpl.cc tests/run-varlist.sh
