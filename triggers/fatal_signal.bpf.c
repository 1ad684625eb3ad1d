// SPDX-License-Identifier: GPL-2.0
/*
 * fatal_signal: a signal whose action kills the task was delivered: once per
 * task it kills (a process of N threads counts N matches).
 *
 * Most fatal signals are never delivered under their own number: when one is
 * sent, complete_signal() starts a group exit at once and every thread is
 * handed SIGKILL; the signal that did it is kept in the process's
 * signal->group_exit_code. So a SIGKILL seen during a group exit is read as
 * that signal (SIGTERM, SIGRTMIN+1 ...), and one from exit_group() or an
 * exec that ends the other threads (no signal in the code) is no signal
 * death at all. Signals that dump core (SIGSEGV, SIGABRT ...) are delivered
 * under their own number.
 */
#include <bpk/trigger.bpf.h>

#define SIGKILL 9
#define SIGNAL_GROUP_EXIT 0x00000004 /* include/linux/sched/signal.h */
#define SIGNAL_UNKILLABLE 0x00000040

const volatile __s64 cfg_signal = 0; /* 0 = any fatal signal */

/* Signals whose default action ends the process: all of 1-64 but CHLD,
 * CONT, STOP, TSTP, TTIN, TTOU, URG and WINCH; real-time ones included.
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
	return sig > 0 && sig <= 64;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(fatal_signal, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct signal_struct *s = t->signal;
	int killer = sig;

	if (sig == SIGKILL &&
	    ((s->flags & SIGNAL_GROUP_EXIT) || s->group_exec_task)) {
		/* the signal that started the group exit; 0: not a signal */
		killer = s->group_exit_code & 0x7f;
		if (!killer)
			return 0;
	} else if (sig != SIGKILL) {
		/* the default action (SIG_DFL), and one that terminates */
		if (ka->sa.sa_handler || !kills_by_default(sig))
			return 0;
		/* init ignores what it has no handler for */
		if (s->flags & SIGNAL_UNKILLABLE)
			return 0;
	}
	if ((cfg_signal && killer != cfg_signal) || !trigger_task_selected())
		return 0;
	trigger_match("fatal_signal", "signal=%d code=%d", killer,
		      info ? info->si_code : 0);
	return 0;
}
