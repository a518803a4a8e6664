# Included from the top Makefile.am: names tests (gdb parity, issue 11).

# The names of frames (tests/run-names.sh): one C++ source built by g++ and
# by clang++ (DWARF 5, no .debug_aranges) at -O0 and -O2.  Explicit rules
# (see BT_FIXTURES in tests/Makefile.inc), so that the user's CXXFLAGS do
# not override the level each variant is about.  Without clang++ the clang
# variants are scripts that say so; the test skips them.
NAMES_FIXTURES = tests/fixtures/names-gcc-O0 tests/fixtures/names-gcc-O2 \
	tests/fixtures/names-gcc-O2-nodebug \
	tests/fixtures/names-clang-O0 tests/fixtures/names-clang-O2
check_SCRIPTS += $(NAMES_FIXTURES)
CLEANFILES += $(NAMES_FIXTURES)

# The -O0 builds compile the source by its relative name, from its folder
# ("g++ x.cc"): gdb shows the file as "sg-names.cc".  clang++ -O2 gets the
# absolute name from the folder above, and writes "fixtures" in its line
# table: gdb shows the absolute name.
tests/fixtures/names-gcc-O0: $(srcdir)/tests/fixtures/sg-names.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)out=$$(pwd)/$@; cd $(srcdir)/tests/fixtures && \
		$(CXX) -O0 -g -pthread -o "$$out" sg-names.cc

tests/fixtures/names-gcc-O2: $(srcdir)/tests/fixtures/sg-names.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O2 -g -pthread -o $@ $(srcdir)/tests/fixtures/sg-names.cc

# Without DWARF, frames are named by the symbol table, as gdb names them.
tests/fixtures/names-gcc-O2-nodebug: tests/fixtures/names-gcc-O2
	$(AM_V_GEN)$(STRIP) --strip-debug -o $@ tests/fixtures/names-gcc-O2

tests/fixtures/names-clang-O0 tests/fixtures/names-clang-O2: $(srcdir)/tests/fixtures/sg-names.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)opt=$$(echo '$@' | sed 's/.*-//'); out=$$(pwd)/$@; \
	if command -v clang++ >/dev/null; then \
		if [ "$$opt" = O0 ]; then \
			(cd $(srcdir)/tests/fixtures && \
			 clang++ -O0 -g -gdwarf-5 -pthread -o "$$out" sg-names.cc); \
		else (cd $(srcdir)/tests && \
		      clang++ -O2 -g -gdwarf-5 -pthread -o "$$out" "$$(pwd)/fixtures/sg-names.cc"); fi; \
	else printf '#!/bin/sh\necho "no clang++" >&2; exit 77\n' >$@; chmod +x $@; fi

TESTS += tests/run-names.sh
EXTRA_DIST += tests/fixtures/sg-names.cc tests/run-names.sh
