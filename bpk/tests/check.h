/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' reporting: one "PASS|FAIL name: observed" line per
 * check, what was observed always printable and on that one line, and a
 * count at the end. Included by one test program each, so its statics are
 * that program's.
 */
#ifndef BPK_TESTS_CHECK_H
#define BPK_TESTS_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int checks_passed, checks_failed;

static void check(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check(const char *name, bool ok, const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	/* A line of its own whatever the detail holds. */
	for (char *p = detail; *p; p++)
		if (*p == '\n')
			*p = ' ';
	printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
	if (ok)
		checks_passed++;
	else
		checks_failed++;
}

static int checks_done(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, checks_passed,
	       checks_failed);
	return checks_failed ? 1 : 0;
}

/*
 * @len bytes of @s in C escapes (\n, \xNN), quoted, in one of a few
 * rotating buffers so that a check can show two strings at once.
 */
static const char *vis_len(const char *s, size_t len)
{
	static char bufs[4][1024];
	static int next;
	char *b = bufs[next++ % 4];
	size_t o = 0;

	if (!s)
		return "NULL";
	b[o++] = '"';
	for (size_t i = 0; i < len && o < sizeof(bufs[0]) - 8; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			o += (size_t)sprintf(b + o, "\\%c", c);
		else if (c == '\n')
			o += (size_t)sprintf(b + o, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)sprintf(b + o, "\\x%02x", c);
		else
			b[o++] = (char)c;
	}
	b[o++] = '"';
	b[o] = '\0';
	return b;
}

static const char *vis(const char *s)
{
	return vis_len(s, s ? strlen(s) : 0);
}

/* The whole output of a shell command (at most @size - 1 bytes) and its
 * exit status, -1 if it could not be run.
 */
static __attribute__((unused)) int run_capture(const char *cmd, char *out,
					       size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	out[0] = '\0';
	if (!p)
		return -1;
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	st = pclose(p);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
