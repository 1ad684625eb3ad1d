#!/bin/sh
# A reproducer that hits the bug on attempt 2 only (BPK_ATTEMPT, which the
# campaign hands each attempt): a process named flaky opens a missing file.
echo "on-attempt: attempt ${BPK_ATTEMPT:-none}"
[ "${BPK_ATTEMPT:-0}" = 2 ] || exit 0
printf '#!/bin/sh\nexec 3</flaky/no-such-file\n' >/tmp/flaky
chmod +x /tmp/flaky
/tmp/flaky
