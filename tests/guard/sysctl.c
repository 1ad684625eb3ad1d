// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl.h"

int sysctl_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	/* The sysctl handler runs inside write(): its verdict is this errno. */
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int sysctl_read(const char *path, int *val)
{
	char buf[32];
	char *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd))
		return -errno;
	buf[n] = '\0';
	errno = 0;
	*val = (int)strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}
