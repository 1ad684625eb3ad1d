// SPDX-License-Identifier: GPL-2.0
/*
 * The fd is not the key: a destructive program loaded by a task with
 * CAP_SYS_BOOT can only be made to run (a test run, an attachment, a link,
 * a prog_array slot) by a task that has CAP_SYS_BOOT at that time, and a
 * tail call cannot lead into it from a program that is not destructive.
 *
 * Each check runs with kernel.destructive_bpf_enabled set to 0 after the
 * load: were a gate missing, the program would run and its bpf_panic()
 * return -EPERM (the switch was turned off since the load) instead of
 * panicking the guest, and the check sees "ran" where it wants EPERM.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>

#include "privs.h"
#include "progs.h"
#include "result.h"
#include "sysctl.h"
#include "usegate.h"

/* what a refused or accepted call says */
static const char *said(int err)
{
	return err ? strerror(-err) : "accepted";
}

static int test_run_err(int fd)
{
	int ret = 0, err = prog_test_run(fd, &ret);

	return err;
}

static int attach_err(int fd)
{
	int link = bpf_raw_tracepoint_open("sys_enter", fd);

	if (link >= 0) {
		close(link);
		return 0;
	}
	return -errno;
}

static int link_err(int fd)
{
	int link = bpf_link_create(fd, 0, BPF_TRACE_RAW_TP, NULL);

	if (link >= 0) {
		close(link);
		return 0;
	}
	return -errno;
}

static int slot_err(int map_fd, int fd)
{
	int zero = 0;

	return bpf_map_update_elem(map_fd, &zero, &fd, BPF_ANY) ? -errno : 0;
}

/* A child that inherited @fd drops CAP_SYS_BOOT and test-runs it: its exit
 * status is the errno it got (0: it ran).
 */
static int inherited_err(int fd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (cap_drop_effective(CAP_SYS_BOOT))
			_exit(255);
		_exit(-test_run_err(fd));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

void check_use_gates(int msg_fd, char *log, size_t log_size)
{
	int fd, map_fd, caller, err;

	if (sysctl_write(DESTRUCTIVE_SYSCTL, "1")) {
		result(0, "k.use_gates", "cannot enable the sysctl");
		return;
	}
	fd = load_panic_ret_prog(msg_fd, log, log_size);
	if (sysctl_write(DESTRUCTIVE_SYSCTL, "0") || fd < 0) {
		result(0, "k.use_gates",
		       "load -> %s, or the sysctl stuck at 1; log: %s",
		       fd < 0 ? strerror(-fd) : "loaded", log);
		if (fd >= 0)
			close(fd);
		return;
	}
	map_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "guard_slots",
				sizeof(int), sizeof(int), 1, NULL);
	if (map_fd < 0) {
		result(0, "k.use_gates", "prog_array: %s", strerror(errno));
		close(fd);
		return;
	}

	err = cap_drop_effective(CAP_SYS_BOOT);
	if (err) {
		result(0, "k.use_gates", "capset: %s", strerror(-err));
		goto out;
	}
	err = test_run_err(fd);
	result(err == -EPERM, "k.test_run_needs_cap_sys_boot",
	       "BPF_PROG_TEST_RUN without CAP_SYS_BOOT -> %s (want EPERM)",
	       err ? strerror(-err) : "ran");
	err = attach_err(fd);
	result(err == -EPERM, "k.attach_needs_cap_sys_boot",
	       "raw_tracepoint_open without CAP_SYS_BOOT -> %s (want EPERM)",
	       said(err));
	err = link_err(fd);
	result(err == -EPERM, "k.link_needs_cap_sys_boot",
	       "BPF_LINK_CREATE without CAP_SYS_BOOT -> %s (want EPERM)",
	       said(err));
	err = slot_err(map_fd, fd);
	result(err == -EPERM, "k.prog_array_needs_cap_sys_boot",
	       "prog_array update without CAP_SYS_BOOT -> %s (want EPERM)",
	       said(err));
	err = cap_raise_effective(CAP_SYS_BOOT);
	if (err) {
		fprintf(stderr, "guard: cannot raise CAP_SYS_BOOT again: %s\n",
			strerror(-err));
		goto out;
	}

	err = inherited_err(fd);
	result(err == -EPERM, "k.inherited_fd_needs_cap_sys_boot",
	       "a child with the inherited fd, without CAP_SYS_BOOT: test run -> %s (want EPERM)",
	       err ? strerror(-err) : "ran");

	/* with the capability the slot takes it; then a program that is not
	 * destructive may not tail-call through that map
	 */
	err = slot_err(map_fd, fd);
	result(!err, "k.prog_array_with_cap_sys_boot",
	       "prog_array update with CAP_SYS_BOOT -> %s", said(err));
	caller = load_tail_call_prog(map_fd, log, log_size);
	result(caller == -EINVAL, "k.tail_call_from_non_destructive_refused",
	       "a raw_tp program without the flag tail-calling a map that holds a destructive one -> %s (want EINVAL)",
	       caller >= 0 ? "loaded" : strerror(-caller));
	if (caller >= 0)
		close(caller);
out:
	close(map_fd);
	close(fd);
}
