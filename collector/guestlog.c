// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlog.h"

#define PANIC_TAG "Kernel panic - not syncing: "

static void copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void scan_state(const char *line, size_t len, struct guest_progress *g)
{
	const char *state = line + strlen("BPK-STATE ");
	const char *sp = memchr(state, ' ', len - (size_t)(state - line));
	const char *t = strstr(state, " t=");
	const char *reason = strstr(state, " reason=");
	size_t slen = sp ? (size_t)(sp - state) : len - (size_t)(state - line);
	double up = t && t < line + len ? strtod(t + 3, NULL) : -1;

	copy_field(g->last_state, sizeof(g->last_state), state, slen);
	if (!strcmp(g->last_state, "booted"))
		g->booted = up;
	else if (!strcmp(g->last_state, "crash-kernel-loaded"))
		g->crash_loaded = up;
	else if (!strcmp(g->last_state, "armed"))
		g->armed = up;
	else if (!strcmp(g->last_state, "refused") && reason &&
		 reason < line + len)
		copy_field(g->refused, sizeof(g->refused), reason + 8,
			   (size_t)(line + len - reason - 8));
}

/*
 * Panic lines: "[    2.238384] Kernel panic - not syncing: msg". The first
 * is the trigger's. One after a second "Command line:" (a new boot) is the
 * capture kernel dying, e.g. in too small a crashkernel= reservation.
 */
static void scan_console(const char *console, struct guest_progress *g)
{
	int boots = 0;

	for (const char *line = console; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *tag = strstr(line, PANIC_TAG);
		const char *boot = strstr(line, "] Command line: ");
		const char *msg, *open;
		size_t mlen;

		if (boot && boot < end)
			boots++;
		if (tag && tag < end) {
			msg = tag + strlen(PANIC_TAG);
			mlen = (size_t)(end - msg);
			if (mlen && msg[mlen - 1] == '\r')
				mlen--;
			if (!g->panic_msg[0]) {
				copy_field(g->panic_msg, sizeof(g->panic_msg),
					   msg, mlen);
				open = memchr(line, '[', (size_t)(tag - line));
				if (open)
					g->panic = strtod(open + 1, NULL);
			} else if (boots >= 2) {
				copy_field(g->capture_panic,
					   sizeof(g->capture_panic), msg, mlen);
				return;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

void guestlog_scan(const char *results, const char *console,
		   struct guest_progress *g)
{
	memset(g, 0, sizeof(*g));
	g->booted = g->crash_loaded = g->armed = g->panic = -1;

	for (const char *line = results; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > 10 && !strncmp(line, "BPK-STATE ", 10))
			scan_state(line, len, g);
		line = nl ? nl + 1 : NULL;
	}

	scan_console(console, g);
}
