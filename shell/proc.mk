# The process and the program: info proc, info auxv, info files, info inferiors, info signals (shell/cmd-proc.c, tests/run-info-proc.sh).
shell_spyglass_SOURCES += shell/cmd-proc.c
TESTS += tests/run-info-proc.sh
EXTRA_DIST += tests/run-info-proc.sh shell/proc.mk
