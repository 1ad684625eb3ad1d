// SPDX-License-Identifier: GPL-2.0
/*
 * guard: the bpf_panic guard tests, run as root (all capabilities) inside
 * the appliance guest.
 *
 *   guard checks        run every check, one "RESULT PASS|FAIL id: ..." line
 *                       each, then "GUARD-DONE <n>"
 *   guard panic MSG     arm a raw_tracepoint/sys_enter program that calls
 *                       bpf_panic(MSG); the next syscall panics the guest
 *
 * Each check observes the kernel's answer itself: the errno of the load or
 * write, the verifier log line, the value read back.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kprobe.h"
#include "offwait.h"
#include "privs.h"
#include "progs.h"
#include "race.h"
#include "reach.h"
#include "result.h"
#include "sysctl.h"
#include "usegate.h"
#include "visible.h"

#define NOBODY 65534

static char vlog[VLOG_SIZE];
static int msg_fd = -1;

#define KIND(n, t, ...) \
	static const struct prog_kind n = { .name = #n, .type = t, __VA_ARGS__ }

KIND(fentry, BPF_PROG_TYPE_TRACING, .attach_type = BPF_TRACE_FENTRY,
     .attach_to = "dentry_open");
KIND(fexit, BPF_PROG_TYPE_TRACING, .attach_type = BPF_TRACE_FEXIT,
     .attach_to = "dentry_open");
KIND(tp_btf, BPF_PROG_TYPE_TRACING, .attach_type = BPF_TRACE_RAW_TP,
     .attach_to = "sys_enter");
KIND(kprobe, BPF_PROG_TYPE_KPROBE);
KIND(tracepoint, BPF_PROG_TYPE_TRACEPOINT);
KIND(raw_tracepoint, BPF_PROG_TYPE_RAW_TRACEPOINT);
KIND(perf_event, BPF_PROG_TYPE_PERF_EVENT);
KIND(socket_filter, BPF_PROG_TYPE_SOCKET_FILTER);
KIND(xdp, BPF_PROG_TYPE_XDP);
/* Outside bpf_panic()'s allow-list although they reach
 * bpf_tracing_func_proto(): syscall, iterator, fmod_ret and LSM programs.
 */
KIND(syscall_prog, BPF_PROG_TYPE_SYSCALL, .flags = BPF_F_SLEEPABLE);
KIND(iter, BPF_PROG_TYPE_TRACING, .attach_type = BPF_TRACE_ITER,
     .attach_to = "task");
KIND(fmod_ret, BPF_PROG_TYPE_TRACING, .attach_type = BPF_MODIFY_RETURN,
     .attach_to = "security_file_open");
KIND(lsm, BPF_PROG_TYPE_LSM, .attach_type = BPF_LSM_MAC,
     .attach_to = "file_open");

/* Put a capability back after a check dropped it: every later check needs
 * it, so failing here ends the run.
 */
static void cap_restore(int cap)
{
	int err = cap_raise_effective(cap);

	if (err) {
		fprintf(stderr, "guard: cannot raise capability %d again: %s\n",
			cap, strerror(-err));
		exit(2);
	}
}
static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int set_sysctl(const char *val)
{
	int err = sysctl_write(DESTRUCTIVE_SYSCTL, val);

	if (err)
		fprintf(stderr, "guard: cannot write %s to %s: %s\n", val,
			DESTRUCTIVE_SYSCTL, strerror(-err));
	return err;
}

/* Expect the load to fail with @want_err and the log to contain @want_log. */
static void expect_refused(const char *id, const struct prog_kind *kind,
			   unsigned int flags, int want_err,
			   const char *want_log)
{
	int fd = load_panic_prog(kind, msg_fd, flags, vlog, sizeof(vlog));
	const char *line = log_line(vlog, want_log);

	result(fd == want_err && *line, id,
	       "%s load -> %s (want %s), log: \"%s\"", kind->name,
	       fd >= 0 ? "loaded" : strerror(-fd), strerror(-want_err),
	       *line ? line : vlog);
	close_fd(fd);
}

static void expect_loaded(const char *id, const struct prog_kind *kind)
{
	int fd = load_panic_prog(kind, msg_fd, BPF_F_DESTRUCTIVE, vlog,
				 sizeof(vlog));

	result(fd >= 0, id,
	       "%s with BPF_F_DESTRUCTIVE, CAP_SYS_BOOT, sysctl=1 -> %s%s%s",
	       kind->name, fd >= 0 ? "loaded" : strerror(-fd),
	       fd >= 0 ? "" : ", log: ", fd >= 0 ? "" : vlog);
	close_fd(fd);
}

