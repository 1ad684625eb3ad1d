// SPDX-License-Identifier: GPL-2.0
/* A guest under supervision: see supervise.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "livedump.h"
#include "proc.h"
#include "protocol.h"
#include "qemu.h"
#include "supervise.h"

/* SIGTERM first, SIGKILL when QEMU is still there after this */
#define GRACE_MS 5000
/* after QEMU's exit, what is still in the sockets is read for this long */
#define DRAIN_MS 5000
/* a capture kernel silent this long after the first kernel went down is
 * taken for dead (under TCG Debian's prints its first line within 20 s,
 * and then never pauses that long); one that panicked, after the rest of
 * its report
 */
#define CAPTURE_SILENCE_MS 90000
#define CAPTURE_PANIC_MS 2000
/* --dump host: how often QEMU's state is asked after the guest went down,
 * and how long a panic may take to reach pvpanic (its report printed on a
 * 115200-baud console first) before the host dumps the guest as it is
 */
#define PVPANIC_POLL_MS 50
#define PVPANIC_WAIT_MS 30000
/* ... and, from "armed" on, before any sign: a panic in NMI context
 * prints its console lines only after its notifiers, pvpanic's among
 * them, so QEMU may pause a guest whose console said nothing yet
 */
#define PVPANIC_IDLE_MS 250

enum tag {
	TAG_STREAM = 0, /* + enum stream_id */
	TAG_CONTROL = 16,
	TAG_ERR,
	TAG_SIG,
	TAG_PID,
	TAG_DEADLINE,
	TAG_TICK,
	TAG_GRACE,
	TAG_STALL,
	TAG_CAPTURE,
	TAG_LIVE,
};

static const char *const stream_file[S_NSTREAMS] = {
	[S_CONSOLE] = "console.log", [S_RESULTS] = "results.txt",
	[S_DMESG] = "dmesg.txt",     [S_DUMP] = "dump.flat",
	[S_STATUS] = "status.txt",   [S_WORKLOAD] = "workload.txt",
};

static const char *const stage_names[] = {
	"prepare", "boot",    "arm",	"fire", "capture",
	"dump",	   "collect", "report", "done",
};

const char *stream_name(int i)
{
	return i >= 0 && i < S_NSTREAMS ? stream_file[i] : "?";
}

const char *stage_name(enum stage s)
{
	return stage_names[s];
}

static void set_stage(struct guest *g, enum stage s, const char *detail)
{
	if (s < g->stage)
		return;
	g->stage = s;
	if (g->hooks.stage)
		g->hooks.stage(g, s, detail);
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int guest_prepare(struct guest *g)
{
	int sv[2];

	g->epfd = g->sigfd = g->pidfd = g->deadline_fd = g->tick_fd = -1;
	g->grace_fd = g->err_fd = g->err_out = -1;
	g->stall_fd = g->capture_fd = g->live_fd = -1;
	g->control_fd = g->qmp_fd = -1;
	g->qemu_control_fd = g->qemu_qmp_fd = -1;
	g->keep_extra = -1;
	g->n_pass = 0;
	g->pid = -1;
	g->stage = STAGE_PREPARE;
	guestlog_init(&g->progress);
	for (int i = 0; i < S_NSTREAMS; i++) {
		char *path = path_join(g->staging, stream_file[i]);

		g->fd[i] = g->qemu_fd[i] = g->out[i] = -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			p_err("socketpair: %s", strerror(errno));
			free(path);
			return -1;
		}
		g->fd[i] = sv[0];
		g->qemu_fd[i] = sv[1];
		nonblock(g->fd[i]);
		/* what the guest sent is evidence, and may be memory: its
		 * owner alone reads it
		 */
		g->out[i] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				 0600);
		if (g->out[i] < 0) {
			p_err("%s: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	for (int i = 0; i < 2; i++)
		g->line[i] = xmalloc(GUESTLOG_LINE_MAX + 1);
	if (g->control) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			p_err("socketpair: %s", strerror(errno));
			return -1;
		}
		g->control_fd = sv[0];
		g->qemu_control_fd = sv[1];
		nonblock(g->control_fd);
	}
	if (g->qmp) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			p_err("socketpair: %s", strerror(errno));
			return -1;
		}
		g->qmp_fd = sv[0];
		g->qemu_qmp_fd = sv[1];
	}
	return 0;
}

