// SPDX-License-Identifier: GPL-2.0
/*
 * dirty: write distinct data over DIRTY_PERCENT of the guest's memory
 * (MemTotal), so that the dump has that much to save, then open a missing
 * file: the benchmark's trigger (syscall_errno openat ENOENT comm=dirty)
 * fires on it. Built with -DHOLD (dirty-hold) it says DIRTY-DONE and waits
 * instead, for the host to take a dump-guest-memory of the same state. A
 * workload runs without arguments: the share is fixed at build time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <fcntl.h>

static long mem_total_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long kib = -1;

	if (!f)
		return -1;
	if (fscanf(f, "MemTotal: %ld kB", &kib) != 1)
		kib = -1;
	fclose(f);
	return kib;
}

#ifndef DIRTY_PERCENT
#define DIRTY_PERCENT 25
#endif

int main(void)
{
	long total, want, pct = DIRTY_PERCENT;
	unsigned long *p, seed = 88172645463325252UL;

	if (prctl(PR_SET_NAME, "dirty", 0, 0, 0) ||
	    (total = mem_total_kib()) < 0) {
		perror("dirty: prctl or /proc/meminfo");
		return 1;
	}
	want = total / 100 * pct * 1024;
	p = malloc((size_t)want);
	if (!p) {
		fprintf(stderr, "dirty: cannot allocate %ld MiB\n", want >> 20);
		return 1;
	}
	/* xorshift: pages that neither compress to nothing nor repeat */
	for (long i = 0; i < want / (long)sizeof(*p); i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = seed;
	}
	printf("DIRTY-DONE %ld MiB of %ld MiB\n", want >> 20, total >> 10);
	fflush(stdout);
#ifdef HOLD
	for (;;)
		pause();
#endif
	/* the trigger: openat() -> ENOENT in a task named dirty */
	if (open("/bpk-bench/no-such-file", O_RDONLY) >= 0)
		return 1;
	sleep(5);
	fprintf(stderr, "dirty: still alive: the trigger did not fire\n");
	return 1;
}
