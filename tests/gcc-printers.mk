# Included from the top Makefile.am: gcc-printers tests (gdb parity, issue 11).
# GCC's own libstdc++ pretty-printer tests, taken from Debian's
# gcc-12-source at test time (see doc/gcc-printers.md).
TESTS += tests/run-gcc-printers.sh
EXTRA_DIST += tests/run-gcc-printers.sh tests/gcc-printers/dg.py \
	tests/gcc-printers/spot.c tests/gcc-printers/expected-misses \
	bench/gcc-printers.sh doc/gcc-printers.md
# What the test extracts and builds, kept between runs.
clean-local: clean-gcc-printers
clean-gcc-printers:
	-rm -rf tests/gcc-printers-run
.PHONY: clean-gcc-printers
