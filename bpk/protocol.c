// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

/* console_patterns[], generated from lib/console-patterns */
#include "patterns.h"

const size_t n_console_patterns =
	sizeof(console_patterns) / sizeof(console_patterns[0]);

/* Is there a "[    1.234567] " stamp at @p? Its length, else 0. */
static size_t stamp_at(const char *p, const char *end, double *stamp)
{
	const char *q = p + 1;
	bool digits = false, dot = false;
	char num[32];
	size_t n;

	if (p >= end || *p != '[')
		return 0;
	while (q < end && *q == ' ')
		q++;
	for (; q < end && ((*q >= '0' && *q <= '9') || *q == '.'); q++) {
		if (*q == '.') {
			if (dot)
				return 0;
			dot = true;
		} else {
			digits = true;
		}
	}
	if (!digits || !dot || q + 1 >= end || q[0] != ']' || q[1] != ' ' ||
	    q - p > 30)
		return 0;
	n = (size_t)(q - p - 1);
	memcpy(num, p + 1, n);
	num[n] = '\0';
	*stamp = strtod(num, NULL);
	return (size_t)(q + 2 - p);
}

/* Is there a "<N>" syslog prefix at @p? Its length, with the facility
 * (N / 8) in *@facility, else 0.
 */
static size_t prefix_at(const char *p, const char *end, int *facility)
{
	const char *q = p + 1;
	unsigned int v = 0;

	if (p >= end || *p != '<')
		return 0;
	/* 8 digits at most: far beyond any facility, and no overflow */
	for (; q < end && *q >= '0' && *q <= '9' && q - p <= 8; q++)
		v = v * 10 + (unsigned int)(*q - '0');
	if (q == p + 1 || q >= end || *q != '>')
		return 0;
	*facility = (int)(v >> 3);
	return (size_t)(q + 1 - p);
}

/* A record's start at @p, a stamp with or without a "<N>" before it: its
 * length, else 0; *@facility N / 8, or -1 without a prefix or a record (a
 * "<N>" with no stamp after it begins none).
 */
static size_t record_at(const char *p, const char *end, double *stamp,
			int *facility)
{
	int f = -1;
	size_t pl = prefix_at(p, end, &f), sl = stamp_at(p + pl, end, stamp);

	*facility = sl ? f : -1;
	return sl ? pl + sl : 0;
}

const char *console_message(const char *line, size_t len, size_t *mlen,
			    double *stamp, int *facility)
{
	const char *msg = line;

	*stamp = -1;
	if (len && line[len - 1] == '\r')
		len--;
	msg += record_at(line, line + len, stamp, facility);
	*mlen = len - (size_t)(msg - line);
	return msg;
}

const char *console_next_record(const char *p, const char *end, size_t *mlen,
				double *stamp, int *facility)
{
	const char *msg, *q;
	size_t rl;

	if (p >= end)
		return NULL;
	*stamp = -1;
	rl = record_at(p, end, stamp, facility);
	msg = p + rl;
	/* the message runs to the next record */
	for (q = msg; q < end; q++) {
		double ignored;
		int ignored_facility;

		if ((*q == '[' || *q == '<') &&
		    record_at(q, end, &ignored, &ignored_facility))
			break;
	}
	*mlen = (size_t)(q - msg);
	if (!rl && !*mlen)
		return NULL;
	return msg;
}

int console_match(const char *msg, size_t len, enum pattern_scope scope,
		  size_t *taglen)
{
	for (size_t i = 0; i < n_console_patterns; i++) {
		const struct console_pattern *p = &console_patterns[i];
		size_t n = strlen(p->text);

		if (p->scope == scope && len >= n && !memcmp(msg, p->text, n)) {
			if (taglen)
				*taglen = n;
			return (int)p->kind;
		}
	}
	return -1;
}

bool console_is(const char *msg, size_t len, enum pattern_kind kind)
{
	for (size_t i = 0; i < n_console_patterns; i++) {
		const struct console_pattern *p = &console_patterns[i];
		size_t n = strlen(p->text);

		if (p->kind == kind && p->scope == SCOPE_LINE && len >= n &&
		    !memcmp(msg, p->text, n))
			return true;
	}
	return false;
}

/* @s with every space a comma: one word on the kernel command line */
static char *commas(const char *s)
{
	char *c = strdup(s ? s : "");

	for (char *p = c; p && *p; p++)
		if (*p == ' ')
			*p = ',';
	return c;
}

