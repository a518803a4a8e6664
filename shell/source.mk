# Source code: list, info source, info line, directory, set substitute-path (shell/cmd-source.c, tests/run-list.sh).
shell_spyglass_SOURCES += shell/cmd-source.c
TESTS += tests/run-list.sh
EXTRA_DIST += tests/run-list.sh shell/source.mk
