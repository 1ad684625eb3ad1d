#!/bin/sh
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
# the protocol with the host: bpk_find_port, bpk_uptime, the port names
# (docs/guest-protocol.md); bpk-init.sh has sourced it already
# shellcheck source=../../guest/bpk-lib.sh
[ -n "${bpk_lib_loaded:-}" ] || . /usr/lib/bpk/bpk-lib.sh
: "${MAKEDUMPFILE_OPTS:=-d 31}"
t_start="" t_dmesg="" t_dump=""

log() { echo "bpk-capture: $*" >/dev/console; }

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

bpk_uptime
t_start=$bpk_uptime
log "crash kernel up: $bpk_cmdline"
# A kernel whose virtio drivers are modules (Debian's): dracut put them and
# their dependencies in this image; load them, then give the console driver
# a moment to learn the ports' names from QEMU (they come asynchronously).
if [ -n "${BPK_MODULES:-}" ]; then
    for m in $BPK_MODULES; do
        modprobe "$m" || log "modprobe $m failed"
    done
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        bpk_find_port "$BPK_PORT_STATUS" >/dev/null && bpk_find_port "$BPK_PORT_DUMP" >/dev/null &&
            bpk_find_port "$BPK_PORT_DMESG" >/dev/null && break
        sleep 0.25
    done
    log "modules loaded: $BPK_MODULES"
fi
# bpk_find_port NAME >/dev/null leaves the port in $bpk_port: no $(...),
# whose fork is time under TCG before the dump starts
bpk_find_port "$BPK_PORT_STATUS" >/dev/null || { log "no virtio port '$BPK_PORT_STATUS'"; finish failed ports 1; }
status_port=$bpk_port
bpk_find_port "$BPK_PORT_DMESG" >/dev/null || finish failed ports 1
dmesg_port=$bpk_port
bpk_find_port "$BPK_PORT_DUMP" >/dev/null || finish failed ports 1
dump_port=$bpk_port
[ -e /proc/vmcore ] || finish failed vmcore 1

log "saving the kernel log (vmcore-dmesg)"
vmcore-dmesg /proc/vmcore >"$dmesg_port"
dmesg_rc=$?
bpk_uptime
t_dmesg=$bpk_uptime
[ "$dmesg_rc" = 0 ] || log "vmcore-dmesg exited $dmesg_rc; dumping anyway"

log "dumping: makedumpfile -F $MAKEDUMPFILE_OPTS"
# message level 21 = progress (1) + errors (4) + report (16): the report's
# "STEP [...] : N seconds" lines split the dump into page scan and copy
# shellcheck disable=SC2086 # the options are a word list by design
makedumpfile -F $MAKEDUMPFILE_OPTS --message-level 21 /proc/vmcore >"$dump_port"
dump_rc=$?
bpk_uptime
t_dump=$bpk_uptime
[ "$dump_rc" = 0 ] || finish failed makedumpfile "$dump_rc"
[ "$dmesg_rc" = 0 ] || finish failed vmcore-dmesg "$dmesg_rc"
finish success
