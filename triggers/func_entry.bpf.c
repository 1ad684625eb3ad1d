// SPDX-License-Identifier: GPL-2.0
/* func_entry: a kernel function was entered (fentry on func=). */
#include "trigger.bpf.h"

SEC("fentry")
int BPF_PROG(func_entry)
{
	if (!trigger_task_selected())
		return 0;
	trigger_match("func_entry", "ip=0x%lx", bpf_get_func_ip(ctx));
	return 0;
}
