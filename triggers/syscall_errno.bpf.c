// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_errno: a syscall returned a given errno (or any error) to the
 * program, as the program sees it:
 * - an error is -1 .. -4095 (IS_ERR_VALUE): a larger negative value, as an
 *   lseek() on /proc/PID/mem can return, is a success;
 * - the kernel-internal -ERESTART* codes (512-516) never reach the program:
 *   when a signal handler runs, the signal code turns them into EINTR (or
 *   restarts the syscall, SA_RESTART); with no handler, the syscall is
 *   restarted. So they are not matched at sys_exit, and EINTR is matched
 *   when the signal is delivered, where the outcome is known.
 */
#include <bpk/trigger.bpf.h>

#define EINTR 4
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516
#define MAX_ERRNO 4095
#define SA_RESTART 0x10000000

const volatile __s64 cfg_syscall = -1; /* syscall number */
const volatile __s64 cfg_errno = 0; /* errno to match, 0 = any error */

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_errno, struct pt_regs *regs, long ret)
{
	long nr;

	if (ret >= 0 || ret < -MAX_ERRNO ||
	    (ret <= -ERESTARTSYS && ret >= -ERESTART_RESTARTBLOCK) ||
	    (cfg_errno && ret != -cfg_errno))
		return 0;
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr != cfg_syscall || !trigger_task_selected())
		return 0;
	trigger_match("syscall_errno", "syscall=%ld errno=%ld", nr, -ret);
	return 0;
}

/*
 * A signal with a handler is being delivered on the way back to user space:
 * if the syscall's -ERESTART* code becomes EINTR here (handle_signal() in
 * arch/x86/kernel/signal.c), that is the program's error. The registers
 * still hold the syscall's number and return value.
 */
SEC("tp_btf/signal_deliver")
int BPF_PROG(syscall_errno_eintr, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct pt_regs *regs;
	unsigned long handler;
	long ret;

	if (cfg_errno && cfg_errno != EINTR)
		return 0;
	/* SIG_DFL (0) and SIG_IGN (1) run no handler: a restart, or death */
	handler = (unsigned long)ka->sa.sa_handler;
	if (handler <= 1)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (regs->orig_ax != cfg_syscall)
		return 0;
	ret = regs->ax;
	if (ret != -ERESTARTNOHAND && ret != -ERESTART_RESTARTBLOCK &&
	    (ret != -ERESTARTSYS || (ka->sa.sa_flags & SA_RESTART)))
		return 0;
	if (!trigger_task_selected())
		return 0;
	trigger_match("syscall_errno", "syscall=%ld errno=%d signal=%d",
		      regs->orig_ax, EINTR, sig);
	return 0;
}
