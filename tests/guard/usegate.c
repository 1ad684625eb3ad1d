// SPDX-License-Identifier: GPL-2.0
/*
 * The fd is not the key: a destructive program loaded by a task with
 * CAP_SYS_BOOT can only be made to run (a test run, an attachment, a link,
 * a perf event, a prog_array slot) by a task that has CAP_SYS_BOOT at that
 * time, and a tail call cannot lead into it from a program that is not
 * destructive.
 *
 * Each check runs with kernel.destructive_bpf_enabled set to 0 and back to
 * 1 after the load: the switch is on, so only the capability can refuse,
 * and the program is disarmed (loaded in an earlier enabled period), so
 * were a gate missing the program would run and its bpf_panic() return
 * -EPERM instead of panicking the guest, and the check sees "ran" where
 * it wants EPERM.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>

#include "privs.h"
#include "progs.h"
#include "result.h"
#include "sysctl.h"
#include "usegate.h"

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

/* A perf event on a tracepoint that fires on every fork on CPU 0, for
 * PERF_EVENT_IOC_SET_BPF: the fd or -errno.
 */
#define FORK_TP_ID \
	"/sys/kernel/debug/tracing/events/sched/sched_process_fork/id"

static int fork_perf_event(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	char buf[32] = "";
	FILE *f = fopen(FORK_TP_ID, "r");
	int fd;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	attr.config = strtoull(buf, NULL, 10);
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int perf_ioctl_err(int perf_fd, int fd)
{
	return ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, fd) ? -errno : 0;
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
	const struct prog_kind tp = { .name = "tracepoint",
				      .type = BPF_PROG_TYPE_TRACEPOINT };
	int fd, tp_fd, perf_fd, map_fd, caller, err;

	if (sysctl_write(DESTRUCTIVE_SYSCTL, "1")) {
		result(0, "k.use_gates", "cannot enable the sysctl");
		return;
	}
	fd = load_panic_ret_prog(msg_fd, log, log_size);
	tp_fd = load_panic_prog(&tp, msg_fd, BPF_F_DESTRUCTIVE, log, log_size);
	if (sysctl_write(DESTRUCTIVE_SYSCTL, "0") ||
	    sysctl_write(DESTRUCTIVE_SYSCTL, "1") || fd < 0 || tp_fd < 0) {
		result(0, "k.use_gates",
		       "load raw_tp -> %s, tracepoint -> %s, or the sysctl not written 0 then 1; log: %s",
		       fd < 0 ? strerror(-fd) : "loaded",
		       tp_fd < 0 ? strerror(-tp_fd) : "loaded", log);
		if (fd >= 0)
			close(fd);
		if (tp_fd >= 0)
			close(tp_fd);
		return;
	}
	perf_fd = fork_perf_event();
	map_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "guard_slots",
				sizeof(int), sizeof(int), 1, NULL);
	if (map_fd < 0 || perf_fd < 0) {
		result(0, "k.use_gates", "prog_array: %s; perf event on %s: %s",
		       map_fd < 0 ? strerror(errno) : "made", FORK_TP_ID,
		       perf_fd < 0 ? strerror(-perf_fd) : "opened");
		goto out;
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
	err = perf_ioctl_err(perf_fd, tp_fd);
	result(err == -EPERM, "k.perf_ioctl_needs_cap_sys_boot",
	       "PERF_EVENT_IOC_SET_BPF of a tracepoint program without CAP_SYS_BOOT -> %s (want EPERM)",
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
	if (map_fd >= 0)
		close(map_fd);
	if (perf_fd >= 0)
		close(perf_fd);
	close(tp_fd);
	close(fd);
}
