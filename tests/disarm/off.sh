#!/bin/sh
# Workload of tests/23-disarm: the administrator's off switch. The trigger
# "syscall_errno syscall=openat errno=ENOENT comm=bpk-disarm" is armed with
# bpf_panic(); switch kernel.destructive_bpf_enabled off, then provoke it:
# bpf_panic() must come back with -EPERM, no panic, and the guest goes on.
printf '#!/bin/sh\nexec 3</bpk-disarm/no-such-file\n' >/tmp/bpk-disarm
chmod +x /tmp/bpk-disarm
echo 0 >/proc/sys/kernel/destructive_bpf_enabled
echo "disarm: sysctl $(cat /proc/sys/kernel/destructive_bpf_enabled), provoking"
/tmp/bpk-disarm 2>/dev/null
triggerctl status syscall_errno
