#!/bin/sh
# A workload that prints a line a second for 12 s on its own port and
# nothing on the console, then crashes the guest (sysrq): with --stall 5
# the guest is never silent for 5 s, so no NMI is injected and the cause
# is the sysrq.
i=0
while [ $i -lt 12 ]; do
	echo "chatty: $i"
	sleep 1
	i=$((i + 1))
done
echo c >/proc/sysrq-trigger
