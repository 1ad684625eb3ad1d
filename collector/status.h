/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture step's status record (appliance/kdump/99bpkdump): key=value
 * lines, the last one "end". Without "end" the record itself was cut short.
 */
#ifndef BPK_STATUS_H
#define BPK_STATUS_H

#include <stddef.h>

#define STATUS_MAX_FIELDS 32
#define STATUS_KEY_LEN 32
#define STATUS_VAL_LEN 128

struct capture_status {
	int n;
	char key[STATUS_MAX_FIELDS][STATUS_KEY_LEN];
	char val[STATUS_MAX_FIELDS][STATUS_VAL_LEN];
};

/* 0, or -1 with a one-line reason in @err (no "end", a line without '=',
 * no status= field, a duplicated key, too many fields).
 */
int status_parse(const char *text, struct capture_status *st, char *err,
		 size_t errlen);

/* The value of @key, or NULL. */
const char *status_get(const struct capture_status *st, const char *key);

#endif
