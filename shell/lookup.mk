# info functions, info variables, info types (lib/lookup.c, shell/cmd-lookup.c, tests/run-lookup.sh, doc/commands.md).
lib_libsgcore_la_SOURCES += lib/lookup.c lib/lookup.h
pkginclude_HEADERS += include/spyglass/lookup.h
shell_spyglass_SOURCES += shell/cmd-lookup.c
TESTS += tests/run-lookup.sh
EXTRA_DIST += tests/run-lookup.sh shell/lookup.mk
