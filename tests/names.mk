# Included from the top Makefile.am: names tests (gdb parity, issue 11).
