// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* memmem */
#include <errno.h>
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

/* @key's value in the line: the word after " key=", or NULL. */
static const char *word_after(const char *line, size_t len, const char *key,
			      size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = memmem(line, len, key, klen);
	const char *end = line + len, *v, *sp;

	if (!p)
		return NULL;
	v = p + klen;
	sp = memchr(v, ' ', (size_t)(end - v));
	*vlen = (size_t)((sp ? sp : end) - v);
	return v;
}

void guestlog_init(struct guest_progress *g)
{
	memset(g, 0, sizeof(*g));
	g->booted = g->crash_loaded = g->armed = g->panic = -1;
}

void guestlog_result_line(struct guest_progress *g, const char *line,
			  size_t len)
{
	const char *state = line + strlen("BPK-STATE "), *v;
	const char *end = line + len;
	const char *sp;
	size_t vlen;
	double up = -1;

	g->results_lines++;
	if (len <= 10 || strncmp(line, "BPK-STATE ", 10))
		return;
	sp = memchr(state, ' ', (size_t)(end - state));
	copy_field(g->last_state, sizeof(g->last_state), state,
		   (size_t)((sp ? sp : end) - state));
	v = word_after(line, len, " t=", &vlen);
	if (v) {
		char num[32];

		copy_field(num, sizeof(num), v, vlen);
		up = strtod(num, NULL);
	}
	if (!strcmp(g->last_state, "booted")) {
		g->booted = up;
	} else if (!strcmp(g->last_state, "crash-kernel-loaded")) {
		g->crash_loaded = up;
	} else if (!strcmp(g->last_state, "armed")) {
		g->armed = up;
		v = word_after(line, len, " action=", &vlen);
		if (v)
			copy_field(g->action, sizeof(g->action), v, vlen);
	} else if (!strcmp(g->last_state, "refused")) {
		/* the reason is the rest of the line, spaces and all */
		const char *r = memmem(line, len, " reason=", 8);

		if (r)
			copy_field(g->refused, sizeof(g->refused), r + 8,
				   (size_t)(end - r - 8));
	}
}

/* Does the message (after the timestamp) start an oops report? */
static int oops_start(const char *msg, size_t len)
{
	static const char *const tags[] = {
		"Oops: ",
		"BUG: ",
		"WARNING: ",
		"kernel BUG at ",
		"general protection fault",
		"invalid opcode: ",
	};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i]);

		if (len >= n && !memcmp(msg, tags[i], n))
			return 1;
	}
	return 0;
}

void guestlog_console_line(struct guest_progress *g, const char *line,
			   size_t len)
{
	const char *msg = line, *tag, *close;
	double stamp = -1;
	size_t mlen;

	g->console_lines++;
	if (len && line[len - 1] == '\r')
		len--;
	/* "[    2.238384] message": the timestamp, then the message */
	if (len && line[0] == '[') {
		close = memchr(line, ']', len);
		if (close && close + 1 < line + len && close[1] == ' ') {
			char num[32];

			copy_field(num, sizeof(num), line + 1,
				   (size_t)(close - line - 1));
			stamp = strtod(num, NULL);
			msg = close + 2;
		}
	}
	mlen = len - (size_t)(msg - line);

	if (mlen >= 14 && !memcmp(msg, "Command line: ", 14)) {
		g->boots++;
		return;
	}
	tag = memmem(msg, mlen, PANIC_TAG, strlen(PANIC_TAG));
	if (tag) {
		const char *text = tag + strlen(PANIC_TAG);
		size_t tlen = (size_t)(msg + mlen - text);

		if (g->boots >= 2) {
			/* after kexec: the capture kernel dying, whether or
			 * not the first kernel printed a panic (crash_kexec
			 * does not) */
			if (!g->capture_panic[0])
				copy_field(g->capture_panic,
					   sizeof(g->capture_panic), text,
					   tlen);
		} else if (!g->panic_msg[0]) {
			copy_field(g->panic_msg, sizeof(g->panic_msg), text,
				   tlen);
			g->panic = stamp;
		}
		return;
	}
	if (g->boots >= 2)
		return;
	if (g->oops[0] && mlen >= 14 && !memcmp(msg, "---[ end trace", 14))
		g->oops_ended = 1;
	if (!g->oops[0] && oops_start(msg, mlen)) {
		copy_field(g->oops, sizeof(g->oops), msg, mlen);
	} else if (g->oops[0] && !g->oops_where[0] && mlen > 5 &&
		   !memcmp(msg, "RIP: ", 5)) {
		/* "RIP: 0010:lkdtm_EXCEPTION+0x5/0x10": after the segment */
		const char *colon = memchr(msg + 5, ':', mlen - 5);
		const char *where = colon ? colon + 1 : msg + 5;

		copy_field(g->oops_where, sizeof(g->oops_where), where,
			   (size_t)(msg + mlen - where));
	}
}

int guestlog_scan_file(struct guest_progress *g, FILE *f, int console)
{
	static char buf[GUESTLOG_LINE_MAX + 1];

	for (;;) {
		size_t len;
		int c;

		if (!fgets(buf, sizeof(buf), f))
			break;
		len = strlen(buf);
		if (len && buf[len - 1] == '\n') {
			len--;
		} else if (len == GUESTLOG_LINE_MAX && (c = fgetc(f)) != EOF &&
			   c != '\n') {
			/* too long: scan its start, skip the rest */
			g->lines_cut++;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (console)
			guestlog_console_line(g, buf, len);
		else
			guestlog_result_line(g, buf, len);
	}
	if (ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

static void scan_string(struct guest_progress *g, const char *text, int console)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (console)
			guestlog_console_line(g, line, len);
		else
			guestlog_result_line(g, line, len);
		line = nl ? nl + 1 : NULL;
	}
}

void guestlog_scan(const char *results, const char *console,
		   struct guest_progress *g)
{
	guestlog_init(g);
	scan_string(g, results, 0);
	scan_string(g, console, 1);
}
