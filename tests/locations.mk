# Included from the top Makefile.am: tests added for issue 11 (locations).

# Variables of optimized code against gdb (tests/run-locations.sh): one C
# source built by gcc and clang at -O2, PIE and not.  Explicit rules (see
# tests/names.mk), so that the user's CFLAGS do not change what the
# optimizer leaves.  Without clang the clang variants are scripts that say
# so; the test skips them.
LOCATIONS_FIXTURES = tests/fixtures/locations-gcc-pie tests/fixtures/locations-gcc-nopie \
	tests/fixtures/locations-clang-pie tests/fixtures/locations-clang-nopie
check_SCRIPTS += $(LOCATIONS_FIXTURES)
CLEANFILES += $(LOCATIONS_FIXTURES)

tests/fixtures/locations-gcc-pie tests/fixtures/locations-gcc-nopie \
tests/fixtures/locations-clang-pie tests/fixtures/locations-clang-nopie: \
		$(srcdir)/tests/fixtures/sg-locations.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)cc=$$(echo '$@' | sed 's/.*locations-\([a-z]*\)-.*/\1/'); \
	case '$@' in *-nopie) pie='-fno-PIE -no-pie' ;; *) pie='-fPIE -pie' ;; esac; \
	if command -v "$$cc" >/dev/null; then \
		$$cc -O2 -g $$pie -pthread -o $@ $(srcdir)/tests/fixtures/sg-locations.c; \
	else printf '#!/bin/sh\necho "no %s" >&2; exit 77\n' "$$cc" >$@; chmod +x $@; fi

# DWARF 5's indexed addresses (tests/fixtures/sg-locations-dw5.c): clang
# at -O0 and at -O2 without PIE, location lists in DW_LLE_*x forms.
LOCATIONS_DW5_FIXTURES = tests/fixtures/locations-dw5-O0 tests/fixtures/locations-dw5-O2
check_SCRIPTS += $(LOCATIONS_DW5_FIXTURES)
CLEANFILES += $(LOCATIONS_DW5_FIXTURES)

$(LOCATIONS_DW5_FIXTURES): $(srcdir)/tests/fixtures/sg-locations-dw5.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)case '$@' in *-O0) opt='-O0' ;; *) opt='-O2 -fno-PIE -no-pie -ffunction-sections' ;; esac; \
	if command -v clang >/dev/null; then \
		clang -gdwarf-5 $$opt -o $@ $(srcdir)/tests/fixtures/sg-locations-dw5.c; \
	else printf '#!/bin/sh\necho "no clang" >&2; exit 77\n' >$@; chmod +x $@; fi

# The typed DWARF stack (tests/fixtures/sg-locations-typed.c): gcc at
# -O1 and -O2.
LOCATIONS_TYPED_FIXTURES = tests/fixtures/locations-typed-O1 tests/fixtures/locations-typed-O2
check_SCRIPTS += $(LOCATIONS_TYPED_FIXTURES)
CLEANFILES += $(LOCATIONS_TYPED_FIXTURES)

$(LOCATIONS_TYPED_FIXTURES): $(srcdir)/tests/fixtures/sg-locations-typed.c
	@$(MKDIR_P) tests/fixtures
	$(AM_V_CCLD)gcc -g -$$(echo '$@' | sed 's/.*-//') -o $@ $(srcdir)/tests/fixtures/sg-locations-typed.c

TESTS += tests/run-locations.sh
EXTRA_DIST += tests/fixtures/sg-locations.c tests/fixtures/sg-locations-dw5.c \
	tests/fixtures/sg-locations-typed.c \
	tests/run-locations.sh
