// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bpk.h"
#include "image.h"

struct cpio {
	gzFile gz;
	char *path;
	unsigned int ino;
	char err[512];
};

static int fail(struct cpio *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int put(struct cpio *c, const void *buf, size_t len)
{
	if (c->err[0])
		return -1;
	while (len) {
		unsigned int n = len > (1u << 30) ? 1u << 30 :
						    (unsigned int)len;
		int w = gzwrite(c->gz, buf, n);
		int zerr;

		if (w <= 0) {
			const char *msg = gzerror(c->gz, &zerr);

			return fail(c, "%s: %s", c->path,
				    zerr == Z_ERRNO ? strerror(errno) : msg);
		}
		buf = (const char *)buf + w;
		len -= (size_t)w;
	}
	return 0;
}

static int pad4(struct cpio *c, size_t n)
{
	static const char zeros[4];

	return n % 4 ? put(c, zeros, 4 - n % 4) : 0;
}

static int header(struct cpio *c, const char *name, mode_t mode, size_t size)
{
	char h[128];
	size_t nlen = strlen(name) + 1;

	snprintf(h, sizeof(h),
		 "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		 ++c->ino, (unsigned int)mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u,
		 0u, size, 0u, 0u, 0u, 0u, nlen, 0u);
	if (put(c, h, 110) || put(c, name, nlen) || pad4(c, 110 + nlen))
		return -1;
	return 0;
}

struct cpio *cpio_open(const char *gz_path, char *err, size_t errlen)
{
	struct cpio *c = xcalloc(1, sizeof(*c));
	int fd = open(gz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || !(c->gz = gzdopen(fd, "wb1"))) {
		snprintf(err, errlen, "%s: %s", gz_path,
			 fd < 0 ? strerror(errno) : "gzdopen failed");
		if (fd >= 0)
			close(fd);
		free(c);
		return NULL;
	}
	c->path = xstrdup(gz_path);
	return c;
}

int cpio_add_dir(struct cpio *c, const char *name, mode_t mode)
{
	return header(c, name, S_IFDIR | (mode & 07777), 0);
}

int cpio_add_data(struct cpio *c, const char *name, mode_t mode,
		  const void *data, size_t len)
{
	if (header(c, name, S_IFREG | (mode & 07777), len) ||
	    put(c, data, len) || pad4(c, len))
		return -1;
	return 0;
}

int cpio_add_symlink(struct cpio *c, const char *name, const char *target)
{
	size_t len = strlen(target);

	if (header(c, name, S_IFLNK | 0777, len) || put(c, target, len) ||
	    pad4(c, len))
		return -1;
	return 0;
}

int cpio_add_path(struct cpio *c, const char *name, const char *src)
{
	struct stat st;

	if (lstat(src, &st))
		return fail(c, "%s: %s", src, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlink(src, target, sizeof(target) - 1);

		if (n < 0)
			return fail(c, "%s: %s", src, strerror(errno));
		target[n] = '\0';
		return cpio_add_symlink(c, name, target);
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **list;
		int n = scandir(src, &list, NULL, alphasort);
		int rc = 0;

		if (n < 0)
			return fail(c, "%s: %s", src, strerror(errno));
		if (cpio_add_dir(c, name, st.st_mode))
			rc = -1;
		for (int i = 0; i < n; i++) {
			const char *e = list[i]->d_name;

			if (!rc && strcmp(e, ".") && strcmp(e, "..")) {
				char *sn = path_join(name, e);
				char *ss = path_join(src, e);

				rc = cpio_add_path(c, sn, ss);
				free(sn);
				free(ss);
			}
			free(list[i]);
		}
		free(list);
		return rc;
	}
	if (S_ISREG(st.st_mode)) {
		size_t len;
		char *data = read_file(src, (size_t)st.st_size, &len);
		int rc;

		if (!data)
			return fail(c, "%s: %s", src, strerror(errno));
		rc = cpio_add_data(c, name, st.st_mode, data, len);
		free(data);
		return rc;
	}
	/* sockets, devices, FIFOs: nothing a host program needs from /etc */
	return 0;
}

int cpio_close(struct cpio *c, char *err, size_t errlen)
{
	int zrc;

	header(c, "TRAILER!!!", 0, 0);
	zrc = gzclose(c->gz);
	if (!c->err[0] && zrc != Z_OK)
		fail(c, "%s: %s", c->path,
		     zrc == Z_ERRNO ? strerror(errno) : "gzip error");
	snprintf(err, errlen, "%s", c->err);
	free(c->path);
	free(c);
	return err[0] ? -1 : 0;
}

static int append_file(int out, const char *path, char *err, size_t errlen)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	char buf[1 << 16];

	if (in < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(in);
			return -1;
		}
		if (!n)
			break;
		while (off < n) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				snprintf(err, errlen, "writing the initrd: %s",
					 strerror(errno));
				close(in);
				return -1;
			}
			off += w;
		}
	}
	close(in);
	return 0;
}

int concat_files(const char *out, const char *a, const char *b, mode_t mode,
		 char *err, size_t errlen)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int rc;

	if (fd < 0 || fchmod(fd, mode)) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = append_file(fd, a, err, errlen) || append_file(fd, b, err, errlen);
	if (close(fd) && !rc) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		rc = -1;
	}
	return rc ? -1 : 0;
}
