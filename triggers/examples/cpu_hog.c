// SPDX-License-Identifier: GPL-2.0
/*
 * Provokes cpu_hog ms=500 comm=spinner: spins on the CPU for 3 seconds and
 * never blocks (clock_gettime() does not sleep), so it is not switched out
 * unless something preempts it. Renames itself spinner.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	volatile unsigned long spins = 0;
	double end;

	if (prctl(PR_SET_NAME, "spinner", 0, 0, 0)) {
		perror("spinner: prctl");
		return 1;
	}
	printf("spinner: spinning for 3 s\n");
	fflush(stdout);
	end = now() + 3;
	while (now() < end)
		spins++;
	printf("spinner: %lu spins\n", spins);
	return 0;
}
