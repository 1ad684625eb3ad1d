// SPDX-License-Identifier: GPL-2.0
/* fatal_signal: a signal whose action kills the task was delivered. */
#include "trigger.bpf.h"

const volatile __s64 cfg_signal = 0; /* 0 = any fatal signal */

/* Signals whose default action ends the process (not CHLD, CONT, STOP,
 * TSTP, TTIN, TTOU, URG, WINCH).
 */
static __always_inline bool kills_by_default(int sig)
{
	switch (sig) {
	case 17: /* SIGCHLD */
	case 18: /* SIGCONT */
	case 19: /* SIGSTOP */
	case 20: /* SIGTSTP */
	case 21: /* SIGTTIN */
	case 22: /* SIGTTOU */
	case 23: /* SIGURG */
	case 28: /* SIGWINCH */
		return false;
	}
	return sig > 0 && sig < 32;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(fatal_signal, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	/* fatal: the default action (SIG_DFL) and it terminates; SIGKILL always */
	if (sig != 9 && (!ka || ka->sa.sa_handler || !kills_by_default(sig)))
		return 0;
	if ((cfg_signal && sig != cfg_signal) || !trigger_task_selected())
		return 0;
	trigger_match("fatal_signal", "signal=%d code=%d", sig,
		      info ? info->si_code : 0);
	return 0;
}
