/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QMP client: QEMU's monitor protocol over a socket bpk handed QEMU at
 * start. Commands are written with bpk's JSON writer, replies parsed with
 * Jansson. Every wait is bounded, and ends early when QEMU exits.
 */
#ifndef BPK_QMP_H
#define BPK_QMP_H

#include <jansson.h>
#include <stddef.h>

struct qmp {
	int fd, pidfd;
	char buf[1 << 16];
	size_t len;
};

/* Read the greeting, negotiate capabilities. 0, or -1 with @err. */
int qmp_open(struct qmp *q, int fd, int pidfd, char *err, size_t errlen);

/* Run @cmd with the arguments @args (a JSON object's text, or NULL); the
 * reply's "return" in *@ret (the caller json_decref()s it; @ret may be
 * NULL). 0, or -1 with QEMU's own error text in @err.
 */
int qmp_exec(struct qmp *q, const char *cmd, const char *args, json_t **ret,
	     char *err, size_t errlen);

/* Hand QEMU the file descriptor @fd under @name (QMP getfd, the fd sent
 * with SCM_RIGHTS): an outgoing migration writes to "fd:NAME". 0, or -1
 * with @err.
 */
int qmp_send_fd(struct qmp *q, const char *name, int fd, char *err,
		size_t errlen);

#endif
