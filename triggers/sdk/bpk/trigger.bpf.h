/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpk/trigger.bpf.h: what a trigger program includes, built-in or your own.
 *
 * A trigger program decides *what* matches; this header does the rest:
 * the common filters, the match counter, the fire record that lands in the
 * vmcore, and the fire action (bpf_panic() on a kernel with the bpf_panic
 * series, the crash_kexec kfunc on a stock kernel for tracing programs).
 *
 *   #include <bpk/trigger.bpf.h>
 *
 *   const volatile __u32 cfg_port = 80;        // bpk run --prog F port=443
 *
 *   SEC("fentry/tcp_reset")
 *   int BPF_PROG(on_reset, struct sock *sk)
 *   {
 *           if (sk->__sk_common.skc_num != cfg_port || !bpk_task_selected())
 *                   return 0;
 *           bpk_fire("port=%u", cfg_port);
 *           return 0;
 *   }
 *
 * Parameters: every `const volatile` global named cfg_* (an integer of any
 * width, signed or not, a bool, or a char array for text) is a k=v
 * parameter of the program, with its initial value as the default; bpk
 * checks the value against the type before anything boots. The common ones,
 * comm=, pid=, count= and dry_run, are declared here.
 *
 * Attachment: by SEC() name, as libbpf names them (kprobe/, kretprobe/,
 * fentry/, fexit/, tp/, tp_btf/, raw_tp/, uprobe/ with bpk's target=
 * parameter, perf_event on the cpu-clock event of every CPU).
 *
 * Build: clang -g -O2 -target bpf -D__TARGET_ARCH_x86 $(bpk sdk --cflags)
 * (bpk run --prog FILE.bpf.c does this itself, and caches the object).
 *
 * This file is the whole interface; what the loader and the dump need
 * behind it is in trigger-impl.bpf.h, which it includes last.
 */
#ifndef BPK_TRIGGER_BPF_H
#define BPK_TRIGGER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "fire.h"

/* The common parameters (read-only: the loader sets them before load) */
const volatile __u32 cfg_pid = 0; /* pid=: the tgid to watch, 0 = any */
/* comm=: the comm to watch, "" = any; aligned for bpk_selects() */
const volatile char cfg_comm[FIRE_COMM_LEN] __attribute__((aligned(8))) = {};
const volatile __u64 cfg_count = 1; /* count=: fire on the Nth match */

/* Does a task with @comm (16 zero-padded bytes) and @tgid pass comm= and
 * pid=? Two word compares, no loop: it runs on every event of a hot path.
 */
static __always_inline bool bpk_selects(const char *comm, __u32 tgid);

/* ... the current task (its comm read in place: the kernel keeps task comms
 * zero-padded)
 */
static __always_inline bool bpk_task_selected(void);

/* ... another task: the victim of the OOM killer, a hung or delayed task */
static __always_inline bool bpk_other_selected(struct task_struct *t);

/*
 * bpk_fire(fmt, args...): a match. Counted; on the count=-th it fills the
 * fire record (the program's name, time, hit, pid, tgid, cpu, comm, and
 * its own detail text from @fmt, BPF_SNPRINTF's format: at most 12 args)
 * and fires. A fire action that comes back (the sysctl switched off, no
 * crash kernel) is counted, and the next match tries again.
 */
#define bpk_fire(fmt, args...) __bpk_match(__bpk_set_name(), fmt, ##args)

/* The built-in triggers' form: @name a string literal */
#define trigger_match(name, fmt, args...)                                     \
	__bpk_match(__builtin_memcpy(state.fire.trigger, name, sizeof(name)), \
		    fmt, ##args)
#define trigger_selects bpk_selects
#define trigger_task_selected bpk_task_selected
#define trigger_other_selected bpk_other_selected

#include "trigger-impl.bpf.h"

#endif
