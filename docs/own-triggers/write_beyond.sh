#!/bin/sh
# write_beyond's workload: a small write at offset 0, then one at 2 MiB
# (busybox dd seeks with lseek, then writes)
cd /tmp || exit 1
dd if=/dev/zero of=data.bin bs=512 count=1 2>/dev/null
dd if=/dev/zero of=data.bin bs=16 count=1 seek=131072 conv=notrunc 2>/dev/null
echo "data.bin written at 0 and at 2 MiB"