static void check_needs_flag(void)
{
	if (set_sysctl("1")) {
		result(0, "a.needs_flag", "cannot enable the sysctl");
		return;
	}
	expect_refused("a.needs_flag", &fentry, 0, -EACCES,
		       "require BPF_F_DESTRUCTIVE");
}

static void check_loads(void)
{
	const struct prog_kind *kinds[] = { &fentry,	 &fexit,
					    &tp_btf,	 &kprobe,
					    &tracepoint, &raw_tracepoint,
					    &perf_event };
	char id[64];

	if (set_sysctl("1")) {
		result(0, "b.loads", "cannot enable the sysctl");
		return;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(id, sizeof(id), "b.loads.%s", kinds[i]->name);
		expect_loaded(id, kinds[i]);
	}
}

/* Lines of the kernel log that say a destructive program was loaded */
static int load_warnings(void)
{
	static char klog[256 * 1024];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);
	int count = 0;

	if (n < 0)
		return -1;
	klog[n] = '\0';
	for (char *p = klog;
	     (p = strstr(p, "with BPF_F_DESTRUCTIVE: it may panic")); p++)
		count++;
	return count;
}

/* The flag is refused before the verifier runs to a task without
 * CAP_SYS_BOOT, and leaves no "who armed it" line behind.
 */
static void check_needs_cap_sys_boot(void)
{
	int err, fd, before, after;

	if (set_sysctl("1")) {
		result(0, "c.needs_cap_sys_boot", "cannot enable the sysctl");
		return;
	}
	err = cap_drop_effective(CAP_SYS_BOOT);
	if (err) {
		result(0, "c.needs_cap_sys_boot", "capset: %s", strerror(-err));
		return;
	}
	before = load_warnings();
	fd = load_panic_prog(&fentry, msg_fd, BPF_F_DESTRUCTIVE, vlog,
			     sizeof(vlog));
	after = load_warnings();
	cap_restore(CAP_SYS_BOOT);
	result(fd == -EPERM && !vlog[0], "c.needs_cap_sys_boot",
	       "BPF_F_DESTRUCTIVE without CAP_SYS_BOOT -> %s (want EPERM), verifier log %s",
	       fd >= 0 ? "loaded" : strerror(-fd),
	       vlog[0] ? vlog : "empty (refused before the verifier)");
	close_fd(fd);
	result(before >= 0 && after == before,
	       "c.refused_load_leaves_no_warning",
	       "load warnings in the kernel log: %d before, %d after", before,
	       after);
}

static void check_needs_sysctl(void)
{
	if (set_sysctl("0")) {
		result(0, "d.needs_sysctl", "cannot disable the sysctl");
		return;
	}
	expect_refused(
		"d.needs_sysctl", &fentry, BPF_F_DESTRUCTIVE, -EPERM,
		"bpf_panic#210 is disabled: kernel.destructive_bpf_enabled is 0");
}

static void check_sysctl_write_needs_cap(void)
{
	const char *id = "e.sysctl_write_needs_cap_sys_admin";
	int err, werr, val = -1;

	if (set_sysctl("0")) {
		result(0, id, "cannot reset the sysctl");
		return;
	}
	err = cap_drop_effective(CAP_SYS_ADMIN);
	if (err) {
		result(0, id, "capset: %s", strerror(-err));
		return;
	}
	werr = sysctl_write(DESTRUCTIVE_SYSCTL, "1");
	cap_restore(CAP_SYS_ADMIN);
	err = sysctl_read(DESTRUCTIVE_SYSCTL, &val);
	result(werr == -EPERM && !err && val == 0, id,
	       "write 1 without CAP_SYS_ADMIN -> %s (want EPERM), value now %d (want 0)",
	       werr ? strerror(-werr) : "accepted", val);
}

static void check_sysctl_range(const char *id, const char *bad)
{
	int werr, err, val = -1;

	if (set_sysctl("1")) {
		result(0, id, "cannot set the sysctl");
		return;
	}
	werr = sysctl_write(DESTRUCTIVE_SYSCTL, bad);
	err = sysctl_read(DESTRUCTIVE_SYSCTL, &val);
	result(werr == -EINVAL && !err && val == 1, id,
	       "write %s -> %s (want EINVAL), value now %d (want 1)", bad,
	       werr ? strerror(-werr) : "accepted", val);
}

