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
	PT_COUNT, /* decimal, >= 1 */
	PT_FLAG, /* "key" alone, or key=0/1 */
	PT_SYSCALL, /* x86_64 syscall name or number */
	PT_ERRNO, /* errno name or number; "any" = 0 */
	PT_SIGNAL, /* signal name (SIGSEGV or SEGV) or number */
	PT_MSEC, /* milliseconds, >= 1 */
	PT_SYMBOL, /* an attach target: function, binary:symbol, category:name */
};

struct param_def {
	const char *key;
	enum param_type type;
	const char *var; /* the .rodata variable it sets; NULL: loader's own */
	const char *def; /* default as text; NULL: required */
	const char *help;
	unsigned int max_len; /* strings: longest value accepted (0: any) */
};

enum attach_kind {
	ATTACH_AUTO, /* every program by its SEC() name */
	ATTACH_FENTRY, /* fentry/fexit programs on the function in attach_param */
	ATTACH_KPROBE, /* kprobe programs on the function in attach_param */
	ATTACH_UPROBE, /* uprobe programs on binary:symbol in attach_param */
	ATTACH_TRACEPOINT, /* tracepoint programs on category:name in attach_param */
};

struct trigger_def {
	const char *name;
	const char *summary;
	const void *(*elf_bytes)(size_t *size);
	const struct param_def *params; /* own parameters, { NULL } ended */
	enum attach_kind attach;
	const char *attach_param;
	const char *example; /* arguments of a typical use */
};

extern const struct param_def common_params[];
extern const struct trigger_def triggers[];

const struct trigger_def *trigger_find(const char *name);

#endif
