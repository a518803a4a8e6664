/* Text helpers the value engine and the shell share: a growable string,
   gdb's escapes for bytes and chars, and its text for EFLAGS.  */
#include <config.h>
#include "eval.h"

#include <stdio.h>
#include <stdlib.h>

void sg_lite_putc(struct sg_buf_lite *b, char c)
{
	if (b->len + 2 > b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 64;
		char *s = realloc(b->s, ncap);
		if (!s)
			return;
		b->s = s;
		b->cap = ncap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void sg_lite_puts(struct sg_buf_lite *b, const char *s)
{
	while (*s)
		sg_lite_putc(b, *s++);
}

/* A byte as gdb shows it inside quotes: \n, \t, \\, \ooo.  QUOTE is the
   quote character that needs escaping.  */
void sg_escape_byte(struct sg_buf_lite *b, unsigned char c, char quote)
{
	static const char esc[] = { ['\a'] = 'a', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
				    ['\r'] = 'r', ['\t'] = 't', ['\v'] = 'v' };
	if (c == '\\' || c == (unsigned char)quote) {
		sg_lite_putc(b, '\\');
		sg_lite_putc(b, c);
	} else if (c < sizeof(esc) && esc[c]) {
		sg_lite_putc(b, '\\');
		sg_lite_putc(b, esc[c]);
	} else if (c == 033) {
		sg_lite_puts(b, "\\033");
	} else if (c < 0x20 || c >= 0x7f) {
		char o[8];
		snprintf(o, sizeof(o), "\\%03o", c);
		sg_lite_puts(b, o);
	} else {
		sg_lite_putc(b, c);
	}
}

void sg_char_repr(struct sg_buf_lite *b, unsigned char c)
{
	char n[8];
	snprintf(n, sizeof(n), "%d '", (signed char)c);
	sg_lite_puts(b, n);
	if (c == 0)
		sg_lite_puts(b, "\\000");
	else
		sg_escape_byte(b, c, '\'');
	sg_lite_putc(b, '\'');
}

void sg_eflags_text(uint64_t v, char *buf, size_t size)
{
	static const struct { int bit; const char *name; } flags[] = {
		{ 0, "CF" }, { 2, "PF" }, { 4, "AF" }, { 6, "ZF" }, { 7, "SF" }, { 8, "TF" },
		{ 9, "IF" }, { 10, "DF" }, { 11, "OF" }, { 14, "NT" }, { 16, "RF" }, { 17, "VM" },
		{ 18, "AC" }, { 19, "VIF" }, { 20, "VIP" }, { 21, "ID" },
	};
	size_t n = snprintf(buf, size, "[ ");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if ((v >> flags[i].bit) & 1 && n < size)
			n += snprintf(buf + n, size - n, "%s ", flags[i].name);
	if (n < size)
		snprintf(buf + n, size - n, "]");
}
