// SPDX-License-Identifier: GPL-2.0
/* The random state of a restored guest: see reseed.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/random.h>

#include "reseed.h"

#define RESEED_MAX_BYTES 256

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int reseed_from_hex(const char *hex, char *err, size_t errlen)
{
	struct rand_pool_info *info;
	unsigned char *buf;
	size_t len = strlen(hex), n = len / 2;
	int fd, rc = -1;

	if (len < 16 || len % 2 || n > RESEED_MAX_BYTES) {
		snprintf(err, errlen,
			 "reseed: '%.40s' is not 16 to %d hex digits, even",
			 hex, 2 * RESEED_MAX_BYTES);
		return -1;
	}
	info = calloc(1, sizeof(*info) + RESEED_MAX_BYTES);
	if (!info) {
		snprintf(err, errlen, "reseed: out of memory");
		return -1;
	}
	buf = (unsigned char *)info->buf;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(err, errlen,
				 "reseed: '%.40s' is not hex digits", hex);
			goto out_free;
		}
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	info->entropy_count = (int)(8 * n);
	info->buf_size = (int)n;
	fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "reseed: /dev/urandom: %s",
			 strerror(errno));
		goto out_free;
	}
	/* credited: the host's bytes come from its own generator */
	if (ioctl(fd, RNDADDENTROPY, info)) {
		snprintf(err, errlen, "reseed: RNDADDENTROPY: %s",
			 strerror(errno));
		goto out;
	}
	/* without it the generator keeps its saved key until its interval
	 * next runs out
	 */
	if (ioctl(fd, RNDRESEEDCRNG)) {
		snprintf(err, errlen, "reseed: RNDRESEEDCRNG: %s",
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(fd);
out_free:
	free(info);
	return rc;
}

int clock_from_host(const char *epoch, char *err, size_t errlen)
{
	struct timespec ts = { 0 };
	char *end;
	long long s;

	errno = 0;
	s = strtoll(epoch, &end, 10);
	if (errno || end == epoch || *end || s <= 0) {
		snprintf(err, errlen,
			 "clock: '%.40s' is not seconds since 1970", epoch);
		return -1;
	}
	ts.tv_sec = (time_t)s;
	if (clock_settime(CLOCK_REALTIME, &ts)) {
		snprintf(err, errlen, "clock: clock_settime: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}