static int add_fd(struct guest *g, int fd, uint32_t events, uint32_t tag)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		p_err("epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int timer_fd(int64_t first_ms, int64_t every_ms)
{
	struct itimerspec its = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -1;
	its.it_value.tv_sec = first_ms / 1000;
	its.it_value.tv_nsec = (first_ms % 1000) * 1000000;
	its.it_interval.tv_sec = every_ms / 1000;
	its.it_interval.tv_nsec = (every_ms % 1000) * 1000000;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Arm a one-shot timer @ms from now; 0 disarms it. */
static void rearm(int fd, int64_t ms)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000;
	timerfd_settime(fd, 0, &its, NULL);
}

int guest_start(struct guest *g)
{
	int keep[S_NSTREAMS + 3], keep_all[S_NSTREAMS + 4 + 16], nk = 0, na;
	int ep[2];
	const struct qemu_user *u = qemu_user();
	struct spawn s = { 0 };
	sigset_t mask;
	char *qlog;

	for (int i = 0; i < S_NSTREAMS; i++)
		keep[nk++] = g->qemu_fd[i];
	if (g->qemu_control_fd >= 0)
		keep[nk++] = g->qemu_control_fd;
	if (g->qemu_qmp_fd >= 0)
		keep[nk++] = g->qemu_qmp_fd;
	keep[nk] = -1;
	/* what QEMU inherits: its ends of the sockets, then the state file
	 * and the files passed by fd
	 */
	memcpy(keep_all, keep, sizeof(keep));
	na = nk;
	if (g->keep_extra >= 0)
		keep_all[na++] = g->keep_extra;
	for (int i = 0; i < g->n_pass; i++)
		keep_all[na++] = g->pass_fd[i];
	keep_all[na] = -1;
	if (pipe2(ep, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	g->err_fd = ep[0];
	nonblock(g->err_fd);
	qlog = path_join(g->staging, "qemu.log");
	g->err_out = open(qlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	free(qlog);

	/* the signals the loop takes: through the signalfd only, from now */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL)) {
		p_err("sigprocmask: %s", strerror(errno));
		return -1;
	}
	g->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g->sigfd < 0 || g->epfd < 0) {
		p_err("signalfd/epoll: %s", strerror(errno));
		return -1;
	}

	s.argv = (const char *const *)strv_argv(&g->qemu_argv);
	s.in = -1;
	s.out = -1;
	s.err = ep[1];
	s.keep = keep_all;
	s.new_group = true;
	s.die_with_parent = true;
	if (u->drop) {
		s.drop = true;
		s.uid = u->uid;
		s.gid = u->gid;
		s.groups[s.ngroups++] = u->gid;
		if (g->kvm && u->kvm_gid != (gid_t)-1)
			s.groups[s.ngroups++] = u->kvm_gid;
	}
	g->started_ms = now_ms();
	g->pid = proc_spawn(&s);
	close(ep[1]);
	for (int i = 0; i < nk; i++)
		close(keep[i]);
	for (int i = 0; i < S_NSTREAMS; i++)
		g->qemu_fd[i] = -1;
	g->qemu_control_fd = g->qemu_qmp_fd = -1;
	if (g->pid < 0) {
		p_err("cannot start %s: %s", s.argv[0], strerror(errno));
		return -1;
	}
	g->pidfd = pidfd_open(g->pid, 0);
	if (g->pidfd < 0) {
		p_err("pidfd_open: %s", strerror(errno));
		kill(g->pid, SIGKILL);
		proc_wait(g->pid);
		g->pid = -1;
		return -1;
	}
	g->deadline_fd = timer_fd((int64_t)g->timeout_s * 1000, 0);
	g->grace_fd = timer_fd(0, 0);
	if (g->deadline_fd < 0 || g->grace_fd < 0) {
		p_err("timerfd: %s", strerror(errno));
		return -1;
	}
	if (g->hooks.capture_dead) {
		g->capture_fd = timer_fd(0, 0);
		if (g->capture_fd < 0 ||
		    add_fd(g, g->capture_fd, EPOLLIN, TAG_CAPTURE))
			return -1;
	}
	if (g->hooks.live_dump) {
		char err[512];

		g->live_fd = livedump_listen(g->staging, err, sizeof(err));
		if (g->live_fd < 0) {
			p_err("%s", err);
			return -1;
		}
		if (add_fd(g, g->live_fd, EPOLLIN, TAG_LIVE))
			return -1;
	}
	if (g->stall_s) {
		g->stall_fd = timer_fd(0, 0);
		if (g->stall_fd < 0 ||
		    add_fd(g, g->stall_fd, EPOLLIN, TAG_STALL))
			return -1;
	}
	if (g->tick_ms) {
		g->tick_fd = timer_fd(g->tick_ms, g->tick_ms);
		if (g->tick_fd < 0 || add_fd(g, g->tick_fd, EPOLLIN, TAG_TICK))
			return -1;
	}
	for (int i = 0; i < S_NSTREAMS; i++)
		if (add_fd(g, g->fd[i], EPOLLIN, TAG_STREAM + (uint32_t)i))
			return -1;
	if (add_fd(g, g->err_fd, EPOLLIN, TAG_ERR) ||
	    add_fd(g, g->sigfd, EPOLLIN, TAG_SIG) ||
	    add_fd(g, g->pidfd, EPOLLIN, TAG_PID) ||
	    add_fd(g, g->deadline_fd, EPOLLIN, TAG_DEADLINE) ||
	    add_fd(g, g->grace_fd, EPOLLIN, TAG_GRACE))
		return -1;
	set_stage(g, STAGE_BOOT, "QEMU booting the guest kernel");
	return 0;
}

int guest_replay(struct guest *g, const char *console, const char *results)
{
	const char *files[2] = { results, console };

	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f) {
			p_err("%s: %s", files[i], strerror(errno));
			return -1;
		}
		if (guestlog_scan_file(&g->progress, f, i)) {
			p_err("%s: %s", files[i], strerror(errno));
			fclose(f);
			return -1;
		}
		fclose(f);
	}
	return 0;
}

