// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <inttypes.h>
#include <string.h>

#include "flat.h"

#define MDF_SIGNATURE "makedumpfile"
#define MDF_HEADER_SIZE 4096
#define MDF_TYPE_FLAT 1
#define MDF_END (-1)

struct mdf_header {
	char signature[16];
	int64_t type;
	int64_t version;
};

struct mdf_record {
	int64_t offset;
	int64_t size;
};

const char *flat_verdict_name(enum flat_verdict v)
{
	switch (v) {
	case FLAT_COMPLETE:
		return "complete";
	case FLAT_EMPTY:
		return "empty";
	case FLAT_TRUNCATED:
		return "truncated";
	case FLAT_NO_END:
		return "no end marker";
	case FLAT_BAD:
		return "not a flattened dump";
	case FLAT_TRAILING:
		return "trailing data";
	}
	return "?";
}

/* Skip @n bytes by reading them: the stream may be a pipe. */
static uint64_t skip(FILE *f, uint64_t n)
{
	static char buf[1 << 16];
	uint64_t done = 0;

	while (done < n) {
		size_t want = n - done < sizeof(buf) ? (size_t)(n - done) :
						       sizeof(buf);
		size_t got = fread(buf, 1, want, f);

		done += got;
		if (got < want)
			break;
	}
	return done;
}

enum flat_verdict flat_check(FILE *f, uint64_t max_extent,
			     struct flat_info *info, char *why, size_t whylen)
{
	unsigned char header[MDF_HEADER_SIZE];
	struct mdf_header h;
	struct mdf_record r;
	size_t got;

	memset(info, 0, sizeof(*info));
	got = fread(header, 1, sizeof(header), f);
	info->stream_bytes = got;
	if (got == 0) {
		snprintf(why, whylen,
			 "the stream is empty: no dump was written");
		return FLAT_EMPTY;
	}
	if (got < sizeof(h) ||
	    memcmp(header, MDF_SIGNATURE, strlen(MDF_SIGNATURE))) {
		snprintf(why, whylen, "no \"%s\" signature at the start",
			 MDF_SIGNATURE);
		return got < sizeof(h) ? FLAT_TRUNCATED : FLAT_BAD;
	}
	memcpy(&h, header, sizeof(h));
	if ((int64_t)be64toh((uint64_t)h.type) != MDF_TYPE_FLAT) {
		snprintf(why, whylen,
			 "header type %" PRId64 ", not the flattened format",
			 (int64_t)be64toh((uint64_t)h.type));
		return FLAT_BAD;
	}
	if (got < sizeof(header)) {
		snprintf(why, whylen,
			 "cut inside the %d-byte header (%zu bytes)",
			 MDF_HEADER_SIZE, got);
		return FLAT_TRUNCATED;
	}

	for (;;) {
		int64_t off, size;
		uint64_t data;

		got = fread(&r, 1, sizeof(r), f);
		info->stream_bytes += got;
		if (got == 0) {
			snprintf(why, whylen,
				 "%" PRIu64 " records, then the stream ends "
				 "without the end marker",
				 info->records);
			return FLAT_NO_END;
		}
		if (got < sizeof(r)) {
			snprintf(why, whylen,
				 "cut inside record header %" PRIu64,
				 info->records + 1);
			return FLAT_TRUNCATED;
		}
		off = (int64_t)be64toh((uint64_t)r.offset);
		size = (int64_t)be64toh((uint64_t)r.size);
		if (off == MDF_END && size == MDF_END)
			break;
		if (off < 0 || size < 0) {
			snprintf(why, whylen,
				 "record %" PRIu64 " has offset %" PRId64
				 " size %" PRId64,
				 info->records + 1, off, size);
			return FLAT_BAD;
		}
		if (max_extent &&
		    ((uint64_t)size > max_extent ||
		     (uint64_t)off > max_extent - (uint64_t)size)) {
			snprintf(
				why, whylen,
				"record %" PRIu64 " (offset %" PRId64
				", %" PRId64 " bytes) ends beyond %" PRIu64
				" bytes, the most the guest's memory explains: not rebuilt",
				info->records + 1, off, size, max_extent);
			return FLAT_BAD;
		}
		data = skip(f, (uint64_t)size);
		info->stream_bytes += data;
		if (data < (uint64_t)size) {
			snprintf(why, whylen,
				 "cut inside the data of record %" PRIu64
				 " (%" PRIu64 " of %" PRId64 " bytes)",
				 info->records + 1, data, size);
			return FLAT_TRUNCATED;
		}
		info->records++;
		info->data_bytes += (uint64_t)size;
		if ((uint64_t)off + (uint64_t)size > info->extent)
			info->extent = (uint64_t)off + (uint64_t)size;
	}
	if (!info->records) {
		snprintf(why, whylen, "an end marker but no records");
		return FLAT_BAD;
	}
	info->trailing_bytes = skip(f, UINT64_MAX);
	info->stream_bytes += info->trailing_bytes;
	if (info->trailing_bytes) {
		snprintf(why, whylen,
			 "%" PRIu64 " bytes of trailing data after the end "
			 "marker of a complete stream (%" PRIu64 " records)",
			 info->trailing_bytes, info->records);
		return FLAT_TRAILING;
	}
	return FLAT_COMPLETE;
}
