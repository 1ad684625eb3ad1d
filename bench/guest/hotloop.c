// SPDX-License-Identifier: GPL-2.0
/*
 * hotloop N: N getpgid(0) calls in a tight loop; prints the nanoseconds per
 * call. The hot path the trigger-cost benchmark arms programs on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	struct timespec a, b;

	if (n <= 0) {
		fprintf(stderr, "usage: hotloop ITERATIONS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