char *guest_pass_file(struct guest *g, const char *path, bool writable,
		      bool dir)
{
	const struct qemu_user *u = qemu_user();
	int fd;

	if (g->n_pass == (int)ARRAY_SIZE(g->pass_fd)) {
		p_err("%s: too many files for QEMU", path);
		return NULL;
	}
	fd = open(path, (dir	  ? O_DIRECTORY | O_RDONLY :
			 writable ? O_RDWR :
				    O_RDONLY) |
				O_CLOEXEC);
	if (fd < 0) {
		p_err("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (writable && u->drop && fchown(fd, u->uid, u->gid)) {
		p_err("%s: cannot give it to %s, QEMU's user: %s", path,
		      u->name, strerror(errno));
		close(fd);
		return NULL;
	}
	g->pass_fd[g->n_pass++] = fd;
	return xasprintf("/proc/self/fd/%d", fd);
}

/* Copy @len bytes at @off from @in to @out, the same offset in both. */
static int copy_range(int in, int out, off_t off, off_t len, char *buf,
		      size_t bufsz)
{
	while (len > 0) {
		size_t want = (size_t)len < bufsz ? (size_t)len : bufsz;
		ssize_t n = pread(in, buf, want, off);

		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		for (ssize_t done = 0, w; done < n; done += w) {
			w = pwrite(out, buf + done, (size_t)(n - done),
				   off + done);
			if (w < 0)
				return -1;
		}
		off += n;
		len -= n;
	}
	return 0;
}

char *guest_pass_copy(struct guest *g, const char *path)
{
	enum { BUFSZ = 1 << 20 };
	int in = -1, out = -1;
	struct stat st;
	off_t data = 0, hole;
	char *buf = NULL;

	if (g->n_pass == (int)ARRAY_SIZE(g->pass_fd)) {
		p_err("%s: too many files for QEMU", path);
		return NULL;
	}
	in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0 || fstat(in, &st))
		goto fail;
	/* memfd files are 0777: QEMU's user can open the copy by its fd */
	out = memfd_create("bpk-snapshot-ram", MFD_CLOEXEC);
	if (out < 0 || ftruncate(out, st.st_size))
		goto fail;
	buf = xmalloc(BUFSZ);
	for (;;) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO)
				break;
			goto fail;
		}
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 ||
		    copy_range(in, out, data, hole - data, buf, BUFSZ))
			goto fail;
		data = hole;
	}
	free(buf);
	close(in);
	g->pass_fd[g->n_pass++] = out;
	return xasprintf("/proc/self/fd/%d", out);
fail:
	p_err("%s: cannot copy it for QEMU: %s", path, strerror(errno));
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return NULL;
}

void guest_control_send(struct guest *g, const void *data, size_t len)
{
	g->control_buf = xrealloc(g->control_buf, g->control_len + len);
	memcpy(g->control_buf + g->control_len, data, len);
	g->control_len += len;
	if (g->epfd >= 0 && g->control_fd >= 0) {
		struct epoll_event ev = { .events = EPOLLOUT,
					  .data.u32 = TAG_CONTROL };

		if (epoll_ctl(g->epfd, EPOLL_CTL_MOD, g->control_fd, &ev) &&
		    errno == ENOENT)
			epoll_ctl(g->epfd, EPOLL_CTL_ADD, g->control_fd, &ev);
	}
}

void guest_stop(struct guest *g, int exit_code, const char *why)
{
	if (g->stopping)
		return;
	g->stopping = true;
	g->exit = exit_code;
	g->stopped_why = why;
	if (g->pid > 0) {
		kill(g->pid, SIGTERM);
		rearm(g->grace_fd, GRACE_MS);
	}
}

/* A byte from the guest, or a state: the stall watch starts again. */
static void stall_progress(struct guest *g)
{
	if (g->stall_watching)
		rearm(g->stall_fd, (int64_t)g->stall_s * 1000);
}

static void stall_watch(struct guest *g, bool on)
{
	if (!g->stall_s || g->stall_watching == on)
		return;
	g->stall_watching = on;
	rearm(g->stall_fd, on ? (int64_t)g->stall_s * 1000 : 0);
}

