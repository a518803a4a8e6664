# Included from the top Makefile.am: prompt tests (gdb parity, issue 11).
