/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A dump of a live guest on demand (bpk dump): the run in progress listens
 * on a socket in its staging dir (mode 0700: its owner alone connects),
 * takes the dump through the QEMU monitor it already holds and files it as
 * a run of its own; bpk dump asks for it and reports it. Both ends of that
 * exchange are here.
 *
 * The exchange: the client sends LIVE_DUMP_REQUEST; the run answers with
 * lines "info TEXT" (progress), then one "ok DIR PAUSED_MS VMCORE_BYTES"
 * or "error TEXT", and closes.
 */
#ifndef BPK_LIVEDUMP_H
#define BPK_LIVEDUMP_H

#include <stddef.h>

#define LIVE_DUMP_SOCK "dump.sock"
#define LIVE_DUMP_REQUEST "dump"
/* the suffix of a live dump's run id: RUNS/<UTC time>-<trigger>-live */
#define LIVE_DUMP_SUFFIX "live"
/* what one reply line may hold */
#define LIVE_DUMP_LINE_MAX 2048

/* Listen on @dir/LIVE_DUMP_SOCK (a path too long for a socket address is
 * reached through the directory's fd). The fd, or -1 with @err.
 */
int livedump_listen(const char *dir, char *err, size_t errlen);

/* Connect to the run whose staging dir is @dir. The fd, or -1 with @err. */
int livedump_connect(const char *dir, char *err, size_t errlen);

/* The other end of @fd is this user's or root's (SO_PEERCRED): 0, or -1
 * with @err naming the peer. The socket's directory is the run's owner's
 * alone, but a path can be swapped: each end checks the other.
 */
int livedump_peer_ok(int fd, char *err, size_t errlen);

/* One reply line ("info", "ok" or "error", then the text) to @fd; a
 * client that went away loses it, the run goes on.
 */
void livedump_say(int fd, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
