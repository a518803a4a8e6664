# The process: info proc (cmdline, cwd, exe, mappings, stat, status, all), info auxv, info inferiors (shell/cmd-proc.c, tests/run-info-proc.sh, doc/commands.md).
shell_spyglass_SOURCES += shell/cmd-proc.c
TESTS += tests/run-info-proc.sh
EXTRA_DIST += tests/run-info-proc.sh shell/proc.mk
