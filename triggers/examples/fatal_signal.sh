#!/bin/sh
# Provokes fatal_signal signal=SIGSEGV comm=crasher: a process named crasher
# is killed by SIGSEGV (it has no handler, so the default action kills it).
printf '#!/bin/sh\nkill -SEGV $$\n' >/tmp/crasher
chmod +x /tmp/crasher
/tmp/crasher
echo "crasher ended with status $?"
