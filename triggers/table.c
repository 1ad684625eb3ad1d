// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger table. To add a trigger: write triggers/<name>.bpf.c on top of
 * trigger.bpf.h, include its skeleton below and add one entry; its example
 * workload goes in triggers/examples/.
 */
#include <string.h>
#include <linux/types.h>

#include "fire.h"
#include "table.h"

#ifdef TABLE_WITHOUT_PROGRAMS
/* bpk checks names and parameters on the host against this table: it
 * needs no program bytes, and so no skeletons (nor the kernel's BTF they
 * are built from)
 */
#define PROGRAM(name) NULL
#else
/* skeletons: their ELF bytes are what the loader opens */
#include "cpu_hog.skel.h"
#include "fatal_signal.skel.h"
#include "func_entry.skel.h"
#include "func_error.skel.h"
#include "hung_task.skel.h"
#include "oom_kill.skel.h"
#include "proc_exit.skel.h"
#include "runq_latency.skel.h"
#include "syscall_errno.skel.h"
#include "syscall_slow.skel.h"
#include "tracepoint.skel.h"
#include "uprobe.skel.h"
#include "warn.skel.h"
#define PROGRAM(name) name##_bpf__elf_bytes
#endif

#define END_PARAMS                           \
	{                                    \
		NULL, 0, NULL, NULL, NULL, 0 \
	}

/* Every trigger takes these; they set the variables of trigger.bpf.h. */
const struct param_def common_params[] = {
	{ "comm", PT_STRING, "cfg_comm", "",
	  "only tasks with this comm (\"\" = any)", 15 },
	/* pids are below PID_MAX_LIMIT (4194304), the most pid_max can be */
	{ "pid", PT_UINT, "cfg_pid", "0", "only this process (tgid; 0 = any)",
	  4194303 },
	{ "count", PT_COUNT, "cfg_count", "1", "fire on the Nth match", 0 },
	{ "dry_run", PT_FLAG, NULL, "0", "record and count matches, never fire",
	  0 },
	/* the loader's own: it chooses the program's cfg_action */
	{ "action", PT_ACTION, NULL, "auto",
	  "fire with bpf_panic, crash_kexec (the kfunc) or auto (bpf_panic where the kernel has it)",
	  0 },
	END_PARAMS,
};

static const struct param_def func_params[] = {
	{ "func", PT_SYMBOL, "cfg_func", NULL,
	  "kernel function (in the kernel's BTF)", 63 },
	END_PARAMS,
};

static const struct param_def func_error_params[] = {
	{ "func", PT_SYMBOL, "cfg_func", NULL,
	  "kernel function (in the kernel's BTF)", 63 },
	{ "errno", PT_ERRNO, "cfg_errno", "any",
	  "the error it returns (name, number or any)", 0 },
	END_PARAMS,
};

static const struct param_def syscall_errno_params[] = {
	{ "syscall", PT_SYSCALL, "cfg_syscall", NULL,
	  "the syscall (name or number)", 0 },
	{ "errno", PT_ERRNO, "cfg_errno", "any",
	  "the error it returns (name, number or any)", 0 },
	END_PARAMS,
};

static const struct param_def syscall_slow_params[] = {
	{ "syscall", PT_SYSCALL, "cfg_syscall", "any",
	  "the syscall (name, number or any)", 0 },
	{ "ms", PT_COUNT, "cfg_msec", "1000", "threshold in milliseconds", 0 },
	END_PARAMS,
};

static const struct param_def fatal_signal_params[] = {
	{ "signal", PT_SIGNAL, "cfg_signal", "any",
	  "the signal (name, number or any fatal)", 0 },
	END_PARAMS,
};

static const struct param_def warn_params[] = {
	{ "file", PT_STRING, "cfg_file", "",
	  "only WARNs from this source file (path suffix)", 127 },
	END_PARAMS,
};

static const struct param_def proc_exit_params[] = {
	{ "status", PT_ANYUINT, "cfg_status", "any",
	  "exit status 0-255, or any non-zero", 255 },
	END_PARAMS,
};

static const struct param_def uprobe_params[] = {
	{ "target", PT_SYMBOL, NULL, NULL, "/path/to/binary:symbol", 0 },
	END_PARAMS,
};

static const struct param_def tracepoint_params[] = {
	{ "tp", PT_SYMBOL, NULL, NULL,
	  "category:name, as in /sys/kernel/tracing/events", 0 },
	END_PARAMS,
};

static const struct param_def hung_task_params[] = {
	{ "secs", PT_COUNT, NULL, "5",
	  "seconds in D state (sets kernel.hung_task_timeout_secs)", 0 },
	END_PARAMS,
};

static const struct param_def runq_latency_params[] = {
	{ "usec", PT_COUNT, "cfg_usec", "10000",
	  "run-queue wait threshold in microseconds", 0 },
	END_PARAMS,
};

static const struct param_def cpu_hog_params[] = {
	{ "ms", PT_COUNT, "cfg_msec", "1000",
	  "time on a CPU without a context switch, in milliseconds", 0 },
	END_PARAMS,
};

static const struct param_def no_params[] = { END_PARAMS };

