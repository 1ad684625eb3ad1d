// SPDX-License-Identifier: GPL-2.0
/*
 * The crash kernel's reservation of a kernel, measured by boots: the
 * smallest crashkernel= that still brings a verified dump back. A Debian
 * kernel keeps it (doubled, as its default) in its cache entry, so every
 * later run, campaign and clone on the machine uses it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "bpk.h"
#include "kernels.h"
#include "proc.h"

/* One run of the demo trigger on @spec with a reservation of @mib MiB, the
 * guest's own check off: did a verified dump come back?
 */
static bool dumps_with(const char *self, const char *spec, int mib,
		       const char *runs)
{
	char ck[32], el[32];
	const char *argv[] = {
		self, "--runs", runs, "run", "syscall_errno", "syscall=openat",
		"errno=ENOENT", "comm=bpk-demo", "--kernel", spec,
		"--crashkernel", ck, "--no-reservation-check", "--no-report",
		"--no-build", "--quiet",
		/* a capture kernel that dies takes the guest down at once;
		 * one that hangs must not hold the search up
		 */
		"--timeout", "120", NULL
	};
	int64_t t0 = now_ms();
	int rc;

	snprintf(ck, sizeof(ck), "%dM", mib);
	rc = proc_wait_quiet(argv);
	fprintf(stderr, "kernels: crashkernel=%dM: %s (%s)\n", mib,
		rc ? "no dump" : "dumped",
		fmt_ms(now_ms() - t0, el, sizeof(el)));
	return rc == 0;
}

/* Keep @mib (the smallest that dumped) in a Debian kernel's entry. */
static void keep(const struct kernel_info *k, int mib)
{
	char *script = debian_kernel_script(), num[16];
	const char *argv[] = { script, "crashkernel", k->dir, num, NULL };

	snprintf(num, sizeof(num), "%d", mib);
	if (proc_run_shown(argv))
		die("%s crashkernel %s %s failed", script, k->dir, num);
	free(script);
}

/*
 * Halving between a reservation that does not dump (32M: no capture
 * kernel fits) and one that does (512M, tried first), in steps of 16M.
 */
int kernel_measure(struct kernel_info *k)
{
	char self[4096], *runs, el[32];
	ssize_t sl;
	int lo = 32, hi = 512;
	int64_t t0 = now_ms();

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		die("/proc/self/exe: %s", strerror(errno));
	self[sl] = '\0';
	runs = xasprintf("%s/measure-%s", paths.runs, k->name);
	if (mkdir_p(runs, 0700))
		die("%s: %s", runs, strerror(errno));
	fprintf(stderr,
		"kernels: measuring %s's crash reservation: the smallest that dumps, between %dM and %dM (4-6 boots; runs in %s)\n",
		k->spec, lo, hi, runs);
	if (!dumps_with(self, k->spec, hi, runs))
		die("%s does not dump even with crashkernel=%dM: see the runs in %s",
		    k->spec, hi, runs);
	while (hi - lo > 16) {
		int mid = (lo + hi) / 2 / 16 * 16;

		if (dumps_with(self, k->spec, mid, runs))
			hi = mid;
		else
			lo = mid;
	}
	fprintf(stderr,
		"kernels: %s: the smallest reservation that dumps is %dM; its default: %dM (measured in %s)\n",
		k->spec, hi, 2 * hi, fmt_ms(now_ms() - t0, el, sizeof(el)));
	if (!strcmp(k->flavor, "debian")) {
		keep(k, hi);
		kernel_refresh(k);
	}
	free(runs);
	return hi;
}

void kernel_measure_unmeasured(struct kernel_info *k)
{
	char *entry, *lock;
	int fd;

	if (k->measured || strcmp(k->flavor, "debian"))
		return;
	entry = abs_path(k->dir);
	if (!entry)
		die("%s: %s (the kernel's cache entry)", k->dir,
		    strerror(errno));
	if (access(entry, W_OK)) {
		/* another user's cache: its owner measures it */
		fprintf(stderr,
			"kernels: %s: its crash reservation is not measured, and its cache entry %s is not ours to keep it in (%s): crashkernel=%s; its owner runs bpk kernels --measure %s\n",
			k->spec, entry, strerror(errno), k->default_crashkernel,
			k->spec);
		free(entry);
		return;
	}
	/* two runs of one new kernel measure it once */
	lock = path_join(entry, "measure.lock");
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("%s: %s", lock, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			die("%s: %s", lock, strerror(errno));
		fprintf(stderr,
			"kernels: %s: another bpk is measuring its crash reservation: waiting for it\n",
			k->spec);
		if (flock(fd, LOCK_EX))
			die("%s: %s", lock, strerror(errno));
	}
	kernel_refresh(k);
	if (!k->measured) {
		fprintf(stderr,
			"kernels: %s has no measured crash reservation: measuring it once, kept with the kernel (--crashkernel SIZE skips this)\n",
			k->spec);
		kernel_measure(k);
	}
	close(fd);
	free(lock);
	free(entry);
}
