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
 */
#ifndef BPK_TRIGGER_BPF_H
#define BPK_TRIGGER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "fire.h"

/* --- the public interface */

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

/* --- what the loader and the dump need: not for a program's own use */

/* Set by the loader: how to fire, the panic message (.rodata is frozen at
 * load: bpf_panic() accepts it as a constant string), the program's name.
 */
const volatile __u32 cfg_action = FIRE_NONE;
const volatile char cfg_msg[FIRE_MSG_LEN] = {};
const volatile char cfg_trigger[FIRE_NAME_LEN] __attribute__((aligned(8))) = {};

/* Lands in the vmcore: the reason the machine went down. */
struct trigger_state state SEC(".data.fire");

/* BPF_FUNC_panic comes from the kernel's own BTF (vmlinux.h), not a guess.
 * It returns only when it did not panic: -EPERM when the sysctl is 0.
 */
static long (*bpf_panic)(const char *msg) = (void *)BPF_FUNC_panic;
extern void crash_kexec(struct pt_regs *regs) __ksym __weak;

/* The name the loader wrote, read as the volatile it is: a plain copy
 * would be folded to the all-zero initial value at compile time.
 */
static __always_inline void __bpk_set_name(void)
{
	const volatile __u64 *src = (const volatile __u64 *)cfg_trigger;
	__u64 *dst = (__u64 *)state.fire.trigger;

	for (int i = 0; i < FIRE_NAME_LEN / 8; i++)
		dst[i] = src[i];
}

static __always_inline bool bpk_selects(const char *comm, __u32 tgid)
{
	const volatile __u64 *want = (const volatile __u64 *)cfg_comm;
	const __u64 *have = (const __u64 *)comm;

	if (cfg_pid && tgid != cfg_pid)
		return false;
	return !cfg_comm[0] || (have[0] == want[0] && have[1] == want[1]);
}

static __always_inline bool bpk_task_selected(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpk_selects(t->comm, t->tgid);
}

static __always_inline bool bpk_other_selected(struct task_struct *t)
{
	char comm[FIRE_COMM_LEN] __attribute__((aligned(8))) = {};

	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	return bpk_selects(comm, BPF_CORE_READ(t, tgid));
}

/*
 * crash_kexec() is given no registers: it then saves those of the current
 * (kernel) context, which is where the backtrace of the dump should start.
 * A program the sysctl disarmed stays disarmed until it is loaded again
 * (triggerctl rearm); loading a crash kernel makes the next match fire.
 */
#define __bpk_match(set_name, fmt, args...)                                   \
	({                                                                    \
		__u64 __n = __sync_fetch_and_add(&state.matches, 1) + 1;      \
		if (__n == cfg_count || (__n > cfg_count && state.refused)) { \
			__u64 __id = bpf_get_current_pid_tgid();              \
			set_name;                                             \
			state.fire.time_ns = bpf_ktime_get_ns();              \
			state.fire.hits = __n;                                \
			state.fire.pid = (__u32)__id;                         \
			state.fire.tgid = __id >> 32;                         \
			state.fire.cpu = bpf_get_smp_processor_id();          \
			state.fire.action = cfg_action;                       \
			bpf_get_current_comm(state.fire.comm,                 \
					     sizeof(state.fire.comm));        \
			BPF_SNPRINTF(state.fire.detail,                       \
				     sizeof(state.fire.detail), fmt, ##args); \
			__builtin_memcpy(state.fire.magic, FIRE_MAGIC, 8);    \
			if (cfg_action == FIRE_BPF_PANIC) {                   \
				state.refused_ret =                           \
					bpf_panic((const char *)cfg_msg);     \
				state.refused++;                              \
			} else if (cfg_action == FIRE_CRASH_KEXEC) {          \
				crash_kexec(NULL);                            \
				state.refused_ret = 0;                        \
				state.refused++;                              \
			}                                                     \
		}                                                             \
	})

char LICENSE[] SEC("license") = "GPL";

#endif
