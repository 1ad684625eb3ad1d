#!/bin/sh
# Workload of tests/60-analysis (run twice: --repeat 2). Run 1 leaves two
# tasks behind for the dump: bpk-sleeper, sleeping (S) in wait4 for its
# sleep child, and bpk-dstate, blocked for good in D state by LKDTM's
# HUNG_TASK (set_current_state(TASK_UNINTERRUPTIBLE); schedule()), then
# lists the processes as the guest sees them. Run 2 fires the demo trigger
# (syscall_errno syscall=openat errno=ENOENT comm=bpk-demo).
if [ ! -e /tmp/tasks-ready ]; then
	printf '#!/bin/sh\nsleep 600\n' >/tmp/bpk-sleeper
	printf '#!/bin/sh\necho HUNG_TASK >/sys/kernel/debug/provoke-crash/DIRECT\n' >/tmp/bpk-dstate
	chmod +x /tmp/bpk-sleeper /tmp/bpk-dstate
	/tmp/bpk-sleeper &
	echo "tasks-workload: bpk-sleeper pid $!"
	/tmp/bpk-dstate &
	echo "tasks-workload: bpk-dstate pid $!"
	sleep 1
	ps -o pid,ppid,stat,comm | sed 's/^/tasks-workload: ps: /'
	touch /tmp/tasks-ready
	exit 0
fi
printf '#!/bin/sh\nexec 3</bpk-demo/no-such-file\n' >/tmp/bpk-demo
chmod +x /tmp/bpk-demo
/tmp/bpk-demo
