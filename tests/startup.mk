# Start-up work and the persistent index cache (doc/cache.md).
TESTS += tests/run-startup.sh
EXTRA_DIST += tests/run-startup.sh
