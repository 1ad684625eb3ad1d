/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Warm start: a plain bpk run restores the booted, idle guest of its
 * kernel (crash kernel loaded and checked, nothing armed: an unarmed
 * snapshot, snapshot.h) and sends it the run over the control port,
 * instead of booting: a quarter second under TCG where a boot takes four.
 * A run asking for something only a boot can give boots (run.json's
 * guest.cold_why says why, and -v); a run whose snapshot cannot be made
 * boots and says why on stderr. A restore that fails is followed by a
 * boot (run.c), said the same way.
 */
#ifndef BPK_WARM_H
#define BPK_WARM_H

struct run_opts;
struct kernel_info;

/* Why @o's workload runs in the host's user space over 9p (malloc'd), or
 * NULL: its idle snapshot is then the one with the host view.
 */
char *warm_hostfs_why(const struct run_opts *o);

/* Why @o cannot start from the idle snapshot (malloc'd), or NULL. */
char *warm_refusal(const struct run_opts *o, const struct kernel_info *k);

/* For a run that could start warm: the snapshot found or made, into
 * o->restore (o->warm set), or o->cold_why and a line saying why it
 * boots. A campaign's attempt, --restore given, and --cold are left as
 * they are.
 */
void warm_choose(struct run_opts *o, const struct kernel_info *k);

#endif
