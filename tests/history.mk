# Included from the top Makefile.am: the value history and convenience
# variables (issue 14), against gdb (tests/run-history.sh).
TESTS += tests/run-history.sh
EXTRA_DIST += tests/run-history.sh tests/history.mk
# thread apply's lists and flags (tests/run-thread-apply.sh).
TESTS += tests/run-thread-apply.sh
EXTRA_DIST += tests/run-thread-apply.sh
