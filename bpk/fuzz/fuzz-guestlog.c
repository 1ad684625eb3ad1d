// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the console and guest-log scanners
 * (collector/guestlog.c): the first byte picks the console or the job's
 * results, the rest is scanned as a file; every field it fills stays a
 * NUL-terminated string within its array, and the counts add up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void terminated(const char *field, size_t size)
{
	if (!memchr(field, '\0', size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guest_progress g;
	FILE *f;
	int console;

	if (size < 2)
		return 0;
	console = data[0] & 1;
	f = fmemopen((void *)(data + 1), size - 1, "r");
	if (!f)
		return 0;
	guestlog_init(&g);
	if (guestlog_scan_file(&g, f, console))
		abort();
	fclose(f);
	terminated(g.last_state, sizeof(g.last_state));
	terminated(g.refused, sizeof(g.refused));
	terminated(g.action, sizeof(g.action));
	terminated(g.panic_msg, sizeof(g.panic_msg));
	terminated(g.oops, sizeof(g.oops));
	terminated(g.oops_where, sizeof(g.oops_where));
	terminated(g.capture_panic, sizeof(g.capture_panic));
	if (g.boots < 0 || (console && g.results_lines) ||
	    (!console && g.console_lines))
		abort();
	return 0;
}
