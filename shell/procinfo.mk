# info all-registers, info files/target, info signals (shell/cmd-procinfo.c, doc/commands.md).
shell_spyglass_SOURCES += shell/cmd-procinfo.c
EXTRA_DIST += shell/procinfo.mk
