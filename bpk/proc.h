/* SPDX-License-Identifier: GPL-2.0 */
/* Starting the programs bpk drives (QEMU, make, crash, python3, parallel)
 * without a shell in between: argv as given, file descriptors chosen.
 */
#ifndef BPK_PROC_H
#define BPK_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn {
	const char *const *argv;
	int in, out, err; /* -1: /dev/null */
	const int *keep; /* fds to pass on (close-on-exec cleared), -1 ended */
	bool new_group; /* its own process group: a terminal's Ctrl-C reaches
			 * bpk alone, which stops the child in order
			 */
	bool die_with_parent; /* SIGKILL when bpk dies (PR_SET_PDEATHSIG) */
	const char *cwd;
	/* run as this user, not as root (QEMU: see qemu.c) */
	bool drop;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[4];
};

/* Start it; its pid, or -1 with errno (a program that cannot be executed
 * shows as exit status 127).
 */
pid_t proc_spawn(const struct spawn *s);

/* Run @argv, its stdout discarded and its stderr shown (a script's
 * progress), and wait: its exit status as proc_wait, -1 if it could not be
 * started.
 */
int proc_run_shown(const char *const argv[]);

/* Wait for @pid: its exit status, 128+N when killed by signal N, -1 with
 * errno on a wait error.
 */
int proc_wait(pid_t pid);

/* Run @argv, its stdout into *@out and its stderr into *@err (either may be
 * NULL: discarded), both NUL-terminated; the exit status as proc_wait, -1 if
 * it could not be started.
 */
int proc_capture(const char *const argv[], char **out, char **err);

/* proc_capture, started in @cwd (NULL: this process's). */
int proc_capture_in(const char *const argv[], const char *cwd, char **out,
		    char **err);

/* The exit status @st of waitpid() as proc_wait returns it. */
int proc_status(int st);

#endif

/* Run @argv with no input or output and wait: its exit status. */
int proc_wait_quiet(const char *const argv[]);
