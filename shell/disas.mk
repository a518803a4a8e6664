# Machine code: disassemble (shell/cmd-disas.c, tests/run-disassemble.sh).
# The instructions come from binutils' libopcodes (configure.ac checks for
# it; doc/design.md, "The disassembler", says why).
shell_spyglass_SOURCES += shell/cmd-disas.c shell/disas-insn.c shell/disas-insn.h
TESTS += tests/run-disassemble.sh
EXTRA_DIST += tests/run-disassemble.sh shell/disas.mk
