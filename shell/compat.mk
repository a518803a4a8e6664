# gdb's habits: the settings scripts start with, logging, apropos, show version, pwd, cd, the
# repeat of an empty line at the prompt (shell/cmd-compat.c, shell/compat-*.c, tests/run-habits.sh).
shell_spyglass_SOURCES += shell/cmd-compat.c shell/compat.h shell/compat-settings.c \
	shell/compat-logging.c
TESTS += tests/run-habits.sh
EXTRA_DIST += tests/run-habits.sh shell/compat.mk
