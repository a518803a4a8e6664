# Included from the top Makefile.am: difftest tests (gdb parity, issue 11).
# The generator of the differential tester (doc/difftest.md); the programs
# it writes are compiled by tests/run-difftest.sh in the build tree.
check_PROGRAMS += tests/difftest/gen
tests_difftest_gen_SOURCES = tests/difftest/gen.c
TESTS += tests/run-difftest.sh
EXTRA_DIST += tests/run-difftest.sh tests/difftest/lib.sh tests/difftest/quirks \
	tests/difftest/minimise.sh bench/difftest.sh doc/difftest.md
