# Included from the top Makefile.am: tests added for issue 11 (lsx-extra).

# The rarer libstdc++ types (tests/run-lsx-extra.sh): one C++20 source,
# built as it is and in debug mode (_GLIBCXX_DEBUG: the std::__debug
# containers).  Explicit rules (see tests/names.mk), so that the user's
# CXXFLAGS do not change the standard or the mode each build is about.
# The Filesystem TS's path lives in libstdc++fs.
LSX_EXTRA_FIXTURES = tests/fixtures/sg-lsx-extra tests/fixtures/sg-lsx-extra-debug
check_SCRIPTS += $(LSX_EXTRA_FIXTURES)
CLEANFILES += $(LSX_EXTRA_FIXTURES)

tests/fixtures/sg-lsx-extra: $(srcdir)/tests/fixtures/sg-lsx-extra.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -std=gnu++20 -O0 -g -o $@ $(srcdir)/tests/fixtures/sg-lsx-extra.cc -lstdc++fs

tests/fixtures/sg-lsx-extra-debug: $(srcdir)/tests/fixtures/sg-lsx-extra.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -std=gnu++20 -O0 -g -D_GLIBCXX_DEBUG -o $@ \
		$(srcdir)/tests/fixtures/sg-lsx-extra.cc -lstdc++fs

TESTS += tests/run-lsx-extra.sh
EXTRA_DIST += tests/fixtures/sg-lsx-extra.cc tests/run-lsx-extra.sh
