// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the flattened-stream checker (collector/flat.c): any
 * bytes the capture kernel sends as the dump give a verdict, never a crash,
 * and what it reports is consistent: the bytes it read are the input's,
 * and a whole stream's extent is the largest offset + size it saw.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "flat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	struct flat_info info;
	enum flat_verdict v;
	char why[512];

	if (!f)
		return 0;
	if (!size) {
		fclose(f);
		return 0;
	}
	/* the bound as bpk sets it for a 1 GiB guest */
	v = flat_check(f, (1ULL << 30) + (64ULL << 20), &info, why,
		       sizeof(why));
	if ((v == FLAT_COMPLETE || v == FLAT_TRAILING) &&
	    info.extent > (1ULL << 30) + (64ULL << 20))
		abort();
	fclose(f);
	if (info.stream_bytes > size)
		abort();
	if ((v == FLAT_COMPLETE || v == FLAT_TRAILING) && !info.records)
		abort();
	if (v == FLAT_TRAILING && !info.trailing_bytes)
		abort();
	(void)flat_verdict_name(v);
	return 0;
}
