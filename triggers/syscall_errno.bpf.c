// SPDX-License-Identifier: GPL-2.0
/* syscall_errno: a syscall returned a given errno (or any error). */
#include "trigger.bpf.h"

const volatile __s64 cfg_syscall = -1; /* syscall number */
const volatile __s64 cfg_errno = 0; /* errno to match, 0 = any error */

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_errno, struct pt_regs *regs, long ret)
{
	long nr;

	if (ret >= 0 || (cfg_errno && ret != -cfg_errno))
		return 0;
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr != cfg_syscall || !trigger_task_selected())
		return 0;
	trigger_match("syscall_errno", "syscall=%ld errno=%ld", nr, -ret);
	return 0;
}
