// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint: a kernel tracepoint was hit (tp=category:name), as tp_btf.
 * The loader keeps one of these programs: the generic one, retargeted at
 * the tracepoint, or for tp=syscalls:sys_enter_NAME / sys_exit_NAME (events
 * that are not tracepoints of their own) one on raw_syscalls' sys_enter or
 * sys_exit that keeps the one syscall.
 */
#include <bpk/trigger.bpf.h>

const volatile __s64 cfg_syscall = -1; /* syscalls:* only: its number */

SEC("tp_btf")
int BPF_PROG(tracepoint)
{
	if (!trigger_task_selected())
		return 0;
	trigger_match("tracepoint", "arg0=0x%llx", ctx[0]);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tracepoint_sys_enter, struct pt_regs *regs, long id)
{
	if (id != cfg_syscall || !trigger_task_selected())
		return 0;
	trigger_match("tracepoint", "syscall=%ld arg0=0x%lx", id, regs->di);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tracepoint_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;

	if (nr != cfg_syscall || !trigger_task_selected())
		return 0;
	trigger_match("tracepoint", "syscall=%ld ret=%ld", nr, ret);
	return 0;
}
