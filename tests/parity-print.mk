# Included from the top Makefile.am: parity-print tests (gdb parity, issue 11).
