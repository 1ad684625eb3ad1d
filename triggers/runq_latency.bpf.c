// SPDX-License-Identifier: GPL-2.0
/*
 * runq_latency: a runnable task waited longer than usec= in a run queue
 * before it got a CPU. comm=/pid= select the waiting task.
 *
 * As bcc's runqlat does: a wait starts when a task is woken (or is new),
 * and when it is switched out while still runnable (preempted, or yielding:
 * CPU-bound tasks never sleep, and wait all the same); it ends when the task
 * is switched in. A task switched out to sleep has no wait in progress: any
 * start time left from a wakeup that came while it was still on its CPU is
 * dropped there, so its run time never counts as waiting.
 */
#include "trigger.bpf.h"

#define TASK_RUNNING 0

const volatile __u64 cfg_usec = 10000;

/*
 * When each selected task started to wait. An entry lives from a wakeup or
 * a preemption to the next switch of that task; LRU so that one left by a
 * task that never ran again cannot fill the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* thread id */
	__type(value, __u64); /* start of the wait */
} queued SEC(".maps");

/* @p became runnable now. @flags: BPF_NOEXIST keeps an earlier start. */
static __always_inline void enqueue(struct task_struct *p, __u64 flags)
{
	__u32 tid = p->pid;
	__u64 now;

	/* the idle tasks (pid 0) never wait; comm read in place (BTF) */
	if (!tid || !trigger_selects(p->comm, p->tgid))
		return;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&queued, &tid, &now, flags);
}

/* A wakeup of a task already waiting (it was preempted before it could
 * sleep) does not restart its wait.
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(runq_wakeup, struct task_struct *p)
{
	enqueue(p, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(runq_wakeup_new, struct task_struct *p)
{
	enqueue(p, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(runq_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 tid = prev->pid;
	__u64 *at, usec;

	/* prev: still on the run queue (preempted, or runnable) waits from
	 * now; going to sleep, it has no wait
	 */
	if (preempt || prev->__state == TASK_RUNNING)
		enqueue(prev, BPF_ANY);
	else if (tid && trigger_selects(prev->comm, prev->tgid))
		bpf_map_delete_elem(&queued, &tid);

	tid = next->pid;
	at = bpf_map_lookup_elem(&queued, &tid);
	if (!at)
		return 0;
	usec = (bpf_ktime_get_ns() - *at) / 1000;
	bpf_map_delete_elem(&queued, &tid);
	if (usec < cfg_usec)
		return 0;
	trigger_match("runq_latency", "waited_pid=%d waited_comm=%s usec=%llu",
		      next->pid, next->comm, usec);
	return 0;
}
