#!/bin/sh
# make bench (field): how long a Python workload takes to start. Run in the
# guest's host view (the host's /usr over 9p; a script for /bin/sh runs
# there only with --host-fs on) and, the same script, on the host. Prints
# "PYSTART first=S second=S" (seconds; the first start reads python3 and
# its modules cold), then crashes the guest, as sysrq.sh does, to end the run.
ms() { date +%s%3N; }
t0=$(ms)
/usr/bin/python3 -c 'import json, os, re, subprocess'
t1=$(ms)
/usr/bin/python3 -c 'import json, os, re, subprocess'
t2=$(ms)
echo "PYSTART first=$(((t1 - t0) / 1000)).$(printf '%03d' $(((t1 - t0) % 1000))) second=$(((t2 - t1) / 1000)).$(printf '%03d' $(((t2 - t1) % 1000)))"
if [ -w /proc/sysrq-trigger ] && [ -e /etc/bpk/hostfs ]; then
	sleep 0.5 # the log is forwarded by another process
	echo c >/proc/sysrq-trigger
fi
