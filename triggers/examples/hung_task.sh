#!/bin/sh
# Provokes hung_task secs=2 (comm=hanger to select it): LKDTM's HUNG_TASK
# test leaves the writing process, named hanger, in D state for good;
# khungtaskd reports it after secs= seconds.
printf '#!/bin/sh\necho HUNG_TASK >/sys/kernel/debug/provoke-crash/DIRECT\n' >/tmp/hanger
chmod +x /tmp/hanger
/tmp/hanger &
sleep 8
