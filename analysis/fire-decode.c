// SPDX-License-Identifier: GPL-2.0
/*
 * fire-decode: read crash's "rd -8" dump of a trigger's .data.fire map value
 * on stdin, print the trigger state as key=value lines. Exit 0 if it holds a
 * fire record, 3 if it is a valid state without one, 1 on bad input.
 *
 *   fire-decode --size   the number of bytes to dump (sizeof the state)
 */
#include <stdlib.h>
#include <string.h>

#include "fire_decode.h"

int main(int argc, char **argv)
{
	static char text[64 * 1024];
	unsigned char buf[sizeof(struct trigger_state)];
	struct trigger_state s;
	char err[256];
	size_t n;
	long len;

	if (argc == 2 && !strcmp(argv[1], "--size")) {
		printf("%zu\n", sizeof(struct trigger_state));
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr,
			"usage: fire-decode [--size] < crash-rd-8-output\n");
		return 2;
	}
	n = fread(text, 1, sizeof(text) - 1, stdin);
	if (ferror(stdin)) {
		fprintf(stderr, "fire-decode: cannot read stdin\n");
		return 1;
	}
	text[n] = '\0';
	len = hexdump_parse(text, buf, sizeof(buf), err, sizeof(err));
	if (len < 0 || state_decode(buf, (size_t)len, &s, err, sizeof(err))) {
		fprintf(stderr, "fire-decode: stdin: %s\n", err);
		return 1;
	}
	return state_print(stdout, &s) ? 0 : 3;
}
