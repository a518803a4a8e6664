# Machine code: disassemble (shell/cmd-disas.c, tests/run-disassemble.sh).
shell_spyglass_SOURCES += shell/cmd-disas.c
TESTS += tests/run-disassemble.sh
EXTRA_DIST += tests/run-disassemble.sh shell/disas.mk
