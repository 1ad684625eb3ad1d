#!/bin/sh
# Workload of tests/23-disarm: off, provoke (refused: -EPERM); on again and
# provoke: still refused, off means off for a program loaded before; then
# triggerctl rearm loads it again and the next match panics the guest.
printf '#!/bin/sh\nexec 3</bpk-disarm/no-such-file\n' >/tmp/bpk-disarm
chmod +x /tmp/bpk-disarm
echo 0 >/proc/sys/kernel/destructive_bpf_enabled
echo "disarm: sysctl $(cat /proc/sys/kernel/destructive_bpf_enabled), provoking"
/tmp/bpk-disarm 2>/dev/null
triggerctl status syscall_errno
echo 1 >/proc/sys/kernel/destructive_bpf_enabled
echo "disarm: sysctl $(cat /proc/sys/kernel/destructive_bpf_enabled), provoking again"
/tmp/bpk-disarm 2>/dev/null
triggerctl status syscall_errno
echo "disarm: rearm"
triggerctl rearm syscall_errno
/tmp/bpk-disarm 2>/dev/null
echo "disarm: still alive after the provocation that follows rearm"
