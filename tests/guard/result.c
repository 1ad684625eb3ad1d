// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "result.h"

int checks_run, failures;

void result(int ok, const char *id, const char *fmt, ...)
{
	va_list ap;

	checks_run++;
	if (!ok)
		failures++;
	printf("RESULT %s %s: ", ok ? "PASS" : "FAIL", id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

const char *said(int err)
{
	return err ? strerror(-err) : "accepted";
}
