// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the trigger-argument parser (triggers/params.c),
 * which checks what a user types before anything boots and what the guest
 * is told: the first byte picks the trigger, the rest is split into words
 * at NUL and space. Never a crash; a parsed argument's canonical text fits
 * its buffer, and a refusal is one line when the words have no control
 * character (bpk refuses those before the parser sees them).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct trigger_def *t;
	struct arm_args a;
	char *copy, *argv[64], err[512], desc[1024];
	int argc = 0, n = 0;
	bool control = false;

	if (size < 1)
		return 0;
	for (t = triggers; t->name; t++)
		n++;
	t = &triggers[data[0] % n];
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	for (size_t i = 0; i + 1 < size; i++)
		control |= data[i + 1] &&
			   (data[i + 1] < 0x20 || data[i + 1] == 0x7f);
	for (size_t i = 0; i < size - 1 && argc < 64;) {
		size_t len = strcspn(copy + i, " ");

		if (copy[i + len] == ' ')
			copy[i + len] = '\0';
		if (len)
			argv[argc++] = copy + i;
		i += len + 1;
	}
	if (!args_parse(t, argc, argv, &a, err, sizeof(err))) {
		for (int i = 0; i < a.n; i++)
			if (!memchr(a.vals[i].text, '\0',
				    sizeof(a.vals[i].text)))
				abort();
		args_describe(&a, desc, sizeof(desc));
	} else if (!err[0] || (!control && strchr(err, '\n'))) {
		abort();
	}
	free(copy);
	return 0;
}
