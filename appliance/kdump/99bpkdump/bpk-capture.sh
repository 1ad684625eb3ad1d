#!/bin/sh
# shellcheck shell=dash
# Capture step in the crash kernel, sourced by the kdump image's /init
# (bpk-init.sh, busybox sh) once /proc, /sys and /dev are mounted.
#
# 1. the kernel log of the crashed kernel (vmcore-dmesg) to port "dmesg",
# 2. the dump (makedumpfile -F, flattened) to port "dump",
# 3. a status record to port "status": key=value lines, last "end",
# then power off (sysrq o). Every step reports on the console. Nothing here
# returns: a failure is recorded and the machine still powers off.

# shellcheck disable=SC1091
. /etc/bpk-kdump.conf
: "${MAKEDUMPFILE_OPTS:=-l -d 31}"
t_start="" t_dmesg="" t_dump=""

log() { echo "bpk-capture: $*" >/dev/console; }

port() { # /dev/vportNpM of the virtio-serial port named $1
    # read, not $(cat): every process costs 20-40 ms under TCG, and this
    # runs a dozen times before the dump starts
    local p name
    for p in /sys/class/virtio-ports/*; do
        name=''
        [ -r "$p/name" ] && read -r name <"$p/name"
        if [ "$name" = "$1" ]; then
            echo "/dev/${p##*/}"
            return 0
        fi
    done
    return 1
}

# now VAR: seconds since the crash kernel booted into VAR (there is no RTC,
# so no wall clock); a builtin read, no subshell
now() {
    local _
    read -r "$1" _ </proc/uptime
}

finish() { # finish STATUS [STEP RC]: write the status record, power off
    {
        echo "status=$1"
        [ -n "${2:-}" ] && echo "failed_step=$2" && echo "failed_rc=$3"
        echo "dmesg_rc=${dmesg_rc:-not_run}"
        echo "makedumpfile_rc=${dump_rc:-not_run}"
        echo "makedumpfile_opts=$MAKEDUMPFILE_OPTS"
        echo "capture_started=$t_start"
        echo "dmesg_done=${t_dmesg:-}"
        echo "dump_done=${t_dump:-}"
        echo "end"
    } >"${status_port:-/dev/console}"
    log "status $1${2:+ (step $2 exited $3)}; powering off"
    sync
    echo o >/proc/sysrq-trigger
    sleep 30
}

now t_start
read -r cmdline </proc/cmdline
log "crash kernel up: $cmdline"
# A kernel whose virtio drivers are modules (Debian's): dracut put them and
# their dependencies in this image; load them, then give the console driver
# a moment to learn the ports' names from QEMU (they come asynchronously).
if [ -n "${BPK_MODULES:-}" ]; then
    for m in $BPK_MODULES; do
        modprobe "$m" || log "modprobe $m failed"
    done
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        port status >/dev/null && port dump >/dev/null && port dmesg >/dev/null && break
        sleep 0.25
    done
    log "modules loaded: $BPK_MODULES"
fi
status_port=$(port status) || { log "no virtio port 'status'"; finish failed ports 1; }
dmesg_port=$(port dmesg) || finish failed ports 1
dump_port=$(port dump) || finish failed ports 1
[ -e /proc/vmcore ] || finish failed vmcore 1

log "saving the kernel log (vmcore-dmesg)"
vmcore-dmesg /proc/vmcore >"$dmesg_port"
dmesg_rc=$?
now t_dmesg
[ "$dmesg_rc" = 0 ] || log "vmcore-dmesg exited $dmesg_rc; dumping anyway"

log "dumping: makedumpfile -F $MAKEDUMPFILE_OPTS"
# message level 21 = progress (1) + errors (4) + report (16): the report's
# "STEP [...] : N seconds" lines split the dump into page scan and copy
# shellcheck disable=SC2086 # the options are a word list by design
makedumpfile -F $MAKEDUMPFILE_OPTS --message-level 21 /proc/vmcore >"$dump_port"
dump_rc=$?
now t_dump
[ "$dump_rc" = 0 ] || finish failed makedumpfile "$dump_rc"
[ "$dmesg_rc" = 0 ] || finish failed vmcore-dmesg "$dmesg_rc"
finish success