/* Read the sysctl as uid/gid nobody with no capabilities, in a child. */
static void check_sysctl_read_by_anyone(void)
{
	const char *id = "e.sysctl_read_by_anyone";
	int status, val = -1, want = -1;
	pid_t pid;

	if (set_sysctl("1") || sysctl_read(DESTRUCTIVE_SYSCTL, &want)) {
		result(0, id, "cannot set the sysctl");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		result(0, id, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY) || getuid() != NOBODY)
			_exit(100);
		if (sysctl_read(DESTRUCTIVE_SYSCTL, &val))
			_exit(101);
		_exit(val);
	}
	if (waitpid(pid, &status, 0) != pid) {
		result(0, id, "waitpid: %s", strerror(errno));
		return;
	}
	val = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	result(val == want, id, "uid %d read -> %s%d (want %d)", NOBODY,
	       val == 100 ? "setuid failed, " :
	       val == 101 ? "read failed, " :
			    "",
	       val, want);
}

/* Outside the allow-list bpf_panic() is not offered (an unknown helper),
 * and the flag itself is refused as an unknown flag, as before it existed:
 * later kernels give bit 6 another meaning for XDP.
 */
static void check_other_prog_types(void)
{
	const struct prog_kind *kinds[] = { &socket_filter, &xdp,
					    &syscall_prog,  &iter,
					    &fmod_ret,	    &lsm };
	char id[64];
	int fd, before, after;

	if (set_sysctl("1")) {
		result(0, "f.refused", "cannot enable the sysctl");
		return;
	}
	before = load_warnings();
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(id, sizeof(id), "f.no_helper.%s", kinds[i]->name);
		expect_refused(id, kinds[i], 0, -EINVAL,
			       "unknown func bpf_panic");
		fd = load_plain_prog(kinds[i], BPF_F_DESTRUCTIVE, vlog,
				     sizeof(vlog));
		snprintf(id, sizeof(id), "f.flag_refused.%s", kinds[i]->name);
		result(fd == -EINVAL, id,
		       "%s \"r0 = 0; exit\" with BPF_F_DESTRUCTIVE -> %s (want EINVAL)",
		       kinds[i]->name, fd >= 0 ? "loaded" : strerror(-fd));
		close_fd(fd);
	}
	after = load_warnings();
	result(before >= 0 && after == before,
	       "f.flag_refused_leaves_no_warning",
	       "load warnings in the kernel log: %d before the refused loads, %d after",
	       before, after);
}

static int load_panic_ret(void)
{
	return load_panic_ret_prog(msg_fd, vlog, sizeof(vlog));
}

static int load_crash_kexec(void)
{
	return load_crash_kexec_prog(vlog, sizeof(vlog));
}

/*
 * A program loaded with @load while the sysctl is 1, then each value of
 * @then written to it: the fd, or -1 after a FAIL result for @id.
 */
static int load_armed_then(const char *id, int (*load)(void),
			   const char *const *then)
{
	int fd;

	if (set_sysctl("1")) {
		result(0, id, "cannot enable the sysctl");
		return -1;
	}
	fd = load();
	if (fd < 0) {
		result(0, id, "load with sysctl=1 -> %s, log: %s",
		       strerror(-fd), vlog);
		return -1;
	}
	for (; *then; then++) {
		if (set_sysctl(*then)) {
			result(0, id, "cannot write %s to the sysctl", *then);
			close(fd);
			return -1;
		}
	}
	return fd;
}

/*
 * The switch disarms: while the sysctl is 0 nothing makes a program loaded
 * at 1 run, even for a caller with CAP_SYS_BOOT: BPF_PROG_TEST_RUN and an
 * attachment are refused. Were the switch not checked there, the test run
 * would reach bpf_panic(), whose own check returns -EPERM: "ran" instead
 * of EPERM, no panic.
 */
static void check_disarm(void)
{
	const char *id = "j.disarm_refuses_test_run";
	/* never run it with the sysctl at 1: that would panic the guest */
	const char *const off[] = { "0", NULL };
	int fd, err, link, ret = 0;

	fd = load_armed_then(id, load_panic_ret, off);
	if (fd < 0)
		return;
	err = prog_test_run(fd, &ret);
	result(err == -EPERM, id,
	       "loaded at sysctl=1, test run at sysctl=0 -> %s (want EPERM)",
	       err ? strerror(-err) : "ran");
	link = bpf_raw_tracepoint_open("sys_enter", fd);
	result(link == -EPERM, "j.disarm_refuses_attach",
	       "loaded at sysctl=1, attached at sysctl=0 -> %s (want EPERM)",
	       link >= 0 ? "attached" : strerror(-link));
	if (link >= 0)
		close(link);
	close(fd);
}

