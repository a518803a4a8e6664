# Included from the top Makefile.am: parity-print tests (gdb parity, issue 11).

# Flag enums, types in the frame's language, containers in JSON and
# reference arguments, against gdb.  Explicit rules, as in
# tests/Makefile.inc: -O0 keeps the arguments where gdb finds them; C++20
# for char8_t.
PARITY_PRINT_FIXTURES = tests/fixtures/sg-parity tests/fixtures/sg-parity-c \
	tests/fixtures/sg-parity-c-O2 tests/fixtures/sg-parity-c-clang
check_SCRIPTS += $(PARITY_PRINT_FIXTURES)
CLEANFILES += $(PARITY_PRINT_FIXTURES)

tests/fixtures/sg-parity: $(srcdir)/tests/fixtures/sg-parity.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -std=gnu++20 -O0 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-parity.cc

tests/fixtures/sg-parity-c: $(srcdir)/tests/fixtures/sg-parity-c.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-parity-c.c

tests/fixtures/sg-parity-c-O2: $(srcdir)/tests/fixtures/sg-parity-c.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O2 -g -o $@ $(srcdir)/tests/fixtures/sg-parity-c.c

# clang -O1 keeps small constant arrays in DWARF only; a stub that exits
# 77 without clang.
tests/fixtures/sg-parity-c-clang: $(srcdir)/tests/fixtures/sg-parity-c.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)if command -v clang >/dev/null; then \
		clang -O1 -g -o $@ $(srcdir)/tests/fixtures/sg-parity-c.c; \
	else printf '#!/bin/sh\necho "no clang" >&2; exit 77\n' >$@; chmod +x $@; fi

TESTS += tests/run-parity-print.sh
EXTRA_DIST += tests/fixtures/sg-parity.cc tests/fixtures/sg-parity-c.c tests/run-parity-print.sh
