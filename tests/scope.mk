# Included from the top Makefile.am: info scope (issue 14).

# info scope against gdb (tests/run-scope.sh): one C source built by gcc
# at -O0, -O2 and -O2 with DWARF 4, and by clang at -O0 and -O2.
# Explicit rules (see tests/names.mk), so that the user's CFLAGS do not
# change what the optimizer leaves.  Without clang the clang variants are
# scripts that say so; the test skips them.  The source compiles from its
# folder, so that gdb and spyglass both name it "sg-scope.c".
SCOPE_FIXTURES = tests/fixtures/scope-gcc-O0 tests/fixtures/scope-gcc-O2 \
	tests/fixtures/scope-gcc-O2-dwarf4 tests/fixtures/scope-clang-O0 \
	tests/fixtures/scope-clang-O2
check_SCRIPTS += $(SCOPE_FIXTURES)
CLEANFILES += $(SCOPE_FIXTURES)

$(SCOPE_FIXTURES): $(srcdir)/tests/fixtures/sg-scope.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)out=$$(pwd)/$@; \
	case '$@' in *gcc*) cc=gcc ;; *) cc=clang ;; esac; \
	case '$@' in *-O0) opt='-O0' ;; *-dwarf4) opt='-O2 -gdwarf-4' ;; *) opt='-O2' ;; esac; \
	if command -v "$$cc" >/dev/null; then \
		cd $(srcdir)/tests/fixtures && $$cc -g $$opt -Wl,-z,execstack -o "$$out" sg-scope.c; \
	else printf '#!/bin/sh\necho "no %s" >&2; exit 77\n' "$$cc" >$@; chmod +x $@; fi

TESTS += tests/run-scope.sh
EXTRA_DIST += tests/fixtures/sg-scope.c tests/run-scope.sh

# Thread-local variables against gdb (tests/run-tls.sh).
check_PROGRAMS += tests/fixtures/sg-tls
tests_fixtures_sg_tls_SOURCES = tests/fixtures/sg-tls.c
tests_fixtures_sg_tls_CFLAGS = -O0 -g -pthread
tests_fixtures_sg_tls_LDFLAGS = -pthread
TESTS += tests/run-tls.sh
EXTRA_DIST += tests/run-tls.sh
