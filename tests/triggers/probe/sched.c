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
#include <sys/resource.h>
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

/* CPU 0: woken through a pipe, a 1 ms burst: it preempts the main thread. */
static int kick[2];

static void *hog(void *arg)
{
	char c;

	(void)arg;
	if (pin_to_cpu(0) || set_comm("bpk-hog"))
		return "setup";
	while (read(kick[0], &c, 1) == 1 && c == 'k')
		spin_us(1000);
	return NULL;
}

/* Voluntary context switches of the calling thread so far. */
static long voluntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

/*
 * stale N: wait on a futex again and again, woken at once from CPU 1 (or by
 * its 2 ms timeout), until N of the waits returned without a voluntary
 * context switch: the wakeup came before the thread left CPU 0. Some of
 * those (not all: the waker may also have caught it before it was ready to
 * sleep) are sched_wakeups of a task still on its CPU, and nothing ends the
 * wait they start but the thread's next switch. After each, run for 500 ms,
 * then wake a hog on CPU 0 that preempts the thread for 1 ms. Every real
 * wait here is about 1 ms; a wait measured from such a wakeup to the next
 * time the thread gets the CPU counts its 500 ms run as waiting.
 */
int probe_stale(int argc, char **argv)
{
	pthread_t tw, th;
	void *ew = NULL, *eh = NULL;
	long n, on_cpu = 0, waits = 0, before;
	int rc, failed = 0;

	if (argc != 2 || parse_ms(argv[1], &n)) {
		fprintf(stderr, "usage: bpk-probe stale N\n");
		return 1;
	}
	if (pin_to_cpu(0) || pipe(kick)) {
		perror("bpk-probe stale: setup");
		return 1;
	}
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
	while (on_cpu < n && waits < 20000 && !failed) {
		/* A timeout makes the kernel arm an hrtimer between queueing
		 * the waiter and leaving the CPU: a wider window for a wakeup
		 * that finds it still running. Timing out is no failure.
		 */
		struct timespec to = { 0, 2000000 };

		before = voluntary_switches();
		atomic_store(&waiting, 1);
		rc = futex(&word, FUTEX_WAIT_PRIVATE, 0, &to);
		atomic_store(&waiting, 0);
		waits++;
		if (rc && errno != ETIMEDOUT) {
			perror("bpk-probe stale: futex wait");
			failed = 1;
		} else if (before >= 0 && voluntary_switches() == before) {
			on_cpu++;
			spin_us(500000);
			failed = write(kick[1], "k", 1) != 1;
		}
	}
	atomic_store(&stop, 1);
	/* anything but 'k' ends the hog */
	if (write(kick[1], "q", 1) != 1 || pthread_join(tw, &ew) ||
	    pthread_join(th, &eh) || ew || eh || failed) {
		fprintf(stderr, "bpk-probe stale: a thread failed\n");
		return 1;
	}
	if (on_cpu < n) {
		fprintf(stderr,
			"bpk-probe stale: only %ld of %ld waits woken before leaving the CPU, want %ld\n",
			on_cpu, waits, n);
		return 1;
	}
	printf("stale: %ld of %ld futex waits woken before leaving CPU 0 (%d from CPU 1), "
	       "each followed by a 500 ms run\n",
	       on_cpu, waits, atomic_load(&wakes));
	return 0;
}