/* --dump host: ask QEMU whether it paused the guest on its panic, often
 * once the guest was seen going down (@down), now and then before
 */
static void pvpanic_watch(struct guest *g, bool down)
{
	if (!g->dump_host || g->capture_fd < 0 || g->host_dump_why[0])
		return;
	if (down && !g->down_ms)
		g->down_ms = now_ms();
	g->pvpanic_watching = true;
	rearm(g->capture_fd, down ? PVPANIC_POLL_MS : PVPANIC_IDLE_MS);
}

/*
 * No progress for stall_s seconds: an NMI into every CPU (QEMU's
 * inject-nmi on x86), which the guest, booted with unknown_nmi_panic,
 * takes to panic() and kdump from wherever each CPU was, interrupts off or
 * not. Once: a guest the NMI does not bring down ends at the timeout.
 */
static void on_stall(struct guest *g)
{
	char err[512] = "no way to inject one";

	stall_watch(g, false);
	snprintf(g->stall_why, sizeof(g->stall_why),
		 "no output and no state from the guest for %ds: NMI injected",
		 g->stall_s);
	p_info("%s", g->stall_why);
	if (!g->hooks.stalled || g->hooks.stalled(g, err, sizeof(err))) {
		snprintf(
			g->stall_why, sizeof(g->stall_why),
			"no output and no state from the guest for %ds; the NMI could not be injected: %s",
			g->stall_s, err);
		p_err("%s", g->stall_why);
		return;
	}
	g->stall_nmi_ms = now_ms();
	/* an NMI panic prints after pvpanic has told QEMU */
	pvpanic_watch(g, true);
}

/*
 * After the first kernel went down: the capture kernel must keep talking
 * (its boot, vmcore-dmesg, the dump stream). One that panics, or that says
 * nothing for CAPTURE_SILENCE_MS, died: the host takes the dump instead.
 */
static void capture_progress(struct guest *g)
{
	if (g->capture_watching && !g->capture_panic_seen)
		rearm(g->capture_fd, CAPTURE_SILENCE_MS);
}

static void capture_watch(struct guest *g)
{
	if (g->dump_host) {
		/* no crash kernel to watch: QEMU's pause is the sign */
		pvpanic_watch(g, true);
		return;
	}
	if (g->capture_fd < 0 || g->capture_watching)
		return;
	g->capture_watching = true;
	rearm(g->capture_fd, CAPTURE_SILENCE_MS);
}

/* The host's dump of the guest (hooks.capture_dead), for the reason in
 * g->host_dump_why, which says too when it failed; then QEMU is stopped.
 */
static void host_dump(struct guest *g)
{
	char err[512];

	if (g->hooks.capture_dead(g, g->host_dump_why, err, sizeof(err))) {
		char why[sizeof(g->host_dump_why)];

		snprintf(why, sizeof(why), "%s", g->host_dump_why);
		snprintf(g->host_dump_why, sizeof(g->host_dump_why),
			 "%.300s; the host's dump failed: %.300s", why, err);
		p_err("%s", g->host_dump_why);
	} else {
		g->host_dumped = true;
	}
	guest_stop(g, 0, g->host_dump_why);
}

static void on_capture_dead(struct guest *g)
{
	char shown[300];

	g->capture_watching = false;
	if (g->capture_panic_seen) {
		escape_into(shown, sizeof(shown), g->progress.capture_panic,
			    strlen(g->progress.capture_panic));
		snprintf(g->host_dump_why, sizeof(g->host_dump_why),
			 "the capture kernel died: %s", shown);
	} else {
		snprintf(
			g->host_dump_why, sizeof(g->host_dump_why),
			"the capture kernel sent nothing for %ds after the first kernel went down",
			CAPTURE_SILENCE_MS / 1000);
	}
	p_info("%s: the host takes the dump", g->host_dump_why);
	host_dump(g);
}

/*
 * --dump host, polled after the guest went down: once QEMU paused it on
 * its pvpanic report, the host dumps it. A panic that never reaches
 * pvpanic (a kernel without its driver, a panic stuck on the way) is
 * dumped as it stands after PVPANIC_WAIT_MS, and said.
 */
