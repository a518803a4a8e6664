# Included from the top Makefile.am: tests added for issue 11 (typeprint).

# whatis, ptype and print's type names against gdb's
# (tests/run-typeprint.sh).  An explicit rule, as for the names fixtures:
# the user's CXXFLAGS must not change the DWARF the test is about.
check_SCRIPTS += tests/fixtures/sg-typeprint
CLEANFILES += tests/fixtures/sg-typeprint
tests/fixtures/sg-typeprint: $(srcdir)/tests/fixtures/sg-typeprint.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-typeprint.cc

TESTS += tests/run-typeprint.sh
EXTRA_DIST += tests/run-typeprint.sh tests/fixtures/sg-typeprint.cc

# A class only declared: clang++ -O2 leaves a base with only inline virtual
# functions a declaration.  Without clang++ the fixture is a script that
# says so, and the test skips it.
check_SCRIPTS += tests/fixtures/sg-typeprint-decl
CLEANFILES += tests/fixtures/sg-typeprint-decl
tests/fixtures/sg-typeprint-decl: $(srcdir)/tests/fixtures/sg-typeprint-decl.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)if command -v clang++ >/dev/null; then \
		clang++ -O2 -g -o $@ $(srcdir)/tests/fixtures/sg-typeprint-decl.cc; \
	else printf '#!/bin/sh\necho "no clang++" >&2; exit 77\n' >$@; chmod +x $@; fi
EXTRA_DIST += tests/fixtures/sg-typeprint-decl.cc
