/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's command line, built in one place for every guest bpk starts (a
 * run, a snapshot, a restore): the devices in one order, so that a
 * snapshot and its restores match.
 */
#ifndef BPK_QEMU_H
#define BPK_QEMU_H

#include <stdbool.h>
#include <sys/types.h>

#include "supervise.h"

struct qemu_setup {
	const char *accel; /* tcg or kvm (auto resolved by qemu_accel) */
	const char *mem;
	int smp;
	const char *kernel_image, *initrd;
	const char *append; /* after GUEST_CMDLINE_BASE */
	const char *name; /* the staging dir: names the process for ps */
	const char *ram_file; /* a memory-backend-file (snapshots), or NULL */
	bool ram_shared; /* share=on (making a snapshot) or off (restoring) */
	bool incoming; /* -incoming defer: a restore */
	bool dump_host; /* --dump host: QEMU pauses the guest on its panic */
	const struct strv *extra; /* -virtfs ..., then the user's --qemu-arg */
};

/* Append QEMU's argv for @s and the sockets of @g to @argv. */
void qemu_argv(const struct qemu_setup *s, const struct guest *g,
	       struct strv *argv);

/* "auto": kvm where a probe boot under KVM reaches the kernel's banner
 * (on some hosts /dev/kvm exists but a nested guest hangs), else tcg;
 * cached per QEMU version and kernel image. "tcg"/"kvm" as they are.
 */
const char *qemu_accel(const char *want, const char *kernel_image);

/*
 * Whom QEMU runs as. A guest is broken by definition and runs a user's
 * reproducer; QEMU is what stands between it and the host. When bpk runs
 * as root, QEMU drops to BPK_QEMU_USER (nobody) before it starts, with the
 * kvm group when it uses KVM; it reaches the files it needs through fds
 * bpk opened (guest_pass_file). Whoever it runs as, it runs under QEMU's
 * seccomp sandbox (qemu_argv: no new privileges, no spawning, no obsolete
 * calls, no resource control).
 */
struct qemu_user {
	bool drop; /* bpk is root: QEMU runs as uid/gid */
	uid_t uid;
	gid_t gid, kvm_gid; /* kvm_gid -1: no kvm group */
	char name[64];
};
const struct qemu_user *qemu_user(void);

/* QEMU's version line ("QEMU emulator version 7.2.x ..."), cached. */
const char *qemu_version(void);

#endif
