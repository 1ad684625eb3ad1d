// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls whose return value the kernel changes, or that user space reads
 * differently from a naive "negative is an error": what syscall_errno must
 * match is what the program finally sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "probe.h"

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
}

/* SIGALRM after @ms, handled by on_alarm with @flags (SA_RESTART or 0). */
static int alarm_in(long ms, int flags)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	if (sigemptyset(&sa.sa_mask) || sigaction(SIGALRM, &sa, NULL) ||
	    setitimer(ITIMER_REAL, &it, NULL)) {
		fprintf(stderr, "bpk-probe: SIGALRM setup: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* read() of an empty pipe, interrupted by a handler without SA_RESTART:
 * the kernel's -ERESTARTSYS becomes the EINTR the program sees.
 */
int probe_eintr(int argc, char **argv)
{
	int p[2];
	char c;
	ssize_t n;

	(void)argc;
	(void)argv;
	if (set_comm("bpk-eintr") || pipe(p) || alarm_in(200, 0))
		return 1;
	n = read(p[0], &c, 1);
	if (n != -1 || errno != EINTR || handled != 1) {
		fprintf(stderr,
			"bpk-probe eintr: read returned %zd (%s), handler ran %d times\n",
			n, n < 0 ? strerror(errno) : "data", (int)handled);
		return 1;
	}
	printf("eintr: read() returned -1 errno=EINTR after the SIGALRM handler ran\n");
	return 0;
}

/* The same read(), but the handler has SA_RESTART: the kernel restarts the
 * syscall and the program sees no error at all; the read then gets the
 * byte a child writes later.
 */
int probe_restart(int argc, char **argv)
{
	int p[2], pid;
	char c = 'x';
	ssize_t n;

	(void)argc;
	(void)argv;
	if (set_comm("bpk-restart") || pipe(p))
		return 1;
	pid = fork();
	if (pid < 0) {
		perror("bpk-probe restart: fork");
		return 1;
	}
	if (!pid) {
		if (sleep_ms(700) || write(p[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	if (alarm_in(200, SA_RESTART))
		return 1;
	n = read(p[0], &c, 1);
	if (wait_child(pid, "the writer") || n != 1 || handled != 1) {
		fprintf(stderr,
			"bpk-probe restart: read returned %zd (%s), handler ran %d times\n",
			n, n < 0 ? strerror(errno) : "data", (int)handled);
		return 1;
	}
	printf("restart: read() returned 1 after a restart (SIGALRM handled %d time)\n",
	       (int)handled);
	return 0;
}

/* lseek() on /proc/self/mem (an unsigned-offset file) to an offset that is
 * negative as a signed number: a success whose return value is below
 * -4095, which libc, like the kernel's IS_ERR_VALUE, does not call an error.
 */
int probe_negret(int argc, char **argv)
{
	const off_t want = -1048576;
	off_t got;
	int fd;

	(void)argc;
	(void)argv;
	if (set_comm("bpk-negret"))
		return 1;
	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0) {
		perror("bpk-probe negret: /proc/self/mem");
		return 1;
	}
	errno = 0;
	got = lseek(fd, want, SEEK_SET);
	if (got != want || errno) {
		fprintf(stderr, "bpk-probe negret: lseek returned %lld (%s)\n",
			(long long)got, strerror(errno));
		return 1;
	}
	printf("negret: lseek() returned %lld, a success (errno 0)\n",
	       (long long)got);
	close(fd);
	return 0;
}
