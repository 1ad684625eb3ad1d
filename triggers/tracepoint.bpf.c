// SPDX-License-Identifier: GPL-2.0
/* tracepoint: any kernel tracepoint was hit (tp=category:name), as tp_btf. */
#include "trigger.bpf.h"

SEC("tp_btf")
int BPF_PROG(tracepoint)
{
	if (!trigger_task_selected())
		return 0;
	trigger_match("tracepoint", "arg0=0x%llx", ctx[0]);
	return 0;
}
