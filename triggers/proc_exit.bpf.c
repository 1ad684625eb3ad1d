// SPDX-License-Identifier: GPL-2.0
/* proc_exit: a process exited with a given status (any non-zero by default). */
#include <bpk/trigger.bpf.h>

const volatile __s64 cfg_status = -1; /* 0..255, -1 = any non-zero */

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	int code = p->exit_code, status = (code >> 8) & 0xff;

	/* the process, not each of its threads; killed by a signal: not an exit */
	if (p->pid != p->tgid || (code & 0x7f))
		return 0;
	if (cfg_status < 0 ? status == 0 : status != cfg_status)
		return 0;
	if (!trigger_task_selected())
		return 0;
	trigger_match("proc_exit", "status=%d", status);
	return 0;
}
