/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sysctl a trigger sets while it is armed (hung_task:
 * kernel.hung_task_timeout_secs), and puts back when it is disarmed.
 */
#ifndef BPK_SYSCTL_H
#define BPK_SYSCTL_H

#include <stddef.h>

/* The pin, in the trigger's pin directory, holding the value to put back:
 * a one-element BPF array map, since bpffs holds nothing but BPF objects.
 */
#define SYSCTL_SAVED_PIN "sysctl-saved"
#define SYSCTL_VALUE_LEN 64

/*
 * Save @path's current value under @dir/SYSCTL_SAVED_PIN, then write @value
 * to it. 0, or -1 with a one-line reason in @err (nothing written then).
 */
int sysctl_save_and_set(const char *path, const char *value, const char *dir,
			char *err, size_t errlen);

/* The value saved under @dir, into @buf: 0, -ENOENT if none, or -errno. */
int sysctl_saved(const char *dir, char *buf, size_t len);

/* Write the value saved under @dir back to @path: 0 (also when nothing
 * was saved) or -errno. The pin stays; disarm removes it with the rest.
 */
int sysctl_restore(const char *path, const char *dir);

#endif
