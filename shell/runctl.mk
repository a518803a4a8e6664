# Run control: continue, kill, Ctrl-C (shell/cmd-run.c, doc/commands.md).
shell_spyglass_SOURCES += shell/cmd-run.c
EXTRA_DIST += shell/runctl.mk
lib_libsgcore_la_SOURCES += lib/runctl.c
TESTS += tests/run-continue.sh
EXTRA_DIST += tests/run-continue.sh
TESTS += tests/run-interrupt.sh
EXTRA_DIST += tests/run-interrupt.sh
