# Included from the top Makefile.am: the core reader's tests (issue 12).

# tests/fixtures/sg-corecrash-lib.c built twice: a shared library, in a
# folder of its own so that tests/run-core.sh can move it, and the program
# that calls it (found through $ORIGIN, so that a copy of both works).
# A second build of the library with another build ID stands for a
# library that does not match the core.  -O0 with frame pointers: the
# frames and locals gdb and spyglass are compared on.
CORE_FIXTURES = tests/fixtures/sg-corecrash-lib tests/fixtures/corelib/libsgcorelib.so \
	tests/fixtures/corelib/libsgcorelib-other.so
check_SCRIPTS += $(CORE_FIXTURES)
CLEANFILES += $(CORE_FIXTURES)

tests/fixtures/corelib/libsgcorelib.so: $(srcdir)/tests/fixtures/sg-corecrash-lib.c
	@$(MKDIR_P) tests/fixtures/corelib
	$(AM_V_CCLD)$(CC) -O0 -g -fno-omit-frame-pointer -fPIC -shared -DSG_LIB \
		-o $@ $(srcdir)/tests/fixtures/sg-corecrash-lib.c

tests/fixtures/corelib/libsgcorelib-other.so: $(srcdir)/tests/fixtures/sg-corecrash-lib.c
	@$(MKDIR_P) tests/fixtures/corelib
	$(AM_V_CCLD)$(CC) -O0 -g -fno-omit-frame-pointer -fPIC -shared -DSG_LIB \
		-Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 -o $@ $(srcdir)/tests/fixtures/sg-corecrash-lib.c

tests/fixtures/sg-corecrash-lib: $(srcdir)/tests/fixtures/sg-corecrash-lib.c tests/fixtures/corelib/libsgcorelib.so
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)$(CC) -O0 -g -fno-omit-frame-pointer -o $@ $(srcdir)/tests/fixtures/sg-corecrash-lib.c \
		-Ltests/fixtures/corelib -lsgcorelib '-Wl,-rpath,$$ORIGIN/corelib'

TESTS += tests/run-core.sh
EXTRA_DIST += tests/fixtures/sg-corecrash-lib.c tests/run-core.sh
