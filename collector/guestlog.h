/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest said about its run: the "BPK-STATE <state> t=<uptime> ..."
 * lines of the appliance job (appliance/guest/jobs/appliance) and the panic
 * line of the console.
 */
#ifndef BPK_GUESTLOG_H
#define BPK_GUESTLOG_H

#include <stddef.h>

struct guest_progress {
	double booted, crash_loaded, armed, panic; /* guest uptime, -1: never */
	char last_state[32]; /* the last BPK-STATE seen, "" if none */
	char refused[256]; /* reason=... of a "refused" state */
	char panic_msg[512]; /* text after "Kernel panic - not syncing: " */
	char capture_panic[512]; /* a second panic: the capture kernel's own */
};

/* Scan the job's output (@results) and the console (@console). */
void guestlog_scan(const char *results, const char *console,
		   struct guest_progress *g);

#endif
