#!/bin/sh
# Provokes proc_exit status=3 comm=failer: a process named failer exits 3.
printf '#!/bin/sh\nexit 3\n' >/tmp/failer
chmod +x /tmp/failer
/tmp/failer
echo "failer exited with status $?"
