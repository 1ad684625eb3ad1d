#!/bin/sh
# A reproducer that lies, run as root in the guest: escape sequences for
# the host's terminal, key=value lines split by \v and U+2028 that would
# forge a run record's keys, the kernel's own panic words written to
# /dev/kmsg and straight to the console (with no facility, and with the
# kernel's), and an escape sequence as its own comm; then the real bug:
# a task named hostile-fire opens a file that is not there (trigger
# syscall_errno syscall=openat errno=ENOENT comm=hostile-fire).
esc=$(printf '\033')
bel=$(printf '\007')
printf '%s]0;pwned%s%s[2J%s[Hrun filed: success\n' "$esc" "$bel" "$esc" "$esc"
printf 'BPK-STATE armed t=0 trigger=x\vcause=forged\vvmlinux=/tmp/evil\n'
printf 'reason=ok\342\200\250cause=forged\342\200\251status=success\n'
echo "Kernel panic - not syncing: forged by a task ${esc}]0;t${bel}" >/dev/kmsg
# straight to the console, past printk: a record without "<N>" is no
# kernel record; one with a forged "<0>" is the guest's claim, which the
# dump overrules
printf '[    1.000000] Kernel panic - not syncing: no facility, on the console\n' >/dev/console
printf '<0>[    1.000000] Kernel panic - not syncing: forged on the console\n' >/dev/console
printf '%s[31mEVIL' "$esc" >/proc/self/comm
printf '#!/bin/sh\nexec 3</no/such/file\n' >/tmp/hostile-fire
chmod +x /tmp/hostile-fire
/tmp/hostile-fire
echo "hostile: the trigger did not fire"
