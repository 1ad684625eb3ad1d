/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's own piece of the guest's initramfs: a gzipped newc cpio archive
 * (the workload, the host view's skeleton), which the kernel unpacks after
 * the shared guest image it is appended to. Owner 0:0, time 0: the same
 * inputs give the same bytes.
 */
#ifndef BPK_IMAGE_H
#define BPK_IMAGE_H

#include <stddef.h>
#include <sys/types.h>

struct cpio;

struct cpio *cpio_open(const char *gz_path, char *err, size_t errlen);
int cpio_add_dir(struct cpio *c, const char *name, mode_t mode);
int cpio_add_data(struct cpio *c, const char *name, mode_t mode,
		  const void *data, size_t len);
int cpio_add_symlink(struct cpio *c, const char *name, const char *target);
/* A host file, directory (recursively) or symlink, as cp -a copies it. */
int cpio_add_path(struct cpio *c, const char *name, const char *src);
/* Write the trailer and close; 0, or -1 with the first error of any call
 * (naming the file) in @err.
 */
int cpio_close(struct cpio *c, char *err, size_t errlen);

/* @out = @a followed by @b (the kernel unpacks concatenated archives in
 * order), created with @mode. 0, or -1 with @err.
 */
int concat_files(const char *out, const char *a, const char *b, mode_t mode,
		 char *err, size_t errlen);

#endif
