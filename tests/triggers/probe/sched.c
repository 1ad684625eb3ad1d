// SPDX-License-Identifier: GPL-2.0
/*
 * Run-queue waits that involve no sleep: CPU-bound tasks preempted by each
 * other (runq_latency must measure them), and a task woken while it is
 * still on its CPU (its later run time must not count as waiting).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* spin NAME MS: two processes named NAME, pinned to CPU 0, burn CPU for MS
 * ms. They never sleep: every wait of theirs is a preemption by the other.
 * They take the name only once pinned, so that their fork and migration
 * wakeups are not counted under it.
 */
int probe_spin(int argc, char **argv)
{
	int pids[2], failed = 0;
	long ms;

	if (argc != 3 || strlen(argv[1]) > 15 || parse_ms(argv[2], &ms)) {
		fprintf(stderr, "usage: bpk-probe spin NAME MS\n");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("bpk-probe spin: fork");
			return 1;
		}
		if (!pids[i]) {
			if (pin_to_cpu(0) || set_comm(argv[1]))
				_exit(1);
			spin_us(ms * 1000);
			_exit(0);
		}
	}
	for (int i = 0; i < 2; i++)
		failed |= wait_child(pids[i], "a spinner");
	if (failed)
		return 1;
	printf("spin: two %s processes shared CPU 0 for %ld ms\n", argv[1], ms);
	return 0;
}

static atomic_int stop, waiting, wakes;
static int word;

static long futex(int *uaddr, int op, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

/* CPU 1: wake the main thread the instant it is queued on the futex, often
 * before it has left its CPU: a wakeup of a task that is still running.
 */
static void *waker(void *arg)
{
	(void)arg;
	if (pin_to_cpu(1) || set_comm("bpk-waker"))
		return "setup";
	while (!atomic_load(&stop)) {
		if (!atomic_load(&waiting))
			continue;
		if (futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL) == 1) {
			atomic_store(&waiting, 0);
			atomic_fetch_add(&wakes, 1);
		}
	}
	return NULL;
}

/* CPU 0: a short burst every 40 ms, preempting the main thread's run. */
static void *hog(void *arg)
{
	(void)arg;
	if (pin_to_cpu(0) || set_comm("bpk-hog"))
		return "setup";
	while (!atomic_load(&stop)) {
		if (sleep_ms(40))
			return "sleep";
		spin_us(1000);
	}
	return NULL;
}

/* stale N: N times, wait on a futex (woken at once from CPU 1), then run
 * for 100 ms on CPU 0, where a hog preempts it every 40 ms for 1 ms.
 * Every real wait is about 1 ms; a measurement that starts at a wakeup
 * that came while the task was still on its CPU, and is only closed when
 * the task next gets the CPU, would include up to 40 ms of its own run.
 */
int probe_stale(int argc, char **argv)
{
	pthread_t tw, th;
	void *ew = NULL, *eh = NULL;
	long n;
	int rc;

	if (argc != 2 || parse_ms(argv[1], &n)) {
		fprintf(stderr, "usage: bpk-probe stale ITERATIONS\n");
		return 1;
	}
	if (pin_to_cpu(0))
		return 1;
	rc = pthread_create(&tw, NULL, waker, NULL);
	if (!rc)
		rc = pthread_create(&th, NULL, hog, NULL);
	if (rc) {
		fprintf(stderr, "bpk-probe stale: pthread_create: %s\n",
			strerror(rc));
		return 1;
	}
	/* named after the threads exist: they are not this name */
	if (set_comm("bpk-stale"))
		return 1;
	for (long i = 0; i < n; i++) {
		atomic_store(&waiting, 1);
		/* A timeout makes the kernel arm an hrtimer between queueing
		 * the waiter and leaving the CPU: a wider window for a wakeup
		 * that finds it still running. Timing out is not a failure.
		 */
		struct timespec to = { 0, 2000000 };

		if (futex(&word, FUTEX_WAIT_PRIVATE, 0, &to) &&
		    errno != ETIMEDOUT && errno != EAGAIN) {
			perror("bpk-probe stale: futex wait");
			atomic_store(&stop, 1);
			break;
		}
		atomic_store(&waiting, 0);
		spin_us(100000);
	}
	atomic_store(&stop, 1);
	if (pthread_join(tw, &ew) || pthread_join(th, &eh) || ew || eh) {
		fprintf(stderr, "bpk-probe stale: a helper thread failed\n");
		return 1;
	}
	printf("stale: %ld futex waits, %d woken from CPU 1, 100 ms runs on CPU 0\n",
	       n, atomic_load(&wakes));
	return 0;
}
