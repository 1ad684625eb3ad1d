// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the fire record's decoder (analysis/fire_decode.c):
 * crash's "rd -8" hex dump of the .data.fire map, as read from a vmcore
 * whose kernel was broken, parsed and printed: never a crash, never more
 * bytes than the buffer, and a printed record has no raw control byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fire_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char buf[sizeof(struct trigger_state)];
	struct trigger_state s;
	char *text = malloc(size + 1), err[256], *out = NULL;
	size_t outlen = 0;
	long n;
	FILE *o;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = hexdump_parse(text, buf, sizeof(buf), err, sizeof(err));
	if (n > (long)sizeof(buf))
		abort();
	if (n == (long)sizeof(buf) &&
	    !state_decode(buf, (size_t)n, &s, err, sizeof(err))) {
		o = open_memstream(&out, &outlen);
		if (!o)
			abort();
		state_print(o, &s);
		fclose(o);
		for (size_t i = 0; i < outlen; i++)
			if ((out[i] < 0x20 && out[i] != '\n') || out[i] == 0x7f)
				abort();
		free(out);
	}
	free(text);
	return 0;
}
