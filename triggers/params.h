/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing and checking "key=value" trigger arguments, before any loading. */
#ifndef BPK_PARAMS_H
#define BPK_PARAMS_H

#include <stddef.h>

#include "table.h"

#define MAX_ARGS 24
#define ARG_TEXT_LEN 128

struct arg_value {
	const struct param_def *def;
	char text[ARG_TEXT_LEN]; /* canonical text: "openat", "ENOSPC", "100" */
	long long num; /* the number, for numeric types */
	int given; /* set on the command line, not a default */
};

struct arm_args {
	const struct trigger_def *trigger;
	struct arg_value vals[MAX_ARGS];
	int n;
	int dry_run;
};

/*
 * Check and convert @argv ("key=value" words) for trigger @t, filling in
 * defaults. On error returns -1 with a one-line reason in @err.
 */
int args_parse(const struct trigger_def *t, int argc, char **argv,
	       struct arm_args *out, char *err, size_t errlen);

const struct arg_value *args_get(const struct arm_args *a, const char *key);

/* "key=value ..." of the arguments given, canonical; returns @buf. */
char *args_describe(const struct arm_args *a, char *buf, size_t len);

/* The syscall NAME of tp=syscalls:sys_enter_NAME or sys_exit_NAME (a
 * pointer into @tp), or NULL when @tp is not such an event.
 */
const char *syscall_event_name(const char *tp);

/* Human name of a parameter type, for `list`. */
const char *param_type_name(enum param_type type);

#endif
