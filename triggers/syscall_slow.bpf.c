// SPDX-License-Identifier: GPL-2.0
/* syscall_slow: a syscall (or a given one) took longer than ms=. */
#include <bpk/trigger.bpf.h>

const volatile __s64 cfg_syscall = -1; /* -1 = any */
const volatile __u64 cfg_msec = 1000;

/*
 * Entry times of the syscalls in progress, by task. Keyed by the task, not
 * its thread id: a thread that execs from a non-leader thread changes its
 * id inside execve. A task that exits inside a syscall (exit, exit_group,
 * every exiting process) never reaches sys_exit: its entry is dropped at
 * sched_process_exit. The LRU map is the second line: should an entry
 * escape both, the oldest gives way instead of the map filling up and the
 * trigger going blind.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* the task_struct's address */
	__type(value, __u64); /* syscall entry time */
} entered SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(syscall_slow_enter, struct pt_regs *regs, long id)
{
	__u64 task, now;

	/* on every syscall entry: the cheap test first, helpers only after it */
	if ((cfg_syscall >= 0 && id != cfg_syscall) || !trigger_task_selected())
		return 0;
	task = bpf_get_current_task();
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&entered, &task, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_slow_exit, struct pt_regs *regs, long ret)
{
	long nr =
		regs->orig_ax; /* a BTF pointer: a direct load, no helper call */
	__u64 *start, ms, task;

	/* every syscall exit comes here: rule out the others before the lookup */
	if (cfg_syscall >= 0 && nr != cfg_syscall)
		return 0;
	task = bpf_get_current_task();
	start = bpf_map_lookup_elem(&entered, &task);
	if (!start)
		return 0;
	ms = (bpf_ktime_get_ns() - *start) / 1000000;
	bpf_map_delete_elem(&entered, &task);
	/* the task passed comm=/pid= at the entry; it must still pass at the
	 * end (another thread may have renamed it meanwhile)
	 */
	if (ms < cfg_msec || !trigger_task_selected())
		return 0;
	trigger_match("syscall_slow", "syscall=%ld ms=%llu ret=%ld", nr, ms,
		      ret);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(syscall_slow_gone, struct task_struct *p)
{
	__u64 task = bpf_get_current_task();

	bpf_map_delete_elem(&entered, &task);
	return 0;
}
