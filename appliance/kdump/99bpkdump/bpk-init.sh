#!/bin/sh
# /init of the kdump image: PID 1 of the crash kernel, run by busybox's sh.
# It mounts what the capture step reads (/proc/vmcore, the virtio ports in
# /sys and /dev) and runs it; the capture step never returns (it powers the
# machine off).
#
# Why not dracut's own init (99base): under TCG its shell init and udev take
# 2.7 s from "Run /init" to its first message, longer than the dump itself,
# and its udev half (udevadm, libsystemd-shared, libcrypto) is 14 of the
# 23 MiB such an image has unpacked, each MiB paid again by kexec -p, by
# purgatory's checksum and by the capture kernel's unpacking. A dump needs none of it:
# no root to find, no devices to wait for but the virtio ports, which
# devtmpfs creates by itself. Why busybox (static) and not bash and
# util-linux's mount: every dynamically linked program started costs its
# loader's work again, 0.05-0.1 s each under TCG.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
failed=''
mount -t proc -o nosuid,noexec,nodev proc /proc || failed="$failed /proc"
mount -t sysfs -o nosuid,noexec,nodev sysfs /sys || failed="$failed /sys"
mount -t devtmpfs -o mode=0755,nosuid devtmpfs /dev || failed="$failed /dev"
exec 0<>/dev/console 1<>/dev/console 2<>/dev/console
# the capture step then fails on what is missing and says which step
[ -z "$failed" ] || echo "bpk-init: could not mount:$failed" >/dev/console
# the protocol with the host (the port names, bpk_find_port), shared with
# the root image: docs/guest-protocol.md
# shellcheck source=../../guest/bpk-lib.sh
. /usr/lib/bpk/bpk-lib.sh
# shellcheck source=bpk-capture.sh
. /usr/lib/bpk/bpk-capture.sh
# not reached: bpk-capture.sh powers off; PID 1 must not exit (a panic)
echo o >/proc/sysrq-trigger
while :; do sleep 60; done
