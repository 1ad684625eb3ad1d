// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "probe.h"

int set_comm(const char *name)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
		fprintf(stderr, "bpk-probe: prctl(PR_SET_NAME, %s): %s\n", name,
			strerror(errno));
		return -1;
	}
	return 0;
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bpk-probe: sched_setaffinity(cpu %d): %s\n",
			cpu, strerror(errno));
		return -1;
	}
	return 0;
}

long long now_us(void)
{
	struct timespec ts;

	/* cannot fail with a valid clock and address */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void spin_us(long long us)
{
	long long end = now_us() + us;

	while (now_us() < end)
		;
}

int sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return -1;
	return 0;
}

int parse_ms(const char *text, long *ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 1 || v > 600000) {
		fprintf(stderr,
			"bpk-probe: '%s': not a duration in ms (1-600000)\n",
			text);
		return -1;
	}
	*ms = v;
	return 0;
}

int wait_child(int pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "bpk-probe: waitpid(%s): %s\n", what,
			strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bpk-probe: %s ended with status 0x%x\n", what,
			status);
		return -1;
	}
	return 0;
}

char proc_state(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold spaces, the last ')' ends it */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}
