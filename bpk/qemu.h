/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's command line, built in one place for every guest bpk starts (a
 * run, a snapshot, a restore): the devices in one order, so that a
 * snapshot and its restores match.
 */
#ifndef BPK_QEMU_H
#define BPK_QEMU_H

#include <stdbool.h>

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

/* QEMU's version line ("QEMU emulator version 7.2.x ..."), cached. */
const char *qemu_version(void);

#endif
