#!/bin/sh
# Provokes syscall_errno syscall=openat errno=ENOENT comm=bpk-demo: a process
# named bpk-demo (a script's comm is its file name) opens a missing file.
printf '#!/bin/sh\necho "bpk-demo: opening /bpk-demo/no-such-file"\nexec 3</bpk-demo/no-such-file\n' >/tmp/bpk-demo
chmod +x /tmp/bpk-demo
/tmp/bpk-demo
