// SPDX-License-Identifier: GPL-2.0
/* func_entry: a kernel function was entered (fentry on func=). */
#include <bpk/trigger.bpf.h>

/* The function's name, for the record. Not bpf_get_func_ip(): using it
 * makes the trampoline save the IP on every call, a cost on hot functions.
 */
const volatile char cfg_func[64] = {};

SEC("fentry")
int BPF_PROG(func_entry)
{
	if (!trigger_task_selected())
		return 0;
	trigger_match("func_entry", "func=%s", cfg_func);
	return 0;
}
