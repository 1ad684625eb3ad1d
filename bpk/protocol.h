/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest protocol, host side: what bpk puts on the guest kernel's
 * command line and over the control port, the virtio-serial ports it
 * reads, the guest job's state lines, and the console texts it acts on.
 * The guest side is appliance/guest/bpk-lib.sh; docs/guest-protocol.md
 * describes both. The console texts are lib/console-patterns, compiled in
 * (build/bpk/gen/patterns.h) so that bpk and the analysis read one list.
 */
#ifndef BPK_PROTOCOL_H
#define BPK_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

/* The virtio-serial ports, by name (/sys/class/virtio-ports/N/name). */
#define PORT_RESULTS "results" /* the guest job's output, BPK-STATE lines */
#define PORT_DMESG "dmesg" /* vmcore-dmesg of the crashed kernel */
#define PORT_DUMP "dump" /* makedumpfile -F: the flattened dump stream */
#define PORT_STATUS "status" /* the capture step's key=value record */
#define PORT_CONTROL "control" /* host to guest: a restored attempt's run */
/* the workload's stdout and stderr: its own channel, never read as states */
#define PORT_WORKLOAD "workload"

/* "BPK-STATE <state> t=<uptime> [k=v ...]" on the results port */
#define STATE_PREFIX "BPK-STATE "

/* "BPK-WORKLOAD t=<uptime> runs=N" on the results port: the job starts the
 * workload. Not a state (the last state stays "armed"): from here on the
 * job itself says only not-fired or dry-run-done, so any other state is
 * the guest's user space claiming one (its output has a port of its own,
 * so only root taking the results port could send it).
 */
#define WORKLOAD_PREFIX "BPK-WORKLOAD "
/* The host's dump of the guest (QMP dump-guest-memory, kdump-compressed),
 * in the staging dir, when the capture kernel could not make one.
 */
#define HOST_DUMP_FILE "vmcore.host"
#define STATE_BOOTED "booted"
#define STATE_CRASH_LOADED "crash-kernel-loaded"
/* --dump host: no crash kernel, pvpanic bound */
#define STATE_HOST_DUMP_READY "host-dump-ready"
#define STATE_ARMED "armed"
#define STATE_REFUSED "refused"
#define STATE_IDLE "idle" /* a snapshot's guest, waiting on the control port */
#define STATE_RESTORED "restored"
#define STATE_NOT_FIRED "not-fired"
#define STATE_DRY_DONE "dry-run-done"

/* The control message: this header line, then size= bytes of workload. */
#define CONTROL_PREFIX "BPK-CONTROL "

/* The guest kernel's fixed words: ttyS0 is the console bpk reads, and a
 * guest that panics without a crash kernel ends (panic=-1 with QEMU's
 * -no-reboot) instead of hanging until the timeout. With
 * console_msg_format=syslog every record on the console starts with
 * "<facility * 8 + level>": a line user space wrote to /dev/kmsg has
 * facility LOG_USER (the kernel never lets it be LOG_KERN), so the host
 * reads the cause from the kernel's own records alone.
 */
#define GUEST_CMDLINE_BASE "console=ttyS0 panic=-1 console_msg_format=syslog"

/* The facility of the kernel's own log records (syslog(3)'s LOG_KERN). */
#define LOG_FACILITY_KERN 0

enum pattern_kind {
	PAT_BOOT, /* a kernel's "Command line:": the second is the capture kernel */
	PAT_PANIC, /* "Kernel panic - not syncing: " */
	PAT_OOPS,
	PAT_WARNING,
	PAT_SYSRQ,
	PAT_NMI,
	PAT_END_TRACE,
	PAT_RIP,
	PAT_TRIGGER, /* our triggers' panic message */
	/* the lockup and stall detectors set to panic (--panic-on) */
	PAT_SOFT_LOCKUP,
	PAT_HUNG_TASK,
	PAT_RCU_STALL,
};

enum pattern_scope {
	SCOPE_LINE, /* a log record's message starts with it */
	SCOPE_PANIC, /* a panic message starts with it */
};

struct console_pattern {
	enum pattern_kind kind;
	enum pattern_scope scope;
	const char *text;
};

extern const struct console_pattern console_patterns[];
extern const size_t n_console_patterns;

/* The message of a console line: after a leading "<N>" syslog prefix and
 * "[    1.234567] " stamp (*@stamp set to its seconds, else -1; *@facility
 * to N / 8, else -1), its "\r" dropped.
 */
const char *console_message(const char *line, size_t len, size_t *mlen,
			    double *stamp, int *facility);

/* The next kernel log record in [@p, @end): a line's start, or any
 * "[ seconds] " stamp after it, with the "<N>" prefix before it when there
 * is one. Its message (after the stamp, up to the next record or @end) and
 * length; *@stamp its seconds or -1, *@facility N / 8 or -1 (no prefix).
 * NULL when there is none left.
 */
const char *console_next_record(const char *p, const char *end, size_t *mlen,
				double *stamp, int *facility);

/* The first pattern of @scope that @msg starts with: its kind, and the
 * length of its text in *@taglen; -1 if none.
 */
int console_match(const char *msg, size_t len, enum pattern_scope scope,
		  size_t *taglen);

/* Does @msg start with a text of @kind (line scope)? */
bool console_is(const char *msg, size_t len, enum pattern_kind kind);

#endif

/* What a guest is told: on its kernel command line when it boots for a
 * run, over the control port when it is a restored snapshot.
 */
struct guest_params {
	const char *trigger; /* NULL: not on the line (a snapshot arming later) */
	const char *args; /* "k=v k=v": commas for spaces on the line */
	int repeat; /* -1: not on the line */
	bool dry, kexec_checks, sysctl, reservation_check;
	bool panic_on_oops, panic_on_warn;
	/* the detectors set to panic (--panic-on), and an NMI (--stall) */
	bool panic_softlockup, panic_hung, panic_rcu, nmi_panic;
	bool preinit; /* boot through /etc/bpk/preinit (modules, host view) */
	bool control; /* a snapshot's guest: wait on the control port */
	/* --dump host: load no crash kernel (a restored guest unloads its
	 * snapshot's), and have pvpanic tell QEMU of the panic
	 */
	bool dump_host;
	const char *capture_append; /* the crash kernel's extra words */
	const char *append; /* the user's extra words, as they are */
	const char *crashkernel; /* NULL or "none": no reservation */
	int attempt; /* 0: not an attempt of a campaign */
	long long host_time; /* control message: the host's clock, 0: none */
	/* control message: a program of the user's own (--prog) follows the
	 * workload, prog_size bytes, armed as the trigger of that name
	 */
	size_t prog_size;
};

/* The guest kernel's command line after GUEST_CMDLINE_BASE, malloc'd. */
char *guest_cmdline(const struct guest_params *p);

/* The control message's header line (with its newline), announcing
 * @size bytes of workload; @seed: host random bytes as hex. What a cold
 * boot sets on the command line (panic_on_*, the detectors, the NMI) goes
 * as sysctl values, and the host's clock as time= when set.
 */
char *control_header(const struct guest_params *p, const char *seed,
		     size_t size);
