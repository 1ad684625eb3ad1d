/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting calls of a kernel function with a kprobe event (tracefs under
 * debugfs, as the guest mounts it): how a check sees that a disarmed
 * crash_kexec kfunc call did not reach crash_kexec(), which returns
 * without a trace when no crash kernel is loaded.
 */
#ifndef GUARD_KPROBE_H
#define GUARD_KPROBE_H

/* Create and enable kprobe event @event on @func: 0 or -errno. */
int kprobe_count_start(const char *event, const char *func);
/* Its hits so far (kprobe_profile), or -errno (-ENOENT: no such event). */
long kprobe_count(const char *event);
/* Disable and remove it. */
void kprobe_count_stop(const char *event);

#endif