static void on_pvpanic_poll(struct guest *g)
{
	char err[512] = "", shown[300];
	int rc = g->hooks.panicked ? g->hooks.panicked(g, err, sizeof(err)) :
				     -1;
	int64_t waited = g->down_ms ? now_ms() - g->down_ms : -1;

	if (rc == 0 && waited < 0) {
		rearm(g->capture_fd, PVPANIC_IDLE_MS);
		return;
	}
	if (rc == 0 && waited < PVPANIC_WAIT_MS) {
		rearm(g->capture_fd, PVPANIC_POLL_MS);
		return;
	}
	g->pvpanic_watching = false;
	g->pvpanicked = rc == 1;
	if (rc == 1 && waited < 0) {
		/* paused before its console said anything: now is when the
		 * host saw it go down
		 */
		g->down_ms = now_ms();
		snprintf(
			g->host_dump_why, sizeof(g->host_dump_why),
			"--dump host: the guest's pvpanic told QEMU of a panic its console had not shown yet; QEMU paused it and the host dumped it");
	} else if (rc == 1)
		snprintf(
			g->host_dump_why, sizeof(g->host_dump_why),
			"--dump host: the guest's pvpanic told QEMU of the panic %.1f s after the host saw it go down; QEMU paused it and the host dumped it",
			(double)waited / 1000);
	else if (rc == 0)
		snprintf(
			g->host_dump_why, sizeof(g->host_dump_why),
			"--dump host: no pvpanic report within %d s of the guest going down; the host dumped it as it stood",
			PVPANIC_WAIT_MS / 1000);
	else
		snprintf(
			g->host_dump_why, sizeof(g->host_dump_why),
			"--dump host: QEMU's state could not be read (%s); the host dumped the guest as it stood",
			escape_into(shown, sizeof(shown), err, strlen(err)));
	p_info("%s", g->host_dump_why);
	set_stage(g, STAGE_DUMP, "the host is dumping the guest (--dump host)");
	host_dump(g);
}

/*
 * bpk dump: a dump of the guest while it runs, only before it went down
 * (after that, the run's own dump is on its way). The guest is paused for
 * the copy: that time is not the guest's, so the timeout and the stall
 * watch move on by it.
 */
static void on_live_dump(struct guest *g)
{
	int client = accept4(g->live_fd, NULL, NULL, SOCK_CLOEXEC);
	struct timeval tv = { .tv_sec = 5 };
	struct itimerspec left;
	char err[512];
	int64_t paused;

	if (client < 0)
		return;
	if (livedump_peer_ok(client, err, sizeof(err))) {
		/* not this user's: it gets nothing, not even an answer */
		close(client);
		return;
	}
	/* a client that sends nothing, or reads nothing, holds the loop
	 * this long at most
	 */
	if (setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		close(client);
		return;
	}
	if (g->fired_seen || g->stopping || g->pid <= 0 ||
	    g->stage < STAGE_BOOT) {
		livedump_say(
			client, "error",
			"the guest is not running (stage: %s): a live dump is taken before it goes down; the run files its own dump",
			stage_name(g->stage));
		close(client);
		return;
	}
	paused = g->hooks.live_dump(g, client);
	close(client);
	if (paused <= 0)
		return;
	if (!timerfd_gettime(g->deadline_fd, &left) &&
	    (left.it_value.tv_sec || left.it_value.tv_nsec))
		rearm(g->deadline_fd, (int64_t)left.it_value.tv_sec * 1000 +
					      left.it_value.tv_nsec / 1000000 +
					      paused);
	stall_progress(g);
}

static void fired(struct guest *g)
{
	if (g->fired_seen)
		return;
	g->fired_seen = true;
	if (!g->down_ms)
		g->down_ms = now_ms();
	stall_watch(g, false);
	capture_watch(g);
	if (g->hooks.fired)
		g->hooks.fired(g);
}

static void console_line(struct guest *g, const char *line, size_t len)
{
	struct guest_progress *p = &g->progress;
	int boots = p->boots;
	bool had_panic = p->panic_msg[0];

	guestlog_console_line(p, line, len);
	if (p->capture_panic[0] && !g->capture_panic_seen &&
	    g->capture_watching) {
		/* the rest of its panic report, then the host's dump */
		g->capture_panic_seen = true;
		rearm(g->capture_fd, CAPTURE_PANIC_MS);
	}
	if (p->boots >= 2 && boots < 2) {
		fired(g);
		set_stage(g, STAGE_CAPTURE,
			  "the crash kernel is booting, vmcore-dmesg");
	} else if (!had_panic && p->panic_msg[0]) {
		/* the guest's claim: root in it can write a record of the
		 * kernel's facility straight to the console; the dump decides
		 */
		char msg[300], shown[340];

		fired(g);
		escape_into(msg, sizeof(msg), p->panic_msg,
			    strlen(p->panic_msg));
		snprintf(shown, sizeof(shown), "the console says: %s", msg);
		set_stage(g, STAGE_FIRE, shown);
	}
}

