# Included from the top Makefile.am: sigtramp tests (gdb parity, issue 11).
