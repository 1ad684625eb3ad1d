/* SPDX-License-Identifier: GPL-2.0 */
/* Reading and writing kernel.destructive_bpf_enabled. */
#ifndef GUARD_SYSCTL_H
#define GUARD_SYSCTL_H

#define DESTRUCTIVE_SYSCTL "/proc/sys/kernel/destructive_bpf_enabled"

/* Write @val (as text) to @path with one write(); returns 0 or -errno. */
int sysctl_write(const char *path, const char *val);
/* Read an integer from @path into @val; returns 0 or -errno. */
int sysctl_read(const char *path, int *val);

#endif
