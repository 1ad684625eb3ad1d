// SPDX-License-Identifier: GPL-2.0
/* runq_latency: a woken task waited longer than usec= for a CPU. comm=/pid=
 * select the waiting task.
 */
#include "trigger.bpf.h"

const volatile __u64 cfg_usec = 10000;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* pid */
	__type(value, __u64); /* wakeup time */
} woken SEC(".maps");

static __always_inline int on_wakeup(struct task_struct *p)
{
	__u32 pid = p->pid;
	__u64 now = bpf_ktime_get_ns();

	if (trigger_other_selected(p))
		bpf_map_update_elem(&woken, &pid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(runq_wakeup, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(runq_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(runq_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 pid = next->pid;
	__u64 *at = bpf_map_lookup_elem(&woken, &pid);
	__u64 usec;

	if (!at)
		return 0;
	usec = (bpf_ktime_get_ns() - *at) / 1000;
	bpf_map_delete_elem(&woken, &pid);
	if (usec < cfg_usec)
		return 0;
	trigger_match("runq_latency", "waited_pid=%d waited_comm=%s usec=%llu",
		      next->pid, next->comm, usec);
	return 0;
}
