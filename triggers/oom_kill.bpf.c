// SPDX-License-Identifier: GPL-2.0
/* oom_kill: the OOM killer chose a victim (comm=/pid= select the victim). */
#include <bpk/trigger.bpf.h>

SEC("tp_btf/mark_victim")
int BPF_PROG(oom_kill, struct task_struct *victim, uid_t uid)
{
	if (!trigger_other_selected(victim))
		return 0;
	trigger_match("oom_kill", "victim_pid=%d victim_comm=%s uid=%u",
		      victim->tgid, victim->comm, uid);
	return 0;
}
