# gdb's habits: the settings scripts start with, apropos, show version, pwd (shell/cmd-compat.c, tests/run-habits.sh).
shell_spyglass_SOURCES += shell/cmd-compat.c
TESTS += tests/run-habits.sh
EXTRA_DIST += tests/run-habits.sh shell/compat.mk
