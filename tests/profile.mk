# Included from the top Makefile.am: the sampling profiler's output
# formats (issue 13).  The unit test builds profiles and checks the folded
# output itself; it runs tests/profile-check.py, which shares no code with
# the writers, on the speedscope and pprof files.
check_PROGRAMS += tests/unit/test-profile
tests_unit_test_profile_SOURCES = tests/unit/test-profile.c tests/unit/tap.h
tests_unit_test_profile_LDADD = lib/libsgcore.la

TESTS += tests/unit/test-profile
EXTRA_DIST += tests/profile-check.py

