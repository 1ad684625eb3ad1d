// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the escape of guest text (bpk/escape.c): whatever
 * bytes come in, what comes out has no control character (C0, DEL, C1),
 * no U+2028/U+2029, is valid UTF-8, and loses nothing: every input byte
 * is either kept or written as \xNN; and escaping again changes nothing
 * (the record's escaped text passes the analysis' escape unchanged).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid UTF-8 sequence at @s, 0 if none (the decoder the
 * escape must satisfy, written apart from it).
 */
static size_t valid(const unsigned char *s, size_t len, unsigned int *cp)
{
	size_t n = s[0] < 0x80			? 1 :
		   s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		   s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 :
						  0;

	if (!n || n > len)
		return 0;
	*cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) ||
	    *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *e = escape_text((const char *)data, size);
	const unsigned char *p = (const unsigned char *)e;
	size_t len;

	if (!e)
		return 0;
	len = strlen(e);
	if (len < size)
		abort(); /* nothing is lost: each byte gives at least one */
	for (size_t i = 0; i < len;) {
		unsigned int cp;
		size_t n = valid(p + i, len - i, &cp);

		if (!n || cp < 0x20 || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
			abort();
		i += n;
	}
	{
		char *again = escape_text(e, len);

		if (!again || strcmp(again, e))
			abort();
		free(again);
	}
	free(e);
	return 0;
}
