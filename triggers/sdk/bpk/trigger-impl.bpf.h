/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpk/trigger-impl.bpf.h: what the loader and the dump need behind
 * <bpk/trigger.bpf.h>, which includes it; not for a program's own use. The
 * names here (cfg_action, cfg_msg, cfg_trigger, the .data.fire section's
 * state) are what bpk's loader sets and the report reads from the vmcore.
 */
#ifndef BPK_TRIGGER_IMPL_BPF_H
#define BPK_TRIGGER_IMPL_BPF_H

#ifndef BPK_TRIGGER_BPF_H
#error "include <bpk/trigger.bpf.h>, not this file"
#endif

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
