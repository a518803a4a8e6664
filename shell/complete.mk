# Completion at the prompt: expressions (locals, globals, types, members
# after "." and "->"), file names, list's source files (lib/complete-expr.c,
# shell/repl.c, tests/run-complete.sh, doc/commands.md "Interactive use").
lib_libsgcore_la_SOURCES += lib/complete-expr.c lib/complete.h
TESTS += tests/run-complete.sh
EXTRA_DIST += tests/run-complete.sh shell/complete.mk
