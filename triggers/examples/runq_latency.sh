#!/bin/sh
# Provokes runq_latency usec=20000 comm=waiter: three CPU hogs pinned to
# CPU 0 at a high priority, and a process named waiter on the same CPU that
# sleeps and wakes; each of its wakeups waits in the run queue behind them.
hogs=
for _ in 1 2 3; do
	taskset -c 0 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	renice -n -10 -p $! >/dev/null
done
# shellcheck disable=SC2016 # the waiter script's own variables
printf '#!/bin/sh\ni=0\nwhile [ $i -lt 20 ]; do i=$((i + 1)); sleep 0.01; done\n' >/tmp/waiter
chmod +x /tmp/waiter
taskset -c 0 /tmp/waiter
# shellcheck disable=SC2086 # a list of pids
kill $hogs
