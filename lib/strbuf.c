/* Small utilities: a growable buffer, JSON string escaping, arrays, words,
   the clock.  */
#include <config.h>
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <time.h>

void sg_buf_init(struct sg_buf *b) { memset(b, 0, sizeof(*b)); }
void sg_buf_deinit(struct sg_buf *b) { free(b->data); sg_buf_init(b); }

void sg_buf_reset(struct sg_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->data)
		b->data[0] = '\0';
}

static bool buf_reserve(struct sg_buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *data = realloc(b->data, cap);
	if (!data) {
		b->failed = true;
		return false;
	}
	b->data = data;
	b->cap = cap;
	return true;
}

void sg_buf_append(struct sg_buf *b, const void *data, size_t len)
{
	if (!buf_reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void sg_buf_puts(struct sg_buf *b, const char *s) { sg_buf_append(b, s, strlen(s)); }
void sg_buf_putc(struct sg_buf *b, char c) { sg_buf_append(b, &c, 1); }

void sg_buf_vprintf(struct sg_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sg_buf_append(b, small, n);
		return;
	}
	if (!buf_reserve(b, n))
		return;
	vsnprintf(b->data + b->len, n + 1, fmt, ap);
	b->len += n;
}

void sg_buf_printf(struct sg_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sg_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* Length of the valid UTF-8 sequence at S (at most LEN bytes), or 0.  */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t min;
	if (s[0] < 0x80)
		return 1;
	else if ((s[0] & 0xe0) == 0xc0)
		n = 2, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, min = 0x10000;
	else
		return 0;
	if (n > len)
		return 0;
	uint32_t cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void sg_buf_json_string(struct sg_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	sg_buf_putc(b, '"');
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		switch (c) {
		case '"': sg_buf_puts(b, "\\\""); i++; continue;
		case '\\': sg_buf_puts(b, "\\\\"); i++; continue;
		case '\n': sg_buf_puts(b, "\\n"); i++; continue;
		case '\t': sg_buf_puts(b, "\\t"); i++; continue;
		case '\r': sg_buf_puts(b, "\\r"); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			sg_buf_printf(b, "\\u%04x", c);
			i++;
			continue;
		}
		size_t n = utf8_len(p + i, len - i);
		if (n == 0) {
			/* Invalid UTF-8 from target memory: keep the byte
			   visible without producing invalid JSON.  */
			sg_buf_printf(b, "\\u%04x", c);
			i++;
			continue;
		}
		sg_buf_append(b, p + i, n);
		i += n;
	}
	sg_buf_putc(b, '"');
}

char *sg_buf_steal(struct sg_buf *b)
{
	if (!b->data) {
		if (!buf_reserve(b, 0))
			return NULL;
		b->data[0] = '\0';
	}
	char *s = b->data;
	sg_buf_init(b);
	return s;
}

void *sg_array_push(void *array_p, size_t *n, size_t *cap, size_t size)
{
	char **array = array_p;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		char *a = realloc(*array, ncap * size);
		if (!a)
			return NULL;
		*array = a;
		*cap = ncap;
	}
	char *item = *array + (*n)++ * size;
	memset(item, 0, size);
	return item;
}

ssize_t sg_split_words(const char *s, char ***ret)
{
	char **words = NULL;
	size_t n = 0, cap = 0;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		const char *start = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		char **slot = sg_array_push(&words, &n, &cap, sizeof(*words));
		if (!slot || !(*slot = strndup(start, s - start))) {
			if (slot)
				n--;
			sg_free_words(words, n);
			return -1;
		}
	}
	*ret = words;
	return n;
}

void sg_free_words(char **words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

uint64_t sg_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}
