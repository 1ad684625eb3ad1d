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
 * dropped there. And a start time is only used if the task's CPU time
 * (se.sum_exec_runtime) is what it was when it was taken: whatever the
 * order of events, a task's own run time never counts as waiting.
 *
 * The record says how the wait began: after=wakeup, fork or switch (it was
 * switched out while runnable).
 */
#include <bpk/trigger.bpf.h>

#define TASK_RUNNING 0

const volatile __u64 cfg_usec = 10000;

/* How a wait began, for the record ("after=wakeup") */
enum { AFTER_WAKEUP, AFTER_FORK, AFTER_SWITCH };
const char after_names[3][8] = { "wakeup", "fork", "switch" };

struct wait_start {
	__u64 ns;
	__u64 ran; /* the task's se.sum_exec_runtime then */
	__u32 after;
	__u32 pad;
};

/*
 * When each selected task started to wait. An entry lives from a wakeup or
 * a preemption to the next switch of that task; LRU so that one left by a
 * task that never ran again cannot fill the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* thread id */
	__type(value, struct wait_start);
} queued SEC(".maps");

/* @p became runnable now. @flags: BPF_NOEXIST keeps an earlier start. */
static __always_inline void enqueue(struct task_struct *p, __u64 flags,
				    __u32 after)
{
	struct wait_start start = { .after = after };
	__u32 tid = p->pid;

	/* the idle tasks (pid 0) never wait; comm read in place (BTF) */
	if (!tid || !trigger_selects(p->comm, p->tgid))
		return;
	start.ns = bpf_ktime_get_ns();
	start.ran = p->se.sum_exec_runtime;
	bpf_map_update_elem(&queued, &tid, &start, flags);
}

/* A wakeup of a task already waiting (it was preempted before it could
 * sleep) does not restart its wait.
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(runq_wakeup, struct task_struct *p)
{
	enqueue(p, BPF_NOEXIST, AFTER_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(runq_wakeup_new, struct task_struct *p)
{
	enqueue(p, BPF_ANY, AFTER_FORK);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(runq_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct wait_start *at;
	__u32 tid = prev->pid;
	__u64 usec, ran;
	__u32 after;

	/* prev: still on the run queue (preempted, or runnable) waits from
	 * now; going to sleep, it has no wait
	 */
	if (preempt || prev->__state == TASK_RUNNING)
		enqueue(prev, BPF_ANY, AFTER_SWITCH);
	else if (tid && trigger_selects(prev->comm, prev->tgid))
		bpf_map_delete_elem(&queued, &tid);

	tid = next->pid;
	at = bpf_map_lookup_elem(&queued, &tid);
	if (!at)
		return 0;
	usec = (bpf_ktime_get_ns() - at->ns) / 1000;
	after = at->after;
	ran = at->ran;
	bpf_map_delete_elem(&queued, &tid);
	/* A task that ran since its start time was taken (its CPU time
	 * grew) is not coming back from a wait: no run time is counted,
	 * whatever switch was missed.
	 */
	if (usec < cfg_usec || after > AFTER_SWITCH ||
	    next->se.sum_exec_runtime != ran)
		return 0;
	trigger_match("runq_latency",
		      "waited_pid=%d waited_comm=%s usec=%llu after=%s",
		      next->pid, next->comm, usec, after_names[after]);
	return 0;
}
