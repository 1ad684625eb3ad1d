// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "fire.h"
#include "names.h"
#include "params.h"

const char *param_type_name(enum param_type type)
{
	switch (type) {
	case PT_STRING:
		return "string";
	case PT_UINT:
		return "uint";
	case PT_INT:
		return "int";
	case PT_ANYUINT:
		return "uint|any";
	case PT_COUNT:
		return "uint>=1";
	case PT_FLAG:
		return "flag";
	case PT_SYSCALL:
		return "syscall";
	case PT_ERRNO:
		return "errno";
	case PT_SIGNAL:
		return "signal";
	case PT_ACTION:
		return "action";
	case PT_SYMBOL:
		return "symbol";
	}
	return "?";
}

static int parse_uint(const char *text, long long min, long long *num)
{
	char *end;
	long long n;

	if (!*text || *text == '-' || *text == '+')
		return -1;
	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno || *end || n < min)
		return -1;
	*num = n;
	return 0;
}

/* A number above the parameter's largest is refused, never cut to fit. */
static int check_max(const struct param_def *def, const char *text,
		     long long num, const char *also, char *err, size_t errlen)
{
	if (!def->max || (unsigned long long)num <= def->max)
		return 0;
	snprintf(err, errlen, "%s=%s: out of range (%d-%llu%s)", def->key, text,
		 def->type == PT_COUNT, def->max, also);
	return -1;
}

/* Convert @text for @def into @v; -1 with @err on a bad value. */
static int convert(const struct param_def *def, const char *text,
		   struct arg_value *v, char *err, size_t errlen)
{
	const char *name;
	long num;

	if (strlen(text) >= sizeof(v->text)) {
		snprintf(err, errlen, "%s=: value longer than %zu characters",
			 def->key, sizeof(v->text) - 1);
		return -1;
	}
	snprintf(v->text, sizeof(v->text), "%s", text);
	v->num = 0;
	switch (def->type) {
	case PT_STRING:
	case PT_SYMBOL:
		if (def->max && strlen(text) > def->max) {
			snprintf(err, errlen,
				 "%s=%s: longer than %llu characters", def->key,
				 text, def->max);
			return -1;
		}
		return 0;
	case PT_ANYUINT:
		if (!strcmp(text, "any")) {
			v->num = -1;
			return 0;
		}
		if (parse_uint(text, 0, &v->num)) {
			snprintf(err, errlen,
				 "%s=%s: not a whole number, or any", def->key,
				 text);
			return -1;
		}
		return check_max(def, text, v->num, ", or any", err, errlen);
	case PT_INT: {
		char *end;

		errno = 0;
		v->num = strtoll(text, &end, 10);
		if (!*text || *end) {
			snprintf(err, errlen, "%s=%s: not a whole number",
				 def->key, text);
			return -1;
		}
		if (errno || v->num < -(long long)def->max - 1 ||
		    v->num > (long long)def->max) {
			snprintf(err, errlen,
				 "%s=%s: out of range (%lld to %llu)", def->key,
				 text, -(long long)def->max - 1, def->max);
			return -1;
		}
		return 0;
	}
	case PT_UINT:
	case PT_COUNT:
		if (parse_uint(text, def->type == PT_UINT ? 0 : 1, &v->num)) {
			snprintf(err, errlen, "%s=%s: not a whole number%s",
				 def->key, text,
				 def->type == PT_UINT ? "" : " >= 1");
			return -1;
		}
		return check_max(def, text, v->num, "", err, errlen);
	case PT_FLAG:
		if (!strcmp(text, "0") || !strcmp(text, "1")) {
			v->num = text[0] == '1';
			return 0;
		}
		snprintf(err, errlen,
			 "%s=%s: a flag is given alone, or as %s=0 / %s=1",
			 def->key, text, def->key, def->key);
		return -1;
	case PT_SYSCALL:
		if (!strcmp(text, "any") && def->def &&
		    !strcmp(def->def, "any")) {
			v->num = -1;
			return 0;
		}
		if (!name_lookup(syscall_names, text, &num))
			break;
		/*
		 * The names are 6.1's: a syscall added since (cachestat 451,
		 * mseal 462) is given by number, for the kernels that have
		 * it; raw_syscalls' id is a plain number on every kernel.
		 */
		if (!parse_uint(text, 0, &v->num) && v->num < 1024) {
			snprintf(v->text, sizeof(v->text), "%lld", v->num);
			return 0;
		}
		snprintf(
			err, errlen,
			"%s=%s: unknown x86_64 syscall (a 6.1 name, or a number below 1024)",
			def->key, text);
		return -1;
	case PT_ERRNO:
		if (!strcmp(text, "any")) {
			v->num = 0;
			return 0;
		}
		if (!name_lookup(errno_names, text, &num))
			break;
		snprintf(
			err, errlen,
			"%s=%s: unknown errno (a name like ENOSPC, a number, or any)",
			def->key, text);
		return -1;
	case PT_ACTION:
		if (!strcmp(text, "auto"))
			return 0;
		if (!strcmp(text, "bpf_panic")) {
			v->num = FIRE_BPF_PANIC;
			return 0;
		}
		if (!strcmp(text, "crash_kexec")) {
			v->num = FIRE_CRASH_KEXEC;
			return 0;
		}
		snprintf(
			err, errlen,
			"%s=%s: not a fire action (auto, bpf_panic or crash_kexec)",
			def->key, text);
		return -1;
	case PT_SIGNAL:
		if (!strcmp(text, "any")) {
			v->num = 0;
			return 0;
		}
		if (!name_lookup(signal_names, text, &num))
			break;
		/* 32 and 33 have no name (glibc's own), but are signals */
		if (!parse_uint(text, 1, &v->num) && v->num <= 64)
			return 0;
		snprintf(
			err, errlen,
			"%s=%s: unknown signal (a name like SIGSEGV or SIGRTMIN+1, or 1-64)",
			def->key, text);
		return -1;
	}
	/* a name table matched: keep the number, show the canonical name */
	v->num = num;
	name = name_of(def->type == PT_SYSCALL ? syscall_names :
		       def->type == PT_ERRNO   ? errno_names :
						 signal_names,
		       num);
	snprintf(v->text, sizeof(v->text), "%s", name ? name : text);
	return 0;
}

