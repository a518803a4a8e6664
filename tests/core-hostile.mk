# Included from the top Makefile.am: the core reader on bad input (issue
# 12): tests/run-core-hostile.sh cuts, patches and garbles real cores of
# sg-corecrash, made at test time.  An explicit rule (see tests/names.mk),
# so that the user's CFLAGS do not change the frames; a PIE explicitly, so
# that the test knows what "not a core" says of the program itself.
check_SCRIPTS += tests/fixtures/sg-corecrash
CLEANFILES += tests/fixtures/sg-corecrash

tests/fixtures/sg-corecrash: $(srcdir)/tests/fixtures/sg-corecrash.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -fPIE -pie -o $@ $(srcdir)/tests/fixtures/sg-corecrash.c

TESTS += tests/run-core-hostile.sh
EXTRA_DIST += tests/fixtures/sg-corecrash.c tests/run-core-hostile.sh
