#!/bin/sh
# A flaky reproducer for the campaign tests: each run "hits the bug" with a
# chance of 1 in 3, drawn from the guest's /dev/urandom: a process named
# flaky (a script's comm is its file name) opens a file that is not there.
# Matches syscall_errno syscall=openat errno=ENOENT comm=flaky.
r=$(od -An -tu1 -N1 /dev/urandom | tr -d ' ')
echo "flaky: attempt ${BPK_ATTEMPT:-?} drew $r"
[ $((r % 3)) -eq 0 ] || exit 0
printf '#!/bin/sh\nexec 3</flaky/no-such-file\n' >/tmp/flaky
chmod +x /tmp/flaky
/tmp/flaky
