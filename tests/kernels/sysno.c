// SPDX-License-Identifier: GPL-2.0
/*
 * bpk-sysno NR: call syscall NR once with arguments wrong on purpose (fd -1,
 * null pointers), and say what it returned. A kernel that has the syscall
 * refuses the arguments (EBADF, EINVAL, EFAULT); one that lacks it answers
 * ENOSYS: a behaviour that differs between kernel versions, for bpk matrix
 * and bpk bisect (cachestat is 451, from 6.5; mseal 462, from 6.10).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long nr, r;

	if (argc != 2) {
		fprintf(stderr, "usage: bpk-sysno NR\n");
		return 2;
	}
	nr = strtol(argv[1], &end, 10);
	if (*end || nr < 0 || nr > 1023) {
		fprintf(stderr, "bpk-sysno: '%s' is not a syscall number\n",
			argv[1]);
		return 2;
	}
	if (prctl(PR_SET_NAME, "bpk-sysno", 0, 0, 0)) {
		fprintf(stderr, "bpk-sysno: PR_SET_NAME: %s\n",
			strerror(errno));
		return 1;
	}
	r = syscall(nr, -1, 0, 0, 0, 0, 0);
	printf("bpk-sysno: syscall %ld returned %ld (%s)\n", nr, r,
	       r < 0 ? strerrorname_np(errno) : "no error");
	return 0;
}
