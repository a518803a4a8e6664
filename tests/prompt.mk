# Included from the top Makefile.am: prompt tests (gdb parity, issue 11).

# x, info frame, info sharedlibrary, info address and info symbol at the
# prompt, against gdb.  Explicit rules, as in tests/Makefile.inc: the
# optimisation level is part of the fixture.
PROMPT_FIXTURES = tests/fixtures/sg-prompt tests/fixtures/sg-prompt-O2
check_SCRIPTS += $(PROMPT_FIXTURES)
CLEANFILES += $(PROMPT_FIXTURES)

tests/fixtures/sg-prompt: $(srcdir)/tests/fixtures/sg-prompt.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-prompt.cc

tests/fixtures/sg-prompt-O2: $(srcdir)/tests/fixtures/sg-prompt.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O2 -g -o $@ $(srcdir)/tests/fixtures/sg-prompt.cc

TESTS += tests/run-prompt.sh
EXTRA_DIST += tests/fixtures/sg-prompt.cc tests/run-prompt.sh
