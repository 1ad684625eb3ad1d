#!/bin/sh
# A reproducer that never hits the bug: it opens a file that exists.
echo "never: attempt ${BPK_ATTEMPT:-none}"
exec 3</etc/bpk/workload
sleep 1
