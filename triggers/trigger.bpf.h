/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every trigger program shares: the common parameters (set by the
 * loader in .rodata before load), task selection, the match counter, the
 * fire record and the fire action. A trigger's .bpf.c decides *what* matches
 * and calls trigger_match(); everything after that is here.
 */
#ifndef BPK_TRIGGER_BPF_H
#define BPK_TRIGGER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "fire.h"

/* Common parameters, written by triggerctl before load; read-only after. */
const volatile __u32 cfg_pid = 0; /* tgid to watch, 0 = any */
/* comm to watch, "" = any; aligned for trigger_selects() */
const volatile char cfg_comm[FIRE_COMM_LEN] __attribute__((aligned(8))) = {};
const volatile __u64 cfg_count = 1; /* fire on the Nth match */
const volatile __u32 cfg_action = FIRE_NONE;
/* The panic message, built by the loader from the trigger and its arguments.
 * .rodata is frozen at load: bpf_panic() accepts it as a constant string.
 */
const volatile char cfg_msg[FIRE_MSG_LEN] = {};

/* Lands in the vmcore: the reason the machine went down. */
struct trigger_state state SEC(".data.fire");

/* BPF_FUNC_panic comes from the kernel's own BTF (vmlinux.h), not a guess.
 * It returns only when it did not panic: -EPERM when the sysctl is 0.
 */
static long (*bpf_panic)(const char *msg) = (void *)BPF_FUNC_panic;
extern void crash_kexec(struct pt_regs *regs) __ksym __weak;

/*
 * Does task @comm/@tgid pass the common comm= and pid= filters? Both comms
 * are 16 zero-padded bytes: two word compares, not a loop, since this runs
 * on every event of a hot path.
 */
static __always_inline bool trigger_selects(const char *comm, __u32 tgid)
{
	const volatile __u64 *want = (const volatile __u64 *)cfg_comm;
	const __u64 *have = (const __u64 *)comm;

	if (cfg_pid && tgid != cfg_pid)
		return false;
	return !cfg_comm[0] || (have[0] == want[0] && have[1] == want[1]);
}

/* ... the current task: its comm read in place (the kernel keeps task
 * comms zero-padded, __set_task_comm), no copy through a helper
 */
static __always_inline bool trigger_task_selected(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return trigger_selects(t->comm, t->tgid);
}

/* ... another task: the victim of the OOM killer, a hung or delayed task */
static __always_inline bool trigger_other_selected(struct task_struct *t)
{
	char comm[FIRE_COMM_LEN] __attribute__((aligned(8))) = {};

	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	return trigger_selects(comm, BPF_CORE_READ(t, tgid));
}

/*
 * A match: count it; on the cfg_count-th, fill the fire record (detail is
 * the trigger's own "k=v" text) and fire. crash_kexec() is given no
 * registers: it then saves those of the current (kernel) context, which is
 * where the backtrace of the dump should start. A fire action that comes
 * back (bpf_panic() after the sysctl was switched off, crash_kexec()
 * without a crash kernel) is counted, and every later match tries again:
 * loading a crash kernel makes the next one fire, but a program the sysctl
 * disarmed stays disarmed until it is loaded again (triggerctl rearm).
 */
#define trigger_match(name, fmt, args...)                                     \
	({                                                                    \
		__u64 __n = __sync_fetch_and_add(&state.matches, 1) + 1;      \
		if (__n == cfg_count || (__n > cfg_count && state.refused)) { \
			__u64 __id = bpf_get_current_pid_tgid();              \
			__builtin_memcpy(state.fire.trigger, name,            \
					 sizeof(name));                       \
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
