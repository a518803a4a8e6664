# Included from the top Makefile.am: tests added for issue 11 (frames).

# Frame lines against gdb's (tests/run-frames.sh): one C++ source built by
# g++ -Os and -O2 with frame pointers (PIE and not), g++ -Os without, and
# clang++ -O2 with frame pointers.  Explicit rules (see tests/names.mk), so
# that the user's CXXFLAGS do not override the flags each variant is
# about.  Without clang++ the clang variant is a script that says so; the
# test skips it.
FRAMES_FIXTURES = tests/fixtures/frames-gcc-Os-fp-pie \
	tests/fixtures/frames-gcc-O2-fp-nopie \
	tests/fixtures/frames-gcc-Os-nofp-pie \
	tests/fixtures/frames-clang-O2-fp-pie
check_SCRIPTS += $(FRAMES_FIXTURES)
CLEANFILES += $(FRAMES_FIXTURES)

tests/fixtures/frames-gcc-Os-fp-pie: $(srcdir)/tests/fixtures/sg-frames.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -Os -g -pthread -fno-omit-frame-pointer -fPIE -pie -o $@ $(srcdir)/tests/fixtures/sg-frames.cc

tests/fixtures/frames-gcc-O2-fp-nopie: $(srcdir)/tests/fixtures/sg-frames.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -O2 -g -pthread -fno-omit-frame-pointer -fno-pie -no-pie -o $@ $(srcdir)/tests/fixtures/sg-frames.cc

tests/fixtures/frames-gcc-Os-nofp-pie: $(srcdir)/tests/fixtures/sg-frames.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)$(CXX) -Os -g -pthread -fomit-frame-pointer -fPIE -pie -o $@ $(srcdir)/tests/fixtures/sg-frames.cc

tests/fixtures/frames-clang-O2-fp-pie: $(srcdir)/tests/fixtures/sg-frames.cc
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CXXLD)if command -v clang++ >/dev/null; then \
		clang++ -O2 -g -pthread -fno-omit-frame-pointer -fPIE -pie -o $@ $(srcdir)/tests/fixtures/sg-frames.cc; \
	else printf '#!/bin/sh\necho "no clang++" >&2; exit 77\n' >$@; chmod +x $@; fi

TESTS += tests/run-frames.sh
EXTRA_DIST += tests/fixtures/sg-frames.cc tests/run-frames.sh
