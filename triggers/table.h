/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trigger table: every trigger is one .bpf.c (its skeleton's ELF bytes)
 * plus one entry here saying what it is called, what parameters it takes
 * and how it attaches. The loader code is shared by all of them.
 */
#ifndef BPK_TABLE_H
#define BPK_TABLE_H

#include <stddef.h>

enum param_type {
	PT_STRING, /* text, copied into a char array */
	PT_UINT, /* decimal, >= 0 */
	PT_INT, /* decimal, signed: -max-1 to max (two's complement) */
	PT_ANYUINT, /* decimal >= 0, or "any" (-1) */
	PT_COUNT, /* decimal, >= 1: counts and durations (the key names the unit) */
	PT_FLAG, /* "key" alone, or key=0/1 */
	PT_SYSCALL, /* x86_64 syscall name or number; "any" (-1) if the default */
	PT_ERRNO, /* errno name or number; "any" = 0 */
	PT_SIGNAL, /* signal name (SIGSEGV or SEGV) or number; "any" = 0 */
	PT_SYMBOL, /* an attach target: function, /binary:symbol, category:name */
	PT_ACTION, /* the fire action: auto (0), bpf_panic or crash_kexec (FIRE_*) */
};

struct param_def {
	const char *key;
	enum param_type type;
	const char *var; /* the .rodata variable it sets; NULL: loader's own */
	const char *def; /* default as text; NULL: required */
	const char *help;
	/* strings: longest value accepted; numbers: largest (0: no limit but
	 * the variable's own size, which the loader checks)
	 */
	unsigned long long max;
};

enum attach_kind {
	ATTACH_AUTO, /* every program by its SEC() name */
	ATTACH_BTF, /* fentry/fexit/tp_btf on the target in attach_param
		     * (for tp_btf, category:name: the name is the target)
		     */
	ATTACH_UPROBE, /* uprobe programs on /binary:symbol in attach_param */
	ATTACH_PERF_CPU_CLOCK, /* perf_event programs on a cpu-clock sampling
				* event on every online CPU, every 10 ms
				*/
};

struct trigger_def {
	const char *name;
	const char *summary;
	const void *(*elf_bytes)(size_t *size);
	const struct param_def *params; /* own parameters, { NULL } ended */
	enum attach_kind attach;
	const char *attach_param;
	/* Its programs are tracing programs (fentry/fexit/tp_btf), which may
	 * call the crash_kexec kfunc: the fire action on a stock kernel.
	 */
	int kfunc_ok;
	/* A sysctl the loader sets to a parameter's value before arming */
	const char *sysctl_path, *sysctl_param;
	const char *example; /* arguments of a typical use */
	const char *workload; /* triggers/examples/<this> provokes it */
};

extern const struct param_def common_params[];
extern const struct trigger_def triggers[];

const struct trigger_def *trigger_find(const char *name);

#endif