static void results_line(struct guest *g, const char *line, size_t len)
{
	struct guest_progress *p = &g->progress;
	size_t n = strlen(STATE_PREFIX);
	unsigned long claims = p->claims;

	guestlog_result_line(p, line, len);
	if (len <= n || memcmp(line, STATE_PREFIX, n))
		return;
	if (p->claims != claims) {
		/* (p_info escapes it) */
		p_info("a state from the guest's user space, after the workload started, not acted on: %.*s",
		       (int)(len < 256 ? len : 256), line);
		return;
	}
	if (!strcmp(p->last_state, STATE_BOOTED)) {
		set_stage(
			g, STAGE_ARM,
			g->dump_host ?
				"arming the trigger (no crash kernel: --dump host)" :
				"loading the crash kernel, arming the trigger");
	} else if (!strcmp(p->last_state, STATE_RESTORED)) {
		set_stage(g, STAGE_ARM, "restored, arming the trigger");
	} else if (!strcmp(p->last_state, STATE_HOST_DUMP_READY)) {
		set_stage(g, STAGE_ARM,
			  "no crash kernel (--dump host), arming the trigger");
	} else if (!strcmp(p->last_state, STATE_ARMED)) {
		set_stage(g, STAGE_FIRE, "armed, the workload is running");
		if (!g->fired_seen)
			pvpanic_watch(g, false);
		/* from here on a guest that stops is a stall */
		if (!g->fired_seen && !g->stall_nmi_ms)
			stall_watch(g, true);
	} else {
		/* the job ended (not fired, dry run done, refused) */
		stall_watch(g, false);
	}
	if (g->hooks.state)
		g->hooks.state(g, line, len);
}

/* Whole lines of the console and the results to the scanners, a line
 * longer than the scanner takes scanned by its start (as collect does).
 */
static void feed_lines(struct guest *g, int which, const char *buf, size_t n)
{
	char *line = g->line[which];

	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (g->line_len[which] < GUESTLOG_LINE_MAX)
				line[g->line_len[which]++] = buf[i];
			else if (!g->line_cut[which])
				g->line_cut[which] = true;
			continue;
		}
		line[g->line_len[which]] = '\0';
		if (g->line_cut[which])
			g->progress.lines_cut++;
		if (which == 0)
			console_line(g, line, g->line_len[which]);
		else
			results_line(g, line, g->line_len[which]);
		g->line_len[which] = 0;
		g->line_cut[which] = false;
	}
}

