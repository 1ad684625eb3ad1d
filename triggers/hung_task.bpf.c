// SPDX-License-Identifier: GPL-2.0
/* hung_task: a task stayed in D state longer than secs= (khungtaskd's
 * report; the loader sets kernel.hung_task_timeout_secs). comm=/pid=
 * select the hung task.
 */
#include <bpk/trigger.bpf.h>

SEC("tp_btf/sched_process_hang")
int BPF_PROG(hung_task, struct task_struct *t)
{
	if (!trigger_other_selected(t))
		return 0;
	trigger_match("hung_task", "hung_pid=%d hung_comm=%s", t->pid, t->comm);
	return 0;
}
