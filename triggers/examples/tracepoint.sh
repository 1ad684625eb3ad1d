#!/bin/sh
# Provokes tracepoint tp=sched:sched_process_fork comm=forker: a process
# named forker forks a child (a subshell).
printf '#!/bin/sh\n( : )\n' >/tmp/forker
chmod +x /tmp/forker
/tmp/forker
