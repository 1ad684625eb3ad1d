// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_hog: a task kept a CPU for ms= without a context switch: a busy loop
 * in the kernel or in user space. A cpu-clock perf event samples every CPU
 * every 10 ms; at each sample the task on the CPU is compared with the one
 * of the previous sample there, by pid and by its context switch count.
 * comm=/pid= select the task. A perf_event program is not a tracing
 * program: it can fire with bpf_panic() only, not crash_kexec.
 */
#include <bpk/trigger.bpf.h>

const volatile __u64 cfg_msec = 1000;

struct on_cpu {
	__u32 pid; /* the task seen at the last sample, 0: idle */
	__u64 switches; /* its nvcsw + nivcsw then */
	__u64 since; /* when it was first seen without a switch since */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct on_cpu);
} last SEC(".maps");

SEC("perf_event")
int cpu_hog(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 now = bpf_ktime_get_ns(), switches = t->nvcsw + t->nivcsw;
	struct on_cpu *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&last, &zero);
	if (!c)
		return 0;
	if (!t->pid || c->pid != t->pid || c->switches != switches) {
		c->pid = t->pid;
		c->switches = switches;
		c->since = now;
		return 0;
	}
	if (now - c->since < cfg_msec * 1000000 || !trigger_task_selected())
		return 0;
	trigger_match("cpu_hog", "hog_pid=%d ms=%llu", t->pid,
		      (now - c->since) / 1000000);
	c->since = now; /* another match needs another ms= on the CPU */
	return 0;
}
