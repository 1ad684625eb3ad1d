// SPDX-License-Identifier: GPL-2.0
/* Which runs start warm, from the idle snapshot: see warm.h. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpk.h"
#include "hostfs.h"
#include "kernels.h"
#include "run.h"
#include "snapshot.h"
#include "warm.h"

char *warm_hostfs_why(const struct run_opts *o)
{
	if (o->host_fs == HOSTFS_OFF)
		return NULL;
	if (o->host_fs == HOSTFS_ON)
		return xstrdup("--host-fs on");
	if (o->command.n)
		return xstrdup("a command line given after --");
	if (o->shares.n || o->share_rw)
		return xstrdup("shares were given");
	return o->workload ? hostfs_needed(o->workload) : NULL;
}

char *warm_refusal(const struct run_opts *o, const struct kernel_info *k)
{
	(void)k;
	if (o->append)
		return xstrdup(
			"--append: words for the first kernel's command line at boot");
	if (o->capture_append)
		return xstrdup(
			"--capture-append: the crash kernel is loaded at boot, with its command line");
	if (o->kexec_checks)
		return xstrdup(
			"--kexec-checks: the crash kernel is loaded at boot");
	if (!o->reservation_check)
		return xstrdup(
			"--no-reservation-check: the idle snapshot is made with the check on");
	if (o->qemu_args.n)
		return xstrdup(
			"--qemu-arg: a restored QEMU must have the snapshot's devices");
	if (!o->crashkernel || strcmp(o->crashkernel, k->default_crashkernel))
		return xasprintf(
			"--crashkernel %s: the idle snapshot has the kernel's reservation, %s",
			o->crashkernel ? o->crashkernel : "none",
			k->default_crashkernel);
	return NULL;
}

void warm_choose(struct run_opts *o, const struct kernel_info *k)
{
	struct snapshot_req req = { 0 };
	char err[2048], *dir = NULL, *why;

	if (o->campaign || o->attempt || o->restore || o->cold_why)
		return;
	if (o->cold) {
		o->cold_why = xstrdup("--cold");
		return;
	}
	/* what the user asked for: said when verbose, kept in run.json */
	why = warm_refusal(o, k);
	if (why) {
		o->cold_why = why;
		if (o->display == DISPLAY_VERBOSE)
			p_info("booting cold: %s", why);
		return;
	}
	req.k = k;
	why = warm_hostfs_why(o);
	req.hostview = why != NULL;
	/* its --share and --share-rw: a snapshot of their own */
	req.shares = o;
	free(why);
	/* refused later, as bad input: nothing is made for it */
	if (req.hostview && k->no_hostfs) {
		o->cold_why = xasprintf(
			"the %s kernel cannot mount the host's file system",
			k->spec);
		return;
	}
	req.mem = o->mem;
	req.smp = o->smp;
	req.accel = o->accel;
	req.quiet = o->display == DISPLAY_QUIET;
	if (snapshot_get(&req, &dir, err, sizeof(err))) {
		static const struct {
			const char *name;
			int num;
		} sigs[] = { { "SIGINT", SIGINT },
			     { "SIGTERM", SIGTERM },
			     { "SIGHUP", SIGHUP } };

		/* stopped while making it: the user wants nothing booted */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			char said[64];

			snprintf(said, sizeof(said), "interrupted by %s",
				 sigs[i].name);
			if (!strcmp(err, said)) {
				p_err("%s while making the idle snapshot: nothing run",
				      sigs[i].name);
				exit(128 + sigs[i].num);
			}
		}
		o->cold_why = xasprintf("no idle snapshot: %s", err);
		p_err("booting cold: %s", o->cold_why);
		free(dir);
		return;
	}
	o->restore = dir;
	o->warm = true;
}
