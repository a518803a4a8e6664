# Included from the top Makefile.am: tests added for issue 11 (values).

# How print shows values, against gdb (tests/run-values.sh): a C source
# built by gcc and a C++ one built by g++ and by clang++ (DWARF 5, no
# .debug_aranges; std::condition_variable only declared without
# -fstandalone-debug), all at -O0.  Explicit rules, as in
# tests/Makefile.inc, so that the user's flags do not change what the
# test is about.  Without clang++ the clang build is a script that exits
# 77 and says so; the test skips it.
VALUES_FIXTURES = tests/fixtures/sg-values-c tests/fixtures/sg-values-cc \
	tests/fixtures/sg-values-cc-O2 tests/fixtures/sg-values-cc-clang
check_SCRIPTS += $(VALUES_FIXTURES)
CLEANFILES += $(VALUES_FIXTURES)

tests/fixtures/sg-values-c: $(srcdir)/tests/fixtures/sg-values.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-values.c

tests/fixtures/sg-values-cc: $(srcdir)/tests/fixtures/sg-values.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -std=gnu++17 -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-values.cc

# g++ -O2 puts main in .text.startup, a function of two ranges with its
# .cold part: gdb names code by where the first range starts.
tests/fixtures/sg-values-cc-O2: $(srcdir)/tests/fixtures/sg-values.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -std=gnu++17 -O2 -g -o $@ $(srcdir)/tests/fixtures/sg-values.cc

tests/fixtures/sg-values-cc-clang: $(srcdir)/tests/fixtures/sg-values.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)if command -v clang++ >/dev/null; then \
		clang++ -std=gnu++17 -O0 -g -gdwarf-5 -o $@ $(srcdir)/tests/fixtures/sg-values.cc; \
	else printf '#!/bin/sh\necho "no clang++" >&2; exit 77\n' >$@; chmod +x $@; fi

# Values that are not in memory (tests/fixtures/sg-values-const.c): gcc
# -O2 folds the const globals into DW_AT_const_value; clang -O1 drops
# them and assembles the locals from pieces, some lost.
VALUES_CONST_FIXTURES = tests/fixtures/sg-values-const-gcc tests/fixtures/sg-values-const-clang
check_SCRIPTS += $(VALUES_CONST_FIXTURES)
CLEANFILES += $(VALUES_CONST_FIXTURES)

tests/fixtures/sg-values-const-gcc: $(srcdir)/tests/fixtures/sg-values-const.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O2 -g -o $@ $(srcdir)/tests/fixtures/sg-values-const.c

tests/fixtures/sg-values-const-clang: $(srcdir)/tests/fixtures/sg-values-const.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)if command -v clang >/dev/null; then \
		clang -O1 -g -o $@ $(srcdir)/tests/fixtures/sg-values-const.c; \
	else printf '#!/bin/sh\necho "no clang" >&2; exit 77\n' >$@; chmod +x $@; fi

TESTS += tests/run-values.sh
EXTRA_DIST += tests/fixtures/sg-values.c tests/fixtures/sg-values.cc tests/run-values.sh \
	tests/fixtures/sg-values-const.c
