// SPDX-License-Identifier: GPL-2.0
/* syscall_slow: a syscall (or a given one) took longer than ms=. */
#include "trigger.bpf.h"

const volatile __s64 cfg_syscall = -1; /* -1 = any */
const volatile __u64 cfg_msec = 1000;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* thread id */
	__type(value, __u64); /* syscall entry time */
} entered SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(syscall_slow_enter, struct pt_regs *regs, long id)
{
	__u32 tid;
	__u64 now;

	/* on every syscall entry: the cheap test first, helpers only after it */
	if ((cfg_syscall >= 0 && id != cfg_syscall) || !trigger_task_selected())
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&entered, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_slow_exit, struct pt_regs *regs, long ret)
{
	long nr =
		regs->orig_ax; /* a BTF pointer: a direct load, no helper call */
	__u64 *start, ms;
	__u32 tid;

	/* every syscall exit comes here: rule out the others before the lookup */
	if (cfg_syscall >= 0 && nr != cfg_syscall)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	start = bpf_map_lookup_elem(&entered, &tid);
	if (!start)
		return 0;
	ms = (bpf_ktime_get_ns() - *start) / 1000000;
	bpf_map_delete_elem(&entered, &tid);
	if (ms < cfg_msec)
		return 0;
	trigger_match("syscall_slow", "syscall=%ld ms=%llu ret=%ld", nr, ms,
		      ret);
	return 0;
}
