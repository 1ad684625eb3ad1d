// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlog.h"
#include "protocol.h"

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

/* Are the @len bytes at @s the word @w? */
static bool word_is(const char *s, size_t len, const char *w)
{
	return len == strlen(w) && !memcmp(s, w, len);
}

void guestlog_init(struct guest_progress *g)
{
	memset(g, 0, sizeof(*g));
	g->booted = g->crash_loaded = g->armed = g->panic = -1;
	g->sysrq = g->nmi = -1;
	g->syslog = -1;
	g->workload = -1;
}

void guestlog_result_line(struct guest_progress *g, const char *line,
			  size_t len)
{
	const char *state = line + strlen(STATE_PREFIX), *v;
	const char *end = line + len;
	const char *sp;
	size_t vlen, slen;
	double up = -1;

	g->results_lines++;
	if (len >= strlen(WORKLOAD_PREFIX) &&
	    !strncmp(line, WORKLOAD_PREFIX, strlen(WORKLOAD_PREFIX))) {
		/* its uptime, or 0 when it has none: it started all the same */
		if (g->workload < 0) {
			char num[32] = "0";

			v = word_after(line, len, " t=", &vlen);
			if (v)
				copy_field(num, sizeof(num), v, vlen);
			g->workload = strtod(num, NULL);
		}
		return;
	}
	if (len <= strlen(STATE_PREFIX) ||
	    strncmp(line, STATE_PREFIX, strlen(STATE_PREFIX)))
		return;
	sp = memchr(state, ' ', (size_t)(end - state));
	slen = (size_t)((sp ? sp : end) - state);
	if (g->workload >= 0 && !word_is(state, slen, STATE_NOT_FIRED) &&
	    !word_is(state, slen, STATE_DRY_DONE)) {
		if (!g->claims++)
			copy_field(g->claimed, sizeof(g->claimed), line, len);
		return;
	}
	copy_field(g->last_state, sizeof(g->last_state), state, slen);
	v = word_after(line, len, " t=", &vlen);
	if (v) {
		char num[32];

		copy_field(num, sizeof(num), v, vlen);
		up = strtod(num, NULL);
	}
	if (!strcmp(g->last_state, STATE_BOOTED)) {
		g->booted = up;
	} else if (!strcmp(g->last_state, STATE_CRASH_LOADED)) {
		g->crash_loaded = up;
	} else if (!strcmp(g->last_state, STATE_ARMED)) {
		g->armed = up;
		v = word_after(line, len, " action=", &vlen);
		if (v)
			copy_field(g->action, sizeof(g->action), v, vlen);
	} else if (!strcmp(g->last_state, STATE_REFUSED)) {
		/* the reason is the rest of the line, spaces and all */
		const char *r = memmem(line, len, " reason=", 8);

		if (r)
			copy_field(g->refused, sizeof(g->refused), r + 8,
				   (size_t)(end - r - 8));
	}
}

/* Does the message (after the timestamp) start an oops report? A WARNING
 * is one too: with panic_on_warn it is what brought the kernel down.
 */
static int oops_start(const char *msg, size_t len)
{
	return console_is(msg, len, PAT_OOPS) ||
	       console_is(msg, len, PAT_WARNING);
}

/* One kernel log record's message (after its stamp). */
static void console_record(struct guest_progress *g, const char *msg,
			   size_t mlen, double stamp, int facility)
{
	size_t taglen;
	int kind;

	/* the first stamped record decides (text before it, such as the
	 * firmware's, is no record)
	 */
	if (g->syslog < 0 && stamp >= 0)
		g->syslog = facility >= 0;
	if (g->syslog == 1 && facility != LOG_FACILITY_KERN) {
		g->not_kernel++;
		return;
	}
	kind = console_match(msg, mlen, SCOPE_LINE, &taglen);
	if (kind == PAT_BOOT) {
		g->boots++;
		return;
	}
	if (kind == PAT_PANIC) {
		const char *text = msg + taglen;
		size_t tlen = mlen - taglen;

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
	if (kind == PAT_SYSRQ && g->sysrq < 0)
		g->sysrq = stamp >= 0 ? stamp : 0;
	if (kind == PAT_NMI && g->nmi < 0)
		g->nmi = stamp >= 0 ? stamp : 0;
	if (g->oops[0] && kind == PAT_END_TRACE)
		g->oops_ended = 1;
	/* the oops that matters is the first the kernel did not survive: a
	 * new one after an end of trace replaces one it survived
	 */
	if ((!g->oops[0] || g->oops_ended) && oops_start(msg, mlen)) {
		copy_field(g->oops, sizeof(g->oops), msg, mlen);
		g->oops_where[0] = '\0';
		g->oops_ended = 0;
	} else if (g->oops[0] && !g->oops_where[0] && kind == PAT_RIP &&
		   mlen > taglen) {
		/* "RIP: 0010:lkdtm_EXCEPTION+0x5/0x10": after the segment */
		const char *colon = memchr(msg + taglen, ':', mlen - taglen);
		const char *where = colon ? colon + 1 : msg + taglen;

		copy_field(g->oops_where, sizeof(g->oops_where), where,
			   (size_t)(msg + mlen - where));
	}
}

void guestlog_console_line(struct guest_progress *g, const char *line,
			   size_t len)
{
	const char *p = line, *end = line + len, *msg;
	double stamp;
	size_t mlen;
	int facility;

	g->console_lines++;
	if (len && line[len - 1] == '\r')
		end--;
	/* The console carries the kernel's records and whatever user space
	 * writes to it: a record may begin mid-line, after text a task left
	 * without its newline. Each "[ seconds] " stamp begins one.
	 */
	while ((msg = console_next_record(p, end, &mlen, &stamp, &facility))) {
		console_record(g, msg, mlen, stamp, facility);
		p = msg + mlen;
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