static void dump_detail(struct guest *g)
{
	char d[128];
	unsigned long long b = g->bytes[S_DUMP];

	snprintf(d, sizeof(d), "%llu MB received (%llu bytes)%s", b / 1048576,
		 b, g->bytes[S_STATUS] ? ", the capture kernel finishing" : "");
	set_stage(g, STAGE_DUMP, d);
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What the guest sent past a stream's cap is not kept: said once, and
 * for the dump (past what the guest's memory explains) QEMU is stopped,
 * since nothing the capture step sends after that can be a good dump.
 */
static size_t capped(struct guest *g, int i, size_t n)
{
	uint64_t cap = g->cap[i];
	uint64_t had = g->bytes[i] + g->before[i];
	size_t keep;

	if (!cap || had + n <= cap)
		return n;
	keep = had >= cap ? 0 : (size_t)(cap - had);
	if (!g->capped[i]) {
		static char why[256];

		g->capped[i] = true;
		snprintf(why, sizeof(why),
			 "%s: the guest sent more than %llu bytes%s",
			 stream_file[i], (unsigned long long)cap,
			 i == S_DUMP ? ", beyond its memory + slack" : "");
		if (i == S_DUMP) {
			p_err("%s: stopping QEMU", why);
			guest_stop(g, 125, why);
		} else {
			p_err("%s: the rest is not kept", why);
		}
	}
	return keep;
}

static void stream_bytes(struct guest *g, int i, const char *buf, size_t n)
{
	size_t keep = capped(g, i, n);

	if (keep && g->out[i] >= 0 && write_all(g->out[i], buf, keep)) {
		static char why[600];
		int e = errno;

		close(g->out[i]);
		g->out[i] = -1;
		if (e == ENOSPC || e == EDQUOT) {
			snprintf(
				why, sizeof(why),
				"%s: %s: the file system is full: what the guest sends now is lost",
				g->staging, strerror(e));
			p_err("%s: stopping QEMU", why);
			guest_stop(g, 125, why);
		} else {
			snprintf(why, sizeof(why), "%s/%s: %s", g->staging,
				 stream_file[i], strerror(e));
			p_err("%s: stopping QEMU", why);
			guest_stop(g, 125, why);
		}
	}
	g->bytes[i] += n;
	/* a guest whose workload still prints is not stalled */
	if (i == S_CONSOLE || i == S_RESULTS || i == S_WORKLOAD)
		stall_progress(g);
	capture_progress(g);
	if (i == S_CONSOLE)
		feed_lines(g, 0, buf, n);
	else if (i == S_RESULTS)
		feed_lines(g, 1, buf, n);
	else if (i == S_DMESG && g->progress.boots < 2)
		set_stage(g, STAGE_CAPTURE,
			  "the crash kernel is booting, vmcore-dmesg");
	else if (i == S_DUMP || (i == S_STATUS && g->bytes[S_DUMP]))
		dump_detail(g);
}

/* Read what a stream has; false once it is at its end. */
static bool stream_read(struct guest *g, int i)
{
	char buf[1 << 16];

	for (;;) {
		ssize_t n = read(g->fd[i], buf, sizeof(buf));

		if (n > 0) {
			stream_bytes(g, i, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		/* the end (or an error: nothing more will come) */
		epoll_ctl(g->epfd, EPOLL_CTL_DEL, g->fd[i], NULL);
		close(g->fd[i]);
		g->fd[i] = -1;
		if (g->line_len[i == S_CONSOLE ? 0 : 1] && i <= S_RESULTS)
			feed_lines(g, i == S_CONSOLE ? 0 : 1, "\n", 1);
		return false;
	}
}

static void err_read(struct guest *g)
{
	char buf[4096];

	for (;;) {
		ssize_t n = read(g->err_fd, buf, sizeof(buf));
		size_t keep, have;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 ||
			    (errno != EAGAIN && errno != EWOULDBLOCK)) {
				epoll_ctl(g->epfd, EPOLL_CTL_DEL, g->err_fd,
					  NULL);
				close(g->err_fd);
				g->err_fd = -1;
			}
			return;
		}
		if (g->err_out >= 0) {
			static const char cut[] =
				"\nbpk: qemu.log cut here, at 1 MiB: the rest of QEMU's stderr is not kept\n";
			size_t room = QEMU_LOG_CAP - g->err_kept;
			size_t w = (size_t)n < room ? (size_t)n : room;

			if (write_all(g->err_out, buf, w) ||
			    (w < (size_t)n &&
			     write_all(g->err_out, cut, sizeof(cut) - 1))) {
				close(g->err_out);
				g->err_out = -1;
			}
			g->err_kept += w;
			if (w < (size_t)n && g->err_out >= 0) {
				close(g->err_out);
				g->err_out = -1;
			}
		}
		/* the tail, to quote when QEMU fails */
		have = strlen(g->qemu_err);
		keep = sizeof(g->qemu_err) - 1;
		if ((size_t)n >= keep) {
			memcpy(g->qemu_err, buf + n - keep, keep);
			g->qemu_err[keep] = '\0';
		} else {
			if (have + (size_t)n > keep) {
				memmove(g->qemu_err,
					g->qemu_err + have + (size_t)n - keep,
					keep - (size_t)n);
				have = keep - (size_t)n;
			}
			memcpy(g->qemu_err + have, buf, (size_t)n);
			g->qemu_err[have + (size_t)n] = '\0';
		}
	}
}

static void control_write(struct guest *g)
{
	while (g->control_off < g->control_len) {
		ssize_t w = write(g->control_fd,
				  g->control_buf + g->control_off,
				  g->control_len - g->control_off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w < 0) {
			/* QEMU went away; its exit says why */
			g->control_off = g->control_len;
			break;
		}
		g->control_off += (size_t)w;
	}
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, g->control_fd, NULL);
}

static void on_signal(struct guest *g)
{
	struct signalfd_siginfo si;
	static char why[64];

	while (read(g->sigfd, &si, sizeof(si)) == sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (g->signum) {
			/* a second signal: no more grace */
			if (g->pid > 0)
				kill(g->pid, SIGKILL);
			continue;
		}
		g->signum = sig;
		snprintf(g->signame, sizeof(g->signame), "SIG%s",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
		snprintf(why, sizeof(why), "interrupted by %s", g->signame);
		if (g->pid > 0) {
			p_info("interrupted by %s: stopping the guest",
			       g->signame);
			/* a stop already under way keeps its own code */
			if (g->stopping)
				g->exit = 128 + sig;
			guest_stop(g, 128 + sig, why);
		}
	}
}

static bool streams_open(const struct guest *g)
{
	for (int i = 0; i < S_NSTREAMS; i++)
		if (g->fd[i] >= 0)
			return true;
	return g->err_fd >= 0;
}

int guest_supervise(struct guest *g)
{
	bool exited = false;

	if (g->control_len > g->control_off)
		guest_control_send(g, "", 0);
	for (;;) {
		struct epoll_event evs[16];
		int n;

		if (exited && !streams_open(g))
			break;
		n = epoll_wait(g->epfd, evs, ARRAY_SIZE(evs), -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			p_err("epoll_wait: %s", strerror(errno));
			if (!exited && g->pid > 0) {
				kill(g->pid, SIGKILL);
				proc_wait(g->pid);
			}
			g->exit = 125;
			break;
		}
		for (int i = 0; i < n; i++) {
			uint32_t tag = evs[i].data.u32;
			uint64_t ticks;

			if (tag < TAG_STREAM + S_NSTREAMS) {
				if (g->fd[tag] >= 0)
					stream_read(g, (int)tag);
				continue;
			}
			switch (tag) {
			case TAG_CONTROL:
				control_write(g);
				break;
			case TAG_ERR:
				err_read(g);
				break;
			case TAG_SIG:
				on_signal(g);
				break;
			case TAG_PID: {
				siginfo_t si = { 0 };
				int st;

				if (waitid(P_PIDFD, (id_t)g->pidfd, &si,
					   WEXITED | WNOHANG) ||
				    !si.si_pid)
					break;
				st = si.si_code == CLD_EXITED ?
					     si.si_status :
					     128 + si.si_status;
				if (!g->stopping)
					g->exit = st;
				exited = true;
				g->ended_ms = now_ms();
				g->pid = -1;
				epoll_ctl(g->epfd, EPOLL_CTL_DEL, g->pidfd,
					  NULL);
				/* what is still in the sockets, for a while */
				rearm(g->deadline_fd, DRAIN_MS);
				rearm(g->grace_fd, 0);
				break;
			}
			case TAG_DEADLINE:
				if (read(g->deadline_fd, &ticks,
					 sizeof(ticks)) != sizeof(ticks))
					break;
				if (exited) {
					/* a stream nobody closes: stop here */
					for (int s = 0; s < S_NSTREAMS; s++)
						if (g->fd[s] >= 0) {
							close(g->fd[s]);
							g->fd[s] = -1;
						}
					if (g->err_fd >= 0) {
						close(g->err_fd);
						g->err_fd = -1;
					}
				} else {
					static char why[96];

					snprintf(
						why, sizeof(why),
						"the guest did not finish within %ds",
						g->timeout_s);
					p_err("%s: stopping QEMU", why);
					guest_stop(g, 124, why);
				}
				break;
			case TAG_STALL:
				if (read(g->stall_fd, &ticks, sizeof(ticks)) ==
					    sizeof(ticks) &&
				    g->stall_watching && g->pid > 0)
					on_stall(g);
				break;
			case TAG_CAPTURE:
				if (read(g->capture_fd, &ticks,
					 sizeof(ticks)) != sizeof(ticks) ||
				    g->pid <= 0 || g->stopping)
					break;
				if (g->pvpanic_watching)
					on_pvpanic_poll(g);
				else if (g->capture_watching)
					on_capture_dead(g);
				break;
			case TAG_LIVE:
				on_live_dump(g);
				break;
			case TAG_TICK:
				if (read(g->tick_fd, &ticks, sizeof(ticks)) ==
					    sizeof(ticks) &&
				    g->hooks.tick)
					g->hooks.tick(g);
				break;
			case TAG_GRACE:
				if (read(g->grace_fd, &ticks, sizeof(ticks)) ==
					    sizeof(ticks) &&
				    g->pid > 0) {
					p_info("QEMU (pid %d) still running %ds after SIGTERM: SIGKILL",
					       g->pid, GRACE_MS / 1000);
					kill(g->pid, SIGKILL);
				}
				break;
			}
		}
	}
	if (g->ended_ms == 0)
		g->ended_ms = now_ms();
	return g->exit;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void guest_cleanup(struct guest *g)
{
	for (int i = 0; i < S_NSTREAMS; i++) {
		close_fd(&g->fd[i]);
		close_fd(&g->qemu_fd[i]);
		if (g->out[i] >= 0 && fsync(g->out[i]) && errno != EINVAL)
			p_err("%s/%s: %s", g->staging, stream_file[i],
			      strerror(errno));
		close_fd(&g->out[i]);
	}
	close_fd(&g->control_fd);
	close_fd(&g->qemu_control_fd);
	close_fd(&g->qmp_fd);
	close_fd(&g->qemu_qmp_fd);
	close_fd(&g->err_fd);
	close_fd(&g->err_out);
	close_fd(&g->sigfd);
	close_fd(&g->pidfd);
	close_fd(&g->deadline_fd);
	close_fd(&g->tick_fd);
	close_fd(&g->grace_fd);
	close_fd(&g->stall_fd);
	close_fd(&g->capture_fd);
	if (g->live_fd >= 0) {
		char *sock = path_join(g->staging, LIVE_DUMP_SOCK);

		/* the filed run keeps no socket */
		if (unlink(sock) && errno != ENOENT)
			p_err("%s: %s", sock, strerror(errno));
		free(sock);
	}
	close_fd(&g->live_fd);
	close_fd(&g->epfd);
	for (int i = 0; i < g->n_pass; i++)
		close_fd(&g->pass_fd[i]);
	g->n_pass = 0;
	for (int i = 0; i < 2; i++) {
		free(g->line[i]);
		g->line[i] = NULL;
	}
	free(g->control_buf);
	g->control_buf = NULL;
	strv_free(&g->qemu_argv);
}