/*
 * tp=syscalls:sys_enter_NAME / sys_exit_NAME: the syscall events are not
 * tracepoints of their own (they hang off raw_syscalls:sys_enter/sys_exit),
 * so the loader needs the syscall's number. NAME is its entry point's name,
 * as in tracefs: sys_enter_newfstat for fstat.
 */
static int check_syscall_event(const char *text, char *err, size_t errlen)
{
	const char *name;
	long nr;

	if (strncmp(text, "syscalls:", 9))
		return 0;
	name = syscall_event_name(text);
	if (!name) {
		snprintf(
			err, errlen,
			"tp=%s: not syscalls:sys_enter_NAME or syscalls:sys_exit_NAME",
			text);
		return -1;
	}
	if (!name_lookup(syscall_entries, name, &nr))
		return 0;
	if (!name_lookup(syscall_names, name, &nr) &&
	    name_of(syscall_entries, nr))
		snprintf(err, errlen,
			 "tp=%s: the event of syscall %s is sys_%s_%s", text,
			 name,
			 strncmp(text + 9, "sys_exit_", 9) ? "enter" : "exit",
			 name_of(syscall_entries, nr));
	else
		snprintf(err, errlen, "tp=%s: no syscall %s on x86_64", text,
			 name);
	return -1;
}

static const struct param_def *find_def(const struct trigger_def *t,
					const char *key, size_t keylen)
{
	const struct param_def *lists[] = { t->params, common_params };

	for (size_t l = 0; l < 2; l++)
		for (const struct param_def *d = lists[l]; d->key; d++)
			if (strlen(d->key) == keylen &&
			    !strncmp(d->key, key, keylen))
				return d;
	return NULL;
}

static void key_list(const struct trigger_def *t, char *buf, size_t len)
{
	const struct param_def *lists[] = { t->params, common_params };
	size_t used = 0;

	buf[0] = '\0';
	for (size_t l = 0; l < 2; l++)
		for (const struct param_def *d = lists[l]; d->key && used < len;
		     d++)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", d->key);
}

