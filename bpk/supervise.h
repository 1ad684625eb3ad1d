/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest under supervision: QEMU started with every console and port on a
 * socket of ours, then one event loop (epoll) over QEMU's pidfd, a
 * signalfd for SIGINT/SIGTERM/SIGHUP, timerfds for the timeout and the
 * display, and the sockets, whose bytes bpk itself writes into the staging
 * dir and scans as they come: no polling, no file watching, no shell.
 */
#ifndef BPK_SUPERVISE_H
#define BPK_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpk.h"
#include "guestlog.h"

enum stream_id {
	S_CONSOLE, /* the serial console: console.log */
	S_RESULTS, /* port results: results.txt */
	S_DMESG, /* port dmesg: dmesg.txt */
	S_DUMP, /* port dump: dump.flat */
	S_STATUS, /* port status: status.txt */
	S_WORKLOAD, /* port workload: workload.txt */
	S_NSTREAMS,
};

/* Guest progress as the stages a person follows. */
enum stage {
	STAGE_PREPARE,
	STAGE_BOOT,
	STAGE_ARM,
	STAGE_FIRE,
	STAGE_CAPTURE,
	STAGE_DUMP,
	STAGE_COLLECT,
	STAGE_REPORT,
	STAGE_DONE,
};
const char *stage_name(enum stage s);
/* the staging file a stream is written to: "console.log" ... */
const char *stream_name(int i);

struct guest;

struct guest_hooks {
	/* the stage or its detail changed */
	void (*stage)(struct guest *g, enum stage s, const char *detail);
	/* the display's tick: time to redraw an elapsed time */
	void (*tick)(struct guest *g);
	/* a BPK-STATE line arrived (its state in g->progress.last_state) */
	void (*state)(struct guest *g, const char *line, size_t len);
	/* the first sign that the guest went down: a panic line of the first
	 * kernel, or the capture kernel's boot
	 */
	void (*fired)(struct guest *g);
	/* --stall: the guest made no progress; inject the NMI. 0, or -1
	 * with the reason in @err
	 */
	int (*stalled)(struct guest *g, char *err, size_t errlen);
	/* the first kernel went down and its capture kernel died (panicked
	 * after it booted) or went silent: take the host's dump of the
	 * guest. 0, or -1 with the reason in @err
	 */
	int (*capture_dead)(struct guest *g, const char *why, char *err,
			    size_t errlen);
	/* --dump host, after the guest went down: has QEMU paused it on its
	 * pvpanic report? 1 yes, 0 not yet, -1 with the reason in @err
	 */
	int (*panicked)(struct guest *g, char *err, size_t errlen);
	/* bpk dump connected (@client, the socket to answer on): take a
	 * dump of the live guest and file it, the guest paused for the
	 * copy. The time it was paused in ms (the timeout and the stall
	 * watch are moved on by it), or -1: it was not paused
	 */
	int64_t (*live_dump)(struct guest *g, int client);
	void *data;
};

/* What qemu.log keeps of QEMU's stderr: what a guest makes QEMU print
 * (a device's warning on every access) is the guest's to choose, and the
 * disk is the host's.
 */
#define QEMU_LOG_CAP (1ULL << 20)

struct guest {
	/* in: */
	const char *staging; /* where the streams are written */
	struct strv qemu_argv; /* built by qemu.c with the fds below */
	int timeout_s;
	int tick_ms; /* 0: no tick */
	struct guest_hooks hooks;
	bool control; /* a control port (snapshots and restores) */
	bool qmp; /* a QMP monitor */
	/* the most kept of each stream (0: no cap): see run.c */
	uint64_t cap[S_NSTREAMS];
	/* bytes in front of a stream's file before the guest's (a restored
	 * run's snapshot boot), counted in its cap
	 */
	uint64_t before[S_NSTREAMS];
	int keep_extra; /* one more fd QEMU gets (a snapshot's state file),
			 * -1 if none: set after guest_prepare
			 */
	/* files QEMU opens by /proc/self/fd/N (guest_pass_file) */
	int pass_fd[16];
	int n_pass;
	bool kvm; /* QEMU uses /dev/kvm: its user needs the kvm group */
	/* --stall: once armed and until it goes down, this long without a
	 * byte from the guest and an NMI is injected (QMP inject-nmi); 0: no
	 * watch. Needs qmp.
	 */
	int stall_s;
	/* --dump host: the guest loads no crash kernel; once it went down,
	 * the host waits for QEMU to pause it (pvpanic, hooks.panicked) and
	 * dumps it (hooks.capture_dead). Needs qmp.
	 */
	bool dump_host;

