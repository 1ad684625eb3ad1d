// SPDX-License-Identifier: GPL-2.0
/*
 * A slow syscall whose thread changes comm while it is inside: another
 * thread renames it through /proc/self/task/<tid>/comm. syscall_slow armed
 * with the old comm must not count it, since at the syscall's end the task
 * no longer passes the comm= filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

#define NEW_COMM "bpk-renamed"

static pid_t sleeper;

static void *renamer(void *arg)
{
	char path[64];
	FILE *f;
	int ok;

	(void)arg;
	if (sleep_ms(150))
		return "sleep";
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)sleeper);
	f = fopen(path, "w");
	if (!f)
		return "open";
	ok = fputs(NEW_COMM, f) >= 0;
	if (fclose(f) || !ok)
		return "write";
	return NULL;
}

int probe_rename(int argc, char **argv)
{
	char comm[32] = "";
	pthread_t t;
	void *err;
	FILE *f;
	int rc;

	(void)argc;
	(void)argv;
	if (set_comm("bpk-slow"))
		return 1;
	sleeper = gettid();
	rc = pthread_create(&t, NULL, renamer, NULL);
	if (rc) {
		fprintf(stderr, "bpk-probe rename: pthread_create: %s\n",
			strerror(rc));
		return 1;
	}
	if (sleep_ms(600))
		return 1;
	rc = pthread_join(t, &err);
	if (rc || err) {
		fprintf(stderr, "bpk-probe rename: renamer failed: %s\n",
			rc ? strerror(rc) : (char *)err);
		return 1;
	}
	f = fopen("/proc/thread-self/comm", "r");
	if (!f || !fgets(comm, sizeof(comm), f)) {
		fprintf(stderr, "bpk-probe rename: cannot read my comm\n");
		return 1;
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	if (strcmp(comm, NEW_COMM)) {
		fprintf(stderr, "bpk-probe rename: comm is %s, not %s\n", comm,
			NEW_COMM);
		return 1;
	}
	printf("rename: slept 600 ms as bpk-slow, renamed to %s during the sleep\n",
	       comm);
	return 0;
}
