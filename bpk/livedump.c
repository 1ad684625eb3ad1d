// SPDX-License-Identifier: GPL-2.0
/*
 * The socket of a run in progress that takes a dump of its live guest on
 * demand, both ends (livedump.h).
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bpk.h"
#include "livedump.h"

/* @dir/LIVE_DUMP_SOCK as a socket address: the path itself when it fits,
 * else through an O_PATH fd of @dir (*@dirfd, closed by the caller after
 * bind or connect): runs dirs can be deeper than sun_path's 108 bytes.
 */
static int sock_addr(const char *dir, struct sockaddr_un *sa, int *dirfd,
		     char *err, size_t errlen)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	*dirfd = -1;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", dir,
		     LIVE_DUMP_SOCK);
	if (n > 0 && (size_t)n < sizeof(sa->sun_path))
		return 0;
	*dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s",
		 *dirfd, LIVE_DUMP_SOCK);
	return 0;
}

int livedump_listen(const char *dir, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	int fd, dirfd;

	if (sock_addr(dir, &sa, &dirfd, err, errlen))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 4)) {
		snprintf(err, errlen, "%s/%s: %s", dir, LIVE_DUMP_SOCK,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (dirfd >= 0)
		close(dirfd);
	return fd;
}

int livedump_peer_ok(int fd, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		snprintf(err, errlen, "SO_PEERCRED: %s", strerror(errno));
		return -1;
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		snprintf(
			err, errlen,
			"the other end is uid %u (pid %d), not you (uid %u) or root",
			(unsigned)cred.uid, (int)cred.pid, (unsigned)geteuid());
		return -1;
	}
	return 0;
}

int livedump_connect(const char *dir, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	int fd, dirfd;

	if (sock_addr(dir, &sa, &dirfd, err, errlen))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		snprintf(err, errlen, "%s/%s: %s%s", dir, LIVE_DUMP_SOCK,
			 strerror(e),
			 e == ECONNREFUSED || e == ENOENT ?
				 " (the run is no longer in progress)" :
				 "");
		if (fd >= 0)
			close(fd);
		fd = -1;
	} else if (livedump_peer_ok(fd, err, errlen)) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s/%s: not a run of yours: %s", dir,
			 LIVE_DUMP_SOCK, why);
		close(fd);
		fd = -1;
	}
	if (dirfd >= 0)
		close(dirfd);
	return fd;
}

void livedump_say(int fd, const char *kind, const char *fmt, ...)
{
	char line[LIVE_DUMP_LINE_MAX];
	va_list ap;
	int n = snprintf(line, sizeof(line), "%s ", kind);

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	/* one line: a newline inside the text would end it early */
	for (char *p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	n = (int)strlen(line);
	line[n++] = '\n';
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
		/* the client is gone or stuck: it reads nothing more */
	}
}
