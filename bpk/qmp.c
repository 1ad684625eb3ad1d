// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpk.h"
#include "json_writer.h"
#include "qmp.h"

#define QMP_WAIT_MS 60000

/* One JSON line from QEMU, parsed; NULL with @err. */
static json_t *qmp_read(struct qmp *q, char *err, size_t errlen)
{
	int64_t until = now_ms() + QMP_WAIT_MS;

	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		struct pollfd p[2] = { { .fd = q->fd, .events = POLLIN },
				       { .fd = q->pidfd, .events = POLLIN } };
		int64_t left;
		ssize_t n;

		if (nl) {
			json_error_t je;
			size_t line = (size_t)(nl - q->buf) + 1;
			json_t *j = json_loadb(q->buf, line - 1, 0, &je);

			memmove(q->buf, q->buf + line, q->len - line);
			q->len -= line;
			if (!j)
				snprintf(err, errlen,
					 "QMP: not JSON from QEMU: %s",
					 je.text);
			return j;
		}
		if (q->len == sizeof(q->buf)) {
			snprintf(err, errlen,
				 "QMP: a reply longer than %zu bytes",
				 sizeof(q->buf));
			return NULL;
		}
		left = until - now_ms();
		if (left <= 0) {
			snprintf(err, errlen,
				 "QMP: no answer from QEMU in %d s",
				 QMP_WAIT_MS / 1000);
			return NULL;
		}
		if (poll(p, q->pidfd >= 0 ? 2 : 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "QMP: poll: %s", strerror(errno));
			return NULL;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP)) &&
		    (p[1].revents & POLLIN)) {
			snprintf(err, errlen, "QEMU exited during QMP");
			return NULL;
		}
		if (!p[0].revents)
			continue;
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen,
				 "QEMU closed the QMP connection%s%s",
				 n < 0 ? ": " : "",
				 n < 0 ? strerror(errno) : "");
			return NULL;
		}
		q->len += (size_t)n;
	}
}

static int qmp_write(struct qmp *q, const char *cmd, const char *args,
		     char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0, off = 0;
	FILE *f = open_memstream(&text, &len);
	json_writer_t *w;

	if (!f)
		die("out of memory");
	w = jw_new(f);
	if (!w)
		die("out of memory");
	jw_start_object(w);
	jw_string_field(w, "execute", cmd);
	jw_end_object(w);
	jw_destroy(&w);
	fclose(f);
	if (args) {
		/* {"execute": "cmd"}\n -> {"execute": "cmd", "arguments": ARGS}\n */
		char *close = strrchr(text, '}');
		char *t2;

		*close = '\0';
		t2 = xasprintf("%s, \"arguments\": %s}\n", text, args);
		free(text);
		text = t2;
		len = strlen(text);
	}
	while (off < len) {
		ssize_t n = write(q->fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "QMP %s: %s", cmd,
				 strerror(errno));
			free(text);
			return -1;
		}
		off += (size_t)n;
	}
	free(text);
	return 0;
}

int qmp_open(struct qmp *q, int fd, int pidfd, char *err, size_t errlen)
{
	json_t *greeting;

	q->fd = fd;
	q->pidfd = pidfd;
	q->len = 0;
	greeting = qmp_read(q, err, errlen);
	if (!greeting)
		return -1;
	if (!json_object_get(greeting, "QMP")) {
		snprintf(err, errlen, "QMP: no greeting from QEMU");
		json_decref(greeting);
		return -1;
	}
	json_decref(greeting);
	return qmp_exec(q, "qmp_capabilities", NULL, NULL, err, errlen);
}

/* The reply to the command just sent (events before it skipped): its
 * "return" in *@ret if @ret. 0, or -1 with QEMU's error in @err.
 */
static int qmp_reply(struct qmp *q, const char *cmd, json_t **ret, char *err,
		     size_t errlen)
{
	for (;;) {
		json_t *j = qmp_read(q, err, errlen), *e;

		if (!j) {
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "QMP %s: %s", cmd, why);
			return -1;
		}
		if (json_object_get(j, "event")) {
			json_decref(j);
			continue;
		}
		e = json_object_get(j, "error");
		if (e) {
			const char *desc =
				json_string_value(json_object_get(e, "desc"));

			snprintf(err, errlen, "QMP %s: %s", cmd,
				 desc ? desc : "error");
			json_decref(j);
			return -1;
		}
		if (ret) {
			*ret = json_object_get(j, "return");
			json_incref(*ret);
		}
		json_decref(j);
		return 0;
	}
}

int qmp_exec(struct qmp *q, const char *cmd, const char *args, json_t **ret,
	     char *err, size_t errlen)
{
	if (ret)
		*ret = NULL;
	if (qmp_write(q, cmd, args, err, errlen))
		return -1;
	return qmp_reply(q, cmd, ret, err, errlen);
}

int qmp_send_fd(struct qmp *q, const char *name, int fd, char *err,
		size_t errlen)
{
	char *cmd = NULL, ctl[CMSG_SPACE(sizeof(int))];
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	json_writer_t *w;
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	ssize_t n;

	if (!f || !(w = jw_new(f)))
		die("out of memory");
	jw_start_object(w);
	jw_string_field(w, "execute", "getfd");
	jw_name(w, "arguments");
	jw_start_object(w);
	jw_string_field(w, "fdname", name);
	jw_end_object(w);
	jw_end_object(w);
	jw_destroy(&w);
	fclose(f);
	iov.iov_base = cmd;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	memset(ctl, 0, sizeof(ctl));
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	/* the command and its fd in one message: QEMU takes the fd with the
	 * bytes it arrives with
	 */
	do {
		n = sendmsg(q->fd, &msg, 0);
	} while (n < 0 && errno == EINTR);
	free(cmd);
	if (n != (ssize_t)len) {
		snprintf(err, errlen, "QMP getfd: %s",
			 n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return qmp_reply(q, "getfd", NULL, err, errlen);
}
