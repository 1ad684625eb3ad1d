#!/bin/sh
# What a restored guest is: its clock, its random numbers, the sysctls
# --stall and --panic-on set. Then a process named warm-fire opens a
# missing file (the trigger's fire).
echo "clock $(date +%s)"
echo "uuid $(cat /proc/sys/kernel/random/uuid)"
echo "random $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
k=/proc/sys/kernel
echo "sysctls $(cat $k/softlockup_panic) $(cat $k/hung_task_panic) $(cat $k/panic_on_rcu_stall) $(cat $k/unknown_nmi_panic)"
printf '#!/bin/sh\nexec 3</warm/no-such-file\n' >/tmp/warm-fire
chmod +x /tmp/warm-fire
/tmp/warm-fire