const struct trigger_def triggers[] = {
	{
		.name = "func_entry",
		.summary =
			"a kernel function was entered (count= for the Nth hit)",
		.elf_bytes = PROGRAM(func_entry),
		.params = func_params,
		.attach = ATTACH_BTF,
		.attach_param = "func",
		.kfunc_ok = 1,
		.example = "func=do_unlinkat comm=rm",
		.workload = "func_entry.sh",
	},
	{
		.name = "func_error",
		.summary =
			"a kernel function returned an error (any, or errno=)",
		.elf_bytes = PROGRAM(func_error),
		.params = func_error_params,
		.attach = ATTACH_BTF,
		.attach_param = "func",
		.kfunc_ok = 1,
		.example = "func=do_mkdirat errno=EEXIST comm=mkdir",
		.workload = "func_error.sh",
	},
	{
		.name = "syscall_errno",
		.summary = "a syscall returned a given errno (or any error)",
		.elf_bytes = PROGRAM(syscall_errno),
		.params = syscall_errno_params,
		.kfunc_ok = 1,
		.example = "syscall=openat errno=ENOENT comm=bpk-demo",
		.workload = "syscall_errno.sh",
	},
	{
		.name = "syscall_slow",
		.summary = "a syscall took longer than ms=",
		.elf_bytes = PROGRAM(syscall_slow),
		.params = syscall_slow_params,
		.kfunc_ok = 1,
		.example = "syscall=clock_nanosleep ms=300",
		.workload = "syscall_slow.sh",
	},
	{
		.name = "fatal_signal",
		.summary =
			"a fatal signal was delivered to a task (SIGSEGV, SIGABRT, SIGKILL ...)",
		.elf_bytes = PROGRAM(fatal_signal),
		.params = fatal_signal_params,
		.kfunc_ok = 1,
		.example = "signal=SIGSEGV comm=crasher",
		.workload = "fatal_signal.sh",
	},
	{
		.name = "oom_kill",
		.summary =
			"the OOM killer chose a victim (comm=/pid= select the victim)",
		.elf_bytes = PROGRAM(oom_kill),
		.params = no_params,
		.kfunc_ok = 1,
		.example = "comm=memhog",
		.workload = "oom_kill",
	},
	{
		.name = "warn",
		.summary = "a WARN() fired (file= for only one source file)",
		.elf_bytes = PROGRAM(warn),
		.params = warn_params,
		.kfunc_ok = 1,
		.example = "file=drivers/misc/lkdtm/bugs.c",
		.workload = "warn.sh",
	},
	{
		.name = "proc_exit",
		.summary =
			"a process exited with a given status (or any non-zero)",
		.elf_bytes = PROGRAM(proc_exit),
		.params = proc_exit_params,
		.kfunc_ok = 1,
		.example = "status=3 comm=failer",
		.workload = "proc_exit.sh",
	},
	{
		.name = "uprobe",
		.summary =
			"a user-space function was called (an application assertion)",
		.elf_bytes = PROGRAM(uprobe),
		.params = uprobe_params,
		.attach = ATTACH_UPROBE,
		.attach_param = "target",
		.kfunc_ok = 0,
		.example = "target=/etc/bpk/workload:app_assert_failed",
		.workload = "uprobe",
	},
	{
		.name = "tracepoint",
		.summary = "any kernel tracepoint was hit (tp=category:name)",
		.elf_bytes = PROGRAM(tracepoint),
		.params = tracepoint_params,
		.attach = ATTACH_BTF,
		.attach_param = "tp",
		.kfunc_ok = 1,
		.example = "tp=sched:sched_process_fork comm=forker",
		.workload = "tracepoint.sh",
	},
	{
		.name = "hung_task",
		.summary =
			"a task stayed in D state longer than secs= (khungtaskd)",
		.elf_bytes = PROGRAM(hung_task),
		.params = hung_task_params,
		.kfunc_ok = 1,
		.sysctl_path = "/proc/sys/kernel/hung_task_timeout_secs",
		.sysctl_param = "secs",
		.example = "secs=2 comm=hanger",
		.workload = "hung_task.sh",
	},
	{
		.name = "runq_latency",
		.summary = "a woken task waited longer than usec= for a CPU",
		.elf_bytes = PROGRAM(runq_latency),
		.params = runq_latency_params,
		.kfunc_ok = 1,
		.example = "usec=20000 comm=waiter",
		.workload = "runq_latency.sh",
	},
	{
		.name = "cpu_hog",
		.summary =
			"a task kept a CPU for ms= without a context switch (a busy loop)",
		.elf_bytes = PROGRAM(cpu_hog),
		.params = cpu_hog_params,
		.attach = ATTACH_PERF_CPU_CLOCK,
		.kfunc_ok = 0,
		.example = "ms=500 comm=spinner",
		.workload = "cpu_hog",
	},
	{ NULL },
};

/* userprog.c, where it is linked in: a user's own program, once loaded */
const struct trigger_def *userprog_def(void) __attribute__((weak));

const struct trigger_def *trigger_find(const char *name)
{
	const struct trigger_def *u;

	for (const struct trigger_def *t = triggers; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	u = userprog_def ? userprog_def() : NULL;
	return u && !strcmp(u->name, name) ? u : NULL;
}
