// SPDX-License-Identifier: GPL-2.0
/* uprobe: a user-space function was called (target=/path/binary:symbol):
 * an application's assertion that dumps the kernel. A uprobe is not a
 * tracing program, so it can only fire with bpf_panic(), not crash_kexec.
 */
#include <bpk/trigger.bpf.h>

SEC("uprobe")
int BPF_KPROBE(uprobe_hit)
{
	if (!trigger_task_selected())
		return 0;
	trigger_match("uprobe", "ip=0x%lx arg0=%ld", PT_REGS_IP(ctx),
		      PT_REGS_PARM1(ctx));
	return 0;
}
