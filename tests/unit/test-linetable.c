/* The cpython plugin's line-table decoders against CPython's own answers
   (tests/python/linetables.py run by each interpreter, on stdin), and
   against garbage: random tables must give some line or 0, never read
   past their end (the sanitizer run checks that).

   test-linetable VERSION < dump, VERSION as 2.7 or 3.11.  */
#include <config.h>
#include "cpython.h"

#include <stdlib.h>
#include "tap.h"

static int line_of(unsigned version, const unsigned char *t, size_t n, int first, int64_t pos)
{
	if (version >= PY_V(3, 11))
		return py_locations_line(t, n, first, pos);
	if (version == PY_V(3, 10))
		return py_linetable310_line(t, n, first, pos);
	return py_lnotab_line(t, n, first, pos, version >= PY_V(3, 6));
}

static size_t unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (; s[0] && s[1] && n < max; s += 2) {
		unsigned b;
		if (sscanf(s, "%2x", &b) != 1)
			break;
		out[n++] = b;
	}
	return n;
}

/* Seeded garbage through every decoder: no crash, no read past the end
   (each table is a heap block of exactly its size).  */
static void garbage(void)
{
	unsigned seed = 12345;
	size_t bad = 0;
	for (int round = 0; round < 20000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 64);
		unsigned char *t = malloc(n ? n : 1);
		for (size_t i = 0; i < n; i++)
			t[i] = (unsigned char)rand_r(&seed);
		int64_t pos = rand_r(&seed) % 200 - 10;
		int a = py_locations_line(t, n, 1, pos), b = py_linetable310_line(t, n, 1, pos);
		int c = py_lnotab_line(t, n, 1, pos, true);
		bad += a < 0 || b < -1000000 || c < -1000000;
		free(t);
	}
	ok(bad == 0, "20000 random tables: every decoder answers, 3.11+ with a line >= 0");
}

int main(int argc, char **argv)
{
	unsigned major, minor;
	if (argc != 2 || sscanf(argv[1], "%u.%u", &major, &minor) != 2) {
		garbage();
		return tap_done();
	}
	unsigned version = PY_V(major, minor);
	static unsigned char table[1 << 20];
	size_t n = 0, codes = 0, positions = 0, wrong = 0;
	int first = 0;
	char line[1 << 21];
	while (fgets(line, sizeof(line), stdin)) {
		char hex[sizeof(line)];
		long long pos;
		int want;
		if (sscanf(line, "C %d %s", &first, hex) == 2) {
			n = unhex(hex, table, sizeof(table));
			codes++;
		} else if (sscanf(line, "P %lld %d", &pos, &want) == 2) {
			positions++;
			int got = line_of(version, table, n, first, pos);
			if (got != want && wrong++ < 5)
				printf("# code %zu (firstlineno %d), position %lld: line %d, CPython says %d\n",
				       codes, first, pos, got, want);
		}
	}
	ok(codes > 100 && positions > 1000, "Python %u.%u gave %zu code objects, %zu positions",
	   major, minor, codes, positions);
	ok(wrong == 0, "Python %u.%u: every position's line as CPython gives it (%zu differ)", major,
	   minor, wrong);
	garbage();
	return tap_done();
}