static void check_crash_kexec_kfunc(void)
{
	int fd, err;

	if (set_sysctl("1")) {
		result(0, "g.crash_kexec", "cannot set the sysctl");
		return;
	}
	err = cap_drop_effective(CAP_SYS_BOOT);
	if (err) {
		result(0, "g.crash_kexec", "capset: %s", strerror(-err));
		return;
	}
	fd = load_crash_kexec_prog(vlog, sizeof(vlog));
	cap_restore(CAP_SYS_BOOT);
	result(fd == -EACCES && *log_line(vlog, "require CAP_SYS_BOOT"),
	       "g.crash_kexec_needs_cap_sys_boot",
	       "kfunc load without CAP_SYS_BOOT -> %s (want EACCES), log: \"%s\"",
	       fd >= 0 ? "loaded" : strerror(-fd),
	       *log_line(vlog, "CAP_SYS_BOOT") ?
		       log_line(vlog, "CAP_SYS_BOOT") :
		       vlog);
	close_fd(fd);

	/* With the capability and the switch on it loads, destructive for
	 * whoever makes it run
	 */
	fd = load_crash_kexec_prog(vlog, sizeof(vlog));
	result(fd >= 0 && !strcmp(fdinfo_value(fd, "destructive"), "1"),
	       "g.crash_kexec_loads_destructive",
	       "kfunc load with CAP_SYS_BOOT, sysctl=1 -> %s, fdinfo destructive: %s",
	       fd >= 0 ? "loaded" : strerror(-fd),
	       fd >= 0 ? fdinfo_value(fd, "destructive") : vlog);
	close_fd(fd);

	/* One switch: off, the kfunc does not load either (upstream gates
	 * it by CAP_SYS_BOOT alone)
	 */
	if (set_sysctl("0")) {
		result(0, "g.crash_kexec", "cannot reset the sysctl");
		return;
	}
	fd = load_crash_kexec_prog(vlog, sizeof(vlog));
	result(fd == -EPERM &&
		       *log_line(
			       vlog,
			       "destructive kfunc crash_kexec is disabled: kernel.destructive_bpf_enabled is 0"),
	       "g.crash_kexec_refused_switch_off",
	       "kfunc load with CAP_SYS_BOOT, sysctl=0 -> %s (want EPERM), log: \"%s\"",
	       fd >= 0 ? "loaded" : strerror(-fd),
	       *log_line(vlog, "crash_kexec") ? log_line(vlog, "crash_kexec") :
						vlog);
	close_fd(fd);
}

/* Off means off: a program loaded, the switch turned off and on again,
 * stays disarmed; only a reload arms. Were the generation not compared,
 * the test run would panic the guest: the check's missing result and the
 * panic on the console are the failure then.
 */
static void check_rearm_needs_reload(void)
{
	const char *id = "j.rearm_needs_reload";
	const char *const off_on[] = { "0", "1", NULL };
	int fd, err, ret = 0;

	fd = load_armed_then(id, load_panic_ret, off_on);
	if (fd < 0)
		return;
	printf("guard: loaded at 1, switched 0 then 1: test-running it\n");
	fflush(stdout);
	err = prog_test_run(fd, &ret);
	result(!err && ret == -EPERM, id,
	       "loaded at 1, switched 0 then 1, run -> %s, bpf_panic() returned %d (want %d, -EPERM)",
	       err ? strerror(-err) : "ran", ret, -EPERM);
	close(fd);
	set_sysctl("0");
}

#define KPROBE_EVENT "guard_crash_kexec"

/*
 * A crash_kexec kfunc program loaded with @then written to the sysctl
 * after the load, attached to sys_enter for a few syscalls: how many
 * times they reached crash_kexec() (a kprobe event counts them; the guard
 * guest has no crash kernel loaded, so crash_kexec() returns), or -1
 * after a FAIL result for @id.
 */
static long kfunc_reaches_crash_kexec(const char *id, const char *const *then)
{
	long before, after;
	int fd, link, err;

	err = kprobe_count_start(KPROBE_EVENT, "crash_kexec");
	if (err) {
		result(0, id, "kprobe event on crash_kexec: %s",
		       strerror(-err));
		return -1;
	}
	fd = load_armed_then(id, load_crash_kexec, then);
	if (fd < 0) {
		kprobe_count_stop(KPROBE_EVENT);
		return -1;
	}
	before = kprobe_count(KPROBE_EVENT);
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		result(0, id, "attach to sys_enter -> %s", strerror(errno));
		close(fd);
		kprobe_count_stop(KPROBE_EVENT);
		return -1;
	}
	/* syscalls, each a call of the kfunc */
	getppid();
	getpid();
	close(link);
	close(fd);
	after = kprobe_count(KPROBE_EVENT);
	kprobe_count_stop(KPROBE_EVENT);
	set_sysctl("0");
	if (before < 0 || after < 0) {
		result(0, id, "kprobe_profile: %s",
		       strerror((int)-(before < 0 ? before : after)));
		return -1;
	}
	return after - before;
}

