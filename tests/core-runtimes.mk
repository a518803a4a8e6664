# Included from the top Makefile.am: the runtimes' commands on cores (issue
# 12).  tests/run-core-runtimes.sh compares py-bt, py-locals, bt --python,
# zeek-bt and bt --zeek on a core made with gdb's gcore with the same
# commands on the live process; it uses the fixtures of run-python.sh
# (tests/python) and run-zeek.sh (tests/fixtures/zeek), built elsewhere.
TESTS += tests/run-core-runtimes.sh
EXTRA_DIST += tests/run-core-runtimes.sh