static void add(char **line, size_t *len, const char *fmt, const char *val)
{
	char word[4096];
	int n = snprintf(word, sizeof(word), fmt, val ? val : "");
	size_t wl = n < 0 ? 0 : strlen(word);

	*line = realloc(*line, *len + wl + 2);
	if (!*line)
		abort();
	if (*len)
		(*line)[(*len)++] = ' ';
	memcpy(*line + *len, word, wl + 1);
	*len += wl;
}

char *guest_cmdline(const struct guest_params *p)
{
	char *line = NULL, num[32], *c;
	size_t len = 0;

	add(&line, &len, "bpk.job=appliance", NULL);
	if (p->control)
		add(&line, &len, "bpk.control=1", NULL);
	if (p->trigger)
		add(&line, &len, "bpk.trigger=%s", p->trigger);
	if (p->repeat >= 0) {
		snprintf(num, sizeof(num), "%d", p->repeat);
		add(&line, &len, "bpk.repeat=%s", num);
	}
	if (p->args && *p->args) {
		c = commas(p->args);
		add(&line, &len, "bpk.args=%s", c);
		free(c);
	}
	if (p->dry)
		add(&line, &len, "bpk.dry=1", NULL);
	if (p->capture_append && *p->capture_append) {
		c = commas(p->capture_append);
		add(&line, &len, "bpk.capture_append=%s", c);
		free(c);
	}
	if (p->kexec_checks)
		add(&line, &len, "bpk.kexec_checks=1", NULL);
	if (p->dump_host)
		add(&line, &len, "bpk.dump=host", NULL);
	if (p->append && *p->append)
		add(&line, &len, "%s", p->append);
	if (!p->sysctl)
		add(&line, &len, "bpk.sysctl=0", NULL);
	if (!p->reservation_check)
		add(&line, &len, "bpk.reservation_check=0", NULL);
	/* an oops is a field bug too: by default it panics, so it is dumped */
	if (p->panic_on_oops)
		add(&line, &len, "oops=panic", NULL);
	if (p->panic_on_warn)
		add(&line, &len, "panic_on_warn=1", NULL);
	if (p->panic_softlockup)
		add(&line, &len, "softlockup_panic=1", NULL);
	if (p->panic_hung)
		add(&line, &len, "hung_task_panic=1", NULL);
	/* a sysctl with no boot parameter of its own */
	if (p->panic_rcu)
		add(&line, &len, "sysctl.kernel.panic_on_rcu_stall=1", NULL);
	/* the NMI the host injects reaches no handler: it panics */
	if (p->nmi_panic)
		add(&line, &len, "unknown_nmi_panic", NULL);
	if (p->crashkernel && strcmp(p->crashkernel, "none"))
		add(&line, &len, "crashkernel=%s", p->crashkernel);
	if (p->preinit)
		add(&line, &len, "rdinit=/etc/bpk/preinit", NULL);
	if (p->attempt > 0) {
		snprintf(num, sizeof(num), "%d", p->attempt);
		add(&line, &len, "bpk.attempt=%s", num);
	}
	return line;
}

char *control_header(const struct guest_params *p, const char *seed,
		     size_t size)
{
	char *args = commas(p->args), *h, when[80] = "";
	int n;

	if (p->host_time > 0)
		snprintf(when, sizeof(when), " time=%lld", p->host_time);
	if (p->prog_size)
		snprintf(when + strlen(when), sizeof(when) - strlen(when),
			 " prog_size=%zu", p->prog_size);
	n = asprintf(
		&h,
		CONTROL_PREFIX
		"trigger=%s args=%s repeat=%d dry=%d sysctl=%d panic_on_oops=%d panic_on_warn=%d softlockup_panic=%d hung_task_panic=%d panic_on_rcu_stall=%d unknown_nmi_panic=%d dump=%s attempt=%d seed=%s%s size=%zu\n",
		p->trigger ? p->trigger : "", args, p->repeat, p->dry,
		p->sysctl, p->panic_on_oops, p->panic_on_warn,
		p->panic_softlockup, p->panic_hung, p->panic_rcu, p->nmi_panic,
		p->dump_host ? "host" : "kdump", p->attempt, seed, when, size);

	free(args);
	return n < 0 ? NULL : h;
}
