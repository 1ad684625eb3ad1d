/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Armed snapshots for campaigns: a guest booted once to the point where
 * the crash kernel is loaded and checked (and, armed, the trigger is
 * armed), idle on its control port, saved with QEMU's migration. Its RAM
 * is a memory-backend file left out of the migration (x-ignore-shared), so
 * the state file is about 1 MB and a restore maps the RAM privately (copy
 * on write): no attempt copies or changes it.
 *
 * Kept in $BPK_CACHE/snapshot/<key>/: ram, state, initrd (the image it
 * booted), snapshot.json (what it was made of and how long it took),
 * console.log and results.txt (its boot until idle), ok (written last).
 * The key hashes everything a restore must match: the kernel and guest
 * image bytes, QEMU's version, the accelerator, memory, CPUs, the
 * crashkernel reservation, the guest's command line and QEMU's device
 * list.
 */
#ifndef BPK_SNAPSHOT_H
#define BPK_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

struct guest;
struct kernel_info;

struct snapshot_meta {
	char *key, *mem, *crashkernel, *accel, *trigger, *args;
	char *kernel; /* the bzImage it booted (realpath) */
	char *append; /* the guest's command line */
	char *ram; /* the RAM file */
	int smp;
	bool hostview;
};

struct snapshot_req {
	const char *kernel; /* as --kernel takes it; NULL: ours */
	const struct kernel_info *k; /* or resolved already */
	const char *mem;
	int smp;
	const char *trigger, *args; /* NULL: a snapshot that arms later */
	const char *accel; /* auto, tcg or kvm */
	/* with the host view's devices and image (the host's /usr over 9p),
	 * mounted after each restore: no --share
	 */
	bool hostview;
	/* with the host view: the run whose --share and --share-rw its QEMU
	 * exports too (NULL: the host's /usr alone)
	 */
	const struct run_opts *shares;
	bool quiet;
};

/* The snapshot for @req: found in the cache, or made (a boot of about 4 s
 * under TCG). *@dir: its directory. 0, or -1 with a one-line reason in
 * @err (the boot or the save failed, its console named).
 */
int snapshot_get(const struct snapshot_req *req, char **dir, char *err,
		 size_t errlen);

/*
 * Is the snapshot in @dir one no run will restore again? 1 with the reason
 * in @why: not whole, made by another format or QEMU, its kernel or root
 * image gone or newer than it, a host dir it exports gone, or (with
 * @kernel_entry, the clone's kernel build) a kernel build of ours that is
 * not the clone's. 0 if it may be
 * restored. What the key also covers (the devices, a host view's files)
 * shows only as a snapshot no key leads to any more, which this cannot see.
 */
int snapshot_stale(const char *dir, const char *kernel_entry, char *why,
		   size_t len);

/* Where @req's snapshot is or would be, made or not. */
char *snapshot_dir(const struct snapshot_req *req);

int snapshot_meta_read(const char *dir, struct snapshot_meta *m, char *err,
		       size_t errlen);
void snapshot_meta_free(struct snapshot_meta *m);

/* Load the state into a QEMU started with -incoming defer (the state file
 * open as @state_fd in QEMU too), through its monitor @q (open), and let
 * it run. *@took: seconds from the first migration command to the guest
 * running.
 */
struct qmp;
int snapshot_restore(struct qmp *q, int state_fd, double *took, char *err,
		     size_t errlen);

/* A restored run's console.log and results.txt in @stage get the
 * snapshot's boot in front: the first kernel's command line, its states
 * until idle.
 */
void snapshot_prepend_boot(const char *snapdir, const char *stage);

#endif