	/* QEMU's ends of the sockets, for qemu.c to name as fd=N */
	int qemu_fd[S_NSTREAMS];
	int qemu_control_fd, qemu_qmp_fd;

	/* out: */
	pid_t pid;
	int exit; /* QEMU's status; 124 timeout, 125 disk full, 128+N signal */
	const char *stopped_why; /* why bpk stopped QEMU, if it did */
	int signum; /* the first signal received, 0 if none */
	char signame[16];
	struct guest_progress progress; /* scanned as the lines came */
	enum stage stage;
	uint64_t bytes[S_NSTREAMS]; /* received, kept or not */
	bool capped[S_NSTREAMS];
	int64_t started_ms, ended_ms;
	bool fired_seen;
	int64_t stall_nmi_ms; /* when the stall NMI was injected, 0: never */
	/* why the host took the guest's dump (capture_dead), "" if it did
	 * not; host_dumped: it did
	 */
	char host_dump_why[640];
	bool host_dumped;
	char stall_why[640]; /* what the watchdog saw and did, "" if nothing */
	char qemu_err[1024]; /* the end of what QEMU printed on stderr */

	/* ours: */
	int fd[S_NSTREAMS], out[S_NSTREAMS];
	int control_fd, qmp_fd;
	char *control_buf;
	size_t control_len, control_off;
	int epfd, sigfd, pidfd, deadline_fd, tick_fd, grace_fd, stall_fd;
	int capture_fd;
	int live_fd; /* bpk dump's socket (hooks.live_dump), -1: none */
	bool stall_watching, capture_watching, capture_panic_seen;
	bool pvpanic_watching; /* --dump host: polling hooks.panicked */
	bool pvpanicked; /* QEMU paused the guest on its pvpanic report */
	int64_t down_ms; /* when the guest was first seen going down */
	int err_fd, err_out; /* QEMU's stderr: a pipe, kept in qemu.log */
	uint64_t err_kept; /* bytes of it in qemu.log, at most QEMU_LOG_CAP */
	char *line[2];
	size_t line_len[2];
	bool line_cut[2];
	bool stopping;
};

/* Make the sockets and open the staging files: after this the caller
 * builds QEMU's argv naming g->qemu_fd[] (and the control / QMP fds).
 * 0, or -1 after an error message.
 */
int guest_prepare(struct guest *g);

/* What a restored guest said before its snapshot was saved (its boot),
 * scanned into g->progress first: the restored run's states and kernels
 * count on from there, as its filed console and guest log will read.
 */
int guest_replay(struct guest *g, const char *console, const char *results);

/* @path opened here, for QEMU to open as "/proc/self/fd/N" (returned,
 * malloc'd): QEMU runs as an unprivileged user when bpk is root
 * (qemu.c), and reaches the file through the fd it inherits, not through
 * directories that user may not enter (the cache, the run's work dir).
 * @writable: QEMU writes it (a snapshot's RAM): it is given to QEMU's
 * user. NULL, after an error message, if it cannot be opened.
 */
char *guest_pass_file(struct guest *g, const char *path, bool writable,
		      bool dir);

/* A snapshot's RAM, for QEMU to map privately: a copy of @path in memory
 * (a memfd, holes kept as holes), passed as guest_pass_file() passes a
 * file. QEMU 7.2 maps a file privately only from a descriptor it opened
 * for writing, and a QEMU the guest took over could then write the cached
 * snapshot every later attempt starts from: it gets a copy that dies with
 * the run instead. NULL, after an error message naming @path, if it cannot
 * be read or copied.
 */
char *guest_pass_copy(struct guest *g, const char *path);

/* Start QEMU with g->qemu_argv. 0, or -1 after an error message. */
int guest_start(struct guest *g);

/* Queue bytes for the control port (sent as the guest reads them). */
void guest_control_send(struct guest *g, const void *data, size_t len);

/* Run the event loop until QEMU has exited and every stream is drained.
 * Returns g->exit.
 */
int guest_supervise(struct guest *g);

/* Stop QEMU (SIGTERM, then SIGKILL after a grace period), recording why;
 * the loop goes on until it is gone.
 */
void guest_stop(struct guest *g, int exit_code, const char *why);

/* Free what guest_prepare made (the staging files stay). */
void guest_cleanup(struct guest *g);

#endif