int args_parse(const struct trigger_def *t, int argc, char **argv,
	       struct arm_args *out, char *err, size_t errlen)
{
	const struct param_def *lists[] = { t->params, common_params };
	char keys[256];

	memset(out, 0, sizeof(*out));
	out->trigger = t;
	for (size_t l = 0; l < 2; l++) {
		for (const struct param_def *d = lists[l]; d->key; d++) {
			struct arg_value *v = &out->vals[out->n];

			if (out->n == MAX_ARGS) {
				snprintf(err, errlen,
					 "trigger %s: too many parameters",
					 t->name);
				return -1;
			}
			v->def = d;
			if (d->def && convert(d, d->def, v, err, errlen))
				return -1;
			out->n++;
		}
	}

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t keylen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		const struct param_def *d = find_def(t, argv[i], keylen);
		struct arg_value *v = NULL;

		if (!d) {
			key_list(t, keys, sizeof(keys));
			snprintf(
				err, errlen,
				"%.*s: unknown parameter of trigger %s (known: %s)",
				(int)keylen, argv[i], t->name, keys);
			return -1;
		}
		if (!eq && d->type != PT_FLAG) {
			snprintf(err, errlen, "%s: needs a value (%s=...)",
				 argv[i], d->key);
			return -1;
		}
		for (int j = 0; j < out->n; j++)
			if (out->vals[j].def == d)
				v = &out->vals[j];
		if (v->given) {
			snprintf(err, errlen, "%s: given twice", d->key);
			return -1;
		}
		if (convert(d, eq ? eq + 1 : "1", v, err, errlen))
			return -1;
		v->given = 1;
	}

	for (int j = 0; j < out->n; j++) {
		if (!out->vals[j].def->def && !out->vals[j].given) {
			snprintf(err, errlen, "trigger %s needs %s= (%s)",
				 t->name, out->vals[j].def->key,
				 out->vals[j].def->help);
			return -1;
		}
	}
	if (t->attach_param) {
		const struct arg_value *v = args_get(out, t->attach_param);
		const char *colon = strchr(v->text, ':');

		if (t->attach == ATTACH_UPROBE &&
		    (v->text[0] != '/' || !colon || !colon[1])) {
			snprintf(err, errlen,
				 "%s=%s: not /path/to/binary:symbol",
				 v->def->key, v->text);
			return -1;
		}
		if (!strcmp(v->def->key, "tp") &&
		    (!colon || colon == v->text || !colon[1])) {
			snprintf(err, errlen, "tp=%s: not category:name",
				 v->text);
			return -1;
		}
		if (!strcmp(v->def->key, "tp") &&
		    check_syscall_event(v->text, err, errlen))
			return -1;
		if (!strcmp(v->def->key, "func") &&
		    strspn(v->text, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_.") != strlen(v->text)) {
			snprintf(err, errlen,
				 "func=%s: not a kernel function name",
				 v->text);
			return -1;
		}
	}
	out->dry_run = args_get(out, "dry_run")->num != 0;
	return 0;
}

const struct arg_value *args_get(const struct arm_args *a, const char *key)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->vals[i].def->key, key))
			return &a->vals[i];
	return NULL;
}

char *args_describe(const struct arm_args *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->n && used < len; i++) {
		const struct arg_value *v = &a->vals[i];

		if (!v->given && v->def->def)
			continue;
		if (v->def->type == PT_FLAG)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "",
					 v->num ? v->def->key : "");
		else
			used += snprintf(buf + used, len - used, "%s%s=%s",
					 used ? " " : "", v->def->key, v->text);
	}
	return buf;
}

const char *syscall_event_name(const char *tp)
{
	if (strncmp(tp, "syscalls:", 9))
		return NULL;
	tp += 9;
	if (!strncmp(tp, "sys_enter_", 10) && tp[10])
		return tp + 10;
	if (!strncmp(tp, "sys_exit_", 9) && tp[9])
		return tp + 9;
	return NULL;
}
