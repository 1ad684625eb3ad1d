/* SPDX-License-Identifier: GPL-2.0 */
/* One "RESULT PASS|FAIL id: what was observed" line per check. */
#ifndef GUARD_RESULT_H
#define GUARD_RESULT_H

extern int checks_run, failures;

/* Print one result line; @ok decides PASS/FAIL, the rest says what was seen. */
void result(int ok, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What a refused or accepted call says: strerror(-@err), or "accepted" */
const char *said(int err);

#endif
