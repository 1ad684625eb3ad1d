// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/*
 * Code points that are valid but change how a reader sees the text around
 * them: the line and paragraph separators, and the invisible ones that
 * reorder or hide what follows (bidi embeddings, overrides and isolates,
 * zero-width spaces and joiners, the marks, the BOM): a guest line with
 * U+202E shows its end first.
 */
static int must_escape(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061c || cp == 0xfeff;
}

/* The length of the valid UTF-8 sequence at @s (1-4), 0 if invalid, or a
 * code point that must be escaped all the same (must_escape) as a
 * negative length.
 */
static int utf8_len(const unsigned char *s, size_t len)
{
	unsigned int cp;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)n > len)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (must_escape(cp))
		return -n;
	return n;
}

/* Escape @s into @out (NULL: only count); returns the length written. */
static size_t escape(char *out, size_t size, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		int n = p[i] >= 0x20 && p[i] < 0x7f ? 1 :
			p[i] < 0x80		    ? 0 :
						      utf8_len(p + i, len - i);
		char tmp[20];
		size_t tlen;

		if (n > 0) {
			memcpy(tmp, p + i, (size_t)n);
			tlen = (size_t)n;
		} else {
			int k = n < 0 ? -n : 1;

			tlen = 0;
			for (int j = 0; j < k; j++)
				tlen += (size_t)snprintf(tmp + tlen,
							 sizeof(tmp) - tlen,
							 "\\x%02x", p[i + j]);
			n = k;
		}
		if (out) {
			if (o + tlen >= size)
				break;
			memcpy(out + o, tmp, tlen);
		}
		o += tlen;
		i += (size_t)n;
	}
	if (out && size)
		out[o < size ? o : size - 1] = '\0';
	return o;
}

char *escape_text(const char *s, size_t len)
{
	size_t n = escape(NULL, 0, s, len);
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	escape(out, n + 1, s, len);
	return out;
}

char *escape_into(char *buf, size_t size, const char *s, size_t len)
{
	escape(buf, size, s, len);
	return buf;
}
