# Included from the top Makefile.am: container shortcuts (issue 14),
# against gdb's libstdc++ xmethods (tests/run-shortcuts.sh).
TESTS += tests/run-shortcuts.sh
EXTRA_DIST += tests/run-shortcuts.sh tests/shortcuts.mk
