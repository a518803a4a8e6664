# Included from the top Makefile.am: difftest tests (gdb parity, issue 11).