/* The same for the crash_kexec kfunc: loaded at 1, switched 0 then 1,
 * attached; the next syscalls call it and must not reach crash_kexec().
 * With a crash kernel loaded a regression would kexec the guest; here
 * the count shows it.
 */
static void check_kfunc_rearm_needs_reload(void)
{
	const char *id = "j.kfunc_rearm_needs_reload";
	const char *const off_on[] = { "0", "1", NULL };
	long calls = kfunc_reaches_crash_kexec(id, off_on);

	if (calls >= 0)
		result(calls == 0, id,
		       "loaded at 1, switched 0 then 1, attached: %ld calls reached crash_kexec() (want 0)",
		       calls);
}

/* ... and the count is real: armed, the same program reaches it */
static void check_kfunc_armed_reaches_crash_kexec(void)
{
	const char *id = "j.kfunc_armed_reaches_crash_kexec";
	const char *const stay_on[] = { NULL };
	long calls = kfunc_reaches_crash_kexec(id, stay_on);

	if (calls >= 0)
		result(calls > 0, id,
		       "loaded at 1 and left on, attached: %ld calls reached crash_kexec() (want some)",
		       calls);
}

static int run_checks(void)
{
	int orig = 0;

	if (sysctl_read(DESTRUCTIVE_SYSCTL, &orig)) {
		printf("RESULT FAIL sysctl_exists: cannot read %s: %s\n",
		       DESTRUCTIVE_SYSCTL, strerror(errno));
		return 1;
	}
	result(orig == 0, "sysctl_default_off", "boot value %d (want 0)", orig);

	msg_fd = msg_map_create("guard test");
	if (msg_fd < 0) {
		printf("RESULT FAIL msg_map: %s\n", strerror(-msg_fd));
		return 1;
	}
	/* first destructive loads of the boot: the load warning is rate
	 * limited, later loads may not log it
	 */
	check_visible(msg_fd, vlog, sizeof(vlog));
	check_needs_flag();
	check_loads();
	check_needs_cap_sys_boot();
	check_needs_sysctl();
	check_sysctl_write_needs_cap();
	check_sysctl_range("e.sysctl_rejects_2", "2");
	check_sysctl_range("e.sysctl_rejects_minus_1", "-1");
	check_sysctl_read_by_anyone();
	check_other_prog_types();
	check_crash_kexec_kfunc();
	check_use_gates(msg_fd, vlog, sizeof(vlog));
	set_sysctl("1");
	check_reach(msg_fd, vlog, sizeof(vlog));
	check_off_waits(vlog, sizeof(vlog));
	check_disarm();
	/* last: they would panic or kexec the guest were the guard missing */
	check_rearm_needs_reload();
	check_kfunc_rearm_needs_reload();
	check_kfunc_armed_reaches_crash_kexec();
	close(msg_fd);
	set_sysctl("0");
	printf("GUARD-DONE %d\n", checks_run);
	return failures ? 1 : 0;
}

/* Arm bpf_panic(msg) on every syscall entry, then make one. */
static int run_panic(const char *msg)
{
	int fd, link;

	if (set_sysctl("1"))
		return 1;
	msg_fd = msg_map_create(msg);
	if (msg_fd < 0) {
		fprintf(stderr, "guard: message map: %s\n", strerror(-msg_fd));
		return 1;
	}
	fd = load_panic_prog(&raw_tracepoint, msg_fd, BPF_F_DESTRUCTIVE, vlog,
			     sizeof(vlog));
	if (fd < 0) {
		fprintf(stderr, "guard: load: %s\n%s\n", strerror(-fd), vlog);
		return 1;
	}
	printf("guard: arming bpf_panic on sys_enter\n");
	fflush(stdout);
	link = bpf_raw_tracepoint_open("sys_enter", fd);
	/* Only reached if the panic did not happen. */
	fprintf(stderr, "guard: still alive after arming (attach: %s)\n",
		link < 0 ? strerror(errno) : "ok");
	sleep(1);
	fprintf(stderr, "guard: no panic happened\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "checks"))
		return run_checks();
	if (argc == 3 && !strcmp(argv[1], "panic"))
		return run_panic(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "race"))
		return run_race(argv[2]);
	fprintf(stderr,
		"usage: guard checks | guard panic MESSAGE | guard race LOADS\n");
	return 2;
}
