// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the capture step's status record parser
 * (collector/status.c): any text gives a record or a one-line reason,
 * never a crash; a parsed record has a status= and no key twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	struct capture_status st;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!status_parse(text, &st, err, sizeof(err))) {
		if (!status_get(&st, "status"))
			abort();
		for (int i = 0; i < st.n; i++)
			for (int j = i + 1; j < st.n; j++)
				if (!strcmp(st.key[i], st.key[j]))
					abort();
	} else if (!err[0] || strchr(err, '\n')) {
		abort();
	}
	free(text);
	return 0;
}
