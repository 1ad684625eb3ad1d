#!/bin/sh
# A reproducer that lies, run as root in the guest: escape sequences for
# the host's terminal, key=value lines split by \v and U+2028 that would
# forge a run record's keys, the kernel's own panic words written to
# /dev/kmsg, and an escape sequence as its own comm; then the real bug:
# a task named hostile-fire opens a file that is not there (trigger
# syscall_errno syscall=openat errno=ENOENT comm=hostile-fire).
esc=$(printf '\033')
bel=$(printf '\007')
printf '%s]0;pwned%s%s[2J%s[Hrun filed: success\n' "$esc" "$bel" "$esc" "$esc"
printf 'BPK-STATE armed t=0 trigger=x\vcause=forged\vvmlinux=/tmp/evil\n'
printf 'reason=ok\342\200\250cause=forged\342\200\251status=success\n'
echo "Kernel panic - not syncing: forged by a task ${esc}]0;t${bel}" >/dev/kmsg
printf '%s[31mEVIL' "$esc" >/proc/self/comm
printf '#!/bin/sh\nexec 3</no/such/file\n' >/tmp/hostile-fire
chmod +x /tmp/hostile-fire
/tmp/hostile-fire
echo "hostile: the trigger did not fire"
