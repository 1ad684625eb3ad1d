// SPDX-License-Identifier: GPL-2.0
/*
 * A task in D state (TASK_UNINTERRUPTIBLE) for a chosen time, for hung_task
 * tests that need it to end: LKDTM's HUNG_TASK never does.
 *
 * How: a splice from a pipe into a full unix socket waits for socket space
 * while it holds the pipe's mutex (splice_from_pipe); a write to that pipe
 * then waits on the mutex in mutex_lock(), uninterruptibly. Reading the
 * socket empty ends both waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe.h"

static int set_nonblock(int fd, int on)
{
	return fcntl(fd, F_SETFL, on ? O_NONBLOCK : 0);
}

/* Wait up to 3 s for process @pid to be in state @want. */
static int await_state(int pid, char want)
{
	for (int i = 0; i < 300; i++) {
		if (proc_state(pid) == want)
			return 0;
		if (sleep_ms(10))
			return -1;
	}
	fprintf(stderr, "bpk-probe dstate: pid %d is in state %c, not %c\n",
		pid, proc_state(pid) ?: '?', want);
	return -1;
}

int probe_dstate(int argc, char **argv)
{
	static char buf[65536];
	int sv[2], p[2], splicer, waiter, failed, one = 1;
	long ms;
	long long t0, held;

	if (argc != 2 || parse_ms(argv[1], &ms)) {
		fprintf(stderr, "usage: bpk-probe dstate MS\n");
		return 1;
	}
	/* SO_PASSCRED: skbs carry their sender's pid, so the splicer's pages
	 * cannot be appended to the filler's last skb and need new room
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p) ||
	    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    set_nonblock(sv[0], 1)) {
		perror("bpk-probe dstate: setup");
		return 1;
	}
	/* fill the socket: its sender has no room left */
	while (write(sv[0], buf, sizeof(buf)) > 0)
		;
	if (errno != EAGAIN || set_nonblock(sv[0], 0) ||
	    write(p[1], buf, 4096) != 4096) {
		perror("bpk-probe dstate: filling");
		return 1;
	}
	splicer = fork();
	if (!splicer) {
		/* blocks in the socket with the pipe's mutex held */
		_exit(set_comm("bpk-splicer") ||
		      splice(p[0], NULL, sv[0], NULL, 4096, 0) <= 0);
	}
	if (splicer < 0 || await_state(splicer, 'S'))
		return 1;
	waiter = fork();
	if (!waiter) {
		/* blocks on the pipe's mutex: D state */
		_exit(set_comm("bpk-dwait") || write(p[1], "x", 1) != 1);
	}
	if (waiter < 0 || await_state(waiter, 'D'))
		return 1;
	t0 = now_us();
	printf("dstate: bpk-dwait (pid %d) is in D state\n", waiter);
	fflush(stdout);
	if (sleep_ms(ms))
		return 1;
	if (proc_state(waiter) != 'D') {
		fprintf(stderr,
			"bpk-probe dstate: bpk-dwait left D state early\n");
		return 1;
	}
	/* make room in the socket: the splice, then the write, go on */
	if (set_nonblock(sv[1], 1))
		return 1;
	while (read(sv[1], buf, sizeof(buf)) > 0)
		;
	failed = wait_child(splicer, "the splicer");
	failed |= wait_child(waiter, "bpk-dwait");
	held = (now_us() - t0) / 1000;
	if (failed)
		return 1;
	printf("dstate: bpk-dwait was in D state for %lld ms, then went on\n",
	       held);
	return 0;
}
