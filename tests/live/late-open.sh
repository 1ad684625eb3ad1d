#!/bin/sh
# Runs for a while with the trigger armed (the host takes its live dump
# meanwhile: it waits for the "sleeping" line, printed once sleep runs),
# then a process named late-open (a script's comm is its file name) opens
# a missing file: syscall_errno comm=late-open fires.
sleep 45 &
echo "late-open: sleeping (pid $!)"
wait $!
printf '#!/bin/sh\nexec 3</late-open/no-such-file\n' >/tmp/late-open
chmod +x /tmp/late-open
/tmp/late-open
