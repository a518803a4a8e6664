# Included from the top Makefile.am: the value engine's plugin API
# (include/spyglass/eval.h) through the example plugin, against print and
# gdb (tests/run-example-eval.sh).
TESTS += tests/run-example-eval.sh
EXTRA_DIST += tests/run-example-eval.sh tests/engine.mk
# No file under shell/ includes libdw (tests/run-shell-no-libdw.sh).
TESTS += tests/run-shell-no-libdw.sh
EXTRA_DIST += tests/run-shell-no-libdw.sh
