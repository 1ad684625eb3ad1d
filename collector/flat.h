/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checking a makedumpfile flattened stream (makedumpfile -F) before it is
 * believed: a 4096-byte header starting "makedumpfile", then records of
 * {be64 offset, be64 size, data}, ended by a record of {-1, -1}.
 */
#ifndef BPK_FLAT_H
#define BPK_FLAT_H

#include <stdio.h>
#include <stdint.h>

enum flat_verdict {
	FLAT_COMPLETE, /* header, records, end marker, nothing after */
	FLAT_EMPTY, /* no bytes at all: the dump never started */
	FLAT_TRUNCATED, /* cut inside the header, a record header or its data */
	FLAT_NO_END, /* records end cleanly but the end marker is missing */
	FLAT_BAD, /* not a flattened stream, or a nonsense record */
	FLAT_TRAILING, /* complete, then more bytes after the end marker */
};

struct flat_info {
	uint64_t records;
	uint64_t data_bytes; /* sum of record sizes */
	uint64_t extent; /* largest offset + size: the rebuilt file's size */
	uint64_t stream_bytes; /* bytes of the stream that were read */
	uint64_t trailing_bytes; /* bytes after the end marker */
};

/* Read @f to its end; fill @info; on anything but FLAT_COMPLETE, a one-line
 * reason in @why. FLAT_TRAILING: everything up to the end marker is whole
 * (makedumpfile -R stops there), but something wrote after it.
 * @max_extent (0: none) bounds every record: the guest chooses the offsets,
 * and a rebuilt vmcore is as large as the largest offset + size, so a
 * record ending beyond what the guest's memory can explain is FLAT_BAD,
 * never rebuilt (an 8 TiB sparse file fills any disk a copy goes to).
 */
enum flat_verdict flat_check(FILE *f, uint64_t max_extent,
			     struct flat_info *info, char *why, size_t whylen);

const char *flat_verdict_name(enum flat_verdict v);

#endif
