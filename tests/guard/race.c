// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier looks a helper's proto up twice for each call: in
 * check_helper_call() and again in do_misc_fixups(), which does not expect
 * NULL. When bpf_panic()'s availability depended on the sysctl, a flip
 * between the two lookups oopsed the kernel (RIP: do_misc_fixups). Here one
 * process flips the sysctl as fast as it can while this one loads a
 * bpf_panic() program over and over: every load must end in one of the two
 * documented ways, loaded or -EPERM with the sysctl's log line, and the
 * kernel must not oops (the host checks the console).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "progs.h"
#include "race.h"
#include "result.h"
#include "sysctl.h"

#define SYSCTL_LOG \
	"bpf_panic#210 is disabled: kernel.destructive_bpf_enabled is 0"

struct flipper {
	volatile int stop;
	volatile unsigned long flips;
	volatile int err;
};

static void flip_until_stopped(struct flipper *f)
{
	while (!f->stop) {
		int err = sysctl_write(DESTRUCTIVE_SYSCTL, "1");

		/* an on-window a load (about 0.7 ms under TCG) can land in:
		 * writing 0 waits for grace periods (tens of ms), writing 1
		 * returns at once, so without it nearly every load meets 0
		 */
		if (!err)
			usleep(5000);
		if (!err)
			err = sysctl_write(DESTRUCTIVE_SYSCTL, "0");
		if (err) {
			f->err = err;
			return;
		}
		f->flips += 2;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int run_race(const char *loads_text)
{
	const struct prog_kind raw_tp = { "raw_tracepoint",
					  BPF_PROG_TYPE_RAW_TRACEPOINT, 0, NULL,
					  0 };
	unsigned long loads, loaded = 0, eperm = 0, other = 0;
	char log[4096], first_other[256] = "";
	struct flipper *f;
	int msg_fd, status;
	double t0, dt;
	char *end;
	pid_t pid;

	errno = 0;
	loads = strtoul(loads_text, &end, 10);
	if (errno || *end || loads < 1 || loads > 1000000) {
		fprintf(stderr,
			"guard race: '%s' is not a number of loads 1-1000000\n",
			loads_text);
		return 2;
	}
	msg_fd = msg_map_create("guard race");
	if (msg_fd < 0) {
		printf("RESULT FAIL race.setup: message map: %s\n",
		       strerror(-msg_fd));
		return 1;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED) {
		printf("RESULT FAIL race.setup: mmap: %s\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("RESULT FAIL race.setup: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		flip_until_stopped(f);
		_exit(0);
	}

	t0 = now_s();
	for (unsigned long i = 0; i < loads; i++) {
		int fd = load_panic_prog(&raw_tp, msg_fd, BPF_F_DESTRUCTIVE,
					 log, sizeof(log));

		if (fd >= 0) {
			loaded++;
			close(fd);
		} else if (fd == -EPERM && strstr(log, SYSCTL_LOG)) {
			eperm++;
		} else if (other++ == 0) {
			snprintf(first_other, sizeof(first_other),
				 "load %lu: %s, log: %.160s", i + 1,
				 strerror(-fd), log);
		}
	}
	dt = now_s() - t0;
	f->stop = 1;
	if (waitpid(pid, &status, 0) != pid)
		status = -1;

	result(other == 0 && loaded + eperm == loads,
	       "race.documented_outcomes",
	       "%lu loads in %.1fs: %lu loaded, %lu -EPERM with \"%s\", %lu other%s%s",
	       loads, dt, loaded, eperm, SYSCTL_LOG, other,
	       other ? "; first: " : "", first_other);
	/* Both outcomes seen: the flips really interleaved with the loads. */
	result(loaded > 0 && eperm > 0, "race.flips_interleaved",
	       "%lu flips of the sysctl during the loads; %lu loaded, %lu refused",
	       f->flips, loaded, eperm);
	result(!f->err && status == 0, "race.flipper_ok",
	       "flipper %s, exit status %d",
	       f->err ? strerror(-f->err) : "wrote every value", status);
	sysctl_write(DESTRUCTIVE_SYSCTL, "0");
	printf("RACE-DONE %lu\n", loads);
	return failures ? 1 : 0;
}
