/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest said about its run: the "BPK-STATE <state> t=<uptime> ..."
 * lines of the appliance job (appliance/guest/jobs/appliance), and from the
 * console the panic, oops, BUG and WARNING lines, each attributed to the
 * kernel that printed it: the first kernel, or the capture kernel once a
 * second "Command line:" shows that it booted.
 *
 * On a console in syslog format (GUEST_CMDLINE_BASE) only the kernel's
 * own records count: a line a task wrote to /dev/kmsg, or straight to the
 * console, is not read for the cause.
 *
 * Both are read one line at a time, so the cost is linear in the input and
 * nothing is cut: a line longer than GUESTLOG_LINE_MAX is scanned by its
 * first GUESTLOG_LINE_MAX bytes, and counted in lines_cut.
 */
#ifndef BPK_GUESTLOG_H
#define BPK_GUESTLOG_H

#include <stddef.h>
#include <stdio.h>

#define GUESTLOG_LINE_MAX (64 * 1024)

struct guest_progress {
	double booted, crash_loaded, armed, panic; /* guest uptime, -1: never */
	double sysrq, nmi; /* a sysrq crash or unknown-NMI line: its stamp */
	char last_state[32]; /* the last BPK-STATE seen, "" if none */
	char refused[256]; /* reason=... of a "refused" state */
	char action[32]; /* action=... of the "armed" state: the fire action */
	int boots; /* "Command line:" lines: 2 = the capture kernel booted */
	/* the first kernel's first "Kernel panic - not syncing: " text */
	char panic_msg[512];
	/* its first Oops/BUG/WARNING line the kernel did not survive (or the
	 * last one it did), without timestamp, and the RIP after it
	 */
	char oops[512];
	char oops_where[256]; /* function+offset/size from that RIP line */
	/* "---[ end trace": the oops report ran to its end, so the kernel
	 * went on (no panic_on_oops); without it a kexec right after the
	 * oops came from the oops itself
	 */
	int oops_ended;
	/* a panic printed after the capture kernel booted: its own death */
	char capture_panic[512];
	unsigned long results_lines, console_lines, lines_cut;
	/* The console's format, told by its first record, which the kernel
	 * prints before any user space runs: 1 syslog (console_msg_format=
	 * syslog: only records of facility LOG_KERN are read, the others
	 * counted in not_kernel), 0 plain (every record is read), -1 none yet.
	 */
	int syslog;
	unsigned long not_kernel;
	/* "BPK-WORKLOAD": the job started the workload (its uptime, -1:
	 * never); a state after it other than the job's own not-fired or
	 * dry-run-done is the guest's user space claiming it: counted in
	 * claims, the first kept in claimed, and acted on as nothing
	 */
	double workload;
	unsigned long claims;
	char claimed[256];
};

void guestlog_init(struct guest_progress *g);

/* One line (without its newline) of the job's output / of the console. */
void guestlog_result_line(struct guest_progress *g, const char *line,
			  size_t len);
void guestlog_console_line(struct guest_progress *g, const char *line,
			   size_t len);

/* Feed every line of @f to the result (@console 0) or console scanner.
 * 0, or -1 with errno set on a read error.
 */
int guestlog_scan_file(struct guest_progress *g, FILE *f, int console);

/* Both at once from strings (the unit tests). */
void guestlog_scan(const char *results, const char *console,
		   struct guest_progress *g);

#endif
