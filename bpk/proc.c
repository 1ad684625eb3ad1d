// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpk.h"
#include "proc.h"

int proc_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

/* In the child, before exec: nothing here may allocate. */
static void child_setup(const struct spawn *s, pid_t parent)
{
	sigset_t none;
	int null = -1;

	/* bpk blocks the signals it takes through a signalfd: the child
	 * starts with the default mask and dispositions
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	if (s->new_group)
		setpgid(0, 0);
	/* the user first: a change of credentials clears the death signal */
	if (s->drop &&
	    (setgroups((size_t)s->ngroups, s->groups) ||
	     setresgid(s->gid, s->gid, s->gid) ||
	     setresuid(s->uid, s->uid, s->uid) || !getuid() || !geteuid()))
		_exit(126);
	if (s->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
	}
	if (s->in < 0 || s->out < 0 || s->err < 0)
		null = open("/dev/null", O_RDWR);
	if (dup2(s->in >= 0 ? s->in : null, 0) < 0 ||
	    dup2(s->out >= 0 ? s->out : null, 1) < 0 ||
	    dup2(s->err >= 0 ? s->err : null, 2) < 0)
		_exit(126);
	for (const int *k = s->keep; k && *k >= 0; k++) {
		int fl = fcntl(*k, F_GETFD);

		if (fl < 0 || fcntl(*k, F_SETFD, fl & ~FD_CLOEXEC) < 0)
			_exit(126);
	}
	if (s->cwd && chdir(s->cwd))
		_exit(126);
	execvp(s->argv[0], (char *const *)s->argv);
	_exit(127);
}

pid_t proc_spawn(const struct spawn *s)
{
	pid_t parent = getpid();
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child_setup(s, parent);
	if (s->new_group)
		setpgid(pid, pid); /* both sides: no race with a signal */
	return pid;
}

int proc_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return proc_status(st);
}

struct sink {
	int fd;
	char *buf;
	size_t len, cap;
	bool keep;
};

static void sink_read(struct sink *k)
{
	char tmp[8192];
	ssize_t n = read(k->fd, tmp, sizeof(tmp));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(k->fd);
		k->fd = -1;
		return;
	}
	if (!k->keep)
		return;
	if (k->len + (size_t)n + 1 > k->cap) {
		k->cap = (k->len + (size_t)n + 1) * 2;
		k->buf = xrealloc(k->buf, k->cap);
	}
	memcpy(k->buf + k->len, tmp, (size_t)n);
	k->len += (size_t)n;
	k->buf[k->len] = '\0';
}

int proc_capture(const char *const argv[], char **out, char **err)
{
	return proc_capture_in(argv, NULL, out, err);
}

int proc_capture_in(const char *const argv[], const char *cwd, char **out,
		    char **err)
{
	int po[2], pe[2];
	struct sink k[2];
	struct spawn s = { .argv = argv, .in = -1, .cwd = cwd };
	pid_t pid;
	int rc;

	if (pipe2(po, O_CLOEXEC))
		return -1;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	s.out = po[1];
	s.err = pe[1];
	pid = proc_spawn(&s);
	close(po[1]);
	close(pe[1]);
	k[0] = (struct sink){ .fd = po[0], .keep = out != NULL };
	k[1] = (struct sink){ .fd = pe[0], .keep = err != NULL };
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	while (k[0].fd >= 0 || k[1].fd >= 0) {
		struct pollfd p[2] = { { .fd = k[0].fd, .events = POLLIN },
				       { .fd = k[1].fd, .events = POLLIN } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++)
			if (k[i].fd >= 0 && p[i].revents)
				sink_read(&k[i]);
	}
	for (int i = 0; i < 2; i++)
		if (k[i].fd >= 0)
			close(k[i].fd);
	rc = proc_wait(pid);
	if (out)
		*out = k[0].buf ? k[0].buf : xstrdup("");
	if (err)
		*err = k[1].buf ? k[1].buf : xstrdup("");
	return rc;
}

int proc_wait_quiet(const char *const argv[])
{
	struct spawn s = { .argv = argv, .in = -1, .out = -1, .err = -1 };
	pid_t pid = proc_spawn(&s);

	return pid < 0 ? -1 : proc_wait(pid);
}

int proc_run_shown(const char *const argv[])
{
	struct spawn s = { .argv = argv, .in = -1, .out = -1, .err = 2 };
	pid_t pid = proc_spawn(&s);

	return pid < 0 ? -1 : proc_wait(pid);
}
