# Included from the top Makefile.am: tests added for issue 11 (iterators).

# Iterators of each libstdc++ container (tests/run-iterators.sh), built
# -O0 -g as is and in debug mode (-D_GLIBCXX_DEBUG: __gnu_debug's safe
# iterators).  Explicit rules, so that the user's CXXFLAGS do not change
# what the fixtures are about.
ITER_FIXTURES = tests/fixtures/sg-iter tests/fixtures/sg-iter-debug
check_SCRIPTS += $(ITER_FIXTURES)
CLEANFILES += $(ITER_FIXTURES)

tests/fixtures/sg-iter: $(srcdir)/tests/fixtures/sg-iter.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-iter.cc

tests/fixtures/sg-iter-debug: $(srcdir)/tests/fixtures/sg-iter.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O0 -g -D_GLIBCXX_DEBUG -o $@ $(srcdir)/tests/fixtures/sg-iter.cc

TESTS += tests/run-iterators.sh
EXTRA_DIST += tests/fixtures/sg-iter.cc tests/run-iterators.sh
