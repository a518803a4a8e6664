# Included from the top Makefile.am: gcc-printers tests (gdb parity, issue 11).
