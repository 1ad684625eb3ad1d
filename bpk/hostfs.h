/* SPDX-License-Identifier: GPL-2.0 */
/* The host's programs in the guest: the host view over virtio 9p. */
#ifndef BPK_HOSTFS_H
#define BPK_HOSTFS_H

#include "bpk.h"

struct cpio;
struct run_opts;

/* Why @workload must run in the host's user space ("a dynamically linked
 * program", "a script for /usr/bin/python3"), or NULL.
 */
char *hostfs_needed(const char *workload);

/* A --share DIR as an absolute directory that can be shared; bad input
 * (exit 2) otherwise.
 */
char *hostfs_share_path(const char *dir);

/* The shares of the host view ("TAG\tro|rw\tPATH", in mount order) into
 * @specs, for hostfs_virtfs: the host's /usr (and /bin, /lib* where they
 * are dirs), then @o's --share and --share-rw (@o NULL: none).
 */
void hostfs_specs(const struct run_opts *o, struct strv *specs);

/* Add the host view's skeleton to the run's image @c (the preinit, the
 * share list, /etc copies, /bin and /lib links) and its shares
 * (hostfs_specs) to @specs; @why, when not NULL, is said. 0, or -1 (the
 * error said).
 */
int hostfs_setup(const struct run_opts *o, const char *why, struct cpio *c,
		 struct strv *specs);

struct guest;
/* QEMU's -virtfs options for @shares into @qemu_args, each share handed
 * to QEMU as an fd of the guest @g. 0, or -1 (the error said).
 */
int hostfs_virtfs(struct guest *g, const struct strv *shares,
		  struct strv *qemu_args);

#endif
